/**
 * Test helper: a PE DLL assembled from AT&T source with `llvm-mc-14` and
 * linked with `lld-link-14` (no default libraries), for tests that need a
 * DLL of a known layout.
 *
 * @module
 */

import { run } from "./in_memory.ts";

/** How to build one DLL. */
export interface DllSpec {
  /** Directory for the source, object and DLL. */
  dir: string;
  /** Base name of the files (`<name>.s`, `.obj`, `.dll`). */
  name: string;
  /** The assembly source. */
  source: string;
  /** x64 (PE32+) or i386 (PE32). */
  x64: boolean;
  /** Symbols to export. */
  exports: string[];
}

/** Assembles and links the DLL; returns its path. Requires llvm-mc-14 and lld-link-14. */
export async function buildDll(spec: DllSpec): Promise<string> {
  const { dir, name, x64 } = spec;
  await Deno.writeTextFile(`${dir}/${name}.s`, spec.source);
  await run("llvm-mc-14", [
    "-filetype=obj",
    `-triple=${x64 ? "x86_64-pc-windows-msvc" : "i686-pc-windows-msvc"}`,
    `${dir}/${name}.s`,
    "-o",
    `${dir}/${name}.obj`,
  ]);
  const path = `${dir}/${name}.dll`;
  await run("lld-link-14", [
    "/dll",
    "/nodefaultlib",
    ...(x64 ? ["/entry:DllMain"] : ["/entry:DllMain@12", "/safeseh:no"]),
    ...spec.exports.map((symbol) => `/export:${symbol}`),
    `/out:${path}`,
    `${dir}/${name}.obj`,
  ]);
  return path;
}
