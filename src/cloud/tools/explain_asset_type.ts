/**
 * `explain_asset_type`: what one asset type means and how the scores weigh
 * it.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, translated } from "../context/cloud_context.ts";
import { explainAssetType } from "../meta/vocabulary.ts";
import { ASSET_TYPES } from "../model/enums.ts";
import { parseEnum } from "../model/parse_enum.ts";

/** The tool's name. */
export const EXPLAIN_ASSET_TYPE = "explain_asset_type";

/** Builds the tool for one connection. */
export function explainAssetTypeTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: EXPLAIN_ASSET_TYPE,
    toolset: "meta",
    sensitivity: "public",
    description:
      "Explain one asset type: its family, a note where the name is ambiguous, its ontology class, its Terraform resource type when one maps cleanly, whether it is a sensitive data store, its crown-jewel weight in attack paths, whether internet exposure is expected for it, and how many assets of it the active dataset holds (null when none is loaded). The type is matched case-insensitively; a miss lists close matches.",
    input: z.strictObject({
      asset_type: z.string().min(1).max(64).describe(
        "An asset type, e.g. RDS_INSTANCE or s3_bucket.",
      ),
    }),
    result: z.object({
      asset_type: z.string(),
      family: z.string(),
      note: z.string().nullable(),
      ontology_class: z.string(),
      terraform_type: z.string().nullable(),
      sensitive_data_store: z.boolean(),
      crown_jewel_weight: z.number(),
      internet_exposure_expected: z.boolean(),
      in_active_dataset: z.number().int().nullable().describe(
        "Assets of this type in the active dataset; null when no dataset is active.",
      ),
    }),
    ...READS_ONLY,
    run: (args) =>
      translated(async () => {
        await ctx.preloaded;
        const type = parseEnum(args.asset_type, ASSET_TYPES, { label: "asset type" });
        const active = ctx.workspace.activeName;
        const count = active === null
          ? null
          : ctx.dataset(active).records.assets.filter((a) => a.asset_type === type).length;
        return { kind: "result", result: { ...explainAssetType(type), in_active_dataset: count } };
      }),
  });
}
