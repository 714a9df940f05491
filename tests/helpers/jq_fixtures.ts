/**
 * The two versions of Debian's libjq1 package in the shared fixtures, by
 * relative path (never copied into the repository), and whether they are there.
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder of the application fixtures. */
export const FIXTURES: string = fileURLToPath(
  new URL("../../../shared/fixtures/apps/", import.meta.url),
);
/** libjq1 1.6-2.1+deb12u2. */
export const OLD: string = join(FIXTURES, "libjq1_1.6-2.1+deb12u2_amd64.deb");
/** libjq1 1.6-2.1+deb12u3. */
export const NEW: string = join(FIXTURES, "libjq1_1.6-2.1+deb12u3_amd64.deb");
/** The shared library's logical path inside either package. */
export const LIBJQ = "data.tar.xz/data.tar/usr/lib/x86_64-linux-gnu/libjq.so.1.0.4";

/** Whether both packages are present; prints why not, naming the caller. */
export function haveJqFixtures(caller: string): boolean {
  try {
    Deno.statSync(OLD);
    Deno.statSync(NEW);
    return true;
  } catch {
    console.log(`${caller}: skipping fixture tests, ${FIXTURES} is absent`);
    return false;
  }
}
