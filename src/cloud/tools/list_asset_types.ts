/**
 * `list_asset_types`: the asset types a dataset holds, with counts.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { listAssetTypes } from "../inventory/asset_counts.ts";

/** The tool's name. */
export const LIST_ASSET_TYPES = "list_asset_types";

/** Builds the tool for one connection. */
export function listAssetTypesTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: LIST_ASSET_TYPES,
    toolset: "inventory",
    sensitivity: "internal",
    description:
      "List the asset types present in a dataset, most assets first: each with its family, asset count, how many are internet-exposed and their open findings. Use describe_schema for every type that exists, and explain_asset_type for what one means.",
    input: z.strictObject({ dataset: datasetArgument }),
    result: z.object({
      dataset: z.string(),
      total_assets: z.number().int(),
      type_count: z.number().int(),
      types: z.array(z.object({
        asset_type: z.string(),
        family: z.string(),
        count: z.number().int(),
        internet_exposed: z.number().int(),
        open_findings: z.number().int(),
      })),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const types = listAssetTypes(dataset);
        return {
          kind: "result",
          result: {
            dataset: dataset.name,
            total_assets: dataset.records.assets.length,
            type_count: types.length,
            types,
          },
        };
      }),
  });
}
