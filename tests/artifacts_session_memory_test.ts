/**
 * Memory is returned when a session closes: an HTTP server (spawned as a
 * user runs it, no GC flags) inventories a tar of 20,000 long-named members
 * in one session, whose snapshot it retains (about 80 MiB of heap); the
 * client then ends the session (DELETE), and the server's RSS must fall back
 * near its idle level on its own (V8's memory reducer collects an idle heap
 * within seconds; nothing forces a collection).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { processMemory } from "./client_bench/harness.ts";
import { concat, paxPayload, TAR_END, tarData, tarHeader } from "./helpers/archives.ts";
import { startHttpServer } from "./helpers/spawn.ts";

const MIB = 1024 * 1024;

/**
 * Writes a tar of `count` small text members, each named by a pax header with
 * a 3,000-byte path (15 directories deep), so that what a snapshot of it
 * retains (every occurrence's logical path) is large: about 4 KiB per member.
 */
async function writeLongPathTar(path: string, count: number): Promise<void> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const writer = file.writable.getWriter();
  const deep = Array.from({ length: 15 }, (_, k) => String(k).padEnd(199, "p")).join("/");
  for (let i = 0; i < count; i++) {
    const data = new TextEncoder().encode(`member ${i}\n`);
    const pax = paxPayload([["path", `d${i % 100}/${deep}/m${i}.txt`]]);
    await writer.write(concat([
      tarHeader({ name: "pax", typeflag: "x", size: pax.length }),
      tarData(pax),
      tarHeader({ name: `m${i}.txt`, size: data.length }),
      tarData(data),
    ]));
  }
  await writer.write(TAR_END);
  await writer.close();
}

Deno.test("closing an HTTP session returns the memory its inventory held", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const count = 20_000;
    await writeLongPathTar(join(root, "many.tar"), count);
    await using http = await startHttpServer({ roots: [root] });
    const pid = http.proc.child.pid;
    const idle = (await processMemory(pid)).rss;

    const transport = new StreamableHTTPClientTransport(new URL(http.url));
    const client = new Client({ name: "casefile-session-memory", version: "0.0.0" });
    await client.connect(transport);
    await client.callTool({ name: "open_binary", arguments: { path: join(root, "many.tar") } });
    const inventory = await client.callTool(
      { name: "inventory_artifact", arguments: { max_entries: 100_000, occurrence_limit: 10 } },
      undefined,
      { timeout: 300_000 },
    ) as { isError?: boolean; structuredContent?: { result: { manifest: { complete: boolean } } } };
    assert.notEqual(inventory.isError, true, JSON.stringify(inventory));
    assert.equal(inventory.structuredContent?.result.manifest.complete, true);
    const loaded = (await processMemory(pid)).rss;
    const growth = loaded - idle;
    // The session holds a snapshot of 20,000 occurrences, nodes and edges and its pages.
    assert.ok(
      growth > 128 * MIB,
      `the inventory grew RSS by only ${(growth / MIB).toFixed(1)} MiB`,
    );

    await transport.terminateSession();
    await client.close();
    // What an idle server keeps after serving the session: the JIT's code and feedback, the
    // heap's headroom after a full collection and the allocator's arenas. Measured a full
    // minute after closing, alone on a quiet machine: 35-38 % of the growth (about 100 of
    // 270 MiB); an earlier build kept 26 %. With the session's snapshot still referenced from
    // anywhere, RSS settled at 58 % of the growth (143 of 245 MiB): 46 % lies between, with
    // room for a loaded machine's slower collection (40 % failed once under load).
    const allowed = idle + 0.46 * growth;
    let rss = loaded;
    for (let waited = 0; waited < 60_000 && rss > allowed; waited += 500) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      rss = (await processMemory(pid)).rss;
    }
    assert.ok(
      rss <= allowed,
      `RSS ${(rss / MIB).toFixed(1)} MiB a minute after the session closed; idle ${
        (idle / MIB).toFixed(1)
      } MiB, with the session ${(loaded / MIB).toFixed(1)} MiB`,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
