/**
 * MCP tools of shipped-artifact work: inventories, comparison, approved
 * extraction, Evidence bundles and reconstruction verification, with the
 * manifest and occurrence completion families and their resources.
 *
 * @module
 */

import type { BinarySubject } from "./evidence.ts";
import { z } from "zod";
import type { ToolDefinition, ToolOutcome } from "../core/catalog.ts";
import type { EvidenceLedger, EvidenceRecord } from "../core/evidence.ts";
import { EVIDENCE_ID_PATTERN } from "../core/evidence.ts";
import { ToolFailure } from "../core/errors.ts";
import { flagFor, isGranted } from "../core/permissions.ts";
import type { JsonValue } from "../core/canonical_json.ts";
import type {
  CompletionFamily,
  ResourceTemplateDefinition,
  RootDirectory,
} from "../core/workbench.ts";
import {
  compareInventories,
  compareProcedures,
  MergeError,
  mergePages,
  type SymbolSummary,
} from "./artifacts/compare.ts";
import { ExtractionError, extractMembers, selectForExtraction } from "./artifacts/extract.ts";
import { artifactId, MANIFEST_ID_PATTERN, OCCURRENCE_ID_PATTERN } from "./artifacts/ids.ts";
import {
  type ArtifactSnapshot,
  DEFAULT_LIMITS,
  type InventoryPage,
  inventoryPageSchema,
  LIMIT_BOUNDS,
  pageOfItems,
  type TraversalLimits,
} from "./artifacts/model.ts";
import {
  type CapturedMember,
  IntegrityFailure,
  readMember,
  scanArtifact,
  type ScanRoot,
} from "./artifacts/scan.ts";
import { type ArtifactTarget, limitsKey } from "./artifacts/target.ts";
import { buildBundle } from "./evidence_bundle/bundle.ts";
import { BundleStore, bundleUri } from "./evidence_bundle/store.ts";
import { sectionOf, sectionsOf } from "./evidence_bundle/sections.ts";
import { readerFor } from "./formats/readers.ts";
import { MAX_TARGET_BYTES, type TargetFile } from "./paths.ts";
import { isWithin } from "../core/roots.ts";
import type { TargetOrigin } from "./session/target.ts";
import { specificationSchema } from "./reconstruction/specification.ts";
import {
  type UnknownHeadView,
  VerificationIntegrityError,
  verifySpecification,
} from "./reconstruction/verify.ts";
import {
  COMPARE_ARTIFACTS,
  EXTRACT_ARTIFACT,
  INVENTORY_ARTIFACT,
  RELEASE_EVIDENCE_BUNDLE,
  SNAPSHOT_EVIDENCE_BUNDLE,
  VERIFY_RECONSTRUCTION,
} from "./tool_names.ts";

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
const VERIFIER_PROVIDER = {
  id: "rea-reconstruction-verifier",
  name: "Casefile reconstruction verifier",
  version: "1",
};

/** Most snapshots kept per artifact target (one per distinct set of limits). */
const SNAPSHOTS_PER_TARGET = 4;
/** Most changed binaries given a procedure-level summary per comparison page. */
const SYMBOL_SUMMARIES_PER_PAGE = 20;
/** Largest binary read back for a procedure-level summary. */
const SYMBOL_SUMMARY_MAX_BYTES = 512 * 1024 * 1024;

/** What the artifact tools need from the workbench. */
export interface ArtifactToolDeps {
  ledger: EvidenceLedger;
  roots: readonly RootDirectory[];
  /** The active artifact target, or a clear error when the target is a binary or nothing is open. */
  requireArtifact(operation: string): ArtifactTarget;
  /** Unknown revisions (all) and heads, from the registry, when there is one. */
  unknowns(): { revisions: JsonValue[]; heads: UnknownHeadView[] };
  /** Full Process Capture v4 validation. */
  isValidCapture(result: unknown): boolean;
  /** Re-derives a process comparison's overall status. */
  deriveBehavioralStatus(result: unknown): string | null;
}

/** Tools, families and resources of artifact work. */
export interface ArtifactTools {
  tools: ToolDefinition[];
  families: Record<string, CompletionFamily>;
  resourceTemplates: ResourceTemplateDefinition[];
  bundles: BundleStore;
  /** Reads a retained occurrence back into memory, verified, for opening as a binary target. */
  readOccurrence(
    occurrenceId: string,
    options: { signal?: AbortSignal; onProgress?: (bytes: number, entries: number) => unknown },
  ): Promise<{ file: TargetFile; origin: TargetOrigin }>;
}

const limitFields = {
  max_entries: z.number().int().min(1).max(LIMIT_BOUNDS.max_entries).default(
    DEFAULT_LIMITS.max_entries,
  )
    .describe(`Most entries (occurrences) to walk, 1–${LIMIT_BOUNDS.max_entries}.`),
  max_total_bytes: z.number().int().min(1).max(LIMIT_BOUNDS.max_total_bytes).default(
    DEFAULT_LIMITS.max_total_bytes,
  )
    .describe("Most bytes to read in total, decompressed bytes included."),
  max_entry_bytes: z.number().int().min(1).max(LIMIT_BOUNDS.max_entry_bytes).default(
    DEFAULT_LIMITS.max_entry_bytes,
  )
    .describe(
      "Largest single member to hash or decompress; larger ones are listed but not hashed.",
    ),
  max_compression_ratio: z.number().int().min(1).max(LIMIT_BOUNDS.max_compression_ratio)
    .default(DEFAULT_LIMITS.max_compression_ratio).describe(
      "Largest decompressed/compressed ratio before a stream counts as a bomb and stops.",
    ),
  max_depth: z.number().int().min(0).max(LIMIT_BOUNDS.max_depth).default(DEFAULT_LIMITS.max_depth)
    .describe(
      "Deepest archive nesting to descend into (0: do not open archives).",
    ),
  max_path_bytes: z.number().int().min(1).max(LIMIT_BOUNDS.max_path_bytes).default(
    DEFAULT_LIMITS.max_path_bytes,
  )
    .describe("Longest logical path, in UTF-8 bytes."),
};

const pageField = (what: string) => ({
  offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).describe(
    `Index of the first ${what}.`,
  ),
  limit: z.number().int().min(1).max(500).default(100).describe(`${what}s per page (1–500).`),
});

function limitsOf(args: Record<string, unknown>): TraversalLimits {
  return {
    max_entries: args.max_entries as number,
    max_total_bytes: args.max_total_bytes as number,
    max_entry_bytes: args.max_entry_bytes as number,
    max_compression_ratio: args.max_compression_ratio as number,
    max_depth: args.max_depth as number,
    max_path_bytes: args.max_path_bytes as number,
  };
}

const anyResult = z.record(z.string(), z.unknown());

/** Builds the artifact tools. */
export function artifactTools(deps: ArtifactToolDeps): ArtifactTools {
  const { ledger } = deps;
  const bundles = new BundleStore();

  const rootOf = (target: ArtifactTarget): ScanRoot => ({
    kind: target.kind,
    realPath: target.realPath,
    name: target.name,
  });

  /** The snapshot of the target under these limits: scanned once, then every page projects it. */
  const snapshotFor = async (
    target: ArtifactTarget,
    limits: TraversalLimits,
    integrity: { continueApproved: boolean; maxMismatches: number },
    context: {
      signal: AbortSignal;
      progress: (p: number, t?: number, m?: string) => Promise<void>;
    },
  ): Promise<ArtifactSnapshot> => {
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
  };

  /** Retained inventory pages, validated; throws a clear error for anything else. */
  const inventoryRecord = (
    id: string,
  ): { evidenceId: string; page: InventoryPage; record: EvidenceRecord } => {
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
  };

  const validInventoryRecords = (): EvidenceRecord[] =>
    ledger.list().filter((r) =>
      r.operation === INVENTORY_ARTIFACT && isInventoryPage(r.normalized_result)
    );

  /**
   * Reads one member of a retained inventory back from its root, which must
   * still be under a root and unchanged; a string says why it could not be.
   */
  const readRetainedMember = async (
    record: EvidenceRecord,
    logicalPath: string,
    maxBytes: number,
    options: { signal?: AbortSignal; onProgress?: (bytes: number, entries: number) => unknown } =
      {},
  ): Promise<CapturedMember | { unavailable: string; changed: boolean }> => {
    const unavailable = (reason: string, changed = false) => ({ unavailable: reason, changed });
    const subject = record.subject as BinarySubject | null;
    if (!subject) return unavailable("the inventory has no subject to read the member from");
    const inRoots = deps.roots.some((root) =>
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
        `${logicalPath} could not be read: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
  };

  /** Reads one member of a retained side back for a procedure summary. */
  const procedureList = async (
    record: EvidenceRecord,
    logicalPath: string,
    sha256: string,
  ): Promise<Array<{ name: string; size: number }> | string> => {
    const member = await readRetainedMember(record, logicalPath, SYMBOL_SUMMARY_MAX_BYTES);
    if ("unavailable" in member) return member.unavailable;
    if (member.sha256 !== sha256) return `${logicalPath} no longer has the inventoried content`;
    const reader = readerFor(member.bytes);
    if (!reader) return `${logicalPath} is not a format the readers parse`;
    try {
      const images = reader.read(member.bytes, logicalPath.split("/").pop() ?? logicalPath);
      return images.flatMap((image) =>
        image.functions.map((f) => ({
          name: images.length > 1 ? `${image.document}:${f.name}` : f.name,
          size: Number(f.size),
        }))
      );
    } catch (error) {
      return `${logicalPath} could not be parsed: ${
        error instanceof Error ? error.message : String(error)
      }`;
    }
  };

  /**
   * Reads the occurrence a retained inventory lists back into memory, for
   * opening as a binary target: nothing is extracted to disk. The bytes must
   * still hash to the occurrence's artifact id.
   */
  const readOccurrence = async (
    occurrenceId: string,
    options: { signal?: AbortSignal; onProgress?: (bytes: number, entries: number) => unknown },
  ): Promise<{ file: TargetFile; origin: TargetOrigin }> => {
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
    for (const record of validInventoryRecords()) {
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
    const member = await readRetainedMember(record, path, MAX_TARGET_BYTES, options);
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
      file: { requestedPath: location, realPath: location, bytes: member.bytes },
      origin: {
        kind: "occurrence",
        artifactPath: subject.local_path,
        artifactSha256: subject.digest.sha256,
        occurrenceId,
        logicalPath: path,
        inventoryEvidenceId: record.evidence_id,
      },
    };
  };

  const tools: ToolDefinition[] = [
    {
      name: INVENTORY_ARTIFACT,
      description:
        "Inventory the active artifact target (a directory, tar, ar/.deb, zip family (jar, apk, whl, ipa, nupkg), or a gzip/xz/zstd stream), descending into nested archives to max_depth. Every member gets a path, size, mode, link target, SHA-256 and kind (ELF, PE, Mach-O, WebAssembly, script, text, data). One scan under the given limits is an immutable snapshot; each call returns one page of nodes, occurrences and edges (100 by default, at most 500 each) and records that page as Evidence. Fetch every page (follow each next_offset) before comparing. Hostile member names are escaped and flagged; limits and damaged members mark the manifest incomplete.",
      input: z.strictObject({
        node_offset: pageField("node").offset,
        node_limit: pageField("node").limit,
        occurrence_offset: pageField("occurrence").offset,
        occurrence_limit: pageField("occurrence").limit,
        edge_offset: pageField("edge").offset,
        edge_limit: pageField("edge").limit,
        ...limitFields,
        integrity_policy: z.enum(["fail", "record-and-continue"]).default("fail").describe(
          "fail (default): a checksum failure fails the call. record-and-continue: record up to max_integrity_mismatches and go on; needs integrity_continue_approved: true.",
        ),
        integrity_continue_approved: z.boolean().default(false).describe(
          "Must be true with record-and-continue: you accept an inventory that lists members whose checksums failed.",
        ),
        max_integrity_mismatches: z.number().int().min(1).max(100).default(10).describe(
          "With record-and-continue: most checksum failures recorded before the call fails.",
        ),
      }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: async (args, context) => {
        const target = deps.requireArtifact(INVENTORY_ARTIFACT);
        const continueApproved = args.integrity_policy === "record-and-continue";
        if (continueApproved && args.integrity_continue_approved !== true) {
          throw new ToolFailure(
            "invalid_request",
            "integrity_policy record-and-continue needs integrity_continue_approved: true.",
            { action: "Pass integrity_continue_approved: true, or keep the default fail policy." },
          );
        }
        const limits = limitsOf(args);
        const snapshot = await snapshotFor(target, limits, {
          continueApproved,
          maxMismatches: args.max_integrity_mismatches as number,
        }, context);
        const page: InventoryPage = {
          manifest: snapshot.manifest,
          nodes: pageOfItems(snapshot.nodes, args.node_offset as number, args.node_limit as number),
          occurrences: pageOfItems(
            snapshot.occurrences,
            args.occurrence_offset as number,
            args.occurrence_limit as number,
          ),
          edges: pageOfItems(snapshot.edges, args.edge_offset as number, args.edge_limit as number),
          limits: snapshot.limits,
          integrity_contradictions: snapshot.integrity_contradictions,
          limitations: snapshot.limitations,
        };
        const checked = inventoryPageSchema.safeParse(page);
        if (!checked.success) {
          throw new ToolFailure(
            "execution_failure",
            `The inventory page failed its own schema: ${
              z.prettifyError(checked.error).slice(0, 500)
            }`,
          );
        }
        return {
          kind: "evidence",
          draft: {
            subject: target.subject,
            provider: ARTIFACT_GRAPH_PROVIDER,
            operation: INVENTORY_ARTIFACT,
            parameters: context.parameters,
            normalized_result: page,
            limitations: [
              ...(snapshot.manifest.complete ? [] : [
                "The inventory does not cover the whole artifact; see the manifest's complete flag and these limitations.",
              ]),
              ...snapshot.limitations.slice(0, 100),
            ],
            locations: [{ kind: "artifact-path", path: target.realPath }],
            transferred: true,
          },
        };
      },
    },
    {
      name: COMPARE_ARTIFACTS,
      description:
        "Compare two retained inventories (every page of each, by evidence_id) path by path: added, removed, changed, moved (same content at a new path), unchanged, and unknown (unreadable or unhashed members). For changed ELF, PE, Mach-O and WebAssembly members on the returned page, the binaries are read back from their artifacts (which must be unchanged) and compared procedure by procedure: added, removed, resized. Missing pages make the status truncated; integrity failures, contradiction; incomplete inventories or unknown members, unknown. Recorded as Evidence.",
      input: z.strictObject({
        left_evidence_ids: z.array(z.string().regex(EVIDENCE_ID_PATTERN)).min(1).max(100).describe(
          "Every inventory_artifact page of the left (older) version.",
        ),
        right_evidence_ids: z.array(z.string().regex(EVIDENCE_ID_PATTERN)).min(1).max(100).describe(
          "Every inventory_artifact page of the right (newer) version.",
        ),
        ...pageField("change"),
        include_unchanged: z.boolean().default(false).describe(
          "List unchanged paths too (they always count in the summary).",
        ),
      }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: async (args, context) => {
        const leftIds = [...new Set(args.left_evidence_ids as string[])];
        const rightIds = [...new Set(args.right_evidence_ids as string[])];
        const overlap = leftIds.filter((id) => rightIds.includes(id));
        if (overlap.length > 0) {
          throw new ToolFailure("invalid_request", `Evidence ${overlap[0]} is on both sides.`);
        }
        const leftPages = leftIds.map(inventoryRecord);
        const rightPages = rightIds.map(inventoryRecord);
        let left, right;
        try {
          left = mergePages(leftPages);
          right = mergePages(rightPages);
        } catch (error) {
          if (error instanceof MergeError) {
            throw new ToolFailure("invalid_request", error.message, {
              action: "Pass the pages of exactly one inventory per side.",
            });
          }
          throw error;
        }
        const comparison = compareInventories(left, right);
        const listed = args.include_unchanged
          ? comparison.changes
          : comparison.changes.filter((c) => c.status !== "unchanged");
        const page = pageOfItems(listed, args.offset as number, args.limit as number);
        const binaryKinds = new Set(["elf", "pe", "mach-o", "mach-o-universal", "wasm"]);
        const limitations = [...comparison.limitations];
        let summarised = 0;
        const items = [];
        for (const change of page.items) {
          let procedures: SymbolSummary | { unavailable: string } | null = null;
          if (
            change.status === "changed" && change.dimensions.includes("content") &&
            change.left?.sha256 &&
            change.right?.sha256 && binaryKinds.has(change.left.content_kind ?? "") &&
            binaryKinds.has(change.right.content_kind ?? "")
          ) {
            if (summarised >= SYMBOL_SUMMARIES_PER_PAGE) {
              procedures = {
                unavailable:
                  `Only ${SYMBOL_SUMMARIES_PER_PAGE} binaries per page get a procedure summary; page with a smaller limit.`,
              };
            } else {
              summarised++;
              context.signal.throwIfAborted();
              await context.progress(
                summarised,
                SYMBOL_SUMMARIES_PER_PAGE,
                `reading ${change.logical_path}`,
              );
              const a = await procedureList(
                leftPages[0]!.record,
                change.logical_path,
                change.left.sha256,
              );
              const b = await procedureList(
                rightPages[0]!.record,
                change.logical_path,
                change.right.sha256,
              );
              procedures = typeof a === "string" || typeof b === "string"
                ? {
                  unavailable: `Procedure summary unavailable: ${
                    typeof a === "string" ? `left: ${a}` : `right: ${b}`
                  }.`,
                }
                : compareProcedures(a, b);
            }
          }
          items.push({ ...change, procedures });
        }
        if (summarised > 0) {
          limitations.push(
            "Procedure summaries compare procedure names and sizes as the native readers list them (symbols, exports, unwind tables); a procedure whose name is unchanged but whose code changed with equal size shows as unchanged here — use analyze_function and compare_functions for code.",
          );
        }
        const result = {
          status: comparison.status,
          left: {
            manifest_id: left.manifest.manifest_id,
            complete: left.complete,
            root_sha256: left.manifest.root_sha256,
          },
          right: {
            manifest_id: right.manifest.manifest_id,
            complete: right.complete,
            root_sha256: right.manifest.root_sha256,
          },
          summary: comparison.counts,
          changes: { ...page, items },
          limitations,
        };
        return {
          kind: "evidence",
          draft: {
            subject: null,
            provider: ARTIFACT_COMPARISON_PROVIDER,
            operation: COMPARE_ARTIFACTS,
            predicate_type: "rea.artifact-comparison/v1",
            confidence: "derived",
            authority: "analyst-inference",
            parameters: {
              ...context.parameters,
              left_evidence_ids: leftIds,
              right_evidence_ids: rightIds,
            },
            normalized_result: result,
            evidence_links: [...leftIds, ...rightIds],
            limitations,
            transferred: true,
          },
        } as ToolOutcome;
      },
    },
    {
      name: EXTRACT_ARTIFACT,
      description:
        "Extract chosen file members of the active artifact target into a new directory. Refused unless the operator allows file writes (--allow-file-writes plus a Deno --allow-write grant covering the output root) and the call says approved: true. The output root must not exist (its parent must); nothing is overwritten; links, hostile names (.., absolute, NUL), encrypted and unverified members are refused; limits stop archive bombs; a failed extraction removes its output. The members are found in a fresh scan and their content must match it.",
      input: z.strictObject({
        approved: z.literal(true).describe(
          "Must be true: you approve writing these files to the host.",
        ),
        output_root: z.string().min(1).max(4096).describe(
          "Absolute path of a directory that does not exist yet.",
        ),
        occurrence_ids: z.array(z.string().regex(OCCURRENCE_ID_PATTERN)).min(1).max(500).describe(
          "Occurrence ids (from inventory_artifact) of the file members to write.",
        ),
        ...pageField("extracted file"),
        ...limitFields,
      }),
      result: anyResult,
      effects: { writesFilesystem: true, mutatesSession: true, idempotent: false },
      producesEvidence: true,
      run: async (args, context) => {
        const target = deps.requireArtifact(EXTRACT_ARTIFACT);
        const outputRoot = args.output_root as string;
        if (
          !outputRoot.startsWith("/") || outputRoot.includes("\0") ||
          outputRoot.split("/").includes("..")
        ) {
          throw new ToolFailure(
            "invalid_request",
            "output_root must be an absolute path without .. or NUL.",
          );
        }
        if (!isGranted("write", outputRoot)) {
          throw new ToolFailure(
            "permission_required",
            `Deno has not granted writing to ${outputRoot}.`,
            {
              action: `Restart the server with ${
                flagFor("write", outputRoot.replace(/\/[^/]*\/?$/, "") || "/")
              } (covering the output root).`,
              restartRequired: true,
            },
          );
        }
        const limits = limitsOf(args);
        const snapshot = await snapshotFor(target, limits, {
          continueApproved: false,
          maxMismatches: 1,
        }, context);
        let result;
        try {
          const chosen = selectForExtraction(snapshot, args.occurrence_ids as string[]);
          result = await extractMembers(rootOf(target), snapshot, chosen, outputRoot, {
            limits,
            expectedRootSha256: target.sha256,
            signal: context.signal,
            onProgress: (bytes) => context.progress(bytes, undefined, `read ${bytes} bytes`),
          });
        } catch (error) {
          if (error instanceof ExtractionError) {
            throw new ToolFailure(
              error.kind === "limit"
                ? "limit_exceeded"
                : error.kind === "refused"
                ? "invalid_request"
                : "artifact_operation_failed",
              error.message,
              { details: error.cleanup ? { cleanup: error.cleanup } : undefined },
            );
          }
          if (
            error instanceof Deno.errors.PermissionDenied ||
            (error instanceof Error && error.name === "NotCapable")
          ) {
            throw new ToolFailure(
              "permission_required",
              `Cannot write under ${outputRoot}: ${error.message}`,
              {
                action: `Restart the server with --allow-write covering ${outputRoot}.`,
                restartRequired: true,
              },
            );
          }
          throw error;
        }
        const files = pageOfItems(result.files, args.offset as number, args.limit as number);
        return {
          kind: "evidence",
          draft: {
            subject: target.subject,
            provider: ARTIFACT_GRAPH_PROVIDER,
            operation: EXTRACT_ARTIFACT,
            parameters: context.parameters,
            normalized_result: { ...result, files },
            limitations: [
              "Paths are relative to the output root, named $OUTPUT_ROOT in the manifest.",
            ],
          },
        };
      },
    },
    {
      name: SNAPSHOT_EVIDENCE_BUNDLE,
      description:
        "Snapshot every Evidence record and unknown revision of the session as an Evidence bundle v2 (canonical JSON with derived artifact, provider, environment, scenario and capture manifests). Returns its SHA-256 and the rea://evidence-bundle/<digest> URI to read it by; an unchanged snapshot returns the bundle already held. At most 16 bundles and 64 MiB are retained; they do not survive close_binary.",
      input: z.strictObject({}),
      result: z.object({
        bundle_digest: z.string(),
        bundle_version: z.literal(2),
        bytes: z.number().int(),
        records: z.number().int(),
        unknowns: z.number().int(),
        scope: z.literal("session"),
        survives_session: z.literal(false),
        bundle_uri: z.string(),
      }),
      effects: { mutatesSession: true },
      producesEvidence: false,
      run: () => {
        const { bundle } = bundles.snapshot(buildBundle(ledger.list(), deps.unknowns().revisions));
        const uri = bundleUri(bundle.digest);
        return Promise.resolve({
          kind: "result",
          result: {
            bundle_digest: bundle.digest,
            bundle_version: 2,
            bytes: bundle.bytes,
            records: bundle.records,
            unknowns: bundle.unknowns,
            scope: "session",
            survives_session: false,
            bundle_uri: uri,
          },
          links: [{
            uri,
            name: `evidence bundle ${bundle.digest.slice(0, 12)}`,
            mimeType: "application/json",
          }],
        });
      },
    },
    {
      name: RELEASE_EVIDENCE_BUNDLE,
      description:
        "Release a retained Evidence bundle by its digest; a digest not held is a no-op that says released: false.",
      input: z.strictObject({
        bundle_digest: z.string().regex(/^[0-9a-f]{64}$/).describe(
          "The bundle_digest snapshot_evidence_bundle returned.",
        ),
      }),
      result: z.object({ bundle_digest: z.string(), released: z.boolean() }),
      effects: { mutatesSession: true, mayDiscardData: true },
      producesEvidence: false,
      run: (args) => {
        const digest = args.bundle_digest as string;
        return Promise.resolve({
          kind: "result",
          result: { bundle_digest: digest, released: bundles.release(digest) },
        });
      },
    },
    {
      name: VERIFY_RECONSTRUCTION,
      description:
        "Check a finite reconstruction specification (1–100 typed claims) against the comparison Evidence retained in this session. Each claim names one comparison: behavioral (compare_process_captures; dimensions overall, terminal, interaction, exit, filesystem, protocol, process, shim), structural-function (compare_functions; overall, size, instruction_sequence, instruction_count, callees, referenced_strings, basic_blocks) or structural-artifact (compare_artifacts; overall). A claim passes only when its dimension is unchanged, its sources carry the needed authority and no open unknown touches them; a change fails it; anything incomplete is unknown. A comparison or source that is missing or of the wrong kind fails the whole call. Recorded as Evidence.",
      input: z.strictObject({
        specification: specificationSchema.describe(
          "{schema_version: 1, name, claims: [{claim_id, title, comparison_evidence_id, kind, dimension}]}",
        ),
        offset: z.number().int().min(0).max(99).default(0).describe(
          "Index of the first claim result.",
        ),
        limit: z.number().int().min(1).max(100).default(100).describe(
          "Claim results per page (1–100).",
        ),
      }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context) => {
        context.signal.throwIfAborted();
        const spec = args.specification as z.infer<typeof specificationSchema>;
        let verification;
        try {
          verification = verifySpecification(spec, {
            record: (id) => ledger.get(id),
            unknownHeads: () => deps.unknowns().heads,
            isValidCapture: deps.isValidCapture,
            isValidInventory: isInventoryPage,
            isValidDossier: isDossier,
            deriveBehavioralStatus: deps.deriveBehavioralStatus,
          });
        } catch (error) {
          if (error instanceof VerificationIntegrityError) {
            throw new ToolFailure("invalid_request", error.message, {
              action: "Name a retained comparison of the claim's kind, created in this session.",
            });
          }
          throw error;
        }
        context.signal.throwIfAborted();
        const claims = pageOfItems(
          verification.claims,
          args.offset as number,
          args.limit as number,
        );
        return Promise.resolve({
          kind: "evidence",
          draft: {
            subject: null,
            provider: VERIFIER_PROVIDER,
            operation: VERIFY_RECONSTRUCTION,
            predicate_type: "rea.reconstruction-verification/v1",
            confidence: "derived",
            authority: "analyst-inference",
            parameters: {
              specification_sha256: verification.specification_sha256,
              claim_ids: verification.claims.map((c) => c.claim_id),
              offset: args.offset,
              limit: args.limit,
            },
            normalized_result: { ...verification, claims },
            evidence_links: verification.evidence_links,
            limitations: verification.limitations,
          },
        } as ToolOutcome);
      },
    },
  ];

  const families: Record<string, CompletionFamily> = {
    manifest: {
      source: () => {
        const values: string[] = [];
        for (const record of validInventoryRecords()) {
          if (values.length >= 10_000) break;
          values.push((record.normalized_result as InventoryPage).manifest.manifest_id);
        }
        return values;
      },
    },
    occurrence: {
      source: () => {
        const values: string[] = [];
        for (const record of validInventoryRecords()) {
          for (const item of (record.normalized_result as InventoryPage).occurrences.items) {
            if (values.length >= 10_000) return values;
            values.push(item.occurrence_id);
          }
        }
        return values;
      },
    },
  };

  const bundleFamily: CompletionFamily = { source: () => bundles.list().map((b) => b.digest) };
  const evidenceFamily: CompletionFamily = {
    source: () => ledger.list().map((r) => r.evidence_id),
  };

  const resourceTemplates: ResourceTemplateDefinition[] = [
    {
      name: "evidence-bundle",
      title: "Evidence bundle",
      uriTemplate: "rea://evidence-bundle/{digest}",
      description:
        "A retained Evidence bundle v2, byte for byte as snapshot_evidence_bundle hashed it.",
      mimeType: "application/json",
      variables: { digest: bundleFamily },
      list: () =>
        bundles.list().map((b) => ({
          uri: bundleUri(b.digest),
          name: `evidence bundle ${b.digest.slice(0, 12)}`,
          description: `${b.records} records, ${b.unknowns} unknown revisions, ${b.bytes} bytes`,
          mimeType: "application/json",
        })),
      read: (variables, uri) => {
        const bundle = bundles.get(variables.digest ?? "");
        return Promise.resolve(
          bundle ? { uri, mimeType: "application/json", text: bundle.text } : null,
        );
      },
    },
    {
      name: "evidence-section",
      title: "Evidence record section",
      uriTemplate: "rea://evidence/{evidenceId}/section/{section}",
      description:
        "One section of a retained Evidence record's result: a top-level key, or for captures the groups terminal, filesystem, process and protocol.",
      mimeType: "application/json",
      variables: {
        evidenceId: evidenceFamily,
        section: {
          source: (context) => {
            const id = context.arguments.evidenceId;
            const record = typeof id === "string" && EVIDENCE_ID_PATTERN.test(id)
              ? ledger.get(id)
              : undefined;
            return record ? sectionsOf(record) : [];
          },
        },
      },
      read: (variables, uri) => {
        const id = variables.evidenceId ?? "";
        const record = EVIDENCE_ID_PATTERN.test(id) ? ledger.get(id) : undefined;
        const section = record ? sectionOf(record, variables.section ?? "") : undefined;
        return Promise.resolve(
          record && section !== undefined
            ? {
              uri,
              mimeType: "application/json",
              text: JSON.stringify({ evidence_id: id, section: variables.section, value: section }),
            }
            : null,
        );
      },
    },
    {
      name: "artifact-collection",
      title: "Inventory page",
      uriTemplate: "rea://artifact/{manifestId}/{collection}",
      description:
        "The nodes, occurrences or edges page of the first retained inventory record (in Evidence id order) with this manifest.",
      mimeType: "application/json",
      variables: {
        manifestId: families.manifest!,
        collection: { source: () => ["edges", "nodes", "occurrences"] },
      },
      read: (variables, uri) => {
        const collection = variables.collection ?? "";
        if (
          !MANIFEST_ID_PATTERN.test(variables.manifestId ?? "") ||
          !["nodes", "occurrences", "edges"].includes(collection)
        ) {
          return Promise.resolve(null);
        }
        const record = validInventoryRecords()
          .sort((a, b) => (a.evidence_id < b.evidence_id ? -1 : 1))
          .find((r) =>
            (r.normalized_result as InventoryPage).manifest.manifest_id === variables.manifestId
          );
        if (!record) return Promise.resolve(null);
        const page = record.normalized_result as InventoryPage;
        return Promise.resolve({
          uri,
          mimeType: "application/json",
          text: JSON.stringify({
            evidence_id: record.evidence_id,
            manifest_id: page.manifest.manifest_id,
            collection,
            page: page[collection as "nodes" | "occurrences" | "edges"],
            provider: record.provider,
            limitations: record.limitations,
          }),
        });
      },
    },
  ];

  return { tools, families, resourceTemplates, bundles, readOccurrence };
}

/**
 * Retained records are frozen, so each is validated once: completion and
 * comparison ask again on every call.
 */
const validatedPages = new WeakMap<object, boolean>();

function isInventoryPage(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  let valid = validatedPages.get(value);
  if (valid === undefined) {
    valid = inventoryPageSchema.safeParse(value).success;
    if (Object.isFrozen(value)) validatedPages.set(value, valid);
  }
  return valid;
}

/** A dossier as analyze_function records it (the fields comparisons read). */
function isDossier(value: unknown): boolean {
  if (!value || typeof value !== "object") return false;
  const dossier = value as Record<string, unknown>;
  return typeof dossier.procedure === "object" && dossier.procedure !== null &&
    typeof dossier.fingerprint === "object" && dossier.fingerprint !== null;
}

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
