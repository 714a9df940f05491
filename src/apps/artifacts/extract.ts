/**
 * Safe extraction of chosen artifact members into a new directory: the output
 * root must not exist, nothing is ever overwritten, only normalised paths of
 * regular members are written, every written file is re-checked to lie inside
 * the output root, and a failed extraction removes what it wrote.
 *
 * @module
 */

import { dirname, join, normalize, relative, sep } from "node:path";
import { canonicalJson, sha256Hex } from "../../core/canonical_json.ts";
import { extractionId } from "./ids.ts";
import type { ArtifactOccurrence, ArtifactSnapshot, TraversalLimits } from "./model.ts";
import { compareCodePoints } from "../../core/completion.ts";
import { captureMembers, type ScanRoot } from "./scan.ts";
import { HOSTILE_NOTE } from "./member_names.ts";
import type { FileIdentity } from "../../core/roots.ts";

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

/** The output root exists already: nothing was written. */
export class OutputRootExists extends ExtractionError {
  constructor(readonly path: string) {
    super(`${path} already exists; extraction writes only into a new directory.`, "refused");
    this.name = "OutputRootExists";
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
      const why = occ.limitations.find((note) => note.startsWith(HOSTILE_NOTE))
        ?.slice(HOSTILE_NOTE.length).replace(/\.$/, "") ??
        "absolute, .., NUL, a backslash, a control or invisible character, or invalid UTF-8";
      throw new ExtractionError(
        `${occ.logical_path} has a hostile name in the archive (${why}; its bytes are in original_name_hex); it is never extracted.`,
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
  chosen.sort((a, b) => compareCodePoints(a.logical_path, b.logical_path));
  // A nested archive and one of its members cannot both be written: one path would be a file
  // and a directory at once. Sorted by code point, a member follows its archive.
  for (let i = 1; i < chosen.length; i++) {
    const container = chosen.slice(0, i).find((o) =>
      chosen[i]!.logical_path.startsWith(o.logical_path + "/")
    );
    if (container) {
      throw new ExtractionError(
        `${container.logical_path} and ${
          chosen[i]!.logical_path
        } were both chosen, but the first holds the second: the output path ${container.logical_path} cannot be a file and a directory at once. Extract the archive and its members in separate calls (into different output roots).`,
        "refused",
      );
    }
  }
  return chosen;
}

/** Options of {@linkcode extractMembers}. */
export interface ExtractOptions {
  limits: TraversalLimits;
  expectedRootSha256: string;
  signal?: AbortSignal;
  onProgress?: (bytesRead: number, entries: number) => void | Promise<void>;
}

/**
 * Checks a requested output root before anything is made: absolute, no
 * `..`, no NUL, not existing yet (not even as a dangling link), its parent an
 * existing directory, and no component of its path a symbolic link (a link
 * would carry the writes wherever it points, past the write grant): the
 * parent's real path must be the parent itself. Returns the normalised
 * path. Throws {@linkcode ExtractionError} (`refused`).
 *
 * Requires `--allow-read` for the output root's parent.
 */
export async function checkOutputRoot(outputRoot: string): Promise<string> {
  if (
    !outputRoot.startsWith("/") || outputRoot.includes("\0") ||
    outputRoot.split("/").includes("..")
  ) {
    throw new ExtractionError("output_root must be an absolute path without .. or NUL.", "refused");
  }
  const path = normalize(outputRoot).replace(/\/+$/, "") || "/";
  if (path === "/") throw new ExtractionError("output_root cannot be /.", "refused");
  const parent = dirname(path);
  let realParent: string;
  try {
    // Only the parent itself needs a read grant for this (its ancestors need none).
    realParent = await Deno.realPath(parent);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ExtractionError(
        `${parent} does not exist; the output root's parent directory must exist.`,
        "refused",
      );
    }
    throw error;
  }
  if (realParent !== parent) {
    const link = await firstLink(parent);
    throw new ExtractionError(
      `${
        link ?? parent
      } is or passes through a symbolic link (it resolves to ${realParent}); output roots must not cross symbolic links, which would carry the writes wherever they point. Name the real directory instead.`,
      "refused",
    );
  }
  if (!(await Deno.stat(parent)).isDirectory) {
    throw new ExtractionError(`${parent} is not a directory.`, "refused");
  }
  let existing: Deno.FileInfo;
  try {
    existing = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return path;
    throw error;
  }
  if (!existing.isSymlink) throw new OutputRootExists(path);
  throw new ExtractionError(
    `${path} is a symbolic link; output roots must not cross symbolic links. Name a new, real directory.`,
    "refused",
  );
}

/** The first component of `path` that is a symbolic link, as far as this process may look. */
async function firstLink(path: string): Promise<string | null> {
  let current = "";
  for (const part of path.split("/").filter((p) => p !== "")) {
    current += "/" + part;
    try {
      if ((await Deno.lstat(current)).isSymlink) return current;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * Writes the chosen members under `outputRoot`, which must not exist yet,
 * whose parent must exist, and whose path must cross no symbolic link. The
 * report is checked, not assumed: every written file's device and inode are
 * compared with what a fresh walk of the output root finds, and a cleanup is
 * verified by looking for what remains. Requires `--allow-read` for the
 * artifact, and `--allow-write` plus `--allow-read` for the output root.
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
  const rootPath = await checkOutputRoot(outputRoot);
  // Not recursive: the parent must exist, and the new root is ours alone.
  await Deno.mkdir(rootPath, { mode: 0o700 });
  let rootIdentity: FileIdentity;
  try {
    rootIdentity = await madeDirectory(rootPath);
  } catch (error) {
    throw new ExtractionError(
      `Extraction stopped before writing: ${(error as Error).message}`,
      "failed",
      { attempted: false, verified: false, residual_paths: ["$OUTPUT_ROOT"] },
    );
  }
  const wanted = new Map(chosen.map((o) => [o.logical_path, o]));
  const files: ExtractedFile[] = [];
  const identities = new Map<string, FileIdentity>();
  // The content each chosen path was last seen with, when it was not the scanned one.
  const otherContent = new Map<string, string>();
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
        // An earlier member with the same path (tar appends, duplicate zip names) is passed over:
        // the scan listed the later one.
        accept: (logicalPath, sha256) => {
          if (sha256 === wanted.get(logicalPath)!.sha256) return true;
          otherContent.set(logicalPath, sha256);
          return false;
        },
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
          identities.set(
            logicalPath,
            await writeInside(
              rootPath,
              logicalPath,
              member.bytes,
              occ.mode === null ? null : parseInt(occ.mode, 8),
            ),
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
    const changed = missing.find((path) => otherContent.has(path));
    if (changed !== undefined) {
      throw new ExtractionError(
        `${changed} changed since the scan (sha256 ${otherContent.get(changed)}, expected ${
          wanted.get(changed)!.sha256
        }).`,
        "failed",
      );
    }
    if (missing.length > 0) {
      throw new ExtractionError(
        `${missing.length} member(s) could not be read back: ${missing.slice(0, 5).join(", ")}.`,
        "failed",
      );
    }
    if (files.length !== wanted.size) {
      throw new ExtractionError(
        `${files.length} of ${wanted.size} chosen members were written.`,
        "failed",
      );
    }
    const problem = await verifyContainment(rootPath, rootIdentity, identities);
    if (problem !== null) {
      throw new ExtractionError(`The output failed its containment check: ${problem}.`, "failed");
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
    const cleanup = await removeOutput(rootPath, rootIdentity);
    const message = error instanceof Error ? error.message : String(error);
    throw new ExtractionError(
      `Extraction stopped and ${
        cleanup.verified ? "its output was removed" : "its output could NOT all be removed"
      }: ${message}`,
      error instanceof ExtractionError ? error.kind : "failed",
      cleanup,
    );
  }
}

/** The identity of the directory just made, checked to be a real directory at its own path. */
async function madeDirectory(path: string): Promise<FileIdentity> {
  const info = await Deno.lstat(path);
  if (!info.isDirectory || info.isSymlink) throw new Error(`${path} is not the directory made`);
  if (await Deno.realPath(path) !== path) {
    throw new Error(`${path} resolves elsewhere; a link was raced into its path`);
  }
  return { dev: info.dev, ino: info.ino ?? -1 };
}

async function writeInside(
  rootPath: string,
  logicalPath: string,
  bytes: Uint8Array,
  mode: number | null,
): Promise<FileIdentity> {
  const path = join(rootPath, logicalPath);
  const rel = relative(rootPath, path);
  if (rel.startsWith("..") || rel === "" || rel.startsWith("/")) {
    throw new ExtractionError(`${logicalPath} would land outside the output root.`, "refused");
  }
  const parent = dirname(path);
  await Deno.mkdir(parent, { recursive: true, mode: 0o700 });
  // Every directory on the way was created by us; a symlink there means someone raced us.
  const realParent = await Deno.realPath(parent);
  if (realParent !== rootPath && !realParent.startsWith(rootPath + sep)) {
    throw new ExtractionError(
      `${logicalPath}: its directory resolves outside the output root.`,
      "refused",
    );
  }
  const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  let identity: FileIdentity;
  try {
    const info = await file.stat();
    identity = { dev: info.dev, ino: info.ino ?? -1 };
    let at = 0;
    while (at < bytes.length) at += await file.write(bytes.subarray(at));
  } finally {
    file.close();
  }
  // The file written is the one at the path, and the path is still inside.
  const after = await Deno.lstat(path);
  if (!after.isFile || after.dev !== identity.dev || after.ino !== identity.ino) {
    throw new ExtractionError(`${logicalPath}: the file written is not at its path.`, "failed");
  }
  // Permission bits only; never set-id or sticky bits from an archive.
  if (mode !== null) await Deno.chmod(path, mode & 0o755);
  return identity;
}

/**
 * Walks the output root again with `lstat`: the root is still the directory
 * made, nothing is a link or special file, and the files found are exactly
 * the files written, each with the device and inode it was written with.
 * Returns null when all holds, else what did not.
 *
 * Requires `--allow-read` for the output root.
 */
export async function verifyContainment(
  rootPath: string,
  rootIdentity: FileIdentity,
  written: ReadonlyMap<string, FileIdentity>,
): Promise<string | null> {
  const top = await Deno.lstat(rootPath);
  if (top.isSymlink || top.dev !== rootIdentity.dev || top.ino !== rootIdentity.ino) {
    return "the output root is no longer the directory made";
  }
  if (await Deno.realPath(rootPath) !== rootPath) return "the output root resolves elsewhere";
  const seen = new Set<string>();
  const stack = [""];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    for await (const entry of Deno.readDir(join(rootPath, rel))) {
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const info = await Deno.lstat(join(rootPath, childRel));
      if (info.isSymlink) return `${childRel} is a symbolic link`;
      if (info.isDirectory) {
        stack.push(childRel);
        continue;
      }
      if (!info.isFile) return `${childRel} is not a regular file`;
      const expected = written.get(childRel);
      if (!expected) return `${childRel} was not written by this extraction`;
      if (info.dev !== expected.dev || info.ino !== expected.ino) {
        return `${childRel} is not the file written`;
      }
      seen.add(childRel);
    }
  }
  const absent = [...written.keys()].filter((rel) => !seen.has(rel));
  return absent.length === 0 ? null : `${absent.length} written file(s) are missing`;
}

/**
 * Removes an output root this extraction made, then checks what remains:
 * `verified` only when the root is gone (a failed look counts as residue,
 * never as success). Residual paths are relative to `$OUTPUT_ROOT`.
 *
 * Requires `--allow-write` and `--allow-read` for the output root.
 */
export async function removeOutput(
  rootPath: string,
  rootIdentity: FileIdentity | null = null,
): Promise<ExtractionResult["cleanup"]> {
  try {
    const info = await Deno.lstat(rootPath);
    // Never remove something that replaced the directory made (it may be someone else's).
    if (
      !info.isSymlink && (rootIdentity === null ||
        (info.dev === rootIdentity.dev && info.ino === rootIdentity.ino))
    ) {
      await Deno.remove(rootPath, { recursive: true });
    }
  } catch {
    // Whatever remains is found below.
  }
  try {
    await Deno.lstat(rootPath);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { attempted: true, verified: true, residual_paths: [] };
    }
    // Could not look: nothing is known to be gone.
    return { attempted: true, verified: false, residual_paths: ["$OUTPUT_ROOT"] };
  }
  return { attempted: true, verified: false, residual_paths: await residue(rootPath) };
}

/** Up to 20 paths still under the output root (the root itself first). */
async function residue(rootPath: string): Promise<string[]> {
  const found = ["$OUTPUT_ROOT"];
  const stack = [""];
  try {
    while (stack.length > 0 && found.length < 20) {
      const rel = stack.pop()!;
      for await (const entry of Deno.readDir(join(rootPath, rel))) {
        const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
        found.push(`$OUTPUT_ROOT/${childRel}`);
        if (entry.isDirectory && !entry.isSymlink) stack.push(childRel);
        if (found.length >= 20) break;
      }
    }
  } catch {
    // The listing is best effort; the root itself is reported either way.
  }
  return found;
}
