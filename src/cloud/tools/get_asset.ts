/**
 * `get_asset`: one asset in depth — brief, tags, service, relations with a
 * sample of its edges, direct dependencies, degree, open findings and
 * metadata keys.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { assetReport } from "../inventory/asset_report.ts";
import {
  assetBriefSchema,
  countsSchema,
  edgeBriefSchema,
  findingBriefSchema,
} from "../schemas/results.ts";

/** The tool's name. */
export const GET_ASSET = "get_asset";

/** Builds the tool for one connection. */
export function getAssetTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: GET_ASSET,
    toolset: "inventory",
    sensitivity: "confidential",
    description:
      "Show one asset in depth: its brief with tags, the cloud service it belongs to, relation counts per edge type in and out with a sample of up to max_relations edges, direct dependencies and dependents, degree, up to 25 open findings (riskiest first), its metadata keys (at most 100; read values with get_asset_metadata) and when it was collected. ref is an id, ARN, cloud resource id or unique name; an unknown or ambiguous ref fails with suggestions. Links the asset and its neighbours as resources.",
    input: z.strictObject({
      ref: z.string().min(1).max(2048).describe(
        "The asset: internal id, ARN / resource id, or a name held by one asset.",
      ),
      include_findings: z.boolean().default(true).describe("Include up to 25 open findings."),
      max_relations: z.number().int().min(0).max(200).default(20).describe(
        "Most edges in relations.sample (0 to 200).",
      ),
      dataset: datasetArgument,
    }),
    result: assetBriefSchema.extend({
      dataset: z.string(),
      tags: z.record(z.string(), z.string()),
      service: z.string().nullable().describe("The service from the ARN or resource id, or null."),
      relations: z.object({
        outgoing: countsSchema,
        incoming: countsSchema,
        sample: z.array(edgeBriefSchema),
        total: z.number().int().describe("Edges touching the asset."),
        truncated: z.boolean(),
      }),
      dependencies: z.object({
        direct_depends_on: z.number().int(),
        direct_dependents: z.number().int(),
      }),
      degree: z.object({ in: z.number().int(), out: z.number().int() }),
      findings: z.array(findingBriefSchema).optional(),
      metadata_keys: z.array(z.string()),
      collected_at: z.string(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const report = assetReport(dataset, args.ref, {
          includeFindings: args.include_findings,
          maxRelations: args.max_relations,
        });
        return {
          kind: "result",
          result: { dataset: dataset.name, ...report },
          // The asset resources read the active dataset: link them only for it.
          links: ctx.workspace.activeName === dataset.name
            ? [
              { uri: report.uri, name: report.name, mimeType: "application/json" },
              {
                uri: `${report.uri}/neighbors`,
                name: `${report.name} neighbours`,
                mimeType: "application/json",
              },
            ]
            : [],
        };
      }),
  });
}
