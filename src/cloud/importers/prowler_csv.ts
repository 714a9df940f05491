/**
 * The `prowler-csv` importer: Prowler's semicolon-separated CSV output
 * (`prowler … -M csv`, one of its default outputs), as Prowler 4 and 5 write
 * it (TIMESTAMP, FINDING_UID, RESOURCE_UID, MUTED, COMPLIANCE …) and as
 * Prowler 3 wrote it (ASSESSMENT_START_TIME, FINDING_UNIQUE_ID, RESOURCE_ARN /
 * RESOURCE_ID …). Failed checks become findings on their resource; a
 * failed check Prowler muted (MUTED True) is kept suppressed, with the reason,
 * as the OCSF importer keeps one; passed checks are counted, not kept.
 *
 * @module
 */

import { parse } from "csv-parse/sync";
import { DETECTION_ORDER } from "./importer.ts";
import type { Importer, ImportInput, ImportResult } from "./importer.ts";
import { fileLabel, ImportError, readInputText } from "./import_input.ts";
import { RecordsBuilder } from "./records_builder.ts";
import {
  arnOrNull,
  frameworksOf,
  normaliseSeverity,
  scannerFinding,
  utcDateTime,
} from "./scanner_common.ts";
import { firstLine } from "./read.ts";
import { uniqueIds } from "../model/unique_ids.ts";

const KIND = "prowler-csv";

/** Why a failed check Prowler muted is suppressed. */
const CSV_MUTED_REASON = "Muted in Prowler (its mutelist): the CSV row's MUTED is True.";

/** Columns every Prowler CSV header holds, whatever its version. */
const REQUIRED = ["CHECK_ID", "STATUS", "SEVERITY"];

/** The column names of a header line, when it is a Prowler CSV header. */
function prowlerColumns(firstLine: string): string[] | null {
  const columns = firstLine.replace(/^\uFEFF/, "").trim().split(";");
  if (!REQUIRED.every((c) => columns.includes(c))) return null;
  // Prowler 4/5 open with AUTH_METHOD;TIMESTAMP, Prowler 3 with ASSESSMENT_START_TIME.
  return columns.includes("TIMESTAMP") || columns.includes("ASSESSMENT_START_TIME")
    ? columns
    : null;
}

/** Whether a text file's first line is a Prowler CSV header. */
export function looksLikeProwlerCsv(firstLine: string): boolean {
  return prowlerColumns(firstLine) !== null;
}

/** A Prowler CSV time ("2025-02-14 14:27:20.697446", zone-less: UTC) as ISO 8601, or null. */
export function prowlerCsvTime(text: string | undefined): string | null {
  return utcDateTime(text);
}

/** The first non-empty cell of `row` among `names`. */
function cell(row: Record<string, string>, ...names: string[]): string | null {
  for (const name of names) {
    const value = row[name]?.trim();
    if (value) return value;
  }
  return null;
}

/** The `prowler-csv` importer entry. */
export const prowlerCsvImporter: Importer = {
  kind: KIND,
  description: "Prowler CSV findings (prowler -M csv: semicolon-separated, Prowler 3, 4 or 5)",
  detectors: [{
    stage: "text_header",
    order: DETECTION_ORDER.text_prowler_csv,
    test: looksLikeProwlerCsv,
  }],
  async load(input: ImportInput): Promise<ImportResult> {
    const text = await readInputText(input, { kind: KIND, path: input.path });
    if (prowlerColumns(firstLine(text)) === null) {
      throw new ImportError(
        `${
          fileLabel(input.path)
        } is not Prowler CSV: its first line must be Prowler's semicolon-separated header (with CHECK_ID, STATUS, SEVERITY and TIMESTAMP or ASSESSMENT_START_TIME). Re-run prowler with -M csv.`,
        { kind: KIND, file: input.path },
      );
    }
    let rows: Record<string, string>[];
    try {
      rows = parse(text, {
        delimiter: ";",
        columns: true,
        bom: true,
        skip_empty_lines: true,
        relax_quotes: true,
      }) as Record<string, string>[];
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ImportError(`${fileLabel(input.path)} is not valid Prowler CSV: ${reason}`, {
        kind: KIND,
        file: input.path,
      });
    }
    const b = new RecordsBuilder();
    const uniqueId = uniqueIds();
    for (const row of rows) {
      const status = (cell(row, "STATUS") ?? "").toUpperCase();
      if (status !== "FAIL") {
        b.skip(status === "PASS" ? "passed check" : `status ${status || "missing"}`);
        continue;
      }
      const muted = (cell(row, "MUTED") ?? "").toLowerCase() === "true";
      const provider = cell(row, "PROVIDER");
      const checkId = cell(row, "CHECK_ID");
      const resourceId = cell(row, "RESOURCE_UID", "RESOURCE_ARN", "RESOURCE_ID") ??
        cell(row, "ACCOUNT_UID", "ACCOUNT_ID") ?? "unknown";
      // "CIS-2.0: 1.1, 1.2 | MITRE-ATTACK: T1525": the framework is before each colon.
      const frameworks = (cell(row, "COMPLIANCE") ?? "").split("|")
        .map((part) => part.split(":")[0]!.trim()).filter((name) => name !== "");
      const uid = cell(row, "FINDING_UID", "FINDING_UNIQUE_ID") ??
        `${checkId ?? "prowler"}:${resourceId}`;
      const id = uniqueId(uid);
      b.records.findings.push(scannerFinding({
        id,
        resource_id: resourceId,
        resource_arn: arnOrNull(resourceId),
        severity: normaliseSeverity(cell(row, "SEVERITY"), "INFO"),
        title: cell(row, "CHECK_TITLE") ?? checkId ?? "Prowler finding",
        description: cell(row, "DESCRIPTION") ?? "",
        evidence: cell(row, "STATUS_EXTENDED") ?? "",
        remediation: cell(row, "REMEDIATION_RECOMMENDATION_TEXT") ?? "",
        source_tool: "prowler",
        source_finding_id: checkId,
        compliance_frameworks: frameworksOf(frameworks, provider),
        detected_at: utcDateTime(cell(row, "TIMESTAMP", "ASSESSMENT_START_TIME")),
        is_suppressed: muted,
      }));
      if (muted) b.records.suppression_reasons[id] = CSV_MUTED_REASON;
      if (provider) b.records.providers.push(provider.toUpperCase());
      const region = cell(row, "REGION");
      if (region) b.records.regions.push(region);
    }
    b.records.providers = [...new Set(b.records.providers)];
    b.records.regions = [...new Set(b.records.regions)];
    return b.finish();
  },
};
