/**
 * Accounts and regions of a dataset (`list_accounts`, `list_regions`):
 * what each holds, how much of it is exposed, and its open findings.
 *
 * @module
 */

import { openFindingStats } from "../model/briefs.ts";
import { compareCodePoints } from "../model/order.ts";
import type { DatasetView } from "../model/view.ts";

/** The bucket of assets without an account. */
export const UNKNOWN_ACCOUNT = "unknown";

/** One account of a dataset. */
export interface AccountRow {
  account_id: string;
  /** The provider most of its assets belong to. */
  provider: string;
  /** Name of the account's CLOUD_ACCOUNT asset, or null. */
  name: string | null;
  /** True when its CLOUD_ACCOUNT asset is marked `external`. */
  external: boolean;
  assets: number;
  regions: string[];
  internet_exposed: number;
  open_findings: number;
}

/**
 * One row per account id (assets without one under `unknown`, last), in
 * code-point order of the id.
 */
export function listAccounts(view: DatasetView): AccountRow[] {
  const rows = new Map<
    string,
    AccountRow & { providers: Map<string, number>; regionSet: Set<string> }
  >();
  for (const asset of view.records.assets) {
    const id = asset.account_id ?? UNKNOWN_ACCOUNT;
    let row = rows.get(id);
    if (!row) {
      row = {
        account_id: id,
        provider: asset.provider,
        name: null,
        external: false,
        assets: 0,
        regions: [],
        internet_exposed: 0,
        open_findings: 0,
        providers: new Map(),
        regionSet: new Set(),
      };
      rows.set(id, row);
    }
    row.assets++;
    row.providers.set(asset.provider, (row.providers.get(asset.provider) ?? 0) + 1);
    row.regionSet.add(asset.region);
    if (asset.is_internet_exposed) row.internet_exposed++;
    row.open_findings += openFindingStats(view, asset.id).open_findings;
    if (asset.asset_type === "CLOUD_ACCOUNT" && row.name === null) {
      row.name = asset.name;
      row.external = asset.metadata["external"] === true;
    }
  }
  return [...rows.values()]
    .sort((a, b) =>
      Number(a.account_id === UNKNOWN_ACCOUNT) - Number(b.account_id === UNKNOWN_ACCOUNT) ||
      compareCodePoints(a.account_id, b.account_id)
    )
    .map(({ providers, regionSet, ...row }) => ({
      ...row,
      provider: [...providers].sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0]))[0]![0],
      regions: [...regionSet].sort(compareCodePoints),
    }));
}

/** One region of a dataset. */
export interface RegionRow {
  region: string;
  providers: string[];
  assets: number;
  /** Distinct known accounts with assets there. */
  accounts: number;
}

/** The regions holding assets, most assets first (ties by name), and the regions the source declared. */
export function listRegions(view: DatasetView): {
  regions: RegionRow[];
  scanned_regions: string[];
} {
  const rows = new Map<string, { providers: Set<string>; accounts: Set<string>; assets: number }>();
  for (const asset of view.records.assets) {
    let row = rows.get(asset.region);
    if (!row) {
      row = { providers: new Set(), accounts: new Set(), assets: 0 };
      rows.set(asset.region, row);
    }
    row.assets++;
    row.providers.add(asset.provider);
    if (asset.account_id) row.accounts.add(asset.account_id);
  }
  return {
    regions: [...rows].map(([region, row]) => ({
      region,
      providers: [...row.providers].sort(compareCodePoints),
      assets: row.assets,
      accounts: row.accounts.size,
    })).sort((a, b) => b.assets - a.assets || compareCodePoints(a.region, b.region)),
    scanned_regions: [...view.records.regions],
  };
}
