/**
 * `compliance_gaps`: the assets that keep a dataset out of compliance,
 * worst first.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import {
  type CloudContext,
  datasetPageArguments,
  pageSchema,
  withDataset,
} from "../context/cloud_context.ts";
import { complianceGaps, requireFrameworks } from "../compliance/rollup.ts";
import { paginate } from "../model/cursors.ts";
import { frameworkFilterArgument, severityFilterArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const COMPLIANCE_GAPS = "compliance_gaps";

/** Builds the tool for one connection. */
export function complianceGapsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: COMPLIANCE_GAPS,
    toolset: "compliance",
    sensitivity: "confidential",
    description:
      'List the assets with open findings under a framework (from failing compliance results or framework tags), worst severity first, then most open findings: per asset the frameworks, the failing controls ("<framework> <control id>"), open findings and worst severity. Findings on no known asset form `unmapped:<resource>` rows. framework is an exact name (any case) or else a part of names, empty means every framework; min_severity ignores milder findings. Paginated with next_cursor.',
    input: z.strictObject({
      framework: frameworkFilterArgument("covers"),
      min_severity: severityFilterArgument(
        "Only findings of this severity or worse count (any case); empty counts all.",
      ),
      ...datasetPageArguments,
    }),
    result: pageSchema(z.object({
      asset: z.string().describe(
        "The asset's id (as list_findings' asset_id and find_assets' id), or unmapped:<resource>.",
      ),
      name: z.string().nullable(),
      frameworks: z.array(z.string()),
      failing_controls: z.array(z.string()),
      open_findings: z.number().int(),
      max_severity: z.string(),
    })).extend({ dataset: z.string() }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        if (args.framework !== "") requireFrameworks(dataset, args.framework);
        const gaps = complianceGaps(dataset, {
          framework: args.framework,
          min_severity: args.min_severity,
        });
        const page = paginate(gaps, {
          limit: args.limit,
          cursor: args.cursor ?? null,
          scope: dataset,
          filters: { framework: args.framework, min_severity: args.min_severity },
        });
        return { kind: "result", result: { dataset: dataset.name, ...page } };
      }),
  });
}
