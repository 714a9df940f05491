/**
 * `control_status`: one compliance control of a dataset in detail — its
 * status, results, findings and the assets they fall on.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { controlStatus, listControls } from "../compliance/rollup.ts";
import { findingBriefSchema } from "../schemas/results.ts";
import { mostArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const CONTROL_STATUS = "control_status";

/** Builds the tool for one connection. */
export function controlStatusTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: CONTROL_STATUS,
    toolset: "compliance",
    sensitivity: "confidential",
    description:
      "Show one control of a framework as the dataset evaluates it: status (NOT_EVALUATED when the dataset has no result for it, FAIL when a failing result has open findings, PASS (all findings suppressed), else the result's status), its compliance results, the findings they name (highest risk first) and the assets with open ones, each list at most limit long. The framework is an exact name (any case) or else the first name containing it. definition is null: the rulesets' control texts are not shipped; control_title comes from the dataset's results.",
    input: z.strictObject({
      framework: z.string().min(1).max(200).describe("The framework, e.g. CIS-AWS (any case)."),
      control_id: z.string().min(1).max(200).describe("The control id, e.g. 5.2."),
      limit: mostArgument("results, findings and assets returned", 200, 25),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      framework: z.string(),
      control_id: z.string(),
      control_title: z.string().nullable(),
      definition: z.null().describe("Always null: ruleset control definitions are not shipped."),
      status: z.string(),
      results: z.array(z.object({
        id: z.string(),
        framework: z.string(),
        control_id: z.string(),
        control_title: z.string(),
        status: z.string(),
        finding_ids: z.array(z.string()),
        resource_arn: z.string().nullable(),
      })),
      findings: z.array(findingBriefSchema),
      affected_assets: z.array(z.string()).describe(
        "Ids of the dataset's assets with open findings (as list_findings' asset_id and find_assets' id); findings on no asset are in findings only.",
      ),
      hint: z.string().optional(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const detail = controlStatus(dataset, args.framework, args.control_id, {
          limit: args.limit,
        });
        let hint: string | undefined;
        if (detail.status === "NOT_EVALUATED") {
          const known = listControls(dataset, detail.framework).map((c) => c.control_id);
          hint = `The dataset has no result for control ${
            JSON.stringify(args.control_id)
          } of ${detail.framework}; the controls it evaluates are ${known.join(", ") || "none"}.`;
        }
        const result = {
          dataset: dataset.name,
          ...detail,
          definition: null,
          ...(hint === undefined ? {} : { hint }),
        };
        return { kind: "result", result };
      }),
  });
}
