/**
 * cloudg's `findings.json` report: `{metadata, summary, assets, findings,
 * compliance, edges, graph}`. When `edges` is absent the edges are rebuilt
 * from the D3 `graph.links` (known edge types with a source and a target).
 *
 * @module
 */

import type { Json } from "../model/records.ts";
import {
  DETECTION_ORDER,
  emptyNotes,
  type Importer,
  type ImportResult,
  type LoadNotes,
} from "./importer.ts";
import { isObject } from "./import_input.ts";
import { parseEdge, parseRecords } from "./parse_records.ts";
import { documentObject, namedFileImporter } from "./source_json.ts";

/** The report file a report directory holds. */
export const REPORT_FILE_NAME = "findings.json";

/** Whether a JSON value is a report document: `findings` and (`metadata` or `summary`). */
export function isReportDocument(value: unknown): boolean {
  return isObject(value) && "findings" in value && ("metadata" in value || "summary" in value);
}

/** Rebuilds edges from D3 links (`{source, target, type, port_range, …}`). */
export function edgesFromD3Links(links: unknown, notes: LoadNotes): Record<string, unknown>[] {
  if (!Array.isArray(links)) return [];
  const edges: Record<string, unknown>[] = [];
  links.forEach((link, i) => {
    if (!isObject(link)) return;
    const source = link["source"];
    const target = link["target"];
    if (typeof source !== "string" || typeof target !== "string" || !source || !target) return;
    const blankToNull = (key: string): unknown =>
      link[key] === "" || link[key] === undefined ? null : link[key];
    const edge = {
      id: `link-${i}`,
      source_id: source,
      target_id: target,
      edge_type: typeof link["type"] === "string" ? link["type"] : "",
      port_range: blankToNull("port_range"),
      protocol: blankToNull("protocol"),
      cidr: blankToNull("cidr"),
      direction: blankToNull("direction"),
      relationship: blankToNull("relationship"),
      description: blankToNull("description"),
    };
    if (parseEdge(edge, `graph.links[${i}]`, notes, i)) edges.push(edge);
  });
  return edges;
}

/** Reads a report document into records. */
export function parseReportDocument(doc: unknown, fileName: string): ImportResult {
  const report = documentObject(doc, fileName, {
    label: "a report",
    missing: (d) =>
      "findings" in d || "assets" in d
        ? null
        : "it has neither findings nor assets (a findings.json " +
          "report is {metadata, summary, assets, findings, compliance, edges}).",
  });
  const notes = emptyNotes();
  let body: Record<string, unknown> = report;
  if (report["edges"] === undefined && isObject(report["graph"])) {
    body = { ...report, edges: edgesFromD3Links(report["graph"]["links"], notes) };
  }
  const records = parseRecords(body, notes);
  const metadata: Record<string, Json> = {};
  if (isObject(report["metadata"])) metadata["report"] = report["metadata"] as Json;
  return { records, notes, metadata };
}

/** The `report` importer. */
export const reportImporter: Importer = namedFileImporter({
  kind: "report",
  description: "cloudg findings.json report (assets, findings, compliance, edges or D3 graph)",
  order: { directory: DETECTION_ORDER.directory_report, json: DETECTION_ORDER.json_report },
  fileName: REPORT_FILE_NAME,
  isDocument: isReportDocument,
  read: ({ doc, fileName }) => parseReportDocument(doc, fileName),
});
