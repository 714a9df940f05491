/**
 * The garbage of the two heaviest one-off steps, reading a binary in full
 * and building its reference index, is collected as soon as each has
 * answered, so what the next request allocates does not come on top of it
 * (on libLLVM the full pass's peak resident memory is about 20 MiB lower).
 * Runs the server in a child under the start task's V8 flags, which must
 * expose V8's collector to script for that.
 */

import assert from "node:assert/strict";
import { startTaskFlags } from "./client_bench/harness.ts";
import { heapChild } from "./helpers/heap_child.ts";
import { largestSharedLibrary } from "./helpers/largest_library.ts";

const LIBRARY = largestSharedLibrary();
if (LIBRARY === null) console.log("no shared library with functions found: the test is skipped");
const CHILD = new URL("./helpers/garbage_child.ts", import.meta.url).pathname;
/** Garbage a collection may still find after a step, in bytes (it was 15–25 MiB before). */
const LEFT_STANDING = 3 * 1024 * 1024;

/** The `--v8-flags` value of `deno task start`. */
function startV8Flags(): string {
  const flag = startTaskFlags().find((word) => word.startsWith("--v8-flags="));
  assert.ok(flag, "the start task passes V8 flags");
  return flag.slice("--v8-flags=".length);
}

Deno.test("the start and compile tasks expose V8's collector to script", () => {
  const config = JSON.parse(Deno.readTextFileSync(new URL("../deno.json", import.meta.url))) as {
    tasks: Record<string, string>;
  };
  for (const task of ["start", "start:http", "compile"]) {
    const flags = config.tasks[task]!.split(/\s+/).find((w) => w.startsWith("--v8-flags="));
    assert.ok(flags?.split(/[=,]/).includes("--expose-gc"), `${task}: ${flags}`);
  }
});

Deno.test({
  name: "reading a binary in full and indexing its references leave no garbage standing",
  ignore: LIBRARY === null,
  fn: async () => {
    const { read, indexed } = await heapChild<{
      read: { before: number; after: number };
      indexed: { before: number; after: number };
    }>(CHILD, startV8Flags(), [LIBRARY!]);
    const mib = (n: number) => (n / 1048576).toFixed(1);
    console.log(
      `${LIBRARY}: after the full read ${mib(read.before)} → ${mib(read.after)} MiB, after the ` +
        `index ${mib(indexed.before)} → ${mib(indexed.after)} MiB (a collection of the test's own)`,
    );
    assert.ok(read.before - read.after <= LEFT_STANDING, "garbage of the full read stood");
    assert.ok(indexed.before - indexed.after <= LEFT_STANDING, "garbage of the index stood");
  },
});
