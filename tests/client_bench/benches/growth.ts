/**
 * Growth curves: the procedure walk, the string search (fresh target) and
 * procedure completion on a small (~1 MiB), a medium (~10 MiB) and the
 * largest library, in one table, each beside its peer where one exists
 * (`nm -D --defined-only`, `strings -a` + `strings -a -el`).
 *
 * @module
 */

import { type BenchContext, BenchServer, onPath, runPeer, spread } from "../harness.ts";
import type { LibraryFile } from "../../helpers/largest_library.ts";
import { libraryFor, mib, rootOf } from "../library.ts";
import { walkProcedures } from "../walk.ts";

const SIZES = ["small", "medium", "large"] as const;

async function medianOf(runs: number, fn: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const ms = await fn();
    if (i > 0) times.push(ms);
  }
  return spread(times).median;
}

async function curvesFor(ctx: BenchContext, library: LibraryFile): Promise<string[]> {
  await using server = await BenchServer.start({ roots: [rootOf(library.path)] });
  await server.call("open_binary", { path: library.path });
  let procedures = 0;
  const walk = await medianOf(ctx.runs, async () => {
    const tally = await walkProcedures(server);
    procedures = tally.items;
    return tally.ms;
  });
  const nm = await onPath("nm")
    ? await medianOf(
      ctx.runs,
      async () => (await runPeer(["nm", "-D", "--defined-only", library.path])).ms,
    )
    : NaN;
  const strings = await medianOf(ctx.runs, async () => {
    await server.call("close_binary");
    await server.call("open_binary", { path: library.path });
    return (await server.call("search_strings", { query: "error", limit: 10 })).ms;
  });
  const stringsPeer = await onPath("strings")
    ? await medianOf(ctx.runs, async () =>
      (await runPeer(["strings", "-a", library.path])).ms +
      (await runPeer(["strings", "-a", "-el", library.path])).ms)
    : NaN;
  const completion = await medianOf(ctx.runs, async () => {
    const began = performance.now();
    await server.client.complete({
      ref: { type: "ref/prompt", name: "investigate_feature" },
      argument: { name: "procedure", value: "0x1" },
    });
    return performance.now() - began;
  });
  const name = library.path.split("/").pop();
  const ratio = (ours: number, peer: number): string =>
    Number.isFinite(peer) ? ` (${(ours / peer).toFixed(2)}×)` : "";
  return [
    name ?? library.path,
    mib(library.size),
    String(procedures),
    `${walk.toFixed(1)} ms${ratio(walk, nm)}`,
    `${nm.toFixed(1)} ms`,
    `${strings.toFixed(1)} ms${ratio(strings, stringsPeer)}`,
    `${stringsPeer.toFixed(1)} ms`,
    `${completion.toFixed(1)} ms`,
  ];
}

/** Runs the growth curves. */
export default async function growth(ctx: BenchContext): Promise<void> {
  const rows: string[][] = [];
  for (const size of SIZES) {
    const library = libraryFor(size);
    ctx.log(`${size}: ${library.path} (${mib(library.size)})`);
    rows.push([size, ...await curvesFor(ctx, library)]);
  }
  ctx.table({
    title: "Growth: the same measures on a small, a medium and the largest library (medians)",
    columns: [
      "size",
      "library",
      "file",
      "procedures",
      "every list_procedures page (× nm)",
      "`nm -D --defined-only`",
      "search_strings, fresh target (× strings)",
      "`strings -a` + `strings -a -el`",
      "procedure completion `0x1`",
    ],
    rows,
  });
}
