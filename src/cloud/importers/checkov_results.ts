/**
 * The `checkov` importer: Checkov's JSON output (`-o json`, also saved as
 * `results_json.json`): one report object (`check_type`, `results`) or an
 * array of them (one per framework). Failed checks become findings whose
 * resource id is Checkov's resource address (`aws_s3_bucket.data`), which is
 * also the asset id of a Terraform dataset of the same code.
 *
 * @module
 */

import { DETECTION_ORDER } from "./importer.ts";
import type { Importer, ImportInput, ImportResult } from "./importer.ts";
import { arr, fileLabel, ImportError, isObject, obj, readInputJson, str } from "./import_input.ts";
import { RecordsBuilder } from "./records_builder.ts";
import {
  frameworksOf,
  normaliseSeverity,
  objectOrArrayDetectors,
  scannerFinding,
} from "./scanner_common.ts";
import { uniqueIds } from "../model/unique_ids.ts";

const KIND = "checkov";

function isReport(value: unknown): boolean {
  return isObject(value) &&
    ("check_type" in value || (isObject(value.results) && "failed_checks" in value.results));
}

/**
 * Whether parsed JSON is the summary Checkov prints instead of a report when
 * it found nothing to check: counts and `checkov_version` only, no results.
 */
function isEmptySummary(value: unknown): boolean {
  return isObject(value) && !Array.isArray(value) && typeof value.checkov_version === "string" &&
    typeof value.passed === "number" && typeof value.failed === "number" &&
    !("results" in value);
}

/** Whether parsed JSON is Checkov output. */
export function looksLikeCheckov(value: unknown): boolean {
  return Array.isArray(value)
    ? value.length > 0 && isReport(value[0])
    : isReport(value) || isEmptySummary(value);
}

/** The directory names that mean a Checkov output folder. */
export function looksLikeCheckovDirectory(names: readonly string[]): boolean {
  return names.includes("results_json.json");
}

/** The `checkov` importer entry. */
export const checkovImporter: Importer = {
  kind: KIND,
  description: "Checkov results (checkov -o json), a file or a folder holding results_json.json",
  detectors: [
    {
      stage: "directory",
      order: DETECTION_ORDER.directory_checkov,
      test: (listing) => looksLikeCheckovDirectory(listing.names),
    },
    ...objectOrArrayDetectors(looksLikeCheckov, {
      object: DETECTION_ORDER.json_checkov_object,
      array: DETECTION_ORDER.json_checkov_array,
    }),
  ],
  async load(input: ImportInput): Promise<ImportResult> {
    let value: unknown;
    if (input.json === undefined) {
      const entries = await input.listDirectory(input.path).catch(() => null);
      const path = entries ? `${input.path.replace(/\/$/, "")}/results_json.json` : input.path;
      value = await readInputJson(KIND, { ...input, path });
    } else value = input.json;
    if (!looksLikeCheckov(value)) {
      throw new ImportError(
        `${
          fileLabel(input.path)
        } is not Checkov output: expected the JSON of \`checkov -o json\` (an object with "check_type" and "results", or an array of them).`,
        { kind: KIND, file: input.path },
      );
    }
    const reports = Array.isArray(value) ? value : [value];
    const b = new RecordsBuilder();
    if (isEmptySummary(value)) {
      b.warn(`${fileLabel(input.path)} is Checkov's summary of a run that checked no resources.`);
    }
    const uniqueId = uniqueIds();
    for (const r of reports.map(obj)) {
      const checkType = str(r.check_type) ?? "unknown";
      const results = obj(r.results);
      b.skip("passed check", arr(results.passed_checks).length);
      b.skip("skipped check", arr(results.skipped_checks).length);
      for (const c of arr(results.failed_checks).map(obj)) {
        const checkId = str(c.check_id) ?? "CKV_UNKNOWN";
        const resource = str(c.resource_address) ?? str(c.resource) ?? "unknown";
        const file = str(c.file_path) ?? str(c.repo_file_path) ?? "";
        const lines = arr(c.file_line_range).map(Number);
        const id = uniqueId(`checkov:${checkId}:${resource}`);
        const provider = /^(aws|azurerm|google)_/.exec(resource)?.[1] ?? null;
        b.records.findings.push(scannerFinding({
          id,
          resource_id: resource,
          resource_arn: null,
          severity: normaliseSeverity(c.severity, "MEDIUM"),
          title: str(c.check_name) ?? checkId,
          description: `${checkType} check ${checkId}${
            str(c.bc_check_id) ? ` (${str(c.bc_check_id)})` : ""
          }`,
          evidence: file ? `${file}${lines.length === 2 ? `:${lines[0]}-${lines[1]}` : ""}` : "",
          remediation: str(c.guideline) ?? "",
          source_tool: "checkov",
          source_finding_id: checkId,
          compliance_frameworks: frameworksOf(
            arr(c.benchmarks ? Object.keys(obj(c.benchmarks)) : []).map(String),
            provider === "azurerm"
              ? "AZURE"
              : provider === "google"
              ? "GCP"
              : provider
              ? "AWS"
              : null,
          ),
        }));
      }
      for (const e of arr(results.parsing_errors)) b.warn(`Checkov could not parse ${String(e)}.`);
    }
    return b.finish();
  },
};
