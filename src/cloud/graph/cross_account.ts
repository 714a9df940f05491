/**
 * `cross_account_edges`: relationships whose two ends live in different
 * accounts, subscriptions or projects (organisation containment left out;
 * an end may be a principal the dataset does not hold, with the account its
 * ARN names), flagging external accounts, with counts by account pair.
 *
 * @module
 */

import type { DatasetView } from "../model/view.ts";
import { viewCrossAccountEnds } from "../model/edge_accounts.ts";

/** One cross-account edge. */
export interface CrossAccountRow {
  /** The source's ARN, else its id (a principal the dataset does not hold: as written). */
  source: string;
  source_account: string;
  target: string;
  target_account: string;
  edge_type: string;
  relationship: string | null;
  /** Either end is external (see `EdgeAccounts.external` in model/edge_accounts.ts). */
  external: boolean;
}

/** Every cross-account edge of a dataset, in dataset order; built once per version. */
export function crossAccountRows(view: DatasetView): readonly CrossAccountRow[] {
  return view.derived("graph:cross_account", () => {
    const out: CrossAccountRow[] = [];
    for (const e of view.records.edges) {
      const ends = viewCrossAccountEnds(view, e);
      if (!ends) continue;
      const s = view.asset(e.source_id);
      const t = view.asset(e.target_id);
      out.push({
        source: s?.arn ?? s?.id ?? e.source_id,
        source_account: ends.source_account,
        target: t?.arn ?? t?.id ?? e.target_id,
        target_account: ends.target_account,
        edge_type: e.edge_type,
        relationship: e.relationship,
        external: ends.external,
      });
    }
    return out;
  });
}

/** Filters of {@link crossAccountEdges}; absent or empty means no filter. */
export interface CrossAccountFilter {
  /** Only edges with this account at either end. */
  accountId?: string;
  /** Only edges touching an external account. */
  externalOnly?: boolean;
  edgeTypes?: readonly string[];
}

/**
 * Matching cross-account rows (paginate after) and their counts by
 * `"<source account> -> <target account>"`.
 */
export function crossAccountEdges(
  view: DatasetView,
  filter: CrossAccountFilter = {},
): { items: CrossAccountRow[]; by_account_pair: Record<string, number> } {
  const types = filter.edgeTypes && filter.edgeTypes.length > 0 ? new Set(filter.edgeTypes) : null;
  const items = crossAccountRows(view).filter((r) =>
    (!filter.accountId ||
      r.source_account === filter.accountId || r.target_account === filter.accountId) &&
    (!filter.externalOnly || r.external) && (!types || types.has(r.edge_type))
  );
  const pairs: Record<string, number> = {};
  for (const r of items) {
    const key = `${r.source_account} -> ${r.target_account}`;
    pairs[key] = (pairs[key] ?? 0) + 1;
  }
  return { items, by_account_pair: pairs };
}
