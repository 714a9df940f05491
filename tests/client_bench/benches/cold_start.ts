/**
 * Stdio cold start: spawn to a finished `initialize` handshake, our server
 * with the `deno task start` flags (roots /usr/bin and /usr/lib, the demo
 * estate) beside the minimal SDK server under the same flags. Target ≤ 1.3×.
 * A second row times spawn to the first `tools/list` answered (arrived at
 * the client; answered from the generated tool catalogs while the workbenches
 * are still being built), also against 1.3×; a third, to when the SDK client
 * returns that listing, having compiled a validator for each tool's output
 * schema (client work that grows with the tool list: the peer has one tool
 * without one); a fourth, spawn to the first `tools/call` answered after the
 * listing (a cheap tool, `privacy_status`, against the peer's `ping`), which
 * waits for every workbench to be built: the full cost of starting.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type BenchContext, minimalServerTransport, paired, serverTransport } from "../harness.ts";

/**
 * How far a start goes: the handshake; the first tools/list, as it arrives
 * (`list`) or once the SDK client has also compiled a validator for every
 * tool's output schema (`listed`); then the first tools/call.
 */
type Stage = "initialize" | "list" | "listed" | "call";

/** Spawn to the answer of `stage`, over a fresh `transport`; `tool` is the call's tool. */
async function timedStart(
  transport: StdioClientTransport,
  stage: Stage,
  tool: string,
): Promise<number> {
  const client = new Client({ name: "casefile-client-bench", version: "0.0.0" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    stderr += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
  });
  const began = performance.now();
  try {
    await client.connect(transport);
    if (stage === "initialize") return performance.now() - began;
    // The client's handler is set by connect: note when the listing arrives, before the client
    // parses it into validators.
    let arrived = 0;
    const handle = transport.onmessage!;
    transport.onmessage = (message, extra) => {
      if (arrived === 0 && "result" in message && "tools" in (message.result ?? {})) {
        arrived = performance.now() - began;
      }
      handle(message, extra);
    };
    await client.listTools();
    if (stage === "list") return arrived;
    if (stage === "call") {
      const result = await client.callTool({ name: tool, arguments: {} });
      if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`);
    }
    return performance.now() - began;
  } catch (error) {
    throw new Error(`the ${stage} start failed: ${error}\n${stderr}`);
  } finally {
    await client.close().catch(() => {});
  }
}

/** Runs the cold-start measure. */
export default async function coldStart(ctx: BenchContext): Promise<void> {
  const ours = (stage: Stage): Promise<number> =>
    timedStart(
      serverTransport({ roots: ["/usr/bin", "/usr/lib"], args: ["--demo"] }),
      stage,
      "privacy_status",
    );
  const peer = (stage: Stage): Promise<number> =>
    timedStart(minimalServerTransport(), stage, "ping");
  const rows: [Stage, string][] = [
    ["initialize", "stdio cold start (spawn → initialized)"],
    ["list", "stdio start to the first tools/list answered (arrived at the client)"],
    ["listed", "… and returned by the SDK client (output-schema validators compiled)"],
    ["call", "stdio start to the first tools/call answered (after tools/list)"],
  ];
  for (const [stage, name] of rows) {
    ctx.pairedResult(
      await paired(name, {
        peer: "minimal SDK server",
        runs: ctx.runs,
        ...(stage === "initialize" || stage === "list" ? { target: 1.3 } : {}),
        subject: () => ours(stage),
        peerRun: () => peer(stage),
      }),
    );
  }
}
