/**
 * `find_paths`: the shortest simple paths between two nodes over the flow,
 * directed or undirected graph.
 *
 * @module
 */

import { GROUP_STEP_RULE, INTERNET_ENTRY_RULE } from "../graph/internet.ts";
import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { resolveGraphRef } from "../graph/graph_refs.ts";
import { findPaths, type PathMode } from "../graph/paths.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { graphPathSchema, nodeBriefSchema, pathSearchFields } from "../schemas/results.ts";
import { mostArgument } from "../schemas/arguments.ts";
import { pathBounds } from "../schemas/argument_parsing.ts";

/** The tool's name. */
export const FIND_PATHS = "find_paths";

const MODES: readonly PathMode[] = ["flow", "directed", "undirected"];

/** Builds the tool for one connection. */
export function findPathsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: FIND_PATHS,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "Find the shortest simple paths from source to target (assets, placeholders or the internet), shortest first, over network flow, directed or undirected relationship edges. mode flow (default) follows network traffic hops plus identity pivots; directed follows every relationship edge its way; undirected ignores direction. source internet starts at a virtual node linked to every internet entry point, the source of an internet entry (not listed in the paths), and leaves a `*` principal only along its internet entries. Each path gives hop briefs, the edge type of each hop and a readable summary; truncated says more paths exist or the search budget ran out; hint says what to try when nothing connects." +
      " " + INTERNET_ENTRY_RULE + " " + GROUP_STEP_RULE,
    input: z.strictObject({
      source: z.string().min(1).max(2048).describe(
        "Where paths start: an asset reference, a placeholder id, or internet (also public, 0.0.0.0/0, ::/0).",
      ),
      target: z.string().min(1).max(2048).describe(
        "Where paths end: an asset reference or placeholder id.",
      ),
      max_depth: mostArgument("hops per path", 12, 6),
      max_paths: mostArgument("paths returned", 50, 5),
      mode: z.string().max(16).default("flow").describe(
        "flow, directed or undirected (default flow).",
      ),
      dataset: datasetArgument,
    }),
    result: z.object({
      source: nodeBriefSchema,
      target: nodeBriefSchema,
      mode: z.string(),
      ...pathSearchFields(graphPathSchema, "max_paths and/or max_nodes_visited."),
      hint: z.string().optional(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const mode = parseEnum(args.mode, MODES, { label: "mode" });
        const source = resolveGraphRef(dataset, args.source, { virtualInternet: true });
        const target = resolveGraphRef(dataset, args.target);
        return {
          kind: "result",
          result: findPaths(dataset, { source, target }, { ...pathBounds(args), mode }),
        };
      }),
  });
}
