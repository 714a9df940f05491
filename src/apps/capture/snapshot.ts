/**
 * Filesystem checkpoints: a bounded walk of the capture's roots (type, mode,
 * size, SHA-256 of regular files, symlink targets), and the effects between
 * two walks. Symlinks are recorded, never followed.
 *
 * Requires `--allow-read` on the roots.
 *
 * @module
 */

import { createHash } from "node:crypto";

/** One file's state. */
export type FileState =
  | { type: "file"; path: string; mode: number; size: number; sha256: string | null }
  | { type: "symlink"; path: string; mode: number; size: number; target: string }
  | { type: "directory" | "other"; path: string; mode: number; size: number };

/** A change between two checkpoints. */
export interface FileEffect {
  status: "created" | "deleted" | "modified";
  path: string;
  before: FileState | null;
  after: FileState | null;
}

/** Bounds of one walk. */
export interface SnapshotLimits {
  /** Most entries listed. */
  files: number;
  /** Most bytes hashed in all. */
  fileBytes: number;
  /** Most directory levels below each root. */
  depth: number;
}

/** One walk. */
export interface Snapshot {
  files: FileState[];
  truncated: boolean;
  /** Why it was truncated, when it was. */
  notes: string[];
}

/** Walks `roots` (absolute real paths), skipping anything under `exclude`. */
export async function takeSnapshot(
  roots: readonly string[],
  exclude: readonly string[],
  limits: SnapshotLimits,
): Promise<Snapshot> {
  const files: FileState[] = [];
  const seen = new Set<string>();
  const notes = new Set<string>();
  let hashed = 0;
  let truncated = false;
  const excluded = (path: string): boolean =>
    exclude.some((e) => path === e || path.startsWith(`${e}/`));

  const visit = async (path: string, depth: number): Promise<void> => {
    if (truncated || seen.has(path) || excluded(path)) return;
    seen.add(path);
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(path);
    } catch {
      return; // vanished between listing and stat
    }
    if (files.length >= limits.files) {
      truncated = true;
      notes.add(`more than ${limits.files} entries: the listing stops there`);
      return;
    }
    const mode = (info.mode ?? 0) & 0o7777;
    if (info.isSymlink) {
      let target = "";
      try {
        target = await Deno.readLink(path);
      } catch {
        // unreadable link
      }
      files.push({ type: "symlink", path, mode, size: info.size, target });
      return;
    }
    if (info.isFile) {
      let sha256: string | null = null;
      if (hashed + info.size <= limits.fileBytes) {
        sha256 = await hashFile(path, info.size);
        if (sha256 !== null) hashed += info.size;
      } else {
        truncated = true;
        notes.add(`more than ${limits.fileBytes} bytes to hash: some files have no digest`);
      }
      files.push({ type: "file", path, mode, size: info.size, sha256 });
      return;
    }
    if (!info.isDirectory) {
      files.push({ type: "other", path, mode, size: info.size });
      return;
    }
    files.push({ type: "directory", path, mode, size: info.size });
    if (depth >= limits.depth) {
      notes.add(`directories deeper than ${limits.depth} levels are not listed`);
      truncated = true;
      return;
    }
    const names: string[] = [];
    try {
      for await (const entry of Deno.readDir(path)) names.push(entry.name);
    } catch {
      return;
    }
    names.sort();
    for (const name of names) {
      await visit(path === "/" ? `/${name}` : `${path}/${name}`, depth + 1);
    }
  };

  for (const root of [...roots].sort()) await visit(root, 0);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, truncated, notes: [...notes] };
}

/** The effects from `before` to `after`, sorted by path. */
export function effectsBetween(
  before: readonly FileState[],
  after: readonly FileState[],
): FileEffect[] {
  const old = new Map(before.map((f) => [f.path, f]));
  const now = new Map(after.map((f) => [f.path, f]));
  const effects: FileEffect[] = [];
  for (const [path, state] of now) {
    const previous = old.get(path);
    if (!previous) effects.push({ status: "created", path, before: null, after: state });
    else if (!sameState(previous, state)) {
      effects.push({ status: "modified", path, before: previous, after: state });
    }
  }
  for (const [path, state] of old) {
    if (!now.has(path)) effects.push({ status: "deleted", path, before: state, after: null });
  }
  return effects.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function sameState(a: FileState, b: FileState): boolean {
  if (a.type !== b.type || a.mode !== b.mode) return false;
  if (a.type === "file" && b.type === "file") return a.size === b.size && a.sha256 === b.sha256;
  if (a.type === "symlink" && b.type === "symlink") return a.target === b.target;
  if (a.type === "directory") return true; // a directory's size is its own bookkeeping
  return a.size === b.size;
}

async function hashFile(path: string, size: number): Promise<string | null> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return null;
  }
  try {
    const hash = createHash("sha256");
    const buffer = new Uint8Array(Math.min(1 << 20, Math.max(1, size)));
    let total = 0;
    for (;;) {
      const n = await file.read(buffer);
      if (n === null) break;
      total += n;
      // A file that grows while hashed is cut at its listed size.
      if (total > size) {
        hash.update(buffer.subarray(0, n - (total - size)));
        break;
      }
      hash.update(buffer.subarray(0, n));
    }
    return hash.digest("hex");
  } catch {
    return null;
  } finally {
    file.close();
  }
}
