/**
 * `privacy_status`: the active policy, the caller's roles, the vault and the
 * decision counters.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import type { PrivacyContext } from "../context.ts";

/** Builds the tool for one connection. */
export function privacyStatusTool(ctx: PrivacyContext): ToolDefinition {
  return defineTool({
    name: "privacy_status",
    toolset: "privacy",
    sensitivity: "internal",
    description:
      "Report the active policy: its name, whether output is pseudonymised, the caller's principal and roles, the vault (key id and source, token count, its file when persisted) and the decision counters. Identifiers may be pseudonyms: pass them back unchanged.",
    input: z.strictObject({}),
    result: z.object({
      policy: z.string(),
      description: z.string().nullable(),
      hide_denied: z.boolean(),
      audit: z.boolean(),
      pseudonymizes: z.boolean(),
      transforms: z.array(z.string()),
      input_transforms: z.array(z.string()),
      principal: z.object({ id: z.string(), roles: z.array(z.string()) }),
      vault: z.object({
        key_id: z.string(),
        key_source: z.string(),
        entries: z.number(),
        persistence: z.object({
          path: z.string(),
          encrypted: z.boolean(),
          last_saved: z.string().nullable(),
        }).nullable().describe(
          "The vault's file (vault.path), or null when it lives in memory only.",
        ),
      }),
      rate_limits: z.number(),
      counters: z.record(z.string(), z.number()),
    }),
    ...READS_ONLY,
    run: () => {
      const { policy, services } = ctx;
      const doc = policy.document;
      const stepName = (s: unknown): string =>
        typeof s === "string" ? s : String((s as { type: string }).type);
      return Promise.resolve({
        kind: "result",
        result: {
          policy: policy.name,
          description: doc.description ?? null,
          hide_denied: doc.hide_denied !== false,
          audit: doc.audit === true,
          pseudonymizes: policy.pseudonymizes,
          transforms: (doc.transforms ?? []).map(stepName),
          input_transforms: (doc.input_transforms ?? []).map(stepName),
          principal: { id: services.principal.id, roles: policy.rolesOf(services.principal) },
          vault: {
            key_id: policy.vault.keyId,
            key_source: policy.vault.keySource,
            entries: policy.vault.size,
            persistence: policy.vaultFile
              ? {
                path: policy.vaultFile.path,
                encrypted: policy.vaultFile.encrypt,
                last_saved: policy.vaultFile.lastSaved,
              }
              : null,
          },
          rate_limits: policy.limits.length,
          counters: { ...policy.audit.counters },
        },
      });
    },
  });
}
