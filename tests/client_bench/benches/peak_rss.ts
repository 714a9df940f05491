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
import { benchLibrary, mib, rootOf } from "../library.ts";
import { walkProcedures } from "../walk.ts";

/** One phase of a pass: its own peak (VmHWM after a reset) and the RSS it leaves. */
interface Phase {
  name: string;
  peak: number;
  rss: number;
}

/** What one full pass measured. */
interface Pass {
  idle: number;
  peak: number;
  ms: number;
  phases: Phase[];
}

/**
 * One full pass in a fresh server; its idle RSS, peak and time. The peak is
 * reset before each phase, so each phase reports its own high point; the
 * pass's peak is the highest of them (a reset only ever lowers VmHWM to the
 * RSS of that moment, which the next phase's peak is at least).
 */
async function fullPass(path: string): Promise<Pass> {
  await using server = await BenchServer.start({ roots: [rootOf(path)] });
  const idle = (await server.memory()).rss;
  const phases: Phase[] = [];
  let ms = 0;
  const phase = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    await server.resetPeak();
    const began = performance.now();
    const value = await run();
    ms += performance.now() - began;
    phases.push({ name, ...(await server.memory()) });
    return value;
  };
  await phase("open_binary", () => server.call("open_binary", { path }));
  await phase("binary_overview", () => server.call("binary_overview"));
  const walk = await phase("every list_procedures page", () => walkProcedures(server));
  const addresses = await phase("20 analyze_function", async () => {
    // 20 procedures from offset 1,000, or from the middle of a library with fewer.
    const offset = Math.min(1000, Math.max(0, Math.floor(walk.items / 2) - 10));
    const page = structured(await server.call("list_procedures", { offset, limit: 20 }));
    const items = (page.result as { items: { address: string }[] }).items;
    for (const { address } of items) {
      await server.call("analyze_function", { procedure: address, include_callers: false });
    }
    return items.map((i) => i.address);
  });
  await phase("xrefs (reference index)", () => server.call("xrefs", { address: addresses[0]! }));
  await phase("search_strings", () => server.call("search_strings", { query: "error", limit: 10 }));
  const peak = Math.max(...phases.map((p) => p.peak));
  return { idle, peak, ms, phases };
}

/** Runs the peak-memory measure. */
export default async function peakRss(ctx: BenchContext): Promise<void> {
  const library = benchLibrary(ctx);
  const { name } = library;
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
    }; median of ${passes.length} passes (peaks ${mib(passes[0]!.peak)} to ${
      mib(passes.at(-1)!.peak)
    }), the pass took ${(median.ms / 1000).toFixed(1)} s`,
  });
  let before = median.idle;
  ctx.table({
    title: `peak RSS by phase (the median pass; idle ${mib(median.idle)})`,
    columns: ["phase", "peak during it (VmHWM)", "peak over the RSS before it", "RSS after it"],
    rows: median.phases.map((p) => {
      const row = [p.name, mib(p.peak), mib(p.peak - before), mib(p.rss)];
      before = p.rss;
      return row;
    }),
  });
}
