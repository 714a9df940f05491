/**
 * `export_terraform`: writes Terraform import skeletons for a dataset's assets.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, translated } from "../context/cloud_context.ts";
import { requireMapped, terraformFiles, terraformPlan } from "../export/terraform.ts";
import { writtenFileSchema } from "../schemas/results.ts";
import { exportTarget, writeOutputFiles, WRITES_OUTPUT_FILES } from "../context/writes.ts";
import { assetRefsArgument, typeNamesArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const EXPORT_TERRAFORM = "export_terraform";

/** Builds the tool for one connection. */
export function exportTerraformTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: EXPORT_TERRAFORM,
    toolset: "export",
    sensitivity: "confidential",
    description:
      "Write Terraform files for the selected assets under the operator's output directory (--output-dir; needs --allow-file-writes): provider.tf.json, variables.tf.json, main.tf.json (one resource skeleton per mapped asset, with its name and tags) and import_commands.sh (terraform import per resource). The skeletons are a starting point for terraform import, not a full configuration. Unmapped assets are counted and skipped; a selection with no mapped asset is refused. See terraform_preview first.",
    input: z.strictObject({
      subdir: z.string().max(200).default("terraform").describe(
        "Directory under the output directory to write into (made when missing; A-Z a-z 0-9 _ . - /, no '..', at most 200).",
      ),
      refs: assetRefsArgument("export"),
      asset_types: typeNamesArgument(
        200,
        "Asset types (any case) to keep; empty keeps every type.",
      ),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      output_dir: z.string(),
      mapped: z.number().int(),
      unmapped: z.number().int(),
      by_type: z.array(z.object({ terraform_type: z.string(), count: z.number().int() })),
      files: z.array(writtenFileSchema),
    }),
    ...WRITES_OUTPUT_FILES,
    run: (args) =>
      translated(async () => {
        const { outputDir, dataset } = await exportTarget(ctx, args);
        const plan = requireMapped(
          terraformPlan(dataset, { refs: args.refs, assetTypes: args.asset_types }),
        );
        const files = await writeOutputFiles(ctx, args.subdir, terraformFiles(dataset, plan));
        return {
          kind: "result",
          result: {
            dataset: dataset.name,
            output_dir: outputDir,
            mapped: plan.mapped,
            unmapped: plan.unmapped,
            by_type: plan.by_type,
            files,
          },
        };
      }),
  });
}
