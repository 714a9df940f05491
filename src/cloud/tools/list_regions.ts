/**
 * `list_regions`: the regions of a dataset with what each holds.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { listRegions } from "../inventory/accounts.ts";

/** The tool's name. */
export const LIST_REGIONS = "list_regions";

/** Builds the tool for one connection. */
export function listRegionsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: LIST_REGIONS,
    toolset: "inventory",
    sensitivity: "internal",
    description:
      "List the regions holding assets, most assets first: providers, asset count and distinct accounts per region, plus scanned_regions, the regions the source said it covered (a region scanned but empty appears only there).",
    input: z.strictObject({ dataset: datasetArgument }),
    result: z.object({
      dataset: z.string(),
      regions: z.array(z.object({
        region: z.string(),
        providers: z.array(z.string()),
        assets: z.number().int(),
        accounts: z.number().int(),
      })),
      scanned_regions: z.array(z.string()),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        return { kind: "result", result: { dataset: dataset.name, ...listRegions(dataset) } };
      }),
  });
}
