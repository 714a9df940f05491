/**
 * `list_tags`: the tag keys of a dataset's assets with their commonest
 * values.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { listTags } from "../inventory/tags.ts";
import { mostArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const LIST_TAGS = "list_tags";

/** Builds the tool for one connection. */
export function listTagsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: LIST_TAGS,
    toolset: "inventory",
    sensitivity: "confidential",
    description:
      "List tag keys by how many assets carry them (at most top keys), each with its distinct value count and five commonest values. With key, show that key alone with up to top values. Use the result as find_assets tag filters (`key` or `key=value`).",
    input: z.strictObject({
      key: z.string().max(256).default("").describe("One tag key to detail; empty lists keys."),
      top: mostArgument("keys (or, with key, most values) returned", 200, 30),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      total_keys: z.number().int(),
      keys: z.array(z.object({
        key: z.string(),
        assets: z.number().int(),
        distinct_values: z.number().int(),
        top_values: z.array(z.object({ value: z.string(), count: z.number().int() })),
      })),
      truncated: z.boolean(),
      hint: z.string().optional(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const listing = listTags(dataset, { key: args.key || undefined, top: args.top });
        const hint = args.key && listing.keys.length === 0
          ? "No asset carries that tag key; call list_tags without key to see the keys."
          : undefined;
        return {
          kind: "result",
          result: { dataset: dataset.name, ...listing, ...(hint ? { hint } : {}) },
        };
      }),
  });
}
