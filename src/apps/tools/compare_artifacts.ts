/**
 * `compare_artifacts`: two retained inventories compared.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { EVIDENCE_ID_PATTERN } from "../../core/evidence.ts";
import { compareInventories, MergeError, mergePages } from "../artifacts/compare.ts";
import { compareBinaryProcedures, type ProcedureChanges } from "../analysis/procedure_changes.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { pageOf } from "../context/procedure_query.ts";
import {
  ARTIFACT_COMPARISON_PROVIDER,
  inventoryRecord,
  procedureImages,
  SYMBOL_SUMMARIES_PER_PAGE,
} from "../context/artifact_access.ts";
import { compareArtifactsResultSchema } from "../schemas/artifact_results.ts";
import { pageFields, unknownRegistryApprovedField } from "../schemas/inputs.ts";
import { COMPARE_ARTIFACTS } from "../tool_names.ts";

/** Compares two retained inventories path by path, and changed binaries procedure by procedure. */
export function compareArtifactsTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: COMPARE_ARTIFACTS,
    toolset: "artifacts",
    description:
      "Compare two retained inventories (every page of each, by evidence_id) path by path: added, removed, changed, moved (same content at a new path), unchanged, and unknown (unreadable or unhashed members). Members pair by their path inside their container, so a renamed archive or compressed stream (pkg-1.0.8.tgz, pkg-1.0.9.tgz) compares member by member, and a member renamed with its version is moved with its change. For changed (or moved and changed) ELF, PE, Mach-O and WebAssembly members on the returned page, the binaries are read back from their artifacts (which must be unchanged) and compared procedure by procedure: named ones added, removed, resized or recoded; unnamed ones (stripped static functions) paired across versions by anchors (strings, callees, callers, order, instruction digests), each changed pair with its confidence and the anchors that matched. Missing pages make the status truncated; integrity failures, contradiction; incomplete inventories or unknown members, unknown. Recorded as Evidence.",
    input: z.strictObject({
      left_evidence_ids: z.array(z.string().regex(EVIDENCE_ID_PATTERN)).min(1).max(100).describe(
        "Every inventory_artifact page of the left (older) version.",
      ),
      right_evidence_ids: z.array(z.string().regex(EVIDENCE_ID_PATTERN)).min(1).max(100).describe(
        "Every inventory_artifact page of the right (newer) version.",
      ),
      ...pageFields("change"),
      include_unchanged: z.boolean().default(false).describe(
        "List unchanged paths too (they always count in the summary).",
      ),
      unknown_registry_approved: unknownRegistryApprovedField,
    }),
    result: compareArtifactsResultSchema,
    ...RECORDS_EVIDENCE,
    run: async (args, call) => {
      const leftIds = [...new Set(args.left_evidence_ids)];
      const rightIds = [...new Set(args.right_evidence_ids)];
      const overlap = leftIds.filter((id) => rightIds.includes(id));
      if (overlap.length > 0) {
        throw new ToolFailure("invalid_request", `Evidence ${overlap[0]} is on both sides.`);
      }
      const leftPages = leftIds.map((id) => inventoryRecord(context.ledger, id));
      const rightPages = rightIds.map((id) => inventoryRecord(context.ledger, id));
      let left, right;
      try {
        left = mergePages(leftPages);
        right = mergePages(rightPages);
      } catch (error) {
        if (error instanceof MergeError) {
          throw new ToolFailure("invalid_request", error.message, {
            action: "Pass the pages of exactly one inventory per side.",
          });
        }
        throw error;
      }
      const comparison = compareInventories(left, right);
      const listed = args.include_unchanged
        ? comparison.changes
        : comparison.changes.filter((c) => c.status !== "unchanged");
      const page = pageOf(listed, args.offset, args.limit);
      const binaryKinds = new Set(["elf", "pe", "mach-o", "mach-o-universal", "wasm"]);
      const limitations = [...comparison.limitations];
      let summarised = 0;
      const items = [];
      for (const change of page.items) {
        let procedures: Omit<ProcedureChanges, "limitations"> | { unavailable: string } | null =
          null;
        if (
          (change.status === "changed" || change.status === "moved") &&
          change.dimensions.includes("content") &&
          change.left?.sha256 &&
          change.right?.sha256 && binaryKinds.has(change.left.content_kind ?? "") &&
          binaryKinds.has(change.right.content_kind ?? "")
        ) {
          if (summarised >= SYMBOL_SUMMARIES_PER_PAGE) {
            procedures = {
              unavailable:
                `Only ${SYMBOL_SUMMARIES_PER_PAGE} binaries per page get a procedure summary; page with a smaller limit.`,
            };
          } else {
            summarised++;
            call.signal.throwIfAborted();
            await call.progress(
              summarised,
              SYMBOL_SUMMARIES_PER_PAGE,
              `reading ${change.logical_path}`,
            );
            const a = await procedureImages(
              context.services.roots,
              leftPages[0]!.record,
              change.left.logical_path,
              change.left.sha256,
            );
            const b = await procedureImages(
              context.services.roots,
              rightPages[0]!.record,
              change.right.logical_path,
              change.right.sha256,
            );
            if (typeof a === "string" || typeof b === "string") {
              procedures = {
                unavailable: `Procedure summary unavailable: ${
                  typeof a === "string" ? `left: ${a}` : `right: ${b}`
                }.`,
              };
            } else {
              const { limitations: notes, ...summary } = await compareBinaryProcedures(a, b, {
                signal: call.signal,
              });
              procedures = summary;
              for (const note of notes) {
                const located = `${change.logical_path}: ${note}`;
                if (!limitations.includes(located)) limitations.push(located);
              }
            }
          }
        }
        items.push({ ...change, procedures });
      }
      if (summarised > 0) {
        limitations.push(
          "Procedure summaries pair named procedures by name (as the native readers list them: symbols, exports, unwind tables) and unnamed ones by anchors (referenced strings, named callees and callers, order between paired procedures, instruction digests), each unnamed pair with its confidence and anchors. Code compares by instruction digests with addresses masked: equal digests mean the same instruction sequence, not equal behaviour; a changed constant (a line number in an assertion) counts as recoded. Use analyze_function and compare_functions for detail.",
        );
      }
      const result = {
        status: comparison.status,
        left: {
          manifest_id: left.manifest.manifest_id,
          complete: left.complete,
          root_sha256: left.manifest.root_sha256,
        },
        right: {
          manifest_id: right.manifest.manifest_id,
          complete: right.complete,
          root_sha256: right.manifest.root_sha256,
        },
        summary: comparison.counts,
        changes: { ...page, items },
        limitations,
      };
      return {
        kind: "evidence",
        draft: {
          subject: null,
          provider: ARTIFACT_COMPARISON_PROVIDER,
          operation: COMPARE_ARTIFACTS,
          predicate_type: "rea.artifact-comparison/v1",
          confidence: "derived",
          authority: "analyst-inference",
          parameters: {
            ...call.parameters,
            left_evidence_ids: leftIds,
            right_evidence_ids: rightIds,
          },
          normalized_result: result,
          evidence_links: [...leftIds, ...rightIds],
          limitations,
          transferred: true,
        },
      };
    },
  });
}
