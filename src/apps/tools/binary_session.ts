/**
 * `binary_session`: the session's status, starting nothing.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { sessionStatus } from "../context/status.ts";
import { limitField, offsetField } from "../schemas/inputs.ts";
import { CAPABILITY_FAMILIES, sessionSchema } from "../schemas/session_results.ts";
import { BINARY_SESSION } from "../tool_names.ts";
import { VERSION } from "../../version.ts";

/** REA's capability families (tool surfaces). */
const FAMILIES = [
  "official-proxy",
  "enhanced",
  "native-provider",
  "artifact-provider",
  "managed-provider",
  "browser-provider",
  "electron-provider",
  "runtime-provider",
  "application",
  "session",
] as const;

function serverPath(): string {
  try {
    return Deno.mainModule.startsWith("file:") ? fileURLToPath(Deno.mainModule) : Deno.mainModule;
  } catch {
    return Deno.mainModule;
  }
}

/** Reports the open target, provider binding, capabilities, permissions, policy, roots and ledger. */
export function binarySessionTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: BINARY_SESSION,
    toolset: "session",
    description:
      "Report the session: open target, provider binding and candidates, capabilities with the flag that enables each missing one, permissions, policy, roots and ledger usage. Starts nothing; call it first. REA's arguments are accepted: capability_family, cursor and limit filter and page the capabilities; expected_package_version, expected_server_path and expected_catalog_digest are checked and reported under alignment.",
    input: z.strictObject({
      detail: z.enum(["summary", "capabilities", "full"]).default("summary").describe(
        "REA's level of detail; this server always reports the whole status.",
      ),
      capability_family: z.enum(FAMILIES).optional().describe(
        "Only capabilities of this REA family (session, official-proxy, runtime-provider, …).",
      ),
      cursor: offsetField.describe(
        "Index of the first capability to report.",
      ),
      limit: limitField(100, 25).describe(
        "Capabilities per page (1 to 100).",
      ),
      expected_package_version: z.string().min(1).max(200).optional().describe(
        "The server version the client expects; reported under alignment.",
      ),
      expected_server_path: z.string().min(1).max(4096).optional().describe(
        "The server entry point the client expects to be talking to; reported under alignment.",
      ),
      expected_catalog_digest: z.string().regex(/^[a-f0-9]{64}$/).optional().describe(
        "REA's tool-catalog digest; reported under alignment (this server's catalog is not REA's, so it cannot match).",
      ),
    }),
    result: sessionSchema,
    effects: {},
    producesEvidence: false,
    run: (args) => {
      const status = sessionStatus(context);
      const paged = args.capability_family !== undefined || args.cursor > 0 ||
        status.capabilities.length > args.limit;
      const family = args.capability_family ?? null;
      const matching = status.capabilities.filter((capability) =>
        family === null || CAPABILITY_FAMILIES[capability.name] === family
      );
      const end = args.cursor + args.limit;
      const alignment: NonNullable<z.output<typeof sessionSchema>["alignment"]> = [];
      if (args.expected_package_version !== undefined) {
        alignment.push({
          check: "package_version",
          expected: args.expected_package_version,
          actual: VERSION,
          matches: args.expected_package_version === VERSION,
        });
      }
      if (args.expected_server_path !== undefined) {
        const actual = serverPath();
        alignment.push({
          check: "server_path",
          expected: args.expected_server_path,
          actual,
          matches: args.expected_server_path === actual,
        });
      }
      if (args.expected_catalog_digest !== undefined) {
        alignment.push({
          check: "catalog_digest",
          expected: args.expected_catalog_digest,
          actual: null,
          matches: null,
        });
      }
      return Promise.resolve({
        kind: "result",
        result: {
          ...status,
          capabilities: matching.slice(args.cursor, end),
          ...(paged
            ? {
              capabilities_page: {
                family,
                cursor: args.cursor,
                limit: args.limit,
                total: matching.length,
                next_cursor: end < matching.length ? end : null,
              },
            }
            : {}),
          ...(alignment.length > 0 ? { alignment } : {}),
        },
      });
    },
  });
}
