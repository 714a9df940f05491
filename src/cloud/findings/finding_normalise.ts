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
import type { Finding } from "../model/records.ts";
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
    frameworks: [...new Set(out.flatMap((f) => f.compliance_frameworks))].sort(),
  };
}
