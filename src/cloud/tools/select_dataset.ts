/**
 * `select_dataset`: makes a loaded dataset the active one.
 *
 * @module
 */

import { z } from "zod";
import { CHANGES_SESSION, defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, translated } from "../context/cloud_context.ts";
import { listingEntrySchema } from "../schemas/results.ts";
import { describeDataset } from "../workspace/summary.ts";

/** The tool's name. */
export const SELECT_DATASET = "select_dataset";

/** Builds the tool for one connection. */
export function selectDatasetTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: SELECT_DATASET,
    toolset: "workspace",
    sensitivity: "internal",
    description:
      "Make a loaded dataset the active one: tools, resources and completions without a dataset argument read it.",
    input: z.strictObject({
      name: z.string().min(1).max(64).describe("A dataset name from list_datasets."),
    }),
    result: z.object({ active_dataset: z.string(), dataset: listingEntrySchema }),
    ...CHANGES_SESSION,
    run: (args) =>
      translated(async () => {
        await ctx.preloaded;
        const dataset = ctx.workspace.select(args.name);
        return {
          kind: "result",
          result: {
            active_dataset: dataset.name,
            dataset: { ...describeDataset(dataset), active: true },
          },
        };
      }),
  });
}
