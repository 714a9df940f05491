/**
 * `neighbors`: the nodes and edges within a few hops of an asset, a
 * placeholder or the internet, breadth-first over raw edges.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { resolveGraphRef } from "../graph/graph_refs.ts";
import { neighbors } from "../graph/neighborhood.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { edgeBriefSchema, nodeBriefSchema, truncationFields } from "../schemas/results.ts";
import { typeNamesArgument } from "../schemas/arguments.ts";
import { parseEdgeTypes } from "../schemas/argument_parsing.ts";

/** The tool's name. */
export const NEIGHBORS = "neighbors";

const DIRECTIONS = ["out", "in", "both"] as const;

/** Builds the tool for one connection. */
export function neighborsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: NEIGHBORS,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "List what is connected to an asset: the nodes and raw edges (parallel edges kept) within depth hops, breadth-first, optionally one direction and some edge types. ref may also be the internet (internet, public, 0.0.0.0/0, ::/0) or a placeholder node id. At most limit nodes and twice limit edges; truncated and bounds_hit say when a cap stopped the walk. For routes between two nodes use find_paths.",
    input: z.strictObject({
      ref: z.string().min(1).max(2048).describe(
        "The asset (id, ARN, cloud resource id or unique name), a placeholder node id, or the internet.",
      ),
      direction: z.string().max(16).default("both").describe(
        "out follows edges from the node, in edges to it, both either way (default both).",
      ),
      edge_types: typeNamesArgument(
        20,
        "Only these edge types, e.g. SECURITY_GROUP_RULE or ASSUMES_ROLE (empty: all).",
      ),
      depth: z.number().int().min(1).max(4).default(1).describe("Hops from the node (1 to 4)."),
      limit: z.number().int().min(1).max(500).default(100).describe(
        "Most nodes listed (1 to 500); edges are capped at twice this.",
      ),
      dataset: datasetArgument,
    }),
    result: z.object({
      asset: nodeBriefSchema.describe("The node the walk started from."),
      nodes: z.array(nodeBriefSchema).describe("Nodes reached, in discovery order."),
      edges: z.array(edgeBriefSchema).describe("Edges crossed, in discovery order."),
      node_count: z.number().int(),
      edge_count: z.number().int(),
      ...truncationFields("node_cap and/or edge_cap."),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const direction = parseEnum(args.direction, DIRECTIONS, { label: "direction" });
        const edgeTypes = parseEdgeTypes(args.edge_types);
        const start = resolveGraphRef(dataset, args.ref);
        return {
          kind: "result",
          result: neighbors(dataset, start, {
            direction,
            edgeTypes,
            depth: args.depth,
            limit: args.limit,
          }),
        };
      }),
  });
}
