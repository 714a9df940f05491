/**
 * The privacy workbench's descriptor: its name, toolset and instructions
 * paragraph, kept apart from its implementation (`workbench.ts`), which is
 * imported when a connection first builds the workbench.
 *
 * @module
 */

import type { Workbench, WorkbenchModule, WorkbenchServices } from "../core/workbench.ts";
import type { CompiledPolicy } from "../core/policy/compile.ts";
import { lazyToolCatalog } from "../core/tool_listing.ts";

/** The privacy toolset. */
export const PRIVACY_TOOLSET = {
  name: "privacy",
  description: "The active policy: status, detectors, decision log, rate limits, previews, reveal.",
};

/** How the privacy workbench is configured. */
export interface PrivacySettings {
  /** The compiled policy the server's gate uses. @default the `open` profile */
  policy?: CompiledPolicy;
}

/**
 * Builds the privacy workbench of one connection over `settings.policy`;
 * `keep` remembers the policy it chose when none was given, so every
 * connection of the module shares it.
 */
export type PrivacyBuilder = (
  services: WorkbenchServices,
  settings: PrivacySettings,
  keep: (policy: CompiledPolicy) => void,
) => Workbench | Promise<Workbench>;

/** The generated catalog of the privacy tools (`tool_catalog.json`), imported on first use. */
const toolCatalog = lazyToolCatalog(() =>
  import("./tool_catalog.json", { with: { type: "json" } })
);

/** Imports the implementation, then builds the workbench with it. */
const importedBuilder: PrivacyBuilder = async (services, settings, keep) => {
  const { createPrivacyWorkbench } = await import("./workbench.ts");
  return createPrivacyWorkbench(services, settings, keep);
};

/**
 * The privacy workbench module over `settings.policy` (pass the same
 * compiled policy whose hooks the server's gate uses). Its `create` imports
 * the implementation on first use, unless `build` builds it directly (as
 * `privacyWorkbenchWith` of `workbench.ts` does).
 */
export function privacyModuleWith(
  settings: PrivacySettings = {},
  build: PrivacyBuilder = importedBuilder,
): WorkbenchModule {
  let policy = settings.policy;
  const keep = (chosen: CompiledPolicy): void => {
    policy = chosen;
  };
  return {
    name: "privacy",
    instructions:
      "Output may be pseudonymised by the active policy: pass identifiers back unchanged; privacy_status tells which policy applies.",
    toolsets: [PRIVACY_TOOLSET],
    permissionNeeds: () => [],
    deferred: build === importedBuilder,
    // What the imported implementation lists (its tools do not depend on the settings).
    ...(build === importedBuilder ? { toolCatalog } : {}),
    create: (services) => build(services, policy ? { policy } : {}, keep),
  };
}
