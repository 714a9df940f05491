/**
 * Peak resident memory (the server's VmHWM) of one full pass over the
 * largest library on the machine under the start flags: open, overview,
 * every procedure page, 20 dossiers, the reference index (xrefs) and a
 * string search. Target: VmHWM ≤ 2 × the file size + the idle server's RSS
 * (VmRSS right after `initialize`).
 *
 * @module
 */

import { type BenchContext, BenchServer, structured } from "../harness.ts";
import { libraryFor, mib, rootOf } from "../library.ts";
import { walkProcedures } from "../walk.ts";

/** One full pass in a fresh server; its idle RSS, peak and time. */
async function fullPass(path: string): Promise<{ idle: number; peak: number; ms: number }> {
  await using server = await BenchServer.start({ roots: [rootOf(path)] });
  const idle = (await server.memory()).rss;
  const began = performance.now();
  await server.call("open_binary", { path });
  await server.call("binary_overview");
  await walkProcedures(server);
  const page = structured(await server.call("list_procedures", { offset: 1000, limit: 20 }));
  const addresses = (page.result as { items: { address: string }[] }).items.map((i) => i.address);
  for (const procedure of addresses) {
    await server.call("analyze_function", { procedure, include_callers: false });
  }
  await server.call("xrefs", { address: addresses[0]! });
  await server.call("search_strings", { query: "error", limit: 10 });
  const ms = performance.now() - began;
  return { idle, peak: (await server.memory()).peak, ms };
}

/** Runs the peak-memory measure. */
export default async function peakRss(ctx: BenchContext): Promise<void> {
  const library = libraryFor(ctx.size);
  const name = library.path.split("/").pop();
  ctx.log(`${library.path} (${mib(library.size)})`);
  const passes = [];
  for (let i = 0; i < Math.min(ctx.runs, 3); i++) passes.push(await fullPass(library.path));
  passes.sort((a, b) => a.peak - b.peak);
  const median = passes[Math.floor(passes.length / 2)]!;
  const allowed = 2 * library.size + median.idle;
  ctx.figure({
    label: `peak RSS (VmHWM), full pass over ${name} (${mib(library.size)})`,
    value: `${mib(median.peak)} = ${(median.peak / library.size).toFixed(2)}× the file; ${
      ((median.peak - median.idle) / library.size).toFixed(2)
    }× over the idle server (${mib(median.idle)})`,
    note: `target ≤ 2 × file + idle = ${mib(allowed)}: ${
      median.peak <= allowed ? "met" : "MISSED"
    }; median of ${passes.length} passes, the pass took ${(median.ms / 1000).toFixed(1)} s`,
  });
}
