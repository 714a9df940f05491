/**
 * What the privacy tools share for one connection: the compiled policy
 * (vault, decision log, buckets) and the core's services.
 *
 * @module
 */

import type { CompiledPolicy } from "../core/policy/compile.ts";
import type { WorkbenchServices } from "../core/workbench.ts";
import { BUILTIN_DETECTORS, type Detector } from "../core/policy/detectors.ts";

/** The privacy workbench's context. */
export interface PrivacyContext {
  /** The policy every request of the process passes. */
  readonly policy: CompiledPolicy;
  /** The core's services (principal, log). */
  readonly services: WorkbenchServices;
}

/** The policy's document as it may be shown: vault keys and token secrets left out. */
export function shownDocument(policy: CompiledPolicy): Record<string, unknown> {
  const { vault, tokens, ...rest } = policy.document;
  return {
    ...rest,
    ...(vault ? { vault: { ...vault, ...(vault.key !== undefined ? { key: "(set)" } : {}) } } : {}),
    ...(tokens
      ? { tokens: tokens.map((t) => ({ principal: t.principal, roles: t.roles ?? [] })) }
      : {}),
  };
}

/** The rows of `list_detectors` and `cloudg://privacy/detectors`. */
export function detectorRows(policy: CompiledPolicy, category?: string): {
  name: string;
  entity: string;
  category: string;
  confidence: number;
  description: string;
  active: boolean;
}[] {
  const active = new Set(policy.detectors().map((d) => d.name));
  return allDetectors(policy)
    .filter((d) => category === undefined || d.category === category)
    .map((d) => ({
      name: d.name,
      entity: d.entity,
      category: d.category,
      confidence: d.confidence,
      description: d.description,
      active: active.has(d.name),
    }));
}

function allDetectors(policy: CompiledPolicy): readonly Detector[] {
  const extra = policy.detectors().filter((d) => !BUILTIN_DETECTORS.includes(d));
  return [...BUILTIN_DETECTORS, ...extra];
}

/** Whether the principal may see every principal's audit entries. */
export function isPrivacyAdmin(ctx: PrivacyContext): boolean {
  const roles = ctx.policy.rolesOf(ctx.services.principal);
  return roles.includes("admin") || roles.includes("privacy-admin");
}
