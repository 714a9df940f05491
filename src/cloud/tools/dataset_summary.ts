/**
 * `dataset_summary`: the figures of one dataset at a glance.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { datasetSummaryUri } from "../model/briefs.ts";
import { datasetSummarySchema } from "../schemas/results.ts";
import { datasetSummary } from "../workspace/summary.ts";

/** The tool's name. */
export const DATASET_SUMMARY = "dataset_summary";

/** Builds the tool for one connection. */
export function datasetSummaryTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: DATASET_SUMMARY,
    toolset: "workspace",
    sensitivity: "internal",
    description:
      "Summarise a dataset: asset, edge and finding counts, open findings by severity, accounts, regions, internet exposure, cross-account edges, unlinked assets, compliance frameworks, the commonest asset types, and the organisation when known.",
    input: z.strictObject({ dataset: datasetArgument }),
    result: datasetSummarySchema,
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        return {
          kind: "result",
          result: datasetSummary(dataset),
          links: [{
            uri: datasetSummaryUri(dataset.name),
            name: `${dataset.name} summary`,
            mimeType: "application/json",
          }],
        };
      }),
  });
}
