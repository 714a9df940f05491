/**
 * cloudg's `findings.json` report: `{metadata, summary, assets, findings,
 * compliance, edges, graph}`. When `edges` is absent the edges are rebuilt
 * from the D3 `graph.links` (known edge types with a source and a target).
 *
 * @module
 */

import { LoadError } from "../model/errors.ts";
import type { Json } from "../model/records.ts";
import {
  DETECTION_ORDER,
  emptyNotes,
  type Importer,
  type ImportInput,
  type ImportResult,
  type LoadNotes,
} from "./importer.ts";
import { isObject, parseEdge, parseRecords } from "./parse_records.ts";
import { namedFileJson } from "./source_json.ts";

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
  if (!isObject(doc)) {
    throw new LoadError(`Cannot load ${fileName} as a report: the document must be a JSON object.`);
  }
  if (!("findings" in doc) && !("assets" in doc)) {
    throw new LoadError(
      `Cannot load ${fileName} as a report: it has neither findings nor assets (a findings.json ` +
        `report is {metadata, summary, assets, findings, compliance, edges}).`,
    );
  }
  const notes = emptyNotes();
  let body: Record<string, unknown> = doc;
  if (doc["edges"] === undefined && isObject(doc["graph"])) {
    body = { ...doc, edges: edgesFromD3Links(doc["graph"]["links"], notes) };
  }
  const records = parseRecords(body, notes);
  const metadata: Record<string, Json> = {};
  if (isObject(doc["metadata"])) metadata["report"] = doc["metadata"] as Json;
  return { records, notes, metadata };
}

/** The `report` importer. */
export const reportImporter: Importer = {
  kind: "report",
  description: "cloudg findings.json report (assets, findings, compliance, edges or D3 graph)",
  detectors: [
    {
      stage: "directory",
      order: DETECTION_ORDER.directory_report,
      test: (listing) => listing.hasFile(REPORT_FILE_NAME),
    },
    { stage: "json", order: DETECTION_ORDER.json_report, test: isReportDocument },
  ],
  async load(input: ImportInput): Promise<ImportResult> {
    const { doc, fileName } = await namedFileJson(input, {
      fileName: REPORT_FILE_NAME,
      kind: "report",
    });
    return parseReportDocument(doc, fileName);
  },
};
