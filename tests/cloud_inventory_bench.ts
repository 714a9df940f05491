/**
 * Cost of `get_asset` and `find_assets` through an in-memory MCP client on
 * generated estates of 1,000, 10,000, 50,000 and 100,000 assets (3 edges per asset,
 * findings on about a tenth), each beside the same question answered by a
 * straight loop over the record arrays in-process (no index, no cache, no
 * protocol). The client side includes JSON-RPC, output-schema validation
 * and the structured copy; the loop has none of that, so the ratio shows
 * what an answer costs end to end against the cheapest possible scan.
 *
 * Run with `deno bench --no-prompt --allow-read --allow-write --allow-env tests/cloud_inventory_bench.ts`.
 */

import { connect } from "./helpers/in_memory.ts";
import { compareTo, measure, reportMedian } from "./helpers/bench_stats.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import type { Asset, DatasetRecords, Edge } from "../src/cloud/model/records.ts";

const SIZES = [1_000, 10_000, 50_000, 100_000];
const QUERY = "lambda-function-1";
const ACCOUNT = "100000000000";
/** Half of cloudg's published medians at 50,000 assets (issue 11), in ms. */
const TARGETS_50K: Record<string, number> = {
  "get_asset": 0.265,
  "find_assets text query, limit 50": 19,
  "find_assets by account, limit 500": 4.7,
};

function openCount(records: DatasetRecords, asset: Asset): number {
  let n = 0;
  for (const f of records.findings) {
    if (!f.is_suppressed && (f.resource_id === asset.id || f.resource_id === asset.arn)) n++;
  }
  return n;
}

function brief(records: DatasetRecords, asset: Asset): Record<string, unknown> {
  return {
    id: asset.id,
    name: asset.name,
    type: asset.asset_type,
    region: asset.region,
    account_id: asset.account_id,
    open_findings: openCount(records, asset),
  };
}

/** get_asset as a loop: find by id, ARN or unique name; scan the edges and findings. */
function loopGetAsset(records: DatasetRecords, ref: string): Record<string, unknown> {
  const asset = records.assets.find((a) => a.id === ref) ??
    records.assets.find((a) => a.arn === ref) ?? records.assets.find((a) => a.name === ref)!;
  const touching: Edge[] = [];
  for (const e of records.edges) {
    if (e.source_id === asset.id || e.target_id === asset.id) touching.push(e);
  }
  const outgoing: Record<string, number> = {};
  const incoming: Record<string, number> = {};
  for (const e of touching) {
    if (e.source_id === asset.id) outgoing[e.edge_type] = (outgoing[e.edge_type] ?? 0) + 1;
    if (e.target_id === asset.id) incoming[e.edge_type] = (incoming[e.edge_type] ?? 0) + 1;
  }
  return {
    ...brief(records, asset),
    relations: { outgoing, incoming, sample: touching.slice(0, 20), total: touching.length },
  };
}

/** find_assets as a loop: filter, sort by name then id, cut a page, brief it. */
function loopFind(
  records: DatasetRecords,
  keep: (a: Asset) => boolean,
  limit: number,
): Record<string, unknown>[] {
  const matches = records.assets.filter(keep)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
  return matches.slice(0, limit).map((a) => brief(records, a));
}

const textMatch = (a: Asset): boolean => {
  const needle = QUERY.toLowerCase();
  return a.name.toLowerCase().includes(needle) || (a.arn ?? "").toLowerCase().includes(needle) ||
    a.id.toLowerCase().includes(needle) ||
    Object.values(a.tags).some((v) => v.toLowerCase().includes(needle));
};

const dir = await Deno.makeTempDir({ prefix: "casefile-inventory-bench-" });
const closers: (() => Promise<void>)[] = [];
globalThis.addEventListener("unload", () => {
  for (const close of closers) void close();
  Deno.removeSync(dir, { recursive: true });
});

for (const n of SIZES) {
  const { records, byType } = generateEstate(n);
  const path = `${dir}/estate-${n}.json`;
  await Deno.writeTextFile(
    path,
    JSON.stringify({ assets: records.assets, edges: records.edges, findings: records.findings }),
  );
  const { client, close } = await connect({
    workbenches: [cloudWorkbenchWith({ datasets: [{ name: "bench", path }] })],
  });
  closers.push(close);
  const status = await client.callTool({ name: "workspace_status", arguments: {} });
  const loaded = (status.structuredContent as { result: { datasets: { assets: number }[] } })
    .result.datasets[0]?.assets;
  if (loaded !== n) throw new Error(`the ${n}-asset estate did not load (got ${loaded})`);
  const instances = byType.get("EC2")!;
  const target = instances[Math.floor(instances.length * 0.73)]!;
  const tool = async (name: string, args: Record<string, unknown>): Promise<void> => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  };
  // Warm the per-version caches (index, adjacency, search text, name order) once.
  await tool("get_asset", { ref: target });
  await tool("find_assets", { query: QUERY, limit: 50 });
  await tool("find_assets", { account_id: ACCOUNT, limit: 500 });

  const cases: [string, () => Promise<void>, () => unknown][] = [
    [
      "get_asset",
      () => tool("get_asset", { ref: target }),
      () => loopGetAsset(records, target),
    ],
    [
      "find_assets text query, limit 50",
      () => tool("find_assets", { query: QUERY, limit: 50 }),
      () => loopFind(records, textMatch, 50),
    ],
    [
      "find_assets by account, limit 500",
      () => tool("find_assets", { account_id: ACCOUNT, limit: 500 }),
      () => loopFind(records, (a) => a.account_id === ACCOUNT, 500),
    ],
  ];
  for (const [label, viaClient, loop] of cases) {
    const subject = `${label}, MCP client (${n} assets)`;
    const peer = `${label}, straight loop (${n} assets)`;
    const runs = n >= 100_000 ? 10 : undefined;
    Deno.bench({
      name: subject,
      group: `${label}-${n}`,
      baseline: true,
      n: runs,
      fn: async (b) => await measure(subject, b, viaClient),
    });
    Deno.bench({
      name: peer,
      group: `${label}-${n}`,
      n: runs,
      fn: async (b) => await measure(peer, b, loop),
    });
    compareTo(`${label} (${n} assets), MCP client vs straight loop`, subject, peer, null);
    if (n === 50_000) reportMedian(subject, subject, TARGETS_50K[label] ?? null);
  }
}
