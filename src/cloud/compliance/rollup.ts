/**
 * Compliance posture of a dataset (§5.6): per-framework rollups, controls
 * and their status, failing controls and the assets behind them.
 *
 * @module
 */

import { complianceUri, type FindingBrief, findingBrief } from "../model/briefs.ts";
import { COMPLIANCE_STATUSES, SEVERITIES, type Severity, severityRank } from "../model/enums.ts";
import { UnknownFrameworkError } from "../model/errors.ts";
import { compareCodePoints } from "../model/order.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { recordFrameworks } from "../model/frameworks.ts";
import type { ComplianceResult, Finding } from "../model/records.ts";
import { roundHalfEven } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import { severityBreakdown, sortFindings } from "../findings/queries.ts";
import { pushTo } from "../../core/multimap.ts";

/** The status of one control. */
export type ControlStatus =
  | "NOT_EVALUATED"
  | "FAIL"
  | "PASS (all findings suppressed)"
  | ComplianceResult["status"];

/** One framework's rollup row. */
export interface FrameworkRollup {
  /** Framework name. */
  framework: string;
  /** Controls with at least one result. */
  controls_evaluated: number;
  /** Controls whose status is FAIL. */
  controls_failing: number;
  /** Controls that pass (suppressed findings count as passing). */
  controls_passing: number;
  /** NOT_APPLICABLE and MANUAL controls. */
  controls_other: number;
  /** passing / evaluated × 100, one decimal half-even; null when nothing was evaluated. */
  pass_rate: number | null;
  /** Open (unsuppressed) findings. */
  open_findings: number;
  /** Open findings per severity, CRITICAL first, zeros omitted. */
  severity_breakdown: Partial<Record<Severity, number>>;
  /** Distinct assets of the dataset with open findings (findings on no asset left out). */
  affected_assets: number;
  /** Resource URI. */
  uri: string;
}

/** Framework names of the dataset: compliance results ∪ finding tags, sorted. */
export function datasetFrameworks(view: DatasetView): string[] {
  return recordFrameworks(view.records);
}

/** Frameworks matching a name: the exact (case-insensitive) one if any, else substring matches. */
export function matchFrameworks(view: DatasetView, name: string): string[] {
  const all = datasetFrameworks(view);
  const lower = name.toLowerCase();
  const exact = all.filter((n) => n.toLowerCase() === lower);
  if (exact.length > 0) return exact;
  return all.filter((n) => n.toLowerCase().includes(lower));
}

/**
 * The dataset frameworks matching a name, as {@linkcode matchFrameworks};
 * none is {@linkcode UnknownFrameworkError} with the dataset's frameworks in
 * `data.valid`.
 */
export function requireFrameworks(view: DatasetView, name: string): string[] {
  const names = matchFrameworks(view, name);
  if (names.length === 0) {
    throw new UnknownFrameworkError(
      "No framework of that name has results or tagged findings in the dataset; the dataset's " +
        "frameworks are in data.valid.",
      { value: name, dataset: view.name, valid: datasetFrameworks(view) },
    );
  }
  return names;
}

function findingsById(view: DatasetView): Map<string, Finding> {
  return new Map(view.records.findings.map((f) => [f.id, f]));
}

/** The findings results name, each once, in the order first named; unknown ids are passed over. */
function resultFindings(
  results: readonly ComplianceResult[],
  byId: Map<string, Finding>,
): Finding[] {
  return [...new Set(results.flatMap((r) => r.finding_ids))]
    .map((id) => byId.get(id))
    .filter((f): f is Finding => f !== undefined);
}

/** Status of one control from its results. */
export function controlStatusOf(
  results: readonly ComplianceResult[],
  findings: Map<string, Finding>,
): ControlStatus {
  if (results.length === 0) return "NOT_EVALUATED";
  const failing = results.filter((r) => r.status === "FAIL");
  const open = (r: ComplianceResult): boolean =>
    r.finding_ids.some((id) => findings.get(id) && !findings.get(id)!.is_suppressed);
  if (failing.some(open)) return "FAIL";
  if (
    failing.length > 0 &&
    failing.every((r) => r.finding_ids.length > 0 && r.finding_ids.every((id) => findings.has(id)))
  ) return "PASS (all findings suppressed)";
  return results[0]!.status;
}

function controlsOf(view: DatasetView, framework: string): Map<string, ComplianceResult[]> {
  const controls = new Map<string, ComplianceResult[]>();
  for (const r of view.records.compliance) {
    if (r.framework !== framework) continue;
    pushTo(controls, r.control_id, r);
  }
  return controls;
}

/** Open findings of a framework: results' finding ids plus findings tagged with it. */
export function frameworkFindings(view: DatasetView, framework: string): Finding[] {
  const byId = findingsById(view);
  const ids = new Set<string>();
  for (const r of view.records.compliance) {
    if (r.framework === framework) { for (const id of r.finding_ids) ids.add(id); }
  }
  for (const f of view.records.findings) {
    if (f.compliance_frameworks.includes(framework)) ids.add(f.id);
  }
  return [...ids].map((id) => byId.get(id)).filter((f): f is Finding =>
    f !== undefined && !f.is_suppressed
  );
}

/** The rollup row of one framework. */
export function frameworkRollup(view: DatasetView, framework: string): FrameworkRollup {
  const byId = findingsById(view);
  let failing = 0;
  let passing = 0;
  let other = 0;
  const controls = controlsOf(view, framework);
  for (const results of controls.values()) {
    const status = controlStatusOf(results, byId);
    if (status === "FAIL") failing++;
    else if (status === "PASS" || status === "PASS (all findings suppressed)") passing++;
    else other++;
  }
  const evaluated = controls.size;
  const open = frameworkFindings(view, framework);
  const assets = new Set<string>();
  for (const f of open) {
    const asset = view.findingAsset(f);
    if (asset) assets.add(asset.id);
  }
  return {
    framework,
    controls_evaluated: evaluated,
    controls_failing: failing,
    controls_passing: passing,
    controls_other: other,
    pass_rate: evaluated === 0 ? null : roundHalfEven((passing / evaluated) * 100, 1),
    open_findings: open.length,
    severity_breakdown: severityBreakdown(open),
    affected_assets: assets.size,
    uri: complianceUri(framework),
  };
}

/** Rollup rows for every framework (or those matching `framework`), most open findings first. */
export function complianceRollup(view: DatasetView, framework: string = ""): FrameworkRollup[] {
  const names = framework ? matchFrameworks(view, framework) : datasetFrameworks(view);
  return names.map((n) => frameworkRollup(view, n)).sort((a, b) =>
    b.open_findings - a.open_findings
  );
}

/** A failing control row. */
export interface FailingControl {
  /** Framework name. */
  framework: string;
  /** Control id. */
  control_id: string;
  /** Control title. */
  control_title: string;
  /** Open (unsuppressed) findings. */
  open_findings: number;
  /** Worst open severity, or null. */
  max_severity: Severity | null;
}

function worst(findings: readonly Finding[]): Severity | null {
  let result: Severity | null = null;
  for (const f of findings) {
    if (result === null || severityRank(f.severity) > severityRank(result)) result = f.severity;
  }
  return result;
}

/** Most failing controls in a framework detail. */
export const MAX_FAILING_CONTROLS = 300;

/**
 * The posture of the frameworks matching a name, with their failing
 * controls (worst severity, then control id); none → {@linkcode UnknownFrameworkError}.
 */
export function frameworkDetail(
  view: DatasetView,
  framework: string,
): { dataset: string; posture: FrameworkRollup[]; failing_controls: FailingControl[] } {
  const names = matchFrameworks(view, framework);
  if (names.length === 0) {
    throw new UnknownFrameworkError(
      "No framework of that name has results or tagged findings in the dataset.",
      { value: framework, dataset: view.name, valid: datasetFrameworks(view) },
    );
  }
  const byId = findingsById(view);
  const failing: FailingControl[] = [];
  for (const name of names) {
    for (const [controlId, results] of controlsOf(view, name)) {
      const fails = results.filter((r) => r.status === "FAIL");
      if (fails.length === 0) continue;
      const open = resultFindings(fails, byId).filter((f) => !f.is_suppressed);
      failing.push({
        framework: name,
        control_id: controlId,
        control_title: results[0]!.control_title,
        open_findings: open.length,
        max_severity: worst(open),
      });
    }
  }
  const rank = (s: Severity | null): number => (s === null ? -1 : severityRank(s));
  failing.sort((a, b) =>
    rank(b.max_severity) - rank(a.max_severity) || compareCodePoints(a.control_id, b.control_id)
  );
  return {
    dataset: view.name,
    posture: names.map((n) => frameworkRollup(view, n)).sort((a, b) =>
      b.open_findings - a.open_findings
    ),
    failing_controls: failing.slice(0, MAX_FAILING_CONTROLS),
  };
}

/** A control as `list_controls` shows it. */
export interface ControlRow {
  /** Framework name. */
  framework: string;
  /** Control id. */
  control_id: string;
  /** Control title. */
  control_title: string;
  /** Control status. */
  status: ControlStatus;
  /** Compliance results (count or list). */
  results: number;
  /** Open (unsuppressed) findings. */
  open_findings: number;
  /** Worst open severity, or null. */
  max_severity: Severity | null;
}

/** The controls of the matching frameworks in the dataset, optionally of one status. */
export function listControls(
  view: DatasetView,
  framework: string,
  options: { status?: string } = {},
): ControlRow[] {
  const wanted = options.status
    ? parseEnum(options.status, COMPLIANCE_STATUSES, { label: "status" })
    : undefined;
  const byId = findingsById(view);
  const rows: ControlRow[] = [];
  for (const name of matchFrameworks(view, framework)) {
    for (const [controlId, results] of controlsOf(view, name)) {
      const status = controlStatusOf(results, byId);
      if (wanted && !status.startsWith(wanted)) continue;
      const open = resultFindings(results, byId).filter((f) => !f.is_suppressed);
      rows.push({
        framework: name,
        control_id: controlId,
        control_title: results[0]!.control_title,
        status,
        results: results.length,
        open_findings: open.length,
        max_severity: worst(open),
      });
    }
  }
  return rows.sort((a, b) =>
    compareCodePoints(a.framework, b.framework) || compareCodePoints(a.control_id, b.control_id)
  );
}

/**
 * One control in detail; `affected_assets` holds the ids of the dataset's assets
 * with open findings (findings on no asset are listed in `findings` only).
 */
export function controlStatus(
  view: DatasetView,
  framework: string,
  controlId: string,
  options: { limit?: number } = {},
): {
  framework: string;
  control_id: string;
  control_title: string | null;
  status: ControlStatus;
  results: ComplianceResult[];
  findings: FindingBrief[];
  affected_assets: string[];
} {
  const limit = options.limit ?? 25;
  const names = matchFrameworks(view, framework);
  const name = names[0];
  if (name === undefined) {
    throw new UnknownFrameworkError(
      "No framework of that name has results or tagged findings in the dataset.",
      { value: framework, dataset: view.name, valid: datasetFrameworks(view) },
    );
  }
  const byId = findingsById(view);
  const results = controlsOf(view, name).get(controlId) ?? [];
  const findings = sortFindings(resultFindings(results, byId));
  const assets = new Set<string>();
  for (const f of findings) {
    if (f.is_suppressed) continue;
    const asset = view.findingAsset(f);
    if (asset) assets.add(asset.id);
  }
  return {
    framework: name,
    control_id: controlId,
    control_title: results[0]?.control_title ?? null,
    status: controlStatusOf(results, byId),
    results: results.slice(0, limit),
    findings: findings.slice(0, limit).map((f) => findingBrief(view, f)),
    affected_assets: [...assets].slice(0, limit),
  };
}

/** An asset failing compliance. */
export interface ComplianceGap {
  /** The asset's id (as finding briefs and `find_assets` name it), or `unmapped:<resource>`. */
  asset: string;
  /** Display name. */
  name: string | null;
  /** Frameworks involved. */
  frameworks: string[];
  /** Failing controls ("<framework> <control id>"). */
  failing_controls: string[];
  /** Open (unsuppressed) findings. */
  open_findings: number;
  /** Worst open severity, or null. */
  max_severity: Severity;
}

/** Assets with open findings under failing controls (or framework tags), worst first. */
export function complianceGaps(
  view: DatasetView,
  options: { framework?: string; min_severity?: string } = {},
): ComplianceGap[] {
  const names = options.framework
    ? matchFrameworks(view, options.framework)
    : datasetFrameworks(view);
  const min = options.min_severity
    ? severityRank(parseEnum(options.min_severity, SEVERITIES, { label: "severity" }))
    : -1;
  const gaps = new Map<string, ComplianceGap>();
  const findingsOf = new Map<string, Set<string>>();
  for (const framework of names) {
    const failingControls = new Map<string, string[]>();
    for (const r of view.records.compliance) {
      if (r.framework !== framework || r.status !== "FAIL") continue;
      for (const id of r.finding_ids) {
        failingControls.set(id, [
          ...(failingControls.get(id) ?? []),
          `${framework} ${r.control_id}`,
        ]);
      }
    }
    for (const f of frameworkFindings(view, framework)) {
      if (severityRank(f.severity) < min) continue;
      const asset = view.findingAsset(f);
      const key = asset ? asset.id : `unmapped:${f.resource_arn ?? f.resource_id}`;
      const gap = gaps.get(key) ?? {
        asset: key,
        name: asset?.name ?? null,
        frameworks: [],
        failing_controls: [],
        open_findings: 0,
        max_severity: f.severity,
      };
      if (!gap.frameworks.includes(framework)) gap.frameworks.push(framework);
      for (const c of failingControls.get(f.id) ?? []) {
        if (!gap.failing_controls.includes(c)) gap.failing_controls.push(c);
      }
      const seen = findingsOf.get(key) ?? new Set<string>();
      seen.add(f.id);
      findingsOf.set(key, seen);
      gap.open_findings = seen.size;
      if (severityRank(f.severity) > severityRank(gap.max_severity)) gap.max_severity = f.severity;
      gaps.set(key, gap);
    }
  }
  return [...gaps.values()].sort((a, b) =>
    severityRank(b.max_severity) - severityRank(a.max_severity) ||
    b.open_findings - a.open_findings || compareCodePoints(a.asset, b.asset)
  );
}
