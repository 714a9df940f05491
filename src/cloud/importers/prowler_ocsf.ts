/**
 * The `prowler-ocsf` importer: Prowler's OCSF (1.x) detection findings, as a
 * JSON array (`-M json-ocsf`) or JSON Lines. Failed checks become findings
 * with the resource uid kept as given (an ARN when Prowler had one); a failed
 * check Prowler muted (status `Suppressed`) is kept as a suppressed finding,
 * so it is not open but can be listed; passed and manual checks are counted.
 * The control ids of `unmapped.compliance` become compliance results: FAIL
 * naming the findings of failed checks, PASS for passed checks, MANUAL for
 * manual ones.
 *
 * @module
 */

import { DETECTION_ORDER } from "./importer.ts";
import type { Importer, ImportInput, ImportResult } from "./importer.ts";
import { arr, fileLabel, ImportError, isObject, obj, str } from "./import_input.ts";
import { RecordsBuilder } from "./records_builder.ts";
import {
  arnOrNull,
  frameworksOf,
  normaliseSeverity,
  readJsonOrLines,
  ScannerCompliance,
  scannerFinding,
  tagControlsOf,
  utcDateTime,
} from "./scanner_common.ts";
import { uniqueIds } from "../model/unique_ids.ts";

const KIND = "prowler-ocsf";

/** Why a finding Prowler muted is suppressed. */
export const OCSF_MUTED_REASON =
  "Muted in Prowler (its mutelist): the OCSF record's status is Suppressed.";

/** Whether a parsed item looks like an OCSF finding. */
export function isOcsfItem(value: unknown): boolean {
  return isObject(value) && !("ProductArn" in value) &&
    ("finding_info" in value || "class_uid" in value || "type_uid" in value ||
      "severity_id" in value);
}

/** Whether parsed JSON is an OCSF array. */
export function looksLikeOcsf(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 && isOcsfItem(value[0]) : isOcsfItem(value);
}

/** An OCSF timestamp (epoch seconds or milliseconds) as ISO 8601, or null. */
function epoch(value: unknown): string | null {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  const d = new Date(value > 1e11 ? value : value * 1000);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/**
 * A finding's time as ISO 8601: `time_dt`, else epoch `time`; else, as Prowler 4.0-4.2 wrote
 * it, `event_time`, then `finding_info.created_time_dt` / `created_time` (zone-less means
 * UTC); else null.
 */
export function ocsfTime(f: Record<string, unknown>): string | null {
  const info = isObject(f.finding_info) ? f.finding_info : {};
  return utcDateTime(f.time_dt) ?? epoch(f.time) ?? utcDateTime(f.event_time) ??
    utcDateTime(info.created_time_dt) ?? epoch(info.created_time) ??
    utcDateTime(info.created_time);
}

/** The `prowler-ocsf` importer entry. */
export const prowlerOcsfImporter: Importer = {
  kind: KIND,
  description: "Prowler OCSF findings (prowler -M json-ocsf), a JSON array or JSON Lines",
  detectors: [
    { stage: "json", order: DETECTION_ORDER.json_ocsf, test: looksLikeOcsf },
    { stage: "json_lines", order: DETECTION_ORDER.json_lines_ocsf, test: isOcsfItem },
  ],
  async load(input: ImportInput): Promise<ImportResult> {
    const value = await readJsonOrLines(KIND, input);
    const items = Array.isArray(value) ? value : [value];
    if (items.length > 0 && !items.every(isOcsfItem)) {
      throw new ImportError(
        `${
          fileLabel(input.path)
        } is not Prowler OCSF output: every item must be an OCSF finding (with finding_info, class_uid or severity_id). Re-run prowler with -M json-ocsf.`,
        { kind: KIND, file: input.path },
      );
    }
    const b = new RecordsBuilder();
    const uniqueId = uniqueIds();
    const controls = new ScannerCompliance(KIND);
    for (const raw of items) {
      const f = obj(raw);
      const status = String(f.status_code ?? "").toUpperCase();
      const cloud = obj(f.cloud);
      const provider = str(cloud.provider);
      const compliance = obj(obj(f.unmapped).compliance);
      const resources = arr(f.resources).map(obj);
      if (status !== "FAIL") {
        b.skip(status === "PASS" ? "passed check" : `status ${status || "missing"}`);
        if (status === "PASS" || status === "MANUAL") {
          controls.add(tagControlsOf(compliance), {
            status: status === "PASS" ? "PASS" : "MANUAL",
            provider,
            resources: resources.map((r) => str(r.uid) ?? str(r.name)).filter((x) => x !== null),
          });
        }
        continue;
      }
      // Prowler writes a muted check as status "Suppressed" beside its FAIL code.
      const muted = String(f.status ?? "").toLowerCase() === "suppressed";
      const info = obj(f.finding_info);
      const meta = obj(f.metadata);
      const checkId = str(meta.event_code);
      const uid = str(info.uid) ?? `${checkId ?? "ocsf"}:${b.records.findings.length}`;
      const ids: string[] = [];
      const resourceIds: string[] = [];
      for (const [i, r] of (resources.length > 0 ? resources : [{}]).entries()) {
        const resourceId = str(r.uid) ?? str(r.name) ?? str(obj(cloud.account).uid) ?? "unknown";
        const id = uniqueId(resources.length > 1 ? `${uid}#${i}` : uid);
        b.records.findings.push(scannerFinding({
          id,
          resource_id: resourceId,
          resource_arn: arnOrNull(resourceId),
          severity: normaliseSeverity(f.severity_id ?? f.severity, "INFO"),
          title: str(info.title) ?? checkId ?? "Prowler finding",
          description: str(info.desc) ?? str(f.message) ?? "",
          evidence: str(f.status_detail) ?? str(f.message) ?? "",
          remediation: str(obj(f.remediation).desc) ?? "",
          source_tool: "prowler",
          source_finding_id: checkId,
          compliance_frameworks: frameworksOf(Object.keys(compliance), provider),
          detected_at: ocsfTime(f),
          is_suppressed: muted,
        }));
        if (muted) b.records.suppression_reasons[id] = OCSF_MUTED_REASON;
        ids.push(id);
        resourceIds.push(resourceId);
      }
      controls.add(tagControlsOf(compliance), {
        status: "FAIL",
        provider,
        findingIds: ids,
        resources: resourceIds,
      });
      if (provider) b.records.providers.push(provider.toUpperCase());
      const region = str(cloud.region);
      if (region) b.records.regions.push(region);
    }
    for (const result of controls.results()) b.records.compliance.push(result);
    b.records.providers = [...new Set(b.records.providers)];
    b.records.regions = [...new Set(b.records.regions)];
    return b.finish();
  },
};
