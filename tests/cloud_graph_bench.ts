/**
 * Benchmarks of the graph queries on generated estates of 1,000, 10,000 and
 * 100,000 assets (3 edges per asset), each beside a straight loop over the
 * record arrays doing the nearest array-only equivalent: neighbors against
 * one scan of the edges, find_paths against a breadth-first search that
 * rescans the edges per level, blast_radius against the same rescanning
 * walk over dependency directions, top_risks against one pass over the
 * findings. Derived graphs are built (and timed) once before the queries.
 */

import { benchPair } from "./helpers/bench_stats.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";
import { makeView } from "./helpers/cloud_estate.ts";
import { scanNeighbors, scanPath, scanRisks } from "./helpers/cloud_scans.ts";
import { neighbors } from "../src/cloud/graph/neighborhood.ts";
import { findPaths } from "../src/cloud/graph/paths.ts";
import { blastRadius } from "../src/cloud/graph/blast_radius.ts";
import { topRisks } from "../src/cloud/graph/risk.ts";
import { INTERNET_NODE } from "../src/cloud/graph/internet.ts";
import { dependencyPair } from "../src/cloud/graph/dependency_graph.ts";
import type { DatasetRecords } from "../src/cloud/model/records.ts";

function scanDependents(records: DatasetRecords, id: string, maxDepth: number): number {
  const seen = new Set([id]);
  let frontier = new Set([id]);
  for (let depth = 1; depth <= maxDepth && frontier.size > 0; depth++) {
    const next = new Set<string>();
    for (const e of records.edges) {
      const pair = dependencyPair(e);
      if (pair === null || !frontier.has(pair[1]) || seen.has(pair[0])) continue;
      seen.add(pair[0]);
      next.add(pair[0]);
    }
    frontier = next;
  }
  return seen.size - 1;
}

for (const size of [1_000, 10_000, 100_000]) {
  const estate = generateEstate(size, 2026);
  const view = makeView(estate.records);
  const records = estate.records;
  const vm = estate.byType.get("EC2")![0]!;
  const db = estate.byType.get("RDS_INSTANCE")![0]!;
  const key = estate.byType.get("KMS_KEY")![0]!;
  const label = `${size.toLocaleString("en")} assets`;
  const runs = size >= 100_000 ? 5 : 20;
  const started = performance.now();
  neighbors(view, vm);
  findPaths(view, { source: INTERNET_NODE, target: db });
  blastRadius(view, key);
  topRisks(view);
  console.log(`${label}: derived graphs built in ${(performance.now() - started).toFixed(0)} ms`);

  const cases: [string, () => unknown, () => unknown][] = [
    ["neighbors", () => neighbors(view, vm, { depth: 2 }), () => scanNeighbors(records, vm)],
    [
      "find_paths",
      () => findPaths(view, { source: INTERNET_NODE, target: db }),
      () => scanPath(records, "0.0.0.0/0", db, 6),
    ],
    ["blast_radius", () => blastRadius(view, key), () => scanDependents(records, key, 10)],
    ["top_risks", () => topRisks(view), () => scanRisks(records, 10)],
  ];
  for (const [name, query, baseline] of cases) {
    benchPair(
      { name: `${name} (${label})`, key: `${name}@${size}`, fn: query },
      {
        name: `${name} baseline: loop over arrays (${label})`,
        key: `${name}-baseline@${size}`,
        fn: baseline,
      },
      { group: `${name} ${size}`, runs, label: `${name}, ${label}`, versus: "array loop" },
    );
  }
}
