/**
 * `reachability_findings`: findings for the sensitive data stores the
 * internet reaches through the graph, optionally added to the dataset.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { findingBrief } from "../model/briefs.ts";
import { datasetReachabilityFindings } from "../findings/findings_mutations.ts";
import { findingBriefSchema } from "../schemas/results.ts";

/** The tool's name. */
export const REACHABILITY_FINDINGS = "reachability_findings";

/** Builds the tool for one connection. */
export function reachabilityFindingsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: REACHABILITY_FINDINGS,
    toolset: "findings",
    sensitivity: "confidential",
    description:
      "Derive findings for the sensitive data stores (databases, buckets, secrets, keys…) the internet reaches through the asset graph, nearest first (source_tool cloudg-reachability, stable UUID5 ids, CRITICAL within three hops, else HIGH). With add_to_dataset they are appended to the dataset (ids it already holds are not added twice), bumping its version, and their uri reads the finding; otherwise nothing changes.",
    input: z.strictObject({
      add_to_dataset: z.boolean().default(false).describe(
        "Append the findings to the dataset (a change: the version bumps).",
      ),
      limit: z.number().int().min(1).max(500).default(50).describe(
        "Most findings derived (1..500).",
      ),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      version: z.number().int(),
      findings: z.array(findingBriefSchema.extend({
        evidence: z.string().describe("The path from the internet, by asset name."),
      })),
      total: z.number().int(),
      added: z.number().int().describe("Findings added to the dataset."),
    }),
    effects: { mutatesSession: true, idempotent: true },
    producesEvidence: false,
    run: (args) =>
      withDataset(ctx, args.dataset, async (dataset) => {
        const outcome = await datasetReachabilityFindings(ctx.workspace, {
          dataset: dataset.name,
          limit: args.limit,
          add: args.add_to_dataset,
        });
        const view = ctx.workspace.dataset(dataset.name);
        return {
          kind: "result",
          result: {
            dataset: outcome.dataset,
            version: outcome.version,
            findings: outcome.findings.map((f) => ({
              ...findingBrief(view, f),
              evidence: f.evidence,
            })),
            total: outcome.findings.length,
            added: outcome.added,
          },
        };
      }),
  });
}
