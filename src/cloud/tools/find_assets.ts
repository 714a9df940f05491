/**
 * `find_assets`: search a dataset's assets with AND-combined filters, sort
 * them, and page through briefs (optionally projected to a few fields).
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
import {
  ASSET_FIELDS,
  ASSET_SORTS,
  type AssetField,
  findAssets,
  projectAsset,
} from "../inventory/find_assets.ts";
import { paginate } from "../model/cursors.ts";
import { PROVIDERS, SEVERITIES } from "../model/enums.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { assetBriefSchema } from "../schemas/results.ts";
import { severityFilterArgument, typeNamesArgument } from "../schemas/arguments.ts";
import { parseAssetTypes } from "../schemas/argument_parsing.ts";

/** The tool's name. */
export const FIND_ASSETS = "find_assets";

/** Builds the tool for one connection. */
export function findAssetsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: FIND_ASSETS,
    toolset: "inventory",
    sensitivity: "confidential",
    description:
      "Search the assets of a dataset. Filters combine with AND: query (case-insensitive substring of the name, ARN, id or a tag value), provider, asset_types, region (exact, any case), account_id (exact), tag (`key` or `key=value`), internet_exposed, has_findings (open findings) and min_severity (an open finding at or above it). Sort by name, type, region, account, risk (worst open finding risk + 2 when exposed, then open count; highest first) or findings (open count; highest first); descending reverses the order. fields keeps only some brief fields (id always first). Paginated: pass next_cursor to continue; a hint says what to try when nothing matches. Use get_asset for one asset in depth.",
    input: z.strictObject({
      query: z.string().max(500).default("").describe(
        "Case-insensitive substring of the name, ARN, id or a tag value; empty matches all.",
      ),
      provider: z.string().max(16).default("").describe(
        "AWS, AZURE or GCP (any case); empty for all.",
      ),
      asset_types: typeNamesArgument(
        156,
        "Asset types to keep (any case, e.g. EC2, s3_bucket); empty for all.",
      ),
      region: z.string().max(64).default("").describe("Exact region (any case); empty for all."),
      account_id: z.string().max(128).default("").describe(
        "Exact account, subscription or project id (unknown: the assets without one, as list_accounts counts them); empty for all.",
      ),
      tag: z.string().max(256).default("").describe(
        "`key` (tag present) or `key=value`; empty for all.",
      ),
      internet_exposed: z.boolean().optional().describe(
        "Only exposed (true) or unexposed (false) assets.",
      ),
      has_findings: z.boolean().optional().describe(
        "Only assets with (true) or without (false) open findings.",
      ),
      min_severity: severityFilterArgument(
        "Only assets with an open finding at or above this severity (CRITICAL, HIGH, MEDIUM, LOW, INFO); empty for all.",
      ),
      sort_by: z.string().max(16).default("name").describe(
        "name, type, region, account, risk or findings. Default name.",
      ),
      descending: z.boolean().default(false).describe("Reverse the sort order."),
      fields: z.array(z.string().max(32)).max(12).default([]).describe(
        `Brief fields to keep (${
          ASSET_FIELDS.join(", ")
        }); id is always kept; empty for the full brief without tags.`,
      ),
      ...datasetPageArguments,
    }),
    result: pageSchema(assetBriefSchema.partial().extend({ id: z.string() })).extend({
      dataset: z.string(),
      hint: z.string().optional().describe("What to try when nothing matched."),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const provider = args.provider
          ? parseEnum(args.provider, PROVIDERS, { label: "provider" })
          : undefined;
        const assetTypes = parseAssetTypes(args.asset_types);
        const minSeverity = args.min_severity
          ? parseEnum(args.min_severity, SEVERITIES, { label: "severity" })
          : undefined;
        const sortBy = parseEnum(args.sort_by, ASSET_SORTS, { label: "sort order" });
        const fields = args.fields.map((f) =>
          parseEnum(f, ASSET_FIELDS, { label: "field" }) as AssetField
        );
        const matches = findAssets(dataset, {
          query: args.query || undefined,
          provider,
          assetTypes,
          region: args.region || undefined,
          accountId: args.account_id || undefined,
          tag: args.tag || undefined,
          internetExposed: args.internet_exposed,
          hasFindings: args.has_findings,
          minSeverity,
        }, { sortBy, descending: args.descending });
        const { limit, cursor, dataset: _name, ...filters } = args;
        const page = paginate(matches, {
          limit,
          cursor,
          scope: dataset,
          filters: {
            ...filters,
            provider: provider ?? "",
            asset_types: assetTypes,
            min_severity: minSeverity ?? "",
            fields,
            sort_by: sortBy,
          },
          render: (asset) => projectAsset(dataset, asset, fields),
        });
        const result = {
          dataset: dataset.name,
          ...page,
          ...(page.total === 0
            ? {
              hint: dataset.records.assets.length === 0
                ? "The dataset holds no assets; load another with load_dataset."
                : "Nothing matched every filter: drop a filter, shorten query, or use count_assets and list_asset_types to see what the dataset holds.",
            }
            : {}),
        };
        return { kind: "result", result };
      }),
  });
}
