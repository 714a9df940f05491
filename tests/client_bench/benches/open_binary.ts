/**
 * `open_binary` of the largest library on the machine (after `close_binary`,
 * so every open reads, hashes and identifies the file again) beside
 * `openssl dgst -sha256` of the same file. Target ≤ 2×.
 *
 * @module
 */

import { type BenchContext, BenchServer, onPath, paired, runPeer } from "../harness.ts";
import { benchLibrary, mib, rootOf } from "../library.ts";

/** Runs the open measure. */
export default async function openBinary(ctx: BenchContext): Promise<void> {
  if (!await onPath("openssl")) return ctx.log("skip: openssl is not installed");
  const library = benchLibrary(ctx);
  await using server = await BenchServer.start({ roots: [rootOf(library.path)] });
  ctx.pairedResult(
    await paired(`open_binary ${library.name} (${mib(library.size)})`, {
      peer: "`openssl dgst -sha256`",
      runs: ctx.runs,
      target: 2,
      subject: async () => {
        await server.call("close_binary");
        return (await server.call("open_binary", { path: library.path })).ms;
      },
      peerRun: async () => (await runPeer(["openssl", "dgst", "-sha256", library.path])).ms,
    }),
  );
}
