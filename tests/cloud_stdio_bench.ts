/**
 * The issue 11 calls over stdio beside the same calls through an in-memory
 * MCP client, on one generated estate (50,000 assets by default,
 * `CLOUD_BENCH_ASSETS`): `get_asset`, `find_assets` with a text query
 * (limit 50) and `find_assets` by account (limit 500). The stdio side runs
 * the real server (`deno run mod.ts --root DIR --dataset bench=FILE
 * --toolsets cloud`) and talks to it with the SDK's stdio client transport,
 * so its figures add process-to-process JSON framing to the in-memory ones.
 *
 *   deno bench --no-prompt --allow-read --allow-write --allow-run --allow-env tests/cloud_stdio_bench.ts
 */

import { Client } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { childEnv, collectStderr, denoArgs } from "./helpers/spawn.ts";
import { connect } from "./helpers/in_memory.ts";
import { compareTo, measure, reportMedian } from "./helpers/bench_stats.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";

const SIZE = Number(Deno.env.get("CLOUD_BENCH_ASSETS") ?? "50000");
const QUERY = "lambda-function-1";
const ACCOUNT = "100000000000";

const { records, byType } = generateEstate(SIZE);
const dir = await Deno.makeTempDir({ prefix: "casefile-stdio-bench-" });
const path = `${dir}/estate.json`;
await Deno.writeTextFile(
  path,
  JSON.stringify({ assets: records.assets, edges: records.edges, findings: records.findings }),
);
const sizeMb = (await Deno.stat(path)).size / 2 ** 20;

const memory = await connect({
  workbenches: [cloudWorkbenchWith({ datasets: [{ name: "bench", path }] })],
});
const transport = new StdioClientTransport({
  command: Deno.execPath(),
  args: denoArgs(["--root", dir, "--dataset", `bench=${path}`, "--toolsets", "cloud"], {
    allowRead: [dir],
  }),
  env: childEnv(),
  stderr: "pipe",
});
const stderr = collectStderr(transport);
const stdio = new Client({ name: "casefile-stdio-bench", version: "0.0.0" });
const spawnStart = performance.now();
await stdio.connect(transport);

globalThis.addEventListener("unload", () => {
  void stdio.close();
  void memory.close();
  Deno.removeSync(dir, { recursive: true });
});

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<void> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    throw new Error(`${name} failed: ${JSON.stringify(result.content)}; stderr:\n${stderr()}`);
  }
}

async function loadedAssets(client: Client): Promise<number | undefined> {
  const status = await client.callTool({ name: "workspace_status", arguments: {} });
  return (status.structuredContent as { result: { datasets: { assets: number }[] } })
    .result.datasets[0]?.assets;
}

for (const [side, client] of [["in-memory", memory.client], ["stdio", stdio]] as const) {
  const got = await loadedAssets(client);
  if (got !== SIZE) throw new Error(`${side}: the estate did not load (${got}); ${stderr()}`);
}
const readyMs = performance.now() - spawnStart;
console.log(
  `estate: ${SIZE} assets, ${records.edges.length} edges, ${records.findings.length} findings, ` +
    `${sizeMb.toFixed(1)} MB; stdio server spawned and loaded in ${readyMs.toFixed(0)} ms`,
);

const instances = byType.get("EC2")!;
const target = instances[Math.floor(instances.length * 0.73)]!;
const CASES: [string, string, Record<string, unknown>][] = [
  ["get_asset", "get_asset", { ref: target }],
  ["find_assets text query, limit 50", "find_assets", { query: QUERY, limit: 50 }],
  ["find_assets by account, limit 500", "find_assets", { account_id: ACCOUNT, limit: 500 }],
];
// Warm the per-version caches on both servers.
for (const [, name, args] of CASES) {
  await call(memory.client, name, args);
  await call(stdio, name, args);
}

for (const [label, name, args] of CASES) {
  const inMemory = `${label}, in-memory (${SIZE} assets)`;
  const overStdio = `${label}, stdio (${SIZE} assets)`;
  Deno.bench({ name: inMemory, group: label, baseline: true }, async (b) => {
    await measure(inMemory, b, () => call(memory.client, name, args));
  });
  Deno.bench({ name: overStdio, group: label }, async (b) => {
    await measure(overStdio, b, () => call(stdio, name, args));
  });
  reportMedian(inMemory, inMemory, null);
  reportMedian(overStdio, overStdio, null);
  compareTo(`${label}: stdio vs in-memory`, overStdio, inMemory, null);
}
