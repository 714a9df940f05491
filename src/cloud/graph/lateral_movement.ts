/**
 * `lateral_movement_paths`: identity pivot chains from footholds
 * (internet-exposed assets and external accounts, or one given start) along
 * ASSUMES_ROLE, IAM_TRUST and GRANTS_ACCESS edges to the roles and resources
 * at their ends, most valuable end first.
 *
 * @module
 */

import { DirectedGraph } from "graphology";
import type { DatasetView } from "../model/view.ts";
import { viewCrossAccountEnds } from "../model/edge_accounts.ts";
import { IDENTITY_EDGE_TYPES } from "./flow_graph.ts";
import type { PathDescription } from "./paths.ts";
import { DEFAULT_PATH_BUDGET, describePath } from "./paths.ts";
import { pathTo, searchGraph, shortestPathsFrom } from "./path_search.ts";
import type { CompactGraph } from "./compact_graph.ts";
import { compactGraph } from "./compact_graph.ts";
import { crownJewelWeight } from "./sensitivity.ts";

/** The identity graph: identity edges only, one per ordered pair (later edges replace earlier). */
export type IdentityGraph = DirectedGraph<Record<string, never>, { edge_type: string }>;

/** The identity graph of a dataset, built once per version. */
export function identityGraph(view: DatasetView): IdentityGraph {
  return view.derived("graph:identity", () => {
    const g: IdentityGraph = new DirectedGraph({ allowSelfLoops: true });
    for (const e of view.records.edges) {
      if (!IDENTITY_EDGE_TYPES.has(e.edge_type)) continue;
      g.mergeNode(e.source_id);
      g.mergeNode(e.target_id);
      g.mergeDirectedEdge(e.source_id, e.target_id, { edge_type: e.edge_type });
    }
    return g;
  });
}

/** The compact identity graph of a dataset, built once per version. */
export function compactIdentityGraph(view: DatasetView): CompactGraph {
  return view.derived("graph:compact:identity", () => compactGraph(identityGraph(view)));
}

/** Options of {@link lateralMovementPaths}. */
export interface LateralMovementOptions {
  /**
   * A node id to start from; absent: every internet-exposed asset, every
   * CLOUD_ACCOUNT marked external, and every principal of an external
   * account (see `EdgeAccounts.external` in model/edge_accounts.ts) an identity edge starts at.
   */
  start?: string;
  /** Hops, 1..8. @default 4 */
  maxDepth?: number;
  /** Paths returned, 1..100. @default 25 */
  maxPaths?: number;
  /** Chains collected before the search stops. @default 10_000 */
  maxChains?: number;
  /** Node expansions before the search stops. @default 1_000_000 */
  maxNodesVisited?: number;
}

/** The result of {@link lateralMovementPaths}. */
export interface LateralMovementResult {
  paths: PathDescription[];
  total_found: number;
  truncated: boolean;
  bounds_hit?: string[];
  starting_points: number;
}

/**
 * Shortest identity chains from each start to every node it reaches that
 * has no identity edge onward, sorted by the highest crown-jewel weight on
 * the chain (desc), then by length.
 */
export function lateralMovementPaths(
  view: DatasetView,
  options: LateralMovementOptions = {},
): LateralMovementResult {
  const maxDepth = options.maxDepth ?? 4;
  const maxPaths = options.maxPaths ?? 25;
  const maxChains = options.maxChains ?? 10_000;
  const g = identityGraph(view);
  const starts: string[] = [];
  if (options.start !== undefined) starts.push(options.start);
  else {
    for (const a of view.records.assets) if (a.is_internet_exposed) starts.push(a.id);
    for (const a of view.records.assets) {
      if (a.asset_type === "CLOUD_ACCOUNT" && a.metadata["external"]) starts.push(a.id);
    }
    // Principals of accounts outside the dataset that an identity edge admits (a role trusting
    // 999999999999:root): the dataset holds no asset for them, only the edge.
    for (const e of view.records.edges) {
      if (!IDENTITY_EDGE_TYPES.has(e.edge_type) || view.asset(e.source_id)) continue;
      if (viewCrossAccountEnds(view, e)?.external) starts.push(e.source_id);
    }
  }
  const unique = [...new Set(starts)];
  const budget = { left: options.maxNodesVisited ?? DEFAULT_PATH_BUDGET };
  const compact = compactIdentityGraph(view);
  const graph = searchGraph(compact);
  const chains: string[][] = [];
  const bounds = new Set<string>();
  for (const s of unique) {
    const start = compact.index.get(s);
    if (start === undefined) continue;
    const tree = shortestPathsFrom(graph, start, { maxHops: maxDepth, budget });
    if (tree.budgetExhausted) bounds.add("max_nodes_visited");
    for (const node of tree.order) {
      if (node === start || compact.out.offsets[node + 1] !== compact.out.offsets[node]) continue;
      if (chains.length >= maxChains) {
        bounds.add("max_chains");
        break;
      }
      chains.push(pathTo(tree, node)!.map((i) => compact.ids[i]!));
    }
    if (bounds.size > 0) break;
  }
  const weight = (p: string[]): number => {
    let best = 0;
    for (const n of p) {
      const a = view.asset(n);
      if (a) best = Math.max(best, crownJewelWeight(a.asset_type));
    }
    return best;
  };
  const ranked = chains.map((p) => ({ p, w: weight(p) }));
  ranked.sort((a, b) => b.w - a.w || a.p.length - b.p.length);
  if (ranked.length > maxPaths) bounds.add("max_paths");
  const hopType = (u: string, v: string): string => {
    const key = g.edge(u, v);
    return key === undefined ? "?" : g.getEdgeAttribute(key, "edge_type");
  };
  const out: LateralMovementResult = {
    paths: ranked.slice(0, maxPaths).map(({ p }) => describePath(view, p, hopType)),
    total_found: ranked.length,
    truncated: bounds.size > 0,
    starting_points: unique.length,
  };
  if (bounds.size > 0) out.bounds_hit = [...bounds];
  return out;
}
