import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { findPaths } from "../src/cloud/graph/paths.ts";
import { attackPaths, attackPathScore } from "../src/cloud/graph/attack_paths.ts";
import { lateralMovementPaths } from "../src/cloud/graph/lateral_movement.ts";
import { INTERNET_NODE } from "../src/cloud/graph/internet.ts";
import { GraphQueryError } from "../src/cloud/graph/errors.ts";
import { kShortestPaths, searchGraph } from "../src/cloud/graph/path_search.ts";
import { compactGraph } from "../src/cloud/graph/compact_graph.ts";
import { DirectedGraph } from "graphology";
import { asset, makeView, miniEstate } from "./helpers/cloud_estate.ts";

const W = "0.0.0.0/0";

Deno.test("findPaths() from the internet walks the flow graph through the placeholder", () => {
  const out = findPaths(miniEstate(), { source: INTERNET_NODE, target: "db" });
  deepStrictEqual(out.source, {
    id: INTERNET_NODE,
    name: "internet",
    type: "EXTERNAL",
    external: true,
  });
  strictEqual(out.mode, "flow");
  strictEqual(out.total_found, 1);
  strictEqual(out.truncated, false);
  strictEqual(out.hint, undefined);
  deepStrictEqual(out.paths, [{
    length: 3,
    nodes: [
      { id: W, name: W, type: "EXTERNAL", external: true },
      {
        id: "sg-web",
        name: "sg-web",
        type: "SECURITY_GROUP",
        account_id: "111111111111",
        internet_exposed: false,
        open_findings: 0,
      },
      {
        id: "sg-db",
        name: "sg-db",
        type: "SECURITY_GROUP",
        account_id: "111111111111",
        internet_exposed: false,
        open_findings: 0,
      },
      {
        id: "db",
        name: "db",
        type: "RDS_INSTANCE",
        account_id: "111111111111",
        internet_exposed: false,
        open_findings: 1,
        max_severity: "HIGH",
      },
    ],
    edge_types: ["SECURITY_GROUP_RULE", "SECURITY_GROUP_RULE", "SG_ADMITS"],
    summary: "0.0.0.0/0 -> sg-web -> sg-db -> db",
  }]);
});

Deno.test("findPaths() pivots through identity edges in flow mode", () => {
  const out = findPaths(miniEstate(), { source: "web-1", target: "bucket" });
  deepStrictEqual(out.paths.map((p) => [p.summary, p.edge_types]), [
    ["web-1 -> app-role -> bucket", ["ASSUMES_ROLE", "GRANTS_ACCESS"]],
  ]);
});

Deno.test("findPaths() lists shortest first and reports the max_paths bound", () => {
  const view = miniEstate();
  const all = findPaths(view, { source: "vpc", target: "kms" }, { mode: "directed" });
  deepStrictEqual(all.paths.map((p) => p.summary), [
    "vpc -> subnet -> db -> kms",
    "vpc -> subnet -> web-1 -> app-role -> bucket -> kms",
  ]);
  strictEqual(all.truncated, false);
  const one = findPaths(view, { source: "vpc", target: "kms" }, { mode: "directed", maxPaths: 1 });
  strictEqual(one.paths.length, 1);
  strictEqual(one.total_found, 1);
  ok(one.truncated);
  deepStrictEqual(one.bounds_hit, ["max_paths"]);
  const short = findPaths(view, { source: "vpc", target: "kms" }, {
    mode: "directed",
    maxDepth: 4,
  });
  strictEqual(short.paths.length, 1);
  strictEqual(short.truncated, false);
});

Deno.test("findPaths() in undirected mode crosses edges against their direction", () => {
  const out = findPaths(miniEstate(), { source: "bastion", target: "alb" }, {
    mode: "undirected",
    maxPaths: 1,
  });
  deepStrictEqual([out.paths[0]!.summary, out.paths[0]!.edge_types], [
    "bastion -> sg-admin -> 0.0.0.0/0 -> alb",
    ["ATTACHED_TO", "SECURITY_GROUP_RULE", "INTERNET_EXPOSED"],
  ]);
  ok(out.truncated);
});

Deno.test("findPaths() gives a hint when nothing connects, and stops at the visit budget", () => {
  const view = miniEstate();
  const none = findPaths(view, { source: "kms", target: "vpc" }, { mode: "directed" });
  deepStrictEqual(none.paths, []);
  ok(none.hint?.includes("No path within 6 hops in 'directed' mode"));
  const starved = findPaths(view, { source: "vpc", target: "kms" }, {
    mode: "directed",
    maxNodesVisited: 2,
  });
  ok(starved.truncated);
  deepStrictEqual(starved.bounds_hit, ["max_nodes_visited"]);
  throws(() => findPaths(view, { source: "nope", target: "db" }), GraphQueryError);
});

Deno.test("kShortestPaths() finds every simple path of a diamond in length order", () => {
  const g = new DirectedGraph();
  for (
    const [u, v] of [["s", "a"], ["s", "b"], ["s", "c"], ["a", "t"], ["b", "x"], ["x", "t"], [
      "c",
      "t",
    ]]
  ) g.mergeEdge(u!, v!);
  const compact = compactGraph(g);
  const at = (id: string): number => compact.index.get(id)!;
  const found = kShortestPaths(searchGraph(compact), { source: at("s"), target: at("t") }, {
    count: 10,
    maxHops: 5,
    budget: { left: 1000 },
  });
  deepStrictEqual(found.paths.map((p) => p.map((i) => compact.ids[i]).join("")), [
    "sat",
    "sct",
    "sbxt",
  ]);
  const short = kShortestPaths(searchGraph(compact), { source: at("s"), target: at("t") }, {
    count: 10,
    maxHops: 2,
    budget: { left: 1000 },
  });
  strictEqual(short.paths.length, 2);
  const undirected = kShortestPaths(
    searchGraph(compact, { undirected: true }),
    { source: at("t"), target: at("s") },
    { count: 10, maxHops: 5, budget: { left: 1000 }, undirected: true },
  );
  deepStrictEqual(undirected.paths.map((p) => p.map((i) => compact.ids[i]).join("")), [
    "tas",
    "tcs",
    "txbs",
  ]);
});

Deno.test("attackPaths() ranks internet routes to crown jewels by the spec score", () => {
  const out = attackPaths(miniEstate());
  deepStrictEqual(
    out.paths.map((p) => [
      p.summary,
      p.entry,
      p.target_weight,
      p.findings_on_path,
      p.score,
      p.edge_types,
    ]),
    [
      [
        "0.0.0.0/0 -> sg-web -> sg-db -> db",
        "internet-sourced rule",
        10,
        1,
        9.6,
        ["SECURITY_GROUP_RULE", "SECURITY_GROUP_RULE", "SG_ADMITS"],
      ],
      [
        "web-1 -> app-role -> bucket",
        "internet-exposed asset",
        8,
        2,
        8.4,
        ["ASSUMES_ROLE", "GRANTS_ACCESS"],
      ],
      ["web-1 -> app-role", "internet-exposed asset", 5, 2, 5.7, ["ASSUMES_ROLE"]],
      [
        "web-1 -> app-role -> deploy-role",
        "internet-exposed asset",
        5,
        2,
        5.4,
        ["ASSUMES_ROLE", "IAM_TRUST"],
      ],
    ],
  );
  deepStrictEqual([out.total_found, out.truncated, out.targets_considered], [4, false, 5]);
  const capped = attackPaths(miniEstate(), { maxPaths: 2 });
  deepStrictEqual([capped.paths.length, capped.total_found, capped.truncated], [2, 4, true]);
  deepStrictEqual(capped.bounds_hit, ["max_paths"]);
});

Deno.test("attackPaths() with a target weighs it 10, and says when nothing is exposed", () => {
  const out = attackPaths(miniEstate(), { target: "tg" });
  deepStrictEqual(out.paths.map((p) => [p.summary, p.score]), [["alb -> tg", 9.7]]);
  const closed = attackPaths(makeView({ assets: [asset("db", "RDS_INSTANCE")] }));
  deepStrictEqual(closed.paths, []);
  strictEqual(closed.hint, "Nothing in this dataset is internet-exposed.");
});

Deno.test("attackPathScore() rounds half-even and caps the findings bonus at 10", () => {
  strictEqual(attackPathScore(10, { findingsOnPath: 25, pathNodes: 1 }), 15);
  strictEqual(attackPathScore(8, { findingsOnPath: 1, pathNodes: 4 }), 7.6);
});

Deno.test("lateralMovementPaths() follows identity edges from footholds to their ends", () => {
  const out = lateralMovementPaths(miniEstate());
  deepStrictEqual(out.paths.map((p) => [p.summary, p.edge_types]), [
    ["web-1 -> app-role -> bucket", ["ASSUMES_ROLE", "GRANTS_ACCESS"]],
    ["vendor -> deploy-role", ["IAM_TRUST"]],
    ["web-1 -> app-role -> deploy-role", ["ASSUMES_ROLE", "IAM_TRUST"]],
  ]);
  deepStrictEqual([out.total_found, out.truncated, out.starting_points], [3, false, 4]);
  const fromFn = lateralMovementPaths(miniEstate(), { start: "fn", maxDepth: 1 });
  deepStrictEqual(fromFn.paths.map((p) => p.summary), []);
  const deeper = lateralMovementPaths(miniEstate(), { start: "fn" });
  deepStrictEqual(deeper.paths.map((p) => p.summary), [
    "fn -> app-role -> bucket",
    "fn -> app-role -> deploy-role",
  ]);
  const capped = lateralMovementPaths(miniEstate(), { maxChains: 1 });
  ok(capped.truncated);
  deepStrictEqual(capped.bounds_hit, ["max_chains"]);
});
