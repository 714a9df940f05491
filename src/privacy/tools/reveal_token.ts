/**
 * `reveal_token`: the real value behind a pseudonym (restricted; every
 * reveal is logged with a keyed hash of the token, never the value).
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import type { PrivacyContext } from "../context.ts";

/** Builds the tool for one connection. */
export function revealTokenTool(ctx: PrivacyContext): ToolDefinition {
  return defineTool({
    name: "reveal_token",
    toolset: "privacy",
    sensitivity: "restricted",
    description:
      "Reveal the real value behind a pseudonym, or every pseudonym inside a text. Restricted: only roles the policy grants reveal may call it, and each call is logged without the value.",
    input: z.strictObject({
      token: z.string().min(1).max(20000).describe("A pseudonym, or text containing pseudonyms."),
    }),
    result: z.object({
      pseudonym: z.string(),
      found: z.boolean(),
      value: z.string().nullable(),
      entity_type: z.string().optional(),
      replaced: z.number().optional(),
    }),
    effects: { reveals: true },
    producesEvidence: false,
    run: (args) => {
      const { policy, services } = ctx;
      services.log("warning", "reveal_token used", {
        principal: services.principal.id,
        token_hash: policy.vault.hash("reveal", args.token),
      });
      const exact = policy.vault.lookup(args.token);
      if (exact) {
        return Promise.resolve({
          kind: "result",
          result: {
            pseudonym: args.token,
            found: true,
            value: exact.value,
            entity_type: exact.entity,
          },
        });
      }
      const reversed = policy.reverse(args.token);
      const changed = reversed !== args.token;
      return Promise.resolve({
        kind: "result",
        result: {
          pseudonym: args.token,
          found: changed,
          value: changed ? reversed : null,
          replaced: changed ? 1 : 0,
        },
      });
    },
  });
}
