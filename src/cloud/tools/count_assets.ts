/**
 * `count_assets`: how many assets there are per type, provider, region,
 * account, service, exposure or worst open severity.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { COUNT_GROUPS, countAssets } from "../inventory/asset_counts.ts";
import { PROVIDERS } from "../model/enums.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { mostArgument, typeNamesArgument } from "../schemas/arguments.ts";
import { parseAssetTypes } from "../schemas/argument_parsing.ts";

/** The tool's name. */
export const COUNT_ASSETS = "count_assets";

/** Builds the tool for one connection. */
export function countAssetsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: COUNT_ASSETS,
    toolset: "inventory",
    sensitivity: "internal",
    description:
      "Count assets grouped by type, provider, region, account, service, exposure (exposed / not_exposed) or severity (worst open finding; NONE without any), largest group first, at most top groups. Optional filters (AND) narrow what is counted. Cheaper than paging find_assets when only numbers are needed.",
    input: z.strictObject({
      group_by: z.string().max(16).default("type").describe(
        "type, provider, region, account, service, exposure or severity. Default type.",
      ),
      provider: z.string().max(16).default("").describe("AWS, AZURE or GCP; empty for all."),
      asset_types: typeNamesArgument(156, "Asset types to count (any case); empty for all."),
      region: z.string().max(64).default("").describe("Exact region (any case); empty for all."),
      account_id: z.string().max(128).default("").describe(
        "Exact account id (unknown: the assets without one); empty for all.",
      ),
      internet_exposed: z.boolean().optional().describe(
        "Only exposed (true) or unexposed (false) assets.",
      ),
      top: mostArgument("groups returned", 500, 50),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      group_by: z.string(),
      total: z.number().int().describe("Assets counted."),
      group_count: z.number().int().describe("Groups, before top."),
      groups: z.array(z.object({ key: z.string(), count: z.number().int() })),
      truncated: z.boolean(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const groupBy = parseEnum(args.group_by, COUNT_GROUPS, { label: "grouping" });
        const counts = countAssets(dataset, groupBy, {
          top: args.top,
          filter: {
            provider: args.provider
              ? parseEnum(args.provider, PROVIDERS, { label: "provider" })
              : undefined,
            assetTypes: parseAssetTypes(args.asset_types),
            region: args.region || undefined,
            accountId: args.account_id || undefined,
            internetExposed: args.internet_exposed,
          },
        });
        return { kind: "result", result: { dataset: dataset.name, group_by: groupBy, ...counts } };
      }),
  });
}
