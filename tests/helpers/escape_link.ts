/**
 * Test helper: the directory layout that write-escape tests start from.
 *
 * @module
 */

import { join } from "node:path";

/** The two sibling directories of {@link outputDirWithEscapeLink}, in a fresh temporary directory. */
export interface EscapeLayout {
  /** The directory writes are meant to stay in. */
  out: string;
  /** Its sibling, which no write may reach. */
  outside: string;
}

/** A fresh `out` directory beside an `outside` one, with `out/link` a symbolic link to `outside`. */
export async function outputDirWithEscapeLink(): Promise<EscapeLayout> {
  const parent = await Deno.makeTempDir();
  const out = join(parent, "out");
  const outside = join(parent, "outside");
  await Deno.mkdir(out);
  await Deno.mkdir(outside);
  await Deno.symlink(outside, join(out, "link"));
  return { out, outside };
}
