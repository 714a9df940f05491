/**
 * The apps workbench's implementation: per connection, the shared context,
 * the tools built on it, the completion families, the resource templates and
 * the guided prompts (its toolsets, flags and instructions are in
 * `descriptor.ts`). Each tool lives in its own file under `tools/`.
 *
 * @module
 */

import type { ToolDefinition } from "../core/catalog.ts";
import type { Workbench, WorkbenchServices } from "../core/workbench.ts";
import type { CapturePolicySettings } from "./capture/settings.ts";
import { captureGaps } from "./capture/readiness.ts";
import {
  appsModuleWith,
  type AppsSettings,
  type AppsWorkbenchModule,
  type ResolvedAppsSettings,
} from "./descriptor.ts";
import { appsCompletionFamilies } from "./completion_families.ts";
import { type AppsContext, createAppsContext } from "./context/apps_context.ts";
import { withStableParameters } from "./context/evidence_parameters.ts";
import { recordingLeftUnknowns } from "./context/left_unknowns.ts";
import { APPS_PROMPTS } from "./prompts.ts";
import { appsResourceTemplates } from "./resource_templates.ts";
import { analyzeFunctionTool } from "./tools/analyze_function.ts";
import { binaryOverviewTool } from "./tools/binary_overview.ts";
import { binarySessionTool } from "./tools/binary_session.ts";
import { buildCallPathTool } from "./tools/build_call_path.ts";
import { captureProcessScenarioTool } from "./tools/capture_process_scenario.ts";
import { closeBinaryTool } from "./tools/close_binary.ts";
import { compareArtifactsTool } from "./tools/compare_artifacts.ts";
import { compareFunctionsTool } from "./tools/compare_functions.ts";
import { compareProcessCapturesTool } from "./tools/compare_process_captures.ts";
import { correlateStaticAndRuntimeTool } from "./tools/correlate_static_and_runtime.ts";
import { extractArtifactTool } from "./tools/extract_artifact.ts";
import { findChangedBehaviorTool } from "./tools/find_changed_behavior.ts";
import { inventoryArtifactTool } from "./tools/inventory_artifact.ts";
import { listDocumentsTool } from "./tools/list_documents.ts";
import { listProceduresTool } from "./tools/list_procedures.ts";
import { listUnknownsTool } from "./tools/list_unknowns.ts";
import { openBinaryTool } from "./tools/open_binary.ts";
import { procedureAddressTool } from "./tools/procedure_address.ts";
import { procedureCalleesTool } from "./tools/procedure_callees.ts";
import { procedureCallersTool } from "./tools/procedure_callers.ts";
import { recordUnknownTool } from "./tools/record_unknown.ts";
import { releaseEvidenceBundleTool } from "./tools/release_evidence_bundle.ts";
import { resolveContainingProcedureTool } from "./tools/resolve_containing_procedure.ts";
import { searchProceduresTool } from "./tools/search_procedures.ts";
import { searchStringsTool } from "./tools/search_strings.ts";
import { setCurrentDocumentTool } from "./tools/set_current_document.ts";
import { snapshotEvidenceBundleTool } from "./tools/snapshot_evidence_bundle.ts";
import { traceFeatureTool } from "./tools/trace_feature.ts";
import { updateUnknownTool } from "./tools/update_unknown.ts";
import { verifyReconstructionTool } from "./tools/verify_reconstruction.ts";
import { verifyUnknownResolutionTool } from "./tools/verify_unknown_resolution.ts";
import { xrefsTool } from "./tools/xrefs.ts";

export {
  APPS_TOOLSETS,
  type AppsSettings,
  type AppsWorkbenchModule,
  type ResolvedAppsSettings,
} from "./descriptor.ts";

/**
 * The apps workbench configured with `settings`, built directly by each
 * connection (the built-in server uses `appsModuleWith` of `descriptor.ts`,
 * which imports this file on first use instead).
 *
 * @example
 * ```ts
 * import { appsWorkbenchWith } from "./workbench.ts";
 * const apps = appsWorkbenchWith({ capturePolicy: { executables: ["/usr/bin/true"] } });
 * ```
 */
export function appsWorkbenchWith(settings: AppsSettings = {}): AppsWorkbenchModule {
  return appsModuleWith(settings, createAppsWorkbench);
}

/** The apps workbench with nothing allowed beyond reading targets. */
export const appsWorkbench: AppsWorkbenchModule = appsWorkbenchWith();

/**
 * The apps tools, in the order `tools/list` shows them. Each factory builds
 * one tool on the connection's shared context.
 */
export const APPS_TOOL_FACTORIES: ReadonlyArray<(context: AppsContext) => ToolDefinition> = [
  binarySessionTool,
  openBinaryTool,
  closeBinaryTool,
  listDocumentsTool,
  setCurrentDocumentTool,
  listProceduresTool,
  binaryOverviewTool,
  searchStringsTool,
  searchProceduresTool,
  procedureAddressTool,
  resolveContainingProcedureTool,
  analyzeFunctionTool,
  xrefsTool,
  procedureCallersTool,
  procedureCalleesTool,
  buildCallPathTool,
  traceFeatureTool,
  compareFunctionsTool,
  captureProcessScenarioTool,
  compareProcessCapturesTool,
  correlateStaticAndRuntimeTool,
  findChangedBehaviorTool,
  recordUnknownTool,
  updateUnknownTool,
  listUnknownsTool,
  verifyUnknownResolutionTool,
  inventoryArtifactTool,
  compareArtifactsTool,
  extractArtifactTool,
  snapshotEvidenceBundleTool,
  releaseEvidenceBundleTool,
  verifyReconstructionTool,
];

/** Builds the apps workbench of one connection: its context, tools, prompts and resources. */
export function createAppsWorkbench(
  services: WorkbenchServices,
  settings: Readonly<ResolvedAppsSettings>,
): Workbench {
  const { capturePolicy, ceilings } = settings;
  const context = createAppsContext(services, capturePolicy, ceilings);
  warnCaptureGaps(services, capturePolicy);
  return {
    name: "apps",
    tools: APPS_TOOL_FACTORIES.map((tool) =>
      recordingLeftUnknowns(context, withStableParameters(tool(context)))
    ),
    prompts: APPS_PROMPTS,
    completionFamilies: appsCompletionFamilies(context),
    resourceTemplates: appsResourceTemplates(context),
    onEvidenceCleared: () => context.clear(),
    close: async () => {
      await context.session.close();
      // Drop every scan, snapshot and bundle with the connection, so their memory can go.
      context.artifact?.snapshots.clear();
      context.clear();
    },
  };
}

let captureGapsLogged = false;

/** Logs once per process, at start-up, the grants a configured capture still lacks. */
function warnCaptureGaps(
  services: WorkbenchServices,
  policy: Readonly<CapturePolicySettings>,
): void {
  if (captureGapsLogged || policy.executables.length === 0 || policy.roots.length === 0) return;
  captureGapsLogged = true;
  const gaps = captureGaps(policy);
  const required = gaps.filter((g) => g.required);
  if (required.length > 0) {
    services.log(
      "warning",
      `Process capture is configured but cannot run: restart with ${
        required.map((g) => g.flag).join(" ")
      } (${required.map((g) => g.what).join("; ")}).`,
    );
  }
  const optional = gaps.filter((g) => !g.required);
  if (optional.length > 0) {
    services.log(
      "notice",
      `Process capture runs without: ${optional.map((g) => `${g.what} (${g.flag})`).join("; ")}.`,
    );
  }
}
