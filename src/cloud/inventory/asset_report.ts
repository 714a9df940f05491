/**
 * What `get_asset` and `get_asset_metadata` answer: one asset in depth
 * (brief, tags, service, relation counts and a sample of its edges, direct
 * dependencies, degree, open findings, metadata keys), and its raw metadata
 * within a character budget.
 *
 * @module
 */

import type { AssetBrief, EdgeBrief, FindingBrief } from "../model/briefs.ts";
import { assetBrief, edgeBrief, findingBrief, openFindings } from "../model/briefs.ts";
import { compareCodePoints } from "../model/order.ts";
import type { Asset, Json } from "../model/records.ts";
import { resolveAsset } from "../model/references.ts";
import type { DatasetView } from "../model/view.ts";
import { adjacency, metadataKeys, tallyEdges } from "./asset_detail.ts";

/** Most open findings in a report. */
export const REPORT_FINDINGS = 25;

/** The cloud service an ARN, Azure resource id or GCP full name names, or null. */
export function serviceOf(asset: Pick<Asset, "arn">): string | null {
  const arn = asset.arn ?? "";
  if (arn.startsWith("arn:")) return arn.split(":")[2] || null;
  const azure = /\/providers\/([^/]+)\//i.exec(arn);
  if (azure) return azure[1]!;
  const gcp = /^\/\/([a-z0-9-]+)\.googleapis\.com\//.exec(arn);
  if (gcp) return gcp[1]!;
  return null;
}

/** One asset in depth. */
export interface AssetReport extends AssetBrief {
  tags: Record<string, string>;
  service: string | null;
  relations: {
    outgoing: Record<string, number>;
    incoming: Record<string, number>;
    sample: EdgeBrief[];
    total: number;
    truncated: boolean;
  };
  dependencies: { direct_depends_on: number; direct_dependents: number };
  degree: { in: number; out: number };
  findings?: FindingBrief[];
  metadata_keys: string[];
  collected_at: string;
}

/**
 * The report on the asset `ref` names (any reference tier): relation counts
 * per edge type over every touching edge, the first `maxRelations` of them
 * as edge briefs, and up to 25 open findings (riskiest first) when asked.
 */
export function assetReport(
  view: DatasetView,
  ref: string,
  options: { includeFindings?: boolean; maxRelations?: number } = {},
): AssetReport {
  const asset = resolveAsset(view, ref);
  const touching = adjacency(view).get(asset.id) ?? [];
  const { outgoing, incoming, dependencies, degree } = tallyEdges(asset.id, touching);
  const max = options.maxRelations ?? 20;
  const report: AssetReport = {
    ...assetBrief(view, asset),
    tags: { ...asset.tags },
    service: serviceOf(asset),
    relations: {
      outgoing,
      incoming,
      sample: touching.slice(0, max).map((e) => edgeBrief(view, e)),
      total: touching.length,
      truncated: touching.length > max,
    },
    dependencies,
    degree,
    metadata_keys: metadataKeys(asset),
    collected_at: asset.collected_at,
  };
  if (options.includeFindings ?? true) {
    report.findings = openFindings(view, asset.id).slice(0, REPORT_FINDINGS).map((f) =>
      findingBrief(view, f)
    );
  }
  return report;
}

/** An asset's raw metadata within a budget. */
export interface AssetMetadata {
  asset: { id: string; name: string; type: string; uri: string };
  metadata: Record<string, Json>;
  /** Characters of each selected key's JSON value. */
  key_sizes: Record<string, number>;
  /** Requested keys the asset does not have. */
  missing_keys: string[];
  /** Keys left out because the budget ran out. */
  omitted_keys: string[];
  /** Characters of the metadata returned. */
  chars: number;
  truncated: boolean;
  hint?: string;
}

/**
 * The metadata of the asset `ref` names: the requested keys (all keys in
 * code-point order when none), each kept whole while the JSON of what is
 * kept stays within `maxChars`; keys that would overflow are left out and
 * listed in `omitted_keys`.
 */
export function assetMetadata(
  view: DatasetView,
  ref: string,
  options: { keys?: readonly string[]; maxChars?: number } = {},
): AssetMetadata {
  const asset = resolveAsset(view, ref);
  const maxChars = options.maxChars ?? 40_000;
  const requested = options.keys && options.keys.length > 0
    ? [...new Set(options.keys)]
    : Object.keys(asset.metadata).sort(compareCodePoints);
  const missing = requested.filter((k) => !Object.hasOwn(asset.metadata, k));
  const metadata: Record<string, Json> = {};
  const sizes: Record<string, number> = {};
  const omitted: string[] = [];
  let used = 2; // the braces
  for (const key of requested) {
    if (!Object.hasOwn(asset.metadata, key)) continue;
    const value = asset.metadata[key]!;
    const size = JSON.stringify(value).length;
    sizes[key] = size;
    const cost = JSON.stringify(key).length + 1 + size + (Object.keys(metadata).length ? 1 : 0);
    if (used + cost > maxChars) {
      omitted.push(key);
      continue;
    }
    metadata[key] = value;
    used += cost;
  }
  const brief = assetBrief(view, asset);
  const out: AssetMetadata = {
    asset: { id: asset.id, name: asset.name, type: asset.asset_type, uri: brief.uri },
    metadata,
    key_sizes: sizes,
    missing_keys: missing,
    omitted_keys: omitted,
    chars: used,
    truncated: omitted.length > 0,
  };
  if (omitted.length > 0) {
    out.hint = "Some keys did not fit in max_chars: ask for them by name with keys, or raise " +
      "max_chars (up to 200000).";
  } else if (missing.length > 0) {
    out.hint = "Some requested keys are not in this asset's metadata; get_asset lists its keys.";
  }
  return out;
}
