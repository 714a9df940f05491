/**
 * REA's static/runtime correlation contract: explicit hypotheses, each
 * tying one dimension of a static comparison (a function comparison's
 * dimension, or one path of an artifact comparison) to one dimension of a
 * process-capture comparison, with the pattern the analyst expects
 * (both changed, only one, neither). Each is evaluated against the two
 * comparisons: supported, contradicted, or unknown when either side cannot
 * say.
 *
 * @module
 */

/** The change patterns a hypothesis may expect. */
export type ChangePattern = "cochanged" | "static_only" | "runtime_only" | "both_unchanged";

/** Whether one side changed. */
export type SideStatus = "changed" | "unchanged" | "unknown";

/** One mapping as REA states it. */
export interface HypothesisMapping {
  static: {
    comparison_evidence_id: string;
    selector: { kind: "artifact"; logical_path: string } | { kind: "function"; dimension: string };
  };
  runtime: { comparison_evidence_id: string; dimension: string };
  side_alignment: "left_to_left" | "left_to_right";
  hypothesis: { statement: string; expected_pattern: ChangePattern };
}

/** A comparison record as the evaluation reads it. */
export interface ComparisonRecord {
  evidence_id: string;
  operation: string;
  normalized_result: unknown;
}

/** One evaluated hypothesis. */
export interface HypothesisResult {
  statement: string;
  expected_pattern: ChangePattern;
  observed_pattern: ChangePattern | null;
  status: "supported" | "contradicted" | "unknown";
  static_status: SideStatus;
  runtime_status: SideStatus;
  side_alignment: "left_to_left" | "left_to_right";
  static_evidence_id: string;
  runtime_evidence_id: string;
  reason: string;
}

/** REA's function dimensions, as Casefile's compare_functions names them (null: not compared). */
const FUNCTION_DIMENSIONS: Readonly<Record<string, string | null>> = {
  identity: "size",
  assembly: "instruction_sequence",
  calls: "callees",
  strings_names: "referenced_strings",
  cfg: "basic_blocks",
  pseudocode: null,
  comments: null,
  references: null,
};

function staticStatus(
  record: ComparisonRecord,
  selector: HypothesisMapping["static"]["selector"],
): { status: SideStatus; reason: string } {
  const result = record.normalized_result as Record<string, unknown> | null;
  if (selector.kind === "function") {
    const ours = FUNCTION_DIMENSIONS[selector.dimension];
    if (!ours) {
      return {
        status: "unknown",
        reason: `function dimension ${selector.dimension} is not compared`,
      };
    }
    const dimensions = (result?.dimensions ?? []) as { name: string; verdict: string }[];
    const found = dimensions.find((d) => d.name === ours);
    if (!found || found.verdict === "unknown") {
      return { status: "unknown", reason: `the function comparison cannot say about ${ours}` };
    }
    return { status: found.verdict === "equal" ? "unchanged" : "changed", reason: "" };
  }
  const changes = (result?.changes as { items?: { logical_path: string; status: string }[] })
    ?.items ?? [];
  const change = changes.find((c) => c.logical_path === selector.logical_path);
  if (!change || change.status === "unknown") {
    return {
      status: "unknown",
      reason: `${selector.logical_path} is not on the artifact comparison's page`,
    };
  }
  return { status: change.status === "unchanged" ? "unchanged" : "changed", reason: "" };
}

function runtimeStatus(record: ComparisonRecord, dimension: string): SideStatus {
  const result = record.normalized_result as Record<string, unknown> | null;
  const status = result?.[dimension];
  if (status === "unchanged") return "unchanged";
  if (status === "added" || status === "removed" || status === "changed") return "changed";
  return "unknown";
}

function patternOf(staticSide: SideStatus, runtimeSide: SideStatus): ChangePattern | null {
  if (staticSide === "unknown" || runtimeSide === "unknown") return null;
  if (staticSide === "changed") return runtimeSide === "changed" ? "cochanged" : "static_only";
  return runtimeSide === "changed" ? "runtime_only" : "both_unchanged";
}

/**
 * Evaluates each mapping against the comparisons given (looked up by id);
 * a mapping naming a comparison that is not given is an error.
 */
export function evaluateHypotheses(
  mappings: readonly HypothesisMapping[],
  comparisons: { static: readonly ComparisonRecord[]; runtime: readonly ComparisonRecord[] },
): HypothesisResult[] {
  const find = (records: readonly ComparisonRecord[], id: string, side: string) => {
    const record = records.find((r) => r.evidence_id === id);
    if (!record) {
      throw new RangeError(
        `The ${side} comparison ${id} is not among the ${side}_comparisons given.`,
      );
    }
    return record;
  };
  return mappings.map((mapping) => {
    const staticRecord = find(comparisons.static, mapping.static.comparison_evidence_id, "static");
    const runtimeRecord = find(
      comparisons.runtime,
      mapping.runtime.comparison_evidence_id,
      "runtime",
    );
    const side = staticStatus(staticRecord, mapping.static.selector);
    const runtime = runtimeStatus(runtimeRecord, mapping.runtime.dimension);
    const observed = patternOf(side.status, runtime);
    const expected = mapping.hypothesis.expected_pattern;
    return {
      statement: mapping.hypothesis.statement,
      expected_pattern: expected,
      observed_pattern: observed,
      status: observed === null ? "unknown" : observed === expected ? "supported" : "contradicted",
      static_status: side.status,
      runtime_status: runtime,
      side_alignment: mapping.side_alignment,
      static_evidence_id: staticRecord.evidence_id,
      runtime_evidence_id: runtimeRecord.evidence_id,
      reason: observed !== null
        ? ""
        : side.status === "unknown"
        ? side.reason
        : `the capture comparison's ${mapping.runtime.dimension} dimension is not a known change`,
    };
  });
}
