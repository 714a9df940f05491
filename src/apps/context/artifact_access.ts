/**
 * Reading artifact targets for the artifact tools: snapshots under given
 * limits, retained inventory pages, and members of retained inventories read
 * back from their (unchanged) artifacts, in memory.
 *
 * @module
 */

import { ToolFailure } from "../../core/errors.ts";
import type { EvidenceLedger, EvidenceRecord } from "../../core/evidence.ts";
import { isWithin } from "../../core/roots.ts";
import type { RootDirectory } from "../../core/workbench.ts";
import { artifactId, OCCURRENCE_ID_PATTERN } from "../artifacts/ids.ts";
import {
  type ArtifactSnapshot,
  DEFAULT_LIMITS,
  type InventoryPage,
  inventoryPageSchema,
  LIMIT_BOUNDS,
  type TraversalLimits,
} from "../artifacts/model.ts";
import {
  type CapturedMember,
  IntegrityFailure,
  readMember,
  scanArtifact,
  type ScanRoot,
} from "../artifacts/scan.ts";
import { type ArtifactTarget, limitsKey } from "../artifacts/target.ts";
import { capLimits } from "../artifacts/ceilings.ts";
import type { BinarySubject } from "../evidence.ts";
import type { BinaryImage } from "../formats/binary_image.ts";
import { readerFor } from "../formats/readers.ts";
import { MAX_TARGET_BYTES, type TargetFile } from "../paths.ts";
import type { TargetOrigin } from "../session/target.ts";
import { INVENTORY_ARTIFACT } from "../tool_names.ts";
import type { AppsContext } from "./apps_context.ts";

/** The artifact-graph producer. */
export const ARTIFACT_GRAPH_PROVIDER = {
  id: "rea-artifact-graph",
  name: "Casefile artifact graph",
  version: "1",
};
/** The artifact-comparison producer. */
export const ARTIFACT_COMPARISON_PROVIDER = {
  id: "rea-artifact-comparison",
  name: "Casefile artifact comparison",
  version: "1",
};
/** The reconstruction verifier. */
export const VERIFIER_PROVIDER = {
  id: "rea-reconstruction-verifier",
  name: "Casefile reconstruction verifier",
  version: "1",
};

/** Most snapshots kept per artifact target (one per distinct set of limits). */
export const SNAPSHOTS_PER_TARGET = 4;
/** Most changed binaries given a procedure-level summary per comparison page. */
export const SYMBOL_SUMMARIES_PER_PAGE = 20;
/** Largest binary read back for a procedure-level summary. */
export const SYMBOL_SUMMARY_MAX_BYTES = 512 * 1024 * 1024;

/** The traversal limits of a call, from its arguments, capped by the operator's ceilings (with a note per cap). */
export function limitsOf(
  args: TraversalLimits,
  ceilings: Readonly<TraversalLimits>,
): { limits: TraversalLimits; notes: string[] } {
  return capLimits({
    max_entries: args.max_entries,
    max_total_bytes: args.max_total_bytes,
    max_entry_bytes: args.max_entry_bytes,
    max_compression_ratio: args.max_compression_ratio,
    max_depth: args.max_depth,
    max_path_bytes: args.max_path_bytes,
  }, ceilings);
}

/** The scan root of an artifact target. */
export function rootOf(target: ArtifactTarget): ScanRoot {
  return { kind: target.kind, realPath: target.realPath, name: target.name };
}

/** The snapshot of the target under these limits: scanned once, then every page projects it. */
export async function snapshotFor(
  target: ArtifactTarget,
  limits: TraversalLimits,
  integrity: { continueApproved: boolean; maxMismatches: number },
  context: {
    signal: AbortSignal;
    progress: (p: number, t?: number, m?: string) => Promise<void>;
  },
): Promise<ArtifactSnapshot> {
  const key = limitsKey(
    limits,
    integrity.continueApproved ? `continue:${integrity.maxMismatches}` : "fail",
  );
  const cached = target.snapshots.get(key);
  if (cached) return cached;
  const total = target.kind === "file" ? target.size : undefined;
  let snapshot: ArtifactSnapshot;
  try {
    snapshot = await scanArtifact(rootOf(target), {
      limits,
      expectedRootSha256: target.sha256,
      signal: context.signal,
      continueOnIntegrity: integrity.continueApproved
        ? { maxMismatches: integrity.maxMismatches }
        : undefined,
      onProgress: (bytes, entries) =>
        context.progress(bytes, total, `read ${bytes} bytes, ${entries} entries`),
    });
  } catch (error) {
    throw scanFailure(error, target);
  }
  if (target.snapshots.size >= SNAPSHOTS_PER_TARGET) {
    target.snapshots.delete(target.snapshots.keys().next().value!);
  }
  target.snapshots.set(key, snapshot);
  return snapshot;
}

/** Retained inventory pages, validated; throws a clear error for anything else. */
export function inventoryRecord(
  ledger: EvidenceLedger,
  id: string,
): { evidenceId: string; page: InventoryPage; record: EvidenceRecord } {
  const record = ledger.get(id);
  if (!record) {
    throw new ToolFailure("invalid_request", `Evidence ${id} is not retained in this session.`, {
      action:
        "Call inventory_artifact on each version and pass the evidence_id of every page it returned.",
    });
  }
  if (record.operation !== INVENTORY_ARTIFACT || record.predicate_type !== "rea.analysis/v2") {
    throw new ToolFailure(
      "invalid_request",
      `Evidence ${id} records ${record.operation}, not an inventory page.`,
    );
  }
  if (!isInventoryPage(record.normalized_result)) {
    throw new ToolFailure(
      "evidence_integrity_mismatch",
      `Evidence ${id} does not hold a valid inventory page.`,
    );
  }
  return { evidenceId: id, page: record.normalized_result as InventoryPage, record };
}

/** The retained inventory pages that pass their schema. */
export function validInventoryRecords(ledger: EvidenceLedger): EvidenceRecord[] {
  return ledger.list().filter((r) =>
    r.operation === INVENTORY_ARTIFACT && isInventoryPage(r.normalized_result)
  );
}

/**
 * Reads one member of a retained inventory back from its root, which must
 * still be under a root and unchanged; a string says why it could not be.
 */
async function readRetainedMember(
  roots: readonly RootDirectory[],
  record: EvidenceRecord,
  logicalPath: string,
  maxBytes: number,
  options: {
    /** The inventoried content: of several members under the path, the one with it. */
    sha256?: string;
    signal?: AbortSignal;
    onProgress?: (bytes: number, entries: number) => unknown;
  } = {},
): Promise<CapturedMember | { unavailable: string; changed: boolean }> {
  const unavailable = (reason: string, changed = false) => ({ unavailable: reason, changed });
  const subject = record.subject as BinarySubject | null;
  if (!subject) return unavailable("the inventory has no subject to read the member from");
  const inRoots = roots.some((root) =>
    root.realPath !== null && isWithin(subject.local_path, root.realPath)
  );
  if (!inRoots) return unavailable(`${subject.local_path} is no longer under an allowed root`);
  let kind: "directory" | "file";
  try {
    kind = (await Deno.stat(subject.local_path)).isDirectory ? "directory" : "file";
  } catch (error) {
    return unavailable(
      `cannot read ${subject.local_path}: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  try {
    const member = await readMember(
      { kind, realPath: subject.local_path, name: subject.name },
      logicalPath,
      {
        limits: {
          ...DEFAULT_LIMITS,
          max_entries: LIMIT_BOUNDS.max_entries,
          max_entry_bytes: Math.min(LIMIT_BOUNDS.max_entry_bytes, maxBytes),
          max_total_bytes: LIMIT_BOUNDS.max_total_bytes,
        },
        expectedRootSha256: subject.digest.sha256,
        maxBytes,
        sha256: options.sha256,
        signal: options.signal,
        onProgress: options.onProgress as ((bytes: number, entries: number) => void) | undefined,
      },
    );
    return member ??
      unavailable(`${logicalPath} was not found when the artifact was read again`, true);
  } catch (error) {
    if (error instanceof IntegrityFailure) {
      return unavailable(
        `the artifact changed since it was inventoried (${error.message})`,
        true,
      );
    }
    if (error instanceof ToolFailure) throw error;
    if (error instanceof DOMException && error.name === "AbortError") {
      throw new ToolFailure("cancelled", `Reading ${logicalPath} was cancelled.`, {
        retryable: true,
      });
    }
    return unavailable(
      `${logicalPath} could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Reads one member of a retained side back and parses it into its documents; a string says why not. */
export async function procedureImages(
  roots: readonly RootDirectory[],
  record: EvidenceRecord,
  logicalPath: string,
  sha256: string,
): Promise<BinaryImage[] | string> {
  const member = await readRetainedMember(roots, record, logicalPath, SYMBOL_SUMMARY_MAX_BYTES, {
    sha256,
  });
  if ("unavailable" in member) return member.unavailable;
  if (member.sha256 !== sha256) return `${logicalPath} no longer has the inventoried content`;
  const reader = readerFor(member.bytes);
  if (!reader) return `${logicalPath} is not a format the readers parse`;
  try {
    return reader.read(member.bytes, logicalPath.split("/").pop() ?? logicalPath);
  } catch (error) {
    return `${logicalPath} could not be parsed: ${
      error instanceof Error ? error.message : String(error)
    }`;
  }
}

/** Reads one member of a retained side back for a procedure summary: names and sizes. */
export async function procedureList(
  roots: readonly RootDirectory[],
  record: EvidenceRecord,
  logicalPath: string,
  sha256: string,
): Promise<Array<{ name: string; size: number }> | string> {
  const images = await procedureImages(roots, record, logicalPath, sha256);
  if (typeof images === "string") return images;
  return images.flatMap((image) =>
    image.functions.map((f) => ({
      name: images.length > 1 ? `${image.document}:${f.name}` : f.name,
      size: Number(f.size),
    }))
  );
}

/**
 * Reads the occurrence a retained inventory lists back into memory, for
 * opening as a binary target: nothing is extracted to disk. The bytes must
 * still hash to the occurrence's artifact id.
 */
export async function readOccurrence(
  context: AppsContext,
  occurrenceId: string,
  options: { signal?: AbortSignal; onProgress?: (bytes: number, entries: number) => unknown },
): Promise<{ file: TargetFile; origin: TargetOrigin }> {
  if (!OCCURRENCE_ID_PATTERN.test(occurrenceId)) {
    throw new ToolFailure(
      "invalid_request",
      `${
        JSON.stringify(occurrenceId.slice(0, 80))
      } is not an occurrence id (occ_ and 64 hex digits).`,
      { action: "Pass an occurrence_id from an inventory_artifact page." },
    );
  }
  let found:
    | { record: EvidenceRecord; occurrence: InventoryPage["occurrences"]["items"][number] }
    | null = null;
  for (const record of validInventoryRecords(context.ledger)) {
    const page = record.normalized_result as InventoryPage;
    const occurrence = page.occurrences.items.find((o) => o.occurrence_id === occurrenceId);
    if (occurrence) {
      found = { record, occurrence };
      break;
    }
  }
  if (!found) {
    throw new ToolFailure(
      "invalid_request",
      `Occurrence ${occurrenceId} is not listed by any inventory page retained in this session.`,
      {
        action:
          "Call inventory_artifact (following occurrence next_offset) and pass an occurrence_id it lists.",
      },
    );
  }
  const { record, occurrence } = found;
  const path = occurrence.logical_path;
  if (occurrence.entry_kind !== "file") {
    const link = occurrence.link_target;
    throw new ToolFailure(
      "invalid_request",
      `${path} is a ${occurrence.entry_kind}${
        link ? ` to ${JSON.stringify(link)}` : ""
      }, not a file; only file occurrences open as binary targets.`,
      { action: "Open the occurrence of the file itself." },
    );
  }
  if (occurrence.encrypted) {
    throw new ToolFailure("invalid_request", `${path} is encrypted and cannot be read.`);
  }
  if (occurrence.artifact_id === null || occurrence.hash_status !== "verified") {
    throw new ToolFailure(
      "invalid_request",
      `${path} was not hashed by the inventory (hash status ${occurrence.hash_status}), so the bytes read back could not be verified.`,
      {
        action:
          "Inventory again with a larger max_entry_bytes (or max_total_bytes) so that the member is hashed.",
      },
    );
  }
  const member = await readRetainedMember(
    context.services.roots,
    record,
    path,
    MAX_TARGET_BYTES,
    { ...options, sha256: occurrence.sha256 ?? undefined },
  );
  if ("unavailable" in member) {
    throw new ToolFailure(
      member.changed ? "artifact_integrity_mismatch" : "target_unavailable",
      `Cannot read ${path}: ${member.unavailable}.`,
      { action: "Open the artifact again and inventory it, then open the occurrence." },
    );
  }
  if (artifactId(member.sha256) !== occurrence.artifact_id) {
    throw new ToolFailure(
      "artifact_integrity_mismatch",
      `${path} read back with SHA-256 ${member.sha256}, not the content the inventory recorded (${occurrence.artifact_id}): the artifact changed since it was inventoried.`,
      { action: "Open the artifact again and inventory it, then open the occurrence." },
    );
  }
  const subject = record.subject as BinarySubject;
  const location = `${subject.local_path}!/${path}`;
  return {
    file: {
      requestedPath: location,
      realPath: location,
      bytes: member.bytes,
      sha256: member.sha256,
    },
    origin: {
      kind: "occurrence",
      artifactPath: subject.local_path,
      artifactSha256: subject.digest.sha256,
      occurrenceId,
      logicalPath: path,
      inventoryEvidenceId: record.evidence_id,
    },
  };
}

/**
 * Retained records are frozen, so each is validated once: completion and
 * comparison ask again on every call.
 */
const validatedPages = new WeakMap<object, boolean>();

/** Whether a value is a valid inventory page (validated once per frozen record). */
export function isInventoryPage(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  let valid = validatedPages.get(value);
  if (valid === undefined) {
    valid = inventoryPageSchema.safeParse(value).success;
    if (Object.isFrozen(value)) validatedPages.set(value, valid);
  }
  return valid;
}

/** A dossier as analyze_function records it (the fields comparisons read). */
export function isDossier(value: unknown): boolean {
  if (!value || typeof value !== "object") return false;
  const dossier = value as Record<string, unknown>;
  return typeof dossier.procedure === "object" && dossier.procedure !== null &&
    typeof dossier.fingerprint === "object" && dossier.fingerprint !== null;
}

/** A scan error as a tool failure naming the target. */
function scanFailure(error: unknown, target: ArtifactTarget): unknown {
  if (error instanceof IntegrityFailure) {
    const c = error.contradiction;
    return new ToolFailure(
      "artifact_integrity_mismatch",
      c.check === "root-digest"
        ? `${target.requestedPath} changed since it was opened (sha256 ${c.observed}, opened as ${c.declared}).`
        : `${c.logical_path} in ${target.name} failed its ${c.check} check: ${c.observed}.`,
      {
        action: c.check === "root-digest"
          ? "Open the artifact again to inventory its current content."
          : "Pass integrity_policy: record-and-continue with integrity_continue_approved: true to inventory it anyway, with the failure recorded.",
        details: { contradiction: c },
      },
    );
  }
  if (error instanceof DOMException && error.name === "AbortError") {
    return new ToolFailure("cancelled", "The inventory was cancelled.", { retryable: true });
  }
  if (
    error instanceof Deno.errors.PermissionDenied ||
    (error instanceof Error && error.name === "NotCapable")
  ) {
    return new ToolFailure(
      "permission_required",
      `Cannot read ${target.requestedPath}: ${(error as Error).message}`,
    );
  }
  return error;
}
