/**
 * `close_binary`: closes the target and clears the session's Evidence.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { CLOSE_BINARY } from "../tool_names.ts";

/** Closes the target; every Evidence record (and the state kept beside them) is discarded. */
export function closeBinaryTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: CLOSE_BINARY,
    toolset: "session",
    description:
      "Close the target and clear the session: every Evidence record is discarded, so snapshot or copy what you still need first.",
    input: z.strictObject({}),
    result: z.object({ closed: z.boolean(), cleared_records: z.number().int() }),
    effects: { mutatesSession: true, mayDiscardData: true, idempotent: false },
    producesEvidence: false,
    run: async () => {
      const closed = (await context.session.close()) || context.artifact !== null;
      const cleared = context.services.clearEvidence();
      return { kind: "result", result: { closed, cleared_records: cleared } };
    },
  });
}
