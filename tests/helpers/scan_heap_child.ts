/**
 * Child process of `analysis_scan_memory_test.ts`: opens a library, builds
 * the dossiers of a few procedures (which keep their instructions and flows
 * for a while, as `analyze_function` does), then builds the reference index
 * within an instruction bound, sampling the V8 heap as it goes. Prints one
 * JSON line: the heap in use before the index, the highest sample during it,
 * and the instructions decoded.
 *
 * Usage: `deno run --v8-flags=--max-semi-space-size=2 --allow-read
 * scan_heap_child.ts LIBRARY MAX_INSTRUCTIONS`.
 *
 * @module
 */

import { ProgramAnalysis } from "../../src/apps/analysis/program.ts";
import { buildDossier } from "../../src/apps/analysis/dossier.ts";
import { readerFor } from "../../src/apps/formats/readers.ts";

const [path, bound] = Deno.args;
if (!path || !bound) throw new Error("usage: scan_heap_child.ts LIBRARY MAX_INSTRUCTIONS");
const bytes = Deno.readFileSync(path);
const reader = readerFor(bytes);
if (!reader) throw new Error(`${path} is no binary the readers know`);
const [image] = reader.read(bytes, path);
if (!image) throw new Error(`${path} holds no document`);
const program = new ProgramAnalysis(image);
const first = Math.min(1000, Math.max(0, image.functions.length - 20));
for (const fn of image.functions.slice(first, first + 20)) {
  await buildDossier(program, fn, {
    limit: 100,
    maxInstructions: 500,
    includeAssembly: false,
    assemblyOffset: 0,
    collectionOffset: 0,
  }, null);
}
const before = Deno.memoryUsage().heapUsed;
let highest = before;
const index = await program.references({ maxInstructions: Number(bound) }, {
  onProgress: () => {
    highest = Math.max(highest, Deno.memoryUsage().heapUsed);
  },
});
console.log(JSON.stringify({ before, highest, instructions: index.scannedInstructions }));
