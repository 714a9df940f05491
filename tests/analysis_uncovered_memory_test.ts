/**
 * The check for code outside every known procedure (run by every reference
 * scan) holds the procedures' extents as numbers, not one object of bigints
 * per procedure: on the largest library it leaves the heap a few MiB larger
 * at most, where the objects had added 13 MiB on libLLVM (about 140 bytes
 * per procedure) and raised the peak of a full client pass past its bound.
 */

import assert from "node:assert/strict";
import { heapChild } from "./helpers/heap_child.ts";
import { largestSharedLibrary } from "./helpers/largest_library.ts";

const LIBRARY = largestSharedLibrary();
if (LIBRARY === null) console.log("no shared library with functions found: the test is skipped");
const CHILD = new URL("./helpers/uncovered_heap_child.ts", import.meta.url).pathname;
/** Most heap growth per procedure, in bytes (typed arrays live outside the heap). */
const BYTES_PER_PROCEDURE = 60;

Deno.test({
  name: "uncoveredCode() grows the heap by under 60 bytes per procedure of the largest library",
  ignore: LIBRARY === null,
  fn: async () => {
    const { grown, procedures, stretches } = await heapChild<
      { grown: number; procedures: number; stretches: number | null }
    >(
      CHILD,
      "--expose-gc,--max-semi-space-size=2",
      [LIBRARY!],
    );
    assert.ok(procedures > 10_000, `only ${procedures} procedures: too small to show the cost`);
    assert.notEqual(stretches, null, "the check did not run on this architecture");
    const perProcedure = grown / procedures;
    console.log(
      `${LIBRARY}: ${procedures} procedures, heap +${(grown / 1048576).toFixed(1)} MiB (${
        perProcedure.toFixed(1)
      } bytes per procedure)`,
    );
    assert.ok(
      perProcedure < BYTES_PER_PROCEDURE,
      `the check grew the heap by ${perProcedure.toFixed(1)} bytes per procedure`,
    );
  },
});
