/**
 * REA's analysis snapshots, in Casefile's terms: `close_binary` with
 * `snapshot_path` saves the session's Evidence and unknown revisions as an
 * Evidence bundle v2 file before closing, and `open_binary` with
 * `snapshot_path` restores such a file into the session after opening.
 *
 * @module
 */

import { dirname } from "node:path";
import { canonicalJson, type JsonValue, sha256Hex } from "../../core/canonical_json.ts";
import { ToolFailure } from "../../core/errors.ts";
import { computeEvidenceId, type EvidenceRecord } from "../../core/evidence.ts";
import { flagFor, isGranted } from "../../core/permissions.ts";
import { buildBundle, type EvidenceBundle } from "../evidence_bundle/bundle.ts";
import type { AppsContext } from "./apps_context.ts";
import { translated } from "./unknown_support.ts";

/** Largest snapshot file read back. */
export const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;

/** What a saved snapshot holds. */
export interface SavedSnapshot {
  path: string;
  bundle_digest: string;
  bytes: number;
  records: number;
  unknowns: number;
}

/** What a restored snapshot added. */
export interface RestoredSnapshot {
  path: string;
  bundle_digest: string;
  records: number;
  new_records: number;
  unknown_revisions: number;
}

function checkPathShape(path: string): void {
  if (!path.startsWith("/") || path.includes("\0") || path.split("/").includes("..")) {
    throw new ToolFailure(
      "invalid_request",
      "snapshot_path must be an absolute path without .. or NUL.",
    );
  }
}

/**
 * Writes the session's Evidence bundle to `path` (atomically: a temporary
 * file in the same directory, then a rename). Refused without the
 * operator's file-write policy and Deno's write grant, and when the file
 * exists unless `overwrite`; nothing is written then.
 */
export async function saveAnalysisSnapshot(
  context: AppsContext,
  path: string,
  overwrite: boolean,
): Promise<SavedSnapshot> {
  checkPathShape(path);
  const { policy } = context.services;
  if (!policy.allowFileWrites || policy.readOnly) {
    throw new ToolFailure(
      "permission_required",
      "Saving a snapshot writes a file, and the operator policy does not allow file writes.",
      {
        action:
          "Call close_binary without snapshot_path, or ask the operator to restart the server with --allow-file-writes.",
        restartRequired: true,
      },
    );
  }
  // The tool declares no effect (closing writes nothing): the write is its own effect request, so
  // a policy that denies file writes (strict, read_only, a deny_capabilities rule) refuses it too.
  const refusal = context.services.gate.check({
    kind: "effect",
    name: "close_binary snapshot",
    principal: context.services.principal,
    effects: { writesFilesystem: true },
    subject: path,
  });
  if (refusal) throw refusal;
  if (!isGranted("write", path)) {
    throw new ToolFailure("permission_required", `Deno has not granted writing to ${path}.`, {
      action: `Restart the server with ${flagFor("write", dirname(path))}.`,
      restartRequired: true,
    });
  }
  const bundle = buildBundle(
    context.ledger.list(),
    context.unknowns.revisions() as unknown as JsonValue[],
  );
  const text = canonicalJson(bundle as unknown as JsonValue);
  const bytes = new TextEncoder().encode(text);
  if (!overwrite) {
    const exists = await Deno.lstat(path).then(() => true, () => false);
    if (exists) {
      throw new ToolFailure("invalid_request", `${path} exists and overwrite is false.`, {
        action: "Pass overwrite: true to replace it, or another snapshot_path.",
      });
    }
  }
  const temporary = `${path}.casefile-${crypto.randomUUID()}`;
  try {
    await Deno.writeFile(temporary, bytes, { createNew: true, mode: 0o600 });
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw new ToolFailure(
      "invalid_request",
      `Cannot write the snapshot to ${path}: ${(error as Error).message}`,
    );
  }
  return {
    path,
    bundle_digest: sha256Hex(text),
    bytes: bytes.length,
    records: bundle.records.length,
    unknowns: bundle.unknowns.length,
  };
}

/** Reads and checks a snapshot file under an allowed root; every record's id must match its content. */
export async function readAnalysisSnapshot(
  context: AppsContext,
  path: string,
): Promise<{ path: string; digest: string; bundle: EvidenceBundle }> {
  checkPathShape(path);
  const fenced = await context.services.fence.check(path, {
    expected: "Pass the absolute path of a snapshot close_binary saved, under an allowed root.",
  });
  const info = await Deno.stat(fenced.realPath);
  if (info.size > MAX_SNAPSHOT_BYTES) {
    throw new ToolFailure(
      "invalid_request",
      `${path} is ${info.size} bytes; a snapshot is at most ${MAX_SNAPSHOT_BYTES}.`,
    );
  }
  const text = await Deno.readTextFile(fenced.realPath);
  let bundle: EvidenceBundle;
  try {
    bundle = JSON.parse(text) as EvidenceBundle;
  } catch {
    throw new ToolFailure("invalid_request", `${path} is not JSON, so not a snapshot.`);
  }
  if (
    bundle === null || typeof bundle !== "object" || bundle.bundle_version !== 2 ||
    !Array.isArray(bundle.records) || !Array.isArray(bundle.unknowns)
  ) {
    throw new ToolFailure(
      "invalid_request",
      `${path} is not an Evidence bundle v2 (the snapshot close_binary saves).`,
    );
  }
  for (const record of bundle.records as EvidenceRecord[]) {
    const { evidence_id, ...body } = record;
    if (computeEvidenceId(body) !== evidence_id) {
      throw new ToolFailure(
        "evidence_integrity_mismatch",
        `Snapshot record ${String(evidence_id).slice(0, 80)} does not match its content.`,
      );
    }
  }
  return { path, digest: sha256Hex(text), bundle };
}

/** Adds a checked snapshot's records and unknown revisions to the session. */
export async function restoreAnalysisSnapshot(
  context: AppsContext,
  snapshot: { path: string; digest: string; bundle: EvidenceBundle },
): Promise<RestoredSnapshot> {
  let added = 0;
  for (const record of snapshot.bundle.records) {
    if ((await context.ledger.record(record)).status === "added") added++;
  }
  const imported = await translated(() =>
    Promise.resolve(context.unknowns.importRevisions(snapshot.bundle.unknowns))
  );
  return {
    path: snapshot.path,
    bundle_digest: snapshot.digest,
    records: snapshot.bundle.records.length,
    new_records: added,
    unknown_revisions: imported.added.length,
  };
}
