/**
 * `suppress_findings`: marks findings as accepted risk (or false positives)
 * with a reason, so they leave the open counts.
 *
 * @module
 */

import { z } from "zod";
import { CHANGES_SESSION, defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument } from "../context/cloud_context.ts";
import { changeFindings, findingChangeSchema } from "../context/finding_change.ts";
import { findingIdsArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const SUPPRESS_FINDINGS = "suppress_findings";

/** Builds the tool for one connection. */
export function suppressFindingsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: SUPPRESS_FINDINGS,
    toolset: "findings",
    sensitivity: "confidential",
    description:
      "Suppress findings by id with a reason (kept per dataset and shown by get_finding): they drop out of open counts, top_risks and compliance rollups until unsuppress_findings. Reports which ids were newly suppressed, which already were and which do not exist; when any changed, the dataset's version goes up (earlier cursors turn stale) and subscribers of its summary resource are notified.",
    input: z.strictObject({
      finding_ids: findingIdsArgument("suppress"),
      reason: z.string().min(3).max(500).describe(
        "Why they are suppressed (3 to 500 characters), e.g. accepted risk or false positive.",
      ),
      dataset: datasetArgument,
    }),
    result: findingChangeSchema("suppressed", "already_suppressed"),
    ...CHANGES_SESSION,
    run: (args) =>
      changeFindings(
        ctx,
        args.dataset,
        (dataset) => ctx.workspace.suppress(args.finding_ids, args.reason, { dataset }),
      ),
  });
}
