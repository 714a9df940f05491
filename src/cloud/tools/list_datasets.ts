/**
 * `list_datasets`: every loaded dataset's listing entry, with the active flag.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { workspaceListingSchema } from "../schemas/results.ts";

/** The tool's name. */
export const LIST_DATASETS = "list_datasets";

/** Builds the tool for one connection. */
export function listDatasetsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: LIST_DATASETS,
    toolset: "workspace",
    sensitivity: "internal",
    description:
      "List the loaded datasets in load order: kind, source, version, counts, which derived views are built, and which one is active.",
    input: z.strictObject({}),
    result: workspaceListingSchema.extend({ total: z.number().int() }),
    ...READS_ONLY,
    run: async () => {
      await ctx.preloaded;
      return { kind: "result", result: ctx.workspace.list() };
    },
  });
}
