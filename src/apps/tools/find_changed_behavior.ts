/**
 * `find_changed_behavior`: changed behaviour across retained comparisons.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import type { EvidenceRecord } from "../../core/evidence.ts";
import { COMPARE_OPERATION, CORRELATE_OPERATION, findChangedBehavior } from "../capture/changes.ts";
import { PROCESS_PROVIDER } from "../capture/result.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { inlineEvidenceSchema, verifiedInlineRecord } from "../context/inline_evidence.ts";
import { changedBehaviorResultSchema } from "../schemas/capture_results.ts";
import {
  EVIDENCE_ID_FIELD,
  limitField,
  offsetField,
  unknownRegistryApprovedField,
} from "../schemas/inputs.ts";
import { FIND_CHANGED_BEHAVIOR } from "../tool_names.ts";

/** Aggregates complete, compatible process comparisons into what changed. */
export function findChangedBehaviorTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: FIND_CHANGED_BEHAVIOR,
    toolset: "capture",
    description:
      "Aggregate retained compare_process_captures Evidence into what changed and in which dimensions. Only compatible comparisons count (valid v4 sources under one contract and one environment, links exactly the two sources, no dimension truncated, and no dimension unknown unless another changed: those are listed as undetermined); every other record is listed as excluded with the reason. Each item names the procedures crashes of its captures were correlated to (correlate_static_and_runtime). Starts nothing.",
    input: z.strictObject({
      evidence_ids: z.array(EVIDENCE_ID_FIELD).max(1000).optional().describe(
        "Comparison Evidence ids; every retained comparison when neither this nor comparisons is given.",
      ),
      comparisons: z.array(inlineEvidenceSchema).max(100).default([]).describe(
        "REA's form: compare_process_captures Evidence records given whole (each checked against its id); aggregated with evidence_ids.",
      ),
      investigation_run: z.looseObject({
        approved: z.literal(true),
        workspace_path: z.string().min(1).max(4096),
        left_path: z.string().min(1).max(4096),
        right_path: z.string().min(1).max(4096),
      }).optional().describe(
        "REA's persistent cross-version investigation. Not run by this server: the call fails and says which tools do the same steps.",
      ),
      offset: offsetField.describe(
        "Index of the first included comparison to return.",
      ),
      limit: limitField(100, 50).describe(
        "Included comparisons per page (1 to 100).",
      ),
      unknown_registry_approved: unknownRegistryApprovedField,
    }),
    result: changedBehaviorResultSchema,
    ...RECORDS_EVIDENCE,
    run: (args, call) => {
      if (args.investigation_run) {
        throw new ToolFailure(
          "capability_unavailable",
          "This server does not run persistent cross-version investigations (investigation_run).",
          {
            action:
              "Open each version with open_binary, compare them with compare_artifacts or compare_functions, capture both with capture_process_scenario and compare_process_captures, then pass those comparisons here.",
          },
        );
      }
      const inline = args.comparisons.map(verifiedInlineRecord);
      const ids = args.evidence_ids ??
        (inline.length > 0 ? [] : undefined);
      const records: EvidenceRecord[] = [...inline];
      const missing: { evidence_id: string; reason: string }[] = [];
      if (ids) {
        for (
          const id of [...new Set(ids)].filter((id) => !inline.some((r) => r.evidence_id === id))
        ) {
          const record = context.ledger.get(id);
          if (record) records.push(record);
          else missing.push({ evidence_id: id, reason: "not retained" });
        }
      } else {
        records.push(...context.ledger.list().filter((r) => r.operation === COMPARE_OPERATION));
      }
      const correlations = context.ledger.list().filter((r) => r.operation === CORRELATE_OPERATION);
      const found = findChangedBehavior(records, (id) => context.ledger.get(id), correlations);
      const offset = args.offset;
      const limit = args.limit;
      const page = found.included.slice(offset, offset + limit);
      const end = offset + page.length;
      const excluded = [...missing, ...found.excluded];
      return Promise.resolve({
        kind: "evidence",
        draft: {
          subject: null,
          provider: { ...PROCESS_PROVIDER },
          operation: FIND_CHANGED_BEHAVIOR,
          predicate_type: "rea.changed-behavior/v1",
          confidence: "derived",
          authority: "analyst-inference",
          parameters: call.parameters,
          normalized_result: {
            considered: found.considered + missing.length,
            changed_count: found.changed_count,
            unchanged_count: found.unchanged_count,
            by_dimension: found.by_dimension,
            items: page,
            offset,
            limit,
            total: found.included.length,
            has_more: end < found.included.length,
            next_offset: end < found.included.length ? end : null,
            excluded: excluded.slice(0, 200),
            excluded_count: excluded.length,
          },
          evidence_links: [
            ...new Set([
              ...found.included.map((e) => e.comparison_evidence_id),
              ...found.included.flatMap((e) =>
                e.crash_procedures.map((p) => p.correlation_evidence_id)
              ),
            ]),
          ],
          limitations: [
            "Only complete, compatible comparisons are aggregated; excluded ones say nothing either way.",
            ...(excluded.length > 200
              ? [`${excluded.length - 200} exclusions are not listed.`]
              : []),
          ],
        },
      });
    },
  });
}
