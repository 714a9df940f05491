/**
 * Automatic residual-unknown recording (REA's `unknown_registry_approved`,
 * spec §6.9): a tool whose input declares the flag, called with it set,
 * records in the registry what the call left unknown, atomically with the
 * call's own Evidence, which each unknown cites as support.
 *
 * - A derived result (call path, changed behaviour, static/runtime
 *   correlation, reconstruction verification, comparisons) that stayed
 *   incomplete is recorded at high severity.
 * - A truncated trace is recorded at medium severity.
 * - Any other limitation the call reported is recorded at low severity.
 * - A call refused because a capability is unavailable records that, in the
 *   domain `analysis-capability`, and still fails.
 *
 * Without the flag nothing is written, and the flag reaches no provider.
 *
 * @module
 */

import type { ToolDefinition, ToolOutcome } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { createEvidence, type EvidenceDraft } from "../../core/evidence.ts";
import { ANALYSIS_PREDICATE } from "../evidence.ts";
import {
  BUILD_CALL_PATH,
  COMPARE_ARTIFACTS,
  COMPARE_FUNCTIONS,
  COMPARE_PROCESS_CAPTURES,
  CORRELATE_STATIC_AND_RUNTIME,
  FIND_CHANGED_BEHAVIOR,
  TRACE_FEATURE,
  VERIFY_RECONSTRUCTION,
} from "../tool_names.ts";
import type { RecordUnknownInput, UnknownSeverity } from "../unknowns/registry.ts";
import type { AppsContext } from "./apps_context.ts";
import { translated, unknownLink } from "./unknown_support.ts";

/** The input flag that opts a call in. */
export const UNKNOWN_REGISTRY_FLAG = "unknown_registry_approved";
/** Most unknowns one call records. */
export const MAX_LEFT_UNKNOWNS = 10;

/** Tools whose results are derived conclusions: an incomplete one is a high-severity unknown. */
const DERIVED_DOMAINS: Readonly<Record<string, string>> = {
  [BUILD_CALL_PATH]: "call-path",
  [FIND_CHANGED_BEHAVIOR]: "changed-behavior",
  [CORRELATE_STATIC_AND_RUNTIME]: "static-runtime-correlation",
  [VERIFY_RECONSTRUCTION]: "reconstruction-verification",
  [COMPARE_FUNCTIONS]: "function-comparison",
  [COMPARE_PROCESS_CAPTURES]: "capture-comparison",
  [COMPARE_ARTIFACTS]: "artifact-comparison",
};

/** Failure codes that say a capability is missing rather than that the request was wrong. */
const CAPABILITY_CODES = new Set(["capability_unavailable", "provider_unavailable"]);

/** One question a call left open, before the registry derives the rest. */
export interface LeftUnknown {
  question: string;
  domain: string;
  severity: UnknownSeverity;
}

const MAX_QUESTION = 1000;

function clip(text: string): string {
  return text.length <= MAX_QUESTION ? text : `${text.slice(0, MAX_QUESTION - 1)}…`;
}

function where(result: unknown): string {
  const document = (result as { document?: unknown } | null)?.document;
  return typeof document === "string" && document.length > 0 ? ` on ${document}` : "";
}

/** What a successful call left unknown: its limitations, graded by what kind of tool it is. */
export function leftUnknownsOf(tool: string, draft: EvidenceDraft): LeftUnknown[] {
  const result = draft.normalized_result as Record<string, unknown> | null;
  const limitations = [...new Set(draft.limitations ?? [])];
  const derived = DERIVED_DOMAINS[tool];
  const truncatedTrace = tool === TRACE_FEATURE && result?.truncated === true;
  const severity: UnknownSeverity = derived ? "high" : truncatedTrace ? "medium" : "low";
  const domain = derived ?? (tool === TRACE_FEATURE ? "trace" : "analysis-capability");
  const found = limitations.map((limitation) => ({
    question: clip(`What did ${tool}${where(result)} leave unknown? ${limitation}`),
    domain,
    severity,
  }));
  if (truncatedTrace && found.length === 0) {
    found.push({
      question: clip(`What lies beyond the truncated ${tool}${where(result)} trace?`),
      domain,
      severity,
    });
  }
  return found.slice(0, MAX_LEFT_UNKNOWNS);
}

function asInput(unknown: LeftUnknown, support: string[]): RecordUnknownInput {
  return {
    ...unknown,
    supporting_evidence_ids: support,
    contradicting_evidence_ids: [],
    required_authority: null,
    required_confidence: "observed",
    required_environment: null,
    recommended_probes: [],
    relationships: [],
  };
}

async function recordFailure(
  context: AppsContext,
  tool: string,
  failure: ToolFailure,
): Promise<ToolFailure> {
  const recorded = await translated(() =>
    context.unknowns.recordDerived([asInput({
      question: clip(`Which capability would let ${tool} answer? ${failure.message}`),
      domain: "analysis-capability",
      severity: "medium",
    }, [])])
  );
  const body = failure.body;
  return new ToolFailure(failure.code, failure.message, {
    category: body.category,
    retryable: body.retryable,
    action: body.remediation.action,
    restartRequired: body.remediation.restart_required,
    details: { ...body.details, unknown_ids: recorded.map((entry) => entry.unknown_id) },
  });
}

/**
 * `tool`, recording what each call left unknown when the call sets
 * `unknown_registry_approved` (a tool whose input lacks the flag is returned
 * as it is).
 */
export function recordingLeftUnknowns(context: AppsContext, tool: ToolDefinition): ToolDefinition {
  if (!(UNKNOWN_REGISTRY_FLAG in tool.input.shape)) return tool;
  return {
    ...tool,
    run: async (args, call): Promise<ToolOutcome> => {
      if ((args as Record<string, unknown>)[UNKNOWN_REGISTRY_FLAG] !== true) {
        return tool.run(args, call);
      }
      let outcome: ToolOutcome;
      try {
        outcome = await tool.run(args, call);
      } catch (error) {
        if (error instanceof ToolFailure && CAPABILITY_CODES.has(error.code)) {
          throw await recordFailure(context, tool.name, error);
        }
        throw error;
      }
      if (outcome.kind !== "evidence") return outcome;
      const left = leftUnknownsOf(tool.name, outcome.draft as EvidenceDraft);
      if (left.length === 0) return outcome;
      if (call.signal.aborted) throw new ToolFailure("cancelled", `${tool.name} was cancelled.`);
      const record = await createEvidence({
        ...outcome.draft,
        predicate_type: outcome.draft.predicate_type ?? ANALYSIS_PREDICATE,
      });
      const recorded = await translated(() =>
        context.unknowns.recordDerived(
          left.map((unknown) => asInput(unknown, [record.evidence_id])),
          { derived: [record] },
        )
      );
      return {
        kind: "recorded",
        evidence: record,
        result: record.normalized_result,
        links: recorded.map((entry) => unknownLink(entry.head)),
      };
    },
  };
}
