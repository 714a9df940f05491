/**
 * `dependency_tree`: the nested upstream and downstream dependency trees of
 * an asset.
 *
 * @module
 */

import { z } from "zod";
import { assetRefSchema, truncationFields } from "../schemas/results.ts";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import {
  assetRefArgument,
  type CloudContext,
  datasetArgument,
  withDataset,
} from "../context/cloud_context.ts";
import { dependencyTree } from "../graph/dependencies.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { resolveAsset } from "../model/references.ts";
import { mostArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const DEPENDENCY_TREE = "dependency_tree";

const DIRECTIONS = ["up", "down", "both"] as const;

const describedAsset = assetRefSchema;

/** Deepest tree level: max_depth's upper bound. */
const MAX_TREE_DEPTH = 6;

/**
 * A tree node whose children nest at most `levels` more times. Spelled out
 * level by level (not recursive) so the published JSON schema has no
 * references to resolve.
 */
function treeLevel(levels: number): z.ZodType {
  return describedAsset.extend({
    via: z.string().describe("The edge type linking it to its parent."),
    relationship: z.string().nullable(),
    children: levels === 0 ? z.array(z.never()).max(0) : z.array(treeLevel(levels - 1)),
  });
}

const treeNode = treeLevel(MAX_TREE_DEPTH - 1);

/** Builds the tool for one connection. */
export function dependencyTreeTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: DEPENDENCY_TREE,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "Show an asset's dependencies as nested trees: depends_on (up: what it needs) and/or dependents (down: what needs it), each node with the edge that links it to its parent and its children, up to max_depth hops. Containment under organisations, OUs and accounts is left out unless include_hierarchy. The trees keep at most max_nodes nodes in pre-order (upstream first); truncated says when they were cut. For flat lists use depends_on or dependents.",
    input: z.strictObject({
      ref: assetRefArgument,
      direction: z.string().max(16).default("both").describe(
        "up (what it depends on), down (what depends on it) or both (default both).",
      ),
      max_depth: mostArgument("hops", MAX_TREE_DEPTH, 3),
      include_hierarchy: z.boolean().default(false).describe(
        "Keep containment under organisations, OUs and accounts.",
      ),
      max_nodes: mostArgument("tree nodes kept over both trees", 1000, 200),
      dataset: datasetArgument,
    }),
    result: z.object({
      asset: describedAsset,
      depends_on: z.array(treeNode).optional(),
      dependents: z.array(treeNode).optional(),
      ...truncationFields("max_nodes and/or max_walk."),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const direction = parseEnum(args.direction, DIRECTIONS, { label: "direction" });
        const asset = resolveAsset(dataset, args.ref);
        return {
          kind: "result",
          result: dependencyTree(dataset, asset.id, {
            direction,
            maxDepth: args.max_depth,
            includeHierarchy: args.include_hierarchy,
            maxNodes: args.max_nodes,
          }),
        };
      }),
  });
}
