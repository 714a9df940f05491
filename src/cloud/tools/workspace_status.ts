/**
 * `workspace_status`: the loaded datasets, the active one, the roots paths
 * may be loaded from, and what to do next when nothing is loaded.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { workspaceListingSchema } from "../schemas/results.ts";
import { WORKSPACE_URI } from "../workspace/workspace.ts";

/** The tool's name. */
export const WORKSPACE_STATUS = "workspace_status";

/** Builds the tool for one connection. */
export function workspaceStatusTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: WORKSPACE_STATUS,
    toolset: "workspace",
    sensitivity: "internal",
    description:
      "Report the cloud workspace: loaded datasets (listing entries), the active one, the roots datasets may be loaded from, the output directory exports go to, and next steps when nothing is loaded. Starts nothing; call it first for cloud work.",
    input: z.strictObject({}),
    result: workspaceListingSchema.extend({
      allowed_roots: z.array(z.string()),
      output_dir: z.string().nullable().describe(
        "The directory export tools write under (--output-dir); null when none is configured.",
      ),
      next_steps: z.array(z.string()).optional(),
    }),
    ...READS_ONLY,
    run: async () => {
      await ctx.preloaded;
      const listing = ctx.workspace.list();
      const result = {
        active_dataset: listing.active_dataset,
        datasets: listing.datasets,
        allowed_roots: ctx.services.roots.map((root) => root.path),
        output_dir: ctx.outputDir,
        ...(listing.total === 0
          ? {
            next_steps: [
              "Call load_dataset with the path of an inventory-map.json, a findings.json report or generic {assets, edges, findings} JSON under an allowed root.",
              "Or restart the server with --demo to explore the demo estate.",
            ],
          }
          : {}),
      };
      return {
        kind: "result",
        result,
        links: [{ uri: WORKSPACE_URI, name: "workspace", mimeType: "application/json" }],
      };
    },
  });
}
