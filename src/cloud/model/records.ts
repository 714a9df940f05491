/**
 * The records of a cloud dataset: assets, edges between them, findings and
 * compliance results. Plain data, no behaviour beyond what is computed from
 * the fields (display id, risk score).
 *
 * @module
 */

import type {
  AssetType,
  CloudProvider,
  ComplianceStatus,
  EdgeType,
  RelationType,
  Severity,
} from "./enums.ts";
import { SEVERITY_BASE_RISK } from "./enums.ts";

/** A JSON-compatible value held in metadata and properties. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A cloud resource. */
export interface Asset {
  /** Internal id: the join key of edges. */
  id: string;
  /** ARN, Azure resource id, GCP full name, or a synthetic `casefile:…` id; null when none. */
  arn: string | null;
  /** Display name; not unique. */
  name: string;
  /** The asset type (`OTHER` when the source type is unknown). */
  asset_type: AssetType;
  /** The provider. */
  provider: CloudProvider;
  /** The region. @default "global" */
  region: string;
  /** AWS account, Azure subscription or GCP project; null when unknown. */
  account_id: string | null;
  /** Tags as key → value. */
  tags: Record<string, string>;
  /** Further facts (relations, aliases, vpc_id, kms_key_id, external, …). */
  metadata: Record<string, Json>;
  /** When it was collected, ISO 8601. */
  collected_at: string;
  /** Whether it is reachable from the internet. */
  is_internet_exposed: boolean;
}

/** A directed, typed relationship. Endpoints may be placeholders such as `0.0.0.0/0`. */
export interface Edge {
  id: string;
  source_id: string;
  target_id: string;
  edge_type: EdgeType;
  ports: number[];
  /** `80,443`, `80-443`, or `*`; null when not a network rule. */
  port_range: string | null;
  /** TCP, UDP, ICMP, ALL, …; null when not a network rule. */
  protocol: string | null;
  cidr: string | null;
  /** @default "ingress" */
  direction: "ingress" | "egress";
  description: string | null;
  /** A declared semantic relation, when the source gave one. */
  relationship: RelationType | null;
  /** Further facts (`hierarchy: true`, `cross_account`, …). */
  properties: Record<string, Json>;
}

/** What an edge needs beyond its id: its ends and type; every other field has a default. */
export type EdgeInit =
  & Pick<Edge, "source_id" | "target_id" | "edge_type">
  & Partial<Pick<Edge, "ports" | "direction" | "properties">>
  & {
    port_range?: string | null;
    protocol?: string | null;
    cidr?: string | null;
    description?: string | null;
  };

/** A new edge: `init` with the defaults (no ports, ingress, no relationship, no properties). */
export function newEdge(id: string, init: EdgeInit): Edge {
  return {
    id,
    source_id: init.source_id,
    target_id: init.target_id,
    edge_type: init.edge_type,
    ports: init.ports ?? [],
    port_range: init.port_range ?? null,
    protocol: init.protocol ?? null,
    cidr: init.cidr ?? null,
    direction: init.direction ?? "ingress",
    description: init.description ?? null,
    relationship: null,
    properties: init.properties ?? {},
  };
}

/** A security finding about one resource. */
export interface Finding {
  id: string;
  /** The resource as the source named it (an asset id, ARN or other id). */
  resource_id: string;
  resource_arn: string | null;
  severity: Severity;
  title: string;
  description: string;
  evidence: string;
  remediation: string;
  source_tool: string;
  source_finding_id: string | null;
  compliance_frameworks: string[];
  /** CVSS base score 0–10, or null. */
  cvss_score: number | null;
  /** When the source says it found it (ISO 8601), or null when the source gives no time. */
  detected_at: string | null;
  is_suppressed: boolean;
}

/** The outcome of one compliance control for one resource or account. */
export interface ComplianceResult {
  id: string;
  framework: string;
  control_id: string;
  control_title: string;
  status: ComplianceStatus;
  finding_ids: string[];
  resource_arn: string | null;
}

/** How an asset is shown: its ARN when it has one, else its id. */
export function displayId(asset: Pick<Asset, "id" | "arn">): string {
  return asset.arn ?? asset.id;
}

/**
 * Rounds half to even at the given decimals on the exact binary value, as
 * Python's `round()` does (2.25 → 2.2, 2.35 → 2.4, 16.385 → 16.39).
 */
export function roundHalfEven(value: number, decimals: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(value));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  // |value| = significand × 2^exponent, exactly.
  const significand = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  if (exponent >= 0) return value;
  const numerator = significand * 10n ** BigInt(decimals);
  const denominator = 1n << BigInt(-exponent);
  let quotient = numerator / denominator;
  const twice = 2n * (numerator % denominator);
  if (twice > denominator || (twice === denominator && quotient % 2n === 1n)) quotient += 1n;
  const result = Number(quotient) / 10 ** decimals;
  return value < 0 ? -result : result;
}

/**
 * A finding's risk score: the severity's base, averaged with the CVSS score
 * when there is one, rounded half-even to one decimal (HIGH with 8.1 → 7.8).
 */
export function riskScore(finding: Pick<Finding, "severity" | "cvss_score">): number {
  const base = SEVERITY_BASE_RISK[finding.severity];
  if (finding.cvss_score === null || finding.cvss_score === undefined) return base;
  return roundHalfEven((base + finding.cvss_score) / 2, 1);
}

/** Everything a dataset holds, as loaded. */
export interface DatasetRecords {
  assets: Asset[];
  edges: Edge[];
  findings: Finding[];
  compliance: ComplianceResult[];
  /** References the source named but that resolve to no asset. */
  unresolved_references: Json[];
  /** Organisation discovery data (accounts, OUs, Control Tower), or null. */
  organization: Json | null;
  /** Coverage records (what was collected, what was not). */
  coverage: Json[];
  /** Providers present, as the source declared them. */
  providers: string[];
  /** Regions present, as the source declared them. */
  regions: string[];
  /** Why findings were suppressed, by finding id. */
  suppression_reasons: Record<string, string>;
}

/** An empty set of records. */
export function emptyRecords(): DatasetRecords {
  return {
    assets: [],
    edges: [],
    findings: [],
    compliance: [],
    unresolved_references: [],
    organization: null,
    coverage: [],
    providers: [],
    regions: [],
    suppression_reasons: {},
  };
}
