/**
 * Test helper: a server of all three workbenches (cloud with the demo
 * estate) under a compiled policy, joined to an SDK client in memory.
 */

import { appsWorkbenchWith } from "../../src/apps/workbench.ts";
import { cloudWorkbenchWith } from "../../src/cloud/workbench.ts";
import { type CompiledPolicy, compilePolicy, gateOptions } from "../../src/core/policy/compile.ts";
import { loadPolicy } from "../../src/core/policy/document.ts";
import type { Principal } from "../../src/core/policy.ts";
import { privacyWorkbenchWith } from "../../src/privacy/workbench.ts";
import { connect, type Connected } from "./in_memory.ts";

/** A connected pair and its policy. */
export interface PolicySession extends Connected {
  policy: CompiledPolicy;
}

/** Options of {@linkcode policySession}. */
export interface PolicySessionOptions {
  /** An already compiled policy (shared between sessions). */
  policy?: CompiledPolicy;
  /** The principal. @default local */
  principal?: Principal;
  /** Load the demo estate. @default true */
  demo?: boolean;
  /** The rate limiter's clock. */
  now?: () => number;
}

/** Connects a client to the three workbenches under `profile` (a name, file or mapping). */
export async function policySession(
  profile: string | Record<string, unknown>,
  options: PolicySessionOptions = {},
): Promise<PolicySession> {
  const policy = options.policy ??
    compilePolicy(loadPolicy(profile), {
      env: () => "test-vault-key",
      ...(options.now ? { now: options.now } : {}),
    });
  const connected = await connect({
    ...gateOptions(policy),
    ...(options.principal ? { principal: options.principal } : {}),
    workbenches: [
      appsWorkbenchWith({}),
      cloudWorkbenchWith({ demo: options.demo ?? true }),
      privacyWorkbenchWith({ policy }),
    ],
  });
  return { ...connected, policy };
}
