/**
 * Asset references (§4.8): an id, ARN, cloud resource id or name resolved to
 * one asset through six tiers, the first unique hit winning; ambiguity and
 * misses become errors carrying hints. Findings map to assets through the
 * same tiers over their `resource_id`, then their `resource_arn`.
 *
 * @module
 */

import { closeMatches } from "./close_matches.ts";
import type { AssetType } from "./enums.ts";
import { AmbiguousAssetError, UnknownAssetError } from "./errors.ts";
import type { Asset, DatasetRecords, Finding } from "./records.ts";
import type { DatasetView } from "./view.ts";

/** The derived-view key under which a dataset caches its {@linkcode AssetIndex}. */
export const ASSET_INDEX_KEY = "asset_index";

/** Most asset ids listed in `data.ambiguous`. */
export const MAX_AMBIGUOUS_IDS = 20;
/** Most hints in `data.suggestions` or `data.candidates`. */
export const MAX_HINTS = 5;

/** The assets under one key: one asset, or a list when several share the key. */
export type AssetBucket = Asset | Asset[];

/** Lookup tables over a dataset's assets, one per resolution tier. */
export interface AssetIndex {
  /** Tier 1: internal id. */
  readonly byId: Map<string, Asset>;
  /** Tier 2: ARN, `metadata.resource_id` and `metadata.aliases`. */
  readonly byCloudId: Map<string, AssetBucket>;
  /** Tier 3: exact name. */
  readonly byName: Map<string, AssetBucket>;
  /** Tier 4: the text after the last `/` of an ARN or resource id (built on first use). */
  readonly byLastSegment: Map<string, AssetBucket>;
  /** Tier 5: the ARN resource part (after the fifth `:`) and its last `:`/`/` segment (built on first use). */
  readonly byResourcePart: Map<string, AssetBucket>;
  /** Tier 6: lower-cased name (built on first use). */
  readonly byLowerName: Map<string, AssetBucket>;
}

function push(map: Map<string, AssetBucket>, key: string, asset: Asset): void {
  if (key === "") return;
  const bucket = map.get(key);
  if (bucket === undefined) map.set(key, asset);
  else if (Array.isArray(bucket)) {
    if (!bucket.includes(asset)) bucket.push(asset);
  } else if (bucket !== asset) map.set(key, [bucket, asset]);
}

function unique(bucket: AssetBucket | undefined): Asset | undefined {
  return bucket === undefined || Array.isArray(bucket) ? undefined : bucket;
}

/** The cloud-side identifiers of an asset: ARN, `metadata.resource_id`, `metadata.aliases`. */
export function cloudIds(asset: Asset): string[] {
  const ids: string[] = [];
  if (asset.arn) ids.push(asset.arn);
  const resourceId = asset.metadata?.["resource_id"];
  if (typeof resourceId === "string" && resourceId !== "") ids.push(resourceId);
  const aliases = asset.metadata?.["aliases"];
  if (Array.isArray(aliases)) {
    for (const alias of aliases) if (typeof alias === "string" && alias !== "") ids.push(alias);
  }
  return ids;
}

/** The ARN resource part (text after the fifth `:`), or null when not an ARN. */
export function arnResourcePart(arn: string): string | null {
  if (!arn.startsWith("arn:")) return null;
  let index = -1;
  for (let i = 0; i < 5; i++) {
    index = arn.indexOf(":", index + 1);
    if (index < 0) return null;
  }
  return arn.slice(index + 1);
}

class LazyAssetIndex implements AssetIndex {
  readonly byId = new Map<string, Asset>();
  readonly byCloudId = new Map<string, AssetBucket>();
  readonly byName = new Map<string, AssetBucket>();
  #assets: readonly Asset[];
  #segments?: Map<string, AssetBucket>;
  #parts?: Map<string, AssetBucket>;
  #lower?: Map<string, AssetBucket>;

  constructor(assets: readonly Asset[]) {
    this.#assets = assets;
    for (const asset of assets) {
      if (!this.byId.has(asset.id)) this.byId.set(asset.id, asset);
      push(this.byName, asset.name, asset);
      if (asset.arn) push(this.byCloudId, asset.arn, asset);
      const metadata = asset.metadata;
      if (metadata && ("resource_id" in metadata || "aliases" in metadata)) {
        for (const id of cloudIds(asset)) push(this.byCloudId, id, asset);
      }
    }
  }

  get byLastSegment(): Map<string, AssetBucket> {
    if (!this.#segments) {
      this.#segments = new Map();
      for (const asset of this.#assets) {
        for (const id of cloudIds(asset)) {
          const slash = id.lastIndexOf("/");
          if (slash >= 0) push(this.#segments, id.slice(slash + 1), asset);
        }
      }
    }
    return this.#segments;
  }

  get byResourcePart(): Map<string, AssetBucket> {
    if (!this.#parts) {
      this.#parts = new Map();
      for (const asset of this.#assets) {
        if (!asset.arn) continue;
        const part = arnResourcePart(asset.arn);
        if (part === null) continue;
        push(this.#parts, part, asset);
        const cut = Math.max(part.lastIndexOf(":"), part.lastIndexOf("/"));
        if (cut >= 0) push(this.#parts, part.slice(cut + 1), asset);
      }
    }
    return this.#parts;
  }

  get byLowerName(): Map<string, AssetBucket> {
    if (!this.#lower) {
      this.#lower = new Map();
      for (const asset of this.#assets) push(this.#lower, asset.name.toLowerCase(), asset);
    }
    return this.#lower;
  }
}

/** The outcome of a lookup that does not throw. */
export type AssetLookup =
  | { kind: "found"; asset: Asset; tier: number }
  | { kind: "ambiguous"; assets: Asset[] }
  | { kind: "missing" };

/** Builds the lookup tables for a set of records (tiers 4–6 on first use). */
export function buildAssetIndex(records: Pick<DatasetRecords, "assets">): AssetIndex {
  return new LazyAssetIndex(records.assets);
}

/** The dataset's index, built once per version through its derived-view cache. */
export function assetIndex(view: DatasetView): AssetIndex {
  return view.derived(ASSET_INDEX_KEY, () => buildAssetIndex(view.records));
}

/** Looks a reference up through the six tiers without throwing. */
export function lookupAsset(index: AssetIndex, ref: string): AssetLookup {
  if (typeof ref !== "string" || ref === "") return { kind: "missing" };
  const byId = index.byId.get(ref);
  if (byId) return { kind: "found", asset: byId, tier: 1 };
  const cloud = unique(index.byCloudId.get(ref));
  if (cloud) return { kind: "found", asset: cloud, tier: 2 };
  const named = index.byName.get(ref);
  if (named !== undefined) {
    if (!Array.isArray(named)) return { kind: "found", asset: named, tier: 3 };
    return { kind: "ambiguous", assets: named };
  }
  const segment = unique(index.byLastSegment.get(ref));
  if (segment) return { kind: "found", asset: segment, tier: 4 };
  const part = unique(index.byResourcePart.get(ref));
  if (part) return { kind: "found", asset: part, tier: 5 };
  const lower = unique(index.byLowerName.get(ref.toLowerCase()));
  if (lower) return { kind: "found", asset: lower, tier: 6 };
  return { kind: "missing" };
}

/** A hint naming one asset in an error's data. */
export interface AssetHint {
  /** Internal id. */
  id: string;
  /** Display name. */
  name: string;
  /** ARN or cloud resource id; null when none. */
  arn: string | null;
  /** Asset type. */
  type: AssetType;
  /** Account, subscription or project; null when unknown. */
  account_id: string | null;
  /** Dataset name. */
  dataset: string;
}

/** What names an asset in hints and short descriptions: id, name, ARN, type and account. */
export type AssetIdentity = Omit<AssetHint, "dataset">;

/** The identity of one asset, the first keys of its hint and of its short description. */
export function assetIdentity(asset: Asset): AssetIdentity {
  return {
    id: asset.id,
    name: asset.name,
    arn: asset.arn,
    type: asset.asset_type,
    account_id: asset.account_id,
  };
}

/** The hint for one asset. */
export function assetHint(asset: Asset, dataset: string): AssetHint {
  return { ...assetIdentity(asset), dataset };
}

/**
 * Up to five near hits for a reference: assets whose name or ARN contains it
 * (case-insensitive) first, then assets with a similar name (ratio ≥ 0.5).
 */
export function suggestAssets(
  records: Pick<DatasetRecords, "assets">,
  ref: string,
  dataset: string,
): AssetHint[] {
  const needle = String(ref).toLowerCase();
  const picked: Asset[] = [];
  if (needle !== "") {
    for (const asset of records.assets) {
      if (picked.length >= MAX_HINTS) break;
      if (
        asset.name.toLowerCase().includes(needle) ||
        (asset.arn?.toLowerCase().includes(needle) ?? false)
      ) picked.push(asset);
    }
  }
  if (picked.length < MAX_HINTS && needle !== "") {
    const names = [...new Set(records.assets.map((a) => a.name))];
    const close: string[] = closeMatches(String(ref), names, MAX_HINTS, 0.5);
    for (const name of close) {
      for (const asset of records.assets) {
        if (picked.length >= MAX_HINTS) break;
        if (asset.name === name && !picked.includes(asset)) picked.push(asset);
      }
    }
  }
  return picked.slice(0, MAX_HINTS).map((asset) => assetHint(asset, dataset));
}

/**
 * Resolves a reference to one asset of the dataset, or throws
 * {@linkcode AmbiguousAssetError} (data `{value, dataset, ambiguous, candidates}`)
 * or {@linkcode UnknownAssetError} (data `{value, dataset, suggestions}`).
 *
 * @example
 * ```ts ignore
 * const asset = resolveAsset(view, "arn:aws:rds:us-east-1:111111111111:db:orders-db");
 * ```
 */
export function resolveAsset(view: DatasetView, ref: string): Asset {
  const found = lookupAsset(assetIndex(view), ref);
  if (found.kind === "found") return found.asset;
  if (found.kind === "ambiguous") {
    throw new AmbiguousAssetError(
      `The reference names ${found.assets.length} assets; pass one of the ids in ` +
        `data.ambiguous (or its ARN) instead.`,
      {
        value: ref,
        dataset: view.name,
        ambiguous: found.assets.slice(0, MAX_AMBIGUOUS_IDS).map((a) => a.id),
        candidates: found.assets.slice(0, MAX_HINTS).map((a) => assetHint(a, view.name)),
      },
    );
  }
  throw new UnknownAssetError(
    "No asset in the dataset matches the reference (an id, ARN, resource id or unique " +
      "name); near matches are in data.suggestions.",
    { value: ref, dataset: view.name, suggestions: suggestAssets(view.records, ref, view.name) },
  );
}

/** The asset a finding maps to: its `resource_id` through the tiers, then its `resource_arn`. */
export function mapFindingToAsset(
  index: AssetIndex,
  finding: Pick<Finding, "resource_id" | "resource_arn">,
): Asset | undefined {
  for (const ref of [finding.resource_id, finding.resource_arn]) {
    if (!ref) continue;
    const found = lookupAsset(index, ref);
    if (found.kind === "found") return found.asset;
  }
  return undefined;
}
