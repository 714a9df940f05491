/**
 * The report exports of a dataset (spec §6.3): the `findings.json` report
 * (the §4.2 shape, which `load_dataset` reads back to the same records), the
 * inventory files, the GraphML file and the asset and compliance maps. Each
 * builder returns the files to write; nothing here touches the disk.
 *
 * @module
 */

import { complianceRollup } from "../compliance/rollup.ts";
import { dependencyGraph } from "../graph/dependency_graph.ts";
import { type D3Graph, toD3, toGraphML } from "../graph/exports.ts";
import { relationshipGraph } from "../graph/relationship_graph.ts";
import { assetUri, findingUri } from "../model/briefs.ts";
import { countBy, rankedCounts } from "../model/counts.ts";
import { SEVERITIES, type Severity } from "../model/enums.ts";
import { type DatasetRecords, displayId, type Json, riskScore } from "../model/records.ts";
import type { Dataset } from "../workspace/dataset.ts";
import { datasetSummary } from "../workspace/summary.ts";
import { htmlReport } from "./html_report.ts";
import type { ExportFile } from "./output_dir.ts";

/** The report formats of `export_report`. */
export const REPORT_FORMATS = ["json", "html", "inventory", "graphml", "asset_map"] as const;

/** A report format. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** The `metadata` block of a findings report. */
export interface ReportMetadata {
  scan_id: string;
  provider: string;
  account_id: string;
  region: string;
  started_at: string;
  completed_at: string;
  dataset: string;
  dataset_version: number;
  generator: string;
}

/** The `summary` block of a findings report. */
export interface ReportSummary {
  total_assets: number;
  total_findings: number;
  total_edges: number;
  severity_breakdown: Partial<Record<Severity, number>>;
  compliance_frameworks: string[];
}

/** A `findings.json` document (cloudg's report shape plus the record keys it round-trips). */
export interface ReportDocument
  extends Omit<DatasetRecords, "assets" | "findings" | "compliance" | "edges"> {
  metadata: ReportMetadata;
  summary: ReportSummary;
  assets: Json[];
  findings: Json[];
  compliance: Json[];
  edges: Json[];
  graph: D3Graph;
}

/** Options of the report builders. */
export interface ReportOptions {
  /** The time written as `completed_at`, ISO 8601. @default now */
  generatedAt?: string;
}

function mostCommon(values: readonly (string | null)[]): string {
  const counts = countBy(values.filter((value): value is string => !!value), (value) => value);
  let best = "";
  let bestCount = 0;
  for (const [value, count] of counts) {
    if (count > bestCount) [best, bestCount] = [value, count];
  }
  return best;
}

function json<T>(value: T): Json {
  return value as unknown as Json;
}

/**
 * The findings report of a dataset: metadata, summary, every asset (with its
 * `display_id`), finding (with its `risk_score`), compliance result and edge,
 * the D3 graph, and the other record keys so the report loads back whole.
 */
export function reportDocument(dataset: Dataset, options: ReportOptions = {}): ReportDocument {
  const r = dataset.records;
  const summary = datasetSummary(dataset);
  const providers = [...new Set(r.assets.map((a) => a.provider))];
  return {
    metadata: {
      scan_id: `${dataset.name}-v${dataset.version}-${dataset.instanceId}`,
      provider: providers.length === 1 ? (providers[0] ?? "").toLowerCase() : "multi",
      account_id: mostCommon(r.assets.map((a) => a.account_id)),
      region: mostCommon(r.assets.map((a) => a.region)),
      started_at: dataset.loadedAt,
      completed_at: options.generatedAt ?? new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      dataset: dataset.name,
      dataset_version: dataset.version,
      generator: "casefile cloud export_report",
    },
    summary: {
      total_assets: summary.total_assets,
      total_findings: summary.total_findings,
      total_edges: summary.total_edges,
      severity_breakdown: summary.severity_breakdown,
      compliance_frameworks: summary.compliance_frameworks,
    },
    assets: r.assets.map((a) => json({ ...a, display_id: displayId(a) })),
    findings: r.findings.map((f) => json({ ...f, risk_score: riskScore(f) })),
    compliance: r.compliance.map(json),
    edges: r.edges.map(json),
    graph: toD3(relationshipGraph(dataset)),
    unresolved_references: r.unresolved_references,
    organization: r.organization,
    coverage: r.coverage,
    providers: r.providers,
    regions: r.regions,
    suppression_reasons: r.suppression_reasons,
  };
}

/** Datasets with more assets than this get compact JSON (indentation would double its size). */
export const INDENTED_JSON_MAX_ASSETS = 10_000;

function jsonText(value: unknown, dataset: Dataset): string {
  const indent = dataset.records.assets.length <= INDENTED_JSON_MAX_ASSETS ? 2 : undefined;
  return JSON.stringify(value, null, indent) + "\n";
}

/** The five inventory files: map, GraphML, D3 graph, dependencies and organisation. */
export function inventoryFiles(dataset: Dataset): ExportFile[] {
  const r = dataset.records;
  const summary = datasetSummary(dataset);
  const graph = relationshipGraph(dataset);
  const deps = dependencyGraph(dataset);
  const dependencies: Json[] = [];
  for (const [dependent, arrows] of deps.needs) {
    for (const arrow of arrows) {
      dependencies.push({
        dependent,
        dependency: arrow.other,
        edge_id: arrow.edge.id,
        edge_type: arrow.edge.edge_type,
        relationship: arrow.edge.relationship,
      });
    }
  }
  const accounts = [...new Set(r.assets.map((a) => a.account_id).filter((a) => a))].sort();
  return [
    {
      name: "inventory-map.json",
      content: jsonText({
        summary: {
          dataset: dataset.name,
          total_assets: summary.total_assets,
          total_edges: summary.total_edges,
          assets_by_type: rankedCounts(countBy(r.assets, (a) => a.asset_type)),
          assets_by_provider: summary.assets_by_provider,
          edges_by_type: summary.edges_by_type,
        },
        providers: r.providers,
        regions: r.regions,
        assets: r.assets.map((a) => ({ ...a, display_id: displayId(a) })),
        edges: r.edges,
        unresolved_references: r.unresolved_references,
        organization: r.organization,
        coverage: r.coverage,
      }, dataset),
    },
    { name: "inventory-map.graphml", content: toGraphML(graph) },
    { name: "inventory-graph.json", content: jsonText(toD3(graph), dataset) },
    {
      name: "inventory-dependencies.json",
      content: jsonText({ total: dependencies.length, dependencies }, dataset),
    },
    {
      name: "inventory-organization.json",
      content: jsonText({ organization: r.organization, accounts }, dataset),
    },
  ];
}

/** The asset map (one row per asset) and the compliance map (one row per framework). */
export function assetMapFiles(dataset: Dataset): ExportFile[] {
  const r = dataset.records;
  const degree = new Map<string, { in: number; out: number }>();
  for (const edge of r.edges) {
    const out = degree.get(edge.source_id) ?? { in: 0, out: 0 };
    out.out++;
    degree.set(edge.source_id, out);
    const into = degree.get(edge.target_id) ?? { in: 0, out: 0 };
    into.in++;
    degree.set(edge.target_id, into);
  }
  const assets = r.assets.map((asset) => {
    const open = dataset.findingsFor(asset.id).filter((f) => !f.is_suppressed);
    const bySeverity: Partial<Record<Severity, number>> = {};
    for (const level of SEVERITIES) {
      const n = open.filter((f) => f.severity === level).length;
      if (n > 0) bySeverity[level] = n;
    }
    return {
      id: asset.id,
      display_id: displayId(asset),
      name: asset.name,
      asset_type: asset.asset_type,
      provider: asset.provider,
      region: asset.region,
      account_id: asset.account_id,
      internet_exposed: asset.is_internet_exposed,
      tags: asset.tags,
      edges_in: degree.get(asset.id)?.in ?? 0,
      edges_out: degree.get(asset.id)?.out ?? 0,
      open_findings: open.length,
      findings_by_severity: bySeverity,
      finding_ids: open.map((f) => f.id),
      frameworks: [...new Set(open.flatMap((f) => f.compliance_frameworks))].sort(),
      uri: assetUri(asset),
    };
  });
  const frameworks = complianceRollup(dataset).map((row) => ({
    ...row,
    results: r.compliance.filter((c) => c.framework === row.framework).map((c) => ({
      id: c.id,
      control_id: c.control_id,
      control_title: c.control_title,
      status: c.status,
      finding_ids: c.finding_ids,
      resource_arn: c.resource_arn,
    })),
    finding_uris: r.findings.filter((f) =>
      !f.is_suppressed && f.compliance_frameworks.includes(row.framework)
    ).map((f) => findingUri(f.id)),
  }));
  return [
    { name: "asset-map.json", content: jsonText({ dataset: dataset.name, assets }, dataset) },
    {
      name: "compliance-map.json",
      content: jsonText({ dataset: dataset.name, frameworks }, dataset),
    },
  ];
}

/** The files one report format writes, in the order they are written. */
export function reportFiles(
  dataset: Dataset,
  format: ReportFormat,
  options: ReportOptions = {},
): ExportFile[] {
  switch (format) {
    case "json":
      return [{
        name: "findings.json",
        content: jsonText(reportDocument(dataset, options), dataset),
      }];
    case "html":
      return [{ name: "report.html", content: htmlReport(dataset, options) }];
    case "inventory":
      return inventoryFiles(dataset);
    case "graphml":
      return [{
        name: `${dataset.name}.graphml`,
        content: toGraphML(relationshipGraph(dataset)),
      }];
    case "asset_map":
      return assetMapFiles(dataset);
  }
}
