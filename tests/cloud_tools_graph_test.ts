/**
 * The seventeen graph tools and the graph resources through a real MCP
 * client on the demo estate. Expected values are read off
 * src/cloud/demo/estate.ts (44 assets, 56 edges, one placeholder 0.0.0.0/0).
 */

import { deepStrictEqual, ok as truthy, strictEqual } from "node:assert/strict";
import { XMLParser } from "fast-xml-parser";
import { connect, fails, type Loose, withClient } from "./helpers/in_memory.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import {
  readTextContent,
  result,
  withDemoClient,
  workspaceListing,
} from "./helpers/cloud_client.ts";
import { blastRadiusRows, NO_NETWORK_REACH } from "./helpers/cloud_graph_rows.ts";

const GRAPH_TOOLS = [
  "neighbors",
  "get_edges",
  "find_paths",
  "attack_paths",
  "lateral_movement_paths",
  "internet_exposure",
  "blast_radius",
  "depends_on",
  "dependents",
  "dependency_tree",
  "shared_dependencies",
  "largest_blast_radius",
  "cross_account_edges",
  "centrality_top",
  "subgraph_export",
  "security_coverage",
  "graph_stats",
];

const PROD = "111111111111";
const SHARED = "222222222222";
const VENDOR = "999999999999";

const ids = (items: { id: string }[]): string[] => items.map((i) => i.id);

Deno.test("graph tools are listed in spec order, each with an output schema", async () => {
  await withDemoClient(async (client) => {
    const { tools } = await client.listTools();
    const listed = tools.map((t) => t.name).filter((n) => GRAPH_TOOLS.includes(n));
    deepStrictEqual(listed, GRAPH_TOOLS);
    for (const tool of tools.filter((t) => GRAPH_TOOLS.includes(t.name))) {
      truthy(tool.outputSchema, `${tool.name} publishes an output schema`);
      truthy(tool.description && tool.description.length > 80, `${tool.name} describes itself`);
    }
  });
});

Deno.test("graph tools carry the spec's sensitivities and the graph toolset", async () => {
  const { casefile, close } = await connect({ workbenches: [cloudWorkbenchWith({ demo: true })] });
  try {
    const tools = casefile.catalog.list().filter((t) => GRAPH_TOOLS.includes(t.name));
    deepStrictEqual(
      Object.fromEntries(tools.map((t) => [t.name, t.sensitivity])),
      Object.fromEntries(GRAPH_TOOLS.map((name) => [
        name,
        name === "subgraph_export"
          ? "restricted"
          : name === "graph_stats"
          ? "internal"
          : "confidential",
      ])),
    );
    truthy(tools.every((t) => t.toolset === "graph" && Object.keys(t.effects).length === 0));
  } finally {
    await close();
  }
});

Deno.test("neighbors lists web-1's five edges and their far ends in dataset order", async () => {
  await withDemoClient(async (client) => {
    const out = await result(client, "neighbors", { ref: "web-1" });
    strictEqual(out.asset.id, "web-1");
    deepStrictEqual(ids(out.nodes), [
      "subnet-private",
      "sg-web",
      "tg-web",
      "app-role",
      "ec2-app-profile",
    ]);
    deepStrictEqual(ids(out.edges), ["e05", "e15", "e20", "e26", "e28"]);
    deepStrictEqual([out.node_count, out.edge_count, out.truncated], [5, 5, false]);
    strictEqual(out.bounds_hit, undefined);
    deepStrictEqual(out.edges[2], {
      id: "e20",
      source: "tg-web",
      source_name: "web-tg",
      target: "web-1",
      target_name: "web-1",
      edge_type: "LOAD_BALANCER_TARGET",
      relationship: null,
      port_range: "8080",
      protocol: "TCP",
      description: "target",
      ports: [8080],
    });
    // The asset links the briefs carry are readable.
    const read = await readTextContent(client, out.nodes[0].uri);
    strictEqual(JSON.parse(read.text).id, "subnet-private");
  });
});

Deno.test("neighbors honours direction, edge types (any case), depth, caps and the internet", async () => {
  await withDemoClient(async (client) => {
    const typed = await result(client, "neighbors", {
      ref: "i-0a00000000000b001",
      direction: "OUT",
      edge_types: ["assumes_role", "Grants-Access"],
      depth: 2,
    });
    deepStrictEqual([ids(typed.nodes), ids(typed.edges)], [
      ["app-role", "data-bucket", "db-secret"],
      ["e26", "e37", "e38"],
    ]);
    const capped = await result(client, "neighbors", { ref: "web-1", limit: 2 });
    deepStrictEqual([ids(capped.nodes), ids(capped.edges)], [["subnet-private", "sg-web"], [
      "e05",
      "e15",
      "e20",
      "e26",
    ]]);
    deepStrictEqual([capped.truncated, capped.bounds_hit], [true, ["node_cap", "edge_cap"]]);
    const internet = await result(client, "neighbors", { ref: "Internet" });
    deepStrictEqual(internet.asset, {
      id: "0.0.0.0/0",
      name: "0.0.0.0/0",
      type: "EXTERNAL",
      external: true,
    });
    deepStrictEqual(ids(internet.nodes), [
      "sg-alb",
      "sg-admin",
      "alb-web",
      "bastion",
      "logs-bucket",
      "az-nsg",
      "gcp-gcs",
    ]);
    // The `after` dataset has no WAF: web-alb loses the PROTECTS edge.
    const sample = await result(client, "neighbors", { ref: "web-alb" });
    const after = await result(client, "neighbors", { ref: "web-alb", dataset: "after" });
    deepStrictEqual([sample.edge_count, after.edge_count], [6, 5]);
    truthy(ids(sample.nodes).includes("waf-web") && !ids(after.nodes).includes("waf-web"));
  });
});

Deno.test("neighbors rejects unknown refs, datasets and values out of range", async () => {
  await withDemoClient(async (client) => {
    const before = await workspaceListing(client);
    const unknown = await fails(client, "neighbors", { ref: "web-9" });
    strictEqual(unknown.code, "not_found");
    const suggested = ids(unknown.details.suggestions);
    truthy(suggested.includes("web-1") && suggested.includes("web-2"), String(suggested));
    truthy(suggested.length <= 5);
    strictEqual(unknown.details.value, "web-9");
    const noDataset = await fails(client, "neighbors", { ref: "web-1", dataset: "nope" });
    strictEqual(noDataset.code, "not_found");
    deepStrictEqual(noDataset.details.datasets, [{ dataset: "sample" }, { dataset: "after" }]);
    const direction = await fails(client, "neighbors", { ref: "web-1", direction: "sideways" });
    strictEqual(direction.code, "invalid_request");
    deepStrictEqual(direction.details.valid, ["out", "in", "both"]);
    const edgeType = await fails(client, "neighbors", { ref: "web-1", edge_types: ["CONTAIN"] });
    deepStrictEqual(edgeType.details.close_matches[0], "CONTAINS");
    strictEqual(
      (await fails(client, "neighbors", { ref: "web-1", depth: 5 })).code,
      "invalid_request",
    );
    strictEqual(
      (await fails(client, "neighbors", { ref: "web-1", limit: 0 })).code,
      "invalid_request",
    );
    strictEqual((await fails(client, "neighbors", { ref: "" })).code, "invalid_request");
    deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("get_edges filters by internet origin, port, target, account crossing and pages", async () => {
  await withDemoClient(async (client) => {
    const internet = await result(client, "get_edges", { source: "internet", limit: 500 });
    // e08, the public route table's 0.0.0.0/0 route to the gateway, leads out, not in.
    deepStrictEqual(ids(internet.items), ["e10", "e11", "e23", "e24", "e25", "e52", "e54"]);
    const ssh = await result(client, "get_edges", { internet_only: true, port: 22 });
    deepStrictEqual(ids(ssh.items), ["e11", "e24"]);
    deepStrictEqual(ids((await result(client, "get_edges", { target: "orders-db" })).items), [
      "e07",
      "e41",
    ]);
    const crossing = await result(client, "get_edges", { cross_account_only: true });
    deepStrictEqual(ids(crossing.items), ["e34", "e35", "e36"]);
    truthy(crossing.items.every((e: Loose) => e.cross_account === true));
    const grants = await result(client, "get_edges", {
      source: "app-role",
      edge_types: ["GRANTS_ACCESS"],
    });
    deepStrictEqual(ids(grants.items), ["e37", "e38"]);
    strictEqual((await result(client, "get_edges", { relationship: "vpc_peered" })).total, 0);
    // Pages of three over the seven internet edges.
    const first = await result(client, "get_edges", { source: "internet", limit: 3 });
    deepStrictEqual([first.total, first.offset, first.returned, first.truncated], [7, 0, 3, true]);
    // Cursors fingerprint the resolved filters: "public" is the same source as "internet".
    const second = await result(client, "get_edges", {
      source: "public",
      limit: 3,
      cursor: first.next_cursor,
    });
    deepStrictEqual([ids(second.items), second.offset], [["e24", "e25", "e52"], 3]);
    const third = await result(client, "get_edges", {
      source: "internet",
      limit: 3,
      cursor: second.next_cursor,
    });
    deepStrictEqual([ids(third.items), third.next_cursor, third.truncated], [
      ["e54"],
      null,
      false,
    ]);
  });
});

Deno.test("get_edges rejects stale and forged cursors, bad ports and unknown relationships", async () => {
  await withDemoClient(async (client) => {
    const before = await workspaceListing(client);
    const first = await result(client, "get_edges", { source: "internet", limit: 3 });
    const stale = await fails(client, "get_edges", {
      source: "web-1",
      limit: 3,
      cursor: first.next_cursor,
    });
    truthy(/stale cursor/i.test(stale.message));
    truthy(/stale cursor/i.test(
      (await fails(client, "get_edges", { cursor: "c3.000000000000" })).message,
    ));
    truthy(/invalid cursor/i.test((await fails(client, "get_edges", { cursor: "page2" })).message));
    strictEqual((await fails(client, "get_edges", { port: 70000 })).code, "invalid_request");
    const relation = await fails(client, "get_edges", { relationship: "PEERS" });
    strictEqual(relation.details.valid.length, 64);
    const target = await fails(client, "get_edges", { target: "orders" });
    truthy(ids(target.details.suggestions).includes("orders-db"));
    deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("find_paths reaches orders-db from the internet through the security groups", async () => {
  await withDemoClient(async (client) => {
    const out = await result(client, "find_paths", { source: "internet", target: "orders-db" });
    deepStrictEqual(out.source, {
      id: "__internet__",
      name: "internet",
      type: "EXTERNAL",
      external: true,
    });
    strictEqual(out.target.id, "orders-db");
    deepStrictEqual([out.mode, out.total_found, out.truncated], ["flow", 1, false]);
    const [path] = out.paths;
    strictEqual(path.summary, "0.0.0.0/0 -> sg-alb -> sg-web -> sg-db -> orders-db");
    strictEqual(path.length, 4);
    deepStrictEqual(path.edge_types, [
      "SECURITY_GROUP_RULE",
      "SECURITY_GROUP_RULE",
      "SECURITY_GROUP_RULE",
      "SG_ADMITS",
    ]);
    deepStrictEqual(path.nodes[4], {
      id: "orders-db",
      name: "orders-db",
      type: "RDS_INSTANCE",
      account_id: PROD,
      internet_exposed: false,
      open_findings: 1,
      max_severity: "MEDIUM",
    });
    // Directed mode follows relationship edges: via the ALB, web-1/web-2 and the role.
    const directed = await result(client, "find_paths", {
      source: "0.0.0.0/0",
      target: "arn:aws:rds:us-east-1:111111111111:db:orders-db",
      mode: "Directed",
    });
    // The route table is no entry: its 0.0.0.0/0 route names where traffic goes.
    deepStrictEqual(directed.paths.map((p: Loose) => p.summary), [
      "0.0.0.0/0 -> web-alb -> web-tg -> web-1 -> app-role -> orders-db-credentials -> orders-db",
      "0.0.0.0/0 -> web-alb -> web-tg -> web-2 -> app-role -> orders-db-credentials -> orders-db",
    ]);
    const capped = await result(client, "find_paths", {
      source: "internet",
      target: "orders-db",
      mode: "directed",
      max_paths: 1,
    });
    deepStrictEqual([capped.total_found, capped.truncated, capped.bounds_hit], [1, true, [
      "max_paths",
    ]]);
    const none = await result(client, "find_paths", { source: "internet", target: "acct-shared" });
    deepStrictEqual([none.paths, none.total_found], [[], 0]);
    truthy(none.hint.includes("6 hops"));
  });
});

Deno.test("find_paths rejects unknown ends, bad modes and depths", async () => {
  await withDemoClient(async (client) => {
    const before = await workspaceListing(client);
    const target = await fails(client, "find_paths", { source: "internet", target: "order-db" });
    strictEqual(target.code, "not_found");
    truthy(ids(target.details.suggestions).includes("orders-db"));
    const mode = await fails(client, "find_paths", { source: "web-1", target: "db", mode: "flo" });
    strictEqual(mode.code, "invalid_request");
    const good = await fails(client, "find_paths", {
      source: "internet",
      target: "orders-db",
      mode: "flo",
    });
    deepStrictEqual(good.details.close_matches, ["flow"]);
    const depth = await fails(client, "find_paths", {
      source: "internet",
      target: "orders-db",
      max_depth: 13,
    });
    strictEqual(depth.code, "invalid_request");
    strictEqual(
      (await fails(client, "find_paths", { source: "internet" })).code,
      "invalid_request",
    );
    deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("attack_paths ranks internet routes to crown jewels by the spec score", async () => {
  await withDemoClient(async (client) => {
    const out = await result(client, "attack_paths", {});
    deepStrictEqual(
      out.paths.map((p: Loose) => [p.summary, p.score, p.target_weight, p.findings_on_path]),
      [
        ["0.0.0.0/0 -> sg-alb -> sg-web -> sg-db -> orders-db", 9.3, 10, 1],
        ["prod-logs", 8.5, 8, 1],
        ["analytics-public", 8.5, 8, 1],
        ["web-alb -> web-tg -> web-1 -> app-role -> orders-db-credentials", 8.3, 9, 1],
        // web-1's CVE counts on every route through it; deploy-role adds the vendor trust.
        ["web-alb -> web-tg -> web-1 -> app-role -> prod-data", 7.3, 8, 1],
        ["web-alb -> web-tg -> web-1 -> app-role -> deploy-role", 4.8, 5, 2],
        ["bastion -> bastion-admin", 4.7, 5, 0],
        ["web-alb -> web-tg -> web-1 -> app-role", 4.6, 5, 1],
      ],
    );
    deepStrictEqual([out.paths[0].entry, out.paths[1].entry], [
      "internet-sourced rule",
      "internet-exposed asset",
    ]);
    deepStrictEqual([out.total_found, out.truncated, out.targets_considered], [8, false, 13]);
    const top = await result(client, "attack_paths", { max_paths: 2 });
    deepStrictEqual([top.paths.length, top.total_found, top.bounds_hit], [2, 8, ["max_paths"]]);
    const one = await result(client, "attack_paths", { target: "orders-db" });
    deepStrictEqual([one.paths.length, one.paths[0].target_weight, one.targets_considered], [
      1,
      10,
      1,
    ]);
    const before = await workspaceListing(client);
    strictEqual((await fails(client, "attack_paths", { target: "nowhere-db" })).code, "not_found");
    strictEqual((await fails(client, "attack_paths", { max_paths: 101 })).code, "invalid_request");
    strictEqual((await fails(client, "attack_paths", { dataset: "gone" })).code, "not_found");
    deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("lateral_movement_paths follows identity pivots from footholds", async () => {
  await withDemoClient(async (client) => {
    const out = await result(client, "lateral_movement_paths", {});
    deepStrictEqual(out.paths.map((p: Loose) => [p.summary, p.edge_types]), [
      ["vendor -> deploy-role -> prod-data", ["IAM_TRUST", "GRANTS_ACCESS"]],
      ["bastion -> bastion-admin", ["ASSUMES_ROLE"]],
    ]);
    // Six internet-exposed assets and the external vendor account.
    deepStrictEqual([out.total_found, out.truncated, out.starting_points], [2, false, 7]);
    const role = await result(client, "lateral_movement_paths", { start: "app-role" });
    deepStrictEqual(role.paths.map((p: Loose) => p.summary), [
      "app-role -> orders-db-credentials",
      "app-role -> prod-data",
    ]);
    strictEqual(role.starting_points, 1);
    const before = await workspaceListing(client);
    strictEqual(
      (await fails(client, "lateral_movement_paths", { start: "nobody" })).code,
      "not_found",
    );
    strictEqual(
      (await fails(client, "lateral_movement_paths", { max_depth: 9 })).code,
      "invalid_request",
    );
    deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("internet_exposure lists the six exposed assets with their evidence", async () => {
  await withDemoClient(async (client) => {
    const out = await result(client, "internet_exposure", {});
    strictEqual(out.total, 6);
    deepStrictEqual(ids(out.items), [
      "az-nsg",
      "sg-admin",
      "bastion",
      "gcp-gcs",
      "logs-bucket",
      "alb-web",
    ]);
    deepStrictEqual(out.items.map((i: Loose) => [i.sensitive_ports_open, i.protected_by_waf]), [
      [[3389], false],
      [[22], false],
      [[22], false],
      [[], false],
      [[], false],
      [[], true],
    ]);
    deepStrictEqual(out.items[2].internet_rules, [
      { edge_type: "INTERNET_EXPOSED", ports: "22", protocol: "TCP", via: "public SSH" },
      { edge_type: "SECURITY_GROUP_RULE", ports: "22", protocol: "TCP", via: "sg-admin" },
    ]);
    strictEqual(out.graph_reachable, undefined);
    const buckets = await result(client, "internet_exposure", {
      asset_types: ["s3_bucket", "GCS_BUCKET"],
    });
    deepStrictEqual(ids(buckets.items), ["gcp-gcs", "logs-bucket"]);
    // Without the WAF the ALB is no longer protected.
    const after = await result(client, "internet_exposure", { dataset: "after" });
    strictEqual(after.items.find((i: Loose) => i.id === "alb-web").protected_by_waf, false);
    const paged = await result(client, "internet_exposure", { include_reachable: true, limit: 2 });
    deepStrictEqual([ids(paged.items), paged.total, paged.truncated], [
      ["az-nsg", "sg-admin"],
      6,
      true,
    ]);
    deepStrictEqual([paged.graph_reachable.total, paged.graph_reachable.truncated], [14, true]);
    strictEqual(paged.graph_reachable.items.length, 2);
    const next = await result(client, "internet_exposure", {
      include_reachable: true,
      limit: 2,
      cursor: paged.next_cursor,
    });
    deepStrictEqual(ids(next.items), ["bastion", "gcp-gcs"]);
    const before = await workspaceListing(client);
    const stale = await fails(client, "internet_exposure", { limit: 2, cursor: paged.next_cursor });
    truthy(/stale cursor/i.test(stale.message));
    const type = await fails(client, "internet_exposure", { asset_types: ["BUCKETS"] });
    strictEqual(type.code, "invalid_request");
    strictEqual((await fails(client, "internet_exposure", { limit: 501 })).code, "invalid_request");
    deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("blast_radius of kms-main: twelve dependents over three accounts; app-role's reach", async () => {
  await withDemoClient(async (client) => {
    const kms = await result(client, "blast_radius", { ref: "kms-main" });
    strictEqual(kms.asset.id, "kms-main");
    const dep = kms.dependency;
    deepStrictEqual([dep.transitive_dependents, dep.by_depth], [12, {
      "1": 2,
      "2": 3,
      "3": 5,
      "4": 1,
      "5": 1,
    }]);
    deepStrictEqual(dep.accounts_affected, [PROD, SHARED, VENDOR]);
    strictEqual(dep.internet_exposed_dependents, 1);
    deepStrictEqual(dep.items.slice(0, 2).map((i: Loose) => [i.id, i.via, i.depth, i.parent_id]), [
      ["orders-db", "REFERENCES", 1, "kms-main"],
      ["data-bucket", "REFERENCES", 1, "kms-main"],
    ]);
    deepStrictEqual(dep.items.at(-1).id, "alb-web");
    deepStrictEqual(kms.network, NO_NETWORK_REACH);
    const role = await result(client, "blast_radius", { ref: "app-role", limit: 3 });
    // deploy-role, data-bucket, kms-main, db-secret, orders-db, sg-db: 6 × 0.5 + 2 for the RDS.
    deepStrictEqual([role.network.reachable_assets, role.network.max_depth], [6, 3]);
    strictEqual(role.network.risk_score, 5);
    deepStrictEqual(ids(role.network.sensitive_reachable), [
      "data-bucket",
      "db-secret",
      "deploy-role",
    ]);
    const shallow = await result(client, "blast_radius", { ref: "kms-main", max_depth: 1 });
    deepStrictEqual(ids(shallow.dependency.items), ["orders-db", "data-bucket"]);
    const capped = await result(client, "blast_radius", { ref: "kms-main", limit: 5 });
    deepStrictEqual([capped.dependency.items.length, capped.dependency.bounds_hit], [5, ["limit"]]);
    const before = await workspaceListing(client);
    const placeholder = await fails(client, "blast_radius", { ref: "0.0.0.0/0" });
    strictEqual(placeholder.code, "not_found");
    strictEqual(
      (await fails(client, "blast_radius", { ref: "kms-main", max_depth: 16 })).code,
      "invalid_request",
    );
    deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("depends_on and dependents walk the dependency directions hop by hop", async () => {
  await withDemoClient(async (client) => {
    const up = await result(client, "depends_on", { ref: "web-1" });
    deepStrictEqual(up.items.map((i: Loose) => [i.id, i.via, i.depth, i.parent_id]), [
      ["subnet-private", "CONTAINS", 1, "web-1"],
      ["sg-web", "ATTACHED_TO", 1, "web-1"],
      ["app-role", "ASSUMES_ROLE", 1, "web-1"],
      ["ec2-app-profile", "ATTACHED_TO", 1, "web-1"],
      ["vpc-prod", "CONTAINS", 2, "subnet-private"],
      ["deploy-role", "IAM_TRUST", 2, "app-role"],
      ["data-bucket", "GRANTS_ACCESS", 2, "app-role"],
      ["db-secret", "GRANTS_ACCESS", 2, "app-role"],
      ["kms-main", "REFERENCES", 3, "data-bucket"],
      ["orders-db", "REFERENCES", 3, "db-secret"],
    ]);
    deepStrictEqual([up.asset.id, up.total, up.returned, up.truncated], ["web-1", 10, 10, false]);
    strictEqual((await result(client, "depends_on", { ref: "web-1", max_depth: 4 })).total, 11);
    const cut = await result(client, "depends_on", { ref: "web-1", limit: 3 });
    deepStrictEqual([cut.total, cut.returned, cut.truncated, cut.bounds_hit], [10, 3, true, [
      "limit",
    ]]);
    const down = await result(client, "dependents", { ref: "kms-main" });
    deepStrictEqual(ids(down.items), [
      "orders-db",
      "data-bucket",
      "db-secret",
      "deploy-role",
      "app-role",
      "api-handler",
      "acct-vendor",
      "web-1",
      "web-2",
      "ec2-app-profile",
    ]);
    strictEqual(down.total, 10);
    const before = await workspaceListing(client);
    strictEqual((await fails(client, "depends_on", { ref: "web-3" })).code, "not_found");
    strictEqual(
      (await fails(client, "dependents", { ref: "kms-main", limit: 0 })).code,
      "invalid_request",
    );
    strictEqual(
      (await fails(client, "dependents", { ref: "kms-main", dataset: "x" })).code,
      "not_found",
    );
    deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("dependency_tree nests orders-db's upstream and downstream trees", async () => {
  await withDemoClient(async (client) => {
    type Node = { id: string; via: string; children: Node[] };
    const shape = (nodes: Node[]): unknown[] =>
      nodes.map((n) => n.children.length ? [n.id, n.via, shape(n.children)] : [n.id, n.via]);
    const out = await result(client, "dependency_tree", { ref: "orders-db" });
    deepStrictEqual(out.asset, {
      id: "orders-db",
      name: "orders-db",
      arn: "arn:aws:rds:us-east-1:111111111111:db:orders-db",
      type: "RDS_INSTANCE",
      account_id: PROD,
      region: "us-east-1",
    });
    deepStrictEqual(shape(out.depends_on), [
      ["subnet-private", "CONTAINS", [["vpc-prod", "CONTAINS"]]],
      ["sg-db", "ATTACHED_TO"],
      ["kms-main", "REFERENCES"],
    ]);
    deepStrictEqual(shape(out.dependents), [
      ["db-secret", "REFERENCES", [
        ["app-role", "GRANTS_ACCESS", [
          ["web-1", "ASSUMES_ROLE"],
          ["web-2", "ASSUMES_ROLE"],
          ["ec2-app-profile", "REFERENCES"],
        ]],
        ["api-handler", "REFERENCES"],
      ]],
    ]);
    strictEqual(out.truncated, false);
    const up = await result(client, "dependency_tree", { ref: "orders-db", direction: "UP" });
    deepStrictEqual([Object.hasOwn(up, "depends_on"), Object.hasOwn(up, "dependents")], [
      true,
      false,
    ]);
    const cut = await result(client, "dependency_tree", { ref: "orders-db", max_nodes: 2 });
    deepStrictEqual([shape(cut.depends_on), cut.dependents, cut.bounds_hit], [
      [["subnet-private", "CONTAINS", [["vpc-prod", "CONTAINS"]]]],
      [],
      ["max_nodes"],
    ]);
    // The deepest tree (six hops) passes the published schema.
    const deep = await result(client, "dependency_tree", { ref: "kms-main", max_depth: 6 });
    truthy(deep.dependents.length > 0);
    const before = await workspaceListing(client);
    const direction = await fails(client, "dependency_tree", {
      ref: "orders-db",
      direction: "left",
    });
    deepStrictEqual(direction.details.valid, ["up", "down", "both"]);
    strictEqual(
      (await fails(client, "dependency_tree", { ref: "orders-db", max_depth: 7 })).code,
      "invalid_request",
    );
    deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("shared_dependencies and largest_blast_radius rank single points of failure", async () => {
  await withDemoClient(async (client) => {
    const shared = await result(client, "shared_dependencies", {});
    deepStrictEqual(shared.items.map((i: Loose) => [i.id, i.direct_dependents]), [
      ["logs-bucket", 3],
      ["app-role", 3],
      ["sg-web", 2],
      ["kms-main", 2],
      ["full-access-policy", 2],
      ["deploy-role", 2],
      ["db-secret", 2],
      ["data-bucket", 2],
    ]);
    strictEqual(shared.returned, 8);
    deepStrictEqual(ids((await result(client, "shared_dependencies", { top: 2 })).items), [
      "logs-bucket",
      "app-role",
    ]);
    const largest = await result(client, "largest_blast_radius", { top: 5 });
    strictEqual(
      blastRadiusRows(largest.items),
      "vpc-prod 14/1/2; kms-main 12/3/1; subnet-private 9/1/1; sg-db 9/1/1; data-bucket 8/3/1",
    );
    deepStrictEqual([largest.returned, largest.truncated], [5, false]);
    strictEqual((await fails(client, "shared_dependencies", { top: 201 })).code, "invalid_request");
    strictEqual((await fails(client, "largest_blast_radius", { top: 0 })).code, "invalid_request");
    strictEqual((await fails(client, "largest_blast_radius", { dataset: "x" })).code, "not_found");
  });
});

Deno.test("cross_account_edges lists the three crossings with pair counts", async () => {
  await withDemoClient(async (client) => {
    const out = await result(client, "cross_account_edges", {});
    strictEqual(out.total, 3);
    deepStrictEqual(out.items[1], {
      source: "acct-vendor",
      source_account: VENDOR,
      target: "arn:aws:iam::222222222222:role/deploy-role",
      target_account: SHARED,
      edge_type: "IAM_TRUST",
      relationship: null,
      external: true,
    });
    deepStrictEqual(out.by_account_pair, {
      [`${PROD} -> ${SHARED}`]: 1,
      [`${VENDOR} -> ${SHARED}`]: 1,
      [`${SHARED} -> ${PROD}`]: 1,
    });
    strictEqual((await result(client, "cross_account_edges", { external_only: true })).total, 1);
    strictEqual((await result(client, "cross_account_edges", { account_id: PROD })).total, 2);
    const grants = await result(client, "cross_account_edges", { edge_types: ["grants_access"] });
    deepStrictEqual([grants.total, grants.by_account_pair], [1, { [`${SHARED} -> ${PROD}`]: 1 }]);
    const page = await result(client, "cross_account_edges", { limit: 2 });
    const rest = await result(client, "cross_account_edges", {
      limit: 2,
      cursor: page.next_cursor,
    });
    deepStrictEqual([page.returned, rest.returned, rest.next_cursor], [2, 1, null]);
    const before = await workspaceListing(client);
    const stale = await fails(client, "cross_account_edges", {
      limit: 2,
      external_only: true,
      cursor: page.next_cursor,
    });
    truthy(/stale cursor/i.test(stale.message));
    strictEqual(
      (await fails(client, "cross_account_edges", { edge_types: ["TRUST"] })).code,
      "invalid_request",
    );
    deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("centrality_top ranks by degree over 44 peers, filters types, parses metrics", async () => {
  await withDemoClient(async (client) => {
    const out = await result(client, "centrality_top", { top: 5 });
    // 45 nodes, so scores are degree / 44; alb-web and app-role tie at 6 in graph order.
    deepStrictEqual(out.items.map((i: Loose) => [i.id, i.score, i.degree]), [
      ["alb-web", 0.13636, 6],
      ["app-role", 0.13636, 6],
      ["web-1", 0.11364, 5],
      ["subnet-private", 0.09091, 4],
      ["sg-web", 0.09091, 4],
    ]);
    deepStrictEqual([out.metric, out.sampled], ["degree", false]);
    const roles = await result(client, "centrality_top", { top: 2, asset_types: ["iam_role"] });
    deepStrictEqual(ids(roles.items), ["app-role", "deploy-role"]);
    const inbound = await result(client, "centrality_top", { top: 1, metric: "In-Degree" });
    strictEqual(inbound.metric, "in_degree");
    const between = await result(client, "centrality_top", { top: 1, metric: "betweenness" });
    deepStrictEqual([between.metric, between.sampled, between.items[0].id], [
      "betweenness",
      false,
      "app-role",
    ]);
    const metric = await fails(client, "centrality_top", { metric: "pagerank" });
    deepStrictEqual(metric.details.valid, ["degree", "in_degree", "out_degree", "betweenness"]);
    strictEqual((await fails(client, "centrality_top", { top: 201 })).code, "invalid_request");
  });
});

Deno.test("subgraph_export renders orders-db's neighbourhood in the three formats", async () => {
  await withDemoClient(async (client) => {
    const d3 = await result(client, "subgraph_export", { seeds: ["orders-db"] });
    deepStrictEqual([d3.format, d3.nodes, d3.edges, d3.truncated], ["d3", 5, 4, false]);
    deepStrictEqual(ids(d3.graph.nodes), [
      "orders-db",
      "subnet-private",
      "sg-db",
      "kms-main",
      "db-secret",
    ]);
    deepStrictEqual(d3.graph.links.map((l: Loose) => [l.source, l.target, l.type]), [
      ["subnet-private", "orders-db", "CONTAINS"],
      ["orders-db", "sg-db", "ATTACHED_TO"],
      ["orders-db", "kms-main", "REFERENCES"],
      ["db-secret", "orders-db", "REFERENCES"],
    ]);
    const cy = await result(client, "subgraph_export", {
      seeds: ["orders-db", "kms-main"],
      depth: 0,
      format: "Cytoscape",
    });
    deepStrictEqual(cy.graph.elements.edges.map((e: Loose) => e.data), [{
      source: "orders-db",
      target: "kms-main",
      type: "REFERENCES",
      port_range: "",
      protocol: "",
    }]);
    const xml = await result(client, "subgraph_export", {
      seeds: ["orders-db"],
      format: "graphml",
    });
    const doc = new XMLParser({ ignoreAttributes: false }).parse(xml.graph);
    deepStrictEqual([doc.graphml.graph.node.length, doc.graphml.graph.edge.length], [5, 4]);
    const capped = await result(client, "subgraph_export", { seeds: ["web-1"], max_nodes: 3 });
    deepStrictEqual([capped.nodes, capped.truncated], [3, true]);
    const typed = await result(client, "subgraph_export", {
      seeds: ["web-1"],
      edge_types: ["ASSUMES_ROLE"],
    });
    deepStrictEqual([typed.nodes, typed.edges], [2, 1]);
    const before = await workspaceListing(client);
    strictEqual((await fails(client, "subgraph_export", { seeds: [] })).code, "invalid_request");
    strictEqual(
      (await fails(client, "subgraph_export", { seeds: Array(51).fill("web-1") })).code,
      "invalid_request",
    );
    strictEqual(
      (await fails(client, "subgraph_export", { seeds: ["web-1"], format: "dot" })).code,
      "invalid_request",
    );
    strictEqual(
      (await fails(client, "subgraph_export", { seeds: ["web-1", "ghost"] })).code,
      "not_found",
    );
    strictEqual(
      (await fails(client, "subgraph_export", { seeds: ["web-1"], depth: 5 })).code,
      "invalid_request",
    );
    deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("security_coverage reports services, unscanned workloads and the ALB once the WAF is gone", async () => {
  await withDemoClient(async (client) => {
    const out = await result(client, "security_coverage", {});
    deepStrictEqual(out.services_by_account_region, {
      [PROD]: { "us-east-1": { cloudtrail: true, guardduty: true } },
    });
    deepStrictEqual(out.gaps, { total: 0, returned: 0, truncated: false, items: [] });
    deepStrictEqual(
      out.workloads_without_vulnerability_scanning.items.map((i: Loose) => i.name),
      ["web-1", "web-2", "bastion", "api-handler"],
    );
    strictEqual(out.internet_facing_without_waf.total, 0);
    const after = await result(client, "security_coverage", { dataset: "after", limit: 1 });
    deepStrictEqual(after.internet_facing_without_waf.items, [{
      name: "web-alb",
      arn:
        "arn:aws:elasticloadbalancing:us-east-1:111111111111:loadbalancer/app/web-alb/5f1c0d3e2b4a6978",
      type: "LOAD_BALANCER",
      account_id: PROD,
    }]);
    const workloads = after.workloads_without_vulnerability_scanning;
    deepStrictEqual([workloads.total, workloads.returned, workloads.truncated], [4, 1, true]);
    strictEqual((await fails(client, "security_coverage", { limit: 501 })).code, "invalid_request");
  });
});

Deno.test("graph_stats counts 45 nodes, 56 edges and three components", async () => {
  await withDemoClient(async (client) => {
    const out = await result(client, "graph_stats", {});
    deepStrictEqual(
      [out.nodes, out.asset_nodes, out.placeholder_nodes, out.edges, out.graph_edges],
      [45, 44, 1, 56, 56],
    );
    // The main estate, guardduty with acct-prod and security-alerts, and the lone acct-shared.
    deepStrictEqual([out.components, out.largest_component, out.isolated_assets], [3, 41, 1]);
    deepStrictEqual([out.edges_by_type.CONTAINS, out.edges_by_type.SECURITY_GROUP_RULE], [9, 5]);
    deepStrictEqual(out.edges_by_relationship, {});
    strictEqual(out.density, Math.round((56 / (45 * 44)) * 1e6) / 1e6);
    const after = await result(client, "graph_stats", { dataset: "after" });
    deepStrictEqual([after.nodes, after.edges], [44, 55]);
    strictEqual((await fails(client, "graph_stats", { dataset: "missing" })).code, "not_found");
  });
});

Deno.test("graph resources: D3, Cytoscape and GraphML of the whole graph match graph_stats", async () => {
  await withDemoClient(async (client) => {
    const stats = await result(client, "graph_stats", {});
    const text = (uri: string) => readTextContent(client, uri);
    const d3 = await text("cloudg://graph/d3");
    strictEqual(d3.mimeType, "application/json");
    const graph = JSON.parse(d3.text);
    deepStrictEqual([graph.nodes.length, graph.links.length], [stats.nodes, stats.graph_edges]);
    deepStrictEqual(graph.nodes.find((n: Loose) => n.id === "0.0.0.0/0").is_external, true);
    const cy = JSON.parse((await text("cloudg://graph/cytoscape")).text);
    deepStrictEqual([cy.elements.nodes.length, cy.elements.edges.length], [45, 56]);
    const xml = await text("cloudg://graph/graphml");
    strictEqual(xml.mimeType, "application/graphml+xml");
    const doc = new XMLParser({ ignoreAttributes: false }).parse(xml.text);
    deepStrictEqual([doc.graphml.graph.node.length, doc.graphml.graph.edge.length], [
      stats.nodes,
      stats.graph_edges,
    ]);
    strictEqual(doc.graphml.graph["@_edgedefault"], "directed");
    let message = "";
    try {
      await client.readResource({ uri: "cloudg://graph/dot" });
    } catch (error) {
      message = String(error);
    }
    truthy(/d3, cytoscape, graphml/.test(message), message);
    const { resources } = await client.listResources();
    truthy(resources.some((r) => r.uri === "cloudg://graph/d3"));
    const { resourceTemplates } = await client.listResourceTemplates();
    truthy(resourceTemplates.some((t) => t.uriTemplate === "cloudg://graph/{format}"));
    const completion = await client.complete({
      ref: { type: "ref/resource", uri: "cloudg://graph/{format}" },
      argument: { name: "format", value: "" },
    });
    deepStrictEqual(completion.completion.values, ["d3", "cytoscape", "graphml"]);
    const g = await client.complete({
      ref: { type: "ref/resource", uri: "cloudg://graph/{format}" },
      argument: { name: "format", value: "g" },
    });
    deepStrictEqual(g.completion.values, ["graphml"]);
  });
});

Deno.test("graph resources are not found without a dataset, naming load_dataset", async () => {
  await withClient({ workbenches: [cloudWorkbenchWith()] }, async (client) => {
    for (const uri of ["cloudg://graph/d3", "cloudg://graph/graphml"]) {
      let message = "";
      try {
        await client.readResource({ uri });
      } catch (error) {
        message = String(error);
      }
      truthy(message.includes("load_dataset"), message);
    }
    const error = await fails(client, "graph_stats", {});
    truthy(error.message.includes("load_dataset"), error.message);
  });
});

Deno.test("graph tools report a dataset without an internet node as a bad argument", async () => {
  const dir = await Deno.makeTempDir({ prefix: "graph-tools-" });
  const path = `${dir}/closed.json`;
  const host = (id: string) => ({
    id,
    name: id,
    asset_type: "EC2",
    provider: "AWS",
    region: "us-east-1",
    account_id: PROD,
  });
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      assets: [host("a"), host("b")],
      edges: [{ id: "e1", source_id: "a", target_id: "b", edge_type: "REFERENCES" }],
      findings: [],
    }),
  );
  const { client, close } = await connect({
    workbenches: [cloudWorkbenchWith({ datasets: [{ name: "closed", path }] })],
  });
  try {
    const before = await workspaceListing(client);
    const error = await fails(client, "find_paths", { source: "internet", target: "b" });
    strictEqual(error.code, "invalid_request");
    truthy(error.message.includes("internet_exposure"), error.message);
    strictEqual((await fails(client, "neighbors", { ref: "0.0.0.0/0" })).code, "invalid_request");
    const direct = await result(client, "find_paths", {
      source: "a",
      target: "b",
      mode: "directed",
    });
    strictEqual(direct.paths[0].summary, "a -> b");
    deepStrictEqual(await workspaceListing(client), before);
  } finally {
    await close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("internet_exposure's graph_reachable leaves out identity pivots that find_paths follows, and says so", async () => {
  // An instance behind a security group open to the internet, which assumes a role.
  const inventory = {
    assets: [
      { id: "sg-web", asset_type: "SECURITY_GROUP", account_id: PROD },
      // A public address: the open group's internet rule reaches only members that have one.
      { id: "i-web", asset_type: "EC2", account_id: PROD, metadata: { public_ip: "203.0.113.10" } },
      { id: "role-app", asset_type: "IAM_ROLE", account_id: PROD },
    ],
    edges: [
      {
        source_id: "0.0.0.0/0",
        target_id: "sg-web",
        edge_type: "SECURITY_GROUP_RULE",
        cidr: "0.0.0.0/0",
        direction: "ingress",
        ports: [443],
      },
      { source_id: "i-web", target_id: "sg-web", edge_type: "ATTACHED_TO" },
      { source_id: "i-web", target_id: "role-app", edge_type: "ASSUMES_ROLE" },
    ],
    unresolved_references: [],
  };
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "cloud-reach-" }));
  try {
    await Deno.writeTextFile(`${dir}/inventory.json`, JSON.stringify(inventory));
    await withClient({ roots: [dir], workbenches: [cloudWorkbenchWith()] }, async (client) => {
      await result(client, "load_dataset", { path: `${dir}/inventory.json`, name: "pivot" });
      const exposure = await result(client, "internet_exposure", { include_reachable: true });
      const reachable = exposure.graph_reachable.items.map((a: Loose) => a.id);
      const paths = await result(client, "find_paths", { source: "internet", target: "role-app" });
      // find_paths reaches the role over the identity pivot; graph_reachable does not list it.
      strictEqual(paths.paths[0].edge_types.at(-1), "ASSUMES_ROLE");
      truthy(!reachable.includes("role-app"), JSON.stringify(reachable));
      truthy(reachable.includes("i-web"), JSON.stringify(reachable));
      // So the description must not call both "the flow graph" without telling them apart.
      const tool = (await client.listTools()).tools.find((t) => t.name === "internet_exposure")!;
      truthy(/identity pivots/.test(tool.description ?? ""), tool.description);
      truthy(/not identity pivots/.test(JSON.stringify(tool.inputSchema)));
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("attack_paths scores each path with the length it reports, as its description says", async () => {
  await withDemoClient(async (client) => {
    const out = await result(client, "attack_paths", { max_paths: 100 });
    truthy(out.paths.length > 0);
    truthy(out.paths.some((p: Loose) => p.length > 0));
    for (const p of out.paths) {
      const expected = p.target_weight + 0.5 * Math.min(10, p.findings_on_path) - 0.3 * p.length;
      truthy(Math.abs(p.score - expected) < 0.006, JSON.stringify([p.summary, p.score, expected]));
    }
    const tool = (await client.listTools()).tools.find((t) => t.name === "attack_paths")!;
    truthy(/− 0\.3 × length\b/.test(tool.description ?? ""), tool.description);
  });
});

Deno.test("blast_radius gives the node count its network risk score counts, placeholders included", async () => {
  const node = (id: string, type: string) => ({
    id,
    name: id,
    asset_type: type,
    provider: "AWS",
    region: "us-east-1",
    account_id: PROD,
  });
  const assets = [
    node("trail", "CLOUDTRAIL"),
    node("fn", "LAMBDA_FUNCTION"),
    node("db", "RDS_INSTANCE"),
  ];
  // The trail logs to a bucket outside the dataset; the function reaches the database and it.
  const links: [string, string, string][] = [
    ["trail", "LOGS_TO", "arn:aws:s3:::audit-logs"],
    ["fn", "REFERENCES", "db"],
    ["fn", "LOGS_TO", "arn:aws:s3:::audit-logs"],
  ];
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "cloud-blast-" }));
  try {
    await Deno.writeTextFile(
      `${dir}/blast.json`,
      JSON.stringify({
        assets,
        edges: links.map(([s, t, d], i) => ({
          id: `e${i}`,
          source_id: s,
          target_id: d,
          edge_type: t,
        })),
        findings: [],
      }),
    );
    const types = new Map(assets.map((a) => [a.id, a.asset_type]));
    // Every node reachable from a start along the edges' direction, start excluded.
    const reach = (start: string): string[] => {
      const seen = new Set([start]);
      const queue = [start];
      while (queue.length > 0) {
        const at = queue.shift()!;
        for (const [s, , t] of links) {
          if (s !== at || seen.has(t)) continue;
          seen.add(t);
          queue.push(t);
        }
      }
      seen.delete(start);
      return [...seen];
    };
    await withClient({ roots: [dir], workbenches: [cloudWorkbenchWith()] }, async (client) => {
      await result(client, "load_dataset", { path: `${dir}/blast.json`, name: "blast" });
      for (const a of assets) {
        const nodes = reach(a.id);
        const stores = nodes.filter((n) => types.get(n) === "RDS_INSTANCE").length;
        const network = (await result(client, "blast_radius", { ref: a.id })).network;
        strictEqual(network.reachable_assets, nodes.filter((n) => types.has(n)).length, a.id);
        strictEqual(network.reachable_nodes, nodes.length, a.id);
        strictEqual(network.risk_score, Math.min(10, nodes.length * 0.5 + stores * 2), a.id);
      }
      const tool = (await client.listTools()).tools.find((t) => t.name === "blast_radius")!;
      truthy(/reachable_nodes, placeholders included/.test(tool.description ?? ""));
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
