/**
 * The edge search behind `get_edges`: raw edges filtered by endpoint, type,
 * relationship, account crossing, internet origin and port.
 *
 * @module
 */

import type { Edge } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import type { EdgeBrief } from "../model/briefs.ts";
import { edgeBrief } from "../model/briefs.ts";
import { viewCrossAccountEnds } from "../model/edge_accounts.ts";
import { INTERNET_NODE, isInternetEntry } from "./internet.ts";
import { edgeAllowsPort } from "./ports.ts";

/** Filters of {@link findEdges}; absent or empty means no filter. */
export interface EdgeFilter {
  /** A node id, or {@link INTERNET_NODE} for the internet entry edges (see {@link isInternetEntry}). */
  source?: string;
  /** A node id. */
  target?: string;
  edgeTypes?: readonly string[];
  /** Exact relationship name. */
  relationship?: string;
  crossAccountOnly?: boolean;
  /** Only internet entry edges (see {@link isInternetEntry}). */
  internetOnly?: boolean;
  /** Only edges opening this port (0..65535). */
  port?: number;
}

/** Every raw edge matching all filters, in dataset order. */
export function matchingEdges(view: DatasetView, filter: EdgeFilter = {}): Edge[] {
  const types = filter.edgeTypes && filter.edgeTypes.length > 0 ? new Set(filter.edgeTypes) : null;
  const out: Edge[] = [];
  for (const e of view.records.edges) {
    if (filter.source === INTERNET_NODE) {
      if (!isInternetEntry(e)) continue;
    } else if (filter.source && e.source_id !== filter.source) continue;
    if (filter.target && e.target_id !== filter.target) continue;
    if (types && !types.has(e.edge_type)) continue;
    if (filter.relationship && (e.relationship ?? "") !== filter.relationship) continue;
    if (filter.internetOnly && !isInternetEntry(e)) continue;
    if (filter.port !== undefined && !edgeAllowsPort(e, filter.port)) continue;
    if (filter.crossAccountOnly && viewCrossAccountEnds(view, e) === null) continue;
    out.push(e);
  }
  return out;
}

/**
 * The matching edges as briefs: all of them, or only the page
 * `offset..offset+limit` when given (`total` counts every match), so a
 * caller paginating a large estate briefs only what it returns.
 */
export function findEdges(
  view: DatasetView,
  filter: EdgeFilter = {},
  page: { offset?: number; limit?: number } = {},
): { total: number; items: EdgeBrief[] } {
  const all = matchingEdges(view, filter);
  const offset = page.offset ?? 0;
  const slice = page.limit === undefined
    ? all.slice(offset)
    : all.slice(offset, offset + page.limit);
  return { total: all.length, items: slice.map((e) => edgeBrief(view, e)) };
}
