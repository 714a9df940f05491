/**
 * Collection coverage (`coverage_report`): the collector records a dataset
 * holds (what was collected where, and what failed), with totals.
 *
 * @module
 */

import { roundHalfEven } from "../model/records.ts";
import type { Json } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";

/** The coverage report. */
export interface CoverageReport {
  records: Json[];
  totals: { records: number; success: number; failure: number; other: number };
  /** Successful records as a percentage of all, 1 decimal; null without records. */
  coverage_pct: number | null;
  hint?: string;
}

const SUCCESS = new Set(["success", "succeeded", "ok", "collected", "complete", "completed"]);
const FAILURE = new Set(["failure", "failed", "error", "denied", "access_denied", "skipped"]);

function statusOf(record: Json): string {
  if (record === null || typeof record !== "object" || Array.isArray(record)) return "";
  const status = record["status"] ?? record["outcome"] ?? record["result"];
  if (typeof status === "string") return status.toLowerCase();
  if (record["success"] === true) return "success";
  if (record["success"] === false || typeof record["error"] === "string") return "failure";
  return "";
}

/** The dataset's coverage records as stored, counted by outcome. */
export function coverageReport(view: DatasetView): CoverageReport {
  const records = view.records.coverage;
  let success = 0;
  let failure = 0;
  for (const record of records) {
    const status = statusOf(record);
    if (SUCCESS.has(status)) success++;
    else if (FAILURE.has(status)) failure++;
  }
  const report: CoverageReport = {
    records: [...records],
    totals: {
      records: records.length,
      success,
      failure,
      other: records.length - success - failure,
    },
    coverage_pct: records.length === 0 ? null : roundHalfEven((success / records.length) * 100, 1),
  };
  if (records.length === 0) {
    report.hint = "This dataset holds no collector records: coverage is recorded only when an " +
      "inventory run writes it into the exported files.";
  }
  return report;
}
