/**
 * `extract_artifact`: chosen members written to a new directory.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { flagFor, isGranted } from "../../core/permissions.ts";
import {
  ExtractionError,
  extractMembers,
  OutputRootExists,
  selectForExtraction,
} from "../artifacts/extract.ts";
import { OCCURRENCE_ID_PATTERN } from "../artifacts/ids.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { pageOf } from "../context/procedure_query.ts";
import {
  ARTIFACT_GRAPH_PROVIDER,
  limitsOf,
  rootOf,
  snapshotFor,
} from "../context/artifact_access.ts";
import { extractResultSchema } from "../schemas/artifact_results.ts";
import { pageFields, traversalLimitFields } from "../schemas/inputs.ts";
import { EXTRACT_ARTIFACT } from "../tool_names.ts";

/** Writes chosen members of the active artifact target into a new directory (approved writes only). */
export function extractArtifactTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: EXTRACT_ARTIFACT,
    toolset: "artifacts",
    description:
      "Extract chosen file members of the active artifact target into a new directory. Refused unless the operator allows file writes (--allow-file-writes plus Deno --allow-write and --allow-read grants covering the output root) and the call says approved: true. The output root must not exist (its parent must) and its path must cross no symbolic link; nothing is overwritten; links, hostile names (.., absolute, NUL, control or invisible characters, invalid UTF-8), encrypted and unverified members are refused; limits stop archive bombs; a failed extraction removes its output. The members are found in a fresh scan and their content must match it. One call writes the whole selection (at most 500 members); offset and limit page only the report of written files, and a second call with the same output_root is refused because it exists, so pass limit: 500 to see every written file at once.",
    input: z.strictObject({
      approved: z.literal(true).describe(
        "Must be true: you approve writing these files to the host.",
      ),
      output_root: z.string().min(1).max(4096).describe(
        "Absolute path of a directory that does not exist yet.",
      ),
      occurrence_ids: z.array(z.string().regex(OCCURRENCE_ID_PATTERN)).min(1).max(500).describe(
        "Occurrence ids (from inventory_artifact) of the file members to write.",
      ),
      ...pageFields("extracted file"),
      ...traversalLimitFields,
    }),
    result: extractResultSchema,
    effects: { writesFilesystem: true, mutatesSession: true, idempotent: false },
    producesEvidence: true,
    run: async (args, call) => {
      const target = context.requireArtifact(EXTRACT_ARTIFACT);
      const outputRoot = args.output_root;
      if (
        !outputRoot.startsWith("/") || outputRoot.includes("\0") ||
        outputRoot.split("/").includes("..")
      ) {
        throw new ToolFailure(
          "invalid_request",
          "output_root must be an absolute path without .. or NUL.",
        );
      }
      const parentDir = outputRoot.replace(/\/[^/]*\/?$/, "") || "/";
      for (const kind of ["write", "read"] as const) {
        if (!isGranted(kind, outputRoot) || (kind === "read" && !isGranted(kind, parentDir))) {
          throw new ToolFailure(
            "permission_required",
            `Deno has not granted ${
              kind === "write" ? "writing to" : "reading"
            } ${outputRoot}; extraction needs both --allow-write and --allow-read covering the output root and its parent (reading checks for links and verifies what was written).`,
            {
              action: `Restart the server with ${flagFor("write", parentDir)} and ${
                flagFor("read", parentDir)
              } (covering the output root).`,
              restartRequired: true,
            },
          );
        }
      }
      const { limits, notes } = limitsOf(args, context.ceilings);
      const snapshot = await snapshotFor(target, limits, {
        continueApproved: false,
        maxMismatches: 1,
      }, call);
      let result;
      try {
        const chosen = selectForExtraction(snapshot, args.occurrence_ids);
        result = await extractMembers(rootOf(target), snapshot, chosen, outputRoot, {
          limits,
          expectedRootSha256: target.sha256,
          signal: call.signal,
          onProgress: (bytes) => call.progress(bytes, undefined, `read ${bytes} bytes`),
        });
      } catch (error) {
        if (error instanceof OutputRootExists && args.offset > 0) {
          throw new ToolFailure(
            "invalid_request",
            `${error.path} already exists: the extraction to it was done by the call with offset 0, which wrote the whole selection; offset pages only the report of written files, so a call with offset ${args.offset} cannot add to it or page it again (extraction writes only into a new directory).`,
            {
              action:
                "Read the files under that output root, or extract into a new output_root with offset 0 and limit: 500 to get the whole report in one result.",
            },
          );
        }
        if (error instanceof ExtractionError) {
          throw new ToolFailure(
            error.kind === "limit"
              ? "limit_exceeded"
              : error.kind === "refused"
              ? "invalid_request"
              : "artifact_operation_failed",
            error.message,
            { details: error.cleanup ? { cleanup: error.cleanup } : undefined },
          );
        }
        if (
          error instanceof Deno.errors.PermissionDenied ||
          (error instanceof Error && error.name === "NotCapable")
        ) {
          throw new ToolFailure(
            "permission_required",
            `Cannot write under ${outputRoot}: ${error.message}`,
            {
              action: `Restart the server with --allow-write covering ${outputRoot}.`,
              restartRequired: true,
            },
          );
        }
        throw error;
      }
      const files = pageOf(result.files, args.offset, args.limit);
      const total = result.files.length;
      const whole = args.offset === 0 && files.next_offset === null;
      const paging_note = whole
        ? `This call wrote all ${total} selected file(s) under $OUTPUT_ROOT; files lists every one.`
        : `This call wrote all ${total} selected file(s) under $OUTPUT_ROOT; offset and limit page only this report, which lists ${files.items.length} of them from offset ${args.offset}. A later call with this output_root is refused because it exists: to list every written file in one result, extract into a new output_root with offset 0 and limit: 500.`;
      return {
        kind: "evidence",
        draft: {
          subject: target.subject,
          provider: ARTIFACT_GRAPH_PROVIDER,
          operation: EXTRACT_ARTIFACT,
          parameters: call.parameters,
          normalized_result: { ...result, files, written_files: total, paging_note },
          limitations: [
            ...notes,
            "Paths are relative to the output root, named $OUTPUT_ROOT in the manifest.",
          ],
        },
      };
    },
  });
}
