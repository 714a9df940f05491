/**
 * `suppress_findings`: marks findings as accepted risk (or false positives)
 * with a reason, so they leave the open counts.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context.ts";
import { findingIdsArgument } from "../schemas.ts";

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
    result: z.object({
      dataset: z.string(),
      suppressed: z.array(z.string()),
      already_suppressed: z.array(z.string()),
      not_found: z.array(z.string()),
      version: z.number().int().describe("The dataset's version after the call."),
    }),
    effects: { mutatesSession: true },
    producesEvidence: false,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const outcome = ctx.workspace.suppress(args.finding_ids, args.reason, {
          dataset: dataset.name,
        });
        return {
          kind: "result",
          result: { dataset: dataset.name, ...outcome, version: dataset.version },
        };
      }),
  });
}
