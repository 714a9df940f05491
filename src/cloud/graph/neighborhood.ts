/**
 * The breadth-first neighbourhood walk over raw edges (parallel edges kept)
 * and the `neighbors` query built on it.
 *
 * @module
 */

import type { Edge } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import type { AssetBrief, EdgeBrief } from "../model/briefs.ts";
import { edgeBrief } from "../model/briefs.ts";
import type { PlaceholderBrief } from "./briefs.ts";
import { nodeBrief } from "./briefs.ts";
import { rawAdjacency, requireNode } from "./nodes.ts";

/** Options of the neighbourhood walk. */
export interface WalkNeighborhoodOptions {
  /** `out` follows edges from a node, `in` edges to it. @default "both" */
  direction?: "out" | "in" | "both";
  /** Only these edge types (empty or absent: all). */
  edgeTypes?: readonly string[];
  /** Hops from the start. @default 1 */
  depth?: number;
  /** Most nodes collected; edges are capped at twice this. @default 100 */
  cap?: number;
}

/** What the neighbourhood walk found. */
export interface Neighborhood {
  /** Nodes reached, start excluded, in discovery order. */
  nodes: string[];
  /** Edges crossed, in discovery order. */
  edges: Edge[];
  /** True when the node or edge cap stopped the walk. */
  truncated: boolean;
  /** Which caps were hit (`node_cap`, `edge_cap`). */
  bounds_hit: string[];
}

/** Walks up to `depth` hops from a node over raw edges, collecting nodes and edges within caps. */
export function walkNeighborhood(
  view: DatasetView,
  start: string,
  options: WalkNeighborhoodOptions = {},
): Neighborhood {
  const direction = options.direction ?? "both";
  const types = options.edgeTypes && options.edgeTypes.length > 0
    ? new Set(options.edgeTypes)
    : null;
  const depth = options.depth ?? 1;
  const cap = options.cap ?? 100;
  const adjacency = rawAdjacency(view);
  const seen = new Set([start]);
  const seenEdges = new Set<Edge>();
  const nodes: string[] = [];
  const edges: Edge[] = [];
  const hit = new Set<string>();
  const queue: [string, number][] = [[start, 0]];
  for (let i = 0; i < queue.length; i++) {
    const [node, d] = queue[i]!;
    if (d >= depth) continue;
    for (const hop of adjacency.get(node) ?? []) {
      if (direction !== "both" && hop.direction !== direction) continue;
      if (types && !types.has(hop.edge.edge_type)) continue;
      if (!seenEdges.has(hop.edge)) {
        if (edges.length >= cap * 2) {
          hit.add("edge_cap");
          continue;
        }
        seenEdges.add(hop.edge);
        edges.push(hop.edge);
      }
      if (seen.has(hop.other)) continue;
      if (nodes.length >= cap) {
        hit.add("node_cap");
        continue;
      }
      seen.add(hop.other);
      nodes.push(hop.other);
      queue.push([hop.other, d + 1]);
    }
  }
  return { nodes, edges, truncated: hit.size > 0, bounds_hit: [...hit] };
}

/** The result of {@link neighbors}. */
export interface NeighborsResult {
  asset: AssetBrief | PlaceholderBrief;
  nodes: (AssetBrief | PlaceholderBrief)[];
  edges: EdgeBrief[];
  node_count: number;
  edge_count: number;
  truncated: boolean;
  bounds_hit?: string[];
}

/** Options of {@link neighbors}. */
export interface NeighborsOptions {
  /** @default "both" */
  direction?: "out" | "in" | "both";
  edgeTypes?: readonly string[];
  /** 1..4. @default 1 */
  depth?: number;
  /** Node cap; edges are capped at twice this. @default 100 */
  limit?: number;
}

/**
 * Nodes and edges within `depth` hops of a node (an asset id or placeholder
 * id), breadth-first over raw edges: at most `limit` nodes and 2×`limit` edges.
 */
export function neighbors(
  view: DatasetView,
  start: string,
  options: NeighborsOptions = {},
): NeighborsResult {
  requireNode(view, start);
  const found = walkNeighborhood(view, start, {
    direction: options.direction ?? "both",
    edgeTypes: options.edgeTypes,
    depth: options.depth ?? 1,
    cap: options.limit ?? 100,
  });
  const out: NeighborsResult = {
    asset: nodeBrief(view, start),
    nodes: found.nodes.map((n) => nodeBrief(view, n)),
    edges: found.edges.map((e) => edgeBrief(view, e)),
    node_count: found.nodes.length,
    edge_count: found.edges.length,
    truncated: found.truncated,
  };
  if (found.truncated) out.bounds_hit = found.bounds_hit;
  return out;
}
