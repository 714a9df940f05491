/**
 * Graph exports (spec §6.1) of a relationship graph: D3 (`{nodes, links}`),
 * Cytoscape (`{elements}`) and GraphML (XML text, every attribute value and
 * text escaped, characters XML cannot carry replaced with U+FFFD).
 *
 * @module
 */

import type {
  GraphEdgeAttributes,
  GraphNodeAttributes,
  RelationshipGraph,
} from "./relationship_graph.ts";

/** A D3 node. */
export interface D3Node {
  id: string;
  name: string;
  /** The asset type, or `EXTERNAL` for placeholders. */
  type: string;
  provider: string;
  region: string;
  arn: string;
  account_id: string;
  is_internet_exposed: boolean;
  is_external: boolean;
}

/** A D3 link. */
export interface D3Link {
  source: string;
  target: string;
  type: string;
  port_range: string;
  protocol: string;
  cidr: string;
  direction: string;
  relationship: string;
  description: string;
}

/** The D3 form of a graph. */
export interface D3Graph {
  nodes: D3Node[];
  links: D3Link[];
}

/** The Cytoscape form of a graph. */
export interface CytoscapeGraph {
  elements: {
    nodes: {
      data: {
        id: string;
        label: string;
        type: string;
        provider: string;
        region: string;
        internet_exposed: boolean;
      };
    }[];
    edges: {
      data: { source: string; target: string; type: string; port_range: string; protocol: string };
    }[];
  };
}

/** A node in D3 form: missing strings are "", and a node not marked external is not. */
export function d3Node(id: string, a: GraphNodeAttributes): D3Node {
  return {
    id,
    name: a.name ?? id,
    type: a.asset_type ?? "UNKNOWN",
    provider: a.provider ?? "UNKNOWN",
    region: a.region ?? "",
    arn: a.arn ?? "",
    account_id: a.account_id ?? "",
    is_internet_exposed: a.is_internet_exposed ?? false,
    is_external: a.is_external ?? false,
  };
}

/** An edge in D3 form, from `source` to `target`. */
export function d3Link(source: string, target: string, e: GraphEdgeAttributes): D3Link {
  return {
    source,
    target,
    type: e.edge_type,
    port_range: e.port_range,
    protocol: e.protocol,
    cidr: e.cidr,
    direction: e.direction,
    relationship: e.relationship,
    description: e.description,
  };
}

/** The D3 form: nodes in graph order, links in graph order; missing strings are "". */
export function toD3(graph: RelationshipGraph): D3Graph {
  const nodes: D3Node[] = [];
  graph.forEachNode((id, a) => nodes.push(d3Node(id, a)));
  const links: D3Link[] = [];
  graph.forEachEdge((_key, e, source, target) => links.push(d3Link(source, target, e)));
  return { nodes, links };
}

/** The Cytoscape form: `{elements: {nodes: [{data}], edges: [{data}]}}`. */
export function toCytoscape(graph: RelationshipGraph): CytoscapeGraph {
  const out: CytoscapeGraph = { elements: { nodes: [], edges: [] } };
  graph.forEachNode((id, a) => {
    out.elements.nodes.push({
      data: {
        id,
        label: a.name ?? id,
        type: a.asset_type ?? "UNKNOWN",
        provider: a.provider ?? "UNKNOWN",
        region: a.region ?? "",
        internet_exposed: a.is_internet_exposed ?? false,
      },
    });
  });
  graph.forEachEdge((_key, e, source, target) => {
    out.elements.edges.push({
      data: { source, target, type: e.edge_type, port_range: e.port_range, protocol: e.protocol },
    });
  });
  return out;
}

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
  "\t": "&#9;",
  "\n": "&#10;",
  "\r": "&#13;",
};

/**
 * Escapes text for an XML attribute value (or, with `text`, element
 * content): markup characters become references, as do tab and newline in
 * attributes (where parsers would fold them to spaces) and carriage return
 * everywhere; characters outside XML 1.0's Char production (other C0
 * controls, lone surrogates, U+FFFE, U+FFFF) become U+FFFD.
 */
export function escapeXml(value: string, options: { text?: boolean } = {}): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const ch = value[i]!;
    const escaped = ESCAPES[ch];
    if (options.text && (ch === "\t" || ch === "\n")) out += ch;
    else if (escaped !== undefined) out += escaped;
    else if (c < 0x20 || c === 0xfffe || c === 0xffff) out += "\uFFFD";
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += ch + value[i + 1]!;
        i++;
      } else out += "\uFFFD";
    } else if (c >= 0xdc00 && c <= 0xdfff) out += "\uFFFD";
    else out += ch;
  }
  return out;
}

const NODE_KEYS: readonly [string, "string" | "boolean"][] = [
  ["name", "string"],
  ["asset_type", "string"],
  ["provider", "string"],
  ["region", "string"],
  ["arn", "string"],
  ["account_id", "string"],
  ["tags", "string"],
  ["is_internet_exposed", "boolean"],
  ["is_external", "boolean"],
];
const EDGE_KEYS: readonly string[] = [
  "edge_type",
  "port_range",
  "protocol",
  "cidr",
  "direction",
  "description",
  "relationship",
];

/**
 * The GraphML form: the graphml.graphdrawing.org namespace with its 1.0
 * schema location, `<key>` declarations for node and edge attributes, one
 * directed `<graph>`. Asset nodes carry name, asset_type, provider, region,
 * arn, account_id, tags (JSON) and is_internet_exposed; placeholders carry
 * name, asset_type, provider and is_external. Edges carry their seven
 * string attributes (empty when unset).
 */
export function toGraphML(graph: RelationshipGraph): string {
  const used = new Set<string>();
  graph.forEachNode((_id, a) => {
    for (const [name] of NODE_KEYS) {
      if ((a as unknown as Record<string, unknown>)[name] !== undefined) used.add(name);
    }
  });
  const keyIds = new Map<string, string>();
  const lines: string[] = [
    "<?xml version='1.0' encoding='utf-8'?>",
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
    'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns ' +
    'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
  ];
  for (const [name, type] of NODE_KEYS) {
    if (!used.has(name)) continue;
    const id = `d${keyIds.size}`;
    keyIds.set(`node:${name}`, id);
    lines.push(`  <key id="${id}" for="node" attr.name="${name}" attr.type="${type}" />`);
  }
  if (graph.size > 0) {
    for (const name of EDGE_KEYS) {
      const id = `d${keyIds.size}`;
      keyIds.set(`edge:${name}`, id);
      lines.push(`  <key id="${id}" for="edge" attr.name="${name}" attr.type="string" />`);
    }
  }
  lines.push('  <graph edgedefault="directed">');
  graph.forEachNode((node, a) => {
    lines.push(`    <node id="${escapeXml(node)}">`);
    for (const [name, type] of NODE_KEYS) {
      const value = (a as unknown as Record<string, unknown>)[name];
      if (value === undefined) continue;
      const text = type === "boolean"
        ? (value ? "true" : "false")
        : escapeXml(value === null ? "" : String(value), { text: true });
      lines.push(`      <data key="${keyIds.get(`node:${name}`)}">${text}</data>`);
    }
    lines.push("    </node>");
  });
  graph.forEachEdge((_key, e, source, target) => {
    lines.push(`    <edge source="${escapeXml(source)}" target="${escapeXml(target)}">`);
    for (const name of EDGE_KEYS) {
      const value = (e as unknown as Record<string, string>)[name] ?? "";
      lines.push(
        `      <data key="${keyIds.get(`edge:${name}`)}">${
          escapeXml(value, { text: true })
        }</data>`,
      );
    }
    lines.push("    </edge>");
  });
  lines.push("  </graph>", "</graphml>");
  return lines.join("\n") + "\n";
}

/** The export formats. */
export type GraphFormat = "d3" | "cytoscape" | "graphml";

/** A graph in one export format. */
export function exportGraph(
  graph: RelationshipGraph,
  format: GraphFormat,
): D3Graph | CytoscapeGraph | string {
  if (format === "d3") return toD3(graph);
  if (format === "cytoscape") return toCytoscape(graph);
  return toGraphML(graph);
}
