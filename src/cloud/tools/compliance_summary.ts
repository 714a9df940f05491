/**
 * `compliance_summary`: one rollup row per compliance framework of a
 * dataset — controls evaluated, failing and passing, pass rate, open
 * findings and affected assets.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { complianceRollup, datasetFrameworks } from "../compliance/rollup.ts";
import { frameworkFilterArgument } from "../schemas/arguments.ts";
import { countsSchema } from "../schemas/results.ts";

/** The tool's name. */
export const COMPLIANCE_SUMMARY = "compliance_summary";

/** Most compliance resources linked from one answer. */
const MAX_LINKS = 5;

/** Builds the tool for one connection. */
export function complianceSummaryTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: COMPLIANCE_SUMMARY,
    toolset: "compliance",
    sensitivity: "internal",
    description:
      "Summarise compliance posture per framework of a dataset (from its compliance results and the frameworks its findings are tagged with): controls evaluated, failing, passing and other, pass rate (passing / evaluated × 100, one decimal, null when nothing was evaluated), open findings by severity and affected assets; most open findings first. framework keeps the exact name (any case) or else every name containing it (CIS gives all CIS frameworks). Links the first five frameworks' compliance resources; when nothing matches, hint says why.",
    input: z.strictObject({
      framework: frameworkFilterArgument("summarises"),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      total: z.number().int(),
      frameworks: z.array(z.object({
        framework: z.string(),
        controls_evaluated: z.number().int(),
        controls_failing: z.number().int(),
        controls_passing: z.number().int(),
        controls_other: z.number().int().describe("NOT_APPLICABLE and MANUAL controls."),
        pass_rate: z.number().nullable(),
        open_findings: z.number().int(),
        severity_breakdown: countsSchema,
        affected_assets: z.number().int().describe(
          "Distinct assets of the dataset with open findings; findings that map to no asset are counted in open_findings only.",
        ),
        uri: z.string(),
      })),
      hint: z.string().optional(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const rows = complianceRollup(dataset, args.framework);
        const result: {
          dataset: string;
          total: number;
          frameworks: typeof rows;
          hint?: string;
        } = { dataset: dataset.name, total: rows.length, frameworks: rows };
        if (rows.length === 0) {
          const known = datasetFrameworks(dataset);
          result.hint = known.length === 0
            ? "This dataset has no compliance results and no finding tagged with a framework. " +
              "list_frameworks names the ruleset frameworks; ingesting scanner reports that map " +
              "findings to frameworks gives this tool something to summarise."
            : `No framework of the dataset matches ${
              JSON.stringify(args.framework)
            }; its frameworks are ${known.join(", ")}.`;
        }
        return {
          kind: "result",
          result,
          links: rows.slice(0, MAX_LINKS).map((row) => ({
            uri: row.uri,
            name: `${row.framework} compliance`,
            mimeType: "application/json",
          })),
        };
      }),
  });
}
