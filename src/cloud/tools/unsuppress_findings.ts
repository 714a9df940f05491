/**
 * `unsuppress_findings`: lifts suppressions, so the findings count as open
 * again.
 *
 * @module
 */

import { z } from "zod";
import { CHANGES_SESSION, defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument } from "../context/cloud_context.ts";
import { changeFindings, findingChangeSchema } from "../context/finding_change.ts";
import { findingIdsArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const UNSUPPRESS_FINDINGS = "unsuppress_findings";

/** Builds the tool for one connection. */
export function unsuppressFindingsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: UNSUPPRESS_FINDINGS,
    toolset: "findings",
    sensitivity: "confidential",
    description:
      "Lift the suppression of findings by id (their reasons are dropped), so they count as open again. Reports which ids were unsuppressed, which were not suppressed and which do not exist; when any changed, the dataset's version goes up (earlier cursors turn stale) and subscribers of its summary resource are notified.",
    input: z.strictObject({
      finding_ids: findingIdsArgument("unsuppress"),
      dataset: datasetArgument,
    }),
    result: findingChangeSchema("unsuppressed", "not_suppressed"),
    ...CHANGES_SESSION,
    run: (args) =>
      changeFindings(
        ctx,
        args.dataset,
        (dataset) => ctx.workspace.unsuppress(args.finding_ids, { dataset }),
      ),
  });
}
