/**
 * The cloud workbench at size: loading generated estates of 1,000, 10,000
 * and 100,000 assets (3 edges per asset) from generic JSON through
 * `load_dataset`, with the resident memory it leaves, and `completion/complete`
 * for `ref` through an in-memory MCP client beside the same match written as
 * a straight loop over the assets (target: median ≤ 5 ms in process).
 *
 * Run with `deno bench --no-prompt --allow-read --allow-write --allow-env tests/cloud_completion_bench.ts`.
 */

import { connect, ok } from "./helpers/in_memory.ts";
import { compareTo, measure, reportMedian } from "./helpers/bench_stats.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import type { Asset } from "../src/cloud/model/records.ts";

const SIZES = [1_000, 10_000, 100_000];
const dir = await Deno.makeTempDir({ prefix: "casefile-cloud-bench-" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

/** The `ref` match as a plain loop: prefix on name, ARN or id, then substring. */
function loopComplete(assets: readonly Asset[], value: string): string[] {
  const needle = value.toLowerCase();
  const starts: string[] = [];
  const contains: string[] = [];
  for (const asset of assets) {
    const keys = [asset.name.toLowerCase(), (asset.arn ?? "").toLowerCase(), asset.id];
    if (keys.some((k) => k.startsWith(needle))) starts.push(asset.name);
    else if (keys.some((k) => k.includes(needle))) contains.push(asset.name);
  }
  return [...starts.sort(), ...contains.sort()].slice(0, 100);
}

for (const size of SIZES) {
  const estate = generateEstate(size);
  const path = `${dir}/estate-${size}.json`;
  await Deno.writeTextFile(path, JSON.stringify(estate.records));
  const megabytes = (await Deno.stat(path)).size / 1e6;
  const session = await connect({ roots: [dir], workbenches: [cloudWorkbenchWith()] });
  const before = Deno.memoryUsage().rss;
  let loaded = 0;
  Deno.bench({
    name: `load_dataset of ${size} assets (${megabytes.toFixed(1)} MB generic JSON)`,
    group: `load ${size}`,
    n: size >= 100_000 ? 3 : 5,
    warmup: 0,
    fn: async (b) => {
      await measure(`load ${size}`, b, async () => {
        await ok(session.client, "load_dataset", {
          path,
          name: `estate${loaded++}`,
          replace: true,
        });
      });
    },
  });
  Deno.bench({
    name: `resident memory after loading ${size} assets`,
    group: `load ${size}`,
    n: 1,
    warmup: 0,
    fn: () => {
      console.log(
        `${size} assets: RSS grew ${((Deno.memoryUsage().rss - before) / 1e6).toFixed(0)} MB ` +
          `over ${loaded} loads (kept: up to 16 datasets)`,
      );
    },
  });
  reportMedian(`load_dataset, ${size} assets`, `load ${size}`, null);
  for (const value of ["lambda", "function-1"]) {
    Deno.bench({
      name: `complete ref "${value}" over ${size} assets (MCP client)`,
      group: `complete ${size} ${value}`,
      baseline: true,
      n: 50,
      warmup: 5,
      fn: async (b) => {
        await measure(`complete ${size} ${value}`, b, () =>
          session.client.complete({
            ref: { type: "ref/resource", uri: "cloudg://assets/{+ref}" },
            argument: { name: "ref", value },
          }));
      },
    });
    Deno.bench({
      name: `complete ref "${value}" over ${size} assets (straight loop)`,
      group: `complete ${size} ${value}`,
      n: 50,
      warmup: 5,
      fn: async (b) => {
        await measure(`loop ${size} ${value}`, b, () => loopComplete(estate.records.assets, value));
      },
    });
    reportMedian(`completion ref "${value}", ${size} assets`, `complete ${size} ${value}`, 5);
    compareTo(
      `completion ref "${value}", ${size} assets vs loop`,
      `complete ${size} ${value}`,
      `loop ${size} ${value}`,
      null,
    );
  }
}
