/**
 * `centrality_top`: the most central assets of the relationship graph.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { type CentralityMetric, centralityTop } from "../graph/centrality.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { assetBriefSchema } from "../schemas/results.ts";
import { mostArgument, typeNamesArgument } from "../schemas/arguments.ts";
import { parseAssetTypes } from "../schemas/argument_parsing.ts";

/** The tool's name. */
export const CENTRALITY_TOP = "centrality_top";

const METRICS: readonly CentralityMetric[] = ["degree", "in_degree", "out_degree", "betweenness"];

/** Builds the tool for one connection. */
export function centralityTopTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: CENTRALITY_TOP,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "Rank assets by a centrality metric of the relationship graph: degree, in_degree, out_degree (normalised by n − 1) or betweenness (normalised; sampled over 300 sources with seed 7 above 1,500 nodes, then sampled is true). Highest first, scores to 5 decimals, optionally only some asset types. Placeholders are never listed.",
    input: z.strictObject({
      metric: z.string().max(16).default("degree").describe(
        "degree, in_degree, out_degree or betweenness (default degree).",
      ),
      top: mostArgument("assets listed", 200, 20),
      asset_types: typeNamesArgument(50, "Only these asset types (empty: all)."),
      dataset: datasetArgument,
    }),
    result: z.object({
      metric: z.string(),
      sampled: z.boolean(),
      items: z.array(assetBriefSchema.extend({
        score: z.number(),
        degree: z.number().int().describe("Edges in and out of the relationship graph."),
      })),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const metric = parseEnum(args.metric, METRICS, { label: "metric" });
        const assetTypes = parseAssetTypes(args.asset_types);
        return {
          kind: "result",
          result: centralityTop(dataset, { metric, top: args.top, assetTypes }),
        };
      }),
  });
}
