/**
 * The `checkov` importer: Checkov's JSON output (`-o json`, also saved as
 * `results_json.json`): one report object (`check_type`, `results`) or an
 * array of them (one per framework). Failed checks become findings whose
 * resource id is Checkov's resource address (`aws_s3_bucket.data`), which is
 * also the asset id of a Terraform dataset of the same code. The benchmark
 * controls a check names (`benchmarks`: `{"CIS GCP V1.1": [{name: "5.1",
 * description}]}`) become compliance results: FAIL naming the findings of
 * failed checks, PASS for passed checks.
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
  ScannerCompliance,
  scannerFinding,
  type TagControls,
} from "./scanner_common.ts";
import { uniqueIds } from "../model/unique_ids.ts";
import { terraformProvider } from "./terraform_types.ts";

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

/**
 * The benchmark controls of a Checkov check: each key of its `benchmarks`
 * with the `name` (control id) and `description` of every entry.
 */
export function checkovBenchmarks(check: Record<string, unknown>): TagControls[] {
  return Object.entries(obj(check.benchmarks)).map(([tag, entries]) => {
    const titles: Record<string, string> = {};
    const controls: string[] = [];
    for (const entry of arr(entries)) {
      const e = obj(entry);
      const id = str(e.name) ?? str(entry);
      if (id === null) continue;
      controls.push(id);
      const description = str(e.description);
      if (description) titles[id] = description;
    }
    return { tag, controls, titles };
  });
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
    const controls = new ScannerCompliance(KIND);
    for (const r of reports.map(obj)) {
      const checkType = str(r.check_type) ?? "unknown";
      const results = obj(r.results);
      const passed = arr(results.passed_checks).map(obj);
      b.skip("passed check", passed.length);
      b.skip("skipped check", arr(results.skipped_checks).length);
      for (const c of passed) {
        const resource = str(c.resource_address) ?? str(c.resource);
        controls.add(checkovBenchmarks(c), {
          status: "PASS",
          provider: resource ? terraformProvider(resource) : null,
          resources: resource ? [resource] : [],
        });
      }
      for (const c of arr(results.failed_checks).map(obj)) {
        const checkId = str(c.check_id) ?? "CKV_UNKNOWN";
        const resource = str(c.resource_address) ?? str(c.resource) ?? "unknown";
        const file = str(c.file_path) ?? str(c.repo_file_path) ?? "";
        const lines = arr(c.file_line_range).map(Number);
        const id = uniqueId(`checkov:${checkId}:${resource}`);
        const provider = terraformProvider(resource);
        const benchmarks = checkovBenchmarks(c);
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
          compliance_frameworks: frameworksOf(benchmarks.map((x) => x.tag), provider),
        }));
        controls.add(benchmarks, {
          status: "FAIL",
          provider,
          findingIds: [id],
          resources: [resource],
        });
      }
      for (const e of arr(results.parsing_errors)) b.warn(`Checkov could not parse ${String(e)}.`);
    }
    for (const result of controls.results()) b.records.compliance.push(result);
    return b.finish();
  },
};
