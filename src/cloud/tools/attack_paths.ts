/**
 * `attack_paths`: ranked routes from the internet to crown-jewel assets.
 *
 * @module
 */

import { GROUP_STEP_RULE, INTERNET_ENTRY_RULE } from "../graph/internet.ts";
import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { attackPaths } from "../graph/attack_paths.ts";
import { graphPathSchema, pathSearchFields } from "../schemas/results.ts";
import { mostArgument, nodeFilterArgument } from "../schemas/arguments.ts";
import { parseNodeFilter, pathBounds } from "../schemas/argument_parsing.ts";

/** The tool's name. */
export const ATTACK_PATHS = "attack_paths";

/** Builds the tool for one connection. */
export function attackPathsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: ATTACK_PATHS,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "Rank the shortest routes an attacker on the internet could take over the flow graph to crown-jewel assets (databases, buckets, secrets, keys…), or to one target, entering at the internet-exposed assets and the sources of internet entries. Each path is scored target weight + 0.5 × min(10, open findings on the path) − 0.3 × length (the hops after the path's first node, the entry point; the step in from the internet is not counted); an explicit target weighs 10. Best score first; total_found counts every route before the max_paths cut, targets_considered the assets tried." +
      " " + INTERNET_ENTRY_RULE + " " + GROUP_STEP_RULE,
    input: z.strictObject({
      target: nodeFilterArgument(
        "One asset reference or placeholder id to reach (empty: every crown-jewel asset).",
      ),
      max_depth: mostArgument("hops per path", 12, 8),
      max_paths: mostArgument("paths returned", 100, 20),
      dataset: datasetArgument,
    }),
    result: z.object({
      ...pathSearchFields(
        graphPathSchema.extend({
          entry: z.string().describe(
            "internet-exposed asset, or internet-sourced rule (the source of an internet entry).",
          ),
          target_weight: z.number(),
          findings_on_path: z.number().int(),
          score: z.number(),
        }),
        "max_paths and/or max_nodes_visited.",
      ),
      targets_considered: z.number().int(),
      hint: z.string().optional(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => ({
        kind: "result",
        result: attackPaths(dataset, {
          target: parseNodeFilter(dataset, args.target),
          ...pathBounds(args),
        }),
      })),
  });
}
