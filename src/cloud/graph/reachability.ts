/**
 * What the internet reaches: every node the network hops of the flow graph
 * lead to from the internet entry points (identity edges are not followed;
 * an entry point counts only when another entry point leads to it).
 *
 * @module
 */

import type { DatasetView } from "../model/view.ts";
import { compactNetworkFlowGraph } from "./compact_graph.ts";
import { internetEntryPoints } from "./nodes.ts";
import { reachableFrom, searchGraph } from "./path_search.ts";

/** The node ids reachable from the internet over network hops; built once per version. */
export function internetReachable(view: DatasetView): ReadonlySet<string> {
  return view.derived("graph:internet_reachable", () => {
    const compact = compactNetworkFlowGraph(view);
    const sources: number[] = [];
    for (const n of internetEntryPoints(view)) {
      const i = compact.index.get(n);
      if (i !== undefined) sources.push(i);
    }
    const reach = reachableFrom(searchGraph(compact), sources, { maxNodes: Infinity });
    return new Set(reach.nodes.map((i) => compact.ids[i]!));
  });
}
