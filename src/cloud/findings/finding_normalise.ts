/**
 * Normalising a dataset's findings: duplicates (same tool, check and
 * resource) merge into one, keeping the worst severity and the union of
 * framework tags; framework tags are normalised (`CIS-1.4` → `CIS` and
 * `CIS-AWS`…), and Prowler findings of checks our rules are equivalent to
 * gain the CIS frameworks those rules map to.
 *
 * @module
 */

import { severityRank } from "../model/enums.ts";
import type { DatasetRecords, Finding } from "../model/records.ts";
import { normaliseFrameworks } from "../importers/scanner_common.ts";
import { cisControlsOf, cisProvider } from "../rules/cis_mapping.ts";
import { RULES } from "../rules/rule_table.ts";

/** What normalisation did. */
export interface NormaliseOutcome {
  findings: Finding[];
  before: number;
  after: number;
  /** Ids of findings merged into an earlier duplicate. */
  merged_ids: string[];
  /** Each merged id → the id of the finding it was merged into. */
  merged_into: Record<string, string>;
  /** Every framework tag after normalisation, sorted. */
  frameworks: string[];
}

/** The provider a resource reference points at, from its shape. */
export function providerOfResource(ref: string | null): "AWS" | "AZURE" | "GCP" | null {
  if (!ref) return null;
  if (ref.startsWith("arn:aws")) return "AWS";
  if (/^\/subscriptions\//i.test(ref)) return "AZURE";
  if (ref.startsWith("projects/") || ref.includes("googleapis.com/")) return "GCP";
  if (/^(aws|azurerm|google)_/.test(ref)) {
    return ref.startsWith("aws_") ? "AWS" : ref.startsWith("azurerm_") ? "AZURE" : "GCP";
  }
  return null;
}

const CHECK_TO_RULES = new Map<string, string[]>();
for (const r of RULES) {
  for (const c of r.prowler_checks) CHECK_TO_RULES.set(c, [...(CHECK_TO_RULES.get(c) ?? []), r.id]);
}

/** Normalises findings without changing the input. */
export function normaliseFindings(findings: readonly Finding[]): NormaliseOutcome {
  const kept = new Map<string, Finding>();
  const merged: string[] = [];
  const mergedInto: Record<string, string> = {};
  for (const original of findings) {
    const provider = providerOfResource(original.resource_arn ?? original.resource_id);
    const tags = new Set(
      original.compliance_frameworks.flatMap((t) => normaliseFrameworks(t, provider)),
    );
    if (original.source_tool === "prowler" && original.source_finding_id) {
      const check = original.source_finding_id.replace(/^prowler-/, "");
      for (const ruleId of CHECK_TO_RULES.get(check) ?? []) {
        for (const c of cisControlsOf(ruleId)) {
          if (provider === null || cisProvider(c.framework) === provider) {
            tags.add("CIS");
            tags.add(c.framework);
          }
        }
      }
    }
    const f: Finding = { ...original, compliance_frameworks: [...tags] };
    // The title is part of the key: a scanner may give one generator id to findings that differ
    // (Trivy's and Inspector's ASFF name every vulnerability's finding alike; the title names it).
    const key = [
      f.source_tool,
      f.source_finding_id ?? "",
      f.title,
      f.resource_arn ?? f.resource_id,
    ].join("\u0000");
    const first = kept.get(key);
    if (!first) {
      kept.set(key, f);
      continue;
    }
    merged.push(f.id);
    mergedInto[f.id] = first.id;
    if (severityRank(f.severity) > severityRank(first.severity)) first.severity = f.severity;
    first.compliance_frameworks = [
      ...new Set([...first.compliance_frameworks, ...f.compliance_frameworks]),
    ];
    if (first.cvss_score === null) first.cvss_score = f.cvss_score;
  }
  const out = [...kept.values()];
  return {
    findings: out,
    before: findings.length,
    after: out.length,
    merged_ids: merged,
    merged_into: mergedInto,
    frameworks: [...new Set(out.flatMap((f) => f.compliance_frameworks))].sort(),
  };
}

/**
 * Applies a normalisation's merges to the rest of the records: a merged
 * finding's suppression reason goes with it, and a compliance result that
 * named it names the finding it was merged into instead (once).
 */
export function applyMerges(records: DatasetRecords, mergedInto: Record<string, string>): void {
  for (const id of Object.keys(mergedInto)) delete records.suppression_reasons[id];
  for (const result of records.compliance) {
    if (!result.finding_ids.some((id) => id in mergedInto)) continue;
    result.finding_ids = [...new Set(result.finding_ids.map((id) => mergedInto[id] ?? id))];
  }
}
