/**
 * `load_dataset`: loads a file or directory under an allowed root as a named
 * dataset, detecting its kind.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, translated } from "../context/cloud_context.ts";
import { datasetSummaryUri } from "../model/briefs.ts";
import { countsSchema, datasetSummarySchema } from "../schemas/results.ts";
import { datasetSummary } from "../workspace/summary.ts";

/** The tool's name. */
export const LOAD_DATASET = "load_dataset";

/** Builds the tool for one connection. */
export function loadDatasetTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: LOAD_DATASET,
    toolset: "workspace",
    sensitivity: "internal",
    description:
      "Load a file or directory under an allowed root as a named dataset. Kinds read: inventory (a directory holding inventory-map.json; a findings.json beside it is merged in), report (findings.json), generic ({assets, edges, findings} JSON or a list of findings), terraform (state v4, .tfstate), terraform-plan (terraform show -json of a plan), aws-api (one account's AWS CLI dump, a folder per region), iam-authorization-details (aws iam get-account-authorization-details), prowler-asff and prowler-ocsf (a JSON array or JSON Lines), prowler-csv (-M csv, semicolon-separated; prowler picks any of the three by content), checkov (-o json, or a folder holding results_json.json), trivy (-f json) and scoutsuite (scoutsuite_results*.js or its report folder). The kind is detected unless given; a file forced as a kind it is not is refused. Our own rule set runs on every load (notes.rule_findings); findings that map to no asset are counted in notes.unmapped_findings. A failed load leaves the workspace unchanged; a name already loaded is refused unless replace is true. At most 16 datasets are kept: the oldest inactive one is dropped beyond that.",
    input: z.strictObject({
      path: z.string().min(1).max(4096).describe(
        "Absolute path of the file or directory, under an allowed root.",
      ),
      name: z.string().max(64).default("").describe(
        "Dataset name (letters, digits, '_', '.', '-'; at most 64); empty derives one from the path.",
      ),
      kind: z.string().max(64).default("auto").describe(
        "auto (detect), or the input kind to force: inventory, report, generic, prowler, prowler-asff, prowler-ocsf, prowler-csv, scoutsuite, checkov, trivy, terraform, terraform-plan, aws-api, iam-authorization-details.",
      ),
      activate: z.boolean().default(true).describe("Make it the active dataset."),
      replace: z.boolean().default(false).describe("Replace a dataset of the same name."),
    }),
    result: z.object({
      loaded: z.string().describe("The dataset's name."),
      active: z.boolean(),
      replaced: z.boolean(),
      evicted: z.array(z.string()).describe("Datasets dropped to stay within 16."),
      notes: z.object({
        unknown_asset_types: countsSchema,
        unknown_edge_types: countsSchema,
        skipped: countsSchema.describe(
          "Input items not turned into records, counted per reason.",
        ),
        rule_findings: z.number().int().describe("Findings of our rule set in the dataset."),
        unmapped_findings: z.number().int().describe("Findings that map to no asset."),
        warnings: z.array(z.string()),
      }),
      summary: datasetSummarySchema,
    }),
    effects: { mutatesSession: true, idempotent: false },
    producesEvidence: false,
    run: (args, context) =>
      translated(async () => {
        await ctx.preloaded;
        await context.progress(0, 1, "loading");
        const outcome = await ctx.workspace.load(args.path, {
          ...(args.name ? { name: args.name } : {}),
          ...(args.kind && args.kind !== "auto" ? { kind: args.kind } : {}),
          activate: args.activate,
          replace: args.replace,
        });
        await context.progress(1, 1, "loaded");
        const name = outcome.dataset.name;
        return {
          kind: "result",
          result: {
            loaded: name,
            active: ctx.workspace.activeName === name,
            replaced: outcome.replaced,
            evicted: outcome.evicted,
            notes: outcome.notes,
            summary: datasetSummary(outcome.dataset),
          },
          links: [{
            uri: datasetSummaryUri(name),
            name: `${name} summary`,
            mimeType: "application/json",
          }],
        };
      }),
  });
}
