/**
 * Benchmark of the `top_risks` tool called through an in-memory MCP client
 * on generated estates of 1,000, 10,000 and 100,000 assets (3 edges per
 * asset, findings on about a tenth), beside a straight loop over the
 * finding records that keeps each resource's worst risk and sorts. The loop
 * knows nothing of exposure, dependents or asset mapping, so the ratio is
 * the price of the full score plus the MCP round trip (zod validation of
 * arguments and result, JSON framing). Each estate is written to a temporary
 * file and preloaded as a `--dataset`; one warm-up call builds the derived
 * graphs before timing. Derived views are cached per dataset version, so the
 * warm case measures repeated calls on an unchanged dataset; the cold case
 * toggles the suppression of one finding before each (untimed) call, which
 * bumps the version and drops every cached view, so it measures top_risks
 * right after a change, graphs rebuilt included.
 */

import type { Client } from "@modelcontextprotocol/sdk/client";
import { compareTo, measure, reportMedian } from "./helpers/bench_stats.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";
import { scanRisks } from "./helpers/cloud_scans.ts";
import { connect } from "./helpers/in_memory.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";

async function toggleSuppression(client: Client, dataset: string, id: string): Promise<void> {
  const raw = await client.callTool({
    name: "suppress_findings",
    arguments: { dataset, finding_ids: [id], reason: "bench toggle" },
  });
  const done = (raw.structuredContent as { result: { suppressed: string[] } }).result;
  if (done.suppressed.length === 0) {
    await client.callTool({
      name: "unsuppress_findings",
      arguments: { dataset, finding_ids: [id] },
    });
  }
}

async function topRisksCall(client: Client, dataset: string): Promise<number> {
  const raw = await client.callTool({ name: "top_risks", arguments: { dataset, top: 10 } });
  if (raw.isError) throw new Error(`top_risks failed: ${JSON.stringify(raw.structuredContent)}`);
  return (raw.structuredContent as { result: { items: unknown[] } }).result.items.length;
}

const dir = await Deno.makeTempDir({ prefix: "cloud-findings-bench-" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

for (const size of [1_000, 10_000, 100_000]) {
  const estate = generateEstate(size, 2026);
  const records = estate.records;
  const name = `gen${size}`;
  const path = `${dir}/${name}.json`;
  await Deno.writeTextFile(path, JSON.stringify(records));
  const label = `${size.toLocaleString("en")} assets`;
  const started = performance.now();
  const { client } = await connect({
    workbenches: [cloudWorkbenchWith({ datasets: [{ name, path }] })],
  });
  const rows = await topRisksCall(client, name);
  console.log(
    `${label}: loaded and first top_risks (graphs built) in ${
      (performance.now() - started).toFixed(0)
    } ms, ${rows} rows, ${records.findings.length} findings`,
  );

  const runs = size >= 100_000 ? 5 : 20;
  const subject = `top_risks-client@${size}`;
  const peer = `top_risks-loop@${size}`;
  Deno.bench({
    name: `top_risks through the MCP client (${label})`,
    group: `top_risks ${size}`,
    n: runs,
    warmup: 1,
    fn: async (b) => await measure(subject, b, () => topRisksCall(client, name)),
  });
  Deno.bench({
    name: `top_risks baseline: loop over the findings (${label})`,
    group: `top_risks ${size}`,
    baseline: true,
    n: runs,
    warmup: 1,
    fn: async (b) => await measure(peer, b, () => scanRisks(records, 10)),
  });
  const cold = `top_risks-client-cold@${size}`;
  const toggled = records.findings[0]!.id;
  Deno.bench({
    name: `top_risks through the MCP client right after a change (${label})`,
    group: `top_risks ${size}`,
    n: size >= 100_000 ? 3 : runs,
    warmup: 1,
    fn: async (b) => {
      await toggleSuppression(client, name, toggled);
      await measure(cold, b, () => topRisksCall(client, name));
    },
  });
  compareTo(`top_risks via client, ${label}, vs finding loop`, subject, peer, null);
  compareTo(`top_risks via client after a change, ${label}, vs finding loop`, cold, peer, null);
  reportMedian(`top_risks via client, ${label}`, subject, null);
  reportMedian(`top_risks via client after a change, ${label}`, cold, null);
}
