/**
 * `search_strings` on the largest library on the machine, each run in a
 * freshly opened target (so the string scan is part of the time), beside
 * GNU `strings`: the ASCII search beside `strings -a`, the UTF-16LE search
 * beside `strings -a -el`, and both encodings beside both runs. Target ≤ 2×.
 *
 * @module
 */

import { type BenchContext, BenchServer, onPath, paired, runPeer } from "../harness.ts";
import { benchLibrary, rootOf } from "../library.ts";

const MEASURES = [
  { encoding: "ascii", peer: "`strings -a`", argv: [["-a"]] },
  { encoding: "utf-16le", peer: "`strings -a -el`", argv: [["-a", "-el"]] },
  { encoding: "any", peer: "`strings -a` + `strings -a -el`", argv: [["-a"], ["-a", "-el"]] },
] as const;

/** Runs the string-search measures. */
export default async function searchStrings(ctx: BenchContext): Promise<void> {
  if (!await onPath("strings")) return ctx.log("skip: strings is not installed");
  const library = benchLibrary(ctx);
  const { name } = library;
  await using server = await BenchServer.start({ roots: [rootOf(library.path)] });
  for (const measure of MEASURES) {
    ctx.pairedResult(
      await paired(`search_strings encoding=${measure.encoding} on ${name} (fresh target)`, {
        peer: measure.peer,
        runs: ctx.runs,
        target: 2,
        subject: async () => {
          await server.call("close_binary");
          await server.call("open_binary", { path: library.path });
          const call = await server.call("search_strings", {
            query: "error",
            encoding: measure.encoding,
            limit: 10,
          });
          return call.ms;
        },
        peerRun: async () => {
          let ms = 0;
          for (const flags of measure.argv) {
            ms += (await runPeer(["strings", ...flags, library.path])).ms;
          }
          return ms;
        },
      }),
    );
  }
}
