/**
 * The edge search behind `get_edges`: raw edges filtered by endpoint, type,
 * relationship, account crossing, internet origin and port.
 *
 * @module
 */

import type { DatasetView } from "../model/view.ts";
import type { EdgeBrief } from "./briefs.ts";
import { edgeBrief } from "./briefs.ts";
import { INTERNET_NODE } from "./internet.ts";
import { fromInternet } from "./nodes.ts";
import { edgeAllowsPort } from "./ports.ts";

/** Filters of {@link findEdges}; absent or empty means no filter. */
export interface EdgeFilter {
  /** A node id, or {@link INTERNET_NODE} for edges coming from the internet. */
  source?: string;
  /** A node id. */
  target?: string;
  edgeTypes?: readonly string[];
  /** Exact relationship name. */
  relationship?: string;
  crossAccountOnly?: boolean;
  /** Only ingress edges whose source or CIDR stands for the internet. */
  internetOnly?: boolean;
  /** Only edges opening this port (0..65535). */
  port?: number;
}

/** Every raw edge matching all filters, as edge briefs in dataset order (paginate them after). */
export function findEdges(view: DatasetView, filter: EdgeFilter = {}): EdgeBrief[] {
  const types = filter.edgeTypes && filter.edgeTypes.length > 0 ? new Set(filter.edgeTypes) : null;
  const out: EdgeBrief[] = [];
  for (const e of view.records.edges) {
    if (filter.source === INTERNET_NODE) {
      if (!fromInternet(e)) continue;
    } else if (filter.source && e.source_id !== filter.source) continue;
    if (filter.target && e.target_id !== filter.target) continue;
    if (types && !types.has(e.edge_type)) continue;
    if (filter.relationship && (e.relationship ?? "") !== filter.relationship) continue;
    if (filter.internetOnly && !fromInternet(e)) continue;
    if (filter.port !== undefined && !edgeAllowsPort(e, filter.port)) continue;
    const brief = edgeBrief(view, e);
    if (filter.crossAccountOnly && !brief.cross_account) continue;
    out.push(brief);
  }
  return out;
}
