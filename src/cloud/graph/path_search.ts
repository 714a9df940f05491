/**
 * Bounded path searches over integer-indexed graphs: breadth-first shortest
 * paths, the breadth-first tree from one source, and the k shortest simple
 * paths (Yen's algorithm on unit weights). Every search spends a shared
 * budget of node expansions so a large estate cannot make a query run away.
 *
 * @module
 */

import type { CompactGraph, CsrPart } from "./compact_graph.ts";

/** A graph as searches see it: nodes 0..count−1 and their successors. */
export interface SearchGraph {
  /** Number of nodes, extra (virtual) nodes included. */
  count: number;
  /** Adjacency parts whose union gives a node's successors, in order. */
  parts: readonly CsrPart[];
  /** Successors of nodes outside the parts (virtual nodes), tried first. */
  extra?: ReadonlyMap<number, readonly number[]>;
}

/** A budget of node expansions shared by the searches of one query. */
export interface SearchBudget {
  /** Expansions left; searches stop when it reaches zero. */
  left: number;
}

/**
 * A search graph over a compact graph: out-neighbours (and in-neighbours
 * when `undirected`), plus `virtual` extra nodes appended after the real
 * ones, each with its successor list.
 */
export function searchGraph(
  graph: CompactGraph,
  options: { undirected?: boolean; virtual?: readonly (readonly number[])[] } = {},
): SearchGraph {
  const n = graph.ids.length;
  const extra = new Map<number, readonly number[]>();
  (options.virtual ?? []).forEach((succ, i) => extra.set(n + i, succ));
  return {
    count: n + extra.size,
    parts: options.undirected ? [graph.out, graph.in] : [graph.out],
    extra,
  };
}

function forEachSuccessor(g: SearchGraph, node: number, visit: (next: number) => boolean): void {
  const extra = g.extra?.get(node);
  if (extra) {
    for (const n of extra) if (visit(n)) return;
  }
  for (const part of g.parts) {
    if (node + 1 >= part.offsets.length) continue;
    const end = part.offsets[node + 1]!;
    for (let e = part.offsets[node]!; e < end; e++) if (visit(part.targets[e]!)) return;
  }
}

/** Reusable per-query scratch space (visit stamps and parents). */
export class SearchScratch {
  readonly parent: Int32Array;
  readonly stamp: Uint32Array;
  generation = 0;
  /** Scratch for a graph of `count` nodes. */
  constructor(count: number) {
    this.parent = new Int32Array(count);
    this.stamp = new Uint32Array(count);
  }
  /** Starts a new search: every node unvisited again. */
  next(): number {
    this.generation++;
    if (this.generation === 0xffffffff) {
      this.stamp.fill(0);
      this.generation = 1;
    }
    return this.generation;
  }
}

/** The key of edge u→v in a graph of `count` nodes. */
export function edgeKey(u: number, v: number, count: number): number {
  return u * count + v;
}

/**
 * The shortest path from `source` to `target` with at most `maxHops` hops,
 * avoiding the given nodes and edges (keys from {@link edgeKey}), or null.
 */
export function shortestPath(
  g: SearchGraph,
  ends: { source: number; target: number },
  options: {
    maxHops: number;
    budget: SearchBudget;
    scratch: SearchScratch;
    avoidNodes?: ReadonlySet<number>;
    avoidEdges?: ReadonlySet<number>;
  },
): number[] | null {
  const { source, target } = ends;
  if (source === target) return [source];
  const { scratch, budget } = options;
  const gen = scratch.next();
  scratch.stamp[source] = gen;
  scratch.parent[source] = -1;
  let frontier = [source];
  let found = false;
  for (let hops = 0; hops < options.maxHops && frontier.length > 0 && !found; hops++) {
    const next: number[] = [];
    for (const node of frontier) {
      if (budget.left <= 0) return null;
      budget.left--;
      forEachSuccessor(g, node, (n) => {
        if (scratch.stamp[n] === gen) return false;
        if (options.avoidNodes?.has(n)) return false;
        if (options.avoidEdges?.has(edgeKey(node, n, g.count))) return false;
        scratch.stamp[n] = gen;
        scratch.parent[n] = node;
        if (n === target) {
          found = true;
          return true;
        }
        next.push(n);
        return false;
      });
      if (found) break;
    }
    frontier = next;
  }
  if (!found) return null;
  const path = [target];
  let at = target;
  while (at !== source) {
    at = scratch.parent[at]!;
    path.push(at);
  }
  return path.reverse();
}

/** The outcome of {@link kShortestPaths}. */
export interface PathSearch {
  /** Simple paths, shortest first (ties in discovery order). */
  paths: number[][];
  /** True when the expansion budget ran out before the search finished. */
  budgetExhausted: boolean;
}

/**
 * Up to `count` shortest simple paths from `source` to `target`, each of at
 * most `maxHops` hops, shortest first (Yen's algorithm with breadth-first
 * spur searches).
 */
export function kShortestPaths(
  g: SearchGraph,
  ends: { source: number; target: number },
  options: { count: number; maxHops: number; budget: SearchBudget; undirected?: boolean },
): PathSearch {
  const undirected = options.undirected ?? false;
  const scratch = new SearchScratch(g.count);
  const { budget } = options;
  const first = shortestPath(g, ends, { maxHops: options.maxHops, budget, scratch });
  if (first === null) return { paths: [], budgetExhausted: budget.left <= 0 };
  const found: number[][] = [first];
  const known = new Set([first.join(",")]);
  const candidates: number[][] = [];
  while (found.length < options.count) {
    const previous = found[found.length - 1]!;
    for (let i = 0; i < previous.length - 1; i++) {
      if (budget.left <= 0) return { paths: found, budgetExhausted: true };
      const root = previous.slice(0, i + 1);
      const avoidEdges = new Set<number>();
      for (const p of found) {
        if (p.length > i + 1 && root.every((n, j) => p[j] === n)) {
          avoidEdges.add(edgeKey(p[i]!, p[i + 1]!, g.count));
          if (undirected) avoidEdges.add(edgeKey(p[i + 1]!, p[i]!, g.count));
        }
      }
      const spur = shortestPath(g, { source: previous[i]!, target: ends.target }, {
        maxHops: options.maxHops - i,
        budget,
        scratch,
        avoidNodes: new Set(root.slice(0, i)),
        avoidEdges,
      });
      if (spur === null) continue;
      const total = [...root.slice(0, i), ...spur];
      const key = total.join(",");
      if (!known.has(key)) {
        known.add(key);
        candidates.push(total);
      }
    }
    if (candidates.length === 0) break;
    let best = 0;
    for (let j = 1; j < candidates.length; j++) {
      if (candidates[j]!.length < candidates[best]!.length) best = j;
    }
    found.push(candidates.splice(best, 1)[0]!);
  }
  return { paths: found, budgetExhausted: false };
}

/** The breadth-first tree of {@link shortestPathsFrom}. */
export interface PathTree {
  /** Node → the node it was reached from (−1 for the source, −2 when not reached). */
  parent: Int32Array;
  /** Nodes reached, source first, in discovery order. */
  order: number[];
  /** True when the expansion budget ran out before the walk finished. */
  budgetExhausted: boolean;
}

/** The breadth-first tree of shortest paths from `source` within `maxHops` hops. */
export function shortestPathsFrom(
  g: SearchGraph,
  source: number,
  options: { maxHops: number; budget: SearchBudget },
): PathTree {
  const parent = new Int32Array(g.count).fill(-2);
  parent[source] = -1;
  const order = [source];
  let frontier = [source];
  for (let hops = 0; hops < options.maxHops && frontier.length > 0; hops++) {
    const next: number[] = [];
    for (const node of frontier) {
      if (options.budget.left <= 0) return { parent, order, budgetExhausted: true };
      options.budget.left--;
      forEachSuccessor(g, node, (n) => {
        if (parent[n] !== -2) return false;
        parent[n] = node;
        order.push(n);
        next.push(n);
        return false;
      });
    }
    frontier = next;
  }
  return { parent, order, budgetExhausted: false };
}

/** The path from the tree's source to `node` (source first), or null when not reached. */
export function pathTo(tree: PathTree, node: number): number[] | null {
  if (tree.parent[node] === -2) return null;
  const path: number[] = [];
  for (let at = node; at !== -1; at = tree.parent[at]!) path.push(at);
  return path.reverse();
}

/**
 * Every node reachable from the sources, sources excluded unless reached
 * again, in discovery order; stops after `maxNodes` nodes.
 */
export function reachableFrom(
  g: SearchGraph,
  sources: readonly number[],
  options: { maxNodes: number },
): { nodes: number[]; depth: number; truncated: boolean } {
  const seen = new Uint8Array(g.count);
  const reached = new Uint8Array(g.count);
  const nodes: number[] = [];
  let frontier: number[] = [];
  for (const s of sources) {
    if (!seen[s]) {
      seen[s] = 1;
      frontier.push(s);
    }
  }
  let depth = 0;
  while (frontier.length > 0) {
    const next: number[] = [];
    let cut = false;
    for (const node of frontier) {
      forEachSuccessor(g, node, (n) => {
        if (!reached[n]) {
          if (nodes.length >= options.maxNodes) {
            cut = true;
            return true;
          }
          reached[n] = 1;
          nodes.push(n);
        }
        if (!seen[n]) {
          seen[n] = 1;
          next.push(n);
        }
        return false;
      });
      if (cut) return { nodes, depth: depth + 1, truncated: true };
    }
    if (next.length > 0) depth++;
    frontier = next;
  }
  return { nodes, depth, truncated: false };
}
