/**
 * The relationship graph (spec §5.3 a): one directed edge per ordered node
 * pair. Parallel security group, NACL and internet-exposure edges with the
 * same CIDR and direction merge into one (port ranges and protocols become
 * comma unions, descriptions are joined with "; "); any other edge on a
 * pair already linked replaces the earlier one. Edge endpoints that are not
 * assets become placeholder nodes of type and provider `EXTERNAL`.
 *
 * @module
 */

import { DirectedGraph } from "graphology";
import type { Asset, Edge } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import { isFilterRuleEdge, isPortedProtocol, isPortlessProtocol } from "./ports.ts";

/** What a node of the relationship graph carries. */
export interface GraphNodeAttributes {
  name: string;
  asset_type: string;
  provider: string;
  /** Absent on placeholders. */
  region?: string;
  arn?: string | null;
  account_id?: string;
  /** Tags as a JSON object string. */
  tags?: string;
  is_internet_exposed?: boolean;
  /** True on placeholders only. */
  is_external?: boolean;
}

/** What an edge of the relationship graph carries (empty strings when unset). */
export interface GraphEdgeAttributes {
  edge_type: string;
  port_range: string;
  protocol: string;
  cidr: string;
  direction: string;
  description: string;
  relationship: string;
}

/** The relationship graph type. */
export type RelationshipGraph = DirectedGraph<GraphNodeAttributes, GraphEdgeAttributes>;

const MERGEABLE = new Set(["SECURITY_GROUP_RULE", "NACL_RULE", "INTERNET_EXPOSED"]);
const ALL_PORTS = "0-65535";

function split(value: string): string[] {
  return value.split(",").map((p) => p.trim()).filter((p) => p !== "");
}

function unique(values: readonly string[], options: { ignoreCase?: boolean } = {}): string[] {
  const seen = new Map<string, string>();
  for (const v of values) {
    const key = options.ignoreCase ? v.toUpperCase() : v;
    if (!seen.has(key)) seen.set(key, v);
  }
  return [...seen.values()];
}

function canMerge(existing: GraphEdgeAttributes, next: GraphEdgeAttributes): boolean {
  return existing.edge_type === next.edge_type && MERGEABLE.has(next.edge_type) &&
    existing.cidr === next.cidr &&
    existing.direction.toLowerCase() === next.direction.toLowerCase();
}

function rulePorts(attrs: GraphEdgeAttributes, mixedProtocols: boolean): string[] {
  const protocols = split(attrs.protocol).map((p) => p.toUpperCase());
  if (mixedProtocols && protocols.length > 0 && protocols.every(isPortlessProtocol)) {
    return [];
  }
  const tokens = split(attrs.port_range);
  if (tokens.length > 0) return tokens;
  if (isFilterRuleEdge(attrs.edge_type) && protocols.some(isPortedProtocol)) {
    return [ALL_PORTS];
  }
  return [];
}

function mergeInto(existing: GraphEdgeAttributes, next: GraphEdgeAttributes): GraphEdgeAttributes {
  const protocols = unique([...split(existing.protocol), ...split(next.protocol)], {
    ignoreCase: true,
  });
  const mixed = protocols.length > 1;
  const portRange = !mixed && !existing.port_range && !next.port_range
    ? ""
    : unique([...rulePorts(existing, mixed), ...rulePorts(next, mixed)]).join(",");
  const descriptions = unique([
    ...existing.description.split("; ").filter((d) => d !== ""),
    ...(next.description ? [next.description] : []),
  ]);
  return {
    ...existing,
    protocol: protocols.join(","),
    port_range: portRange,
    description: descriptions.join("; "),
    relationship: existing.relationship || next.relationship,
  };
}

/** The attributes an asset node carries. */
export function assetNodeAttributes(asset: Asset): GraphNodeAttributes {
  return {
    name: asset.name,
    asset_type: asset.asset_type,
    provider: asset.provider,
    region: asset.region,
    arn: asset.arn,
    account_id: asset.account_id ?? "",
    tags: JSON.stringify(asset.tags ?? {}),
    is_internet_exposed: asset.is_internet_exposed,
  };
}

/** The attributes of a placeholder: a node that edges name but no asset is. */
export function placeholderAttributes(id: string): GraphNodeAttributes {
  return { name: id, asset_type: "EXTERNAL", provider: "EXTERNAL", is_external: true };
}

/** The attributes a raw edge contributes to the graph edge on its pair. */
export function edgeAttributes(edge: Edge): GraphEdgeAttributes {
  return {
    edge_type: edge.edge_type,
    port_range: edge.port_range ?? "",
    protocol: edge.protocol ?? "",
    cidr: edge.cidr ?? "",
    direction: edge.direction ?? "",
    description: edge.description ?? "",
    relationship: edge.relationship ?? "",
  };
}

/**
 * Builds a relationship graph from assets and edges: assets first, in
 * order, then placeholders as edges name them, with the merge rules above.
 */
export function buildRelationshipGraph(
  assets: readonly Asset[],
  edges: readonly Edge[],
): RelationshipGraph {
  const graph: RelationshipGraph = new DirectedGraph({ allowSelfLoops: true });
  for (const asset of assets) {
    if (!graph.hasNode(asset.id)) graph.addNode(asset.id, assetNodeAttributes(asset));
    else graph.replaceNodeAttributes(asset.id, assetNodeAttributes(asset));
  }
  const ensure = (id: string): void => {
    if (!graph.hasNode(id)) {
      graph.addNode(id, placeholderAttributes(id));
    }
  };
  for (const edge of edges) {
    ensure(edge.source_id);
    ensure(edge.target_id);
    const attrs = edgeAttributes(edge);
    const key = graph.edge(edge.source_id, edge.target_id);
    if (key === undefined) {
      graph.addDirectedEdge(edge.source_id, edge.target_id, attrs);
      continue;
    }
    const existing = graph.getEdgeAttributes(key);
    graph.replaceEdgeAttributes(
      key,
      canMerge(existing, attrs) ? mergeInto(existing, attrs) : attrs,
    );
  }
  return graph;
}

/** The relationship graph of a dataset, built once per dataset version. */
export function relationshipGraph(view: DatasetView): RelationshipGraph {
  return view.derived(
    "graph:relationship",
    () => buildRelationshipGraph(view.records.assets, view.records.edges),
  );
}
