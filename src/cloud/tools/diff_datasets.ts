/**
 * `diff_datasets`: the drift between two datasets — assets, edges, findings
 * and new internet exposure.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, translated } from "../context/cloud_context.ts";
import { datasetDiffSchema } from "../schemas/results.ts";
import { diffDatasets } from "../workspace/diff.ts";

/** The tool's name. */
export const DIFF_DATASETS = "diff_datasets";

/** Builds the tool for one connection. */
export function diffDatasetsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: DIFF_DATASETS,
    toolset: "workspace",
    sensitivity: "confidential",
    description:
      "Compare two datasets: assets added, removed and changed (by ARN or id, with the fields that changed), edges added and removed, findings new, resolved and with a changed severity, and assets newly exposed to the internet. Each section holds at most limit items and says whether it was cut.",
    input: z.strictObject({
      base: z.string().min(1).max(64).describe("The earlier dataset."),
      target: z.string().max(64).default("").describe(
        "The later dataset; empty means the active one.",
      ),
      limit: z.number().int().min(1).max(500).default(50).describe("Most items per section."),
    }),
    result: datasetDiffSchema,
    ...READS_ONLY,
    run: (args) =>
      translated(async () => {
        await ctx.preloaded;
        const base = ctx.dataset(args.base);
        const target = ctx.dataset(args.target);
        return { kind: "result", result: diffDatasets(base, target, { limit: args.limit }) };
      }),
  });
}
