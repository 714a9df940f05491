/**
 * The `prowler-asff` importer: AWS Security Finding Format as Prowler writes
 * it (`-M json-asff`: a JSON array, or a Security Hub `{"Findings": [...]}`
 * export, its lower-case `{"findings": [...]}` spelling of EventBridge and S3
 * exports, or a whole EventBridge event `{"detail": {"findings": [...]}}`).
 * Failed findings (`Compliance.Status` FAILED, or no compliance status) whose
 * record is active become findings, one per listed resource (its `Id` as
 * given), as the OCSF importer does. What Security Hub does not count as open
 * is not open: a failed finding whose workflow status is SUPPRESSED (muted in
 * Security Hub) is kept as a suppressed finding, and an ARCHIVED record (the
 * resource or control is gone) or a RESOLVED workflow is counted, not kept.
 * The controls a finding names become compliance results: FAIL naming the
 * findings of a failed check, PASS for an active PASSED one (see
 * {@linkcode asffControls}).
 *
 * @module
 */

import type { Severity } from "../model/enums.ts";
import { DETECTION_ORDER } from "./importer.ts";
import type { Importer, ImportInput, ImportResult } from "./importer.ts";
import { arr, fileLabel, ImportError, isObject, obj, str, strings } from "./import_input.ts";
import { RecordsBuilder } from "./records_builder.ts";
import { arnOrNull, frameworksOf, normaliseSeverity, scannerFinding } from "./scanner_common.ts";
import { objectOrArrayDetectors, readJsonOrLines } from "./scanner_common.ts";
import { ScannerCompliance, type TagControls } from "./scanner_common.ts";
import { uniqueIds } from "../model/unique_ids.ts";

const KIND = "prowler-asff";

function isAsffItem(value: unknown): boolean {
  return isObject(value) &&
    ("ProductArn" in value || ("SchemaVersion" in value && "Resources" in value));
}

/**
 * The findings list of a wrapped ASFF document: `Findings` (get-findings),
 * lower-case `findings` (EventBridge detail, S3 exports) or an EventBridge
 * event's `detail.findings`; undefined when the value is none of these.
 */
function wrappedFindings(value: unknown): unknown[] | undefined {
  if (!isObject(value)) return undefined;
  if (Array.isArray(value.Findings)) return value.Findings;
  const body = isObject(value.detail) ? value.detail : value;
  return Array.isArray(body.findings) ? body.findings : undefined;
}

/** Whether parsed JSON is ASFF (an array of findings, `{Findings: [...]}` or `{findings: [...]}`). */
export function looksLikeAsff(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && isAsffItem(value[0]);
  const list = wrappedFindings(value);
  // The lower-case spelling is also the generic report's key: only ASFF items make it ASFF.
  return list !== undefined &&
    (isAsffItem(list[0]) || (list.length === 0 && isObject(value) && "Findings" in value));
}

/** Whether parsed JSON is lower-case wrapped ASFF, which must be told apart before generic JSON. */
function looksLikeLowerCaseAsff(value: unknown): boolean {
  return isObject(value) && !Array.isArray(value.Findings) && looksLikeAsff(value);
}

/**
 * The tool that wrote an ASFF finding, lower-cased: its `ProductName`, else a
 * product name in `ProductFields` (Security Hub's `aws/securityhub/ProductName`,
 * Prowler's `ProviderName`, Trivy's `Product Name`), else the product part of
 * its `ProductArn` (`product/<company>/<product>`), else `prowler`.
 */
export function asffSourceTool(finding: Record<string, unknown>): string {
  const fields = obj(finding.ProductFields);
  const fromArn = /:product\/[^/]+\/([^/]+)$/.exec(str(finding.ProductArn) ?? "")?.[1];
  const name = [
    finding.ProductName,
    fields["aws/securityhub/ProductName"],
    fields.ProviderName,
    fields["Product Name"],
    fromArn,
  ].map((v) => str(v)?.trim()).find((v) => v !== undefined && v !== null && v !== "");
  return name?.toLowerCase() ?? "prowler";
}

/**
 * The severity of an ASFF finding: its `Label` word when given, else its
 * `Normalized` score (0 to 100) by the ranges ASFF defines (0 informational,
 * 1-39 low, 40-69 medium, 70-89 high, 90-100 critical); MEDIUM when neither.
 */
export function asffSeverity(severity: Record<string, unknown>): Severity {
  if (severity.Label !== undefined && severity.Label !== null) {
    return normaliseSeverity(severity.Label, "MEDIUM");
  }
  const score = Number(severity.Normalized);
  if (
    severity.Normalized === undefined || severity.Normalized === null || !Number.isFinite(score)
  ) {
    return "MEDIUM";
  }
  if (score >= 90) return "CRITICAL";
  if (score >= 70) return "HIGH";
  if (score >= 40) return "MEDIUM";
  if (score >= 1) return "LOW";
  return "INFO";
}

/** Prowler cuts a `RelatedRequirements` entry longer than 64 characters to this length. */
const PROWLER_REQUIREMENT_CUT = 63;

/** The `Compliance` framework of Security Hub's Foundational Security Best Practices. */
const FSBP = "AWS-Foundational-Security-Best-Practices";

/**
 * The controls an ASFF finding names, by the standard (tag) they belong to:
 * a Security Hub control finding's `ProductFields.ControlId` (or the CIS
 * `RuleId`) under its `StandardsArn` (or `StandardsGuideArn`); a consolidated
 * control finding's `Compliance.SecurityControlId` under the Foundational
 * Security Best Practices standard when that is one of its standards (other
 * standards number their controls otherwise); and for Prowler's own ASFF, the
 * ids of each `RelatedRequirements` entry (`<standard> <id> <id>…`), without a
 * last id Prowler may have cut short.
 */
export function asffControls(finding: Record<string, unknown>): TagControls[] {
  const fields = obj(finding.ProductFields);
  const compliance = obj(finding.Compliance);
  const out: TagControls[] = [];
  const standard = str(fields.StandardsArn) ?? str(fields.StandardsGuideArn);
  const controlId = str(fields.ControlId) ?? str(fields.RuleId);
  if (standard && controlId) {
    // Security Hub's control titles open with the control id: "IAM.5 MFA should be enabled…".
    const title = (str(finding.Title) ?? "").replace(
      /^\S+\s+/,
      (head) => head.trim() === controlId ? "" : head,
    );
    out.push({ tag: standard, controls: [controlId], titles: { [controlId]: title } });
    return out;
  }
  const standards = arr(compliance.AssociatedStandards).map((s) => str(obj(s).StandardsId))
    .filter((s) => s !== null);
  const securityControl = str(compliance.SecurityControlId);
  if (securityControl) {
    const fsbp = standards.find((s) => frameworksOf([s], "AWS").includes(FSBP));
    if (fsbp) out.push({ tag: fsbp, controls: [securityControl] });
    return out;
  }
  if (asffSourceTool(finding) !== "prowler") return out;
  for (const requirement of strings(compliance.RelatedRequirements)) {
    const tag = standards.find((s) => requirement.startsWith(`${s} `)) ??
      requirement.split(" ")[0]!;
    const ids = requirement.slice(tag.length).trim().split(/\s+/).filter((x) => x !== "");
    // A cut entry's last id may be a piece of one: only whole ids are taken.
    if (requirement.length === PROWLER_REQUIREMENT_CUT) ids.pop();
    if (ids.length > 0) out.push({ tag, controls: ids });
  }
  return out;
}

/** Why a finding Security Hub's workflow suppressed is suppressed, with its note when it has one. */
function suppressionReason(finding: Record<string, unknown>): string {
  const note = str(obj(finding.Note).Text)?.trim();
  return `Suppressed in Security Hub (workflow status SUPPRESSED)${note ? `: ${note}` : "."}`;
}

/** The `prowler-asff` importer entry. */
export const prowlerAsffImporter: Importer = {
  kind: KIND,
  description:
    "Prowler JSON-ASFF findings (prowler -M json-asff), a JSON array, {Findings: […]} or JSON Lines",
  detectors: [
    ...objectOrArrayDetectors(looksLikeAsff, {
      object: DETECTION_ORDER.json_prowler_object,
      array: DETECTION_ORDER.json_prowler_array,
    }),
    { stage: "json", order: DETECTION_ORDER.json_asff_lower_case, test: looksLikeLowerCaseAsff },
    {
      stage: "json_lines",
      order: DETECTION_ORDER.json_lines_prowler,
      test: (v) => looksLikeAsff([v]),
    },
  ],
  async load(input: ImportInput): Promise<ImportResult> {
    const value = await readJsonOrLines(KIND, input);
    if (!looksLikeAsff(value)) {
      throw new ImportError(
        `${
          fileLabel(input.path)
        } is not ASFF: expected a JSON array of findings with ProductArn and Resources (prowler -M json-asff) or {"Findings": [...]} (also {"findings": [...]} or an EventBridge event's {"detail": {"findings": [...]}}).`,
        { kind: KIND, file: input.path },
      );
    }
    const items = Array.isArray(value) ? value : wrappedFindings(value) ?? [];
    const b = new RecordsBuilder();
    const uniqueId = uniqueIds();
    const controls = new ScannerCompliance(KIND);
    for (const raw of items) {
      const f = obj(raw);
      const compliance = obj(f.Compliance);
      const status = String(compliance.Status ?? "").toUpperCase();
      const failed = status === "FAILED" || status === "";
      const fields = obj(f.ProductFields);
      const provider = str(fields.ProviderName) ?? "AWS";
      const frameworkProvider = provider.toLowerCase().includes("prowler") ? "AWS" : provider;
      const resources = arr(f.Resources).map(obj);
      const archived = String(f.RecordState ?? "ACTIVE").toUpperCase() === "ARCHIVED";
      if (!failed) {
        b.skip(status === "PASSED" ? "passed check" : `status ${status}`);
        // Security Hub resolves the workflow of a passed control itself: only the record's state
        // says whether the pass still stands.
        if (status === "PASSED" && !archived) {
          controls.add(asffControls(f), {
            status: "PASS",
            provider: frameworkProvider,
            resources: resources.map((r) => str(r.Id)).filter((x) => x !== null),
          });
        }
        continue;
      }
      if (archived) {
        b.skip("archived record");
        continue;
      }
      const workflow = String(obj(f.Workflow).Status ?? f.WorkflowState ?? "").toUpperCase();
      if (workflow === "RESOLVED") {
        b.skip("workflow resolved");
        continue;
      }
      const suppressed = workflow === "SUPPRESSED";
      const tags = [
        ...arr(compliance.AssociatedStandards).map((s) => str(obj(s).StandardsId) ?? ""),
        ...strings(compliance.RelatedRequirements),
        // Security Hub's own control findings name their standard only here.
        str(fields.StandardsArn) ?? str(fields.StandardsGuideArn) ?? "",
      ];
      const findingId = str(f.Id) ?? `asff:${b.records.findings.length}`;
      const ids: string[] = [];
      const resourceIds: string[] = [];
      // One finding per listed resource (as OCSF): `<Id>#<n>` when there are several.
      for (const [i, resource] of (resources.length > 0 ? resources : [{}]).entries()) {
        const resourceId = str(resource.Id) ?? str(f.AwsAccountId) ?? "unknown";
        const id = uniqueId(resources.length > 1 ? `${findingId}#${i}` : findingId);
        b.records.findings.push(scannerFinding({
          id,
          resource_id: resourceId,
          resource_arn: arnOrNull(resourceId),
          severity: asffSeverity(obj(f.Severity)),
          title: str(f.Title) ?? str(f.GeneratorId) ?? "ASFF finding",
          description: str(f.Description) ?? "",
          evidence:
            str(obj(resource.Details).Other ? JSON.stringify(obj(resource.Details).Other) : null) ??
              str(f.Description) ?? "",
          remediation: str(obj(obj(f.Remediation).Recommendation).Text) ?? "",
          source_tool: asffSourceTool(f),
          source_finding_id: str(f.GeneratorId),
          compliance_frameworks: frameworksOf(tags.filter((t) => t !== ""), frameworkProvider),
          detected_at: str(f.UpdatedAt) ?? str(f.CreatedAt) ?? null,
          is_suppressed: suppressed,
        }));
        if (suppressed) b.records.suppression_reasons[id] = suppressionReason(f);
        ids.push(id);
        resourceIds.push(resourceId);
        const region = str(resource.Region) ?? str(f.Region);
        if (region) b.records.regions.push(region);
      }
      // A finding without a compliance status (GuardDuty, Inspector) evaluated no control.
      if (status === "FAILED") {
        controls.add(asffControls(f), {
          status: "FAIL",
          provider: frameworkProvider,
          findingIds: ids,
          resources: resourceIds,
        });
      }
    }
    for (const result of controls.results()) b.records.compliance.push(result);
    b.records.providers = ["AWS"];
    b.records.regions = [...new Set(b.records.regions)];
    return b.finish();
  },
};
