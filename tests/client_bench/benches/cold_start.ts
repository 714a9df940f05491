/**
 * Stdio cold start, our server with the `deno task start` flags (roots
 * /usr/bin and /usr/lib, the demo estate) beside the minimal SDK server under
 * the same flags, each spawned once per run and timed from spawn to:
 * the finished `initialize` handshake (target ≤ 1.3×); the first `tools/list`
 * answer arriving at the client (answered from the generated tool catalogs
 * while the workbenches are still being built; also ≤ 1.3×); the SDK client
 * returning that listing, having compiled a validator for each tool's output
 * schema (client work that grows with the tool list: the peer has one tool
 * without one); and the first `tools/call` answered after the listing (a
 * cheap tool, `privacy_status`, against the peer's `ping`), which waits for
 * every workbench to be built: the full cost of starting.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type BenchContext,
  minimalServerTransport,
  type PairedResult,
  serverTransport,
  spread,
} from "../harness.ts";
import { collectStderr } from "../../helpers/spawn.ts";

/** Milliseconds from spawn to each stage of one start. */
interface StartTimes {
  initialize: number;
  list: number;
  listed: number;
  call: number;
}

/** Spawns over a fresh `transport` and times each stage; `tool` is the call's tool. */
async function timedStart(transport: StdioClientTransport, tool: string): Promise<StartTimes> {
  const client = new Client({ name: "casefile-client-bench", version: "0.0.0" });
  const stderr = collectStderr(transport);
  const began = performance.now();
  try {
    await client.connect(transport);
    const initialize = performance.now() - began;
    // The client's handler is set by connect: note when the listing arrives, before the client
    // turns its output schemas into validators.
    let list = 0;
    const handle = transport.onmessage!;
    transport.onmessage = (...[message, extra]: Parameters<typeof handle>) => {
      if (list === 0 && "result" in message && "tools" in (message.result ?? {})) {
        list = performance.now() - began;
      }
      handle(message, extra);
    };
    await client.listTools();
    const listed = performance.now() - began;
    const result = await client.callTool({ name: tool, arguments: {} });
    if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`);
    return { initialize, list, listed, call: performance.now() - began };
  } catch (error) {
    throw new Error(`the start failed: ${error}\n${stderr()}`);
  } finally {
    await client.close().catch(() => {});
  }
}

/** Runs the cold-start measure. */
export default async function coldStart(ctx: BenchContext): Promise<void> {
  const ours: StartTimes[] = [];
  const theirs: StartTimes[] = [];
  for (let i = 0; i <= ctx.runs; i++) {
    const subject = await timedStart(
      serverTransport({ roots: ["/usr/bin", "/usr/lib"], args: ["--demo"] }),
      "privacy_status",
    );
    const peer = await timedStart(minimalServerTransport(), "ping");
    if (i === 0) continue;
    ours.push(subject);
    theirs.push(peer);
  }
  const rows: [keyof StartTimes, string, number | null][] = [
    ["initialize", "stdio cold start (spawn → initialized)", 1.3],
    ["list", "stdio start to the first tools/list answered (arrived at the client)", 1.3],
    ["listed", "… and returned by the SDK client (output-schema validators compiled)", null],
    ["call", "stdio start to the first tools/call answered (after tools/list)", null],
  ];
  for (const [stage, label, target] of rows) {
    const subject = ours.map((times) => times[stage]);
    const peerTimes = theirs.map((times) => times[stage]);
    const result: PairedResult = {
      label,
      peer: "minimal SDK server",
      subject,
      peerTimes,
      ratios: spread(subject.map((value, i) => value / peerTimes[i]!)),
      target,
    };
    ctx.pairedResult(result);
  }
}
