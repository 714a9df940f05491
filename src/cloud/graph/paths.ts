/**
 * `find_paths`: the shortest simple paths between two nodes over the flow,
 * directed (relationship) or undirected graph, bounded by hops, paths and
 * node expansions. A search from {@link INTERNET_NODE} starts at a virtual
 * node linked to every internet entry point; paths are reported without it.
 *
 * @module
 */

import type { DatasetView } from "../model/view.ts";
import type { AssetBrief, HopBrief } from "../model/briefs.ts";
import type { PlaceholderBrief } from "./briefs.ts";
import { hopBrief, nodeBrief } from "./briefs.ts";
import { flowHop, flowHopType } from "./flow_graph.ts";
import { INTERNET_NODE } from "./internet.ts";
import { internetEntryPoints, requireNode } from "./nodes.ts";
import type { SearchGraph } from "./path_search.ts";
import { kShortestPaths, searchGraph } from "./path_search.ts";
import { compactFlowGraph, compactRelationshipGraph } from "./compact_graph.ts";
import { relationshipGraph } from "./relationship_graph.ts";

/** Which graph a path search walks. */
export type PathMode = "flow" | "directed" | "undirected";

/** One path as results describe it. */
export interface PathDescription {
  /** Hops. */
  length: number;
  nodes: HopBrief[];
  /** The edge type of each hop (`SG_ADMITS` for a group admitting traffic to what it guards). */
  edge_types: string[];
  /** Node names joined with " -> ". */
  summary: string;
}

/** Expansions one path query may spend before it stops and reports truncation. */
export const DEFAULT_PATH_BUDGET = 1_000_000;

/** A mode's graph ready for searching, with the virtual internet node wired in. */
export interface PathView {
  /** The search graph; the virtual internet node is the last index. */
  graph: SearchGraph;
  /** Node ids by index (the virtual internet node included). */
  ids: readonly string[];
  /** The index of a node id, or undefined. */
  indexOf(id: string): number | undefined;
  /** The edge type shown for hop u→v (ids). */
  hopType(u: string, v: string): string;
  /** Every index standing for a node id: the node, and in flow mode its internet copy. */
  indexesOf(id: string): number[];
}

/** The search graph and hop names of a mode, with {@link INTERNET_NODE} linked to every entry point. */
export function pathView(view: DatasetView, mode: PathMode): PathView {
  const rel = relationshipGraph(view);
  const compact = mode === "flow" ? compactFlowGraph(view) : compactRelationshipGraph(view);
  const entries: number[] = [];
  for (const n of internetEntryPoints(view)) {
    const i = compact.index.get(n);
    if (i !== undefined) entries.push(i);
  }
  const undirected = mode === "undirected";
  const graph = searchGraph(compact, { undirected, virtual: [entries] });
  const virtualIndex = compact.ids.length;
  const ids = [...compact.ids, INTERNET_NODE];
  const indexOf = (id: string): number | undefined =>
    id === INTERNET_NODE ? virtualIndex : compact.index.get(id);
  const edgeType = mode === "flow"
    ? (u: string, v: string): string => {
      const hop = flowHop(view, u, v);
      return hop === undefined ? "?" : flowHopType(hop);
    }
    : (u: string, v: string): string => {
      let key = rel.edge(u, v);
      if (key === undefined && undirected) key = rel.edge(v, u);
      return key === undefined ? "?" : rel.getEdgeAttribute(key, "edge_type");
    };
  const indexesOf = (id: string): number[] => {
    const main = indexOf(id);
    const copy = compact.internetCopies?.get(id);
    return [...(main === undefined ? [] : [main]), ...(copy === undefined ? [] : [copy])];
  };
  return {
    graph,
    ids,
    indexOf,
    hopType: (u, v) => u === INTERNET_NODE ? "INTERNET" : edgeType(u, v),
    indexesOf,
  };
}

/** Describes a path: hop briefs, the edge type of each hop, and a readable summary. */
export function describePath(
  view: DatasetView,
  path: readonly string[],
  hopType: (u: string, v: string) => string,
): PathDescription {
  const nodes = path.map((n) => hopBrief(view, n));
  const edgeTypes: string[] = [];
  for (let i = 0; i + 1 < path.length; i++) edgeTypes.push(hopType(path[i]!, path[i + 1]!));
  return {
    length: path.length - 1,
    nodes,
    edge_types: edgeTypes,
    summary: nodes.map((n) => n.name).join(" -> "),
  };
}

/** Options of {@link findPaths}. */
export interface FindPathsOptions {
  /** Hops, 1..12. @default 6 */
  maxDepth?: number;
  /** Paths, 1..50. @default 5 */
  maxPaths?: number;
  /** @default "flow" */
  mode?: PathMode;
  /** Node expansions before the search stops. @default 1_000_000 */
  maxNodesVisited?: number;
}

/** The result of {@link findPaths}. */
export interface FindPathsResult {
  source: AssetBrief | PlaceholderBrief;
  target: AssetBrief | PlaceholderBrief;
  mode: PathMode;
  paths: PathDescription[];
  total_found: number;
  truncated: boolean;
  /** Present when truncated: `max_paths` (more paths exist) and/or `max_nodes_visited`. */
  bounds_hit?: string[];
  hint?: string;
}

/**
 * The shortest simple paths from `source` to `target` (node ids; the source
 * may be {@link INTERNET_NODE}), shortest first, each of at most `maxDepth`
 * hops. `truncated` says more paths exist than `maxPaths`, or the search
 * budget ran out.
 */
export function findPaths(
  view: DatasetView,
  ends: { source: string; target: string },
  options: FindPathsOptions = {},
): FindPathsResult {
  const maxDepth = options.maxDepth ?? 6;
  const maxPaths = options.maxPaths ?? 5;
  const mode = options.mode ?? "flow";
  requireNode(view, ends.source);
  requireNode(view, ends.target);
  const pv = pathView(view, mode);
  const skip = ends.source === INTERNET_NODE ? 1 : 0;
  const budget = { left: options.maxNodesVisited ?? DEFAULT_PATH_BUDGET };
  const source = pv.indexOf(ends.source);
  // A group the internet enters is also searched as its internet copy (see compactFlowGraph).
  const search = { paths: [] as number[][], budgetExhausted: false };
  for (const target of source === undefined ? [] : pv.indexesOf(ends.target)) {
    if (source === undefined) break;
    const one = kShortestPaths(pv.graph, { source, target }, {
      count: maxPaths + 1,
      maxHops: maxDepth + skip,
      budget,
      undirected: mode === "undirected",
    });
    search.paths.push(...one.paths.map((p) => [...p]));
    search.budgetExhausted ||= one.budgetExhausted;
  }
  search.paths.sort((a, b) => a.length - b.length);
  const seen = new Set<string>();
  const found = search.paths.map((p) => p.slice(skip).map((i) => pv.ids[i]!)).filter((p) => {
    // A path through both a group and its internet copy names the group twice.
    const key = p.join("\u0000");
    if (p.length === 0 || new Set(p).size < p.length || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const kept = found.slice(0, maxPaths);
  const bounds: string[] = [];
  if (found.length > maxPaths) bounds.push("max_paths");
  if (search.budgetExhausted) bounds.push("max_nodes_visited");
  const out: FindPathsResult = {
    source: nodeBrief(view, ends.source),
    target: nodeBrief(view, ends.target),
    mode,
    paths: kept.map((p) => describePath(view, p, pv.hopType)),
    total_found: kept.length,
    truncated: bounds.length > 0,
  };
  if (bounds.length > 0) out.bounds_hit = bounds;
  if (kept.length === 0) {
    out.hint = `No path within ${maxDepth} hops in '${mode}' mode. Try mode='undirected' or a ` +
      "larger max_depth, or check neighbors() of each end.";
  }
  return out;
}
