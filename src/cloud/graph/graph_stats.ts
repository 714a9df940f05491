/**
 * `graph_stats`: the shape of the relationship graph — nodes (assets and
 * placeholders), raw and merged edge counts, edges by type and relationship,
 * weakly connected components, isolated assets, density and mean degree.
 *
 * @module
 */

import { connectedComponents } from "graphology-components";
import { countBy, rankedCounts } from "../model/counts.ts";
import { roundHalfEven } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import { relationshipGraph } from "./relationship_graph.ts";

/** The result of {@link graphStats}. */
export interface GraphStats {
  nodes: number;
  asset_nodes: number;
  placeholder_nodes: number;
  /** Raw edges in the dataset. */
  edges: number;
  /** Edges of the relationship graph after merge rules. */
  graph_edges: number;
  /** Raw edges by type, most first. */
  edges_by_type: Record<string, number>;
  /** Raw edges by declared relationship, most first, at most 30. */
  edges_by_relationship: Record<string, number>;
  /** Weakly connected components. */
  components: number;
  largest_component: number;
  isolated_assets: number;
  /** m / (n(n−1)), 6 decimals. */
  density: number;
  /** (in + out degree) / n, 3 decimals. */
  mean_degree: number;
}

/** Statistics of the relationship graph of a dataset; built once per version. */
export function graphStats(view: DatasetView): GraphStats {
  return view.derived("graph:stats", () => {
    const graph = relationshipGraph(view);
    const n = graph.order;
    const edges = view.records.edges;
    const related = edges.filter((e) => e.relationship);
    const sizes = connectedComponents(graph).map((c) => c.length).sort((a, b) => b - a);
    let assetNodes = 0;
    let isolated = 0;
    let degreeSum = 0;
    graph.forEachNode((node) => {
      const d = graph.degree(node);
      degreeSum += d;
      if (view.asset(node) !== undefined) {
        assetNodes++;
        if (d === 0) isolated++;
      }
    });
    return {
      nodes: n,
      asset_nodes: view.records.assets.length,
      placeholder_nodes: n - assetNodes,
      edges: view.records.edges.length,
      graph_edges: graph.size,
      edges_by_type: rankedCounts(countBy(edges, (e) => e.edge_type)),
      edges_by_relationship: rankedCounts(countBy(related, (e) => e.relationship!), 30),
      components: sizes.length,
      largest_component: sizes[0] ?? 0,
      isolated_assets: isolated,
      density: n > 1 ? roundHalfEven(graph.size / (n * (n - 1)), 6) : 0,
      mean_degree: n > 0 ? roundHalfEven(degreeSum / n, 3) : 0,
    };
  });
}
