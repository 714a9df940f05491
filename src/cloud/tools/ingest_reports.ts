/**
 * `ingest_reports`: reads scanner reports (Prowler, ScoutSuite, Checkov,
 * Trivy) and merges their findings into an existing dataset or a new one.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, translated } from "../context/cloud_context.ts";
import { datasetSummaryUri } from "../model/briefs.ts";
import { INGEST_TOOLS, ingestReports, MAX_INGEST_PATHS } from "../findings/ingest_reports.ts";

/** The tool's name. */
export const INGEST_REPORTS = "ingest_reports";

/** Builds the tool for one connection. */
export function ingestReportsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: INGEST_REPORTS,
    toolset: "findings",
    sensitivity: "confidential",
    description: `Merge scanner reports into a dataset: reports maps a tool (${
      INGEST_TOOLS.join(", ")
    }; prowler reads ASFF or OCSF, arrays or JSON Lines, or CSV) to report paths under an allowed root. By default the findings join the named (or active) dataset in place, bumping its version; with new_dataset=true they become a new dataset (named by dataset, default "ingested"). Findings whose id the dataset already holds are counted as duplicates, not added; normalise (default true) then de-duplicates and re-maps compliance tags. Findings map to assets through the usual reference tiers; unmapped ones are counted. Every report is read before anything changes: one bad report leaves the workspace unchanged.`,
    input: z.strictObject({
      reports: z.record(z.string(), z.array(z.string().min(1).max(4096)).min(1)).describe(
        `Report paths per tool, e.g. {"prowler": ["/reports/out.ocsf.json"]}; tools: ${
          INGEST_TOOLS.join(", ")
        }; 1 to ${MAX_INGEST_PATHS} paths in all.`,
      ),
      dataset: z.string().max(64).default("").describe(
        "The dataset to merge into (empty: the active one); with new_dataset, the new dataset's name (empty: ingested, made unique as ingested-2, …).",
      ),
      new_dataset: z.boolean().default(false).describe(
        "Make a new dataset of the reports instead of merging into an existing one.",
      ),
      normalise: z.boolean().default(true).describe(
        "De-duplicate findings and re-map compliance tags after merging.",
      ),
      activate: z.boolean().default(true).describe("Make a new dataset active."),
      replace: z.boolean().default(false).describe(
        "With new_dataset, replace a dataset of the same name.",
      ),
    }),
    result: z.object({
      dataset: z.string(),
      version: z.number().int().describe("The dataset's version after the merge."),
      created: z.boolean().describe("Whether a new dataset was made."),
      replaced: z.boolean(),
      reports: z.array(z.object({
        tool: z.string(),
        kind: z.string().describe("The importer kind that read it."),
        file: z.string(),
        findings: z.number().int(),
      })),
      added: z.number().int().describe("Findings added."),
      duplicates: z.number().int().describe("Findings whose id the dataset already held."),
      normalised: z.object({ before: z.number().int(), after: z.number().int() }).nullable(),
      total_findings: z.number().int(),
      unmapped_findings: z.number().int().describe("Findings of the dataset mapping to no asset."),
    }),
    effects: { mutatesSession: true, idempotent: false },
    producesEvidence: false,
    run: (args) =>
      translated(async () => {
        await ctx.preloaded;
        const outcome = await ingestReports(ctx.workspace, args.reports, {
          ...(args.dataset ? { dataset: args.dataset } : {}),
          newDataset: args.new_dataset,
          normalise: args.normalise,
          activate: args.activate,
          replace: args.replace,
        });
        return {
          kind: "result",
          result: outcome,
          links: [{
            uri: datasetSummaryUri(outcome.dataset),
            name: `${outcome.dataset} summary`,
            mimeType: "application/json",
          }],
        };
      }),
  });
}
