/**
 * `close_binary`: closes the target and clears the session's Evidence.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { saveAnalysisSnapshot } from "../context/analysis_snapshot.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { CLOSE_BINARY } from "../tool_names.ts";

/** Closes the target; every Evidence record (and the state kept beside them) is discarded. */
export function closeBinaryTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: CLOSE_BINARY,
    toolset: "session",
    description:
      "Close the target and clear the session: every Evidence record is discarded, so snapshot or copy what you still need first. With snapshot_path, the session's Evidence bundle is saved to that file first (needs --allow-file-writes and a write grant; open_binary's snapshot_path restores it); if saving fails, nothing is closed.",
    input: z.strictObject({
      snapshot_path: z.string().min(1).max(4096).optional().describe(
        "Absolute path to save the session's Evidence and unknowns to (an Evidence bundle v2) before closing.",
      ),
      overwrite: z.boolean().default(false).describe("Replace an existing snapshot_path file."),
    }),
    result: z.object({
      closed: z.boolean(),
      cleared_records: z.number().int(),
      snapshot: z.object({
        path: z.string(),
        bundle_digest: z.string(),
        bytes: z.number().int(),
        records: z.number().int(),
        unknowns: z.number().int(),
      }).optional().describe("The snapshot saved before closing, when snapshot_path was given."),
    }),
    effects: { mutatesSession: true, mayDiscardData: true, idempotent: false },
    producesEvidence: false,
    run: async (args) => {
      const snapshot = args.snapshot_path === undefined
        ? undefined
        : await saveAnalysisSnapshot(context, args.snapshot_path, args.overwrite);
      const closed = (await context.session.close()) || context.artifact !== null;
      const cleared = context.services.clearEvidence();
      return {
        kind: "result",
        result: {
          closed,
          cleared_records: cleared,
          ...(snapshot ? { snapshot } : {}),
        },
      };
    },
  });
}
