/**
 * `terraform_preview`: which assets map to which Terraform resource types.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { terraformPlan } from "../export/terraform.ts";
import { assetRefsArgument, typeNamesArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const TERRAFORM_PREVIEW = "terraform_preview";

/** Resources listed in the preview at most. */
export const PREVIEW_RESOURCE_CAP = 200;

/** Builds the tool for one connection. */
export function terraformPreviewTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: TERRAFORM_PREVIEW,
    toolset: "export",
    sensitivity: "internal",
    description:
      "Preview the Terraform mapping of a dataset's assets without writing anything: how many selected assets map to a resource type of the aws, azurerm or google provider, the counts per Terraform type, the unmapped asset types, and (up to 200) the resources with their addresses and terraform import ids. refs picks assets (empty: all); asset_types keeps only those types. Use before export_terraform.",
    input: z.strictObject({
      refs: assetRefsArgument("map"),
      asset_types: typeNamesArgument(
        200,
        "Asset types (any case, e.g. EC2, S3_BUCKET) to keep; empty keeps every type.",
      ),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      selected: z.number().int(),
      mapped: z.number().int(),
      unmapped: z.number().int(),
      by_type: z.array(z.object({ terraform_type: z.string(), count: z.number().int() })),
      unmapped_types: z.array(
        z.object({ provider: z.string(), asset_type: z.string(), count: z.number().int() }),
      ),
      providers: z.array(z.string()).describe("Terraform providers needed."),
      resources: z.array(z.object({
        asset_id: z.string(),
        display_id: z.string(),
        name: z.string(),
        asset_type: z.string(),
        provider: z.string(),
        terraform_type: z.string(),
        address: z.string(),
        import_id: z.string(),
      })),
      truncated: z.boolean().describe("True when more resources map than are listed."),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const plan = terraformPlan(dataset, { refs: args.refs, assetTypes: args.asset_types });
        return {
          kind: "result",
          result: {
            ...plan,
            resources: plan.resources.slice(0, PREVIEW_RESOURCE_CAP),
            truncated: plan.resources.length > PREVIEW_RESOURCE_CAP,
          },
        };
      }),
  });
}
