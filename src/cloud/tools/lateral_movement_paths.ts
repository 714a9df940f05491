/**
 * `lateral_movement_paths`: identity pivot chains from footholds.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { lateralMovementPaths } from "../graph/lateral_movement.ts";
import { graphPathSchema, pathSearchFields } from "../schemas/results.ts";
import { mostArgument, nodeFilterArgument } from "../schemas/arguments.ts";
import { parseNodeFilter, pathBounds } from "../schemas/argument_parsing.ts";

/** The tool's name. */
export const LATERAL_MOVEMENT_PATHS = "lateral_movement_paths";

/** Builds the tool for one connection. */
export function lateralMovementPathsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: LATERAL_MOVEMENT_PATHS,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "Follow identity pivots (ASSUMES_ROLE, IAM_TRUST, GRANTS_ACCESS) from a starting asset, or by default from every internet-exposed asset and external account (a CLOUD_ACCOUNT marked external, or a principal of an account no asset of the dataset belongs to that a trust or grant admits, such as another account's root), to wherever each chain ends. An identity policy's explicit Deny of sts:AssumeRole removes that trust hop. Chains reaching the most sensitive assets come first, then shorter ones; total_found counts every chain before the max_paths cut.",
    input: z.strictObject({
      start: nodeFilterArgument(
        "One asset reference or placeholder id to start from (empty: every internet-exposed asset and external account).",
      ),
      max_depth: mostArgument("hops per chain", 8, 4),
      max_paths: mostArgument("chains returned", 100, 25),
      dataset: datasetArgument,
    }),
    result: z.object({
      ...pathSearchFields(graphPathSchema, "max_paths, max_chains and/or max_nodes_visited."),
      starting_points: z.number().int(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => ({
        kind: "result",
        result: lateralMovementPaths(dataset, {
          start: parseNodeFilter(dataset, args.start),
          ...pathBounds(args),
        }),
      })),
  });
}
