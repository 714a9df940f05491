/**
 * `compare_process_captures`: two captures compared.
 *
 * @module
 */

import { z } from "zod";
import type { JsonObject } from "../../core/canonical_json.ts";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { compareCaptures, COMPARISON_PREDICATE, IncompatibleCaptures } from "../capture/compare.ts";
import { PROCESS_PROVIDER } from "../capture/result.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { retainedCapture } from "../context/capture_support.ts";
import { compareCapturesResultSchema } from "../schemas/capture_results.ts";
import { EVIDENCE_ID_FIELD, unknownRegistryApprovedField } from "../schemas/inputs.ts";
import { COMPARE_PROCESS_CAPTURES } from "../tool_names.ts";

/** Compares two retained captures made under the same contract, dimension by dimension. */
export function compareProcessCapturesTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: COMPARE_PROCESS_CAPTURES,
    toolset: "capture",
    description:
      "Compare two retained Process Capture v4 records made under the same comparison contract, dimension by dimension: terminal output, interaction, exit, filesystem effects, protocol (connection attempts), processes and shims, each after its own normalisation. Each dimension and the overall status is unchanged, added, removed, changed, truncated or unknown; a truncated side is never called unchanged. Starts nothing.",
    input: z.strictObject({
      left_evidence_id: EVIDENCE_ID_FIELD.describe("The baseline capture's Evidence id."),
      right_evidence_id: EVIDENCE_ID_FIELD.describe("The other capture's Evidence id."),
      max_capture_age_ms: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional()
        .describe("Refuse captures completed longer ago than this."),
      trace_spec: z.looseObject({
        events: z.array(z.looseObject({
          id: z.string().regex(/^[A-Za-z][A-Za-z0-9._-]{0,63}$/),
          source: z.string().min(1),
          exact: z.unknown(),
        })).min(1).max(256),
        language: z.unknown(),
      }).optional().describe(
        "REA's expected-event trace over both captures. Accepted but not evaluated here: the comparison is by dimension only, and the result's limitations say so.",
      ),
      unknown_registry_approved: unknownRegistryApprovedField,
    }),
    result: compareCapturesResultSchema,
    ...RECORDS_EVIDENCE,
    run: (args) => {
      const leftId = args.left_evidence_id;
      const rightId = args.right_evidence_id;
      if (leftId === rightId) {
        throw new ToolFailure("invalid_request", "Compare two different captures.");
      }
      const left = retainedCapture(context.ledger, leftId, "left");
      const right = retainedCapture(context.ledger, rightId, "right");
      let result;
      try {
        result = compareCaptures(left.capture, right.capture, {
          ...(args.max_capture_age_ms !== undefined
            ? { maxCaptureAgeMs: args.max_capture_age_ms }
            : {}),
        });
      } catch (error) {
        if (error instanceof IncompatibleCaptures) {
          throw new ToolFailure("invalid_request", `Cannot compare: ${error.message}.`, {
            action:
              "Capture both sides with the same scenario fields (only executable and arguments may differ).",
            details: { reason: "incompatible" },
          });
        }
        throw error;
      }
      const limitations = [...result.limitations];
      if (args.trace_spec) {
        limitations.push(
          `The trace_spec (${args.trace_spec.events.length} expected events) was not evaluated: this server compares captures by dimension only.`,
        );
      }
      if (JSON.stringify(left.record.environment) !== JSON.stringify(right.record.environment)) {
        limitations.push("The two captures ran in different environments.");
      }
      return Promise.resolve({
        kind: "evidence",
        draft: {
          subject: null,
          provider: { ...PROCESS_PROVIDER },
          operation: COMPARE_PROCESS_CAPTURES,
          predicate_type: COMPARISON_PREDICATE,
          confidence: "derived",
          authority: "analyst-inference",
          parameters: {
            left_evidence_id: leftId,
            right_evidence_id: rightId,
            left_normalization: left.capture.normalization as unknown as JsonObject,
            right_normalization: right.capture.normalization as unknown as JsonObject,
            max_capture_age_ms: (args.max_capture_age_ms) ?? null,
          },
          normalized_result: result,
          evidence_links: [leftId, rightId],
          limitations,
        },
      });
    },
  });
}
