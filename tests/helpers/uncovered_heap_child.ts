/**
 * Child process of `analysis_uncovered_memory_test.ts`: reads a library and
 * runs the check for code outside every procedure twice (the first run
 * builds what is cached), collecting garbage before each, and prints one
 * JSON line: the heap in use just after the second run over just before it
 * (the check's garbage is still there), the procedures and the result.
 *
 * Usage: `deno run --v8-flags=--expose-gc,--max-semi-space-size=2
 * --allow-read uncovered_heap_child.ts LIBRARY`.
 *
 * @module
 */

import { uncoveredCode } from "../../src/apps/analysis/uncovered_code.ts";
import { readerFor } from "../../src/apps/formats/readers.ts";

const [path] = Deno.args;
if (!path) throw new Error("usage: uncovered_heap_child.ts LIBRARY");
const bytes = Deno.readFileSync(path);
const [image] = readerFor(bytes)?.read(bytes, path) ?? [];
if (!image) throw new Error(`${path} holds no document the readers know`);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");
let grown = 0;
let result = null;
for (let run = 0; run < 2; run++) {
  gc();
  gc();
  const before = Deno.memoryUsage().heapUsed;
  result = await uncoveredCode(image, image.functions);
  grown = Deno.memoryUsage().heapUsed - before;
}
console.log(JSON.stringify({
  grown,
  procedures: image.functions.length,
  stretches: result?.stretches ?? null,
}));
