/**
 * `get_finding`: one finding in full — its text, the compliance controls
 * that name it, its suppression reason and the asset it maps to.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { findingDetail } from "../findings/detail.ts";
import { assetBriefSchema, findingBriefSchema } from "../schemas/results.ts";

/** The tool's name. */
export const GET_FINDING = "get_finding";

/** Builds the tool for one connection. */
export function getFindingTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: GET_FINDING,
    toolset: "findings",
    sensitivity: "confidential",
    description:
      "Show one finding in full: its brief plus description, evidence, remediation, the source tool's own id, the compliance controls that name it, why it was suppressed (if it is) and the asset it maps to (null when it maps to none). Takes the finding id, or a source_finding_id that is unique in the dataset; an unknown id fails with near matches in error.details.suggestions.",
    input: z.strictObject({
      finding_id: z.string().min(1).max(512).describe(
        "The finding's id (from list_findings), or its unique source_finding_id.",
      ),
      dataset: datasetArgument,
    }),
    result: findingBriefSchema.extend({
      description: z.string(),
      evidence: z.string(),
      remediation: z.string(),
      source_finding_id: z.string().nullable(),
      controls: z.array(z.object({
        framework: z.string(),
        control_id: z.string(),
        control_title: z.string(),
        status: z.string(),
      })).describe("Compliance results that name this finding."),
      suppression_reason: z.string().nullable(),
      asset: assetBriefSchema.nullable().describe("The asset it maps to, or null (unmapped)."),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const detail = findingDetail(dataset, args.finding_id);
        const links = [{
          uri: detail.uri,
          name: `finding ${detail.id}`,
          mimeType: "application/json",
        }];
        if (detail.asset) {
          links.unshift({
            uri: detail.asset.uri,
            name: `asset ${detail.asset.name}`,
            mimeType: "application/json",
          });
        }
        return { kind: "result", result: detail, links };
      }),
  });
}
