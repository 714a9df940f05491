/**
 * `unload_dataset`: drops a dataset from the workspace.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, translated } from "../context/cloud_context.ts";

/** The tool's name. */
export const UNLOAD_DATASET = "unload_dataset";

/** Builds the tool for one connection. */
export function unloadDatasetTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: UNLOAD_DATASET,
    toolset: "workspace",
    sensitivity: "internal",
    description:
      "Drop a dataset from the workspace (its suppressions and derived views go with it). When it was active, the most recently added remaining dataset becomes active.",
    input: z.strictObject({
      name: z.string().min(1).max(64).describe("A dataset name from list_datasets."),
    }),
    result: z.object({
      unloaded: z.string(),
      active_dataset: z.string().nullable(),
      remaining: z.array(z.string()),
    }),
    effects: { mutatesSession: true, mayDiscardData: true, idempotent: false },
    producesEvidence: false,
    run: (args) =>
      translated(async () => {
        await ctx.preloaded;
        return { kind: "result", result: ctx.workspace.remove(args.name) };
      }),
  });
}
