/**
 * The libraries the client benches run on: the largest shared library on
 * the machine (`large`), and two smaller ones for the growth curves.
 *
 * @module
 */

import {
  largestSharedLibrary,
  type LibraryFile,
  sharedLibraryFiles,
} from "../helpers/largest_library.ts";
import type { BenchContext } from "./harness.ts";

const SEARCHED = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"];

/** The largest shared library with functions, or throws with the reason. */
export function largeLibrary(): LibraryFile {
  const path = largestSharedLibrary();
  if (!path) throw new Error("no ELF shared library with functions was found under /usr/lib");
  return { path, size: Deno.statSync(path).size };
}

/**
 * The shared library whose size is closest to `bytes` (real paths, `.so`
 * names only), or null when none is found.
 */
export function libraryNear(bytes: number): LibraryFile | null {
  let best: LibraryFile | null = null;
  for (const library of sharedLibraryFiles(SEARCHED)) {
    const distance = Math.abs(Math.log(library.size / bytes));
    if (!best || distance < Math.abs(Math.log(best.size / bytes))) best = library;
  }
  return best;
}

/** The libraries for `size`: small ≈ 1 MiB, medium ≈ 10 MiB, large = the largest. */
export function libraryFor(size: "small" | "medium" | "large"): LibraryFile {
  if (size === "large") return largeLibrary();
  const found = libraryNear(size === "small" ? 1 << 20 : 10 << 20);
  if (!found) throw new Error(`no ${size} shared library was found under /usr/lib`);
  return found;
}

/** A bench's library, with its file name. */
export interface NamedBenchLibrary extends LibraryFile {
  /** The file's name (the last part of its path). */
  name: string;
}

/** The library for the bench's `--size`, logged with its size. */
export function benchLibrary(ctx: Pick<BenchContext, "size" | "log">): NamedBenchLibrary {
  const library = libraryFor(ctx.size);
  ctx.log(`${library.path} (${mib(library.size)})`);
  return { ...library, name: library.path.split("/").pop()! };
}

/** `/usr/lib` and `/lib` style root covering `path` (its directory). */
export function rootOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}

/** A size in MiB with one decimal. */
export function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}
