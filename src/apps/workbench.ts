/**
 * The apps workbench: its module (toolsets, CLI flags, error codes,
 * instructions) and, per connection, the shared context, the tools built on
 * it, the completion families, the resource templates and the guided
 * prompts. Each tool lives in its own file under `tools/`.
 *
 * @module
 */

import {
  CEILING_FLAGS,
  CEILINGS_HELP,
  ceilingsFrom,
  DEFAULT_CEILINGS,
} from "./artifacts/ceilings.ts";
import type { TraversalLimits } from "./artifacts/model.ts";
import type { ToolDefinition } from "../core/catalog.ts";
import type { PermissionNeed } from "../core/permissions.ts";
import type {
  RootDirectory,
  ToolsetInfo,
  Workbench,
  WorkbenchModule,
  WorkbenchServices,
} from "../core/workbench.ts";
import {
  type CapturePolicySettings,
  emptyCapturePolicy,
  parseCapturePolicy,
} from "./capture/settings.ts";
import { captureGaps, captureNeeds } from "./capture/readiness.ts";
import { appsCompletionFamilies } from "./completion_families.ts";
import { type AppsContext, createAppsContext } from "./context/apps_context.ts";
import { withStableParameters } from "./context/evidence_parameters.ts";
import { recordingLeftUnknowns } from "./context/left_unknowns.ts";
import { APPS_ERROR_CODES } from "./errors.ts";
import { ANALYSIS_PREDICATE } from "./evidence.ts";
import { APPS_PROMPTS } from "./prompts.ts";
import { appsResourceTemplates } from "./resource_templates.ts";
import { CLOSE_BINARY } from "./tool_names.ts";
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

/** How the apps workbench is configured. */
export interface AppsSettings {
  /** The operator's process-capture policy. @default nothing allowed */
  capturePolicy?: Partial<CapturePolicySettings>;
  /** The operator's ceilings over client-chosen traversal limits. @default DEFAULT_CEILINGS */
  ceilings?: Partial<TraversalLimits>;
}

/** The apps workbench module, configured; its settings are readable for status and tests. */
export interface AppsWorkbenchModule extends WorkbenchModule {
  /** The settings it was configured with. */
  readonly settings: Readonly<{
    capturePolicy: Readonly<CapturePolicySettings>;
    ceilings: Readonly<TraversalLimits>;
  }>;
}

/** The apps toolsets. */
export const APPS_TOOLSETS: readonly ToolsetInfo[] = [
  { name: "session", description: "Open, switch and close targets; the session's status." },
  {
    name: "static",
    description: "Static analysis of binaries: procedures, strings, xrefs, call graphs, dossiers.",
  },
  {
    name: "artifacts",
    description:
      "Directories and archives: inventories, comparisons, extraction, Evidence bundles, reconstruction checks.",
  },
  { name: "capture", description: "Approved process captures, their comparison and correlation." },
  { name: "unknowns", description: "The residual-unknowns registry." },
];

const CAPTURE_HELP =
  `Process capture (capture_process_scenario; --allow-process-launch is the master switch):
  --allow-capture PATH   an executable captures may run, or a directory whose files they may run
                         (repeatable; Deno must also grant each program, e.g. --allow-run=PATH)
  --capture-root DIR     working directories and filesystem roots must lie inside one (repeatable)
  --capture-env NAME     an environment variable name captures may set or inherit (repeatable)
  --capture-allow-network
                         allow network_access "host" (default: a private network namespace only)
  --confirm-captures     a human confirms each capture plan (the client needs form elicitation)
  --capture-policy FILE  the same as JSON: {"executables":[…],"roots":[…],"environment":[…],
                         "allow_host_network":false,"require_human_confirmation":false}; merged
                         with the flags (grant --allow-read=FILE)
  Captures use sh and setsid (grant --allow-run=sh,setsid,kill), a temporary directory
  (--allow-write=/tmp --allow-read=/tmp), and strace, gdb, prlimit and unshare when granted;
  binary_session lists what is still missing (see the README's "Process capture").
`;

/**
 * The apps workbench configured with `settings`.
 *
 * @example
 * ```ts
 * import { appsWorkbenchWith } from "./workbench.ts";
 * const apps = appsWorkbenchWith({ capturePolicy: { executables: ["/usr/bin/true"] } });
 * ```
 */
export function appsWorkbenchWith(settings: AppsSettings = {}): AppsWorkbenchModule {
  const capturePolicy: CapturePolicySettings = {
    ...emptyCapturePolicy(),
    ...structuredClone(settings.capturePolicy ?? {}),
  };
  const ceilings: TraversalLimits = { ...DEFAULT_CEILINGS, ...settings.ceilings };
  return {
    name: "apps",
    instructions:
      "For shipped binaries and packages, start with binary_session, then open_binary on a path under an allowed root.",
    toolsets: APPS_TOOLSETS,
    errorCodes: APPS_ERROR_CODES,
    subjectKinds: ["binary", "artifact", "process-capture"],
    evidencePredicate: ANALYSIS_PREDICATE,
    clearsEvidenceWith: [CLOSE_BINARY],
    settings: { capturePolicy, ceilings },
    cli: {
      options: {
        "allow-capture": { type: "string", multiple: true },
        "capture-root": { type: "string", multiple: true },
        "capture-env": { type: "string", multiple: true },
        "capture-allow-network": { type: "boolean" },
        "confirm-captures": { type: "boolean" },
        "capture-policy": { type: "string" },
        ...Object.fromEntries(
          Object.values(CEILING_FLAGS).map((flag) => [flag, { type: "string" as const }]),
        ),
      },
      help: CAPTURE_HELP + "\n" + CEILINGS_HELP,
      configure: (values) => {
        const policy = parseCapturePolicy(values as Parameters<typeof parseCapturePolicy>[0]);
        return appsWorkbenchWith({
          ...(policy ? { capturePolicy: policy } : {}),
          ceilings: ceilingsFrom(values),
        });
      },
    },
    permissionNeeds: (roots: readonly RootDirectory[]): PermissionNeed[] => [
      ...roots.map((root): PermissionNeed => ({
        name: "read",
        target: root.path,
        purpose: `open targets under ${root.path}`,
      })),
      // With a capture policy, what capture uses is probed at start-up and listed too.
      ...(capturePolicy.executables.length > 0 && capturePolicy.roots.length > 0
        ? captureNeeds(capturePolicy).map(({ name, target, purpose }) => ({
          name,
          ...(target !== undefined ? { target } : {}),
          purpose,
        }))
        : []),
    ],
    create: (services) => createAppsWorkbench(services, capturePolicy, ceilings),
  };
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

function createAppsWorkbench(
  services: WorkbenchServices,
  capturePolicy: Readonly<CapturePolicySettings>,
  ceilings: Readonly<TraversalLimits>,
): Workbench {
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
