/**
 * `cross_account_edges`: relationships between accounts, subscriptions or
 * projects, flagging external accounts.
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
import { crossAccountEdges } from "../graph/cross_account.ts";
import { paginate } from "../model/cursors.ts";
import { typeNamesArgument } from "../schemas/arguments.ts";
import { parseEdgeTypes } from "../schemas/argument_parsing.ts";
import { countsSchema } from "../schemas/results.ts";

/** The tool's name. */
export const CROSS_ACCOUNT_EDGES = "cross_account_edges";

const rowSchema = z.object({
  source: z.string().describe(
    "The source's ARN, else its id; a principal the dataset does not hold, as the policy names it.",
  ),
  source_account: z.string(),
  target: z.string(),
  target_account: z.string(),
  edge_type: z.string(),
  relationship: z.string().nullable(),
  external: z.boolean().describe(
    "Either end is marked external, or is a principal outside the dataset in an account no asset of the dataset belongs to.",
  ),
});

/** Builds the tool for one connection. */
export function crossAccountEdgesTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: CROSS_ACCOUNT_EDGES,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "List the edges whose two ends are in different accounts, subscriptions or projects (organisation containment left out), with the accounts of each end and whether either is external. An end is an asset, or a principal the dataset does not hold (an external role, an account root) with the account its ARN names; external means an end marked external or in an account no asset of the dataset belongs to, which may also be an account of your own that the dataset leaves out. Also returns by_account_pair counts over every match. Filter by an account at either end, external accounts only, or edge types. Paginated with next_cursor.",
    input: z.strictObject({
      account_id: z.string().max(128).default("").describe(
        "Only edges with this account at either end (empty: any).",
      ),
      external_only: z.boolean().default(false).describe(
        "Only edges touching an account marked external.",
      ),
      edge_types: typeNamesArgument(20, "Only these edge types (empty: all)."),
      ...datasetPageArguments,
    }),
    result: pageSchema(rowSchema).extend({
      by_account_pair: countsSchema.describe(
        "Matches per 'source account -> target account', over every page.",
      ),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const edgeTypes = parseEdgeTypes(args.edge_types);
        const found = crossAccountEdges(dataset, {
          accountId: args.account_id,
          externalOnly: args.external_only,
          edgeTypes,
        });
        const page = paginate(found.items, {
          limit: args.limit,
          cursor: args.cursor,
          scope: dataset,
          filters: {
            account_id: args.account_id,
            external_only: args.external_only,
            edge_types: edgeTypes,
          },
        });
        return { kind: "result", result: { ...page, by_account_pair: found.by_account_pair } };
      }),
  });
}
