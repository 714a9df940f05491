/**
 * Stdio cold start: spawn to a finished `initialize` handshake, our server
 * with the `deno task start` flags (roots /usr/bin and /usr/lib, the demo
 * estate) beside the minimal SDK server under the same flags. Target ≤ 1.3×.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type BenchContext, BenchServer, paired, SRC_DIR } from "../harness.ts";

const PEER = new URL("../peers/minimal_server.ts", import.meta.url).pathname;

async function peerStart(): Promise<number> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "--no-prompt",
      "--v8-flags=--max-semi-space-size=2",
      `--allow-read=/usr/bin,/usr/lib,${SRC_DIR}`,
      PEER,
    ],
    stderr: "pipe",
  });
  const client = new Client({ name: "peer", version: "0.0.0" });
  const began = performance.now();
  await client.connect(transport);
  const ms = performance.now() - began;
  await client.close();
  return ms;
}

/** Runs the cold-start measure. */
export default async function coldStart(ctx: BenchContext): Promise<void> {
  ctx.pairedResult(
    await paired("stdio cold start (spawn → initialized)", {
      peer: "minimal SDK server",
      runs: ctx.runs,
      target: 1.3,
      subject: async () => {
        const server = await BenchServer.start({
          roots: ["/usr/bin", "/usr/lib"],
          args: ["--demo"],
        });
        const ms = server.startMs;
        await server.close();
        return ms;
      },
      peerRun: peerStart,
    }),
  );
}
