import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { escapeXml, toCytoscape, toD3, toGraphML } from "../src/cloud/graph/exports.ts";
import {
  buildRelationshipGraph,
  relationshipGraph,
} from "../src/cloud/graph/relationship_graph.ts";
import { subgraphExport } from "../src/cloud/graph/subgraph.ts";
import { asset, edge, makeView, miniEstate } from "./helpers/cloud_estate.ts";

const W = "0.0.0.0/0";

interface Parsed {
  graphml: {
    "@_xmlns": string;
    "@_xsi:schemaLocation": string;
    key: { "@_id": string; "@_for": string; "@_attr.name": string; "@_attr.type": string }[];
    graph: {
      "@_edgedefault": string;
      node?: { "@_id": string; data?: { "@_key": string; "#text"?: string }[] }[];
      edge?: {
        "@_source": string;
        "@_target": string;
        data?: { "@_key": string; "#text"?: string }[];
      }[];
    };
  };
}

function parse(xml: string): Parsed {
  strictEqual(XMLValidator.validate(xml), true);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    isArray: (name) => ["key", "node", "edge", "data"].includes(name),
  });
  return parser.parse(xml) as Parsed;
}

function dataOf(
  parsed: Parsed,
  element: { data?: { "@_key": string; "#text"?: string }[] },
): Record<string, string> {
  const names = new Map(parsed.graphml.key.map((k) => [k["@_id"], k["@_attr.name"]]));
  const out: Record<string, string> = {};
  for (const d of element.data ?? []) out[names.get(d["@_key"])!] = d["#text"] ?? "";
  return out;
}

Deno.test("toGraphML() round-trips node and edge counts through an independent parser", () => {
  const graph = relationshipGraph(miniEstate());
  const parsed = parse(toGraphML(graph));
  strictEqual(parsed.graphml["@_xmlns"], "http://graphml.graphdrawing.org/xmlns");
  ok(parsed.graphml["@_xsi:schemaLocation"].endsWith("/1.0/graphml.xsd"));
  strictEqual(parsed.graphml.graph["@_edgedefault"], "directed");
  strictEqual(parsed.graphml.graph.node!.length, 19);
  strictEqual(parsed.graphml.graph.edge!.length, 22);
  deepStrictEqual(
    parsed.graphml.key.map((k) => [k["@_for"], k["@_attr.name"], k["@_attr.type"]]),
    [
      ["node", "name", "string"],
      ["node", "asset_type", "string"],
      ["node", "provider", "string"],
      ["node", "region", "string"],
      ["node", "arn", "string"],
      ["node", "account_id", "string"],
      ["node", "tags", "string"],
      ["node", "is_internet_exposed", "boolean"],
      ["node", "is_external", "boolean"],
      ["edge", "edge_type", "string"],
      ["edge", "port_range", "string"],
      ["edge", "protocol", "string"],
      ["edge", "cidr", "string"],
      ["edge", "direction", "string"],
      ["edge", "description", "string"],
      ["edge", "relationship", "string"],
    ],
  );
  const placeholder = parsed.graphml.graph.node!.find((n) => n["@_id"] === W)!;
  deepStrictEqual(dataOf(parsed, placeholder), {
    name: W,
    asset_type: "EXTERNAL",
    provider: "EXTERNAL",
    is_external: "true",
  });
  const web = parsed.graphml.graph.node!.find((n) => n["@_id"] === "web-1")!;
  deepStrictEqual(dataOf(parsed, web), {
    name: "web-1",
    asset_type: "EC2",
    provider: "AWS",
    region: "us-east-1",
    arn: "arn:aws:test:::web-1",
    account_id: "111111111111",
    tags: "{}",
    is_internet_exposed: "true",
  });
  const merged = parsed.graphml.graph.edge!.find((e) =>
    e["@_source"] === W && e["@_target"] === "sg-web"
  )!;
  deepStrictEqual(dataOf(parsed, merged), {
    edge_type: "SECURITY_GROUP_RULE",
    port_range: "443,80",
    protocol: "TCP",
    cidr: W,
    direction: "ingress",
    description: "https; http",
    relationship: "",
  });
});

Deno.test("toGraphML() escapes every attribute and text, and replaces characters XML forbids", () => {
  const nasty = `a<b>&"c'd\te\nf`;
  const graph = buildRelationshipGraph(
    [
      asset(`id"<&>'`, "OTHER", {
        name: nasty + "\u0001\uD800z",
        tags: { "k<": 'v&"' },
        arn: null,
      }),
    ],
    [edge("x", [`id"<&>'`, "REFERENCES", "ext&<"], { description: "]]> & <!-- -->" })],
  );
  const parsed = parse(toGraphML(graph));
  const nodes = parsed.graphml.graph.node!;
  deepStrictEqual(nodes.map((n) => n["@_id"]), [`id"<&>'`, "ext&<"]);
  const data = dataOf(parsed, nodes[0]!);
  strictEqual(data.name, nasty + "\uFFFD\uFFFDz");
  strictEqual(data.tags, JSON.stringify({ "k<": 'v&"' }));
  strictEqual(data.arn, "");
  const e = parsed.graphml.graph.edge![0]!;
  deepStrictEqual([e["@_source"], e["@_target"]], [`id"<&>'`, "ext&<"]);
  strictEqual(dataOf(parsed, e).description, "]]> & <!-- -->");
  strictEqual(escapeXml("\uD83D\uDE00"), "\uD83D\uDE00");
  strictEqual(escapeXml("a\tb\r\n"), "a&#9;b&#13;&#10;");
  strictEqual(escapeXml("a\tb\r\n", { text: true }), "a\tb&#13;\n");
});

Deno.test("toGraphML() of an empty graph is still valid GraphML", () => {
  const parsed = parse(toGraphML(buildRelationshipGraph([], [])));
  strictEqual(parsed.graphml.graph.node, undefined);
  strictEqual(parsed.graphml.graph["@_edgedefault"], "directed");
});

Deno.test("toD3() gives nodes and links with missing strings as empty strings", () => {
  const d3 = toD3(relationshipGraph(miniEstate()));
  strictEqual(d3.nodes.length, 19);
  strictEqual(d3.links.length, 22);
  deepStrictEqual(d3.nodes.find((n) => n.id === W), {
    id: W,
    name: W,
    type: "EXTERNAL",
    provider: "EXTERNAL",
    region: "",
    arn: "",
    account_id: "",
    is_internet_exposed: false,
    is_external: true,
  });
  deepStrictEqual(d3.links.find((l) => l.source === "waf"), {
    source: "waf",
    target: "alb",
    type: "PROTECTS",
    port_range: "",
    protocol: "",
    cidr: "",
    direction: "ingress",
    relationship: "",
    description: "",
  });
});

Deno.test("toCytoscape() gives elements with node data and edge data", () => {
  const cy = toCytoscape(relationshipGraph(miniEstate()));
  strictEqual(cy.elements.nodes.length, 19);
  strictEqual(cy.elements.edges.length, 22);
  deepStrictEqual(cy.elements.nodes[7], {
    data: {
      id: "alb",
      label: "alb",
      type: "LOAD_BALANCER",
      provider: "AWS",
      region: "us-east-1",
      internet_exposed: true,
    },
  });
  deepStrictEqual(cy.elements.edges[0], {
    data: {
      source: W,
      target: "sg-web",
      type: "SECURITY_GROUP_RULE",
      port_range: "443,80",
      protocol: "TCP",
    },
  });
});

Deno.test("subgraphExport() walks around seeds and exports the sub-graph in each format", () => {
  const view = miniEstate();
  const one = subgraphExport(view, ["bastion"]);
  deepStrictEqual([one.nodes, one.edges, one.truncated], [2, 1, false]);
  const two = subgraphExport(view, ["bastion"], { depth: 2, format: "cytoscape" });
  deepStrictEqual([two.nodes, two.edges], [3, 2]);
  const graph = two.graph as ReturnType<typeof toCytoscape>;
  deepStrictEqual(graph.elements.nodes.map((n) => n.data.id), ["bastion", "sg-admin", W]);
  const xml = subgraphExport(view, ["bastion", "alb"], { format: "graphml" });
  const parsed = parse(xml.graph as string);
  strictEqual(parsed.graphml.graph.node!.length, xml.nodes);
  strictEqual(parsed.graphml.graph.edge!.length, xml.edges);
  const none = subgraphExport(view, ["web-1"], { depth: 0 });
  deepStrictEqual([none.nodes, none.edges], [1, 0]);
  const capped = subgraphExport(view, ["web-1"], { maxNodes: 2 });
  deepStrictEqual([capped.nodes, capped.truncated], [2, true]);
  ok(capped.bounds_hit!.length > 0);
  const typed = subgraphExport(view, ["web-1"], { edgeTypes: ["ASSUMES_ROLE"] });
  deepStrictEqual([typed.nodes, typed.edges], [2, 1]);
});

Deno.test("subgraphExport() keeps placeholders only through kept edges", () => {
  const view = makeView({
    assets: [asset("a", "EC2")],
    edges: [edge("x", ["10.0.0.0/8", "SECURITY_GROUP_RULE", "a"], { cidr: "10.0.0.0/8" })],
  });
  const out = subgraphExport(view, ["10.0.0.0/8"], { format: "d3" });
  deepStrictEqual([out.nodes, out.edges], [2, 1]);
});
