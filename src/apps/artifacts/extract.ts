/**
 * Safe extraction of chosen artifact members into a new directory: the output
 * root must not exist, nothing is ever overwritten, only normalised paths of
 * regular members are written, every written file is re-checked to lie inside
 * the output root, and a failed extraction removes what it wrote.
 *
 * @module
 */

import { dirname, join, relative } from "node:path";
import { canonicalJson, sha256Hex } from "../../core/canonical_json.ts";
import { extractionId } from "./ids.ts";
import type { ArtifactOccurrence, ArtifactSnapshot, TraversalLimits } from "./model.ts";
import { compareCodePoints } from "../../core/completion.ts";
import { captureMembers, type ScanRoot } from "./scan.ts";

/** One written file. */
export interface ExtractedFile {
  occurrence_id: string;
  logical_path: string;
  sha256: string;
  size: number;
}

/** What an extraction did. */
export interface ExtractionResult {
  extraction_manifest: {
    schema_version: 1;
    extraction_id: string;
    source_manifest_id: string;
    selected_occurrence_ids: string[];
    files_sha256: string;
    output_root_alias: "$OUTPUT_ROOT";
  };
  files: ExtractedFile[];
  containment_verified: boolean;
  cleanup: { attempted: boolean; verified: boolean; residual_paths: string[] };
}

/** Why an extraction was refused or stopped; nothing stays written. */
export class ExtractionError extends Error {
  constructor(
    message: string,
    readonly kind: "refused" | "limit" | "failed",
    readonly cleanup: ExtractionResult["cleanup"] | null = null,
  ) {
    super(message);
    this.name = "ExtractionError";
  }
}

/** Checks the selection against a fresh scan; returns the occurrences to write. */
export function selectForExtraction(
  snapshot: ArtifactSnapshot,
  occurrenceIds: readonly string[],
): ArtifactOccurrence[] {
  const byId = new Map(snapshot.occurrences.map((o) => [o.occurrence_id, o]));
  const chosen: ArtifactOccurrence[] = [];
  for (const id of new Set(occurrenceIds)) {
    const occ = byId.get(id);
    if (!occ) {
      throw new ExtractionError(
        `Occurrence ${id} is not in a fresh scan of the target (it may belong to another target, or the limits hide it).`,
        "refused",
      );
    }
    if (occ.logical_path === ".") throw new ExtractionError(`${id} is the root itself.`, "refused");
    if (occ.entry_kind !== "file") {
      throw new ExtractionError(
        `${occ.logical_path} is a ${occ.entry_kind}; only regular file members are extracted (links are never written).`,
        "refused",
      );
    }
    if (occ.encrypted) throw new ExtractionError(`${occ.logical_path} is encrypted.`, "refused");
    if (occ.original_name_hex !== null) {
      throw new ExtractionError(
        `${occ.logical_path} has a hostile name in the archive (absolute, .., NUL or invalid UTF-8); it is never extracted.`,
        "refused",
      );
    }
    if (occ.artifact_id === null || occ.hash_status !== "verified") {
      throw new ExtractionError(
        `${occ.logical_path} has no verified content to extract.`,
        "refused",
      );
    }
    chosen.push(occ);
  }
  return chosen.sort((a, b) => compareCodePoints(a.logical_path, b.logical_path));
}

/** Options of {@linkcode extractMembers}. */
export interface ExtractOptions {
  limits: TraversalLimits;
  expectedRootSha256: string;
  signal?: AbortSignal;
  onProgress?: (bytesRead: number, entries: number) => void | Promise<void>;
}

/**
 * Writes the chosen members under `outputRoot`, which must not exist yet and
 * whose parent must exist. Requires `--allow-read` for the artifact and
 * `--allow-write` for the output root.
 */
export async function extractMembers(
  root: ScanRoot,
  snapshot: ArtifactSnapshot,
  chosen: readonly ArtifactOccurrence[],
  outputRoot: string,
  options: ExtractOptions,
): Promise<ExtractionResult> {
  const total = chosen.reduce((n, o) => n + (o.size ?? 0), 0);
  if (chosen.length > options.limits.max_entries) {
    throw new ExtractionError(
      `${chosen.length} members exceed max_entries (${options.limits.max_entries}).`,
      "limit",
    );
  }
  if (total > options.limits.max_total_bytes) {
    throw new ExtractionError(
      `The members hold ${total} bytes, more than max_total_bytes (${options.limits.max_total_bytes}).`,
      "limit",
    );
  }
  try {
    await Deno.lstat(outputRoot);
    throw new ExtractionError(
      `${outputRoot} already exists; extraction writes only into a new directory.`,
      "refused",
    );
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  // Not recursive: the parent must exist, and the new root is ours alone.
  await Deno.mkdir(outputRoot, { mode: 0o700 });
  const realRoot = await Deno.realPath(outputRoot);
  const wanted = new Map(chosen.map((o) => [o.logical_path, o]));
  const files: ExtractedFile[] = [];
  let written = 0;
  try {
    const missing = await captureMembers(root, {
      limits: options.limits,
      expectedRootSha256: options.expectedRootSha256,
      signal: options.signal,
      onProgress: options.onProgress,
      capture: {
        paths: new Set(wanted.keys()),
        maxBytes: options.limits.max_entry_bytes,
        onMember: async (logicalPath, member) => {
          const occ = wanted.get(logicalPath)!;
          if (member.sha256 !== occ.sha256) {
            throw new ExtractionError(
              `${logicalPath} changed since the scan (sha256 ${member.sha256}, expected ${occ.sha256}).`,
              "failed",
            );
          }
          written += member.bytes.length;
          if (written > options.limits.max_total_bytes) {
            throw new ExtractionError(
              `Extraction passed max_total_bytes (${options.limits.max_total_bytes}).`,
              "limit",
            );
          }
          await writeInside(
            realRoot,
            logicalPath,
            member.bytes,
            occ.mode === null ? null : parseInt(occ.mode, 8),
          );
          files.push({
            occurrence_id: occ.occurrence_id,
            logical_path: logicalPath,
            sha256: member.sha256,
            size: member.bytes.length,
          });
        },
      },
    });
    if (missing.length > 0) {
      throw new ExtractionError(
        `${missing.length} member(s) could not be read back: ${missing.slice(0, 5).join(", ")}.`,
        "failed",
      );
    }
    const containment = await verifyContainment(realRoot);
    if (!containment) {
      throw new ExtractionError("A written path resolved outside the output root.", "failed");
    }
    files.sort((a, b) => compareCodePoints(a.logical_path, b.logical_path));
    const selected = chosen.map((o) => o.occurrence_id).sort(compareCodePoints);
    const filesSha256 = sha256Hex(canonicalJson(files.map((f) => ({
      logical_path: f.logical_path,
      sha256: f.sha256,
      size: f.size,
    }))));
    return {
      extraction_manifest: {
        schema_version: 1,
        extraction_id: extractionId({
          source_manifest_id: snapshot.manifest.manifest_id,
          selected_occurrence_ids: selected,
          files_sha256: filesSha256,
        }),
        source_manifest_id: snapshot.manifest.manifest_id,
        selected_occurrence_ids: selected,
        files_sha256: filesSha256,
        output_root_alias: "$OUTPUT_ROOT",
      },
      files,
      containment_verified: true,
      cleanup: { attempted: false, verified: true, residual_paths: [] },
    };
  } catch (error) {
    const cleanup = await removeTree(realRoot);
    const message = error instanceof Error ? error.message : String(error);
    throw new ExtractionError(
      `Extraction stopped and its output was removed: ${message}`,
      error instanceof ExtractionError ? error.kind : "failed",
      cleanup,
    );
  }
}

async function writeInside(
  realRoot: string,
  logicalPath: string,
  bytes: Uint8Array,
  mode: number | null,
): Promise<void> {
  const path = join(realRoot, logicalPath);
  const rel = relative(realRoot, path);
  if (rel.startsWith("..") || rel === "" || rel.startsWith("/")) {
    throw new ExtractionError(`${logicalPath} would land outside the output root.`, "refused");
  }
  const parent = dirname(path);
  await Deno.mkdir(parent, { recursive: true, mode: 0o700 });
  // Every directory on the way was created by us; a symlink there means someone raced us.
  const realParent = await Deno.realPath(parent);
  if (realParent !== realRoot && !realParent.startsWith(realRoot + "/")) {
    throw new ExtractionError(
      `${logicalPath}: its directory resolves outside the output root.`,
      "refused",
    );
  }
  const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  try {
    let at = 0;
    while (at < bytes.length) at += await file.write(bytes.subarray(at));
  } finally {
    file.close();
  }
  // Permission bits only; never set-id or sticky bits from an archive.
  if (mode !== null) await Deno.chmod(path, mode & 0o755);
}

async function verifyContainment(realRoot: string): Promise<boolean> {
  const stack = [realRoot];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isSymlink) return false;
      const real = await Deno.realPath(path);
      if (!real.startsWith(realRoot + "/")) return false;
      if (entry.isDirectory) stack.push(path);
    }
  }
  return true;
}

async function removeTree(realRoot: string): Promise<ExtractionResult["cleanup"]> {
  try {
    await Deno.remove(realRoot, { recursive: true });
  } catch {
    // Reported below as residue.
  }
  try {
    await Deno.lstat(realRoot);
    return { attempted: true, verified: false, residual_paths: ["$OUTPUT_ROOT"] };
  } catch {
    return { attempted: true, verified: true, residual_paths: [] };
  }
}
