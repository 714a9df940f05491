/**
 * `centrality_top`: the most connected or most "in the middle" assets of
 * the relationship graph. Degree centralities are exact; betweenness is
 * exact (graphology-metrics) up to 1,500 nodes and sampled from 300 seeded
 * pivots above that, scaled as a full computation would be.
 *
 * @module
 */

import betweennessModule from "graphology-metrics/centrality/betweenness.js";
import { mulberry32 } from "../model/random.ts";
import { roundHalfEven } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import type { AssetBrief } from "../model/briefs.ts";
import { assetBrief } from "../model/briefs.ts";
import type { RelationshipGraph } from "./relationship_graph.ts";
import { relationshipGraph } from "./relationship_graph.ts";

/** The centrality measures offered. */
export type CentralityMetric = "degree" | "in_degree" | "out_degree" | "betweenness";

/** Above this many nodes betweenness is sampled. */
export const BETWEENNESS_EXACT_LIMIT = 1500;
/** Pivots sampled for betweenness on larger graphs. */
export const BETWEENNESS_SAMPLES = 300;
/** Seed of the pivot sample. */
export const BETWEENNESS_SEED = 7;

type Betweenness = (
  graph: RelationshipGraph,
  options: { normalized: boolean },
) => Record<string, number>;

// The package is CommonJS: its default import is the function itself, or
// carries it as `default` depending on the loader.
const betweennessCentrality: Betweenness = typeof betweennessModule === "function"
  ? betweennessModule as unknown as Betweenness
  : (betweennessModule as unknown as { default: Betweenness }).default;

/**
 * Betweenness from `k` seeded pivots (Brandes on unit weights over a
 * compact adjacency), normalised for a directed graph and scaled by n/k;
 * with k = n it is the exact normalised betweenness.
 */
export function sampledBetweenness(
  graph: RelationshipGraph,
  options: { k: number; seed: number },
): Map<string, number> {
  const { k, seed } = options;
  const ids = graph.nodes();
  const n = ids.length;
  const index = new Map<string, number>();
  ids.forEach((id, i) => index.set(id, i));
  const offsets = new Int32Array(n + 1);
  ids.forEach((id, i) => (offsets[i + 1] = offsets[i]! + graph.outDegree(id)));
  const targets = new Int32Array(offsets[n]!);
  ids.forEach((id, i) => {
    let at = offsets[i]!;
    graph.forEachOutNeighbor(id, (t) => {
      targets[at++] = index.get(t)!;
    });
  });
  // Seeded partial Fisher–Yates picks k distinct pivots.
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const random = mulberry32(seed);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (n - i));
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  const score = new Float64Array(n);
  const sigma = new Float64Array(n);
  const dist = new Int32Array(n);
  const delta = new Float64Array(n);
  const stack = new Int32Array(n);
  const queue = new Int32Array(n);
  for (let p = 0; p < k; p++) {
    const s = order[p]!;
    sigma.fill(0);
    dist.fill(-1);
    delta.fill(0);
    sigma[s] = 1;
    dist[s] = 0;
    let head = 0;
    let tail = 0;
    let top = 0;
    queue[tail++] = s;
    while (head < tail) {
      const v = queue[head++]!;
      stack[top++] = v;
      for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
        const w = targets[e]!;
        if (dist[w]! < 0) {
          dist[w] = dist[v]! + 1;
          queue[tail++] = w;
        }
        if (dist[w] === dist[v]! + 1) sigma[w]! += sigma[v]!;
      }
    }
    while (top > 0) {
      const w = stack[--top]!;
      for (let e = offsets[w]!; e < offsets[w + 1]!; e++) {
        const x = targets[e]!;
        if (dist[x] === dist[w]! + 1) delta[w]! += (sigma[w]! / sigma[x]!) * (1 + delta[x]!);
      }
      if (w !== s) score[w]! += delta[w]!;
    }
  }
  const scale = n > 2 ? (1 / ((n - 1) * (n - 2))) * (n / k) : 1;
  const out = new Map<string, number>();
  ids.forEach((id, i) => out.set(id, score[i]! * scale));
  return out;
}

/** Centrality scores of every node of the relationship graph; built once per version and metric. */
export function centralityScores(
  view: DatasetView,
  metric: CentralityMetric,
): ReadonlyMap<string, number> {
  return view.derived(`graph:centrality:${metric}`, () => {
    const graph = relationshipGraph(view);
    const n = graph.order;
    const out = new Map<string, number>();
    if (metric === "betweenness") {
      if (n > BETWEENNESS_EXACT_LIMIT) {
        return sampledBetweenness(graph, {
          k: Math.min(n, BETWEENNESS_SAMPLES),
          seed: BETWEENNESS_SEED,
        });
      }
      const scores = betweennessCentrality(graph, { normalized: true });
      graph.forEachNode((node) => out.set(node, scores[node] ?? 0));
      return out;
    }
    const scale = n > 1 ? 1 / (n - 1) : 1;
    graph.forEachNode((node) => {
      const d = metric === "degree"
        ? graph.degree(node)
        : metric === "in_degree"
        ? graph.inDegree(node)
        : graph.outDegree(node);
      out.set(node, d * scale);
    });
    return out;
  });
}

/** One row of {@link centralityTop}. */
export type CentralityRow = AssetBrief & { score: number; degree: number };

/**
 * The `top` assets by a centrality metric (highest first, ties in graph
 * order), optionally only of some asset types; scores to 5 decimals.
 */
export function centralityTop(
  view: DatasetView,
  options: { metric?: CentralityMetric; top?: number; assetTypes?: readonly string[] } = {},
): { metric: CentralityMetric; sampled: boolean; items: CentralityRow[] } {
  const metric = options.metric ?? "degree";
  const top = options.top ?? 20;
  const types = options.assetTypes && options.assetTypes.length > 0
    ? new Set(options.assetTypes)
    : null;
  const graph = relationshipGraph(view);
  const ranked = [...centralityScores(view, metric)]
    .map(([node, score], i) => ({ node, score, i }))
    .sort((a, b) => b.score - a.score || a.i - b.i);
  const items: CentralityRow[] = [];
  for (const { node, score } of ranked) {
    if (items.length >= top) break;
    const asset = view.asset(node);
    if (!asset || (types && !types.has(asset.asset_type))) continue;
    items.push({
      ...assetBrief(view, asset),
      score: roundHalfEven(score, 5),
      degree: graph.degree(node),
    });
  }
  return {
    metric,
    sampled: metric === "betweenness" && graph.order > BETWEENNESS_EXACT_LIMIT,
    items,
  };
}
