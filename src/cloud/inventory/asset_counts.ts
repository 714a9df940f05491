/**
 * Asset counts (`count_assets`, `list_asset_types`): assets grouped by one
 * dimension, largest group first.
 *
 * @module
 */

import { openFindingStats } from "../model/briefs.ts";
import { ASSET_TYPE_FAMILIES } from "../model/enums.ts";
import { compareCodePoints } from "../model/order.ts";
import type { Asset } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import { serviceOf } from "./asset_report.ts";
import { type AssetFilter, assetPredicate } from "./find_assets.ts";

/** The dimensions `count_assets` groups by. */
export const COUNT_GROUPS = [
  "type",
  "provider",
  "region",
  "account",
  "service",
  "exposure",
  "severity",
] as const;
/** One of {@linkcode COUNT_GROUPS}. */
export type CountGroup = (typeof COUNT_GROUPS)[number];

/** One group of a count. */
export interface CountRow {
  key: string;
  count: number;
}

/** The result of {@linkcode countAssets}. */
export interface AssetCounts {
  total: number;
  group_count: number;
  groups: CountRow[];
  truncated: boolean;
}

function groupKey(view: DatasetView, asset: Asset, by: CountGroup): string {
  switch (by) {
    case "type":
      return asset.asset_type;
    case "provider":
      return asset.provider;
    case "region":
      return asset.region;
    case "account":
      return asset.account_id ?? "unknown";
    case "service":
      return serviceOf(asset) ?? "unknown";
    case "exposure":
      return asset.is_internet_exposed ? "exposed" : "not_exposed";
    case "severity":
      return openFindingStats(view, asset.id).max_severity ?? "NONE";
  }
}

/** Rows of a count map, largest first, ties in code-point order of the key. */
export function rankRows(counts: Map<string, number>): CountRow[] {
  return [...counts].map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count || compareCodePoints(a.key, b.key));
}

/**
 * Counts the assets matching `filter` by `by`: `account` and `service` put
 * unknown values under `unknown`, `exposure` gives `exposed`/`not_exposed`,
 * `severity` the worst open severity or `NONE`. At most `top` groups.
 */
export function countAssets(
  view: DatasetView,
  by: CountGroup,
  options: { filter?: AssetFilter; top?: number } = {},
): AssetCounts {
  const keep = assetPredicate(view, options.filter ?? {});
  const counts = new Map<string, number>();
  let total = 0;
  for (const asset of view.records.assets) {
    if (!keep(asset)) continue;
    total++;
    const key = groupKey(view, asset, by);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const rows = rankRows(counts);
  const top = options.top ?? 50;
  return {
    total,
    group_count: rows.length,
    groups: rows.slice(0, top),
    truncated: rows.length > top,
  };
}

/** The family heading of an asset type. */
export function familyOf(type: string): string {
  for (const [family, types] of Object.entries(ASSET_TYPE_FAMILIES)) {
    if ((types as readonly string[]).includes(type)) return family;
  }
  return "Generic";
}

/** One asset type present in a dataset. */
export interface AssetTypeRow {
  asset_type: string;
  family: string;
  count: number;
  internet_exposed: number;
  open_findings: number;
}

/** The asset types present, most assets first (ties by type name). */
export function listAssetTypes(view: DatasetView): AssetTypeRow[] {
  const rows = new Map<string, AssetTypeRow>();
  for (const asset of view.records.assets) {
    let row = rows.get(asset.asset_type);
    if (!row) {
      row = {
        asset_type: asset.asset_type,
        family: familyOf(asset.asset_type),
        count: 0,
        internet_exposed: 0,
        open_findings: 0,
      };
      rows.set(asset.asset_type, row);
    }
    row.count++;
    if (asset.is_internet_exposed) row.internet_exposed++;
    row.open_findings += openFindingStats(view, asset.id).open_findings;
  }
  return [...rows.values()].sort((a, b) =>
    b.count - a.count || compareCodePoints(a.asset_type, b.asset_type)
  );
}
