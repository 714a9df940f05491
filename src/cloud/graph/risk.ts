/**
 * The asset risk scores (spec §5.5): the `top_risks` ranking and the sort
 * key of `find_assets sort_by=risk`.
 *
 * @module
 */

import type { Severity } from "../model/enums.ts";
import { severityRank } from "../model/enums.ts";
import type { Asset, Finding } from "../model/records.ts";
import { riskScore, roundHalfEven } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import type { AssetBrief, FindingBrief } from "../model/briefs.ts";
import { assetBrief, findingBrief, openFindings } from "../model/briefs.ts";
import { dependencyGraph, walkDependents } from "./dependency_graph.ts";
import { internetReachable } from "./reachability.ts";
import { compareCodePoints } from "../model/order.ts";

/** How `top_risks` scores, in words. */
export const TOP_RISKS_FORMULA = "score = max_finding_risk × exposure_factor × blast_factor × " +
  "volume_factor, rounded to 2 decimals; exposure_factor = 1.5 when the asset is flagged " +
  "internet-exposed or reachable from the internet over flow edges, else 1.0; blast_factor = " +
  "1 + min(1, log10(1 + transitive_dependents) / 2) with dependents counted up to depth 6; " +
  "volume_factor = 1 + min(0.5, 0.05 × (open_findings − 1)).";

/** Dependents beyond this count no longer change the blast factor (log10(100) / 2 = 1). */
const BLAST_SATURATION = 99;

/** The components of one asset's risk score. */
export interface RiskComponents {
  max_finding_risk: number;
  exposure_factor: number;
  internet_reachable: boolean;
  transitive_dependents: number;
  blast_factor: number;
  open_findings: number;
  volume_factor: number;
}

/** One row of {@link topRisks}. */
export interface RiskRow {
  asset: AssetBrief;
  score: number;
  components: RiskComponents;
  /** The three riskiest open findings. */
  top_findings: FindingBrief[];
}

/** The result of {@link topRisks}. */
export interface TopRisksResult {
  items: RiskRow[];
  total_candidates: number;
  formula: string;
  truncated: boolean;
  bounds_hit?: string[];
}

function worstRisk(findings: readonly Finding[]): number {
  let worst = 0;
  for (const f of findings) worst = Math.max(worst, riskScore(f));
  return worst;
}

/** The blast factor for a count of transitive dependents. */
export function blastFactor(dependents: number): number {
  return 1 + Math.min(1, Math.log10(1 + dependents) / 2);
}

/** The volume factor for a count of open findings. */
export function volumeFactor(open: number): number {
  return 1 + Math.min(0.5, 0.05 * (open - 1));
}

/**
 * The risk score: worst finding risk × exposure (1.5 or 1.0) × blast factor
 * × volume factor, rounded half-even to 2 decimals.
 */
export function assetRiskScore(
  maxFindingRisk: number,
  factors: { exposed: boolean; dependents: number; open: number },
): number {
  return roundHalfEven(
    maxFindingRisk * (factors.exposed ? 1.5 : 1) * blastFactor(factors.dependents) *
      volumeFactor(factors.open),
    2,
  );
}

/** Options of {@link topRisks}. */
export interface TopRisksOptions {
  /** Rows returned, 1..100. @default 10 */
  top?: number;
  /** Only findings at or above this severity count. */
  minSeverity?: Severity;
  /** Dependents counted exactly for returned rows before stopping. @default 1_000_000 */
  maxNodes?: number;
}

/**
 * Assets with open findings ranked by risk score (desc), then name. Each
 * candidate's dependents are counted only up to where the blast factor
 * stops growing; returned rows get the exact count.
 */
export function topRisks(view: DatasetView, options: TopRisksOptions = {}): TopRisksResult {
  const top = options.top ?? 10;
  const scored = riskCandidates(view, options.minSeverity);
  const graph = dependencyGraph(view);
  const minRank = options.minSeverity === undefined ? -1 : severityRank(options.minSeverity);
  let cut = false;
  const items = scored.slice(0, top).map(({ asset, score, exposed }) => {
    const open = view.findingsFor(asset.id).filter((f) =>
      !f.is_suppressed && severityRank(f.severity) >= minRank
    );
    const walk = walkDependents(graph, asset.id, { maxDepth: 6, maxNodes: options.maxNodes });
    cut ||= walk.truncated;
    return {
      asset: assetBrief(view, asset),
      score,
      components: {
        max_finding_risk: worstRisk(open),
        exposure_factor: exposed ? 1.5 : 1.0,
        internet_reachable: exposed,
        transitive_dependents: walk.links.length,
        blast_factor: roundHalfEven(blastFactor(walk.links.length), 3),
        open_findings: open.length,
        volume_factor: roundHalfEven(volumeFactor(open.length), 3),
      },
      top_findings: [...open].sort((a, b) => riskScore(b) - riskScore(a)).slice(0, 3).map((f) =>
        findingBrief(view, f)
      ),
    };
  });
  const out: TopRisksResult = {
    items,
    total_candidates: scored.length,
    formula: TOP_RISKS_FORMULA,
    truncated: cut,
  };
  if (cut) out.bounds_hit = ["max_nodes"];
  return out;
}

/** One scored candidate of the risk ranking. */
export interface RiskCandidate {
  asset: Asset;
  score: number;
  /** Flagged exposed or reachable from the internet. */
  exposed: boolean;
}

/**
 * Every asset with open findings (at or above `minSeverity`) with its risk
 * score, best first, then by name; computed once per version and severity.
 * Dependents are counted only up to where the blast factor stops growing.
 */
export function riskCandidates(
  view: DatasetView,
  minSeverity?: Severity,
): readonly RiskCandidate[] {
  return view.derived(`graph:risk_candidates:${minSeverity ?? "*"}`, () => {
    const minRank = minSeverity === undefined ? -1 : severityRank(minSeverity);
    const reachable = internetReachable(view);
    const graph = dependencyGraph(view);
    const seen = new Set<string>();
    const scored: RiskCandidate[] = [];
    for (const f of view.records.findings) {
      const asset = view.findingAsset(f);
      if (!asset || seen.has(asset.id)) continue;
      seen.add(asset.id);
      const open = view.findingsFor(asset.id).filter((x) =>
        !x.is_suppressed && severityRank(x.severity) >= minRank
      );
      if (open.length === 0) continue;
      const capped = walkDependents(graph, asset.id, { maxDepth: 6, maxNodes: BLAST_SATURATION })
        .links.length;
      const exposed = asset.is_internet_exposed || reachable.has(asset.id);
      scored.push({
        asset,
        exposed,
        score: assetRiskScore(worstRisk(open), { exposed, dependents: capped, open: open.length }),
      });
    }
    return scored.sort((x, y) =>
      y.score - x.score || compareCodePoints(x.asset.name, y.asset.name)
    );
  });
}

/**
 * The `find_assets sort_by=risk` key of an asset: [worst open finding risk
 * (0 when none) + 2.0 when flagged internet-exposed, open finding count].
 * Highest first by default.
 */
export function assetRiskSortKey(view: DatasetView, asset: Asset): [number, number] {
  const open = openFindings(view, asset.id);
  const worst = worstRisk(open);
  return [worst + (asset.is_internet_exposed ? 2 : 0), open.length];
}
