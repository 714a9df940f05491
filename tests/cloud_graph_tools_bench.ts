/**
 * The graph tools `neighbors` and `find_paths` called through an in-memory
 * MCP client on generated estates of 1,000, 10,000 and 100,000 assets (3
 * edges per asset), each beside a straight loop over the record arrays
 * answering the nearest array-only question: one scan of the edges for the
 * neighbours, and a breadth-first search that rescans the edges per level
 * for a path from the internet to a database. The tool timings include the
 * whole round trip: argument validation, reference resolution, the query,
 * output-schema validation and JSON transport.
 *
 * Each estate is written to a temporary JSON file and loaded the way an
 * operator's `--dataset` is; the first call of each tool (which builds the
 * derived graphs) is made and timed once before the benches.
 *
 * Run with `deno bench --no-prompt -A tests/cloud_graph_tools_bench.ts`.
 */

import type { Client } from "@modelcontextprotocol/sdk/client";
import { benchPair } from "./helpers/bench_stats.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";
import { scanNeighbors, scanPath } from "./helpers/cloud_scans.ts";
import { connect, ok } from "./helpers/in_memory.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";

async function timed(label: string, run: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await run();
  console.log(`${label} in ${(performance.now() - started).toFixed(0)} ms`);
}

const dir = Deno.makeTempDirSync({ prefix: "graph-tools-bench-" });
const closers: (() => Promise<void>)[] = [];

for (const size of [1_000, 10_000, 100_000]) {
  const estate = generateEstate(size, 2026);
  const records = estate.records;
  const path = `${dir}/estate-${size}.json`;
  Deno.writeTextFileSync(path, JSON.stringify(records));
  const label = `${size.toLocaleString("en")} assets`;
  const vm = estate.byType.get("EC2")![0]!;
  const db = estate.byType.get("RDS_INSTANCE")![0]!;
  const dataset = `gen${size}`;
  let client: Client | undefined;
  await timed(`${label}: connected and loaded`, async () => {
    const connected = await connect({
      workbenches: [cloudWorkbenchWith({ datasets: [{ name: dataset, path }] })],
    });
    client = connected.client;
    closers.push(connected.close);
    await ok(client, "dataset_summary", { dataset });
  });
  const c = client!;
  const neighborsArgs = { ref: vm, dataset };
  const pathArgs = { source: "internet", target: db, dataset };
  await timed(`${label}: first neighbors call`, () => ok(c, "neighbors", neighborsArgs));
  await timed(`${label}: first find_paths call`, () => ok(c, "find_paths", pathArgs));
  const runs = size >= 100_000 ? 5 : 20;
  const cases: [string, () => Promise<unknown>, () => unknown][] = [
    ["neighbors", () => ok(c, "neighbors", neighborsArgs), () => scanNeighbors(records, vm)],
    [
      "find_paths",
      () => ok(c, "find_paths", pathArgs),
      () => scanPath(records, "0.0.0.0/0", db, 6),
    ],
  ];
  for (const [name, tool, loop] of cases) {
    benchPair(
      { name: `${name} tool call (${label})`, key: `${name}-tool@${size}`, fn: tool },
      {
        name: `${name} baseline: loop over arrays (${label})`,
        key: `${name}-loop@${size}`,
        fn: loop,
      },
      {
        group: `${name} ${size}`,
        runs,
        label: `${name} tool call, ${label}`,
        versus: "array loop",
      },
    );
  }
}

globalThis.addEventListener("unload", () => {
  for (const close of closers) void close();
  Deno.removeSync(dir, { recursive: true });
});
