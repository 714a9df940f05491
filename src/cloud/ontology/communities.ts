/**
 * Communities of assets by Louvain modularity (npm
 * `graphology-communities-louvain`), deterministic: nodes and edges are
 * added in sorted order and the algorithm's random choices come from a
 * seeded generator, so one input always gives the same numbering.
 *
 * @module
 */

import { UndirectedGraph } from "graphology";
import louvainModule from "graphology-communities-louvain";
import { mulberry32 } from "../model/random.ts";
import type { Asset, Edge } from "../model/records.ts";
import { pushTo } from "../../core/multimap.ts";

// The package is CommonJS: its default import is the function the typings
// declare as `default`.
const louvain = louvainModule as unknown as typeof import("graphology-communities-louvain")[
  "default"
];

/** Options of {@link louvainCommunities}. */
export interface LouvainCommunitiesOptions {
  /** Seed of the generator behind Louvain's random walk. @default 7 */
  seed?: number;
  /** Modularity resolution (higher gives smaller communities). @default 1 */
  resolution?: number;
}

/** Assets grouped into communities. */
export interface Communities {
  /** Community number of each asset id. */
  byAsset: Map<string, number>;
  /**
   * Member asset ids per community number, each list sorted; communities are
   * numbered largest first (ties by first member id).
   */
  members: string[][];
  /** Modularity of the partition (0 when there are no edges). */
  modularity: number;
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Finds communities over the undirected asset graph (placeholders such as
 * `0.0.0.0/0` left out; parallel edges add weight).
 *
 * @example
 * ```ts
 * import { louvainCommunities } from "./communities.ts";
 * louvainCommunities({ assets: [], edges: [] }).members; // []
 * ```
 */
export function louvainCommunities(
  input: { assets: readonly Asset[]; edges: readonly Edge[] },
  options: LouvainCommunitiesOptions = {},
): Communities {
  const ids = input.assets.map((a) => a.id).sort(byCodePoint);
  const known = new Set(ids);
  const weights = new Map<string, number>();
  for (const edge of input.edges) {
    const { source_id: a, target_id: b } = edge;
    if (a === b || !known.has(a) || !known.has(b)) continue;
    const key = a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
    weights.set(key, (weights.get(key) ?? 0) + 1);
  }
  const graph = new UndirectedGraph({ allowSelfLoops: false });
  for (const id of ids) graph.addNode(id);
  for (const key of [...weights.keys()].sort(byCodePoint)) {
    const [a, b] = key.split("\u0000") as [string, string];
    graph.addEdge(a, b, { weight: weights.get(key)! });
  }
  let mapping: Record<string, number> = {};
  let modularity = 0;
  if (graph.size > 0) {
    const detailed = louvain.detailed(graph, {
      getEdgeWeight: "weight",
      rng: mulberry32(options.seed ?? 7),
      resolution: options.resolution ?? 1,
    });
    mapping = detailed.communities;
    modularity = detailed.modularity;
  }
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const key = id in mapping ? `c${mapping[id]}` : `n${id}`;
    pushTo(groups, key, id);
  }
  const members = [...groups.values()].sort((x, y) =>
    y.length - x.length || byCodePoint(x[0]!, y[0]!)
  );
  const byAsset = new Map<string, number>();
  members.forEach((list, index) => {
    for (const id of list) byAsset.set(id, index);
  });
  return { byAsset, members, modularity };
}
