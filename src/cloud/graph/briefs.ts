/**
 * The compact projections graph results use for assets, graph nodes, path
 * hops, edges and findings (spec §5.1 briefs).
 *
 * @module
 */

import type { Severity } from "../model/enums.ts";
import { severityRank } from "../model/enums.ts";
import type { Asset, Edge, Finding } from "../model/records.ts";
import { riskScore } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import { INTERNET_NODE } from "./internet.ts";

/** An asset as graph results list it. */
export interface AssetBrief {
  id: string;
  name: string;
  type: string;
  provider: string;
  region: string;
  account_id: string | null;
  arn: string | null;
  internet_exposed: boolean;
  open_findings: number;
  max_severity: Severity | null;
  uri: string;
  tags?: Record<string, string>;
}

/** A graph node that is not an asset: a CIDR, an external id, or the virtual internet. */
export interface PlaceholderBrief {
  id: string;
  name: string;
  type: string;
  external: true;
}

/** A path hop: the keys that explain the hop, nulls left out. */
export interface HopBrief {
  id: string;
  name: string;
  type: string;
  account_id?: string;
  internet_exposed?: boolean;
  open_findings?: number;
  max_severity?: Severity;
  external?: true;
}

/** An edge as graph results list it. */
export interface EdgeBrief {
  id: string;
  source: string;
  source_name: string;
  target: string;
  target_name: string;
  edge_type: string;
  relationship: string | null;
  port_range?: string;
  protocol?: string;
  cidr?: string;
  description?: string;
  ports?: number[];
  direction?: string;
  cross_account?: true;
}

/** A finding as graph results list it. */
export interface FindingBrief {
  id: string;
  title: string;
  severity: Severity;
  risk_score: number;
  source_tool: string;
  resource_id: string;
  resource_arn: string | null;
  asset_id: string | null;
  asset_name: string | null;
  compliance_frameworks: string[];
  is_suppressed: boolean;
  cvss_score: number | null;
  detected_at: string | null;
  uri: string;
}

function encodeSegment(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase(),
  );
}

/** The resource URI of an asset: `cloudg://assets/` and the percent-encoded id. */
export function assetUri(assetId: string): string {
  return "cloudg://assets/" + encodeSegment(assetId);
}

/** The resource URI of a finding: `cloudg://findings/` and the percent-encoded id. */
export function findingUri(findingId: string): string {
  return "cloudg://findings/" + encodeSegment(findingId);
}

/** The findings of an asset that are not suppressed. */
export function openFindings(view: DatasetView, assetId: string): Finding[] {
  return view.findingsFor(assetId).filter((f) => !f.is_suppressed);
}

/** The worst severity among findings, or null when there are none. */
export function maxSeverity(findings: readonly Finding[]): Severity | null {
  let best: Severity | null = null;
  for (const f of findings) {
    if (best === null || severityRank(f.severity) > severityRank(best)) best = f.severity;
  }
  return best;
}

/** The brief of an asset; `tags` only when asked for. */
export function assetBrief(
  view: DatasetView,
  asset: Asset,
  options: { tags?: boolean } = {},
): AssetBrief {
  const open = openFindings(view, asset.id);
  const out: AssetBrief = {
    id: asset.id,
    name: asset.name,
    type: asset.asset_type,
    provider: asset.provider,
    region: asset.region,
    account_id: asset.account_id,
    arn: asset.arn,
    internet_exposed: asset.is_internet_exposed,
    open_findings: open.length,
    max_severity: maxSeverity(open),
    uri: assetUri(asset.id),
  };
  if (options.tags) out.tags = { ...asset.tags };
  return out;
}

/** The brief of a graph node: an asset brief, or a placeholder brief for anything else. */
export function nodeBrief(view: DatasetView, nodeId: string): AssetBrief | PlaceholderBrief {
  const asset = view.asset(nodeId);
  if (asset) return assetBrief(view, asset);
  if (nodeId === INTERNET_NODE) {
    return { id: INTERNET_NODE, name: "internet", type: "EXTERNAL", external: true };
  }
  return { id: nodeId, name: nodeId, type: "EXTERNAL", external: true };
}

/** The brief of a path hop: id, name, type, account, exposure and findings, nulls omitted. */
export function hopBrief(view: DatasetView, nodeId: string): HopBrief {
  const full = nodeBrief(view, nodeId);
  if ("external" in full) return { ...full };
  const out: HopBrief = { id: full.id, name: full.name, type: full.type };
  if (full.account_id !== null) out.account_id = full.account_id;
  out.internet_exposed = full.internet_exposed;
  out.open_findings = full.open_findings;
  if (full.max_severity !== null) out.max_severity = full.max_severity;
  return out;
}

/**
 * The brief of an edge: endpoints with names, type and relationship; rule
 * fields only when set; `direction` only on security group and NACL rules;
 * `cross_account` when both ends are assets in different accounts.
 */
export function edgeBrief(view: DatasetView, edge: Edge): EdgeBrief {
  const s = view.asset(edge.source_id);
  const t = view.asset(edge.target_id);
  const out: EdgeBrief = {
    id: edge.id,
    source: edge.source_id,
    source_name: s ? s.name : edge.source_id,
    target: edge.target_id,
    target_name: t ? t.name : edge.target_id,
    edge_type: edge.edge_type,
    relationship: edge.relationship,
  };
  if (edge.port_range) out.port_range = edge.port_range;
  if (edge.protocol) out.protocol = edge.protocol;
  if (edge.cidr) out.cidr = edge.cidr;
  if (edge.description) out.description = edge.description;
  if (edge.ports.length > 0) out.ports = edge.ports.slice(0, 20);
  if (edge.edge_type === "SECURITY_GROUP_RULE" || edge.edge_type === "NACL_RULE") {
    out.direction = edge.direction;
  }
  if (s?.account_id && t?.account_id && s.account_id !== t.account_id) out.cross_account = true;
  return out;
}

/** The brief of a finding, with the asset it maps to. */
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
    asset_id: asset ? asset.id : null,
    asset_name: asset ? asset.name : null,
    compliance_frameworks: [...finding.compliance_frameworks],
    is_suppressed: finding.is_suppressed,
    cvss_score: finding.cvss_score,
    detected_at: finding.detected_at || null,
    uri: findingUri(finding.id),
  };
}
