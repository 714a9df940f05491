/**
 * `get_asset_metadata`: an asset's raw metadata, whole keys within a
 * character budget.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { assetMetadata } from "../inventory/asset_report.ts";
import { countsSchema } from "../schemas/results.ts";

/** The tool's name. */
export const GET_ASSET_METADATA = "get_asset_metadata";

/** Builds the tool for one connection. */
export function getAssetMetadataTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: GET_ASSET_METADATA,
    toolset: "inventory",
    sensitivity: "restricted",
    description:
      "Read an asset's raw metadata (configuration as collected: policies, addresses, settings). Returns the keys asked for (all keys when keys is empty), each whole, while the JSON stays within max_chars; keys that do not fit are listed in omitted_keys with truncated true, and key_sizes gives each key's size so you can ask for it alone. Requested keys the asset lacks are in missing_keys. get_asset lists the keys first.",
    input: z.strictObject({
      ref: z.string().min(1).max(2048).describe(
        "The asset: internal id, ARN / resource id, or a name held by one asset.",
      ),
      keys: z.array(z.string().min(1).max(256)).max(200).default([]).describe(
        "Metadata keys to read; empty reads all keys in order.",
      ),
      max_chars: z.number().int().min(1000).max(200_000).default(40_000).describe(
        "Character budget of the returned metadata JSON (1000 to 200000).",
      ),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      asset: z.object({ id: z.string(), name: z.string(), type: z.string(), uri: z.string() }),
      metadata: z.record(z.string(), z.unknown()),
      key_sizes: countsSchema.describe(
        "Characters of each selected key's JSON value.",
      ),
      missing_keys: z.array(z.string()),
      omitted_keys: z.array(z.string()).describe("Keys left out to stay within max_chars."),
      chars: z.number().int(),
      truncated: z.boolean(),
      hint: z.string().optional(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const result = assetMetadata(dataset, args.ref, {
          keys: args.keys,
          maxChars: args.max_chars,
        });
        return { kind: "result", result: { dataset: dataset.name, ...result } };
      }),
  });
}
