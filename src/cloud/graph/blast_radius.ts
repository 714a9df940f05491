/**
 * `blast_radius`: what is affected if an asset breaks or is compromised —
 * the dependency view (everything that transitively depends on it) and the
 * network view (everything reachable from it over relationship edges, with
 * a 0–10 risk score, spec §5.5).
 *
 * @module
 */

import { roundHalfEven } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import type { AssetBrief } from "../model/briefs.ts";
import { assetBrief } from "../model/briefs.ts";
import type { PlaceholderBrief } from "./briefs.ts";
import { nodeBrief } from "./briefs.ts";
import type { DependencyItem } from "./dependencies.ts";
import { dependencyItems } from "./dependencies.ts";
import { dependencyGraph, walkDependents } from "./dependency_graph.ts";
import { GraphQueryError } from "./errors.ts";
import { compareCodePoints } from "../model/order.ts";
import { compactRelationshipGraph } from "./compact_graph.ts";
import { reachableFrom, searchGraph } from "./path_search.ts";
import { CROWN_JEWEL_WEIGHTS, SENSITIVE_DATA_STORES } from "./sensitivity.ts";

/** What the network walk from one node reached. */
export interface NetworkReach {
  /** Every node reached (placeholders included), start excluded, in discovery order. */
  nodes: string[];
  /** The deepest hop count reached. */
  depth: number;
  /** True when `maxNodes` stopped the walk. */
  truncated: boolean;
}

/**
 * Every node reachable from `start` over relationship-graph edges
 * (descendants: the start itself is never listed), breadth-first.
 */
export function networkReach(
  view: DatasetView,
  start: string,
  options: { maxNodes?: number } = {},
): NetworkReach {
  const compact = compactRelationshipGraph(view);
  const index = compact.index.get(start);
  if (index === undefined) return { nodes: [], depth: 0, truncated: false };
  const reach = reachableFrom(searchGraph(compact), [index], {
    maxNodes: options.maxNodes ?? 1_000_000,
  });
  return {
    nodes: reach.nodes.filter((i) => i !== index).map((i) => compact.ids[i]!),
    depth: reach.depth,
    truncated: reach.truncated,
  };
}

/**
 * The network risk score of a reach: 0.5 per reachable node, plus 2.0 per
 * reachable sensitive data store, capped at 10, rounded to one decimal.
 */
export function networkRiskScore(view: DatasetView, reached: readonly string[]): number {
  let score = Math.min(10, reached.length * 0.5);
  for (const n of reached) {
    const a = view.asset(n);
    if (a && SENSITIVE_DATA_STORES.has(a.asset_type)) score = Math.min(10, score + 2);
  }
  return roundHalfEven(score, 1);
}

/** The result of {@link blastRadius}. */
export interface BlastRadiusResult {
  asset: AssetBrief;
  dependency: {
    transitive_dependents: number;
    by_depth: Record<string, number>;
    accounts_affected: string[];
    internet_exposed_dependents: number;
    items: DependencyItem[];
    truncated: boolean;
    bounds_hit?: string[];
  };
  network: {
    /** Assets reached. */
    reachable_assets: number;
    /** Nodes reached, placeholders included: what the risk score counts. */
    reachable_nodes: number;
    max_depth: number;
    risk_score: number;
    sensitive_reachable: (AssetBrief | PlaceholderBrief)[];
    truncated: boolean;
  };
}

/** Options of {@link blastRadius}. */
export interface BlastRadiusOptions {
  /** Dependency hops, 1..15. @default 10 */
  maxDepth?: number;
  /** Items listed per view, 1..500. @default 50 */
  limit?: number;
  /** Nodes walked per view before stopping. @default 1_000_000 */
  maxNodes?: number;
}

/** The dependency and network blast radius of an asset. */
export function blastRadius(
  view: DatasetView,
  assetId: string,
  options: BlastRadiusOptions = {},
): BlastRadiusResult {
  const asset = view.asset(assetId);
  if (asset === undefined) {
    throw new GraphQueryError(
      `No asset has the id ${JSON.stringify(assetId.slice(0, 200))}; blast_radius takes a ` +
        "resolved asset id.",
    );
  }
  const limit = options.limit ?? 50;
  const walk = walkDependents(dependencyGraph(view), assetId, {
    maxDepth: options.maxDepth ?? 10,
    maxNodes: options.maxNodes,
  });
  const items = dependencyItems(view, walk.links);
  const byDepth: Record<string, number> = {};
  const accounts = new Set<string>();
  let exposed = 0;
  for (const i of items) {
    byDepth[String(i.depth)] = (byDepth[String(i.depth)] ?? 0) + 1;
    if (i.account_id) accounts.add(i.account_id);
    if (i.internet_exposed) exposed++;
  }
  const bounds: string[] = [];
  if (items.length > limit) bounds.push("limit");
  if (walk.truncated) bounds.push("max_nodes");
  const reach = networkReach(view, assetId, { maxNodes: options.maxNodes });
  const reachAssets = reach.nodes.filter((n) => view.asset(n) !== undefined).sort(
    compareCodePoints,
  );
  const sensitive = reachAssets.filter((n) => view.asset(n)!.asset_type in CROWN_JEWEL_WEIGHTS);
  const dependency: BlastRadiusResult["dependency"] = {
    transitive_dependents: items.length,
    by_depth: byDepth,
    accounts_affected: [...accounts].sort(compareCodePoints),
    internet_exposed_dependents: exposed,
    items: items.slice(0, limit),
    truncated: bounds.length > 0,
  };
  if (bounds.length > 0) dependency.bounds_hit = bounds;
  return {
    asset: assetBrief(view, asset),
    dependency,
    network: {
      reachable_assets: reachAssets.length,
      reachable_nodes: reach.nodes.length,
      max_depth: reach.depth,
      risk_score: networkRiskScore(view, reach.nodes),
      sensitive_reachable: sensitive.slice(0, limit).map((n) => nodeBrief(view, n)),
      truncated: reach.truncated,
    },
  };
}
