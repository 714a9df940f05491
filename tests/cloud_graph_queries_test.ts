import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { neighbors } from "../src/cloud/graph/neighborhood.ts";
import { findEdges } from "../src/cloud/graph/edges.ts";
import { internetExposure } from "../src/cloud/graph/exposure.ts";
import { blastRadius } from "../src/cloud/graph/blast_radius.ts";
import {
  dependencyTree,
  dependents,
  dependsOn,
  largestBlastRadius,
  sharedDependencies,
} from "../src/cloud/graph/dependencies.ts";
import { crossAccountEdges } from "../src/cloud/graph/cross_account.ts";
import {
  centralityScores,
  centralityTop,
  sampledBetweenness,
} from "../src/cloud/graph/centrality.ts";
import { relationshipGraph } from "../src/cloud/graph/relationship_graph.ts";
import { graphStats } from "../src/cloud/graph/graph_stats.ts";
import { securityCoverage } from "../src/cloud/graph/security_coverage.ts";
import { INTERNET_NODE } from "../src/cloud/graph/internet.ts";
import { GraphQueryError } from "../src/cloud/graph/errors.ts";
import { asset, edge, makeView, miniEstate } from "./helpers/cloud_estate.ts";
import { blastRadiusRows, NO_NETWORK_REACH } from "./helpers/cloud_graph_rows.ts";

const W = "0.0.0.0/0";

Deno.test("neighbors() lists raw edges and nodes one hop away, in dataset order", () => {
  const out = neighbors(miniEstate(), "web-1");
  deepStrictEqual(out.nodes.map((n) => n.id), ["sg-web", "tg", "subnet", "app-role"]);
  deepStrictEqual(out.edges.map((e) => e.id), ["e4", "e7", "e10", "e12"]);
  deepStrictEqual([out.node_count, out.edge_count, out.truncated], [4, 4, false]);
  strictEqual(out.asset.id, "web-1");
  deepStrictEqual(out.edges[0], {
    id: "e4",
    source: "web-1",
    source_name: "web-1",
    target: "sg-web",
    target_name: "sg-web",
    edge_type: "ATTACHED_TO",
    relationship: null,
  });
});

Deno.test("neighbors() honours direction, edge types, depth and its caps", () => {
  const view = miniEstate();
  const typed = neighbors(view, "fn", { direction: "out", edgeTypes: ["ASSUMES_ROLE"], depth: 2 });
  deepStrictEqual([typed.nodes.map((n) => n.id), typed.edges.map((e) => e.id)], [["app-role"], [
    "e20",
  ]]);
  const capped = neighbors(view, "web-1", { limit: 2 });
  deepStrictEqual(capped.nodes.map((n) => n.id), ["sg-web", "tg"]);
  strictEqual(capped.edge_count, 4);
  ok(capped.truncated);
  deepStrictEqual(capped.bounds_hit, ["node_cap"]);
  const placeholder = neighbors(view, W);
  deepStrictEqual(placeholder.asset, { id: W, name: W, type: "EXTERNAL", external: true });
  deepStrictEqual(placeholder.nodes.map((n) => n.id), ["sg-web", "sg-admin", "alb"]);
  throws(() => neighbors(view, "missing"), GraphQueryError);
});

Deno.test("findEdges() filters by internet origin, port, endpoints and account crossing", () => {
  const view = miniEstate();
  deepStrictEqual(findEdges(view, { internetOnly: true, port: 22 }).items.map((e) => e.id), ["e3"]);
  deepStrictEqual(findEdges(view, { source: INTERNET_NODE }).items.map((e) => e.id), [
    "e1",
    "e2",
    "e3",
    "e8",
  ]);
  deepStrictEqual(findEdges(view, { port: 5432 }).items.map((e) => e.id), ["e21", "e23"]);
  const cross = findEdges(view, { crossAccountOnly: true }).items;
  deepStrictEqual(cross.map((e) => [e.id, e.cross_account]), [["e14", true], ["e15", true]]);
  deepStrictEqual(
    findEdges(view, { target: "alb", edgeTypes: ["PROTECTS"] }).items.map((e) => e.id),
    [
      "e18",
    ],
  );
  const rule = findEdges(view, { source: W, target: "sg-admin" }).items[0]!;
  deepStrictEqual(rule, {
    id: "e3",
    source: W,
    source_name: W,
    target: "sg-admin",
    target_name: "sg-admin",
    edge_type: "SECURITY_GROUP_RULE",
    relationship: null,
    port_range: "22",
    protocol: "TCP",
    cidr: W,
    ports: [22],
    direction: "ingress",
  });
});

Deno.test("findEdges() briefs only the requested page but counts every match", () => {
  const page = findEdges(miniEstate(), { edgeTypes: ["SECURITY_GROUP_RULE"] }, {
    offset: 1,
    limit: 2,
  });
  deepStrictEqual([page.total, page.items.map((e) => e.id)], [5, ["e2", "e3"]]);
});

Deno.test("internetExposure() gives the evidence and puts sensitive ports first", () => {
  const out = internetExposure(miniEstate(), { includeReachable: true, limit: 3 });
  deepStrictEqual(
    out.items.map((i) => [i.id, i.internet_rules, i.sensitive_ports_open, i.protected_by_waf]),
    [
      [
        "bastion",
        [{
          edge_type: "SECURITY_GROUP_RULE",
          ports: "22",
          protocol: "TCP",
          via: "sg-admin",
        }],
        [22],
        false,
      ],
      [
        "web-1",
        [
          { edge_type: "SECURITY_GROUP_RULE", ports: "443", protocol: "TCP", via: "sg-web" },
          { edge_type: "SECURITY_GROUP_RULE", ports: "80", protocol: "TCP", via: "sg-web" },
        ],
        [],
        false,
      ],
      [
        "alb",
        [{ edge_type: "INTERNET_EXPOSED", ports: "all", protocol: null, via: null }],
        [],
        true,
      ],
    ],
  );
  deepStrictEqual(out.graph_reachable?.total, 8);
  ok(out.graph_reachable?.truncated);
  deepStrictEqual(out.graph_reachable?.items.map((n) => n.id), ["alb", "bastion", "db"]);
  deepStrictEqual(
    internetExposure(miniEstate(), { assetTypes: ["LOAD_BALANCER"] }).items.map((i) => i.id),
    ["alb"],
  );
});

Deno.test("blastRadius() gives the dependency and the network view of one asset", () => {
  const view = miniEstate();
  const kms = blastRadius(view, "kms");
  deepStrictEqual(kms.dependency.transitive_dependents, 7);
  deepStrictEqual(kms.dependency.by_depth, { "1": 2, "2": 1, "3": 2, "4": 1, "5": 1 });
  deepStrictEqual(kms.dependency.accounts_affected, ["111111111111"]);
  strictEqual(kms.dependency.internet_exposed_dependents, 2);
  deepStrictEqual(kms.dependency.items.map((i) => [i.id, i.via, i.depth, i.parent_id]), [
    ["db", "REFERENCES", 1, "kms"],
    ["bucket", "REFERENCES", 1, "kms"],
    ["app-role", "GRANTS_ACCESS", 2, "bucket"],
    ["web-1", "ASSUMES_ROLE", 3, "app-role"],
    ["fn", "ASSUMES_ROLE", 3, "app-role"],
    ["tg", "LOAD_BALANCER_TARGET", 4, "web-1"],
    ["alb", "LOAD_BALANCER_TARGET", 5, "tg"],
  ]);
  deepStrictEqual(kms.network, NO_NETWORK_REACH);
  const web = blastRadius(view, "web-1", { limit: 1 });
  deepStrictEqual(web.dependency.items.map((i) => i.id), ["tg"]);
  ok(web.dependency.truncated);
  deepStrictEqual(web.dependency.bounds_hit, ["limit"]);
  deepStrictEqual(
    [web.network.reachable_assets, web.network.max_depth, web.network.risk_score],
    [9, 4, 5],
  );
  deepStrictEqual(web.network.sensitive_reachable.map((n) => n.id), ["app-role"]);
  const all = blastRadius(view, "web-1");
  deepStrictEqual(all.network.sensitive_reachable.map((n) => n.id), [
    "app-role",
    "bucket",
    "deploy-role",
    "kms",
  ]);
});

Deno.test("blastRadius() adds 2 per reachable data store and caps the score at 10", () => {
  const view = makeView({
    assets: [asset("app", "EC2"), asset("db1", "RDS_INSTANCE"), asset("db2", "DYNAMODB_TABLE")],
    edges: [edge("a", ["app", "REFERENCES", "db1"]), edge("b", ["app", "REFERENCES", "db2"])],
  });
  strictEqual(blastRadius(view, "app").network.risk_score, 5);
  const many = makeView({
    assets: [asset("app", "EC2"), ...Array.from({ length: 30 }, (_, i) => asset(`x${i}`, "OTHER"))],
    edges: Array.from({ length: 30 }, (_, i) => edge(`e${i}`, ["app", "REFERENCES", `x${i}`])),
  });
  strictEqual(blastRadius(many, "app").network.risk_score, 10);
});

Deno.test("dependsOn() and dependents() walk breadth-first with the edge of each hop", () => {
  const view = miniEstate();
  const up = dependsOn(view, "web-1");
  deepStrictEqual(up.items.map((i) => [i.id, i.via, i.depth, i.parent_id]), [
    ["sg-web", "ATTACHED_TO", 1, "web-1"],
    ["subnet", "CONTAINS", 1, "web-1"],
    ["app-role", "ASSUMES_ROLE", 1, "web-1"],
    ["vpc", "CONTAINS", 2, "subnet"],
    ["bucket", "GRANTS_ACCESS", 2, "app-role"],
    ["deploy-role", "IAM_TRUST", 2, "app-role"],
    ["kms", "REFERENCES", 3, "bucket"],
  ]);
  deepStrictEqual([up.total, up.returned, up.truncated], [7, 7, false]);
  strictEqual(dependsOn(view, "web-1", { maxDepth: 2 }).total, 6);
  const down = dependents(view, "kms", { limit: 2 });
  deepStrictEqual([down.total, down.returned, down.truncated], [5, 2, true]);
  deepStrictEqual(down.items.map((i) => i.id), ["db", "bucket"]);
  const fn = dependsOn(view, "fn", { maxDepth: 1 });
  deepStrictEqual(fn.items.map((i) => [i.id, i.via]), [["queue", "INVOKES"], [
    "app-role",
    "ASSUMES_ROLE",
  ]]);
  throws(() => dependents(view, W), GraphQueryError);
});

Deno.test("dependencyTree() nests both directions and prunes to max_nodes in pre-order", () => {
  const view = miniEstate();
  const names = (nodes: { id: string; children: unknown[] }[]): unknown =>
    nodes.map((n) => [n.id, names(n.children as { id: string; children: unknown[] }[])]);
  const tree = dependencyTree(view, "app-role");
  deepStrictEqual(names(tree.depends_on!), [["bucket", [["kms", []]]], ["deploy-role", []]]);
  deepStrictEqual(names(tree.dependents!), [["web-1", [["tg", [["alb", []]]]]], ["fn", []]]);
  strictEqual(tree.truncated, false);
  deepStrictEqual(tree.asset, {
    id: "app-role",
    name: "app-role",
    arn: "arn:aws:test:::app-role",
    type: "IAM_ROLE",
    account_id: "111111111111",
    region: "us-east-1",
  });
  const small = dependencyTree(view, "app-role", { maxNodes: 3 });
  deepStrictEqual(names(small.depends_on!), [["bucket", [["kms", []]]], ["deploy-role", []]]);
  deepStrictEqual(small.dependents, []);
  ok(small.truncated);
  const up = dependencyTree(view, "app-role", { direction: "up" });
  strictEqual(up.dependents, undefined);
});

Deno.test("sharedDependencies() ranks functional direct dependents, ties by id descending", () => {
  const out = sharedDependencies(miniEstate());
  deepStrictEqual(out.items.map((i) => [i.id, i.direct_dependents]), [
    ["kms", 2],
    ["deploy-role", 2],
    ["app-role", 2],
  ]);
  strictEqual(out.returned, 3);
});

Deno.test("largestBlastRadius() ranks transitive dependents with accounts and exposure", () => {
  const out = largestBlastRadius(miniEstate(), { top: 5 });
  strictEqual(
    blastRadiusRows(out.items),
    "kms 7/1/2; deploy-role 6/2/2; vpc 5/1/2; bucket 5/1/2; subnet 4/1/2",
  );
});

Deno.test("crossAccountEdges() lists edges between accounts with pair counts", () => {
  const view = miniEstate();
  const out = crossAccountEdges(view);
  deepStrictEqual(out.items, [
    {
      source: "arn:aws:test:::app-role",
      source_account: "111111111111",
      target: "arn:aws:test:::deploy-role",
      target_account: "222222222222",
      edge_type: "IAM_TRUST",
      relationship: null,
      external: false,
    },
    {
      source: "arn:aws:test:::vendor",
      source_account: "999999999999",
      target: "arn:aws:test:::deploy-role",
      target_account: "222222222222",
      edge_type: "IAM_TRUST",
      relationship: null,
      external: true,
    },
  ]);
  deepStrictEqual(out.by_account_pair, {
    "111111111111 -> 222222222222": 1,
    "999999999999 -> 222222222222": 1,
  });
  deepStrictEqual(crossAccountEdges(view, { externalOnly: true }).items.length, 1);
  deepStrictEqual(crossAccountEdges(view, { accountId: "111111111111" }).items.length, 1);
  deepStrictEqual(crossAccountEdges(view, { edgeTypes: ["PEERING"] }).items, []);
});

Deno.test("centralityTop() ranks degree centrality over assets, ties in graph order", () => {
  const out = centralityTop(miniEstate(), { top: 4 });
  deepStrictEqual(out.items.map((i) => [i.id, i.score, i.degree]), [
    ["sg-web", 0.22222, 4],
    ["web-1", 0.22222, 4],
    ["app-role", 0.22222, 4],
    ["subnet", 0.16667, 3],
  ]);
  strictEqual(out.sampled, false);
  const roles = centralityTop(miniEstate(), { metric: "in_degree", assetTypes: ["IAM_ROLE"] });
  deepStrictEqual(roles.items.map((i) => [i.id, i.score]), [["app-role", 0.11111], [
    "deploy-role",
    0.11111,
  ]]);
});

Deno.test("centralityTop() betweenness matches a hand count on a chain", () => {
  const view = makeView({
    assets: ["a", "b", "c", "d"].map((id) => asset(id, "OTHER")),
    edges: [
      edge("1", ["a", "ROUTE", "b"]),
      edge("2", ["b", "ROUTE", "c"]),
      edge("3", ["c", "ROUTE", "d"]),
    ],
  });
  // b lies on a→c and a→d, c on a→d and b→d: 2 pairs each of (n−1)(n−2) = 6.
  const out = centralityTop(view, { metric: "betweenness", top: 2 });
  deepStrictEqual(out.items.map((i) => [i.id, i.score]), [["b", 0.33333], ["c", 0.33333]]);
});

Deno.test("graphStats() counts nodes, merged edges, components and density", () => {
  deepStrictEqual(graphStats(miniEstate()), {
    nodes: 19,
    asset_nodes: 18,
    placeholder_nodes: 1,
    edges: 23,
    graph_edges: 22,
    edges_by_type: {
      SECURITY_GROUP_RULE: 5,
      ATTACHED_TO: 3,
      CONTAINS: 3,
      LOAD_BALANCER_TARGET: 2,
      ASSUMES_ROLE: 2,
      IAM_TRUST: 2,
      REFERENCES: 2,
      INTERNET_EXPOSED: 1,
      GRANTS_ACCESS: 1,
      PROTECTS: 1,
      INVOKES: 1,
    },
    edges_by_relationship: {},
    components: 1,
    largest_component: 19,
    isolated_assets: 0,
    density: 0.064327,
    mean_degree: 2.316,
  });
});

Deno.test("securityCoverage() maps services per account and region and finds the gaps", () => {
  const view = makeView({
    assets: [
      asset("gd1", "THREAT_DETECTOR", {
        metadata: { security_service: "guardduty", enabled: true },
      }),
      asset("gd2", "THREAT_DETECTOR", {
        region: "eu-west-1",
        metadata: { security_service: "guardduty", enabled: false },
      }),
      asset("hub", "SECURITY_HUB", { metadata: { security_service: "securityhub" } }),
      asset("scan", "VULNERABILITY_SCANNER", { metadata: { enabled: true } }),
      asset("ec2-a", "EC2"),
      asset("ec2-b", "EC2"),
      asset("fn", "LAMBDA_FUNCTION"),
      asset("alb", "LOAD_BALANCER", { is_internet_exposed: true }),
      asset("api", "API_GATEWAY", { is_internet_exposed: true }),
      asset("waf", "WAF_WEB_ACL"),
    ],
    edges: [edge("m", ["scan", "MONITORS", "ec2-a"]), edge("p", ["waf", "PROTECTS", "api"])],
  });
  const out = securityCoverage(view, { limit: 1 });
  deepStrictEqual(out.services_by_account_region, {
    "111111111111": {
      "us-east-1": { guardduty: true, securityhub: false },
      "eu-west-1": { guardduty: false },
    },
  });
  deepStrictEqual(out.gaps, {
    total: 2,
    returned: 1,
    truncated: true,
    items: ["111111111111/eu-west-1: guardduty"],
  });
  deepStrictEqual(out.workloads_without_vulnerability_scanning.total, 2);
  deepStrictEqual(out.workloads_without_vulnerability_scanning.items, [{
    name: "ec2-b",
    arn: "arn:aws:test:::ec2-b",
    type: "EC2",
    account_id: "111111111111",
    region: "us-east-1",
  }]);
  deepStrictEqual(out.internet_facing_without_waf.items.map((i) => i.name), ["alb"]);
});

Deno.test("sampledBetweenness() with every node as pivot equals graphology-metrics' exact scores", () => {
  const graph = relationshipGraph(miniEstate());
  const exact = centralityScores(miniEstate(), "betweenness");
  const all = sampledBetweenness(graph, { k: graph.order, seed: 7 });
  for (const [node, score] of exact) {
    ok(Math.abs(score - all.get(node)!) < 1e-12, `${node}: ${score} vs ${all.get(node)}`);
  }
  ok([...exact.values()].some((s) => s > 0));
  const sampled = sampledBetweenness(graph, { k: 5, seed: 7 });
  deepStrictEqual(sampled, sampledBetweenness(graph, { k: 5, seed: 7 }));
});

Deno.test("largestBlastRadius() walks each candidate once per dataset version", () => {
  const view = miniEstate();
  const first = largestBlastRadius(view, { top: 2 });
  const again = largestBlastRadius(view, { top: 5 });
  deepStrictEqual(again.items.slice(0, 2), first.items);
  strictEqual(view.builds.get("graph:transitive_dependents:all"), 1);
  strictEqual(view.builds.get("graph:dependency_pool"), 1);
});
