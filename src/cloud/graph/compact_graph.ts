/**
 * A compact, integer-indexed copy of a graphology graph (compressed sparse
 * rows for out- and in-neighbours) that the path searches and reach walks
 * run on: typed arrays instead of string-keyed maps keep a 100,000-node
 * walk fast. Neighbour order follows the graphology graph.
 *
 * @module
 */

import type { Attributes } from "graphology-types";
import type { AbstractGraph } from "graphology-types";
import type { DatasetView } from "../model/view.ts";
import type { FlowEdgeAttributes } from "./flow_graph.ts";
import { flowHops } from "./flow_graph.ts";
import { relationshipGraph } from "./relationship_graph.ts";
import { closedInternetPairs, pairKey } from "./nodes.ts";

/** One direction of adjacency in compressed sparse rows. */
export interface CsrPart {
  /** `offsets[i]..offsets[i+1]` index the neighbours of node i in `targets`. */
  offsets: Int32Array;
  targets: Int32Array;
}

/** An integer-indexed directed graph. */
export interface CompactGraph {
  /** Index → node id. */
  ids: readonly string[];
  /** Node id → index. */
  index: ReadonlyMap<string, number>;
  out: CsrPart;
  in: CsrPart;
}

function csr(
  n: number,
  pairs: { from: Int32Array; to: Int32Array; count: number },
  reverse: boolean,
): CsrPart {
  const offsets = new Int32Array(n + 1);
  const src = reverse ? pairs.to : pairs.from;
  const dst = reverse ? pairs.from : pairs.to;
  for (let e = 0; e < pairs.count; e++) offsets[src[e]! + 1]!++;
  for (let i = 0; i < n; i++) offsets[i + 1]! += offsets[i]!;
  const fill = offsets.slice(0, n);
  const targets = new Int32Array(pairs.count);
  for (let e = 0; e < pairs.count; e++) targets[fill[src[e]!]!++] = dst[e]!;
  return { offsets, targets };
}

/**
 * The compact form of a graphology graph, keeping only edges `keep`
 * accepts (all by default). Self-loops are dropped: no walk needs them.
 */
export function compactGraph<N extends Attributes, E extends Attributes>(
  graph: AbstractGraph<N, E>,
  keep?: (attributes: E, source: string, target: string) => boolean,
): CompactGraph {
  const ids = graph.nodes();
  const index = new Map<string, number>();
  ids.forEach((id, i) => index.set(id, i));
  const from = new Int32Array(graph.size);
  const to = new Int32Array(graph.size);
  let count = 0;
  graph.forEachNode((node) => {
    const u = index.get(node)!;
    graph.forEachOutEdge(node, (_key, attrs, _s, target) => {
      if (target === node || (keep && !keep(attrs, node, target))) return;
      from[count] = u;
      to[count] = index.get(target)!;
      count++;
    });
  });
  const pairs = { from, to, count };
  return { ids, index, out: csr(ids.length, pairs, false), in: csr(ids.length, pairs, true) };
}

/**
 * The compact relationship graph of a dataset, built once per version,
 * without the pairs out of the internet that are no internet entry (see
 * {@link closedInternetPairs}).
 */
export function compactRelationshipGraph(view: DatasetView): CompactGraph {
  return view.derived("graph:compact:relationship", () => {
    const closed = closedInternetPairs(view);
    return compactGraph(
      relationshipGraph(view),
      closed.size === 0 ? undefined : (_a, s, t) => !closed.has(pairKey(s, t)),
    );
  });
}

function compactFlow(view: DatasetView, keep: (a: FlowEdgeAttributes) => boolean): CompactGraph {
  const rel = compactRelationshipGraph(view);
  const hops = flowHops(view);
  const from = new Int32Array(hops.from.length);
  const to = new Int32Array(hops.from.length);
  let count = 0;
  for (let i = 0; i < hops.from.length; i++) {
    if (!keep(hops.attributes[i]!)) continue;
    from[count] = rel.index.get(hops.from[i]!)!;
    to[count] = rel.index.get(hops.to[i]!)!;
    count++;
  }
  const pairs = { from, to, count };
  const n = rel.ids.length;
  return { ids: rel.ids, index: rel.index, out: csr(n, pairs, false), in: csr(n, pairs, true) };
}

/** The compact flow graph of a dataset (identity edges too), built once per version. */
export function compactFlowGraph(view: DatasetView): CompactGraph {
  return view.derived("graph:compact:flow", () => compactFlow(view, () => true));
}

/** The compact flow graph without identity edges: network hops only. */
export function compactNetworkFlowGraph(view: DatasetView): CompactGraph {
  return view.derived("graph:compact:network_flow", () => compactFlow(view, (a) => !a.identity));
}
