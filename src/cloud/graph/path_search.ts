/**
 * Bounded path searches over any graph given as a successor function:
 * breadth-first shortest paths and the k shortest simple paths (Yen's
 * algorithm on unit weights), each under a shared budget of node
 * expansions so a large estate cannot make a query run away.
 *
 * @module
 */

/** Calls `visit` for each node one hop from `node`. */
export type Successors = (node: string, visit: (next: string) => void) => void;

/** A budget of node expansions shared by the searches of one query. */
export interface SearchBudget {
  /** Expansions left; searches stop when it reaches zero. */
  left: number;
}

/** Whether a budget ran out. */
export function exhausted(budget: SearchBudget): boolean {
  return budget.left <= 0;
}

function edgeKey(u: string, v: string): string {
  return u + "\u0000" + v;
}

/**
 * The shortest path from `source` to `target` with at most `maxHops` hops,
 * avoiding the given nodes and edges (edge keys from {@link blockEdge}), or
 * null. Successors are tried in the order the successor function gives.
 */
export function shortestPath(
  successors: Successors,
  source: string,
  target: string,
  options: {
    maxHops: number;
    budget: SearchBudget;
    avoidNodes?: ReadonlySet<string>;
    avoidEdges?: ReadonlySet<string>;
  },
): string[] | null {
  if (source === target) return [source];
  const parent = new Map<string, string>([[source, source]]);
  let frontier = [source];
  for (let hops = 0; hops < options.maxHops && frontier.length > 0; hops++) {
    const next: string[] = [];
    for (const node of frontier) {
      if (options.budget.left <= 0) return null;
      options.budget.left--;
      let found = false;
      successors(node, (n) => {
        if (found || parent.has(n)) return;
        if (options.avoidNodes?.has(n)) return;
        if (options.avoidEdges?.has(edgeKey(node, n))) return;
        parent.set(n, node);
        if (n === target) found = true;
        else next.push(n);
      });
      if (found) {
        const path = [target];
        let at = target;
        while (at !== source) {
          at = parent.get(at)!;
          path.push(at);
        }
        return path.reverse();
      }
    }
    frontier = next;
  }
  return null;
}

/** Adds the key of edge u→v (and v→u when `undirected`) to a set of blocked edges. */
export function blockEdge(
  blocked: Set<string>,
  u: string,
  v: string,
  undirected: boolean,
): void {
  blocked.add(edgeKey(u, v));
  if (undirected) blocked.add(edgeKey(v, u));
}

/** The outcome of {@link kShortestPaths}. */
export interface PathSearch {
  /** Simple paths, shortest first (ties in discovery order). */
  paths: string[][];
  /** True when the expansion budget ran out before the search finished. */
  budgetExhausted: boolean;
}

/**
 * Up to `count` shortest simple paths from `source` to `target`, each of at
 * most `maxHops` hops, shortest first (Yen's algorithm with breadth-first
 * spur searches).
 */
export function kShortestPaths(
  successors: Successors,
  source: string,
  target: string,
  options: { count: number; maxHops: number; budget: SearchBudget; undirected?: boolean },
): PathSearch {
  const undirected = options.undirected ?? false;
  const first = shortestPath(successors, source, target, {
    maxHops: options.maxHops,
    budget: options.budget,
  });
  if (first === null) return { paths: [], budgetExhausted: exhausted(options.budget) };
  const found: string[][] = [first];
  const known = new Set([first.join("\u0000")]);
  const candidates: string[][] = [];
  while (found.length < options.count) {
    const previous = found[found.length - 1]!;
    for (let i = 0; i < previous.length - 1; i++) {
      if (exhausted(options.budget)) return { paths: found, budgetExhausted: true };
      const spur = previous[i]!;
      const root = previous.slice(0, i + 1);
      const avoidEdges = new Set<string>();
      for (const p of found) {
        if (p.length > i + 1 && root.every((n, j) => p[j] === n)) {
          blockEdge(avoidEdges, p[i]!, p[i + 1]!, undirected);
        }
      }
      const avoidNodes = new Set(root.slice(0, i));
      const spurPath = shortestPath(successors, spur, target, {
        maxHops: options.maxHops - i,
        budget: options.budget,
        avoidNodes,
        avoidEdges,
      });
      if (spurPath === null) continue;
      const total = [...root.slice(0, i), ...spurPath];
      const key = total.join("\u0000");
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
  /** Node → the node it was reached from (null for the source), in discovery order. */
  parents: Map<string, string | null>;
  /** True when the expansion budget ran out before the walk finished. */
  budgetExhausted: boolean;
}

/**
 * The breadth-first tree of shortest paths from `source` to every node
 * within `maxHops` hops; read one path with {@link pathTo}.
 */
export function shortestPathsFrom(
  successors: Successors,
  source: string,
  options: { maxHops: number; budget: SearchBudget },
): PathTree {
  const parents = new Map<string, string | null>([[source, null]]);
  let frontier = [source];
  for (let hops = 0; hops < options.maxHops && frontier.length > 0; hops++) {
    const next: string[] = [];
    for (const node of frontier) {
      if (options.budget.left <= 0) return { parents, budgetExhausted: true };
      options.budget.left--;
      successors(node, (n) => {
        if (parents.has(n)) return;
        parents.set(n, node);
        next.push(n);
      });
    }
    frontier = next;
  }
  return { parents, budgetExhausted: false };
}

/** The path from the tree's source to `node` (source first), or null when not reached. */
export function pathTo(tree: PathTree, node: string): string[] | null {
  if (!tree.parents.has(node)) return null;
  const path: string[] = [];
  let at: string | null | undefined = node;
  while (at !== null && at !== undefined) {
    path.push(at);
    at = tree.parents.get(at);
  }
  return path.reverse();
}
