/**
 * The privacy workbench: tools and resources that show the active policy
 * (status, detectors, decision log, rate limits), preview its transforms and
 * reveal pseudonyms to the roles allowed to.
 *
 * @module
 */

import type { Workbench, WorkbenchModule, WorkbenchServices } from "../core/workbench.ts";
import { privacyModuleWith, type PrivacySettings } from "./descriptor.ts";
import { type CompiledPolicy, compilePolicy } from "../core/policy/compile.ts";
import { loadPolicy } from "../core/policy/document.ts";
import { detectorRows, type PrivacyContext, shownDocument } from "./context.ts";
import { listDetectorsTool } from "./tools/list_detectors.ts";
import { previewTransformTool } from "./tools/preview_transform.ts";
import { privacyAuditLogTool } from "./tools/privacy_audit_log.ts";
import { privacyStatusTool } from "./tools/privacy_status.ts";
import { rateLimitStatusTool, rateLimitView } from "./tools/rate_limit_status.ts";
import { revealTokenTool } from "./tools/reveal_token.ts";

export { PRIVACY_TOOLSET, type PrivacySettings } from "./descriptor.ts";

const json = (uri: string, value: unknown) => ({
  uri,
  mimeType: "application/json",
  text: JSON.stringify(value, null, 2),
});

/**
 * The privacy workbench over `settings.policy` (pass the same compiled
 * policy whose hooks the server's gate uses), built directly by each
 * connection (the built-in server uses `privacyModuleWith` of
 * `descriptor.ts`, which imports this file on first use instead).
 */
export function privacyWorkbenchWith(settings: PrivacySettings = {}): WorkbenchModule {
  return privacyModuleWith(settings, createPrivacyWorkbench);
}

/**
 * Builds the privacy workbench of one connection over `settings.policy`, or
 * over the `open` profile, which it hands to `keep` for the next connections.
 */
export function createPrivacyWorkbench(
  services: WorkbenchServices,
  settings: PrivacySettings,
  keep: (policy: CompiledPolicy) => void = () => {},
): Workbench {
  let policy = settings.policy;
  if (!policy) {
    policy = compilePolicy(loadPolicy("open"));
    keep(policy);
  }
  const ctx: PrivacyContext = { policy, services };
  // The preview's result is a sample transformed with its own vault: not transformed again.
  policy.exemptFromOutput("preview_transform");
  return {
    name: "privacy",
    tools: [
      privacyStatusTool(ctx),
      previewTransformTool(ctx),
      listDetectorsTool(ctx),
      privacyAuditLogTool(ctx),
      revealTokenTool(ctx),
      rateLimitStatusTool(ctx),
    ],
    prompts: [],
    completionFamilies: {},
    resourceTemplates: [],
    resources: [
      {
        uri: "cloudg://policy",
        name: "policy",
        description: "The active policy document (secrets left out).",
        mimeType: "application/json",
        category: "privacy",
        sensitivity: "internal",
        read: (uri) => Promise.resolve(json(uri, shownDocument(ctx.policy))),
      },
      {
        uri: "cloudg://privacy/detectors",
        name: "privacy_detectors",
        description: "The content detectors and which the active policy runs.",
        mimeType: "application/json",
        category: "privacy",
        sensitivity: "public",
        read: (uri) => Promise.resolve(json(uri, { detectors: detectorRows(ctx.policy) })),
      },
      {
        uri: "cloudg://ratelimit",
        name: "ratelimit",
        description: "The policy's rate limits and the caller's buckets.",
        mimeType: "application/json",
        category: "privacy",
        sensitivity: "internal",
        read: (uri) => Promise.resolve(json(uri, rateLimitView(ctx))),
      },
    ],
  };
}
