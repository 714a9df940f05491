/**
 * `internet_exposure`: the assets flagged as reachable from the internet,
 * with the rules that expose them, sensitive ports and WAF cover.
 *
 * @module
 */

import { INTERNET_ENTRY_RULE } from "../graph/internet.ts";
import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import {
  type CloudContext,
  datasetPageArguments,
  pageSchema,
  withDataset,
} from "../context/cloud_context.ts";
import { internetExposure } from "../graph/exposure.ts";
import { paginate } from "../model/cursors.ts";
import { assetBriefSchema, nodeBriefSchema } from "../schemas/results.ts";
import { typeNamesArgument } from "../schemas/arguments.ts";
import { parseAssetTypes } from "../schemas/argument_parsing.ts";

/** The tool's name. */
export const INTERNET_EXPOSURE = "internet_exposure";

const exposureItemSchema = assetBriefSchema.extend({
  internet_rules: z.array(z.object({
    edge_type: z.string(),
    ports: z.string().describe("The port range, else the first ten ports, else all."),
    protocol: z.string().nullable(),
    via: z.string().nullable().describe(
      "The security group or NSG the rule comes through, else the rule's description.",
    ),
  })).describe("At most ten internet entries reaching the asset."),
  sensitive_ports_open: z.array(z.number().int()).describe(
    "Open ports among 22, 3389, 3306, 5432, 1433, 27017, 6379, 9200, 5601, 8080, 8443.",
  ),
  protected_by_waf: z.boolean(),
  internet_route: z.string().nullable().describe(
    "internet_gateway: the route table of the asset's subnet (or the VPC's main table) sends 0.0.0.0/0 or ::/0 to an internet gateway; not_checked: the input holds no route table for its subnet, so the exposure rests on its public address and open rules alone; null: routing not looked at (public grants, inventories).",
  ),
});

/** Builds the tool for one connection. */
export function internetExposureTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: INTERNET_EXPOSURE,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "List the assets flagged as internet-exposed (the targets of internet entries granting or trusting any principal `*` included) with their evidence: up to ten internet entries (directly or through attached security groups / NSGs), the sensitive ports they open, and whether a WAF protects them. A resource behind an open security group counts only with a public address the rules' family reaches (::/0 rules need an IPv6 address, 0.0.0.0/0 rules a public IPv4 one) and, when the input holds its subnet's route table, a default route of that family to an internet gateway (internet_route says whether routes were checked); a managed database, warehouse, cache or search domain counts only when a rule opens the port it listens on; ingress CIDRs that together cover every address (0.0.0.0/1 + 128.0.0.0/1) count as the internet. Most sensitive ports first, then unprotected before protected, then most open findings. include_reachable adds graph_reachable: the assets the network hops of the flow graph reach from the internet (at most limit of them); identity pivots (ASSUMES_ROLE, IAM_TRUST, GRANTS_ACCESS), which find_paths and attack_paths also follow, are not followed here. Paginated with next_cursor." +
      " " + INTERNET_ENTRY_RULE,
    input: z.strictObject({
      asset_types: typeNamesArgument(
        50,
        "Only these asset types, e.g. EC2 or S3_BUCKET (empty: all).",
      ),
      include_reachable: z.boolean().default(false).describe(
        "Also list the assets reachable from the internet over the flow graph's network hops (not identity pivots).",
      ),
      ...datasetPageArguments,
    }),
    result: pageSchema(exposureItemSchema).extend({
      graph_reachable: z.object({
        total: z.number().int(),
        truncated: z.boolean(),
        items: z.array(nodeBriefSchema),
      }).optional(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const assetTypes = parseAssetTypes(args.asset_types);
        const found = internetExposure(dataset, {
          assetTypes,
          includeReachable: args.include_reachable,
          limit: args.limit,
        });
        const page = paginate(found.items, {
          limit: args.limit,
          cursor: args.cursor,
          scope: dataset,
          filters: { asset_types: assetTypes, include_reachable: args.include_reachable },
        });
        return {
          kind: "result",
          result: found.graph_reachable === undefined
            ? page
            : { ...page, graph_reachable: found.graph_reachable },
        };
      }),
  });
}
