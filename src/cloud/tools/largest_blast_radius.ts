/**
 * `largest_blast_radius`: the assets whose failure affects the most others.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { assetRankingSchema, truncationFields } from "../schemas/results.ts";
import { largestBlastRadius } from "../graph/dependencies.ts";
import { mostArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const LARGEST_BLAST_RADIUS = "largest_blast_radius";

/** Builds the tool for one connection. */
export function largestBlastRadiusTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: LARGEST_BLAST_RADIUS,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "Rank the assets whose failure affects the most others: the most transitive dependents (up to 10 hops), with the accounts affected and how many dependents are internet-exposed. Candidates are the 4 × top assets with the most direct dependents. For one asset's detail use blast_radius.",
    input: z.strictObject({
      top: mostArgument("assets listed", 100, 15),
      dataset: datasetArgument,
    }),
    result: assetRankingSchema({
      transitive_dependents: z.number().int(),
      accounts_affected: z.number().int(),
      internet_exposed_dependents: z.number().int(),
    }).extend(truncationFields()),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        return { kind: "result", result: largestBlastRadius(dataset, { top: args.top }) };
      }),
  });
}
