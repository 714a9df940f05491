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
import { isInternetSource } from "./internet.ts";
import { pushTo } from "../../core/multimap.ts";

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
  /**
   * Flow graphs only: filter node id → the index of its copy as the
   * internet enters it (see {@link compactFlowGraph}); `ids` holds the
   * filter's id at that index too.
   */
  internetCopies?: ReadonlyMap<string, number>;
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

const FILTER_TYPES: ReadonlySet<string> = new Set(["SECURITY_GROUP", "NSG", "NACL"]);
const FILTER_RULES: ReadonlySet<string> = new Set(["SECURITY_GROUP_RULE", "NACL_RULE"]);

/**
 * The flow hops as path searches walk them. The flow graph's group hops are
 * coarse: a group reached by any hop admits traffic to every member, and a
 * group admitted by another passes on whatever reached that one. Walked as
 * is, they claim paths no packet takes (the internet through an SSH group
 * to a member without a public address; through a group nobody is in). So
 * each filter (security group, NSG, NACL) the internet enters, or that is
 * flagged exposed, gets a copy standing for "reached from the internet":
 * the internet's hops into the filter lead to the copy, the copy admits
 * only members flagged internet-exposed (public address and route; in an
 * inventory that did not weigh routes, a public address), and
 * passes on to the groups admitting it only when such a member exists; the
 * filter itself passes on to the groups admitting it only when it has
 * members. The flow graph itself keeps the spec's hops.
 */
function compactFlow(view: DatasetView, keep: (a: FlowEdgeAttributes) => boolean): CompactGraph {
  const rel = compactRelationshipGraph(view);
  const graph = relationshipGraph(view);
  const hops = flowHops(view);
  const isFilter = (id: string): boolean =>
    graph.hasNode(id) && FILTER_TYPES.has(graph.getNodeAttribute(id, "asset_type"));
  const fromInternet = (id: string): boolean =>
    view.asset(id) === undefined && isInternetSource(id);
  const exposed = (id: string): boolean => {
    const a = view.asset(id);
    if (a === undefined) return false;
    if (a.is_internet_exposed) return true;
    // An inventory whose source did not weigh routes (no internet_route) but names a public
    // address: the address alone, as internet_exposure's not_checked.
    const m = a.metadata;
    return m.internet_route === undefined &&
      (m.public_ip === true || (typeof m.public_ip === "string" && m.public_ip !== "") ||
        m.internet_facing === true || m.publicly_accessible === true);
  };
  const members = new Map<string, string[]>();
  for (let i = 0; i < hops.from.length; i++) {
    if (hops.attributes[i]!.reversed) pushTo(members, hops.from[i]!, hops.to[i]!);
  }
  const ids = [...rel.ids];
  const copies = new Map<string, number>();
  const copy = (id: string): void => {
    if (copies.has(id) || !rel.index.has(id)) return;
    copies.set(id, ids.length);
    ids.push(id);
  };
  for (let i = 0; i < hops.from.length; i++) {
    if (isFilter(hops.to[i]!) && fromInternet(hops.from[i]!)) copy(hops.to[i]!);
  }
  for (const a of view.records.assets) if (a.is_internet_exposed && isFilter(a.id)) copy(a.id);
  const from: number[] = [];
  const to: number[] = [];
  const push = (u: number, v: number): void => {
    from.push(u);
    to.push(v);
  };
  for (let i = 0; i < hops.from.length; i++) {
    const attrs = hops.attributes[i]!;
    if (!keep(attrs)) continue;
    const u = hops.from[i]!;
    const v = hops.to[i]!;
    const ui = rel.index.get(u)!;
    const vi = rel.index.get(v)!;
    const inCopy = copies.get(v);
    if (inCopy !== undefined && fromInternet(u)) {
      push(ui, inCopy);
      continue;
    }
    const outCopy = copies.get(u);
    if (attrs.reversed) {
      push(ui, vi);
      if (outCopy !== undefined && exposed(v)) push(outCopy, vi);
      continue;
    }
    if (isFilter(u) && !attrs.identity && FILTER_RULES.has(attrs.edge_type)) {
      const own = members.get(u) ?? [];
      if (own.length > 0) push(ui, vi);
      if (outCopy !== undefined && own.some(exposed)) push(outCopy, vi);
      continue;
    }
    push(ui, vi);
  }
  const pairs = { from: Int32Array.from(from), to: Int32Array.from(to), count: from.length };
  const n = ids.length;
  return {
    ids,
    index: rel.index,
    out: csr(n, pairs, false),
    in: csr(n, pairs, true),
    internetCopies: copies,
  };
}

/**
 * The compact flow graph of a dataset (identity edges too) as path searches
 * walk it (see compactFlow: filters the internet enters are split so group
 * hops need exposed members), built once per version.
 */
export function compactFlowGraph(view: DatasetView): CompactGraph {
  return view.derived("graph:compact:flow", () => compactFlow(view, () => true));
}

/** The compact flow graph without identity edges: network hops only. */
export function compactNetworkFlowGraph(view: DatasetView): CompactGraph {
  return view.derived("graph:compact:network_flow", () => compactFlow(view, (a) => !a.identity));
}
