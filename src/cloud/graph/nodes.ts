/**
 * Graph nodes as queries reach them: the raw adjacency (every edge, parallel
 * edges kept, in dataset order), the internet entry points, and the mapping
 * of the special internet references and placeholder ids to nodes.
 *
 * @module
 */

import type { Edge } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import { GraphQueryError } from "./errors.ts";
import {
  INTERNET_CIDRS,
  INTERNET_NODE,
  isInternetEntry,
  isInternetRef,
  isInternetSource,
} from "./internet.ts";
import { relationshipGraph } from "./relationship_graph.ts";
import { compareCodePoints } from "../model/order.ts";
import { pushTo } from "../../core/multimap.ts";

/** One step from a node along a raw edge. */
export interface RawHop {
  edge: Edge;
  /** The node at the other end. */
  other: string;
  /** `out` when the node is the edge's source, `in` when it is the target. */
  direction: "out" | "in";
}

/** Node id → every raw edge touching it, in dataset order; built once per version. */
export function rawAdjacency(view: DatasetView): ReadonlyMap<string, readonly RawHop[]> {
  return view.derived("graph:raw_adjacency", () => {
    const adjacency = new Map<string, RawHop[]>();
    for (const edge of view.records.edges) {
      pushTo(adjacency, edge.source_id, { edge, other: edge.target_id, direction: "out" });
      pushTo(adjacency, edge.target_id, { edge, other: edge.source_id, direction: "in" });
    }
    return adjacency;
  });
}

/** The key of node pair source→target in {@link closedInternetPairs}. */
export function pairKey(source: string, target: string): string {
  return source + "\u0000" + target;
}

/**
 * The node pairs (see {@link pairKey}) that path searches do not walk: out
 * of an internet placeholder (`*`, `0.0.0.0/0`, …), the pairs none of whose
 * edges is an internet entry (see {@link isInternetEntry}), such as a grant
 * to `*` that a policy condition limits. Built once per version.
 */
export function closedInternetPairs(view: DatasetView): ReadonlySet<string> {
  return view.derived("graph:closed_internet_pairs", () => {
    const closed = new Set<string>();
    const open = new Set<string>();
    for (const edge of view.records.edges) {
      if (!isInternetSource(edge.source_id) || view.asset(edge.source_id) !== undefined) continue;
      const key = pairKey(edge.source_id, edge.target_id);
      (isInternetEntry(edge) ? open : closed).add(key);
    }
    for (const key of open) closed.delete(key);
    return closed;
  });
}

/**
 * The internet entry points: nodes named `0.0.0.0/0` or `::/0`, and the
 * source of every internet entry edge (see {@link isInternetEntry}: the
 * principal `*` of an unconditional grant or trust among them); sorted with
 * the two internet CIDR nodes first, then by id.
 */
export function internetEntryPoints(view: DatasetView): readonly string[] {
  return view.derived("graph:internet_entry_points", () => {
    const graph = relationshipGraph(view);
    const found = new Set<string>();
    graph.forEachNode((node, attrs) => {
      if (INTERNET_CIDRS.includes(attrs.name)) found.add(node);
    });
    for (const edge of view.records.edges) {
      if (isInternetEntry(edge)) found.add(edge.source_id);
    }
    const cidr = (n: string): number => (INTERNET_CIDRS.includes(n) ? 0 : 1);
    return [...found].sort((a, b) => cidr(a) - cidr(b) || compareCodePoints(a, b));
  });
}

/**
 * The graph node a reference stands for when it is not an asset reference:
 * for `internet`, `public`, `0.0.0.0/0` or `::/0` the first internet entry
 * point (or {@link INTERNET_NODE} with `virtualInternet`); a placeholder id
 * itself. Returns undefined for anything else (resolve it as an asset).
 * Throws {@link GraphQueryError} for an internet reference when the dataset
 * has no internet entry point.
 */
export function graphNodeFor(
  view: DatasetView,
  ref: string,
  options: { virtualInternet?: boolean } = {},
): string | undefined {
  if (isInternetRef(ref)) {
    const entries = internetEntryPoints(view);
    if (entries.length === 0) {
      throw new GraphQueryError(
        "This dataset has no internet node (no internet entry: no internet-sourced ingress " +
          "rule, INTERNET_EXPOSED edge or unconditional grant to any principal `*`); use " +
          "internet_exposure to see assets flagged as exposed.",
      );
    }
    return options.virtualInternet ? INTERNET_NODE : entries[0];
  }
  if (view.asset(ref) === undefined && relationshipGraph(view).hasNode(ref)) return ref;
  return undefined;
}

/** Throws unless a node id is in the graph (an asset, a placeholder, or the virtual internet). */
export function requireNode(view: DatasetView, nodeId: string): void {
  if (nodeId === INTERNET_NODE) return;
  if (view.asset(nodeId) !== undefined) return;
  if (relationshipGraph(view).hasNode(nodeId)) return;
  throw new GraphQueryError(
    `No graph node has the id ${JSON.stringify(nodeId.slice(0, 200))}; pass an asset id, a ` +
      "placeholder node id, or the internet.",
  );
}
