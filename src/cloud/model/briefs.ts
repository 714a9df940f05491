/**
 * The compact shapes assets, path hops, edges and findings take in every
 * answer (§5.1), and the `cloudg://` URIs that point back at them.
 *
 * @module
 */

import type { AssetType, CloudProvider, EdgeType, RelationType, Severity } from "./enums.ts";
import { severityRank } from "./enums.ts";
import type { Asset, Edge, Finding } from "./records.ts";
import { displayId, riskScore } from "./records.ts";
import type { DatasetView } from "./view.ts";
import { viewCrossAccountEnds } from "./edge_accounts.ts";

/** URI scheme prefix of every workbench resource. */
export const URI_SCHEME = "cloudg://";

/**
 * Percent-encodes every character outside `A-Z a-z 0-9 - _ . ~`, so `/` and
 * `:` are encoded too (`0.0.0.0/0` → `0.0.0.0%2F0`).
 */
export function encodeUriPart(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `cloudg://assets/<encoded id>` for an asset (its display id) or a raw node id. */
export function assetUri(asset: Pick<Asset, "id" | "arn"> | string): string {
  const id = typeof asset === "string" ? asset : displayId(asset);
  return `${URI_SCHEME}assets/${encodeUriPart(id)}`;
}

/** `cloudg://findings/<encoded id>`. */
export function findingUri(findingId: string): string {
  return `${URI_SCHEME}findings/${encodeUriPart(findingId)}`;
}

/** `cloudg://compliance/<encoded framework>`. */
export function complianceUri(framework: string): string {
  return `${URI_SCHEME}compliance/${encodeUriPart(framework)}`;
}

/** `cloudg://datasets/<name>/summary` (names are URI-safe by the naming rule). */
export function datasetSummaryUri(name: string): string {
  return `${URI_SCHEME}datasets/${name}/summary`;
}

/** An asset as lists show it. */
export interface AssetBrief {
  /** Internal id. */
  id: string;
  /** Display name. */
  name: string;
  /** Asset type. */
  type: AssetType;
  /** Cloud provider. */
  provider: CloudProvider;
  /** Region. */
  region: string;
  /** Account, subscription or project; null when unknown. */
  account_id: string | null;
  /** ARN or cloud resource id; null when none. */
  arn: string | null;
  /** Whether it is reachable from the internet. */
  internet_exposed: boolean;
  /** Open (unsuppressed) findings mapped to the asset. */
  open_findings: number;
  /** Worst open severity, or null. */
  max_severity: Severity | null;
  /** Resource URI. */
  uri: string;
  /** Present only where a caller asks for tags. */
  tags?: Record<string, string>;
}

/** Options of {@linkcode assetBrief}. */
export interface AssetBriefOptions {
  /** Include the asset's tags. @default false */
  tags?: boolean;
}

/** Open (unsuppressed) findings of an asset, highest risk first (ties in dataset order). */
export function openFindings(view: DatasetView, assetId: string): Finding[] {
  return view.findingsFor(assetId).filter((f) => !f.is_suppressed)
    .map((finding, index) => ({ finding, index, risk: riskScore(finding) }))
    .sort((a, b) => b.risk - a.risk || a.index - b.index)
    .map(({ finding }) => finding);
}

/** Open findings of an asset and the worst of their severities. */
export function openFindingStats(
  view: DatasetView,
  assetId: string,
): { open_findings: number; max_severity: Severity | null } {
  let count = 0;
  let worst: Severity | null = null;
  for (const finding of view.findingsFor(assetId)) {
    if (finding.is_suppressed) continue;
    count++;
    if (worst === null || severityRank(finding.severity) > severityRank(worst)) {
      worst = finding.severity;
    }
  }
  return { open_findings: count, max_severity: worst };
}

/** The asset brief `{id, name, type, provider, region, account_id, arn, internet_exposed, open_findings, max_severity, uri}`. */
export function assetBrief(
  view: DatasetView,
  asset: Asset,
  options: AssetBriefOptions = {},
): AssetBrief {
  const stats = openFindingStats(view, asset.id);
  const brief: AssetBrief = {
    id: asset.id,
    name: asset.name,
    type: asset.asset_type,
    provider: asset.provider,
    region: asset.region,
    account_id: asset.account_id,
    arn: asset.arn,
    internet_exposed: asset.is_internet_exposed,
    open_findings: stats.open_findings,
    max_severity: stats.max_severity,
    uri: assetUri(asset),
  };
  if (options.tags) brief.tags = { ...asset.tags };
  return brief;
}

/** A path hop: an asset with nulls omitted, or an external placeholder. */
export type HopBrief =
  | {
    id: string;
    name: string;
    type: AssetType;
    account_id?: string;
    internet_exposed: boolean;
    open_findings: number;
    max_severity?: Severity;
  }
  | { id: string; name: string; type: "EXTERNAL"; external: true };

/** The hop brief of a node id: the asset's facts, or `{id, name, type: "EXTERNAL", external: true}`. */
export function hopBrief(view: DatasetView, nodeId: string): HopBrief {
  const asset = view.asset(nodeId);
  if (!asset) return { id: nodeId, name: nodeId, type: "EXTERNAL", external: true };
  const stats = openFindingStats(view, asset.id);
  return {
    id: asset.id,
    name: asset.name,
    type: asset.asset_type,
    ...(asset.account_id === null ? {} : { account_id: asset.account_id }),
    internet_exposed: asset.is_internet_exposed,
    open_findings: stats.open_findings,
    ...(stats.max_severity === null ? {} : { max_severity: stats.max_severity }),
  };
}

/** An edge as lists show it. */
export interface EdgeBrief {
  /** Internal id. */
  id: string;
  /** Source node id (an asset id or a placeholder such as 0.0.0.0/0). */
  source: string;
  /** Source asset name, or the placeholder id. */
  source_name: string;
  /** Target node id (an asset id or a placeholder). */
  target: string;
  /** Target asset name, or the placeholder id. */
  target_name: string;
  /** Edge type. */
  edge_type: EdgeType;
  /** Declared relation, or null when none. */
  relationship: RelationType | null;
  /** Port range such as 80,443 or 80-443. */
  port_range?: string;
  /** Protocol. */
  protocol?: string;
  /** CIDR block. */
  cidr?: string;
  /** Description. */
  description?: string;
  /** The first 20 ports written out (single ports, short ranges); `port_range` is the whole rule. */
  ports?: number[];
  /** Only for SECURITY_GROUP_RULE and NACL_RULE. */
  direction?: "ingress" | "egress";
  /** Present (true) when both ends are assets in different accounts. */
  cross_account?: true;
  /** Present (true) when a policy condition limits the grant or trust the edge stands for. */
  conditional?: true;
}

/** The edge brief; endpoint names are asset names, or the raw id for placeholders. */
export function edgeBrief(view: DatasetView, edge: Edge): EdgeBrief {
  const brief: EdgeBrief = {
    id: edge.id,
    source: edge.source_id,
    source_name: view.asset(edge.source_id)?.name ?? edge.source_id,
    target: edge.target_id,
    target_name: view.asset(edge.target_id)?.name ?? edge.target_id,
    edge_type: edge.edge_type,
    relationship: edge.relationship ?? null,
  };
  if (edge.port_range) brief.port_range = edge.port_range;
  if (edge.protocol) brief.protocol = edge.protocol;
  if (edge.cidr) brief.cidr = edge.cidr;
  if (edge.description) brief.description = edge.description;
  if (edge.ports && edge.ports.length > 0) brief.ports = edge.ports.slice(0, 20);
  if (edge.edge_type === "SECURITY_GROUP_RULE" || edge.edge_type === "NACL_RULE") {
    brief.direction = edge.direction;
  }
  if (viewCrossAccountEnds(view, edge) !== null) brief.cross_account = true;
  if (edge.properties["conditional"] === true) brief.conditional = true;
  return brief;
}

/** A finding as lists show it. */
export interface FindingBrief {
  /** Internal id. */
  id: string;
  /** Title. */
  title: string;
  /** Severity. */
  severity: Severity;
  /** Risk score (severity base, averaged with CVSS when present). */
  risk_score: number;
  /** Tool that reported it. */
  source_tool: string;
  /** Resource as the source named it. */
  resource_id: string;
  /** Resource ARN, or null. */
  resource_arn: string | null;
  /** The mapped asset's id, or null when the finding maps to no asset. */
  asset_id: string | null;
  /** Mapped asset name, or null. */
  asset_name: string | null;
  /** Framework names. */
  compliance_frameworks: string[];
  /** Whether suppressed. */
  is_suppressed: boolean;
  /** CVSS score, or null. */
  cvss_score: number | null;
  /** Detection time, or null when the source gave none. */
  detected_at: string | null;
  /** Resource URI. */
  uri: string;
}

/** The finding brief, with the asset it maps to (or nulls). */
export function findingBrief(view: DatasetView, finding: Finding): FindingBrief {
  const asset = view.findingAsset(finding);
  return {
    id: finding.id,
    title: finding.title,
    severity: finding.severity,
    risk_score: riskScore(finding),
    source_tool: finding.source_tool,
    resource_id: finding.resource_id,
    resource_arn: finding.resource_arn,
    asset_id: asset?.id ?? null,
    asset_name: asset?.name ?? null,
    compliance_frameworks: [...finding.compliance_frameworks],
    is_suppressed: finding.is_suppressed,
    cvss_score: finding.cvss_score,
    detected_at: finding.detected_at,
    uri: findingUri(finding.id),
  };
}
