/**
 * `graph_stats`: the shape of a dataset's relationship graph.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { graphStats } from "../graph/graph_stats.ts";
import { countsSchema } from "../schemas/results.ts";

/** The tool's name. */
export const GRAPH_STATS = "graph_stats";

/** Builds the tool for one connection. */
export function graphStatsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: GRAPH_STATS,
    toolset: "graph",
    sensitivity: "internal",
    description:
      "Describe the relationship graph: nodes (assets and placeholders such as 0.0.0.0/0), raw edges and edges after merge rules, raw edges by type and by declared relationship, weakly connected components and the largest, isolated assets, density and mean degree.",
    input: z.strictObject({ dataset: datasetArgument }),
    result: z.object({
      nodes: z.number().int(),
      asset_nodes: z.number().int(),
      placeholder_nodes: z.number().int(),
      edges: z.number().int().describe("Raw edges in the dataset."),
      graph_edges: z.number().int().describe("Edges of the relationship graph after merge rules."),
      edges_by_type: countsSchema.describe("Raw edges by type, most first."),
      edges_by_relationship: countsSchema.describe(
        "Raw edges by declared relationship, at most 30.",
      ),
      components: z.number().int(),
      largest_component: z.number().int(),
      isolated_assets: z.number().int(),
      density: z.number(),
      mean_degree: z.number(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        return { kind: "result", result: graphStats(dataset) };
      }),
  });
}
