/**
 * The dependency queries: `depends_on`, `dependents`, `dependency_tree`,
 * `shared_dependencies` and `largest_blast_radius`, over the dependency
 * graph (availability and change impact).
 *
 * @module
 */

import type { Asset } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import type { AssetBrief } from "../model/briefs.ts";
import { assetBrief } from "../model/briefs.ts";
import type { DependencyLink, DependencyWalker, HierarchyOption } from "./dependency_graph.ts";
import { dependencyGraph, walkDependents, walkDependsOn } from "./dependency_graph.ts";
import { GraphQueryError } from "./errors.ts";
import { compareCodePoints } from "../model/order.ts";
import { type AssetIdentity, assetIdentity } from "../model/references.ts";
import { pushTo } from "../../core/multimap.ts";

/** One dependency item: the asset brief plus how it was reached. */
export type DependencyItem = AssetBrief & {
  via: string;
  relationship: string | null;
  depth: number;
  parent_id: string;
};

/** The result of {@link dependsOn} and {@link dependents}. */
export interface DependencyListResult {
  asset: AssetBrief;
  total: number;
  returned: number;
  truncated: boolean;
  bounds_hit?: string[];
  items: DependencyItem[];
}

/** Options of {@link dependsOn} and {@link dependents}. */
export interface DependencyListOptions {
  /** Hops, 1..15. @default 3 */
  maxDepth?: number;
  /** Items returned, 1..500. @default 100 */
  limit?: number;
  /** Assets walked before the walk stops. @default 1_000_000 */
  maxNodes?: number;
}

function requireAsset(view: DatasetView, assetId: string): Asset {
  const asset = view.asset(assetId);
  if (asset === undefined) {
    throw new GraphQueryError(
      `No asset has the id ${JSON.stringify(assetId.slice(0, 200))}; dependency queries take ` +
        "a resolved asset id.",
    );
  }
  return asset;
}

/** Dependency links as items (links whose asset is gone are skipped). */
export function dependencyItems(
  view: DatasetView,
  links: readonly DependencyLink[],
): DependencyItem[] {
  const out: DependencyItem[] = [];
  for (const link of links) {
    const a = view.asset(link.asset_id);
    if (a === undefined) continue;
    out.push({
      ...assetBrief(view, a),
      via: link.via_edge,
      relationship: link.relationship,
      depth: link.depth,
      parent_id: link.parent_id,
    });
  }
  return out;
}

function listResult(
  view: DatasetView,
  asset: Asset,
  walk: { links: DependencyLink[]; truncated: boolean },
  limit: number,
): DependencyListResult {
  const items = dependencyItems(view, walk.links);
  const bounds: string[] = [];
  if (items.length > limit) bounds.push("limit");
  if (walk.truncated) bounds.push("max_nodes");
  const out: DependencyListResult = {
    asset: assetBrief(view, asset),
    total: items.length,
    returned: Math.min(limit, items.length),
    truncated: bounds.length > 0,
    items: items.slice(0, limit),
  };
  if (bounds.length > 0) out.bounds_hit = bounds;
  return out;
}

/** The assets a walk one way reaches from an asset, with the edge and depth of each. */
export type DependencyLister = (
  view: DatasetView,
  assetId: string,
  options?: DependencyListOptions,
) => DependencyListResult;

function lister(walkOf: DependencyWalker): DependencyLister {
  return (view, assetId, options = {}) => {
    const asset = requireAsset(view, assetId);
    const walk = walkOf(dependencyGraph(view), assetId, {
      maxDepth: options.maxDepth ?? 3,
      maxNodes: options.maxNodes,
    });
    return listResult(view, asset, walk, options.limit ?? 100);
  };
}

/** Everything an asset needs (upstream), breadth-first, with the edge and depth of each. */
export const dependsOn: DependencyLister = lister(walkDependsOn);

/** Everything that needs an asset (downstream): what breaks if it breaks. */
export const dependents: DependencyLister = lister(walkDependents);

/** How {@link dependencyTree} and the ranking queries describe an asset. */
export interface AssetDescription extends AssetIdentity {
  region: string;
}

/** One node of a dependency tree. */
export type TreeNode = AssetDescription & {
  via: string;
  relationship: string | null;
  children: TreeNode[];
};

/** The result of {@link dependencyTree}. */
export interface DependencyTreeResult {
  asset: AssetDescription;
  depends_on?: TreeNode[];
  dependents?: TreeNode[];
  truncated: boolean;
  bounds_hit?: string[];
}

/** The short description of an asset used by trees and rankings. */
export function describeAsset(asset: Asset): AssetDescription {
  return { ...assetIdentity(asset), region: asset.region };
}

function nest(view: DatasetView, root: string, links: readonly DependencyLink[]): TreeNode[] {
  const children = new Map<string, DependencyLink[]>();
  for (const link of links) {
    pushTo(children, link.parent_id, link);
  }
  const build = (parent: string): TreeNode[] =>
    (children.get(parent) ?? []).map((link) => ({
      ...describeAsset(view.asset(link.asset_id)!),
      via: link.via_edge,
      relationship: link.relationship,
      children: build(link.asset_id),
    }));
  return build(root);
}

function prune(nodes: readonly TreeNode[], budget: { left: number; cut: boolean }): TreeNode[] {
  const out: TreeNode[] = [];
  for (const n of nodes) {
    if (budget.left <= 0) {
      budget.cut = true;
      break;
    }
    budget.left--;
    out.push({ ...n, children: prune(n.children, budget) });
  }
  return out;
}

/** Options of {@link dependencyTree}. */
export interface DependencyTreeOptions extends HierarchyOption {
  /** `up` = what it depends on, `down` = what depends on it. @default "both" */
  direction?: "up" | "down" | "both";
  /** Hops, 1..6. @default 3 */
  maxDepth?: number;
  /** Tree nodes kept (pre-order, upstream tree first), 1..1000. @default 200 */
  maxNodes?: number;
  /** Assets walked per direction before the walk stops. @default 1_000_000 */
  maxWalk?: number;
}

/** The nested upstream / downstream trees of an asset, pruned to `maxNodes` in pre-order. */
export function dependencyTree(
  view: DatasetView,
  assetId: string,
  options: DependencyTreeOptions = {},
): DependencyTreeResult {
  const asset = requireAsset(view, assetId);
  const direction = options.direction ?? "both";
  const graph = dependencyGraph(view, options);
  const walkOptions = { maxDepth: options.maxDepth ?? 3, maxNodes: options.maxWalk };
  const budget = { left: options.maxNodes ?? 200, cut: false };
  const out: DependencyTreeResult = { asset: describeAsset(asset), truncated: false };
  let walkCut = false;
  if (direction === "up" || direction === "both") {
    const walk = walkDependsOn(graph, assetId, walkOptions);
    walkCut ||= walk.truncated;
    out.depends_on = prune(nest(view, assetId, walk.links), budget);
  }
  if (direction === "down" || direction === "both") {
    const walk = walkDependents(graph, assetId, walkOptions);
    walkCut ||= walk.truncated;
    out.dependents = prune(nest(view, assetId, walk.links), budget);
  }
  const bounds: string[] = [];
  if (budget.cut) bounds.push("max_nodes");
  if (walkCut) bounds.push("max_walk");
  out.truncated = bounds.length > 0;
  if (bounds.length > 0) out.bounds_hit = bounds;
  return out;
}

/** One row of {@link sharedDependencies}. */
export type SharedDependency = AssetDescription & { direct_dependents: number };

const STRUCTURAL = new Set(["CONTAINS", "PEERING"]);

/**
 * Single points of failure: assets that at least two distinct assets
 * directly depend on through non-structural edges (not CONTAINS or
 * PEERING), most direct dependents first (ties: id descending).
 */
export function sharedDependencies(
  view: DatasetView,
  options: { top?: number } = {},
): { items: SharedDependency[]; returned: number } {
  const top = options.top ?? 25;
  const ranked: [number, string][] = [];
  for (const [dep, users] of dependencyGraph(view).neededBy) {
    const functional = users.filter((u) => !STRUCTURAL.has(u.edge.edge_type));
    if (functional.length < 2) continue;
    ranked.push([new Set(functional.map((u) => u.other)).size, dep]);
  }
  ranked.sort((a, b) => b[0] - a[0] || compareCodePoints(b[1], a[1]));
  const items = ranked.slice(0, top).map(([n, id]) => ({
    ...describeAsset(view.asset(id)!),
    direct_dependents: n,
  }));
  return { items, returned: items.length };
}

/** One row of {@link largestBlastRadius}. */
export type BlastRadiusRow = AssetDescription & {
  transitive_dependents: number;
  accounts_affected: number;
  internet_exposed_dependents: number;
};

/**
 * The assets whose failure affects the most others: among the 4×`top`
 * assets with the most direct dependents, the largest transitive dependent
 * sets (depth 10), ties by id descending. Each asset's count is kept for
 * the dataset version, so repeated calls only walk new candidates.
 */
export function largestBlastRadius(
  view: DatasetView,
  options: { top?: number; maxNodes?: number } = {},
): { items: BlastRadiusRow[]; returned: number; truncated: boolean; bounds_hit?: string[] } {
  const top = options.top ?? 15;
  const graph = dependencyGraph(view);
  const pool = view.derived(
    "graph:dependency_pool",
    () =>
      [...graph.neededBy.entries()]
        .map(([id, users], i) => ({ id, n: users.length, i }))
        .sort((a, b) => b.n - a.n || a.i - b.i),
  ).slice(0, top * 4);
  let cut = false;
  const memo = view.derived(
    `graph:transitive_dependents:${options.maxNodes ?? "all"}`,
    () => new Map<string, [number, number, number, boolean]>(),
  );
  const scored: [number, string, number, number][] = [];
  for (const { id } of pool) {
    let row = memo.get(id);
    if (row === undefined) {
      const walk = walkDependents(graph, id, { maxDepth: 10, maxNodes: options.maxNodes });
      const accounts = new Set<string>();
      let exposed = 0;
      for (const link of walk.links) {
        const a = view.asset(link.asset_id)!;
        if (a.account_id) accounts.add(a.account_id);
        if (a.is_internet_exposed) exposed++;
      }
      row = [walk.links.length, accounts.size, exposed, walk.truncated];
      memo.set(id, row);
    }
    cut ||= row[3];
    scored.push([row[0], id, row[1], row[2]]);
  }
  scored.sort((a, b) => b[0] - a[0] || compareCodePoints(b[1], a[1]) || b[2] - a[2] || b[3] - a[3]);
  const items = scored.slice(0, top).filter(([count]) => count > 0).map((
    [count, id, accounts, exposed],
  ) => ({
    ...describeAsset(view.asset(id)!),
    transitive_dependents: count,
    accounts_affected: accounts,
    internet_exposed_dependents: exposed,
  }));
  const out: {
    items: BlastRadiusRow[];
    returned: number;
    truncated: boolean;
    bounds_hit?: string[];
  } = { items, returned: items.length, truncated: cut };
  if (cut) out.bounds_hit = ["max_nodes"];
  return out;
}
