/**
 * The demo estate as cloudg-format files, for trying `load_dataset` on real
 * files: `inventory/inventory-map.json` with `inventory/findings.json` beside
 * it, and `report/findings.json` carrying a D3 graph instead of edges.
 *
 * @module
 */

import { join } from "node:path";
import { d3Link, d3Node } from "../graph/exports.ts";
import {
  assetNodeAttributes,
  edgeAttributes,
  placeholderAttributes,
} from "../graph/relationship_graph.ts";
import { SEVERITIES } from "../model/enums.ts";
import type { DatasetRecords, Json } from "../model/records.ts";
import { displayId, riskScore } from "../model/records.ts";
import { DEMO_TIMESTAMP, PROD_ACCOUNT, sampleRecords } from "./estate.ts";

function severityCounts(records: DatasetRecords): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const level of SEVERITIES) {
    counts[level] = records.findings.filter((f) => f.severity === level).length;
  }
  return counts;
}

/** The inventory document (`inventory-map.json`) of a set of records. */
export function inventoryMapDocument(records: DatasetRecords): Record<string, Json> {
  return {
    summary: {
      total_assets: records.assets.length,
      total_edges: records.edges.length,
      unresolved_references: records.unresolved_references.length,
    },
    providers: records.providers,
    regions: records.regions,
    assets: records.assets.map((a) => ({ ...a, display_id: displayId(a) })),
    edges: records.edges as unknown as Json[],
    unresolved_references: records.unresolved_references,
    organization: records.organization,
    coverage: records.coverage,
  } as Record<string, Json>;
}

/** The findings document (`findings.json`); with `graph`, edges are given as D3 links instead. */
export function findingsReportDocument(
  records: DatasetRecords,
  options: { graph?: boolean } = {},
): Record<string, Json> {
  const doc: Record<string, Json> = {
    metadata: {
      scan_id: "demo-scan",
      provider: "multi",
      account_id: PROD_ACCOUNT,
      region: "us-east-1",
      started_at: DEMO_TIMESTAMP,
      completed_at: DEMO_TIMESTAMP,
    },
    summary: {
      total_assets: records.assets.length,
      total_findings: records.findings.length,
      total_edges: records.edges.length,
      severity_breakdown: severityCounts(records),
      compliance_frameworks: [...new Set(records.compliance.map((c) => c.framework))].sort(),
    },
    assets: records.assets.map((a) => ({ ...a, display_id: displayId(a) })),
    findings: records.findings.map((f) => ({ ...f, risk_score: riskScore(f) })),
    compliance: records.compliance as unknown as Json[],
    suppression_reasons: records.suppression_reasons,
  } as Record<string, Json>;
  if (!options.graph) {
    doc["edges"] = records.edges as unknown as Json[];
    return doc;
  }
  const ids = new Set(records.assets.map((a) => a.id));
  const placeholders = [
    ...new Set(
      records.edges.flatMap((e) => [e.source_id, e.target_id]).filter((id) => !ids.has(id)),
    ),
  ];
  doc["graph"] = {
    nodes: [
      ...records.assets.map((a) => d3Node(a.id, assetNodeAttributes(a))),
      ...placeholders.map((id) => d3Node(id, placeholderAttributes(id))),
    ],
    links: records.edges.map((e) => d3Link(e.source_id, e.target_id, edgeAttributes(e))),
  } as unknown as Json;
  return doc;
}

/**
 * Writes the demo estate under `dir`: `inventory/inventory-map.json`,
 * `inventory/findings.json` and `report/findings.json` (D3 graph, no edges).
 * Returns the two paths to load. Requires `--allow-write`.
 */
export async function writeDemoFiles(dir: string): Promise<{ inventory: string; report: string }> {
  const records = sampleRecords();
  const inventory = join(dir, "inventory");
  const report = join(dir, "report");
  await Deno.mkdir(inventory, { recursive: true });
  await Deno.mkdir(report, { recursive: true });
  const write = (path: string, doc: unknown): Promise<void> =>
    Deno.writeTextFile(path, JSON.stringify(doc, null, 2) + "\n");
  await write(join(inventory, "inventory-map.json"), inventoryMapDocument(records));
  const findingsOnly = findingsReportDocument(records);
  delete findingsOnly["assets"];
  delete findingsOnly["edges"];
  await write(join(inventory, "findings.json"), findingsOnly);
  await write(join(report, "findings.json"), findingsReportDocument(records, { graph: true }));
  return { inventory, report };
}
