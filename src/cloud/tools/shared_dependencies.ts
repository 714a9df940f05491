/**
 * `shared_dependencies`: single points of failure — the assets most others
 * directly depend on.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { assetRankingSchema } from "../schemas/results.ts";
import { sharedDependencies } from "../graph/dependencies.ts";
import { mostArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const SHARED_DEPENDENCIES = "shared_dependencies";

/** Builds the tool for one connection. */
export function sharedDependenciesTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: SHARED_DEPENDENCIES,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "Find single points of failure: the assets that at least two other assets directly depend on through functional edges (containment and peering left out), most direct dependents first. For transitive impact use largest_blast_radius.",
    input: z.strictObject({
      top: mostArgument("assets listed", 200, 25),
      dataset: datasetArgument,
    }),
    result: assetRankingSchema({ direct_dependents: z.number().int() }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        return { kind: "result", result: sharedDependencies(dataset, { top: args.top }) };
      }),
  });
}
