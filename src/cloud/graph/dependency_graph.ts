/**
 * The dependency graph (spec §5.3 c): every edge whose type has a
 * dependency direction becomes one `dependent → dependency` arrow — forward
 * types as they point, reverse types turned around, `none` types left out.
 * Both ends must be assets. Containment under an organisation, OU or
 * account ("where", not "what breaks") is left out unless asked for.
 *
 * The dependency graph is kept as ordered arrow lists (what the walks
 * read); {@link dependencyGraphology} gives it as a graphology multigraph.
 *
 * `dependsOn` walks upstream (what an asset needs), `dependents` walks
 * downstream (what needs it: what breaks if it breaks).
 *
 * @module
 */

import { MultiDirectedGraph } from "graphology";
import { EDGE_TYPE_INFO } from "../model/enums.ts";
import type { Edge } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import { pushTo } from "../../core/multimap.ts";

/** One dependency arrow seen from one end. */
export interface DependencyArrow {
  /** The asset at the other end. */
  other: string;
  /** The raw edge the arrow comes from. */
  edge: Edge;
}

/** What an edge of the dependency graph carries. */
export interface DependencyEdgeAttributes {
  edge_type: string;
  relationship: string | null;
  edge_id: string;
}

/** The dependency view of a dataset. */
export interface DependencyGraph {
  /** dependent → its dependencies, in dataset edge order. */
  needs: ReadonlyMap<string, readonly DependencyArrow[]>;
  /** dependency → its dependents, in dataset edge order. */
  neededBy: ReadonlyMap<string, readonly DependencyArrow[]>;
}

/** One hop of a dependency walk. */
export interface DependencyLink {
  asset_id: string;
  /** The edge type the hop came through. */
  via_edge: string;
  relationship: string | null;
  depth: number;
  parent_id: string;
}

/** The outcome of a bounded dependency walk. */
export interface DependencyWalk {
  links: DependencyLink[];
  /** True when `maxNodes` stopped the walk before it was complete. */
  truncated: boolean;
}

const HIERARCHY_TYPES = new Set(["ORGANIZATION", "ORG_UNIT", "CLOUD_ACCOUNT"]);

/** Which way an edge type makes its ends depend on each other. */
export function dependencyDirection(edgeType: string): "forward" | "reverse" | "none" {
  const info = (EDGE_TYPE_INFO as Record<string, { dependency: "forward" | "reverse" | "none" }>)[
    edgeType
  ];
  return info ? info.dependency : "none";
}

/**
 * The `[dependent, dependency]` pair an edge makes, or null when the edge
 * type carries no dependency.
 */
export function dependencyPair(edge: Edge): [string, string] | null {
  const direction = dependencyDirection(edge.edge_type);
  if (direction === "forward") return [edge.source_id, edge.target_id];
  if (direction === "reverse") return [edge.target_id, edge.source_id];
  return null;
}

/** Whether `CONTAINS` edges from organisations, organisational units and accounts count as dependencies. */
export interface HierarchyOption {
  /** @default false */
  includeHierarchy?: boolean;
}

/** The dependency graph of a dataset, built once per version and hierarchy choice. */
export function dependencyGraph(view: DatasetView, options: HierarchyOption = {}): DependencyGraph {
  const includeHierarchy = options.includeHierarchy ?? false;
  return view.derived(`graph:dependency:${includeHierarchy}`, () => {
    const needs = new Map<string, DependencyArrow[]>();
    const neededBy = new Map<string, DependencyArrow[]>();
    for (const edge of view.records.edges) {
      const pair = dependencyPair(edge);
      if (pair === null) continue;
      const [dependent, dependency] = pair;
      const dependencyAsset = view.asset(dependency);
      if (dependencyAsset === undefined || view.asset(dependent) === undefined) continue;
      if (
        !includeHierarchy && edge.edge_type === "CONTAINS" &&
        HIERARCHY_TYPES.has(dependencyAsset.asset_type)
      ) continue;
      pushTo(needs, dependent, { other: dependency, edge });
      pushTo(neededBy, dependency, { other: dependent, edge });
    }
    return { needs, neededBy };
  });
}

/** The dependency graph as a graphology multigraph (dependent → dependency, one edge per raw edge). */
export type DependencyGraphology = MultiDirectedGraph<
  Record<string, never>,
  DependencyEdgeAttributes
>;

/**
 * The dependency graph as a graphology multigraph, for library algorithms
 * and exports; built on first use (the walks use the ordered lists).
 */
export function dependencyGraphology(
  view: DatasetView,
  options: HierarchyOption = {},
): DependencyGraphology {
  return view.derived(`graph:dependency_graphology:${options.includeHierarchy ?? false}`, () => {
    const graph: DependencyGraphology = new MultiDirectedGraph({ allowSelfLoops: true });
    for (const [dependent, arrows] of dependencyGraph(view, options).needs) {
      graph.mergeNode(dependent);
      for (const { other, edge } of arrows) {
        graph.mergeNode(other);
        graph.addDirectedEdge(dependent, other, {
          edge_type: edge.edge_type,
          relationship: edge.relationship,
          edge_id: edge.id,
        });
      }
    }
    return graph;
  });
}

function walk(
  start: string,
  adjacency: ReadonlyMap<string, readonly DependencyArrow[]>,
  options: { maxDepth: number; maxNodes: number },
): DependencyWalk {
  const seen = new Set([start]);
  const links: DependencyLink[] = [];
  const queue: [string, number][] = [[start, 0]];
  for (let i = 0; i < queue.length; i++) {
    const [node, depth] = queue[i]!;
    if (depth >= options.maxDepth) continue;
    for (const { other, edge } of adjacency.get(node) ?? []) {
      if (seen.has(other)) continue;
      if (links.length >= options.maxNodes) return { links, truncated: true };
      seen.add(other);
      links.push({
        asset_id: other,
        via_edge: edge.edge_type,
        relationship: edge.relationship,
        depth: depth + 1,
        parent_id: node,
      });
      queue.push([other, depth + 1]);
    }
  }
  return { links, truncated: false };
}

/** Options of a dependency walk. */
export interface WalkOptions {
  /** Hops from the start. */
  maxDepth: number;
  /** Most assets to collect before stopping. @default 1_000_000 */
  maxNodes?: number;
}

/** A breadth-first walk of a dependency graph from one asset, one way. */
export type DependencyWalker = (
  graph: DependencyGraph,
  assetId: string,
  options: WalkOptions,
) => DependencyWalk;

function walker(side: "needs" | "neededBy"): DependencyWalker {
  return (graph, assetId, options) =>
    walk(assetId, graph[side], {
      maxDepth: options.maxDepth,
      maxNodes: options.maxNodes ?? 1_000_000,
    });
}

/** Everything an asset needs (upstream), breadth-first, in dataset edge order. */
export const walkDependsOn: DependencyWalker = walker("needs");

/** Everything that needs an asset (downstream), breadth-first, in dataset edge order. */
export const walkDependents: DependencyWalker = walker("neededBy");
