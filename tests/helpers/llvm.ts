/** Test helper: LLVM IR compiled to an object file with `llc-14`. */

import { join } from "node:path";
import { run } from "./programs.ts";

/**
 * Writes `source` (LLVM IR) as `<name>.ll` in `dir`, compiles it with
 * `llc-14 -filetype=obj` for `triple` (`-O2` unless `flags` say otherwise,
 * then `flags`) and returns the object's path, `<name>.o` beside it.
 */
export async function llcObject(
  dir: string,
  name: string,
  source: string,
  triple: string,
  flags: string[] = ["-O2"],
): Promise<string> {
  const ir = join(dir, `${name}.ll`);
  const object = join(dir, `${name}.o`);
  await Deno.writeTextFile(ir, source);
  await run("llc-14", [...flags, `-mtriple=${triple}`, "-filetype=obj", "-o", object, ir]);
  return object;
}
