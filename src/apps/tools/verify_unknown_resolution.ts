/**
 * `verify_unknown_resolution`: whether an unknown is resolved, and whether
 * the resolution is a verified truth claim.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { translated, unknownLink } from "../context/unknown_support.ts";
import { VERIFY_UNKNOWN_RESOLUTION } from "../tool_names.ts";
import { unknownIdSchema, unknownRecordSchema } from "../unknowns/registry.ts";

/** Reports validity and truth verification of an unknown's resolution; read-only. */
export function verifyUnknownResolutionTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: VERIFY_UNKNOWN_RESOLUTION,
    toolset: "unknowns",
    description:
      "Report whether a residual unknown is resolved (valid) and whether its resolution is a verified truth claim backed by qualifying Evidence (truthVerified); withdrawn and out-of-scope resolutions are valid but not truth claims. Read-only: qualification was enforced when the resolution was written.",
    input: z.strictObject({
      unknown_id: unknownIdSchema.describe("The unknown to check (unk_ + 64 hex)."),
    }),
    result: z.object({
      valid: z.boolean(),
      truthVerified: z.boolean(),
      unknown: unknownRecordSchema,
    }),
    effects: {},
    producesEvidence: false,
    run: (args) =>
      translated(() => {
        const verdict = context.unknowns.verify(args.unknown_id);
        return Promise.resolve({
          kind: "result",
          result: verdict,
          links: [unknownLink(verdict.unknown)],
        });
      }),
  });
}
