/**
 * `update_unknown`: replaces a residual unknown's state by compare-and-swap
 * (an approval-gated registry write).
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { recordedHead, refuseInvisibleText } from "../context/unknown_support.ts";
import { evidenceListField, registryApprovalField, unknownStateFields } from "../schemas/inputs.ts";
import { UPDATE_UNKNOWN } from "../tool_names.ts";
import {
  resolutionInputSchema,
  unknownIdSchema,
  unknownRecordSchema,
  unknownStatusSchema,
} from "../unknowns/registry.ts";

/** The inputs holding free text (the rest are ids, numbers and enumerations). */
const FREE_TEXT_FIELDS = ["required_environment", "recommended_probes", "resolution"];

/** Writes a new revision when expected_revision is the head's, atomically with its Evidence. */
export function updateUnknownTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: UPDATE_UNKNOWN,
    toolset: "unknowns",
    description:
      "Replace a residual unknown's full state by compare-and-swap: expected_revision must be the head's revision (a stale write fails with revision_conflict and changes nothing). Needs approved: true. Status resolved requires a resolution; a verified resolution needs a resolution Evidence id that is also supporting, retained, not registry mutation Evidence, and meets the required authority, confidence and environment, with no contradicting Evidence. Resolved unknowns may be reopened. Written atomically with one mutation Evidence record.",
    input: z.strictObject({
      approved: registryApprovalField,
      unknown_id: unknownIdSchema.describe("The unknown to change (unk_ + 64 hex)."),
      expected_revision: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe(
        "The head revision this change is based on; read rea://unknown/<id> for it.",
      ),
      status: unknownStatusSchema.describe(
        "open, investigating, blocked, contradicted (needs contradicting Evidence) or resolved (needs a resolution).",
      ),
      supporting_evidence_ids: evidenceListField("Evidence supporting the question"),
      contradicting_evidence_ids: evidenceListField("Evidence contradicting it"),
      ...unknownStateFields,
      resolution: resolutionInputSchema.nullable().describe(
        "null unless status is resolved; {disposition: verified (1+ qualifying evidence_ids, a truth claim) | withdrawn | out-of-scope (not truth claims), rationale, evidence_ids}.",
      ),
    }),
    result: unknownRecordSchema,
    effects: { mutatesSession: true, idempotent: false },
    producesEvidence: true,
    run: (args) => {
      refuseInvisibleText(args, FREE_TEXT_FIELDS);
      return recordedHead(() => context.unknowns.update(args, { subject: context.subject() }));
    },
  });
}
