/**
 * Test helper: finds system files the tests read as real inputs (the C
 * library and the like), wherever this machine's distribution keeps them.
 *
 * @module
 */

/** Whether `path` is a regular file here (links followed); false when it cannot be read. */
export function isFile(path: string | URL): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** The first of `paths` that is a regular file here (links followed), or undefined. */
export function firstFile(paths: readonly string[]): string | undefined {
  return paths.find(isFile);
}

/** Where distributions keep the C library's shared object. */
const LIBC_PATHS = [
  "/lib/x86_64-linux-gnu/libc.so.6",
  "/usr/lib/x86_64-linux-gnu/libc.so.6",
  "/lib/aarch64-linux-gnu/libc.so.6",
  "/usr/lib/aarch64-linux-gnu/libc.so.6",
  "/lib64/libc.so.6",
  "/usr/lib64/libc.so.6",
  "/usr/lib/libc.so.6",
  "/lib/libc.so.6",
];

/** The real path of the C library's shared object on this machine, or null. */
export function findLibc(): string | null {
  const path = firstFile(LIBC_PATHS);
  return path === undefined ? null : Deno.realPathSync(path);
}
