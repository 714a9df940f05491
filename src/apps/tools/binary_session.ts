/**
 * `binary_session`: the session's status, starting nothing.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { sessionStatus } from "../context/status.ts";
import { sessionSchema } from "../schemas/session_results.ts";
import { BINARY_SESSION } from "../tool_names.ts";

/** Reports the open target, provider binding, capabilities, permissions, policy, roots and ledger. */
export function binarySessionTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: BINARY_SESSION,
    toolset: "session",
    description:
      "Report the session: open target, provider binding and candidates, capabilities with the flag that enables each missing one, permissions, policy, roots and ledger usage. Starts nothing; call it first.",
    input: z.strictObject({}),
    result: sessionSchema,
    effects: {},
    producesEvidence: false,
    run: () => Promise.resolve({ kind: "result", result: sessionStatus(context) }),
  });
}
