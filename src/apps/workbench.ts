/**
 * The apps workbench: binary session tools, their completion families, the
 * Evidence resources and the six guided prompts.
 *
 * @module
 */

import { z } from "zod";
import type { ToolDefinition } from "../core/catalog.ts";
import {
  discoverPaged,
  discoveryCandidates,
  MAX_COMPLETION_VALUE_LENGTH,
} from "../core/completion.ts";
import type { AnalysisProfile, EvidenceDraft } from "../core/evidence.ts";
import type { JsonValue } from "../core/canonical_json.ts";
import { ToolFailure } from "../core/errors.ts";
import { flagFor, type PermissionNeed } from "../core/permissions.ts";
import type {
  CompletionFamily,
  RootDirectory,
  ToolsetInfo,
  Workbench,
  WorkbenchModule,
  WorkbenchServices,
} from "../core/workbench.ts";
import { APPS_ERROR_CODES } from "./errors.ts";
import { ANALYSIS_PREDICATE } from "./evidence.ts";
import {
  type CapturePolicySettings,
  emptyCapturePolicy,
  parseCapturePolicy,
} from "./capture/settings.ts";
import { VERSION } from "../version.ts";
import { analysisTools } from "./analysis_tools.ts";
import { captureCandidates, captureCapability, captureTools } from "./capture_tools.ts";
import { unknownCompletionFamily, unknownResourceTemplate, unknownTools } from "./unknown_tools.ts";
import { UnknownRegistry } from "./unknowns/registry.ts";
import { artifactTools } from "./artifact_tools.ts";
import { validateCapture } from "./capture/result.ts";
import { deriveComparisonStatus } from "./capture/compare.ts";
import { type ArtifactTarget, openArtifact, resolveTargetPath } from "./artifacts/target.ts";
import { APPS_PROMPTS } from "./prompts.ts";
import { objdumpProvider } from "./providers/objdump.ts";
import type { AnalysisProvider, Binding } from "./providers/provider.ts";
import { nativeProvider } from "./providers/native.ts";
import { BinarySession, type OpenOutcome } from "./session/binary_session.ts";
import type { BinaryImage } from "./formats/binary_image.ts";
import type { LoadedTarget } from "./session/target.ts";
import {
  BINARY_SESSION,
  CLOSE_BINARY,
  LIST_DOCUMENTS,
  LIST_PROCEDURES,
  OPEN_BINARY,
  SET_CURRENT_DOCUMENT,
} from "./tool_names.ts";

/** Largest `list_procedures` page. */
export const MAX_PROCEDURE_PAGE = 500;

/** How the apps workbench is configured. */
export interface AppsSettings {
  /** The operator's process-capture policy. @default nothing allowed */
  capturePolicy?: Partial<CapturePolicySettings>;
}

/** The apps workbench module, configured; its settings are readable for status and tests. */
export interface AppsWorkbenchModule extends WorkbenchModule {
  /** The settings it was configured with. */
  readonly settings: Readonly<{ capturePolicy: Readonly<CapturePolicySettings> }>;
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

/** Which toolset each apps tool belongs to. */
const TOOLSET_OF: Readonly<Record<string, string>> = {
  binary_session: "session",
  open_binary: "session",
  close_binary: "session",
  list_documents: "session",
  set_current_document: "session",
  list_procedures: "static",
  binary_overview: "static",
  search_strings: "static",
  search_procedures: "static",
  procedure_address: "static",
  resolve_containing_procedure: "static",
  analyze_function: "static",
  xrefs: "static",
  procedure_callers: "static",
  procedure_callees: "static",
  build_call_path: "static",
  trace_feature: "static",
  compare_functions: "static",
  inventory_artifact: "artifacts",
  compare_artifacts: "artifacts",
  extract_artifact: "artifacts",
  snapshot_evidence_bundle: "artifacts",
  release_evidence_bundle: "artifacts",
  verify_reconstruction: "artifacts",
  record_unknown: "unknowns",
  update_unknown: "unknowns",
  list_unknowns: "unknowns",
  verify_unknown_resolution: "unknowns",
  capture_process_scenario: "capture",
  compare_process_captures: "capture",
  correlate_static_and_runtime: "capture",
  find_changed_behavior: "capture",
};

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
  Captures use sh and setsid (grant --allow-run=sh,setsid,kill and --allow-read=/proc), and
  strace, unshare, gdb, prlimit and a pids cgroup (--allow-write=/sys/fs/cgroup) when granted.
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
  return {
    name: "apps",
    instructions:
      "For shipped binaries and packages, start with binary_session, then open_binary on a path under an allowed root.",
    toolsets: APPS_TOOLSETS,
    errorCodes: APPS_ERROR_CODES,
    subjectKinds: ["binary", "artifact", "process-capture"],
    evidencePredicate: ANALYSIS_PREDICATE,
    clearsEvidenceWith: [CLOSE_BINARY],
    settings: { capturePolicy },
    cli: {
      options: {
        "allow-capture": { type: "string", multiple: true },
        "capture-root": { type: "string", multiple: true },
        "capture-env": { type: "string", multiple: true },
        "capture-allow-network": { type: "boolean" },
        "confirm-captures": { type: "boolean" },
        "capture-policy": { type: "string" },
      },
      help: CAPTURE_HELP,
      configure: (values) => {
        const policy = parseCapturePolicy(values as Parameters<typeof parseCapturePolicy>[0]);
        return appsWorkbenchWith(policy ? { capturePolicy: policy } : {});
      },
    },
    permissionNeeds: (roots: readonly RootDirectory[]): PermissionNeed[] =>
      roots.map((root) => ({
        name: "read",
        target: root.path,
        purpose: `open targets under ${root.path}`,
      })),
    create: (services) => createAppsWorkbench(services, capturePolicy),
  };
}

/** The apps workbench with nothing allowed beyond reading targets. */
export const appsWorkbench: AppsWorkbenchModule = appsWorkbenchWith();

const providerSchema = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string().nullable(),
});

const bindingSchema = z.object({
  provider: providerSchema,
  selection_source: z.string(),
  analysis_profile: z.object({
    schema_version: z.literal(1),
    provider: z.object({ id: z.string(), name: z.string(), version: z.string() }),
    provider_profile_schema_version: z.number().int(),
    parameters: z.record(z.string(), z.unknown()),
    digest: z.string(),
  }).nullable().describe(
    "The settings the bound provider's answers depend on, recorded in its Evidence; null until its version is known.",
  ),
});

const targetSchema = z.object({
  path: z.string().describe("The path as requested."),
  real_path: z.string().describe("The resolved real path."),
  name: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  format: z.string().describe("elf, pe, mach-o or wasm."),
  documents: z.array(z.string()).describe(
    "Analysis documents: one per file, one per universal slice.",
  ),
  document: z.string().describe("The document the following fields describe (the current one)."),
  architecture: z.string(),
  machine: z.string(),
  bits: z.number().int(),
  endianness: z.string(),
  entry: z.string().nullable(),
  procedure_count: z.number().int(),
  import_count: z.number().int(),
  export_count: z.number().int(),
  build_id: z.string().nullable(),
  warnings: z.array(z.string()),
  origin: z.object({
    artifact_path: z.string(),
    artifact_sha256: z.string(),
    occurrence_id: z.string(),
    logical_path: z.string(),
    inventory_evidence_id: z.string(),
  }).nullable().describe(
    "For a member of an artifact opened by occurrence_id: the artifact and the member, read in memory without extraction; null for a file.",
  ),
});

const artifactTargetSchema = z.object({
  path: z.string().describe("The path as requested."),
  real_path: z.string(),
  name: z.string(),
  kind: z.enum(["directory", "file"]),
  format: z.string().describe(
    "directory, tar, deb, ar, zip (or jar, apk, whl, ipa, nupkg), gzip, xz or zstd.",
  ),
  size: z.number().int().describe("File size; for a directory, the bytes of its regular files."),
  sha256: z.string().describe(
    "The root's content digest; for a directory, the digest of its listing.",
  ),
  retained_scans: z.number().int(),
});

const describeArtifact = (target: ArtifactTarget) => ({
  path: target.requestedPath,
  real_path: target.realPath,
  name: target.name,
  kind: target.kind,
  format: target.format,
  size: target.size,
  sha256: target.sha256,
  retained_scans: target.snapshots.size,
});

const sessionSchema = z.object({
  server: z.object({ name: z.string(), version: z.string() }),
  target: targetSchema.nullable(),
  artifact_target: artifactTargetSchema.nullable().describe(
    "The active artifact target (directory or archive), when the target is not a binary.",
  ),
  current_document: z.string().nullable(),
  analysis_provider_binding: bindingSchema.nullable(),
  analysis_provider_candidates: z.array(z.object({
    provider: providerSchema,
    availability: z.object({ status: z.string(), code: z.string().nullable(), reason: z.string() }),
    target_support: z.object({
      status: z.string(),
      code: z.string().nullable(),
      reason: z.string(),
    }),
    selected: z.boolean(),
    capabilities: z.array(z.string()),
  })),
  capabilities: z.array(z.object({
    name: z.string(),
    available: z.boolean(),
    reason: z.string(),
    enable_with: z.string().nullable(),
  })),
  permissions: z.array(z.object({
    name: z.string(),
    target: z.string().nullable(),
    state: z.string(),
    flag: z.string(),
    purpose: z.string(),
  })),
  policy: z.object({
    read_only: z.boolean(),
    process_launch: z.boolean(),
    file_writes: z.boolean(),
  }),
  roots: z.array(z.object({ path: z.string(), real_path: z.string().nullable() })),
  ledger: z.object({
    records: z.number().int(),
    max_records: z.number().int(),
    bytes: z.number().int(),
    max_bytes: z.number().int(),
  }),
});

const procedurePageSchema = z.object({
  document: z.string(),
  items: z.array(z.object({ address: z.string(), value: z.string() })),
  offset: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  has_more: z.boolean(),
  next_offset: z.number().int().nullable(),
});

const coverage = new WeakMap<BinaryImage, string[]>();

/** What a procedure listing can and cannot contain, from where its starts came (computed once). */
export function procedureCoverage(image: BinaryImage): string[] {
  let known = coverage.get(image);
  if (!known) {
    const sources = new Set(image.functions.map((fn) => fn.source));
    const table = [
      "symtab",
      "name-section",
      "code-section",
      "pdata",
      "function-starts",
      "eh-frame",
    ];
    known = table.some((source) => sources.has(source as never)) ? [] : [
      `No full function table: procedure starts come from ${
        [...sources].sort().join(", ") || "nothing"
      }; functions recorded nowhere else are not listed.`,
    ];
    coverage.set(image, known);
  }
  return known;
}

/** The draft field for a provider's profile: absent when it has none yet. */
function withProfile(profile: AnalysisProfile | null): { analysis_profile?: AnalysisProfile } {
  return profile ? { analysis_profile: profile } : {};
}

function createAppsWorkbench(
  services: WorkbenchServices,
  capturePolicy: Readonly<CapturePolicySettings>,
): Workbench {
  const candidates: AnalysisProvider[] = [
    nativeProvider(),
    objdumpProvider(
      services.gate,
      () => services.policy.allowProcessLaunch && !services.policy.readOnly,
    ),
  ];
  const session = new BinarySession(services.roots, candidates);
  const { ledger } = services;
  /** Session state beside the ledger (registries, stores) that close_binary clears with it. */
  const closeHooks: Array<() => void> = [];
  /** The residual-unknowns registry; its revisions count against the ledger's caps. */
  const unknowns = new UnknownRegistry(ledger);
  closeHooks.push(() => unknowns.clear());
  /** The active artifact target (a directory or archive), when the target is not a binary. */
  let artifact: ArtifactTarget | null = null;
  closeHooks.push(() => {
    artifact = null;
  });
  const requireArtifact = (operation: string): ArtifactTarget => {
    if (artifact) return artifact;
    throw new ToolFailure(
      "target_unavailable",
      session.target
        ? `${operation} works on an artifact target (a directory or archive), but the active target is the binary ${session.target.name}.`
        : `${operation} needs an artifact target, and none is open.`,
      {
        action:
          "Call open_binary with the absolute path of a directory, tar, .deb, zip-family or compressed file.",
      },
    );
  };

  const policyFacts = () => ({
    read_only: services.policy.readOnly,
    process_launch: services.policy.allowProcessLaunch && !services.policy.readOnly,
    file_writes: services.policy.allowFileWrites && !services.policy.readOnly,
  });

  const describeTarget = (target: LoadedTarget) => {
    const current = session.currentDocument;
    const image = target.documents.find((d) => d.document === current) ?? target.documents[0]!;
    return {
      path: target.requestedPath,
      real_path: target.realPath,
      name: target.name,
      size: target.size,
      sha256: target.sha256,
      format: target.format,
      documents: target.documents.map((d) => d.document),
      document: image.document,
      architecture: image.architecture,
      machine: image.machine,
      bits: image.bits,
      endianness: image.endianness,
      entry: image.entry === null ? null : `0x${image.entry.toString(16)}`,
      procedure_count: image.functions.length,
      import_count: image.imports.length,
      export_count: image.exports.length,
      build_id: image.buildId,
      warnings: image.warnings.slice(0, 50),
      origin: target.origin.kind === "occurrence"
        ? {
          artifact_path: target.origin.artifactPath,
          artifact_sha256: target.origin.artifactSha256,
          occurrence_id: target.origin.occurrenceId,
          logical_path: target.origin.logicalPath,
          inventory_evidence_id: target.origin.inventoryEvidenceId,
        }
        : null,
    };
  };

  /** The result of open_binary for a binary target (the artifact target, if any, beside it). */
  const openedBinary = (outcome: OpenOutcome, action: OpenOutcome["action"]) => ({
    action,
    target: describeTarget(outcome.target),
    artifact_target: artifact ? describeArtifact(artifact) : null,
    documents: outcome.binding ? outcome.binding.provider.listDocuments(outcome.target) : [],
    current_document: session.currentDocument,
    analysis_provider_binding: bindingView(outcome.binding),
  });

  /** A binding as status and open_binary report it. */
  const bindingView = (binding: Binding | null) =>
    binding
      ? {
        provider: binding.provider.identity,
        selection_source: binding.selectionSource,
        analysis_profile: binding.provider.profile(),
      }
      : null;

  const status = () => {
    const target = session.target;
    const binding = session.binding;
    const grantedRoots = services.permissions.filter((p) => p.name === "read");
    const readable = grantedRoots.filter((p) => p.state === "granted");
    return {
      server: { name: "casefile", version: VERSION },
      target: target ? describeTarget(target) : null,
      artifact_target: artifact ? describeArtifact(artifact) : null,
      current_document: session.currentDocument,
      analysis_provider_binding: bindingView(binding),
      analysis_provider_candidates: session.candidates.map((provider) => ({
        provider: provider.identity,
        availability: provider.availability(),
        target_support: target
          ? provider.supports(target)
          : { status: "unknown", code: null, reason: "No target is open." },
        selected: binding?.provider === provider,
        capabilities: provider.capabilities,
      })),
      capabilities: [
        {
          name: "open_targets",
          available: readable.length > 0,
          reason: services.roots.length === 0
            ? "No --root is configured, so nothing can be opened."
            : readable.length > 0
            ? `Targets can be opened under ${readable.map((p) => p.target).join(", ")}.`
            : "No allowed root is readable: read permission was not granted.",
          enable_with: readable.length > 0
            ? null
            : services.roots.length === 0
            ? "--root DIR --allow-read=DIR"
            : grantedRoots.map((p) => p.flag).join(" "),
        },
        {
          name: "list_procedures",
          available: true,
          reason:
            "Procedure starts from symbol tables, exports, .pdata, LC_FUNCTION_STARTS, .eh_frame and WebAssembly code sections, read natively.",
          enable_with: null,
        },
        captureCapability(
          capturePolicy,
          services.policy.allowProcessLaunch && !services.policy.readOnly,
        ),
      ],
      permissions: services.permissions.map((p) => ({
        name: p.name,
        target: p.target ?? null,
        state: p.state,
        flag: p.flag ?? flagFor(p.name, p.target),
        purpose: p.purpose,
      })),
      policy: policyFacts(),
      roots: services.roots.map((root) => ({ path: root.path, real_path: root.realPath })),
      ledger: {
        records: ledger.size,
        max_records: ledger.maxRecords,
        bytes: ledger.bytes,
        max_bytes: ledger.maxBytes,
      },
    };
  };

  const observation = (
    operation: string,
    provider: AnalysisProvider,
    target: LoadedTarget,
    image: BinaryImage,
    parameters: Record<string, unknown>,
    result: Record<string, unknown>,
  ): { kind: "evidence"; draft: EvidenceDraft & { limitations: string[] } } => ({
    kind: "evidence" as const,
    draft: {
      subject: target.subject,
      provider: { ...provider.identity },
      ...withProfile(provider.profile()),
      predicate_type: ANALYSIS_PREDICATE,
      operation,
      parameters,
      normalized_result: result,
      limitations: image.warnings.map((w) => `${target.formatName} reader: ${w}`).slice(0, 100),
    },
  });

  const artifacts = artifactTools({
    ledger,
    roots: services.roots,
    requireArtifact,
    unknowns: () => ({
      revisions: unknowns.revisions() as unknown as JsonValue[],
      heads: unknowns.heads(),
    }),
    isValidCapture: (value) => validateCapture(value).valid,
    deriveBehavioralStatus: (value) => {
      const dimensions = (value as { dimensions?: unknown } | null)?.dimensions;
      return dimensions && typeof dimensions === "object"
        ? deriveComparisonStatus(dimensions as Parameters<typeof deriveComparisonStatus>[0])
        : null;
    },
  });
  const tools: ToolDefinition[] = [
    {
      name: BINARY_SESSION,
      description:
        "Report the session: open target, provider binding and candidates, capabilities with the flag that enables each missing one, permissions, policy, roots and ledger usage. Starts nothing; call it first.",
      input: z.strictObject({}),
      result: sessionSchema,
      effects: {},
      producesEvidence: false,
      run: () => Promise.resolve({ kind: "result", result: status() }),
    },
    {
      name: OPEN_BINARY,
      description:
        "Open a target under an allowed root: an ELF, PE, Mach-O (thin or universal) or WebAssembly file as a binary target for static analysis, or a directory or archive (tar, .deb/ar, zip family, gzip/xz/zstd) as an artifact target for inventory_artifact. Or pass occurrence_id instead of path to open a file occurrence of a retained inventory as the binary target: it is read back into memory from its artifact (nothing is extracted to disk), checked against the inventoried SHA-256, and the artifact target stays active beside it. Reopening the same target keeps its state; another one switches, keeping the session's Evidence. Opening records the content identity (a directory's is the digest of every file in it, so opening one reads it all) and reports progress. Refuses relative paths, paths outside the roots (also via symlinks), devices and unsupported formats.",
      input: z.strictObject({
        path: z.string().min(1).max(4096).optional().describe(
          "Absolute path of the file or directory to open. Give this or occurrence_id.",
        ),
        occurrence_id: z.string().min(1).max(68).optional().describe(
          "An occurrence_id from a retained inventory_artifact page: open that member of the artifact as the binary target, in memory. Give this or path.",
        ),
        provider_id: z.string().min(1).max(64).optional().describe(
          "auto (default) or a provider id from binary_session; an explicit id never falls back.",
        ),
      }),
      result: z.object({
        action: z.enum(["opened", "switched", "reopened"]),
        target: targetSchema.nullable().describe(
          "The binary target, or null for an artifact target.",
        ),
        artifact_target: artifactTargetSchema.nullable().describe(
          "The artifact target (directory or archive); beside a binary target only when the binary is one of its occurrences.",
        ),
        documents: z.array(z.string()),
        current_document: z.string().nullable(),
        analysis_provider_binding: bindingSchema.nullable(),
      }),
      effects: { mutatesSession: true },
      producesEvidence: false,
      run: async (args, context) => {
        const occurrenceId = args.occurrence_id as string | undefined;
        if ((args.path === undefined) === (occurrenceId === undefined)) {
          throw new ToolFailure(
            "invalid_request",
            "Pass exactly one of path (a file or artifact under a root) and occurrence_id (a member of an inventoried artifact).",
          );
        }
        const provider = args.provider_id as string | undefined;
        if (occurrenceId !== undefined) {
          // The artifact's size is not known here: progress counts bytes read, then discovery steps.
          let read = 0;
          const outcome = await session.open(
            () =>
              artifacts.readOccurrence(occurrenceId, {
                signal: context.signal,
                onProgress: (bytes, entries) => {
                  read = bytes;
                  return context.progress(
                    bytes,
                    undefined,
                    `reading the artifact back: ${bytes} bytes, ${entries} entries`,
                  );
                },
              }),
            provider,
            {
              signal: context.signal,
              onDiscoveryProgress: (done, total, message) =>
                context.progress(read + done, read + total, message),
            },
          );
          // The artifact target stays active beside its member.
          return { kind: "result", result: openedBinary(outcome, outcome.action) };
        }
        const resolved = await resolveTargetPath(args.path as string, services.roots);
        if (resolved.kind !== "file") {
          if (args.provider_id !== undefined) {
            throw new ToolFailure(
              "invalid_request",
              `${resolved.requestedPath} is an artifact (directory or archive); analysis providers apply to binaries only.`,
              { action: "Call open_binary without provider_id." },
            );
          }
          const opened = await openArtifact(resolved, {
            signal: context.signal,
            onProgress: (bytes, entries) =>
              context.progress(bytes, undefined, `hashed ${bytes} bytes, ${entries} entries`),
          });
          const same = artifact !== null && artifact.realPath === opened.realPath &&
            artifact.sha256 === opened.sha256;
          const hadTarget = artifact !== null || session.target !== null;
          await session.close();
          if (!same) artifact = opened;
          return {
            kind: "result",
            result: {
              action: same ? "reopened" : hadTarget ? "switched" : "opened",
              target: null,
              artifact_target: describeArtifact(artifact!),
              documents: [],
              current_document: null,
              analysis_provider_binding: null,
            },
          };
        }
        const hadArtifact = artifact !== null;
        const outcome = await session.open(args.path as string, provider, {
          signal: context.signal,
          // One monotonic scale for both phases: reading is 0–50 %, discovery 50–100 %.
          onProgress: (read, size) =>
            context.progress(
              Math.floor((50 * read) / Math.max(1, size)),
              100,
              `read ${read} of ${size} bytes`,
            ),
          onDiscoveryProgress: (done, total, message) =>
            context.progress(50 + Math.floor((50 * done) / Math.max(1, total)), 100, message),
        });
        artifact = null;
        return {
          kind: "result",
          result: openedBinary(
            outcome,
            hadArtifact && outcome.action === "opened" ? "switched" : outcome.action,
          ),
        };
      },
    },
    {
      name: CLOSE_BINARY,
      description:
        "Close the target and clear the session: every Evidence record is discarded, so snapshot or copy what you still need first.",
      input: z.strictObject({}),
      result: z.object({ closed: z.boolean(), cleared_records: z.number().int() }),
      effects: { mutatesSession: true, mayDiscardData: true, idempotent: false },
      producesEvidence: false,
      run: async () => {
        const closed = (await session.close()) || artifact !== null;
        const cleared = services.clearEvidence();
        return { kind: "result", result: { closed, cleared_records: cleared } };
      },
    },
    {
      name: LIST_DOCUMENTS,
      description:
        "List the analysis documents of the open target (one per ELF, PE or WebAssembly file; one per slice of a universal Mach-O). Recorded as Evidence.",
      input: z.strictObject({}),
      result: z.object({ documents: z.array(z.string()), current_document: z.string().nullable() }),
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: async () => {
        await session.idle();
        const { target, provider, image } = session.analysis(LIST_DOCUMENTS);
        const documents = provider.listDocuments(target);
        return Promise.resolve(
          observation(LIST_DOCUMENTS, provider, target, image, {}, {
            documents,
            current_document: session.currentDocument,
          }),
        );
      },
    },
    {
      name: SET_CURRENT_DOCUMENT,
      description: "Make a document returned by list_documents the current one.",
      input: z.strictObject({
        document: z.string().min(1).max(4096).describe("A document name from list_documents."),
      }),
      result: z.object({ current_document: z.string(), documents: z.array(z.string()) }),
      effects: { mutatesSession: true },
      producesEvidence: false,
      run: async (args) => {
        await session.idle();
        const documents = session.setCurrentDocument(args.document as string);
        return Promise.resolve({
          kind: "result",
          result: { current_document: args.document as string, documents },
        });
      },
    },
    {
      name: LIST_PROCEDURES,
      description:
        `List procedures (function symbols from .symtab and .dynsym, plus the entry point) sorted by address, one page at a time: follow next_offset until has_more is false. Addresses are 0x-prefixed lowercase hex. At most ${MAX_PROCEDURE_PAGE} per page; each page is recorded as Evidence. A stripped binary lists only its dynamic exports and entry point.`,
      input: z.strictObject({
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).describe(
          "Index of the first procedure to return.",
        ),
        limit: z.number().int().min(1).max(MAX_PROCEDURE_PAGE).default(100).describe(
          `Procedures per page (1 to ${MAX_PROCEDURE_PAGE}).`,
        ),
        document: z.string().max(4096).optional().describe(
          "A document from list_documents; the current document when left out.",
        ),
      }),
      result: procedurePageSchema,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: async (args, context) => {
        await session.idle();
        const { target, provider, image, document } = session.analysis(
          LIST_PROCEDURES,
          args.document as string | undefined,
        );
        const offset = args.offset as number;
        const limit = args.limit as number;
        const page = await provider.listProcedures(target, document, offset, limit);
        const outcome = observation(
          LIST_PROCEDURES,
          provider,
          target,
          image,
          context.parameters,
          { document, ...page },
        );
        outcome.draft.limitations.push(...procedureCoverage(image));
        // The page was built for this record alone: freeze it instead of copying it.
        outcome.draft.transferred = true;
        return Promise.resolve(outcome);
      },
    },
  ];

  tools.push(...analysisTools({ session, ledger, observation }));
  tools.push(...captureTools({ session, ledger, policy: capturePolicy, observation }));
  tools.push(...unknownTools({
    registry: unknowns,
    subject: () => session.target?.subject ?? artifact?.subject ?? null,
    notifyResourceUpdated: services.notifyResourceUpdated,
  }));
  tools.push(...artifacts.tools);
  closeHooks.push(() => artifacts.bundles.clear());

  const completionFamilies: Record<string, CompletionFamily> = {
    document: {
      source: () => {
        const { target, provider } = session.requireProvider(LIST_DOCUMENTS);
        const documents: unknown[] = provider.listDocuments(target);
        return documents.every((d) => typeof d === "string" && d.length > 0) ? documents : [];
      },
    },
    procedure: {
      source: async (context) => {
        const document = context.arguments.document;
        if (typeof document === "string" && document.length > MAX_COMPLETION_VALUE_LENGTH) {
          return [];
        }
        const { target, provider, document: chosen } = session.analysis(
          LIST_PROCEDURES,
          typeof document === "string" ? document : undefined,
        );
        const result = await discoverPaged(async (offset, limit) => {
          const page = await provider.listProcedures(target, chosen, offset, limit);
          return ({
            items: page.items.map((item) => ({ key: item.address, name: item.value })),
            hasMore: page.has_more,
            nextOffset: page.next_offset,
          });
        }, { pageSize: MAX_PROCEDURE_PAGE, maxKeys: 5000, signal: context.signal });
        return discoveryCandidates(result);
      },
    },
    provider: {
      source: () => ["auto", ...session.candidates.map((c) => c.identity.id)],
    },
    capture: {
      source: () => captureCandidates(ledger),
    },
    unknown: unknownCompletionFamily(unknowns),
    ...artifacts.families,
  };

  return {
    name: "apps",
    tools: tools.map((tool) => ({ ...tool, toolset: TOOLSET_OF[tool.name] ?? "static" })),
    prompts: APPS_PROMPTS,
    completionFamilies,
    resourceTemplates: [
      unknownResourceTemplate(unknowns),
      ...artifacts.resourceTemplates,
    ],
    onEvidenceCleared: () => {
      for (const clear of closeHooks) clear();
    },
    close: async () => {
      await session.close();
    },
  };
}
