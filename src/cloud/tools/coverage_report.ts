/**
 * `coverage_report`: what the collector covered and what failed, as the
 * dataset recorded it.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { coverageReport } from "../inventory/coverage.ts";

/** The tool's name. */
export const COVERAGE_REPORT = "coverage_report";

/** Builds the tool for one connection. */
export function coverageReportTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: COVERAGE_REPORT,
    toolset: "inventory",
    sensitivity: "internal",
    description:
      "Show the collector's coverage records held in a dataset (per provider, account, region and service: collected or failed) with totals and coverage_pct (successful records as a percentage). Only inventories exported with coverage data have records; otherwise the list is empty and a hint says so. Use it to judge whether an absence in the data means absent in the cloud.",
    input: z.strictObject({ dataset: datasetArgument }),
    result: z.object({
      dataset: z.string(),
      kind: z.string(),
      records: z.array(z.unknown()),
      totals: z.object({
        records: z.number().int(),
        success: z.number().int(),
        failure: z.number().int(),
        other: z.number().int(),
      }),
      coverage_pct: z.number().nullable(),
      hint: z.string().optional(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        return {
          kind: "result",
          result: { dataset: dataset.name, kind: dataset.kind, ...coverageReport(dataset) },
        };
      }),
  });
}
