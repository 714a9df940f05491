/**
 * `get_edges`: raw edges filtered by endpoint, type, relationship, account
 * crossing, internet origin and port, one page at a time.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import {
  type CloudContext,
  datasetPageArguments,
  pageSchema,
  withDataset,
} from "../context/cloud_context.ts";
import { matchingEdges } from "../graph/edges.ts";
import { edgeBrief } from "../model/briefs.ts";
import { resolveGraphRef } from "../graph/graph_refs.ts";
import { INTERNET_ENTRY_RULE, INTERNET_NODE, isInternetRef } from "../graph/internet.ts";
import { paginate } from "../model/cursors.ts";
import { RELATION_TYPES } from "../model/enums.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { edgeBriefSchema } from "../schemas/results.ts";
import { nodeFilterArgument, typeNamesArgument } from "../schemas/arguments.ts";
import { parseEdgeTypes, parseNodeFilter } from "../schemas/argument_parsing.ts";

/** The tool's name. */
export const GET_EDGES = "get_edges";

/** Builds the tool for one connection. */
export function getEdgesTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: GET_EDGES,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "Search the raw edges of a dataset, AND-combining the filters: source and/or target (an asset reference or placeholder id; source internet means the internet entries; source `*` lists every grant to any principal, conditional: true marking those a policy condition limits), edge types, declared relationship, edges between two accounts, internet entries only, and edges opening a port. Results are in dataset order and paginated with next_cursor. For everything around one asset use neighbors. " +
      INTERNET_ENTRY_RULE,
    input: z.strictObject({
      source: nodeFilterArgument(
        "Only edges from this node: an asset reference, a placeholder id, or the internet (empty: any).",
      ),
      target: nodeFilterArgument(
        "Only edges to this node: an asset reference or placeholder id (empty: any).",
      ),
      edge_types: typeNamesArgument(20, "Only these edge types (empty: all)."),
      relationship: z.string().max(64).default("").describe(
        "Only edges declaring this relation type, e.g. VPC_PEERED (empty: any).",
      ),
      cross_account_only: z.boolean().default(false).describe(
        "Only edges whose two asset ends are in different accounts.",
      ),
      internet_only: z.boolean().default(false).describe(
        "Only the internet entries (the edges source internet lists).",
      ),
      port: z.number().int().min(0).max(65535).optional().describe(
        "Only edges whose ports or port range open this port (0 to 65535).",
      ),
      ...datasetPageArguments,
    }),
    result: pageSchema(edgeBriefSchema),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const edgeTypes = parseEdgeTypes(args.edge_types);
        const relationship = args.relationship === ""
          ? undefined
          : parseEnum(args.relationship, RELATION_TYPES, { label: "relationship" });
        const source = args.source === ""
          ? undefined
          : isInternetRef(args.source)
          ? INTERNET_NODE
          : resolveGraphRef(dataset, args.source);
        const target = parseNodeFilter(dataset, args.target);
        const edges = matchingEdges(dataset, {
          source,
          target,
          edgeTypes,
          relationship,
          crossAccountOnly: args.cross_account_only,
          internetOnly: args.internet_only,
          port: args.port,
        });
        const page = paginate(edges, {
          limit: args.limit,
          cursor: args.cursor,
          scope: dataset,
          filters: {
            source: source ?? "",
            target: target ?? "",
            edge_types: edgeTypes,
            relationship: relationship ?? "",
            cross_account_only: args.cross_account_only,
            internet_only: args.internet_only,
            port: args.port ?? null,
          },
          render: (edge) => edgeBrief(dataset, edge),
        });
        return {
          kind: "result",
          result: page,
        };
      }),
  });
}
