/**
 * Reading a directory under the scan root: children looked at ahead of the
 * walk, files opened through the root fence, and directory identities.
 *
 * @module
 */

import { join } from "node:path";
import { type ByteSource, memorySource, verifiedSource } from "./byte_source.ts";
import {
  type FileIdentity,
  identityMismatch,
  isWithin,
  openVerified,
  outsideRoots,
  type RootDirectory,
} from "../../core/roots.ts";
import type { ScanRoot } from "./scan_options.ts";

/**
 * How many entries of a directory are looked at (lstat) ahead of the walk:
 * each look is a round trip to a file-system thread, so many are kept in
 * flight (a directory of 100,000 empty files is mostly these waits); the
 * files opened ahead are bounded separately, by OPEN_AHEAD_FILES.
 */
const LOOK_AHEAD_ENTRIES = 64;
/** Most files held open ahead of the walk, scan-wide: each holds at most one 1 MiB chunk. */
const OPEN_AHEAD_FILES = 16;

/** One child of a directory, looked at ahead of the walk. */
export interface ChildProbe {
  info: Deno.FileInfo;
  /** A regular file, opened ahead with its first chunk being read; null: open it when visited. */
  source: Promise<ByteSource> | null;
}

/**
 * The children of one directory, looked at (lstat) a few entries ahead of
 * the walk, regular files opened with their first chunk already being read,
 * so the waits for the file system overlap each other and the hashing of
 * earlier files. The walk takes each result in order, as it would have asked
 * for it; what it does not take is closed by {@linkcode LookAhead.release}.
 */
export class LookAhead {
  readonly #path: string;
  readonly #names: readonly string[];
  readonly #budget: { open: number };
  readonly #root: ScanRoot;
  readonly #pending = new Map<number, Promise<ChildProbe & { counted: boolean }>>();
  #started = 0;

  constructor(
    path: string,
    names: readonly string[],
    budget: { open: number },
    root: ScanRoot,
  ) {
    this.#root = root;
    this.#path = path;
    this.#names = names;
    this.#budget = budget;
  }

  /** The child at `index`; rejects as `Deno.lstat` would have. */
  async take(index: number): Promise<ChildProbe> {
    const end = Math.min(this.#names.length, index + LOOK_AHEAD_ENTRIES);
    while (this.#started < end) this.#start(this.#started++);
    const pending = this.#pending.get(index) ?? this.#probe(index);
    this.#pending.delete(index);
    const probe = await pending;
    if (probe.counted) this.#budget.open--;
    return { info: probe.info, source: probe.source };
  }

  /** Closes whatever was opened ahead and not taken. */
  release(): void {
    for (const pending of this.#pending.values()) {
      pending.then((probe) => {
        if (probe.counted) this.#budget.open--;
        probe.source?.then((source) => source.close(), () => {});
      }, () => {});
    }
    this.#pending.clear();
  }

  #start(index: number): void {
    const pending = this.#probe(index);
    pending.catch(() => {}); // reported when taken
    this.#pending.set(index, pending);
  }

  async #probe(index: number): Promise<ChildProbe & { counted: boolean }> {
    const path = join(this.#path, this.#names[index]!);
    const info = await Deno.lstat(path);
    // An empty file needs no open: there is nothing in it to read, so nothing can be read
    // from elsewhere either.
    if (info.isFile && info.size === 0) {
      return { info, source: Promise.resolve(EMPTY_SOURCE()), counted: false };
    }
    if (!info.isFile || this.#budget.open >= OPEN_AHEAD_FILES) {
      return { info, source: null, counted: false };
    }
    this.#budget.open++;
    const source = openDiskFile(path, this.#root, info);
    source.catch(() => {}); // reported when visited
    return { info, source, counted: true };
  }
}

/** Files up to this size are read whole in one operation rather than opened and streamed. */
const WHOLE_FILE_BYTES = 256 * 1024;

/** The content of an empty regular file, read without opening it. */
export const EMPTY_SOURCE = (): ByteSource => memorySource(new Uint8Array(0));

/**
 * A regular file under the scan's root as a byte source, opened through the
 * root fence's verified open: never blocking on a special file, and only if
 * the handle is the file the walk looked at (`info`, its device and inode)
 * and its path still lies under the root without a symlink. A small one (by
 * its size) is read whole at once, a larger one has its first chunk read ahead.
 */
export async function openDiskFile(
  path: string,
  root: ScanRoot,
  info: Deno.FileInfo | null,
  options: { whole?: boolean } = {},
): Promise<ByteSource> {
  const file = await openVerified({ requestedPath: path, realPath: path }, {
    admits: (real) => root.kind === "directory" ? isWithin(real, root.realPath) : real === path,
    roots: rootsOf(root),
    expect: info === null ? undefined : { dev: info.dev, ino: info.ino ?? -1 },
  });
  const source = verifiedSource(file, { readFirstChunk: options.whole !== false });
  if (options.whole === false || file.size > WHOLE_FILE_BYTES) return source;
  try {
    return memorySource(await source.read(0, file.size));
  } finally {
    source.close();
  }
}

/** The scan's root as a fence root, for messages. */
export function rootsOf(root: ScanRoot): RootDirectory[] {
  return [{ path: root.realPath, realPath: root.realPath }];
}

/** A directory's identity, refusing one whose path no longer resolves to itself under the root. */
export async function directoryIdentity(path: string, root: ScanRoot): Promise<FileIdentity> {
  const real = await Deno.realPath(path);
  if (real !== path || !isWithin(real, root.realPath)) {
    throw outsideRoots(path, rootsOf(root), real);
  }
  const info = await Deno.lstat(path);
  if (!info.isDirectory) throw identityMismatch(path, "it is no longer a directory");
  return { dev: info.dev, ino: info.ino ?? -1 };
}
