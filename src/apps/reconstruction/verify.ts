/**
 * Reconstruction verification: each claim of a specification (see
 * `specification.ts`) is checked against one retained comparison record and the sources it links, and
 * classified pass, fail or unknown. A pass covers its claim and dimension
 * only; it never means the two sides are equivalent overall.
 *
 * @module
 */

import { canonicalJson } from "../../core/canonical_json.ts";
import type { EvidenceRecord } from "../../core/evidence.ts";
import { compareCodePoints } from "../../core/completion.ts";
import {
  type Claim,
  type ClaimKind,
  type ReconstructionSpecification,
  specificationDigest,
} from "./specification.ts";

/** An unknown head as the verifier reads it. */
export interface UnknownHeadView {
  unknown_id: string;
  status: string;
  supporting_evidence_ids: readonly string[];
  contradicting_evidence_ids: readonly string[];
  relationships: ReadonlyArray<{ type: string; unknown_id: string }>;
  recommended_probes: ReadonlyArray<{ operation: string; rationale: string }>;
}

/** What the verifier reads from the session. */
export interface VerificationInputs {
  record(id: string): EvidenceRecord | undefined;
  unknownHeads(): readonly UnknownHeadView[];
  /** The full Process Capture v4 validation. */
  isValidCapture(result: unknown): boolean;
  /** Whether an inventory page passes its schema. */
  isValidInventory(result: unknown): boolean;
  /** Whether a dossier passes its schema. */
  isValidDossier(result: unknown): boolean;
  /** Re-derives a process comparison's overall status from its dimensions (null if it cannot). */
  deriveBehavioralStatus(result: unknown): string | null;
}

/** A claim that cannot be evaluated at all: the whole verification fails. */
export class VerificationIntegrityError extends Error {
  constructor(claimId: string, message: string) {
    super(`Claim ${claimId}: ${message}`);
    this.name = "VerificationIntegrityError";
  }
}

/** The identity a comparison record must have for each kind. */
export const COMPARISON_IDENTITIES: Record<
  ClaimKind,
  {
    operation: string;
    predicates: string[];
    provider: string;
    version: string;
    source: { operation: string; predicate: string };
  }
> = {
  behavioral: {
    operation: "compare_process_captures",
    predicates: ["rea.process-comparison/v3", "rea.process-comparison/v4"],
    provider: "rea-process",
    version: "3",
    source: { operation: "capture_process_scenario", predicate: "rea.process-capture/v4" },
  },
  "structural-function": {
    operation: "compare_functions",
    predicates: ["rea.function-comparison/v1"],
    provider: "casefile-function-comparison",
    version: "1",
    source: { operation: "analyze_function", predicate: "rea.analysis/v2" },
  },
  "structural-artifact": {
    operation: "compare_artifacts",
    predicates: ["rea.artifact-comparison/v1"],
    provider: "rea-artifact-comparison",
    version: "1",
    source: { operation: "inventory_artifact", predicate: "rea.analysis/v2" },
  },
};

const DEFAULT_PROBES: Record<ClaimKind, { operation: string; rationale: string }> = {
  behavioral: {
    operation: "capture_process_scenario",
    rationale:
      "Capture both sides again under one complete, compatible scenario, then compare them.",
  },
  "structural-function": {
    operation: "analyze_function",
    rationale: "Build both dossiers again with identical, larger limits, then compare them.",
  },
  "structural-artifact": {
    operation: "inventory_artifact",
    rationale: "Inventory both sides completely (every page), then compare the full page sets.",
  },
};

/** One evaluated claim. */
export interface ClaimResult {
  claim_id: string;
  kind: ClaimKind;
  dimension: string;
  status: "pass" | "fail" | "unknown";
  observed_status: string;
  comparison_evidence_id: string;
  left_evidence_ids: string[];
  right_evidence_ids: string[];
  evidence_links: string[];
  unknown_ids: string[];
  limitations: string[];
}

/** The verification before paging. */
export interface Verification {
  status: "pass" | "fail" | "unknown";
  specification_sha256: string;
  summary: {
    total: number;
    passed: number;
    failed: number;
    unknown: number;
    behavioral: number;
    structural: number;
  };
  claims: ClaimResult[];
  recommended_probes: Array<
    { operation: string; rationale: string; claim_ids: string[]; unknown_ids: string[] }
  >;
  evidence_links: string[];
  limitations: string[];
}

/** Evaluates every claim; throws VerificationIntegrityError when a claim's records are not what it needs. */
export function verifySpecification(
  spec: ReconstructionSpecification,
  inputs: VerificationInputs,
): Verification {
  const claims = [...spec.claims].sort((a, b) => compareCodePoints(a.claim_id, b.claim_id));
  const heads = inputs.unknownHeads().filter((h) => h.status !== "resolved");
  const results = claims.map((claim) => evaluateClaim(claim, inputs, heads));
  const probes = new Map<
    string,
    { operation: string; rationale: string; claim_ids: Set<string>; unknown_ids: Set<string> }
  >();
  for (const result of results) {
    if (result.status !== "unknown") continue;
    const relevant = heads.filter((h) => result.unknown_ids.includes(h.unknown_id));
    const proposed = relevant.flatMap((h) =>
      h.recommended_probes.map((p) => ({ ...p, unknown_id: h.unknown_id }))
    );
    const list = proposed.length > 0
      ? proposed
      : [{ ...DEFAULT_PROBES[result.kind], unknown_id: null }];
    for (const probe of list) {
      const key = `${probe.operation}\u0000${probe.rationale}`;
      const entry = probes.get(key) ??
        {
          operation: probe.operation,
          rationale: probe.rationale,
          claim_ids: new Set(),
          unknown_ids: new Set(),
        };
      entry.claim_ids.add(result.claim_id);
      if (probe.unknown_id) entry.unknown_ids.add(probe.unknown_id);
      probes.set(key, entry);
    }
  }
  const limitations = [
    "A pass holds only for its claim and dimension, on the recorded comparison; it is not a proof that the two sides are equivalent.",
  ];
  let recommended = [...probes.values()]
    .map((p) => ({
      operation: p.operation,
      rationale: p.rationale,
      claim_ids: [...p.claim_ids].sort(compareCodePoints),
      unknown_ids: [...p.unknown_ids].sort(compareCodePoints),
    }))
    .sort((a, b) =>
      compareCodePoints(a.operation, b.operation) || compareCodePoints(a.rationale, b.rationale)
    );
  if (recommended.length > 2000) {
    limitations.push(
      `${recommended.length - 2000} recommended probes were left out (at most 2000 are listed).`,
    );
    recommended = recommended.slice(0, 2000);
  }
  const links = new Set<string>();
  for (const result of results) for (const id of result.evidence_links) links.add(id);
  const summary = {
    total: results.length,
    passed: results.filter((r) => r.status === "pass").length,
    failed: results.filter((r) => r.status === "fail").length,
    unknown: results.filter((r) => r.status === "unknown").length,
    behavioral: results.filter((r) => r.kind === "behavioral").length,
    structural: results.filter((r) => r.kind !== "behavioral").length,
  };
  return {
    status: summary.failed > 0 ? "fail" : summary.unknown > 0 ? "unknown" : "pass",
    specification_sha256: specificationDigest(spec),
    summary,
    claims: results,
    recommended_probes: recommended,
    evidence_links: [...links].sort(compareCodePoints).slice(0, 20_100),
    limitations,
  };
}

function evaluateClaim(
  claim: Claim,
  inputs: VerificationInputs,
  heads: readonly UnknownHeadView[],
): ClaimResult {
  const identity = COMPARISON_IDENTITIES[claim.kind];
  const fail = (message: string): never => {
    throw new VerificationIntegrityError(claim.claim_id, message);
  };
  const comparison = inputs.record(claim.comparison_evidence_id) ??
    fail(`comparison Evidence ${claim.comparison_evidence_id} is not retained in this session.`);
  if (comparison.operation !== identity.operation) {
    fail(`${comparison.evidence_id} records ${comparison.operation}, not ${identity.operation}.`);
  }
  if (!identity.predicates.includes(comparison.predicate_type)) {
    fail(
      `${comparison.evidence_id} has predicate ${comparison.predicate_type}, not ${
        identity.predicates.join(" or ")
      }.`,
    );
  }
  if (
    comparison.provider.id !== identity.provider || comparison.provider.version !== identity.version
  ) {
    fail(
      `${comparison.evidence_id} comes from provider ${comparison.provider.id} ${comparison.provider.version}, not ${identity.provider} ${identity.version}.`,
    );
  }
  if (
    comparison.confidence !== "derived" || comparison.authority !== "analyst-inference" ||
    comparison.subject !== null
  ) {
    fail(`${comparison.evidence_id} is not a derived analyst-inference record without a subject.`);
  }
  const parameters = comparison.parameters;
  const asList = (value: unknown): string[] =>
    Array.isArray(value)
      ? value.filter((v): v is string => typeof v === "string")
      : typeof value === "string"
      ? [value]
      : [];
  const left = asList(parameters.left_evidence_ids ?? parameters.left_evidence_id);
  const right = asList(parameters.right_evidence_ids ?? parameters.right_evidence_id);
  if (left.length < 1 || right.length < 1 || left.length > 100 || right.length > 100) {
    fail("the comparison does not name 1–100 sources on each side.");
  }
  const sources = [...left, ...right];
  if (new Set(sources).size !== sources.length) fail("the comparison names a source twice.");
  const linked = new Set(comparison.evidence_links);
  if (linked.size !== sources.length || sources.some((id) => !linked.has(id))) {
    fail("the comparison's evidence_links are not exactly its sources.");
  }
  const records = sources.map((id) =>
    inputs.record(id) ?? fail(`source ${id} is not retained in this session.`)
  );
  for (const source of records) {
    if (
      source.operation !== identity.source.operation ||
      source.predicate_type !== identity.source.predicate
    ) {
      fail(
        `source ${source.evidence_id} records ${source.operation} (${source.predicate_type}), not ${identity.source.operation}.`,
      );
    }
    const valid = claim.kind === "behavioral"
      ? inputs.isValidCapture(source.normalized_result)
      : claim.kind === "structural-function"
      ? inputs.isValidDossier(source.normalized_result)
      : inputs.isValidInventory(source.normalized_result);
    if (!valid) fail(`source ${source.evidence_id} does not pass its result schema.`);
  }

  const limitations: string[] = [];
  const result = comparison.normalized_result as Record<string, unknown> | null;
  let observed = observedStatus(claim, result, inputs, fail, limitations);
  const unreached = claim.kind === "structural-artifact"
    ? uncoveredInventories(records, left.length)
    : [];
  limitations.push(...unreached);

  // Authority: what the sources can vouch for.
  let authorityLimited = false;
  for (const source of records) {
    if (claim.kind === "behavioral") {
      if (source.authority !== "controlled-replay" || source.confidence !== "observed") {
        authorityLimited = true;
        limitations.push(`${source.evidence_id} is not an observed controlled replay.`);
      }
    } else {
      if (source.subject === null) {
        authorityLimited = true;
        limitations.push(`${source.evidence_id} has no subject.`);
      }
      if (source.authority !== "shipped-artifact") {
        authorityLimited = true;
        limitations.push(`${source.evidence_id} is not shipped-artifact Evidence.`);
      }
      if (claim.kind === "structural-function" && source.confidence === "inferred") {
        authorityLimited = true;
        limitations.push(`${source.evidence_id} is only inferred.`);
      }
      if (claim.kind === "structural-artifact" && source.confidence !== "observed") {
        authorityLimited = true;
        limitations.push(`${source.evidence_id} is not observed.`);
      }
    }
  }
  if (claim.kind === "behavioral") {
    const environments = records.map((r) => r.environment);
    if (
      environments.some((e) => e === null) ||
      new Set(environments.map((e) => canonicalJson(e))).size !== 1
    ) {
      authorityLimited = true;
      limitations.push("The captures do not share one recorded environment.");
    }
  }

  // Unknowns that touch the comparison or its sources, and those they depend on or contradict.
  const touched = new Set([comparison.evidence_id, ...sources]);
  const byId = new Map(heads.map((h) => [h.unknown_id, h]));
  const relevant = new Set<string>();
  const queue = heads
    .filter((h) =>
      [...h.supporting_evidence_ids, ...h.contradicting_evidence_ids].some((id) => touched.has(id))
    )
    .map((h) => h.unknown_id);
  while (queue.length > 0) {
    const id = queue.pop()!;
    if (relevant.has(id)) continue;
    relevant.add(id);
    for (const rel of byId.get(id)?.relationships ?? []) {
      if ((rel.type === "depends-on" || rel.type === "contradicts") && byId.has(rel.unknown_id)) {
        queue.push(rel.unknown_id);
      }
    }
  }
  const unknownIds = [...relevant].sort(compareCodePoints);
  if (unknownIds.length > 100) {
    limitations.push(`${unknownIds.length - 100} further relevant unknowns are not listed.`);
  }

  let status: ClaimResult["status"];
  if (authorityLimited) status = "unknown";
  // A side that never reached some paths can neither show them unchanged nor changed.
  else if (unreached.length > 0 && observed !== "contradiction") status = "unknown";
  else if (["changed", "added", "removed", "contradiction", "different"].includes(observed)) {
    status = "fail";
  } else if (observed === "unknown" || observed === "truncated" || unknownIds.length > 0) {
    status = "unknown";
  } else if (observed === "unchanged" || observed === "equal") status = "pass";
  else {
    limitations.push(
      `The observed status ${observed} is not one the rules classify; treated as unknown.`,
    );
    observed = observed || "unknown";
    status = "unknown";
  }
  return {
    claim_id: claim.claim_id,
    kind: claim.kind,
    dimension: claim.dimension,
    status,
    observed_status: observed,
    comparison_evidence_id: comparison.evidence_id,
    left_evidence_ids: left,
    right_evidence_ids: right,
    evidence_links: [comparison.evidence_id, ...sources],
    unknown_ids: unknownIds.slice(0, 100),
    limitations,
  };
}

/**
 * One note per side whose inventory did not cover its whole artifact (its
 * manifest is incomplete: a traversal limit stopped the walk, or a member
 * could not be read): the paths it never reached are unknown.
 */
function uncoveredInventories(records: readonly EvidenceRecord[], leftCount: number): string[] {
  const notes = new Set<string>();
  for (const [index, source] of records.entries()) {
    const manifest = (source.normalized_result as {
      manifest?: { manifest_id?: unknown; complete?: unknown };
    } | null)?.manifest;
    if (manifest?.complete !== false) continue;
    notes.add(
      `The ${index < leftCount ? "left" : "right"} inventory (manifest ${
        String(manifest.manifest_id)
      }) did not cover its whole artifact (a traversal limit such as max_entries, max_total_bytes or max_depth stopped it, or a member could not be read; see its Evidence limitations): the paths it never reached are neither unchanged nor changed, so the claim is unknown.`,
    );
  }
  return [...notes];
}

function observedStatus(
  claim: Claim,
  result: Record<string, unknown> | null,
  inputs: VerificationInputs,
  fail: (message: string) => never,
  limitations: string[],
): string {
  if (result === null || typeof result !== "object") fail("the comparison has no result.");
  if (claim.kind === "behavioral") {
    const overall = String(result!.status ?? "");
    const derived = inputs.deriveBehavioralStatus(result);
    if (derived === null || derived !== overall) {
      fail("the comparison's overall status does not follow from its dimensions.");
    }
    if (claim.dimension === "overall") return overall;
    return dimensionStatus(result!.dimensions, claim.dimension) ??
      fail(`the comparison has no ${claim.dimension} dimension.`);
  }
  if (claim.kind === "structural-function") {
    const map: Record<string, string> = {
      "equal-in-every-dimension": "unchanged",
      equal: "unchanged",
      different: "changed",
      unknown: "unknown",
    };
    if (claim.dimension === "overall") return map[String(result!.verdict)] ?? "unknown";
    const dims = Array.isArray(result!.dimensions)
      ? result!.dimensions as Array<Record<string, unknown>>
      : [];
    const dim = dims.find((d) => d.name === claim.dimension) ??
      fail(`the comparison has no ${claim.dimension} dimension.`);
    return map[String(dim.verdict)] ?? "unknown";
  }
  const status = String(result!.status ?? "unknown");
  const changes = result!.changes as {
    offset?: number;
    next_offset?: number | null;
    items?: unknown[];
    total?: number;
  } | undefined;
  const onePage = changes !== undefined && changes.offset === 0 && changes.next_offset === null &&
    Array.isArray(changes.items) && changes.items.length === changes.total;
  if (!onePage) {
    limitations.push(partialChangeList(changes, result!.summary));
    return "unknown";
  }
  return status;
}

/** The most changes one compare_artifacts page lists. */
const MAX_CHANGES_PER_PAGE = 500;

/**
 * Why a comparison whose change list is split over pages does not count, and
 * which single-page comparison would: offset 0 and a limit covering every
 * listed path (only the paths that are not unchanged when include_unchanged
 * is false).
 */
function partialChangeList(
  changes: { offset?: number; items?: unknown[]; total?: number } | undefined,
  summary: unknown,
): string {
  const start = "The comparison's change list is not complete on one page";
  if (changes === undefined || typeof changes.total !== "number") {
    return `${start}, so its status cannot be read as final.`;
  }
  const shown = Array.isArray(changes.items) ? changes.items.length : 0;
  const from = changes.offset ?? 0;
  const seen = shown === 0
    ? `it lists none of its ${changes.total} paths from offset ${from}`
    : `it lists paths ${from + 1}–${from + shown} of ${changes.total}`;
  const counts = summary !== null && typeof summary === "object"
    ? summary as Record<string, unknown>
    : {};
  const listed = ["added", "removed", "changed", "moved", "unknown"]
    .map((key) => counts[key])
    .reduce<number | null>(
      (sum, n) => sum === null || typeof n !== "number" ? null : sum + n,
      0,
    );
  const need = listed ?? changes.total;
  const remedy = need > MAX_CHANGES_PER_PAGE
    ? `${need} paths are not unchanged, more than one page holds (${MAX_CHANGES_PER_PAGE}), so a claim on these inventories stays unknown`
    : `call compare_artifacts again on the same inventories with offset 0 and limit ${
      Math.max(need, 1)
    }${listed === null ? "" : " (include_unchanged false)"}, and cite that comparison`;
  return `${start} (${seen}), so its status cannot be read as final: ${remedy}.`;
}

function dimensionStatus(dimensions: unknown, name: string): string | null {
  if (Array.isArray(dimensions)) {
    const found = dimensions.find((d) => d && (d.name === name || d.dimension === name));
    return found ? String(found.status ?? found.verdict ?? "") : null;
  }
  if (dimensions && typeof dimensions === "object") {
    const found = (dimensions as Record<string, unknown>)[name];
    if (found && typeof found === "object") {
      return String((found as Record<string, unknown>).status ?? "");
    }
    if (typeof found === "string") return found;
  }
  return null;
}
