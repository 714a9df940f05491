/**
 * The reference index's decode leaves the old generation alone: after a few
 * dossiers (which keep their instructions and flows, so V8 would pretenure a
 * literal they share with the scan), building the index over the largest
 * library grows the heap in use by a few bytes per decoded instruction at
 * most, instead of filling the old generation with short-lived instructions.
 * Runs in a child under the start task's `--max-semi-space-size=2`.
 */

import assert from "node:assert/strict";
import { heapChild } from "./helpers/heap_child.ts";
import { largestSharedLibrary } from "./helpers/largest_library.ts";

const LIBRARY = largestSharedLibrary();
if (LIBRARY === null) console.log("no shared library with functions found: the test is skipped");
const CHILD = new URL("./helpers/scan_heap_child.ts", import.meta.url).pathname;
/** Instructions the index decodes (its default bound). */
const BOUND = 4_000_000;
/** Most heap growth allowed per decoded instruction, in bytes (it was about 20 before the fix). */
const BYTES_PER_INSTRUCTION = 3;

Deno.test({
  name: "ProgramAnalysis.references() after dossiers keeps the heap within 3 bytes per instruction",
  ignore: LIBRARY === null,
  fn: async () => {
    const { before, highest, instructions } = await heapChild<
      { before: number; highest: number; instructions: number }
    >(
      CHILD,
      "--max-semi-space-size=2",
      [LIBRARY!, String(BOUND)],
    );
    assert.ok(instructions > 100_000, `only ${instructions} instructions were decoded`);
    const perInstruction = (highest - before) / instructions;
    console.log(
      `${LIBRARY}: ${instructions} instructions, heap ${(before / 1048576).toFixed(1)} → ${
        (highest / 1048576).toFixed(1)
      } MiB at most (${perInstruction.toFixed(2)} bytes per instruction)`,
    );
    assert.ok(
      perInstruction <= BYTES_PER_INSTRUCTION,
      `the heap grew by ${perInstruction.toFixed(2)} bytes per decoded instruction`,
    );
  },
});
