/**
 * `subgraph_export`: the neighbourhood of a few seed nodes (both directions,
 * optional edge-type filter, node cap) rebuilt as its own relationship
 * graph and exported as D3, Cytoscape or GraphML.
 *
 * @module
 */

import type { DatasetView } from "../model/view.ts";
import type { CytoscapeGraph, D3Graph, GraphFormat } from "./exports.ts";
import { exportGraph } from "./exports.ts";
import { walkNeighborhood } from "./neighborhood.ts";
import { requireNode } from "./nodes.ts";
import { buildRelationshipGraph } from "./relationship_graph.ts";

/** Options of {@link subgraphExport}. */
export interface SubgraphOptions {
  /** Hops around each seed, 0..4. @default 1 */
  depth?: number;
  /** @default "d3" */
  format?: GraphFormat;
  /** Nodes kept, 1..2000. @default 300 */
  maxNodes?: number;
  /** Only these edge types, for the walk and the exported edges. */
  edgeTypes?: readonly string[];
}

/** The result of {@link subgraphExport}. */
export interface SubgraphResult {
  format: GraphFormat;
  /** Nodes of the exported graph. */
  nodes: number;
  /** Edges of the exported graph (after merge rules). */
  edges: number;
  truncated: boolean;
  bounds_hit?: string[];
  graph: D3Graph | CytoscapeGraph | string;
}

/**
 * Walks `depth` hops around each seed node (asset or placeholder ids), keeps
 * at most `maxNodes` nodes, and exports the graph of the kept assets and the
 * edges between kept nodes.
 */
export function subgraphExport(
  view: DatasetView,
  seeds: readonly string[],
  options: SubgraphOptions = {},
): SubgraphResult {
  const depth = options.depth ?? 1;
  const format = options.format ?? "d3";
  const maxNodes = options.maxNodes ?? 300;
  const types = options.edgeTypes && options.edgeTypes.length > 0
    ? new Set(options.edgeTypes)
    : null;
  for (const s of seeds) requireNode(view, s);
  const keep: string[] = [];
  const kept = new Set<string>();
  const bounds = new Set<string>();
  for (const seed of seeds) {
    const found = walkNeighborhood(view, seed, {
      direction: "both",
      edgeTypes: options.edgeTypes,
      depth,
      cap: maxNodes,
    });
    for (const b of found.bounds_hit) bounds.add(b);
    for (const n of [seed, ...found.nodes]) {
      if (!kept.has(n)) {
        kept.add(n);
        keep.push(n);
      }
    }
  }
  if (keep.length > maxNodes) {
    bounds.add("max_nodes");
    for (const n of keep.splice(maxNodes)) kept.delete(n);
  }
  const assets = keep.map((n) => view.asset(n)).filter((a) => a !== undefined);
  const edges = view.records.edges.filter((e) =>
    kept.has(e.source_id) && kept.has(e.target_id) && (!types || types.has(e.edge_type))
  );
  const sub = buildRelationshipGraph(assets, edges);
  const out: SubgraphResult = {
    format,
    nodes: sub.order,
    edges: sub.size,
    truncated: bounds.size > 0,
    graph: exportGraph(sub, format),
  };
  if (bounds.size > 0) out.bounds_hit = [...bounds];
  return out;
}
