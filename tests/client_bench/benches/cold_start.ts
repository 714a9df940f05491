/**
 * Stdio cold start: spawn to a finished `initialize` handshake, our server
 * with the `deno task start` flags (roots /usr/bin and /usr/lib, the demo
 * estate) beside the minimal SDK server under the same flags. Target ≤ 1.3×.
 * A second row times spawn to the first `tools/list` answered, by which time
 * every workbench is built (no target).
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
import { type BenchContext, BenchServer, minimalServerTransport, paired } from "../harness.ts";

/** Spawn to a finished handshake, or (`ready`) to the answer of the first `tools/list`. */
async function peerStart(ready = false): Promise<number> {
  const transport = minimalServerTransport();
  const client = new Client({ name: "peer", version: "0.0.0" });
  const began = performance.now();
  await client.connect(transport);
  if (ready) await client.listTools();
  const ms = performance.now() - began;
  await client.close();
  return ms;
}

/** Runs the cold-start measure. */
export default async function coldStart(ctx: BenchContext): Promise<void> {
  const start = async (): Promise<BenchServer> =>
    await BenchServer.start({ roots: ["/usr/bin", "/usr/lib"], args: ["--demo"] });
  ctx.pairedResult(
    await paired("stdio cold start (spawn → initialized)", {
      peer: "minimal SDK server",
      runs: ctx.runs,
      target: 1.3,
      subject: async () => {
        const server = await start();
        const ms = server.startMs;
        await server.close();
        return ms;
      },
      peerRun: () => peerStart(),
    }),
  );
  // The workbenches are built after the handshake: the first tools/list shows what that costs.
  ctx.pairedResult(
    await paired("stdio start to the first tools/list answered", {
      peer: "minimal SDK server",
      runs: ctx.runs,
      subject: async () => {
        const server = await start();
        const ms = server.readyMs;
        await server.close();
        return ms;
      },
      peerRun: () => peerStart(true),
    }),
  );
}
