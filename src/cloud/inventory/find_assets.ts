/**
 * Asset search (`find_assets`): AND-combined filters over a dataset's
 * assets, five sort orders, and a projection of the brief's fields.
 *
 * @module
 */

import { assetRiskSortKey } from "../graph/risk.ts";
import { type AssetBrief, assetBrief, openFindingStats } from "../model/briefs.ts";
import type { AssetType, CloudProvider, Severity } from "../model/enums.ts";
import { severityRank } from "../model/enums.ts";
import { InvalidArgumentError } from "../model/errors.ts";
import { compareCodePoints } from "../model/order.ts";
import type { Asset } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import { pushTo } from "../../core/multimap.ts";
import { UNKNOWN_ACCOUNT } from "./accounts.ts";

/** The orders `find_assets` sorts by. */
export const ASSET_SORTS = ["name", "type", "region", "account", "risk", "findings"] as const;
/** One of {@linkcode ASSET_SORTS}. */
export type AssetSort = (typeof ASSET_SORTS)[number];

/** The fields a projection may keep (`id` is always kept, first). */
export const ASSET_FIELDS = [
  "id",
  "name",
  "type",
  "provider",
  "region",
  "account_id",
  "arn",
  "internet_exposed",
  "open_findings",
  "max_severity",
  "tags",
  "uri",
] as const;
/** One of {@linkcode ASSET_FIELDS}. */
export type AssetField = (typeof ASSET_FIELDS)[number];

/** The filters of an asset search; absent filters match everything. */
export interface AssetFilter {
  /** Case-insensitive substring of the name, ARN, id or a tag value. */
  query?: string;
  provider?: CloudProvider;
  /** Any of these types. */
  assetTypes?: readonly AssetType[];
  /** Exact region, case-insensitive. */
  region?: string;
  /** Exact account id; {@link UNKNOWN_ACCOUNT} matches the assets without one. */
  accountId?: string;
  /** `key` (the tag is present) or `key=value` (with that value). */
  tag?: string;
  internetExposed?: boolean;
  /** True: with open findings; false: without. */
  hasFindings?: boolean;
  /** Only assets with an open finding at or above this severity. */
  minSeverity?: Severity;
}

/** The text a query searches: name, ARN, id and tag values, lower-cased. */
function searchText(asset: Asset): string {
  return [asset.name, asset.arn ?? "", asset.id, ...Object.values(asset.tags)].join("\u0000")
    .toLowerCase();
}

/** The assets in name order (ties by id) with their search texts alongside. */
interface SearchOrder {
  assets: readonly Asset[];
  texts: readonly string[];
  /** Per account id, the positions of its assets in `assets`, ascending. */
  byAccount: ReadonlyMap<string, Uint32Array>;
}

/**
 * The search order, cached per dataset version. Texts sit in an array
 * aligned with the assets (a per-object map lookup costs several times the
 * substring test on 100,000 assets); the account index lets a search by
 * account visit only that account's assets, still in name order.
 */
/** The account an asset is listed under by `list_accounts`: its id, or `unknown` without one. */
function accountKey(asset: Asset): string {
  return asset.account_id ?? UNKNOWN_ACCOUNT;
}

function searchOrder(view: DatasetView): SearchOrder {
  return view.derived("inventory_search_order", () => {
    const assets = [...view.records.assets].sort((a, b) =>
      compareCodePoints(a.name, b.name) || compareCodePoints(a.id, b.id)
    );
    const positions = new Map<string, number[]>();
    for (let i = 0; i < assets.length; i++) {
      const account = accountKey(assets[i]!);
      if (account === "") continue;
      pushTo(positions, account, i);
    }
    const byAccount = new Map<string, Uint32Array>();
    for (const [account, list] of positions) byAccount.set(account, Uint32Array.from(list));
    return { assets, texts: assets.map(searchText), byAccount };
  });
}

const NO_POSITIONS = new Uint32Array(0);

function parseTag(tag: string): { key: string; value: string | null } {
  const eq = tag.indexOf("=");
  const key = (eq < 0 ? tag : tag.slice(0, eq)).trim();
  if (key === "") {
    throw new InvalidArgumentError("The tag filter needs a key: pass `key` or `key=value`.", {
      value: tag,
    });
  }
  return { key, value: eq < 0 ? null : tag.slice(eq + 1).trim() };
}

/** A predicate for the filter; throws {@linkcode InvalidArgumentError} on a bad tag filter. */
export function assetPredicate(
  view: DatasetView,
  filter: AssetFilter,
): (asset: Asset) => boolean {
  const needle = filter.query ? filter.query.toLowerCase() : null;
  const types = filter.assetTypes && filter.assetTypes.length > 0
    ? new Set<string>(filter.assetTypes)
    : null;
  const region = filter.region ? filter.region.toLowerCase() : null;
  const tag = filter.tag ? parseTag(filter.tag) : null;
  const minRank = filter.minSeverity === undefined ? null : severityRank(filter.minSeverity);
  return (asset) => {
    if (filter.provider !== undefined && asset.provider !== filter.provider) return false;
    if (types !== null && !types.has(asset.asset_type)) return false;
    if (region !== null && asset.region.toLowerCase() !== region) return false;
    if (filter.accountId && accountKey(asset) !== filter.accountId) return false;
    if (
      filter.internetExposed !== undefined && asset.is_internet_exposed !== filter.internetExposed
    ) {
      return false;
    }
    if (tag !== null) {
      if (!Object.hasOwn(asset.tags, tag.key)) return false;
      if (tag.value !== null && asset.tags[tag.key] !== tag.value) return false;
    }
    if (needle !== null && !searchText(asset).includes(needle)) return false;
    if (filter.hasFindings !== undefined || minRank !== null) {
      const stats = openFindingStats(view, asset.id);
      if (filter.hasFindings !== undefined && (stats.open_findings > 0) !== filter.hasFindings) {
        return false;
      }
      if (
        minRank !== null &&
        (stats.max_severity === null || severityRank(stats.max_severity) < minRank)
      ) return false;
    }
    return true;
  };
}

function textKey(asset: Asset, sort: AssetSort): string {
  switch (sort) {
    case "type":
      return asset.asset_type;
    case "region":
      return asset.region;
    case "account":
      return asset.account_id ?? "\uffff";
    default:
      return asset.name;
  }
}

/**
 * The assets matching `filter`, sorted: `name`, `type`, `region` and
 * `account` ascending (ties by name, then id; unknown accounts last); `risk`
 * ({@linkcode assetRiskSortKey}) and `findings` (open finding count) highest
 * first (ties by name). `descending` reverses the whole order.
 */
export function findAssets(
  view: DatasetView,
  filter: AssetFilter,
  options: { sortBy?: AssetSort; descending?: boolean } = {},
): Asset[] {
  const sort = options.sortBy ?? "name";
  const { query, ...rest } = filter;
  const keep = assetPredicate(view, rest);
  const needle = query ? query.toLowerCase() : null;
  const order = searchOrder(view);
  let matches: Asset[] = [];
  if (filter.accountId) {
    // Only that account's assets can match (the predicate still checks the rest).
    const positions = order.byAccount.get(filter.accountId) ?? NO_POSITIONS;
    for (const i of positions) {
      if (needle !== null && !order.texts[i]!.includes(needle)) continue;
      const asset = order.assets[i]!;
      if (keep(asset)) matches.push(asset);
    }
  } else {
    for (let i = 0; i < order.assets.length; i++) {
      if (needle !== null && !order.texts[i]!.includes(needle)) continue;
      const asset = order.assets[i]!;
      if (keep(asset)) matches.push(asset);
    }
  }
  if (sort === "risk" || sort === "findings") {
    const keyed = matches.map((asset, index) => {
      const [first, second] = sort === "risk"
        ? assetRiskSortKey(view, asset)
        : [openFindingStats(view, asset.id).open_findings, 0];
      return { asset, index, first, second };
    });
    keyed.sort((a, b) => b.first - a.first || b.second - a.second || a.index - b.index);
    matches = keyed.map((k) => k.asset);
  } else if (sort !== "name") {
    // Stable sort over the name order keeps name, then id, as the tie-break.
    matches.sort((a, b) => compareCodePoints(textKey(a, sort), textKey(b, sort)));
  }
  if (options.descending) matches.reverse();
  return matches;
}

/** A projected brief: `id` first, then the requested fields in {@linkcode ASSET_FIELDS} order. */
export type ProjectedAsset = Partial<AssetBrief> & { id: string };

/** The brief of an asset projected to `fields`; without fields, the brief (no tags). */
export function projectAsset(
  view: DatasetView,
  asset: Asset,
  fields: readonly AssetField[],
): ProjectedAsset {
  if (fields.length === 0) return assetBrief(view, asset);
  const brief = assetBrief(view, asset, { tags: fields.includes("tags") });
  const wanted = new Set<string>(fields);
  const out: Record<string, unknown> = { id: brief.id };
  for (const field of ASSET_FIELDS) {
    if (field !== "id" && wanted.has(field)) out[field] = brief[field];
  }
  return out as ProjectedAsset;
}
