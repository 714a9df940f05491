/**
 * `list_findings`: findings filtered by severity, tool, framework, resource
 * or text, highest risk first, a page at a time.
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
import { parseFindingFields, projectFinding } from "../findings/fields.ts";
import { listFindings } from "../findings/queries.ts";
import { countsSchema, findingBriefSchema } from "../schemas/results.ts";

/** The tool's name. */
export const LIST_FINDINGS = "list_findings";

const text = (max: number, what: string) => z.string().max(max).default("").describe(what);

/** Builds the tool for one connection. */
export function listFindingsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: LIST_FINDINGS,
    toolset: "findings",
    sensitivity: "confidential",
    description:
      "List security findings of a dataset, open ones only unless include_suppressed, highest risk first by default. Filters combine with AND: severities, min_severity, source_tool (exact), framework (substring of a framework tag or compliance result), resource (an asset reference or a raw resource id/ARN) and query (substring of id, title, description or resource). Returns one page of finding briefs (fields can cut them down; id always stays) plus the severity breakdown of every match. Use get_finding for one finding's text and findings_summary for counts.",
    input: z.strictObject({
      severities: z.array(z.string().max(16)).max(5).default([]).describe(
        "Keep only these severities (CRITICAL, HIGH, MEDIUM, LOW, INFO; any case); empty keeps all.",
      ),
      min_severity: text(16, "Keep this severity and worse (any case); empty keeps all."),
      source_tool: text(100, "Keep findings of this tool only (prowler, trivy…; any case)."),
      framework: text(200, "Keep findings mapped to a framework whose name contains this."),
      resource: text(
        2048,
        "Keep findings of one asset (id, ARN, name…) or of a raw resource id / ARN.",
      ),
      query: text(500, "Case-insensitive text in the id, title, description or resource."),
      include_suppressed: z.boolean().default(false).describe("Also list suppressed findings."),
      sort_by: z.string().max(16).default("risk").describe(
        "risk (default), severity (worst first), detected_at, title or source_tool.",
      ),
      fields: z.array(z.string().max(32)).max(14).default([]).describe(
        "Brief fields to return (id, title, severity, risk_score, source_tool, resource_id, resource_arn, asset_id, asset_name, compliance_frameworks, is_suppressed, cvss_score, detected_at, uri); empty returns all, id is always first.",
      ),
      ...datasetPageArguments,
    }),
    result: pageSchema(findingBriefSchema.partial().required({ id: true })).extend({
      dataset: z.string(),
      severity_breakdown: countsSchema.describe(
        "Matches per severity over every page, worst first; zeros left out.",
      ),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const fields = parseFindingFields(args.fields);
        const page = listFindings(dataset, {
          ...(args.severities.length > 0 ? { severities: args.severities } : {}),
          min_severity: args.min_severity,
          source_tool: args.source_tool,
          framework: args.framework,
          resource: args.resource,
          query: args.query,
          include_suppressed: args.include_suppressed,
          sort_by: args.sort_by,
          limit: args.limit,
          cursor: args.cursor ?? null,
        });
        return {
          kind: "result",
          result: {
            dataset: dataset.name,
            ...page,
            items: page.items.map((brief) => projectFinding(brief, fields)),
          },
        };
      }),
  });
}
