/**
 * `findings_summary`: finding counts per severity, tool, framework, asset
 * type, account or asset, each split by severity.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { findingsSummary } from "../findings/queries.ts";
import { mostArgument } from "../schemas/arguments.ts";
import { countsSchema } from "../schemas/results.ts";

/** The tool's name. */
export const FINDINGS_SUMMARY = "findings_summary";

/** Builds the tool for one connection. */
export function findingsSummaryTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: FINDINGS_SUMMARY,
    toolset: "findings",
    sensitivity: "internal",
    description:
      "Count findings (open ones unless include_suppressed) grouped by severity, source_tool, framework, asset_type, account or asset; each group has a total and a count per severity. Findings with no framework fall in `(none)`, findings on an asset with no account in `unknown` (as list_accounts and the account_id filter name it), findings that map to no asset in `unmapped`; asset groups are keyed by asset id, as list_findings' asset_id and find_assets' id; a finding with several frameworks counts in each. Groups come largest first (severity groups worst first), at most top of them; group_count says how many there were.",
    input: z.strictObject({
      group_by: z.string().max(16).default("severity").describe(
        "severity (default), source_tool, framework, asset_type, account or asset.",
      ),
      include_suppressed: z.boolean().default(false).describe("Count suppressed findings too."),
      top: mostArgument("groups returned", 500, 25),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      group_by: z.string(),
      total: z.number().int().describe("Findings counted."),
      group_count: z.number().int().describe("Groups before the top cut."),
      groups: z.record(
        z.string(),
        countsSchema.describe("total and a count per severity"),
      ),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        return {
          kind: "result",
          result: findingsSummary(dataset, {
            group_by: args.group_by,
            include_suppressed: args.include_suppressed,
            top: args.top,
          }),
        };
      }),
  });
}
