/**
 * `record_unknown`: records a residual unknown at revision 1 (an
 * approval-gated registry write).
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { recordedHead, refuseInvisibleText } from "../context/unknown_support.ts";
import { evidenceListField, registryApprovalField, unknownStateFields } from "../schemas/inputs.ts";
import { RECORD_UNKNOWN } from "../tool_names.ts";
import {
  MAX_DOMAIN_LENGTH,
  MAX_QUESTION_LENGTH,
  unknownRecordSchema,
} from "../unknowns/registry.ts";

/** The inputs holding free text (the rest are ids and enumerations). */
const FREE_TEXT_FIELDS = ["question", "domain", "required_environment", "recommended_probes"];

/** Records an unsettled question, atomically with one mutation Evidence record. */
export function recordUnknownTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: RECORD_UNKNOWN,
    toolset: "unknowns",
    description:
      "Record a question the investigation has not settled as a residual unknown at revision 1, scoped to the open target (the same question under another target is another unknown). Needs approved: true. Written atomically with one mutation Evidence record (intent, not proof); status starts contradicted when contradicting Evidence is given, otherwise open. Fails if the same question already exists: change it with update_unknown.",
    input: z.strictObject({
      approved: registryApprovalField,
      question: z.string().min(1).max(4 * MAX_QUESTION_LENGTH).describe(
        `The question, 1 to ${MAX_QUESTION_LENGTH} characters once trimmed with whitespace runs collapsed; it is part of the id.`,
      ),
      domain: z.string().min(1).max(4 * MAX_DOMAIN_LENGTH).describe(
        `A short area such as parsing or process-file (1 to ${MAX_DOMAIN_LENGTH} characters trimmed); part of the id.`,
      ),
      supporting_evidence_ids: evidenceListField("Evidence supporting the question").default([]),
      contradicting_evidence_ids: evidenceListField("Evidence contradicting it").default([]),
      ...unknownStateFields,
    }),
    result: unknownRecordSchema,
    effects: { mutatesSession: true, idempotent: false },
    producesEvidence: true,
    run: (args) => {
      refuseInvisibleText(args, FREE_TEXT_FIELDS);
      return recordedHead(() => context.unknowns.record(args, { subject: context.subject() }));
    },
  });
}
