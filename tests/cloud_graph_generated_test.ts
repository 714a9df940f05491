import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";
import { makeView } from "./helpers/cloud_estate.ts";
import { findPaths } from "../src/cloud/graph/paths.ts";
import { INTERNET_NODE } from "../src/cloud/graph/internet.ts";
import { neighbors } from "../src/cloud/graph/neighborhood.ts";
import { topRisks } from "../src/cloud/graph/risk.ts";
import { attackPaths } from "../src/cloud/graph/attack_paths.ts";
import { lateralMovementPaths } from "../src/cloud/graph/lateral_movement.ts";
import { graphStats } from "../src/cloud/graph/graph_stats.ts";
import { centralityTop } from "../src/cloud/graph/centrality.ts";
import { blastRadius } from "../src/cloud/graph/blast_radius.ts";

Deno.test("generateEstate() makes exactly N assets and 3N edges, the same for the same seed", () => {
  for (const size of [50, 2000]) {
    const { records } = generateEstate(size, 7);
    strictEqual(records.assets.length, size);
    strictEqual(records.edges.length, 3 * size);
    strictEqual(new Set(records.assets.map((a) => a.id)).size, size);
  }
  deepStrictEqual(generateEstate(300, 3).records, generateEstate(300, 3).records);
  ok(generateEstate(300, 3).records.edges.some((e) => e.cidr === "0.0.0.0/0"));
});

Deno.test("graph queries stay within their bounds on a generated estate", () => {
  const estate = generateEstate(3000, 11);
  const view = makeView(estate.records);
  const db = estate.byType.get("RDS_INSTANCE")![0]!;
  const paths = findPaths(view, { source: INTERNET_NODE, target: db }, {
    mode: "undirected",
    maxPaths: 50,
    maxDepth: 12,
    maxNodesVisited: 5000,
  });
  ok(paths.paths.length <= 50);
  ok(paths.truncated, "a 5,000-expansion budget cannot list 51 paths in this estate");
  ok(paths.bounds_hit!.length > 0);
  const star = neighbors(view, "0.0.0.0/0", { limit: 10 });
  strictEqual(star.node_count, 10);
  ok(star.truncated);
  const risks = topRisks(view, { top: 5 });
  strictEqual(risks.items.length, 5);
  ok(risks.items[0]!.score >= risks.items[4]!.score);
  const attacks = attackPaths(view, { maxPaths: 10 });
  ok(attacks.paths.length <= 10);
  const lateral = lateralMovementPaths(view, { maxChains: 100 });
  ok(lateral.total_found <= 100);
  const stats = graphStats(view);
  strictEqual(stats.edges, 9000);
  ok(stats.graph_edges <= 9000);
  const between = centralityTop(view, { metric: "betweenness", top: 3 });
  ok(between.sampled);
  strictEqual(between.items.length, 3);
  const blast = blastRadius(view, estate.byType.get("KMS_KEY")![0]!, { limit: 5 });
  ok(blast.dependency.items.length <= 5);
});
