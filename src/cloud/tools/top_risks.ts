/**
 * `top_risks`: the assets whose open findings matter most, scored by the
 * worst finding, internet exposure, blast radius and finding count.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { topRisks } from "../graph/risk.ts";
import { SEVERITIES } from "../model/enums.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { assetBriefSchema, findingBriefSchema, truncationFields } from "../schemas/results.ts";
import { severityFilterArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const TOP_RISKS = "top_risks";

/** Builds the tool for one connection. */
export function topRisksTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: TOP_RISKS,
    toolset: "findings",
    sensitivity: "confidential",
    description:
      "Rank the assets with open findings by risk: score = worst finding risk × exposure (1.5 when internet-exposed or reachable from the internet) × blast factor (from transitive dependents up to depth 6) × volume factor (from the open finding count), rounded to 2 decimals; ties by name. Each row has the asset brief, the score, its components and the three riskiest findings. min_severity makes only findings at or above it count. Use this to decide what to fix first; total_candidates says how many assets were scored.",
    input: z.strictObject({
      top: z.number().int().min(1).max(100).default(10).describe("Rows returned (1 to 100)."),
      min_severity: severityFilterArgument(
        "Only findings of this severity or worse count (any case); empty counts all.",
      ),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      items: z.array(z.object({
        asset: assetBriefSchema,
        score: z.number(),
        components: z.object({
          max_finding_risk: z.number(),
          exposure_factor: z.number(),
          internet_reachable: z.boolean(),
          transitive_dependents: z.number().int(),
          blast_factor: z.number(),
          open_findings: z.number().int(),
          volume_factor: z.number(),
        }),
        top_findings: z.array(findingBriefSchema),
      })),
      total_candidates: z.number().int().describe("Assets with counting findings, all scored."),
      formula: z.string(),
      ...truncationFields(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const minSeverity = args.min_severity === ""
          ? undefined
          : parseEnum(args.min_severity, SEVERITIES, { label: "severity" });
        const ranked = topRisks(dataset, {
          top: args.top,
          ...(minSeverity === undefined ? {} : { minSeverity }),
        });
        return { kind: "result", result: { dataset: dataset.name, ...ranked } };
      }),
  });
}
