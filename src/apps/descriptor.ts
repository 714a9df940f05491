/**
 * The apps workbench's descriptor: what the server and the command line need
 * before any connection is served (name, toolsets, flags and their help, the
 * instructions paragraph, error codes, permission needs), kept apart from its
 * implementation (`workbench.ts`), which is imported when a connection first
 * builds the workbench. Starting the server therefore loads none of the
 * tools, formats or analyses.
 *
 * @module
 */

import {
  CEILING_FLAGS,
  CEILINGS_HELP,
  ceilingsFrom,
  DEFAULT_CEILINGS,
} from "./artifacts/ceilings.ts";
import type { TraversalLimits } from "./artifacts/limits.ts";
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
import { captureNeeds } from "./capture/readiness.ts";
import { APPS_ERROR_CODES } from "./errors.ts";
import { ANALYSIS_PREDICATE } from "./evidence.ts";
import { CLOSE_BINARY } from "./tool_names.ts";
import { lazyToolCatalog } from "../core/tool_listing.ts";

/** How the apps workbench is configured. */
export interface AppsSettings {
  /** The operator's process-capture policy. @default nothing allowed */
  capturePolicy?: Partial<CapturePolicySettings>;
  /** The operator's ceilings over client-chosen traversal limits. @default DEFAULT_CEILINGS */
  ceilings?: Partial<TraversalLimits>;
}

/** The apps settings with every default filled in. */
export interface ResolvedAppsSettings {
  /** The operator's process-capture policy. */
  capturePolicy: Readonly<CapturePolicySettings>;
  /** The operator's ceilings over client-chosen traversal limits. */
  ceilings: Readonly<TraversalLimits>;
}

/** The apps workbench module, configured; its settings are readable for status and tests. */
export interface AppsWorkbenchModule extends WorkbenchModule {
  /** The settings it was configured with. */
  readonly settings: Readonly<ResolvedAppsSettings>;
}

/** Builds the apps workbench of one connection from resolved settings. */
export type AppsBuilder = (
  services: WorkbenchServices,
  settings: Readonly<ResolvedAppsSettings>,
) => Workbench | Promise<Workbench>;

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

/** The generated catalog of the apps tools (`tool_catalog.json`), imported on first use. */
const toolCatalog = lazyToolCatalog(() =>
  import("./tool_catalog.json", { with: { type: "json" } })
);

/** Imports the implementation, then builds the workbench with it. */
const importedBuilder: AppsBuilder = async (services, settings) => {
  const { createAppsWorkbench } = await import("./workbench.ts");
  return createAppsWorkbench(services, settings);
};

/**
 * The apps workbench module configured with `settings`. Its `create` imports
 * the implementation on first use, unless `build` builds it directly (as
 * `appsWorkbenchWith` of `workbench.ts` does); the module its flags configure
 * builds the same way.
 *
 * @example
 * ```ts
 * import { appsModuleWith } from "./descriptor.ts";
 * const apps = appsModuleWith({ capturePolicy: { executables: ["/usr/bin/true"] } });
 * ```
 */
export function appsModuleWith(
  settings: AppsSettings = {},
  build: AppsBuilder = importedBuilder,
): AppsWorkbenchModule {
  const capturePolicy: CapturePolicySettings = {
    ...emptyCapturePolicy(),
    ...structuredClone(settings.capturePolicy ?? {}),
  };
  const ceilings: TraversalLimits = { ...DEFAULT_CEILINGS, ...settings.ceilings };
  const resolved: ResolvedAppsSettings = { capturePolicy, ceilings };
  return {
    name: "apps",
    instructions:
      "For shipped binaries and packages, start with binary_session, then open_binary on a path under an allowed root.",
    toolsets: APPS_TOOLSETS,
    errorCodes: APPS_ERROR_CODES,
    subjectKinds: ["binary", "artifact", "process-capture"],
    evidencePredicate: ANALYSIS_PREDICATE,
    clearsEvidenceWith: [CLOSE_BINARY],
    settings: resolved,
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
        return appsModuleWith({
          ...(policy ? { capturePolicy: policy } : {}),
          ceilings: ceilingsFrom(values),
        }, build);
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
    deferred: build === importedBuilder,
    // What the imported implementation lists (its tools do not depend on the settings).
    ...(build === importedBuilder ? { toolCatalog } : {}),
    create: (services) => build(services, resolved),
  };
}
