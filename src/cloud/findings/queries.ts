/**
 * Finding queries: filtered lists, grouped counts, findings of one asset,
 * and lookup by id.
 *
 * @module
 */

import { type AssetBrief, assetBrief, type FindingBrief, findingBrief } from "../model/briefs.ts";
import { type Page, paginate } from "../model/cursors.ts";
import { SEVERITIES, type Severity, severityRank } from "../model/enums.ts";
import { InvalidArgumentError, UnknownFindingError } from "../model/errors.ts";
import { compareCodePoints } from "../model/order.ts";
import { parseEnum } from "../model/parse_enum.ts";
import type { Finding } from "../model/records.ts";
import { riskScore } from "../model/records.ts";
import { resolveAsset } from "../model/references.ts";
import { UNKNOWN_ACCOUNT } from "../inventory/accounts.ts";
import type { DatasetView } from "../model/view.ts";

/** Filters of {@linkcode filterFindings}. */
export interface FindingFilter {
  /** Keep only these severities (case-insensitive). */
  severities?: string[];
  /** Keep this severity and worse. */
  min_severity?: string;
  /** Exact source tool, case-insensitive. */
  source_tool?: string;
  /** Framework tag or compliance result framework, case-insensitive substring. */
  framework?: string;
  /** An asset reference (resolved), or a raw resource id / ARN. */
  resource?: string;
  /** Case-insensitive substring of id, title, description or resource. */
  query?: string;
  /** Include suppressed findings. @default false */
  include_suppressed?: boolean;
  /** `risk` (default), `severity`, `detected_at`, `title`, `source_tool`. */
  sort_by?: string;
}

/** Sort keys of finding lists. */
export const FINDING_SORT_KEYS = [
  "risk",
  "severity",
  "detected_at",
  "title",
  "source_tool",
] as const;

/** Severity counts in CRITICAL→INFO order, zero counts omitted. */
export function severityBreakdown(findings: readonly Finding[]): Partial<Record<Severity, number>> {
  const counts: Partial<Record<Severity, number>> = {};
  for (const level of SEVERITIES) {
    const n = findings.filter((f) => f.severity === level).length;
    if (n > 0) counts[level] = n;
  }
  return counts;
}

function resultFrameworks(view: DatasetView): Map<string, string[]> {
  return view.derived("result_frameworks_by_finding", () => {
    const map = new Map<string, string[]>();
    for (const result of view.records.compliance) {
      for (const id of result.finding_ids) map.set(id, [...(map.get(id) ?? []), result.framework]);
    }
    return map;
  });
}

/** A finding's frameworks: its own tags plus those of compliance results naming it. */
export function frameworksOf(view: DatasetView, finding: Finding): string[] {
  const names = new Set(finding.compliance_frameworks);
  for (const name of resultFrameworks(view).get(finding.id) ?? []) names.add(name);
  return [...names];
}

/** Sorts findings by a key (risk, severity: worst first; others ascending); stable. */
export function sortFindings(findings: Finding[], sortBy: string = "risk"): Finding[] {
  const key = parseEnum(sortBy, FINDING_SORT_KEYS, { label: "sort key" });
  const indexed = findings.map((f, i) => ({ f, i }));
  indexed.sort((a, b) => {
    switch (key) {
      case "risk":
        return riskScore(b.f) - riskScore(a.f) || a.i - b.i;
      case "severity":
        return severityRank(b.f.severity) - severityRank(a.f.severity) || a.i - b.i;
      case "detected_at":
        // A finding without a time sorts after those with one.
        return Number(a.f.detected_at === null) - Number(b.f.detected_at === null) ||
          compareCodePoints(a.f.detected_at ?? "", b.f.detected_at ?? "") || a.i - b.i;
      default:
        return compareCodePoints(String(a.f[key]), String(b.f[key])) || a.i - b.i;
    }
  });
  return indexed.map((x) => x.f);
}

/** The findings matching the filter, sorted. */
export function filterFindings(view: DatasetView, filter: FindingFilter = {}): Finding[] {
  const severities = filter.severities?.map((s) => parseEnum(s, SEVERITIES, { label: "severity" }));
  const min = filter.min_severity
    ? severityRank(parseEnum(filter.min_severity, SEVERITIES, { label: "severity" }))
    : -1;
  const tool = filter.source_tool?.toLowerCase();
  const framework = filter.framework?.toLowerCase();
  const query = filter.query?.toLowerCase();
  let assetId: string | undefined;
  if (filter.resource) {
    try {
      assetId = resolveAsset(view, filter.resource).id;
    } catch {
      assetId = undefined;
    }
  }
  const matches = view.records.findings.filter((f) => {
    if (!filter.include_suppressed && f.is_suppressed) return false;
    if (severities && !severities.includes(f.severity)) return false;
    if (severityRank(f.severity) < min) return false;
    if (tool && f.source_tool.toLowerCase() !== tool) return false;
    if (framework && !frameworksOf(view, f).some((n) => n.toLowerCase().includes(framework))) {
      return false;
    }
    if (filter.resource) {
      const mapped = view.findingAsset(f);
      const hit = assetId !== undefined
        ? mapped?.id === assetId
        : f.resource_id === filter.resource || f.resource_arn === filter.resource;
      if (!hit) return false;
    }
    if (query) {
      const text = [f.id, f.title, f.description, f.resource_id, f.resource_arn ?? ""]
        .join("\n").toLowerCase();
      if (!text.includes(query)) return false;
    }
    return true;
  });
  return sortFindings(matches, filter.sort_by ?? "risk");
}

/** A page of finding briefs plus the severity breakdown of all matches. */
export function listFindings(
  view: DatasetView,
  filter: FindingFilter & { limit?: number; cursor?: string | null } = {},
): Page<FindingBrief> & { severity_breakdown: Partial<Record<Severity, number>> } {
  const { limit, cursor, ...filters } = filter;
  const matches = filterFindings(view, filters);
  const page = paginate(matches, {
    ...(limit === undefined ? {} : { limit }),
    cursor: cursor ?? null,
    scope: view,
    filters: filters as Record<string, unknown>,
    render: (f) => findingBrief(view, f),
  });
  return {
    ...page,
    severity_breakdown: severityBreakdown(matches),
  };
}

/** Group keys of {@linkcode findingsSummary}. */
export const FINDING_GROUPS = [
  "severity",
  "source_tool",
  "framework",
  "asset_type",
  "account",
  "asset",
] as const;

/** One group: its total and per-severity counts. */
export type FindingGroup = { total: number } & Partial<Record<Severity, number>>;

/** Options of {@linkcode findingsSummary}. */
export interface FindingsSummaryOptions {
  /** severity, source_tool, framework, asset_type, account or asset. @default "severity" */
  group_by?: string;
  /** Count suppressed findings too. @default false */
  include_suppressed?: boolean;
  /** Most groups returned, largest first. @default 25 */
  top?: number;
}

/**
 * Counts findings per group (`(none)` for findings without a framework,
 * `unknown` for assets without an account as `list_accounts` labels them,
 * `unmapped` for findings on no asset); assets are keyed by their id, as
 * finding briefs name them.
 */
export function findingsSummary(
  view: DatasetView,
  options: FindingsSummaryOptions = {},
): {
  dataset: string;
  group_by: string;
  total: number;
  group_count: number;
  groups: Record<string, FindingGroup>;
} {
  const groupBy = parseEnum(options.group_by ?? "severity", FINDING_GROUPS, { label: "group" });
  const top = options.top ?? 25;
  if (!Number.isInteger(top) || top < 1 || top > 500) {
    throw new InvalidArgumentError("top must be an integer from 1 to 500.", { value: top });
  }
  const findings = view.records.findings.filter((f) =>
    options.include_suppressed || !f.is_suppressed
  );
  const groups = new Map<string, FindingGroup>();
  const bump = (key: string, f: Finding): void => {
    const group = groups.get(key) ?? { total: 0 };
    group.total++;
    group[f.severity] = (group[f.severity] ?? 0) + 1;
    groups.set(key, group);
  };
  for (const f of findings) {
    const asset = view.findingAsset(f);
    switch (groupBy) {
      case "severity":
        bump(f.severity, f);
        break;
      case "source_tool":
        bump(f.source_tool || "(none)", f);
        break;
      case "framework": {
        const names = frameworksOf(view, f);
        if (names.length === 0) bump("(none)", f);
        for (const name of names) bump(name, f);
        break;
      }
      case "asset_type":
        bump(asset ? asset.asset_type : "unmapped", f);
        break;
      case "account":
        bump(asset ? asset.account_id ?? UNKNOWN_ACCOUNT : "unmapped", f);
        break;
      case "asset":
        bump(asset ? asset.id : "unmapped", f);
        break;
    }
  }
  let entries = [...groups.entries()];
  if (groupBy === "severity") {
    entries.sort((a, b) => severityRank(b[0] as Severity) - severityRank(a[0] as Severity));
  } else entries.sort((a, b) => b[1].total - a[1].total);
  const groupCount = entries.length;
  entries = entries.slice(0, top);
  return {
    dataset: view.name,
    group_by: groupBy,
    total: findings.length,
    group_count: groupCount,
    groups: Object.fromEntries(entries),
  };
}

/** Open (or all) findings of one asset, highest risk first. */
export function findingsForAsset(
  view: DatasetView,
  ref: string,
  options: { include_suppressed?: boolean; limit?: number } = {},
): { asset: AssetBrief; total: number; findings: FindingBrief[] } {
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
    throw new InvalidArgumentError("The limit must be an integer from 1 to 500.", { value: limit });
  }
  const asset = resolveAsset(view, ref);
  const findings = sortFindings(
    view.findingsFor(asset.id).filter((f) => options.include_suppressed || !f.is_suppressed),
  );
  return {
    asset: assetBrief(view, asset),
    total: findings.length,
    findings: findings.slice(0, limit).map((f) => findingBrief(view, f)),
  };
}

/** A finding by id, else by unique `source_finding_id`; otherwise {@linkcode UnknownFindingError}. */
export function resolveFinding(view: DatasetView, findingId: string): Finding {
  const byId = view.records.findings.find((f) => f.id === findingId);
  if (byId) return byId;
  const bySource = view.records.findings.filter((f) => f.source_finding_id === findingId);
  if (bySource.length === 1) return bySource[0]!;
  const needle = String(findingId).toLowerCase();
  const suggestions = view.records.findings
    .filter((f) => needle !== "" && f.id.toLowerCase().includes(needle))
    .slice(0, 5)
    .map((f) => f.id);
  throw new UnknownFindingError(
    "No finding in the dataset has that id; near matches are in data.suggestions.",
    { value: findingId, dataset: view.name, suggestions },
  );
}
