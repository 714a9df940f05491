/**
 * codeRuns(): how code marks (ELF mapping symbols) split a procedure's bytes
 * into runs of instructions, and mappingKind(): which symbol names are
 * mapping symbols.
 */

import assert from "node:assert/strict";
import { codeRuns } from "../src/apps/analysis/code.ts";
import type { BinaryImage, ImageCodeMark } from "../src/apps/formats/binary_image.ts";
import { mappingKind } from "../src/apps/formats/elf/symbols.ts";

/** An image with only the fields codeRuns reads. */
function marked(codeMarks: ImageCodeMark[] | undefined): BinaryImage {
  return { codeMarks } as BinaryImage;
}

/** Runs as `start-end set` lines, in hex. */
function show(runs: { start: bigint; end: bigint; set: string }[]): string[] {
  return runs.map((r) => `${r.start.toString(16)}-${r.end.toString(16)} ${r.set}`);
}

Deno.test("codeRuns() is one run in the procedure's set without marks inside it", () => {
  assert.deepEqual(show(codeRuns(marked(undefined), 0x100n, 0x140n, "arm")), ["100-140 arm"]);
  // Marks at or before the start, or at or after the end, change nothing.
  const outside = marked([
    { address: 0x80n, kind: "data" },
    { address: 0x100n, kind: "data" },
    { address: 0x140n, kind: "thumb" },
  ]);
  assert.deepEqual(show(codeRuns(outside, 0x100n, 0x140n, "arm")), ["100-140 arm"]);
});

Deno.test("codeRuns() skips data and resumes in the next mark's set", () => {
  const image = marked([
    { address: 0x100n, kind: "thumb" },
    { address: 0x10an, kind: "data" },
    { address: 0x110n, kind: "thumb" },
    { address: 0x120n, kind: "arm" },
    { address: 0x128n, kind: "data" },
  ]);
  assert.deepEqual(show(codeRuns(image, 0x100n, 0x130n, "thumb")), [
    "100-10a thumb",
    "110-120 thumb",
    "120-128 arm",
  ]);
  // Two code marks of one set in a row make one run (a Thumb IT block may span them).
  const repeated = marked([{ address: 0x108n, kind: "code" }, { address: 0x110n, kind: "code" }]);
  assert.deepEqual(show(codeRuns(repeated, 0x100n, 0x120n, "arm64")), ["100-120 arm64"]);
  // A procedure that is data up to its end has only its code before the mark.
  const tail = marked([{ address: 0x104n, kind: "data" }]);
  assert.deepEqual(show(codeRuns(tail, 0x100n, 0x110n, "arm64")), ["100-104 arm64"]);
});

Deno.test("mappingKind() knows $a, $t, $x and $d, alone or with a dotted suffix", () => {
  assert.deepEqual(
    ["$a", "$t.12", "$x", "$d.realdata", "$d"].map(mappingKind),
    ["a", "t", "x", "d", "d"],
  );
  assert.deepEqual(["$", "$b", "$ab", "$tx.1", "a", "", "x$d"].map(mappingKind), [
    null,
    null,
    null,
    null,
    null,
    null,
    null,
  ]);
});
