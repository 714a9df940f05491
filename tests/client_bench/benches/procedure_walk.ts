/**
 * Every `list_procedures` page (500 per page) of the largest library on the
 * machine, the target already open, beside `nm -D --defined-only` on the
 * same file. Target ≤ 2×. Also reports the bytes that crossed the pipe
 * against nm's output, and the transport floor: the same walk's pages,
 * stored and answered in order by a minimal SDK server, beside nm too.
 *
 * @module
 */

import { type BenchContext, BenchServer, onPath, paired, runPeer } from "../harness.ts";
import { benchLibrary, mib, rootOf } from "../library.ts";
import { startPageFloor } from "../page_floor.ts";
import { walkProcedures, type WalkTally } from "../walk.ts";

/** Runs the procedure-walk measure. */
export default async function procedureWalk(ctx: BenchContext): Promise<void> {
  if (!await onPath("nm")) return ctx.log("skip: nm is not installed");
  const library = benchLibrary(ctx);
  const { name } = library;
  await using server = await BenchServer.start({ roots: [rootOf(library.path)] });
  await server.call("open_binary", { path: library.path });
  let last: WalkTally | null = null;
  let nmBytes = 0;
  ctx.pairedResult(
    await paired(`every list_procedures page of ${name} (target open)`, {
      peer: "`nm -D --defined-only`",
      runs: ctx.runs,
      target: 2,
      subject: async () => {
        last = await walkProcedures(server);
        return last.ms;
      },
      peerRun: async () => {
        const run = await runPeer(["nm", "-D", "--defined-only", library.path]);
        nmBytes = run.stdoutBytes;
        return run.ms;
      },
    }),
  );
  const tally = last as WalkTally | null;
  if (!tally) return;
  ctx.figure({
    label: `list_procedures walk of ${name}: bytes over the pipe`,
    value: `${mib(tally.bytes)} for ${tally.items} procedures in ${tally.pages} pages`,
    note: `nm -D --defined-only writes ${mib(nmBytes)}`,
  });
  // The floor: every page of this walk, stored, answered in the same order by a minimal SDK
  // server (page 0 alone would be smaller than the average page: its procedures have no names).
  const pages: Record<string, unknown>[] = [];
  await walkProcedures(server, { keep: pages });
  await using floor = await startPageFloor(pages, `${ctx.tempDir}/pages.json`);
  ctx.pairedResult(
    await paired(
      `transport floor: the walk's ${tally.pages} pages stored, from a minimal SDK server`,
      {
        peer: "`nm -D --defined-only`",
        runs: ctx.runs,
        target: null,
        subject: () => floor.replay(tally.pages),
        peerRun: async () => (await runPeer(["nm", "-D", "--defined-only", library.path])).ms,
      },
    ),
  );
}
