/**
 * The shape `depends_on` and `dependents` share: an asset reference, hop and
 * item bounds, and a breadth-first walk over the dependency graph in one
 * direction.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import {
  assetRefArgument,
  type CloudContext,
  datasetArgument,
  withDataset,
} from "./cloud_context.ts";
import type { DependencyListOptions, DependencyListResult } from "../graph/dependencies.ts";
import { resolveAsset } from "../model/references.ts";
import type { DatasetView } from "../model/view.ts";
import { assetBriefSchema, truncationFields } from "../schemas/results.ts";
import { mostArgument } from "../schemas/arguments.ts";

/** What differs between the two walk tools. */
export interface DependencyWalkToolOptions {
  /** The tool's name. */
  name: string;
  /** The tool's description. */
  description: string;
  /** The walk in the tool's direction. */
  walk: (
    view: DatasetView,
    assetId: string,
    options: DependencyListOptions,
  ) => DependencyListResult;
}

/** Builds a dependency walk tool for one connection. */
export function dependencyWalkTool(
  ctx: CloudContext,
  options: DependencyWalkToolOptions,
): ToolDefinition {
  return defineTool({
    name: options.name,
    toolset: "graph",
    sensitivity: "confidential",
    description: options.description,
    input: z.strictObject({
      ref: assetRefArgument,
      max_depth: mostArgument("dependency hops", 15, 3),
      limit: mostArgument("items listed", 500, 100),
      dataset: datasetArgument,
    }),
    result: z.object({
      asset: assetBriefSchema,
      total: z.number().int(),
      returned: z.number().int(),
      ...truncationFields("limit and/or max_nodes."),
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
      withDataset(ctx, args.dataset, (dataset) => {
        const asset = resolveAsset(dataset, args.ref);
        return {
          kind: "result",
          result: options.walk(dataset, asset.id, {
            maxDepth: args.max_depth,
            limit: args.limit,
          }),
        };
      }),
  });
}
