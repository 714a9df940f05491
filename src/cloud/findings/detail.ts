/**
 * Finding views the resources and tools serve as a whole: one finding in
 * detail, the findings overview, and the open findings of one severity.
 *
 * @module
 */

import { type AssetBrief, assetBrief, type FindingBrief, findingBrief } from "../model/briefs.ts";
import { SEVERITIES, type Severity } from "../model/enums.ts";
import { NotFoundError } from "../model/errors.ts";
import { enumKey } from "../model/parse_enum.ts";
import type { DatasetView } from "../model/view.ts";
import { resolveFinding, severityBreakdown, sortFindings } from "./queries.ts";

/** A compliance control a finding fails. */
export interface FindingControl {
  /** Framework name. */
  framework: string;
  /** Control id. */
  control_id: string;
  /** Control title. */
  control_title: string;
  /** The result's status. */
  status: string;
}

/** One finding in full. */
export interface FindingDetail extends FindingBrief {
  /** What is wrong. */
  description: string;
  /** What the tool saw. */
  evidence: string;
  /** How to fix it. */
  remediation: string;
  /** The id the source tool gave it. */
  source_finding_id: string | null;
  /** Compliance results that name it. */
  controls: FindingControl[];
  /** Why it was suppressed, when it is. */
  suppression_reason: string | null;
  /** The asset it maps to, or null. */
  asset: AssetBrief | null;
}

/** A finding by id (or unique source finding id), with its text, controls and asset. */
export function findingDetail(view: DatasetView, findingId: string): FindingDetail {
  const finding = resolveFinding(view, findingId);
  const asset = view.findingAsset(finding);
  return {
    ...findingBrief(view, finding),
    description: finding.description,
    evidence: finding.evidence,
    remediation: finding.remediation,
    source_finding_id: finding.source_finding_id,
    controls: view.records.compliance
      .filter((r) => r.finding_ids.includes(finding.id))
      .map((r) => ({
        framework: r.framework,
        control_id: r.control_id,
        control_title: r.control_title,
        status: r.status,
      })),
    suppression_reason: view.records.suppression_reasons[finding.id] ?? null,
    asset: asset ? assetBrief(view, asset) : null,
  };
}

/** The findings overview: open and suppressed counts, open by severity and by tool. */
export function findingsOverview(view: DatasetView): {
  dataset: string;
  open_findings: number;
  suppressed: number;
  severity_breakdown: Partial<Record<Severity, number>>;
  by_tool: Record<string, number>;
} {
  const open = view.records.findings.filter((f) => !f.is_suppressed);
  const byTool: Record<string, number> = {};
  for (const f of open) byTool[f.source_tool] = (byTool[f.source_tool] ?? 0) + 1;
  return {
    dataset: view.name,
    open_findings: open.length,
    suppressed: view.records.findings.length - open.length,
    severity_breakdown: severityBreakdown(open),
    by_tool: Object.fromEntries(Object.entries(byTool).sort((a, b) => b[1] - a[1])),
  };
}

/** Most findings listed per severity. */
export const MAX_FINDINGS_PER_SEVERITY = 200;

/**
 * The open findings of one severity (case-insensitive), highest risk first,
 * at most 200; an unknown severity is {@linkcode NotFoundError} listing the five.
 */
export function findingsBySeverity(view: DatasetView, severity: string): {
  dataset: string;
  severity: Severity;
  total: number;
  truncated: boolean;
  findings: FindingBrief[];
} {
  const level = SEVERITIES.find((s) => s === enumKey(String(severity)));
  if (level === undefined) {
    throw new NotFoundError(`Unknown severity; the severities are ${SEVERITIES.join(", ")}.`, {
      value: severity,
      valid: [...SEVERITIES],
    });
  }
  const matches = sortFindings(
    view.records.findings.filter((f) => !f.is_suppressed && f.severity === level),
  );
  return {
    dataset: view.name,
    severity: level,
    total: matches.length,
    truncated: matches.length > MAX_FINDINGS_PER_SEVERITY,
    findings: matches.slice(0, MAX_FINDINGS_PER_SEVERITY).map((f) => findingBrief(view, f)),
  };
}
