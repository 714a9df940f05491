/**
 * `snapshot_dataset`: a deep copy of a dataset under a new name, to compare
 * against after changes.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, translated } from "../context/cloud_context.ts";
import { listingEntrySchema } from "../schemas/results.ts";
import { describeDataset } from "../workspace/summary.ts";

/** The tool's name. */
export const SNAPSHOT_DATASET = "snapshot_dataset";

/** Builds the tool for one connection. */
export function snapshotDatasetTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: SNAPSHOT_DATASET,
    toolset: "workspace",
    sensitivity: "internal",
    description:
      "Copy a dataset (assets, edges, findings, compliance, suppressions…) under a new name, not activated, so later changes can be compared with diff_datasets.",
    input: z.strictObject({
      new_name: z.string().min(1).max(64).describe("The snapshot's name."),
      dataset: datasetArgument,
      replace: z.boolean().default(false).describe("Replace a dataset already named new_name."),
    }),
    result: z.object({ snapshot: z.string(), dataset: listingEntrySchema }),
    effects: { mutatesSession: true, idempotent: false },
    producesEvidence: false,
    run: (args) =>
      translated(async () => {
        await ctx.preloaded;
        const snapshot = ctx.workspace.snapshot(args.new_name, {
          dataset: args.dataset,
          replace: args.replace,
        });
        return {
          kind: "result",
          result: { snapshot: snapshot.name, dataset: describeDataset(snapshot) },
        };
      }),
  });
}
