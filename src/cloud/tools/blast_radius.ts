/**
 * `blast_radius`: what an asset's failure or compromise reaches — its
 * transitive dependents and what it can reach over the relationship graph.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import {
  assetRefArgument,
  type CloudContext,
  datasetArgument,
  withDataset,
} from "../context/cloud_context.ts";
import { blastRadius } from "../graph/blast_radius.ts";
import { resolveAsset } from "../model/references.ts";
import {
  assetBriefSchema,
  countsSchema,
  nodeBriefSchema,
  truncationFields,
} from "../schemas/results.ts";
import { mostArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const BLAST_RADIUS = "blast_radius";

const dependencyItemSchema = assetBriefSchema.extend({
  via: z.string().describe("The edge type of the hop."),
  relationship: z.string().nullable(),
  depth: z.number().int(),
  parent_id: z.string(),
});

/** Builds the tool for one connection. */
export function blastRadiusTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: BLAST_RADIUS,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "Measure an asset's blast radius: what its failure takes down and what its compromise can reach. dependency (availability): every asset that depends on it, directly or transitively up to max_depth hops, with counts by depth, accounts affected and exposed dependents (at most limit items listed). network (reach): how many assets and how many nodes (assets plus placeholders such as a bucket outside the dataset or 0.0.0.0/0) it can reach over relationship edges, how deep, the sensitive ones (crown-jewel types), and a risk score: 0.5 per reachable node (reachable_nodes, placeholders included) + 2.0 per reachable sensitive data store (RDS, Aurora, Azure SQL, Cloud SQL, DynamoDB), capped at 10.",
    input: z.strictObject({
      ref: assetRefArgument,
      max_depth: mostArgument("dependency hops", 15, 10),
      limit: mostArgument("items listed per view", 500, 50),
      dataset: datasetArgument,
    }),
    result: z.object({
      asset: assetBriefSchema,
      dependency: z.object({
        transitive_dependents: z.number().int(),
        by_depth: countsSchema,
        accounts_affected: z.array(z.string()),
        internet_exposed_dependents: z.number().int(),
        items: z.array(dependencyItemSchema),
        ...truncationFields(),
      }),
      network: z.object({
        reachable_assets: z.number().int().describe("Assets reached (placeholders not counted)."),
        reachable_nodes: z.number().int().describe(
          "Nodes reached: the assets plus placeholders, the count risk_score gives 0.5 each.",
        ),
        max_depth: z.number().int(),
        risk_score: z.number(),
        sensitive_reachable: z.array(nodeBriefSchema),
        truncated: z.boolean(),
      }),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const asset = resolveAsset(dataset, args.ref);
        return {
          kind: "result",
          result: blastRadius(dataset, asset.id, { maxDepth: args.max_depth, limit: args.limit }),
        };
      }),
  });
}
