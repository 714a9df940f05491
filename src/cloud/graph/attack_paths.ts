/**
 * `attack_paths`: the shortest routes from the internet to crown-jewel
 * assets over the flow graph, ranked by target weight, open findings on
 * the way and length (spec §5.5).
 *
 * The search starts at a virtual entry linked to every internet entry
 * point and to every asset flagged internet-exposed.
 *
 * @module
 */

import { roundHalfEven } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import { openFindings } from "../model/briefs.ts";
import { relationshipGraph } from "./relationship_graph.ts";
import { INTERNET_NODE } from "./internet.ts";
import { internetEntryPoints, requireNode } from "./nodes.ts";
import type { PathDescription } from "./paths.ts";
import { DEFAULT_PATH_BUDGET, describePath, pathView } from "./paths.ts";
import { pathTo, searchGraph, shortestPathsFrom } from "./path_search.ts";
import { compactFlowGraph } from "./compact_graph.ts";
import { crownJewelWeight } from "./sensitivity.ts";

/** One ranked attack path. */
export interface AttackPath extends PathDescription {
  /** `internet-exposed asset` or `internet-sourced rule`. */
  entry: string;
  target_weight: number;
  findings_on_path: number;
  score: number;
}

/** The result of {@link attackPaths}. */
export interface AttackPathsResult {
  paths: AttackPath[];
  total_found: number;
  truncated: boolean;
  bounds_hit?: string[];
  targets_considered: number;
  hint?: string;
}

/** Options of {@link attackPaths}. */
export interface AttackPathsOptions {
  /** A node id to reach (weighs 10); absent: every crown-jewel asset. */
  target?: string;
  /** Hops, 1..12. @default 8 */
  maxDepth?: number;
  /** Paths returned, 1..100. @default 20 */
  maxPaths?: number;
  /** Node expansions before the search stops. @default 1_000_000 */
  maxNodesVisited?: number;
}

/**
 * The attack-path score: target weight + 0.5 × min(10, open findings on the
 * path) − 0.3 × (nodes on the path − 1), rounded half-even to 2 decimals.
 */
export function attackPathScore(
  targetWeight: number,
  counts: { findingsOnPath: number; pathNodes: number },
): number {
  return roundHalfEven(
    targetWeight + Math.min(counts.findingsOnPath, 10) * 0.5 - (counts.pathNodes - 1) * 0.3,
    2,
  );
}

/**
 * Ranked shortest routes from the internet to each target, best score
 * first (ties: shorter first), at most `maxPaths` of them.
 */
export function attackPaths(
  view: DatasetView,
  options: AttackPathsOptions = {},
): AttackPathsResult {
  const maxDepth = options.maxDepth ?? 8;
  const maxPaths = options.maxPaths ?? 20;
  const rel = relationshipGraph(view);
  const entryEdge = new Map<string, string>();
  for (const n of internetEntryPoints(view)) if (rel.hasNode(n)) entryEdge.set(n, "INTERNET");
  for (const a of view.records.assets) {
    if (a.is_internet_exposed) entryEdge.set(a.id, "INTERNET_EXPOSED");
  }
  if (entryEdge.size === 0) {
    return {
      paths: [],
      total_found: 0,
      truncated: false,
      targets_considered: 0,
      hint: "Nothing in this dataset is internet-exposed.",
    };
  }
  const targets = new Map<string, number>();
  if (options.target !== undefined) {
    requireNode(view, options.target);
    targets.set(options.target, 10);
  } else {
    for (const a of view.records.assets) {
      const weight = crownJewelWeight(a.asset_type);
      if (weight > 0) targets.set(a.id, weight);
    }
  }
  const pv = pathView(view, "flow");
  const entryIndexes: number[] = [];
  const compact = compactFlowGraph(view);
  for (const n of entryEdge.keys()) {
    // An exposed group is entered as the internet enters it: its internet copy.
    const i = compact.internetCopies?.get(n) ?? pv.indexOf(n);
    if (i !== undefined) entryIndexes.push(i);
  }
  const virtual = compact.ids.length;
  const graph = searchGraph(compact, { virtual: [entryIndexes] });
  const hopType = (u: string, v: string): string =>
    u === INTERNET_NODE ? entryEdge.get(v) ?? "INTERNET" : pv.hopType(u, v);
  const budget = { left: options.maxNodesVisited ?? DEFAULT_PATH_BUDGET };
  const tree = shortestPathsFrom(graph, virtual, { maxHops: maxDepth + 1, budget });
  const ranked: { path: string[]; weight: number; onPath: number; score: number }[] = [];
  for (const [target, weight] of targets) {
    let full: number[] | null = null;
    for (const index of pv.indexesOf(target)) {
      const p = pathTo(tree, index);
      if (p !== null && (full === null || p.length < full.length)) full = [...p];
    }
    if (full === null) continue;
    const path = full.slice(1).map((i) => compact.ids[i]!);
    if (path.length === 0) continue;
    let onPath = 0;
    for (const n of path) if (view.asset(n)) onPath += openFindings(view, n).length;
    const score = attackPathScore(weight, { findingsOnPath: onPath, pathNodes: path.length });
    ranked.push({ path, weight, onPath, score });
  }
  ranked.sort((a, b) => b.score - a.score || a.path.length - b.path.length);
  const found: AttackPath[] = ranked.slice(0, maxPaths).map(({ path, weight, onPath, score }) => ({
    ...describePath(view, path, hopType),
    entry: entryEdge.get(path[0]!) === "INTERNET_EXPOSED"
      ? "internet-exposed asset"
      : "internet-sourced rule",
    target_weight: weight,
    findings_on_path: onPath,
    score,
  }));
  const bounds: string[] = [];
  if (ranked.length > maxPaths) bounds.push("max_paths");
  if (tree.budgetExhausted) bounds.push("max_nodes_visited");
  const out: AttackPathsResult = {
    paths: found,
    total_found: ranked.length,
    truncated: bounds.length > 0,
    targets_considered: targets.size,
  };
  if (bounds.length > 0) out.bounds_hit = bounds;
  return out;
}
