/**
 * Where a `find_assets` call spends its time on a generated estate
 * (50,000 assets by default, `CLOUD_BENCH_ASSETS`): the domain search alone
 * (filter and order), the page cut with its cursor, the briefs of the page,
 * `JSON.stringify` of the answer (the server writes it once as text), the
 * SDK's result parse, and the whole call through an in-memory MCP client
 * without and with the client's output-schema check (it checks only once it
 * has listed the tools). Checks first that the by-account answer equals a
 * plain scan's (same ids, same order). Run for the by-account question (500 results), the
 * text query (50 results) and `get_asset`.
 *
 *   deno bench --no-prompt --allow-read --allow-write --allow-env tests/cloud_find_assets_stages_bench.ts
 */

import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { connect } from "./helpers/in_memory.ts";
import { measure, reportMedian } from "./helpers/bench_stats.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { findAssets, projectAsset } from "../src/cloud/inventory/find_assets.ts";
import { paginate } from "../src/cloud/model/cursors.ts";
import { Workspace } from "../src/cloud/workspace/workspace.ts";

const SIZE = Number(Deno.env.get("CLOUD_BENCH_ASSETS") ?? "50000");
const ACCOUNT = "100000000000";
const QUERY = "lambda-function-1";

const { records, byType } = generateEstate(SIZE);
const workspace = new Workspace();
const view = workspace.add("bench", records).dataset;

const dir = await Deno.makeTempDir({ prefix: "casefile-find-stages-" });
const path = `${dir}/estate.json`;
await Deno.writeTextFile(
  path,
  JSON.stringify({ assets: records.assets, edges: records.edges, findings: records.findings }),
);
const plain = await connect({
  workbenches: [cloudWorkbenchWith({ datasets: [{ name: "bench", path }] })],
});
const checked = await connect({
  workbenches: [cloudWorkbenchWith({ datasets: [{ name: "bench", path }] })],
});
await checked.client.listTools();
globalThis.addEventListener("unload", () => {
  void plain.close();
  void checked.close();
  Deno.removeSync(dir, { recursive: true });
});

// The account index must not change the answer: same ids, same order as a plain scan.
{
  const indexed = findAssets(view, { accountId: ACCOUNT }).map((a) => a.id);
  const scanned = records.assets.filter((a) => a.account_id === ACCOUNT)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1))
    .map((a) => a.id);
  if (indexed.length < 500 || indexed.join("\n") !== scanned.join("\n")) {
    throw new Error(`find by account differs from a scan (${indexed.length} vs ${scanned.length})`);
  }
}

const target = byType.get("EC2")![Math.floor(byType.get("EC2")!.length * 0.73)]!;
const filters = (extra: Record<string, unknown>): Record<string, unknown> => ({
  query: "",
  provider: "",
  asset_types: [],
  region: "",
  account_id: "",
  tag: "",
  min_severity: "",
  fields: [],
  sort_by: "name",
  descending: false,
  ...extra,
});

const CASES: [string, Record<string, unknown>, number, Parameters<typeof findAssets>[1]][] = [
  ["by account, 500", { account_id: ACCOUNT, limit: 500 }, 500, { accountId: ACCOUNT }],
  ["text query, 50", { query: QUERY, limit: 50 }, 50, { query: QUERY }],
];

let sample: unknown = null;
for (const [label, args, limit, filter] of CASES) {
  const group = `${label} (${SIZE} assets)`;
  const stage = (name: string, fn: () => unknown): void => {
    const full = `${label}: ${name}`;
    Deno.bench({ name: full, group }, async (b) => await measure(full, b, fn));
    reportMedian(full, full, null);
  };
  stage("domain search", () => findAssets(view, filter));
  const matches = findAssets(view, filter);
  stage("page + cursor", () => paginate(matches, { limit, scope: view, filters: filters(args) }));
  const page = paginate(matches, { limit, scope: view, filters: filters(args) });
  stage("briefs of the page", () => page.items.map((a) => projectAsset(view, a, [])));
  const answer = {
    dataset: "bench",
    ...page,
    items: page.items.map((a) => projectAsset(view, a, [])),
  };
  stage("JSON.stringify", () => JSON.stringify({ result: answer }));
  const wire = {
    structuredContent: { result: answer },
    content: [{ type: "text", text: JSON.stringify({ result: answer }) }],
  };
  stage("SDK result parse (zod)", () => CallToolResultSchema.parse(wire));
  stage("whole call, in-memory client", async () => {
    sample = await plain.client.callTool({ name: "find_assets", arguments: args });
  });
  stage("whole call, client checking the output schema", async () => {
    sample = await checked.client.callTool({ name: "find_assets", arguments: args });
  });
}

Deno.bench({ name: "get_asset: whole call", group: "get_asset" }, async (b) => {
  await measure("get_asset: whole call", b, async () => {
    sample = await plain.client.callTool({ name: "get_asset", arguments: { ref: target } });
  });
});
reportMedian("get_asset: whole call", "get_asset: whole call", null);
Deno.bench({ name: "get_asset: whole call, schema checked", group: "get_asset" }, async (b) => {
  await measure("get_asset: whole call, schema checked", b, async () => {
    sample = await checked.client.callTool({ name: "get_asset", arguments: { ref: target } });
  });
});
reportMedian(
  "get_asset: whole call, schema checked",
  "get_asset: whole call, schema checked",
  null,
);
globalThis.addEventListener("unload", () => {
  if (sample === null) console.log("no call ran");
});
