/**
 * `depends_on`: what an asset needs, upstream, hop by hop.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, translated } from "../context.ts";
import { dependsOn } from "../graph/dependencies.ts";
import { resolveAsset } from "../model/references.ts";
import { assetBriefSchema } from "../schemas.ts";

/** The tool's name. */
export const DEPENDS_ON = "depends_on";

/** Builds the tool for one connection. */
export function dependsOnTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: DEPENDS_ON,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "List everything an asset depends on (upstream), breadth-first over the dependency graph up to max_depth hops: each item is an asset brief with the edge type it was reached by (via), the declared relationship, its depth and the asset it was reached from (parent_id). total counts every dependency before the limit cut. For what depends on the asset use dependents; for nested trees use dependency_tree.",
    input: z.strictObject({
      ref: z.string().min(1).max(2048).describe(
        "The asset: id, ARN, cloud resource id or unique name.",
      ),
      max_depth: z.number().int().min(1).max(15).default(3).describe(
        "Most dependency hops (1 to 15).",
      ),
      limit: z.number().int().min(1).max(500).default(100).describe(
        "Most items listed (1 to 500).",
      ),
      dataset: datasetArgument,
    }),
    result: z.object({
      asset: assetBriefSchema,
      total: z.number().int(),
      returned: z.number().int(),
      truncated: z.boolean(),
      bounds_hit: z.array(z.string()).optional().describe("limit and/or max_nodes."),
      items: z.array(assetBriefSchema.extend({
        via: z.string().describe("The edge type of the hop."),
        relationship: z.string().nullable(),
        depth: z.number().int(),
        parent_id: z.string(),
      })),
    }),
    effects: {},
    producesEvidence: false,
    run: (args) =>
      translated(async () => {
        await ctx.preloaded;
        const dataset = ctx.dataset(args.dataset);
        const asset = resolveAsset(dataset, args.ref);
        return {
          kind: "result",
          result: dependsOn(dataset, asset.id, { maxDepth: args.max_depth, limit: args.limit }),
        };
      }),
  });
}
