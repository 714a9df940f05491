/**
 * `subgraph_export`: the neighbourhood of a few seeds as a D3, Cytoscape or
 * GraphML graph.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import type { GraphFormat } from "../graph/exports.ts";
import { resolveGraphRef } from "../graph/graph_refs.ts";
import { subgraphExport } from "../graph/subgraph.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { mostArgument, typeNamesArgument } from "../schemas/arguments.ts";
import { parseEdgeTypes } from "../schemas/argument_parsing.ts";
import { truncationFields } from "../schemas/results.ts";

/** The tool's name. */
export const SUBGRAPH_EXPORT = "subgraph_export";

const FORMATS: readonly GraphFormat[] = ["d3", "cytoscape", "graphml"];

const d3Schema = z.object({
  nodes: z.array(z.object({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    provider: z.string(),
    region: z.string(),
    arn: z.string(),
    account_id: z.string(),
    is_internet_exposed: z.boolean(),
    is_external: z.boolean(),
  })),
  links: z.array(z.object({
    source: z.string(),
    target: z.string(),
    type: z.string(),
    port_range: z.string(),
    protocol: z.string(),
    cidr: z.string(),
    direction: z.string(),
    relationship: z.string(),
    description: z.string(),
  })),
});

const cytoscapeSchema = z.object({
  elements: z.object({
    nodes: z.array(z.object({
      data: z.object({
        id: z.string(),
        label: z.string(),
        type: z.string(),
        provider: z.string(),
        region: z.string(),
        internet_exposed: z.boolean(),
      }),
    })),
    edges: z.array(z.object({
      data: z.object({
        source: z.string(),
        target: z.string(),
        type: z.string(),
        port_range: z.string(),
        protocol: z.string(),
      }),
    })),
  }),
});

/** Builds the tool for one connection. */
export function subgraphExportTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: SUBGRAPH_EXPORT,
    toolset: "graph",
    sensitivity: "restricted",
    description:
      "Export the neighbourhood of up to 50 seeds (depth hops both ways, optionally only some edge types, at most max_nodes nodes) as its own relationship graph: d3 ({nodes, links}), cytoscape ({elements}) or graphml (XML text). Parallel rule edges are merged as in the whole-graph export. For the whole graph read cloudg://graph/{format}.",
    input: z.strictObject({
      seeds: z.array(z.string().min(1).max(2048)).min(1).max(50).describe(
        "1 to 50 asset references, placeholder ids or the internet.",
      ),
      depth: z.number().int().min(0).max(4).default(1).describe(
        "Hops around each seed (0 to 4; 0 keeps the seeds only).",
      ),
      format: z.string().max(16).default("d3").describe("d3, cytoscape or graphml (default d3)."),
      max_nodes: mostArgument("nodes kept", 2000, 300),
      edge_types: typeNamesArgument(
        20,
        "Only these edge types, for the walk and the exported edges (empty: all).",
      ),
      dataset: datasetArgument,
    }),
    result: z.object({
      format: z.string(),
      nodes: z.number().int(),
      edges: z.number().int().describe("Edges after merge rules."),
      ...truncationFields(),
      graph: z.union([d3Schema, cytoscapeSchema, z.string().describe("GraphML text.")]),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const format = parseEnum(args.format, FORMATS, { label: "format" });
        const edgeTypes = parseEdgeTypes(args.edge_types);
        const seeds = [...new Set(args.seeds.map((s) => resolveGraphRef(dataset, s)))];
        return {
          kind: "result",
          result: subgraphExport(dataset, seeds, {
            depth: args.depth,
            format,
            maxNodes: args.max_nodes,
            edgeTypes,
          }),
        };
      }),
  });
}
