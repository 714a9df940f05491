/**
 * Test helper: the arguments of a valid `record_unknown` call.
 *
 * @module
 */

/** A valid, approved `record_unknown` argument object asking `question`, with `overrides` applied. */
export function recordUnknownArgs(
  question: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    approved: true,
    question,
    domain: "process-file",
    severity: "medium",
    required_authority: null,
    required_confidence: "observed",
    required_environment: null,
    recommended_probes: [{ operation: "capture_process_scenario", rationale: "Trace its opens." }],
    relationships: [],
    ...overrides,
  };
}
