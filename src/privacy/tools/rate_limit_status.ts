/**
 * `rate_limit_status`: the policy's limits and the caller's buckets.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import type { PrivacyContext } from "../context.ts";

/** The limits and bucket states a principal may see. */
export function rateLimitView(ctx: PrivacyContext): {
  limits: Record<string, unknown>[];
  buckets: Record<string, unknown>[];
} {
  const id = ctx.services.principal.id;
  return {
    limits: ctx.policy.limits.map((l) => ({ id: l.id, ...l.spec })),
    buckets: ctx.policy.limiter.states(ctx.policy.limits)
      .filter((b) => b.scope === "global" || b.scope === "tool" || b.key.includes(`:${id}`))
      .map((b) => ({ ...b })),
  };
}

/** Builds the tool for one connection. */
export function rateLimitStatusTool(ctx: PrivacyContext): ToolDefinition {
  return defineTool({
    name: "rate_limit_status",
    toolset: "privacy",
    sensitivity: "internal",
    description:
      "Show the policy's rate limits (rate, period, burst, scope) and the caller's current token buckets.",
    input: z.strictObject({}),
    result: z.object({
      limits: z.array(z.record(z.string(), z.unknown())),
      buckets: z.array(z.record(z.string(), z.unknown())),
    }),
    ...READS_ONLY,
    run: () => Promise.resolve({ kind: "result", result: rateLimitView(ctx) }),
  });
}
