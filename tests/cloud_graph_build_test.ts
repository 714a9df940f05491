import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { EDGE_TYPES } from "../src/cloud/model/enums.ts";
import type { Edge } from "../src/cloud/model/records.ts";
import {
  buildRelationshipGraph,
  relationshipGraph,
} from "../src/cloud/graph/relationship_graph.ts";
import { flowGraph } from "../src/cloud/graph/flow_graph.ts";
import { internetReachable } from "../src/cloud/graph/reachability.ts";
import {
  dependencyGraph,
  dependencyGraphology,
  dependencyPair,
  walkDependents,
} from "../src/cloud/graph/dependency_graph.ts";
import { graphNodeFor, internetEntryPoints } from "../src/cloud/graph/nodes.ts";
import { INTERNET_NODE } from "../src/cloud/graph/internet.ts";
import { GraphQueryError } from "../src/cloud/graph/errors.ts";
import { asset, edge, makeView, miniEstate } from "./helpers/cloud_estate.ts";

const W = "0.0.0.0/0";
const sg = asset("sg", "SECURITY_GROUP");

function pairAttrs(edges: Edge[]): Record<string, string> {
  const g = buildRelationshipGraph([sg], edges);
  strictEqual(g.size, 1);
  return { ...g.getEdgeAttributes(g.edges()[0]!) };
}

Deno.test("buildRelationshipGraph() merges parallel rules with the same CIDR and direction", () => {
  const attrs = pairAttrs([
    edge("a", [W, "SECURITY_GROUP_RULE", "sg"], {
      port_range: "443",
      protocol: "TCP",
      cidr: W,
      description: "https",
    }),
    edge("b", [W, "SECURITY_GROUP_RULE", "sg"], {
      port_range: "80",
      protocol: "tcp",
      cidr: W,
      description: "http",
      relationship: "INGRESS_ALLOWED",
    }),
    edge("c", [W, "SECURITY_GROUP_RULE", "sg"], {
      port_range: "443",
      protocol: "TCP",
      cidr: W,
      description: "https",
    }),
  ]);
  // The merged fields first: ports and descriptions joined.
  deepStrictEqual(attrs, {
    port_range: "443,80",
    description: "https; http",
    relationship: "INGRESS_ALLOWED",
    edge_type: "SECURITY_GROUP_RULE",
    protocol: "TCP",
    cidr: W,
    direction: "ingress",
  });
});

Deno.test("buildRelationshipGraph() unions ports across protocols and spells out empty rules", () => {
  const mixed = pairAttrs([
    edge("a", [W, "SECURITY_GROUP_RULE", "sg"], { port_range: "22", protocol: "TCP", cidr: W }),
    edge("b", [W, "SECURITY_GROUP_RULE", "sg"], { port_range: "8--1", protocol: "ICMP", cidr: W }),
  ]);
  strictEqual(mixed.protocol, "TCP,ICMP");
  strictEqual(mixed.port_range, "22");
  const empty = pairAttrs([
    edge("a", [W, "NACL_RULE", "sg"], { port_range: "22", protocol: "TCP", cidr: W }),
    edge("b", [W, "NACL_RULE", "sg"], { port_range: null, protocol: "TCP", cidr: W }),
  ]);
  strictEqual(empty.port_range, "22,0-65535");
  const exposed = pairAttrs([
    edge("a", [W, "INTERNET_EXPOSED", "sg"]),
    edge("b", [W, "INTERNET_EXPOSED", "sg"], { description: "public" }),
  ]);
  deepStrictEqual([exposed.port_range, exposed.protocol, exposed.description], ["", "", "public"]);
});

Deno.test("buildRelationshipGraph() lets other parallel edges replace earlier ones", () => {
  const otherCidr = pairAttrs([
    edge("a", [W, "SECURITY_GROUP_RULE", "sg"], { port_range: "22", protocol: "TCP", cidr: W }),
    edge("b", [W, "SECURITY_GROUP_RULE", "sg"], {
      port_range: "443",
      protocol: "TCP",
      cidr: "10.0.0.0/8",
    }),
  ]);
  deepStrictEqual([otherCidr.port_range, otherCidr.cidr], ["443", "10.0.0.0/8"]);
  const otherDirection = pairAttrs([
    edge("a", [W, "SECURITY_GROUP_RULE", "sg"], { port_range: "22", protocol: "TCP", cidr: W }),
    edge("b", [W, "SECURITY_GROUP_RULE", "sg"], {
      port_range: "25",
      protocol: "TCP",
      cidr: W,
      direction: "egress",
    }),
  ]);
  deepStrictEqual([otherDirection.port_range, otherDirection.direction], ["25", "egress"]);
  const typed = pairAttrs([
    edge("a", [W, "ROUTE", "sg"], { description: "first" }),
    edge("b", [W, "REFERENCES", "sg"]),
  ]);
  deepStrictEqual([typed.edge_type, typed.description], ["REFERENCES", ""]);
});

Deno.test("buildRelationshipGraph() makes EXTERNAL placeholders for non-asset endpoints", () => {
  const view = miniEstate();
  const g = relationshipGraph(view);
  strictEqual(g.order, 19);
  strictEqual(g.size, 22);
  deepStrictEqual(g.getNodeAttributes(W), {
    name: W,
    asset_type: "EXTERNAL",
    provider: "EXTERNAL",
    is_external: true,
  });
  strictEqual(g.getNodeAttribute("web-1", "asset_type"), "EC2");
  strictEqual(g.getNodeAttribute("web-1", "tags"), "{}");
  deepStrictEqual(g.nodes().slice(0, 3), ["vpc", "subnet", "sg-web"]);
  strictEqual(g.getEdgeAttributes(W, "sg-web").port_range, "443,80");
});

Deno.test("relationshipGraph() is built once per dataset version", () => {
  const view = miniEstate();
  relationshipGraph(view);
  relationshipGraph(view);
  flowGraph(view);
  strictEqual(view.builds.get("graph:relationship"), 1);
});

Deno.test("flowGraph() follows network hops, admits through groups and adds identity edges", () => {
  const flow = flowGraph(miniEstate());
  const hops = flow.mapEdges((_k, a, s, t) =>
    `${s}>${t}:${a.reversed ? "SG_ADMITS" : a.edge_type}${a.identity ? "*" : ""}`
  ).sort();
  deepStrictEqual(hops, [
    "0.0.0.0/0>alb:INTERNET_EXPOSED",
    "0.0.0.0/0>sg-admin:SECURITY_GROUP_RULE",
    "0.0.0.0/0>sg-web:SECURITY_GROUP_RULE",
    "alb>tg:LOAD_BALANCER_TARGET",
    "app-role>bucket:GRANTS_ACCESS*",
    "app-role>deploy-role:IAM_TRUST*",
    "fn>app-role:ASSUMES_ROLE*",
    "sg-admin>bastion:SG_ADMITS",
    "sg-db>db:SG_ADMITS",
    "sg-web>sg-db:SECURITY_GROUP_RULE",
    "sg-web>web-1:SG_ADMITS",
    "subnet>db:CONTAINS",
    "subnet>web-1:CONTAINS",
    "tg>web-1:LOAD_BALANCER_TARGET",
    "vendor>deploy-role:IAM_TRUST*",
    "vpc>subnet:CONTAINS",
    "web-1>app-role:ASSUMES_ROLE*",
  ]);
});

Deno.test("flowGraph() walks forward out of interfaces and public IPs only", () => {
  const view = makeView({
    assets: [asset("eni", "NETWORK_INTERFACE"), asset("vm", "EC2"), asset("vol", "EBS_VOLUME")],
    edges: [edge("a", ["eni", "ATTACHED_TO", "vm"]), edge("b", ["vol", "ATTACHED_TO", "vm"])],
  });
  deepStrictEqual(flowGraph(view).mapEdges((_k, _a, s, t) => `${s}>${t}`), ["eni>vm"]);
});

Deno.test("internetReachable() is what network hops reach from the entry points", () => {
  const view = miniEstate();
  deepStrictEqual(internetEntryPoints(view), [W]);
  deepStrictEqual([...internetReachable(view)].sort(), [
    "alb",
    "bastion",
    "db",
    "sg-admin",
    "sg-db",
    "sg-web",
    "tg",
    "web-1",
  ]);
});

Deno.test("internetEntryPoints() adds sources of internet-CIDR ingress rules, CIDR nodes first", () => {
  const view = makeView({
    assets: [asset("a", "EC2"), asset("b", "NSG"), asset("c", "NSG")],
    edges: [
      edge("x", ["Internet", "SECURITY_GROUP_RULE", "b"], { cidr: "Internet" }),
      edge("y", ["::/0", "SECURITY_GROUP_RULE", "c"], { cidr: "::/0" }),
      edge("z", ["c", "SECURITY_GROUP_RULE", "a"], { cidr: "0.0.0.0/0", direction: "egress" }),
    ],
  });
  deepStrictEqual(internetEntryPoints(view), ["::/0", "Internet"]);
});

Deno.test("graphNodeFor() maps internet refs and placeholder ids, and leaves assets alone", () => {
  const view = miniEstate();
  strictEqual(graphNodeFor(view, " Internet "), W);
  strictEqual(graphNodeFor(view, "public", { virtualInternet: true }), INTERNET_NODE);
  strictEqual(graphNodeFor(view, "::/0"), W);
  strictEqual(graphNodeFor(view, W), W);
  strictEqual(graphNodeFor(view, "web-1"), undefined);
  strictEqual(graphNodeFor(view, "nothing"), undefined);
  const closed = makeView({ assets: [asset("a", "EC2")] });
  throws(() => graphNodeFor(closed, "internet"), GraphQueryError);
});

// The dependency column of the edge type table, written out independently.
const EXPECTED_DIRECTION: Record<string, "forward" | "reverse" | "none"> = {
  SECURITY_GROUP_RULE: "none",
  NACL_RULE: "none",
  ROUTE: "forward",
  IAM_TRUST: "forward",
  IAM_POLICY_ATTACHMENT: "forward",
  CONTAINS: "reverse",
  PEERING: "forward",
  LOAD_BALANCER_TARGET: "forward",
  INTERNET_EXPOSED: "none",
  ATTACHED_TO: "forward",
  REFERENCES: "forward",
  INVOKES: "reverse",
  USES_IMAGE: "forward",
  ASSUMES_ROLE: "forward",
  GRANTS_ACCESS: "forward",
  LOGS_TO: "forward",
  PROTECTS: "reverse",
  MONITORS: "reverse",
  MANAGES: "reverse",
  GOVERNS: "reverse",
};

Deno.test("dependencyPair() points dependent to dependency for every edge type", () => {
  strictEqual(EDGE_TYPES.length, 20);
  for (const type of EDGE_TYPES) {
    const pair = dependencyPair(edge("e", ["src", type, "dst"]));
    const want = EXPECTED_DIRECTION[type];
    const expected = want === "forward"
      ? ["src", "dst"]
      : want === "reverse"
      ? ["dst", "src"]
      : null;
    deepStrictEqual(pair, expected, type);
  }
});

Deno.test("dependencyGraph() skips placeholders and hierarchy containment unless asked", () => {
  const view = makeView({
    assets: [
      asset("acct", "CLOUD_ACCOUNT"),
      asset("vpc", "VPC"),
      asset("fn", "LAMBDA_FUNCTION"),
    ],
    edges: [
      edge("a", ["acct", "CONTAINS", "vpc"]),
      edge("b", ["fn", "REFERENCES", "somewhere"]),
      edge("c", ["vpc", "CONTAINS", "fn"]),
    ],
  });
  const plain = dependencyGraph(view);
  deepStrictEqual([...plain.needs.keys()], ["fn"]);
  strictEqual(dependencyGraphology(view).size, 1);
  deepStrictEqual(
    dependencyGraphology(view).edges().map((e) =>
      dependencyGraphology(view).getEdgeAttributes(e).edge_id
    ),
    ["c"],
  );
  const full = dependencyGraph(view, { includeHierarchy: true });
  deepStrictEqual([...full.needs.keys()], ["vpc", "fn"]);
  deepStrictEqual(
    walkDependents(full, "acct", { maxDepth: 5 }).links.map((l) => [l.asset_id, l.depth]),
    [["vpc", 1], ["fn", 2]],
  );
});

Deno.test("walkDependents() stops at maxNodes and says so", () => {
  const graph = dependencyGraph(miniEstate());
  const full = walkDependents(graph, "kms", { maxDepth: 10 });
  deepStrictEqual(full.links.map((l) => l.asset_id), [
    "db",
    "bucket",
    "app-role",
    "web-1",
    "fn",
    "tg",
    "alb",
  ]);
  strictEqual(full.truncated, false);
  const cut = walkDependents(graph, "kms", { maxDepth: 10, maxNodes: 3 });
  deepStrictEqual(cut.links.map((l) => l.asset_id), ["db", "bucket", "app-role"]);
  ok(cut.truncated);
});
