/**
 * Changed-behaviour aggregation: which retained process comparisons found a
 * change, and in which dimensions. Only complete, compatible comparison
 * Evidence counts: the record must have the comparison identity, a
 * consistent result, links equal to its two sources, sources that are valid
 * v4 captures under one contract and one environment, and no dimension left
 * truncated or unknown. Every other record is listed as excluded, with why.
 *
 * @module
 */

import { canonicalJson } from "../../core/canonical_json.ts";
import type { EvidenceRecord } from "../../core/evidence.ts";
import {
  COMPARISON_PREDICATE,
  comparisonIsConsistent,
  type ComparisonResult,
  type Dimension,
  DIMENSIONS,
} from "./compare.ts";
import { CAPTURE_PREDICATE, PROCESS_PROVIDER, validateCapture } from "./result.ts";

/** The operation names involved. */
export const CAPTURE_OPERATION = "capture_process_scenario";
/** The comparison tool's operation. */
export const COMPARE_OPERATION = "compare_process_captures";

/** One included comparison. */
export interface ChangedEntry {
  comparison_evidence_id: string;
  left_evidence_id: string;
  right_evidence_id: string;
  status: "changed" | "unchanged";
  changed_dimensions: Dimension[];
  /** Dimensions neither side could observe (e.g. no syscall trace under gdb): said nothing either way. */
  undetermined_dimensions: Dimension[];
  first_divergence: ComparisonResult["first_divergence"];
  /** Procedures a crash of either capture was correlated to (correlate_static_and_runtime). */
  crash_procedures: CrashProcedure[];
}

/** A procedure a crash frame of a capture correlates to. */
export interface CrashProcedure {
  capture_evidence_id: string;
  correlation_evidence_id: string;
  document: string | null;
  /** The correlated (default or chosen) frame's procedure. */
  address: string;
  name: string | null;
  frame: number | null;
  /** Every other backtrace frame's procedure in the same file, innermost first. */
  caller_procedures: { frame: number; address: string; name: string | null }[];
}

/** The aggregation. */
export interface ChangedBehavior {
  considered: number;
  included: ChangedEntry[];
  excluded: { evidence_id: string; reason: string }[];
  /** How many included comparisons changed in each dimension. */
  by_dimension: Record<Dimension, number>;
  changed_count: number;
  unchanged_count: number;
}

/**
 * Why a comparison record does not count (null when it is complete and
 * compatible). `lookup` reads the session's other records.
 */
export function comparisonExclusion(
  record: EvidenceRecord,
  lookup: (id: string) => EvidenceRecord | undefined,
): string | null {
  if (record.operation !== COMPARE_OPERATION) return `operation is ${record.operation}`;
  if (record.predicate_type !== COMPARISON_PREDICATE) {
    return `predicate is ${record.predicate_type}`;
  }
  if (record.provider.id !== PROCESS_PROVIDER.id || record.provider.version !== "3") {
    return "provider is not rea-process version 3";
  }
  if (record.confidence !== "derived" || record.authority !== "analyst-inference") {
    return "not derived analyst-inference Evidence";
  }
  if (record.subject !== null) return "a comparison has no subject";
  if (!comparisonIsConsistent(record.normalized_result)) {
    return "the result is malformed or its status does not derive from its dimensions";
  }
  const result = record.normalized_result as unknown as ComparisonResult;
  const left = record.parameters.left_evidence_id;
  const right = record.parameters.right_evidence_id;
  if (typeof left !== "string" || typeof right !== "string" || left === right) {
    return "parameters do not name two distinct sources";
  }
  const links = [...record.evidence_links].sort();
  if (canonicalJson(links) !== canonicalJson([left, right].sort())) {
    return "evidence_links are not exactly the two sources";
  }
  const sources = [lookup(left), lookup(right)];
  const captures = [];
  for (const [i, source] of sources.entries()) {
    const id = i === 0 ? left : right;
    if (!source) return `source ${id} is not retained`;
    if (source.operation !== CAPTURE_OPERATION || source.predicate_type !== CAPTURE_PREDICATE) {
      return `source ${id} is not a v4 process capture`;
    }
    if (source.authority !== "controlled-replay" || source.confidence !== "observed") {
      return `source ${id} lacks controlled-replay observed authority`;
    }
    const validation = validateCapture(source.normalized_result);
    if (!validation.valid) return `source ${id} fails v4 validation: ${validation.reason}`;
    captures.push({ source, capture: validation.capture });
  }
  const [a, b] = captures as [typeof captures[0], typeof captures[0]];
  if (
    a.capture.manifest.comparison_contract_sha256 !== b.capture.manifest.comparison_contract_sha256
  ) {
    return "the sources were captured under different contracts";
  }
  if (result.comparison_contract_sha256 !== a.capture.manifest.comparison_contract_sha256) {
    return "the comparison names another contract than its sources";
  }
  if (
    a.source.environment === null || b.source.environment === null ||
    canonicalJson(a.source.environment) !== canonicalJson(b.source.environment)
  ) {
    return "the sources ran in different (or unknown) environments";
  }
  const truncated = DIMENSIONS.filter((d) => result[d] === "truncated");
  if (truncated.length > 0) return `incomplete in ${truncated.join(", ")} (truncated)`;
  // A change seen in one dimension stands even where another could not be observed.
  const unknown = DIMENSIONS.filter((d) => result[d] === "unknown");
  if (unknown.length > 0 && result.status !== "changed") {
    return `incomplete in ${unknown.join(", ")} (unknown) and unchanged elsewhere`;
  }
  return null;
}

/** The correlation operation whose Evidence names crash procedures. */
export const CORRELATE_OPERATION = "correlate_static_and_runtime";

/** Procedures the retained correlations tie to crashes of `captureIds`. */
export function crashProcedures(
  captureIds: readonly string[],
  records: readonly EvidenceRecord[],
): CrashProcedure[] {
  const out: CrashProcedure[] = [];
  for (const record of records) {
    if (record.operation !== CORRELATE_OPERATION) continue;
    const capture = record.evidence_links.find((id) => captureIds.includes(id));
    if (!capture) continue;
    const result = record.normalized_result as {
      document?: unknown;
      procedure?: { address?: unknown; name?: unknown } | null;
      frame?: { index?: unknown } | null;
      frames?: { index: number; procedure: { address: string; name: string | null } | null }[];
    };
    const procedure = result.procedure;
    if (!procedure || typeof procedure.address !== "string") continue;
    const chosen = typeof result.frame?.index === "number" ? result.frame.index : null;
    out.push({
      capture_evidence_id: capture,
      correlation_evidence_id: record.evidence_id,
      document: typeof result.document === "string" ? result.document : null,
      address: procedure.address,
      name: typeof procedure.name === "string" && procedure.name !== "" ? procedure.name : null,
      frame: chosen,
      caller_procedures: (Array.isArray(result.frames) ? result.frames : [])
        .filter((f) => f.procedure !== null && f.index !== chosen)
        .map((f) => ({ frame: f.index, address: f.procedure!.address, name: f.procedure!.name })),
    });
  }
  return out;
}

/** Aggregates `records` (comparison candidates); sources are read through `lookup`. */
export function findChangedBehavior(
  records: readonly EvidenceRecord[],
  lookup: (id: string) => EvidenceRecord | undefined,
  correlations: readonly EvidenceRecord[] = [],
): ChangedBehavior {
  const included: ChangedEntry[] = [];
  const excluded: ChangedBehavior["excluded"] = [];
  const byDimension = Object.fromEntries(DIMENSIONS.map((d) => [d, 0])) as Record<
    Dimension,
    number
  >;
  for (const record of records) {
    const reason = comparisonExclusion(record, lookup);
    if (reason) {
      excluded.push({ evidence_id: record.evidence_id, reason });
      continue;
    }
    const result = record.normalized_result as unknown as ComparisonResult;
    const changed = DIMENSIONS.filter((d) => result[d] !== "unchanged" && result[d] !== "unknown");
    for (const d of changed) byDimension[d]++;
    const left = record.parameters.left_evidence_id as string;
    const right = record.parameters.right_evidence_id as string;
    included.push({
      comparison_evidence_id: record.evidence_id,
      left_evidence_id: left,
      right_evidence_id: right,
      status: result.status === "unchanged" ? "unchanged" : "changed",
      changed_dimensions: changed,
      undetermined_dimensions: DIMENSIONS.filter((d) => result[d] === "unknown"),
      first_divergence: result.first_divergence,
      crash_procedures: crashProcedures([left, right], correlations),
    });
  }
  return {
    considered: records.length,
    included,
    excluded,
    by_dimension: byDimension,
    changed_count: included.filter((e) => e.status === "changed").length,
    unchanged_count: included.filter((e) => e.status === "unchanged").length,
  };
}
