/**
 * Drift between two datasets (§4.5): assets keyed by ARN else id, edges by
 * their endpoint keys, type and relationship, findings by tool, source id or
 * title, and resource.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { checkLimit } from "../model/cursors.ts";
import type { AssetType, EdgeType, Severity } from "../model/enums.ts";
import { compareCodePoints } from "../model/order.ts";
import { KEPT_ATTRIBUTES } from "../model/kept_attributes.ts";
import type { Asset, Finding, Json } from "../model/records.ts";
import { displayId } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";

/** A list cut to the limit. */
export interface DiffSection<T> {
  /** How many items the full list holds. */
  count: number;
  /** The items, at most the limit. */
  items: T[];
  /** True when items were cut to the limit. */
  truncated: boolean;
}

/** An asset in a diff. */
export interface DiffAsset {
  /** Internal id. */
  id: string;
  /** Diff key: the ARN, else the id. */
  key: string;
  /** Display name. */
  name: string;
  /** Asset type. */
  type: AssetType;
  /** Account, subscription or project; null when unknown. */
  account_id: string | null;
  /** Region. */
  region: string;
}

/** A changed asset: the target's brief plus what changed. */
export interface ChangedAsset extends DiffAsset {
  /** Changed fields. */
  changed_fields: string[];
  /** Exposure before and after, when it changed. */
  internet_exposed?: { before: boolean; after: boolean };
}

/** An edge in a diff, by endpoint keys. */
export interface DiffEdge {
  /** Source node (asset key or placeholder). */
  source: string;
  /** Target node (asset key or placeholder). */
  target: string;
  /** Edge type. */
  edge_type: EdgeType;
  /** Declared relation, or "" when none. */
  relationship: string;
}

/** A finding in a diff. */
export interface DiffFinding {
  /** Internal id. */
  id: string;
  /** Title. */
  title: string;
  /** Severity. */
  severity: Severity;
  /** Mapped asset key, else resource ARN, else resource id. */
  resource: string;
  /** Tool that reported it. */
  source_tool: string;
}

/** The drift report. */
export interface DatasetDiff {
  /** Base dataset name. */
  base: string;
  /** Target dataset name. */
  target: string;
  /** Asset counts or changes. */
  assets: {
    /** What assets are compared on (see {@link DIFF_COMPARES}). */
    compared: string;
    added: DiffSection<DiffAsset>;
    removed: DiffSection<DiffAsset>;
    changed: DiffSection<ChangedAsset>;
    unchanged: number;
  };
  /** Edge counts or changes. */
  edges: { added: DiffSection<DiffEdge>; removed: DiffSection<DiffEdge> };
  /** Findings (counts or items). */
  findings: {
    new: DiffSection<DiffFinding>;
    resolved: DiffSection<DiffFinding>;
    severity_changed: DiffSection<DiffFinding & { severity_before: Severity }>;
  };
  /** Assets that became, or arrived, internet-exposed. */
  newly_internet_exposed: DiffSection<DiffAsset>;
}

function section<T>(items: T[], limit: number): DiffSection<T> {
  return { count: items.length, items: items.slice(0, limit), truncated: items.length > limit };
}

function canonicalJson(value: Json | undefined): string {
  if (value === undefined || value === null || typeof value !== "object") {
    return JSON.stringify(value ?? null);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
}

/** The 16-hex hash of an asset's metadata (sorted-key JSON). */
export function metadataHash(metadata: Record<string, Json>): string {
  return createHash("sha256").update(canonicalJson(metadata)).digest("hex").slice(0, 16);
}

function fingerprint(asset: Asset): Record<string, string> {
  return {
    name: asset.name,
    type: asset.asset_type,
    region: asset.region,
    account_id: asset.account_id ?? "",
    tags: canonicalJson(asset.tags),
    internet_exposed: String(asset.is_internet_exposed),
    metadata_hash: metadataHash(asset.metadata),
  };
}

/** How many changed metadata keys a changed asset names. */
const MAX_CHANGED_KEYS = 20;

/** `metadata.<key>` for each top-level metadata key whose value differs, at most 20, sorted. */
function changedMetadata(old: Asset, now: Asset): string[] {
  const keys = new Set([...Object.keys(old.metadata), ...Object.keys(now.metadata)]);
  return sortedKeys(
    [...keys].filter((k) => canonicalJson(old.metadata[k]) !== canonicalJson(now.metadata[k])),
  ).slice(0, MAX_CHANGED_KEYS).map((k) => `metadata.${k}`);
}

/** What the asset comparison of {@link diffDatasets} looks at, as results state it. */
export const DIFF_COMPARES =
  "Assets are matched by ARN (else id) and compared on name, type, region, account, tags, internet exposure and metadata (the facts the importer keeps; changed_fields names each changed metadata key as metadata.<key>, at most 20, beside metadata_hash). Terraform inputs keep these configuration attributes: " +
  KEPT_ATTRIBUTES.join(", ") +
  "; attributes no importer keeps are not compared, so a change to one of them leaves the asset unchanged.";

function diffAsset(asset: Asset): DiffAsset {
  return {
    id: asset.id,
    key: displayId(asset),
    name: asset.name,
    type: asset.asset_type,
    account_id: asset.account_id,
    region: asset.region,
  };
}

function assetsByKey(view: DatasetView): Map<string, Asset> {
  const map = new Map<string, Asset>();
  for (const asset of view.records.assets) {
    const key = displayId(asset);
    if (!map.has(key)) map.set(key, asset);
  }
  return map;
}

function nodeKey(view: DatasetView, id: string): string {
  const asset = view.asset(id);
  return asset ? displayId(asset) : id;
}

function edgeMap(view: DatasetView): Map<string, DiffEdge> {
  const map = new Map<string, DiffEdge>();
  for (const edge of view.records.edges) {
    const item: DiffEdge = {
      source: nodeKey(view, edge.source_id),
      target: nodeKey(view, edge.target_id),
      edge_type: edge.edge_type,
      relationship: edge.relationship ?? "",
    };
    const key = JSON.stringify([item.source, item.target, item.edge_type, item.relationship]);
    if (!map.has(key)) map.set(key, item);
  }
  return map;
}

function findingMap(view: DatasetView): Map<string, DiffFinding> {
  const map = new Map<string, DiffFinding>();
  for (const finding of view.records.findings) {
    const item = diffFinding(view, finding);
    const key = JSON.stringify([
      finding.source_tool,
      finding.source_finding_id ?? finding.title,
      item.resource,
    ]);
    if (!map.has(key)) map.set(key, item);
  }
  return map;
}

function diffFinding(view: DatasetView, finding: Finding): DiffFinding {
  const asset = view.findingAsset(finding);
  return {
    id: finding.id,
    title: finding.title,
    severity: finding.severity,
    resource: asset ? displayId(asset) : finding.resource_arn ?? finding.resource_id,
    source_tool: finding.source_tool,
  };
}

function sortedKeys(keys: Iterable<string>): string[] {
  return [...keys].sort(compareCodePoints);
}

/** Options of {@linkcode diffDatasets}. */
export interface DiffOptions {
  /** Most items per section, 1..500. @default 50 */
  limit?: number;
}

/** Compares `base` with `target`. */
export function diffDatasets(
  base: DatasetView,
  target: DatasetView,
  options: DiffOptions = {},
): DatasetDiff {
  const limit = checkLimit(options.limit);
  const before = assetsByKey(base);
  const after = assetsByKey(target);
  const added = sortedKeys([...after.keys()].filter((k) => !before.has(k)));
  const removed = sortedKeys([...before.keys()].filter((k) => !after.has(k)));
  const changed: ChangedAsset[] = [];
  const newlyExposed: DiffAsset[] = [];
  let unchanged = 0;
  for (const key of sortedKeys([...after.keys()].filter((k) => before.has(k)))) {
    const old = before.get(key)!;
    const now = after.get(key)!;
    const a = fingerprint(old);
    const b = fingerprint(now);
    const fields = Object.keys(a).filter((f) => a[f] !== b[f]).sort();
    if (a.metadata_hash !== b.metadata_hash) fields.push(...changedMetadata(old, now));
    if (fields.length === 0) {
      unchanged++;
      continue;
    }
    const item: ChangedAsset = { ...diffAsset(now), changed_fields: fields };
    if (old.is_internet_exposed !== now.is_internet_exposed) {
      item.internet_exposed = { before: old.is_internet_exposed, after: now.is_internet_exposed };
      if (now.is_internet_exposed) newlyExposed.push(diffAsset(now));
    }
    changed.push(item);
  }
  for (const key of added) {
    const asset = after.get(key)!;
    if (asset.is_internet_exposed) newlyExposed.push(diffAsset(asset));
  }
  const edgesBefore = edgeMap(base);
  const edgesAfter = edgeMap(target);
  const findingsBefore = findingMap(base);
  const findingsAfter = findingMap(target);
  const pick = <T>(map: Map<string, T>, keys: string[]): T[] => keys.map((k) => map.get(k)!);
  const severityChanged: (DiffFinding & { severity_before: Severity })[] = [];
  for (const key of sortedKeys(findingsAfter.keys())) {
    const old = findingsBefore.get(key);
    const now = findingsAfter.get(key)!;
    if (old && old.severity !== now.severity) {
      severityChanged.push({ ...now, severity_before: old.severity });
    }
  }
  return {
    base: base.name,
    target: target.name,
    assets: {
      compared: DIFF_COMPARES,
      added: section(added.map((k) => diffAsset(after.get(k)!)), limit),
      removed: section(removed.map((k) => diffAsset(before.get(k)!)), limit),
      changed: section(changed, limit),
      unchanged,
    },
    edges: {
      added: section(
        pick(edgesAfter, sortedKeys([...edgesAfter.keys()].filter((k) => !edgesBefore.has(k)))),
        limit,
      ),
      removed: section(
        pick(edgesBefore, sortedKeys([...edgesBefore.keys()].filter((k) => !edgesAfter.has(k)))),
        limit,
      ),
    },
    findings: {
      new: section(
        pick(
          findingsAfter,
          sortedKeys([...findingsAfter.keys()].filter((k) => !findingsBefore.has(k))),
        ),
        limit,
      ),
      resolved: section(
        pick(
          findingsBefore,
          sortedKeys([...findingsBefore.keys()].filter((k) => !findingsAfter.has(k))),
        ),
        limit,
      ),
      severity_changed: section(severityChanged, limit),
    },
    newly_internet_exposed: section(newlyExposed, limit),
  };
}
