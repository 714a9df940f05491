/**
 * `findings_for_asset`: the findings of one asset, highest risk first.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { findingsForAsset } from "../findings/queries.ts";
import { assetBriefSchema, findingBriefSchema } from "../schemas/results.ts";
import { mostArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const FINDINGS_FOR_ASSET = "findings_for_asset";

/** Builds the tool for one connection. */
export function findingsForAssetTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: FINDINGS_FOR_ASSET,
    toolset: "findings",
    sensitivity: "confidential",
    description:
      "List the findings of one asset (open ones unless include_suppressed), highest risk first, with the asset's brief. The asset is any reference: id, ARN, name, or a unique part of them; an unknown or ambiguous one fails with suggestions in error.details. Not paginated: at most limit findings, with total and truncated saying whether more exist.",
    input: z.strictObject({
      ref: z.string().min(1).max(2048).describe("The asset: id, ARN, name or a unique fragment."),
      include_suppressed: z.boolean().default(false).describe("Also list suppressed findings."),
      limit: mostArgument("findings returned", 500, 50),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      asset: assetBriefSchema,
      total: z.number().int().describe("The asset's findings counted, before the limit."),
      returned: z.number().int(),
      truncated: z.boolean(),
      findings: z.array(findingBriefSchema),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const answer = findingsForAsset(dataset, args.ref, {
          include_suppressed: args.include_suppressed,
          limit: args.limit,
        });
        return {
          kind: "result",
          result: {
            dataset: dataset.name,
            asset: answer.asset,
            total: answer.total,
            returned: answer.findings.length,
            truncated: answer.total > answer.findings.length,
            findings: answer.findings,
          },
        };
      }),
  });
}
