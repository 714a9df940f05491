/**
 * `normalise_findings`: de-duplicates a dataset's findings and re-maps their
 * compliance tags, in place.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { normaliseDatasetFindings } from "../findings/findings_mutations.ts";

/** The tool's name. */
export const NORMALISE_FINDINGS = "normalise_findings";

/** Builds the tool for one connection. */
export function normaliseFindingsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: NORMALISE_FINDINGS,
    toolset: "findings",
    sensitivity: "internal",
    description:
      "Normalise a dataset's findings in place: findings of the same tool, check and resource merge into one (worst severity, union of framework tags), framework tags are normalised (CIS-1.4 → CIS and CIS-AWS…), and Prowler checks our rules match gain the CIS frameworks those rules map to. Returns the counts before and after, the merged ids and the frameworks; the version bumps only when something changed.",
    input: z.strictObject({ dataset: datasetArgument }),
    result: z.object({
      dataset: z.string(),
      version: z.number().int(),
      changed: z.boolean().describe("Whether the findings changed (and the version bumped)."),
      before: z.number().int(),
      after: z.number().int(),
      merged_ids: z.array(z.string()).describe("Ids merged into an earlier duplicate."),
      frameworks: z.array(z.string()).describe("Every framework tag afterwards, sorted."),
    }),
    effects: { mutatesSession: true, idempotent: true },
    producesEvidence: false,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        return {
          kind: "result",
          result: normaliseDatasetFindings(ctx.workspace, dataset.name),
        };
      }),
  });
}
