/**
 * `privacy_audit_log`: the policy's decision log (arguments as keyed hashes,
 * never values); admin and privacy-admin see every principal, others their own.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { isPrivacyAdmin, type PrivacyContext } from "../context.ts";

/** Builds the tool for one connection. */
export function privacyAuditLogTool(ctx: PrivacyContext): ToolDefinition {
  return defineTool({
    name: "privacy_audit_log",
    toolset: "privacy",
    sensitivity: "restricted",
    description:
      "Read the policy decision log, newest first: allowed (when auditing), denied, rate_limited, rejected. Arguments appear only as keyed hashes.",
    input: z.strictObject({
      limit: z.number().int().min(1).max(10000).default(100).describe("Most entries."),
      decision: z.enum(["allowed", "denied", "rate_limited", "rejected", "not_found"]).optional()
        .describe("Only entries of this decision."),
    }),
    result: z.object({
      scope: z.enum(["all", "own"]),
      entries: z.array(z.record(z.string(), z.unknown())),
      counters: z.record(z.string(), z.number()),
    }),
    ...READS_ONLY,
    run: (args) => {
      const all = isPrivacyAdmin(ctx);
      const entries = ctx.policy.audit.entries({
        limit: args.limit,
        ...(args.decision ? { decision: args.decision } : {}),
        ...(all ? {} : { principal: ctx.services.principal.id }),
      });
      return Promise.resolve({
        kind: "result",
        result: {
          scope: all ? "all" as const : "own" as const,
          entries: entries as unknown as Record<string, unknown>[],
          counters: { ...ctx.policy.audit.counters },
        },
      });
    },
  });
}
