/**
 * What a dataset holds at a glance: the listing entry (§4.6) and the dataset
 * summary (§4.7).
 *
 * @module
 */

import { type AssetType, PROVIDERS, SEVERITIES, type Severity } from "../model/enums.ts";
import { countBy, rankedCounts } from "../model/counts.ts";
import { recordFrameworks } from "../model/frameworks.ts";
import type { Asset, DatasetRecords, Json } from "../model/records.ts";
import { crossAccountEnds, datasetAccounts } from "../model/edge_accounts.ts";
import type { Dataset } from "./dataset.ts";
import { DERIVED_VIEW_KEYS } from "./dataset.ts";

/** A dataset as `list_datasets` shows it. */
export interface ListingEntry {
  /** Display name. */
  name: string;
  /** How the dataset was made (inventory, report, generic, snapshot, demo…). */
  kind: string;
  /** Where it came from (a path, or a description). */
  source: string;
  /** Load time, ISO 8601 UTC. */
  loaded_at: string;
  /** Version, bumped on every change. */
  version: number;
  /** Providers, lower-case. */
  providers: string[];
  /** Asset counts or changes. */
  assets: number;
  /** Edge counts or changes. */
  edges: number;
  /** Findings (counts or items). */
  findings: number;
  /** Compliance results. */
  compliance_results: number;
  /** Which derived views are built. */
  cached: {
    graph: boolean;
    dependency_graph: boolean;
    ontology: boolean;
    centrality: boolean;
    rag_entity: boolean;
  };
  /** Present in `list_datasets` answers. */
  active?: boolean;
}

/** The listing entry of a dataset. */
export function describeDataset(dataset: Dataset): ListingEntry {
  const r = dataset.records;
  return {
    name: dataset.name,
    kind: dataset.kind,
    source: dataset.source,
    loaded_at: dataset.loadedAt,
    version: dataset.version,
    providers: r.providers.map((p) => p.toLowerCase()),
    assets: r.assets.length,
    edges: r.edges.length,
    findings: r.findings.length,
    compliance_results: r.compliance.length,
    cached: {
      graph: dataset.isCached(DERIVED_VIEW_KEYS.graph),
      dependency_graph: dataset.isCached(DERIVED_VIEW_KEYS.dependency_graph),
      ontology: dataset.isCached(DERIVED_VIEW_KEYS.ontology),
      centrality: dataset.isCached(DERIVED_VIEW_KEYS.centrality),
      rag_entity: dataset.isCached(DERIVED_VIEW_KEYS.rag_entity),
    },
  };
}

/** The organisation part of a summary. */
export interface OrganizationSummary {
  /** Internal id. */
  id: string | null;
  /** Account count. */
  accounts: number;
  /** Organisational unit count. */
  ous: number;
  /** Whether a landing zone (Control Tower) is enabled. */
  control_tower: boolean;
  /** Regions under landing-zone governance. */
  governed_regions: string[];
}

/** The dataset summary. */
export interface DatasetSummary {
  /** Dataset name. */
  dataset: string;
  /** How the dataset was made (inventory, report, generic, snapshot, demo…). */
  kind: string;
  /** Where it came from. */
  source: string;
  /** Load time, ISO 8601 UTC. */
  loaded_at: string;
  /** Version, bumped on every change. */
  version: number;
  /** Providers. */
  providers: string[];
  /** All assets. */
  total_assets: number;
  /** All edges. */
  total_edges: number;
  /** All findings, suppressed included. */
  total_findings: number;
  /** Open (unsuppressed) findings. */
  open_findings: number;
  /** Suppressed findings. */
  suppressed_findings: number;
  /** Open findings per severity, CRITICAL first, zero counts omitted. */
  severity_breakdown: Partial<Record<Severity, number>>;
  /** Distinct known accounts. */
  accounts: number;
  /** Distinct regions. */
  regions: number;
  /** Internet-exposed assets. */
  internet_exposed: number;
  /** Edges between assets of different accounts, hierarchy edges excluded. */
  cross_account_edges: number;
  /** Assets without edges (organisation, OU and account assets excluded). */
  unlinked_assets: number;
  /** Unresolved references. */
  unresolved_references: number;
  /** Framework names. */
  compliance_frameworks: string[];
  /** The 15 most common types, most first. */
  assets_by_type: Partial<Record<AssetType, number>>;
  /** Assets per provider. */
  assets_by_provider: Record<string, number>;
  /** Edges per edge type. */
  edges_by_type: Record<string, number>;
  /** Whether organisation data is present. */
  has_organization: boolean;
  /** Coverage records. */
  coverage_records: number;
  /** Organization. */
  organization?: OrganizationSummary;
}

const GOVERNANCE_TYPES = new Set<AssetType>(["ORGANIZATION", "ORG_UNIT", "CLOUD_ACCOUNT"]);

function organizationSummary(organization: Json | null): OrganizationSummary | undefined {
  if (organization === null || typeof organization !== "object" || Array.isArray(organization)) {
    return undefined;
  }
  const accounts = organization["accounts"];
  const ous = organization["ous"] ?? organization["organizational_units"];
  const tower = organization["control_tower"];
  const governed = organization["governed_regions"] ??
    (tower && typeof tower === "object" && !Array.isArray(tower)
      ? tower["governed_regions"]
      : undefined);
  return {
    id: typeof organization["id"] === "string" ? organization["id"] : null,
    accounts: Array.isArray(accounts) ? accounts.length : 0,
    ous: Array.isArray(ous) ? ous.length : 0,
    control_tower: tower !== undefined && tower !== null && tower !== false &&
      !(typeof tower === "object" && !Array.isArray(tower) && tower["enabled"] === false),
    governed_regions: Array.isArray(governed)
      ? governed.filter((r): r is string => typeof r === "string")
      : [],
  };
}

/** The dataset summary, cached per version. */
export function datasetSummary(dataset: Dataset): DatasetSummary {
  const cached = dataset.derived(DERIVED_VIEW_KEYS.summary, () => buildSummary(dataset));
  return { ...cached, version: dataset.version };
}

function countCrossAccount(records: DatasetRecords): number {
  const byId = new Map<string, Asset>();
  for (const asset of records.assets) if (!byId.has(asset.id)) byId.set(asset.id, asset);
  const accounts = datasetAccounts(records);
  let count = 0;
  for (const edge of records.edges) {
    if (crossAccountEnds(edge, (id) => byId.get(id), accounts)) count++;
  }
  return count;
}

function buildSummary(dataset: Dataset): DatasetSummary {
  const r = dataset.records;
  const open = r.findings.filter((f) => !f.is_suppressed);
  const severity: Partial<Record<Severity, number>> = {};
  for (const level of SEVERITIES) {
    const n = open.filter((f) => f.severity === level).length;
    if (n > 0) severity[level] = n;
  }
  const linked = new Set<string>();
  for (const edge of r.edges) {
    linked.add(edge.source_id);
    linked.add(edge.target_id);
  }
  const byProvider = new Map<string, number>();
  for (const provider of PROVIDERS) {
    const n = r.assets.filter((a) => a.provider === provider).length;
    if (n > 0) byProvider.set(provider, n);
  }
  const organization = organizationSummary(r.organization);
  const summary: DatasetSummary = {
    dataset: dataset.name,
    kind: dataset.kind,
    source: dataset.source,
    loaded_at: dataset.loadedAt,
    version: dataset.version,
    providers: r.providers.map((p) => p.toLowerCase()),
    total_assets: r.assets.length,
    total_edges: r.edges.length,
    total_findings: r.findings.length,
    open_findings: open.length,
    suppressed_findings: r.findings.length - open.length,
    severity_breakdown: severity,
    accounts: new Set(r.assets.map((a) => a.account_id).filter((a) => a !== null && a !== ""))
      .size,
    regions: new Set(r.assets.map((a) => a.region)).size,
    internet_exposed: r.assets.filter((a) => a.is_internet_exposed).length,
    cross_account_edges: countCrossAccount(r),
    unlinked_assets:
      r.assets.filter((a) => !GOVERNANCE_TYPES.has(a.asset_type) && !linked.has(a.id)).length,
    unresolved_references: r.unresolved_references.length,
    compliance_frameworks: recordFrameworks(r),
    assets_by_type: rankedCounts(countBy(r.assets, (a) => a.asset_type), 15),
    assets_by_provider: Object.fromEntries(byProvider),
    edges_by_type: rankedCounts(countBy(r.edges, (e) => e.edge_type)),
    has_organization: organization !== undefined,
    coverage_records: r.coverage.length,
  };
  if (organization) summary.organization = organization;
  return summary;
}
