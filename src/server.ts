/**
 * `createServer`: one MCP server for one connection, holding that
 * connection's session (Evidence ledger, workbench state) and routing every
 * request through the policy gate.
 *
 * @module
 */

import { z } from "zod";
import {
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  type CompleteResult,
  ErrorCode,
  GetPromptRequestSchema,
  type GetPromptResult,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  Server,
  SubscribeRequestSchema,
  type Tool,
  type Transport,
  UnsubscribeRequestSchema,
} from "./sdk.ts";
import {
  type ElicitationAnswer,
  type ElicitationSchema,
  type SampledText,
  ToolCatalog,
  type ToolContentBlock,
  type ToolDefinition,
} from "./core/catalog.ts";
import { jsonText, type JsonValue } from "./core/canonical_json.ts";
import { coalescedSignal } from "./core/coalesced_signal.ts";
import {
  type CatalogEntry,
  describeTool,
  type ListedTool,
  withoutOutputSchema,
} from "./core/tool_listing.ts";
import type { NameIndex } from "./core/policy/names.ts";
import {
  complete,
  type CompletionAnswer,
  emptyCompletion,
  MAX_CANDIDATES_SCANNED,
} from "./core/completion.ts";
import { declareErrorCodes, ToolFailure } from "./core/errors.ts";
import {
  createEvidence,
  EVIDENCE_ID_PATTERN,
  EvidenceLedger,
  type LedgerLimits,
} from "./core/evidence.ts";
import { type Logger, type LogLevel, stderrLogger } from "./core/log.ts";
import { permissionFailure, probePermissions } from "./core/permissions.ts";
import {
  defaultRules,
  defaultVisibility,
  LOCAL_PRINCIPAL,
  PolicyGate,
  type PolicyInputTransform,
  type PolicyProfile,
  type PolicyRequest,
  type PolicyRule,
  type PolicyTransform,
  type PolicyVisibilityRule,
  type Principal,
} from "./core/policy.ts";
import { PromptArgumentError, PromptRegistry } from "./core/prompts.ts";
import { resolveRoots, RootFence } from "./core/roots.ts";
import {
  compileUriTemplate,
  type CompletionFamily,
  type ResourceTemplateDefinition,
  type StaticResourceDefinition,
  type Workbench,
  type WorkbenchModule,
  type WorkbenchServices,
} from "./core/workbench.ts";
import { VERSION } from "./version.ts";

/** Options of {@linkcode assembleServer} (and of the built-in `createServer`). */
export interface CreateServerOptions {
  /**
   * Directories targets may be opened from. Paths outside every root are refused.
   * @default [] (nothing can be opened)
   */
  roots?: string[];
  /** Hide and refuse tools with effects outside the session. @default false */
  readOnly?: boolean;
  /** Operator policy: allow tools that start processes. @default false */
  allowProcessLaunch?: boolean;
  /** Operator policy: allow tools that write files. @default false */
  allowFileWrites?: boolean;
  /** Threshold for stderr logging. @default "warning" */
  logLevel?: LogLevel;
  /** Extra policy rules, checked after the default ones (rate limits, …). @default [] */
  policyRules?: PolicyRule[];
  /** Policy transforms applied to every outgoing domain value. @default [] */
  policyTransforms?: PolicyTransform[];
  /** Policy input transforms applied to every request's arguments. @default [] */
  policyInputTransforms?: PolicyInputTransform[];
  /** Policy visibility rules: a primitive any rule hides is unlisted and unknown. @default [] */
  policyVisibility?: PolicyVisibilityRule[];
  /** The policy's index of known names; each workbench's `knownNames` joins it for the connection. */
  policyNames?: NameIndex;
  /**
   * The policy can answer with pseudonyms: a completion input that matches no
   * real value is then also matched against the pseudonyms the client sees.
   */
  policyPseudonymizes?: boolean;
  /** Who this connection acts for. @default the local principal (stdio) */
  principal?: Principal;
  /**
   * Toolsets (or whole workbenches, by name) to list and allow; every other
   * tool is unknown. @default every toolset
   */
  toolsets?: string[];
  /** Ledger caps. @default 10,000 records and 64 MiB */
  ledgerLimits?: LedgerLimits;
  /**
   * The resource URI prefix of retained Evidence records.
   * @default "rea://evidence/" (REA's scheme, which every workbench shares)
   */
  evidenceUriPrefix?: string;
  /**
   * Operator policy for process captures: which executables, roots and
   * environment names a capture may use. Captures also need `allowProcessLaunch`.
   * Read by the apps workbench of the built-in `createServer`.
   * @default nothing allowed
   * @deprecated Configure the apps workbench instead: `appsWorkbenchWith({ capturePolicy })`.
   */
  capturePolicy?: {
    /** Absolute paths of executables, or of directories whose files, captures may run. @default [] */
    executables?: string[];
    /** Directories working directories and filesystem roots must lie in. @default [] */
    roots?: string[];
    /** Environment variable names a capture may set or inherit. @default [] */
    environment?: string[];
    /** Allow captures on the host network instead of a private namespace. @default false */
    allowHostNetwork?: boolean;
    /** Require a human's confirmation (form elicitation) of every capture plan. @default false */
    requireHumanConfirmation?: boolean;
  };
}

/**
 * An MCP transport as the SDK defines it (`StdioServerTransport`,
 * `WebStandardStreamableHTTPServerTransport`, `InMemoryTransport`, or your own).
 */
export interface McpTransport {
  /** Starts receiving messages. */
  start(): Promise<void>;
  /** Sends one JSON-RPC message. */
  send(message: unknown, options?: unknown): Promise<void>;
  /** Closes the connection. */
  close(): Promise<void>;
  /** Set by the server: called when the connection closes. */
  onclose?: () => void;
  /** Set by the server: called on a transport error. */
  onerror?: (error: Error) => void;
  /** Set by the server: called for each received message. */
  onmessage?: (message: never, extra?: never) => void;
  /** The session id, for transports that have one. */
  sessionId?: string;
}

/** A server for one connection. */
export interface CasefileServer {
  /** The guided prompts; changing them notifies connected clients. */
  readonly prompts: PromptRegistry;
  /** The session's Evidence. */
  readonly ledger: EvidenceLedger;
  /** Connects to a transport (stdio, Streamable HTTP, in-memory). */
  connect(transport: McpTransport): Promise<void>;
  /** Closes the connection and releases the session. */
  close(): Promise<void>;
}

/** A server with its assembly exposed, for tests and for workbench authors inside the project. */
export interface AssembledServer extends CasefileServer {
  /** The SDK server (low-level). */
  readonly server: Server;
  /** The tools (filled once {@linkcode AssembledServer.ready} resolves). */
  readonly catalog: ToolCatalog;
  /**
   * Resolves once every workbench is built: at once when each module's
   * `create` answered synchronously, else when the last one's promise settles.
   */
  ready(): Promise<void>;
}

const INSTRUCTIONS_LEAD = "Casefile investigates with evidence.";
const INSTRUCTIONS_TAIL =
  "Guided prompts (prompts/list) give ordered workflows; completion/complete suggests only identifiers that exist in this session.";

/** The default Evidence URI prefix: REA's scheme, shared by every workbench. */
export const DEFAULT_EVIDENCE_URI_PREFIX = "rea://evidence/";

const RESOURCE_PAGE = 500;
/** The window within which resource list changes share one notification. */
const LIST_CHANGED_WINDOW_MS = 50;
/**
 * How long after the handshake the workbenches wait for the client's first
 * `tools/list` (answered from the generated catalogs) before building anyway.
 */
const LISTING_GRACE_MS = 50;
/** How long a human has to answer an elicitation. */
const ELICITATION_TIMEOUT_MS = 600_000;

/** Protocol error codes of policy refusals (as cloudg numbers them). */
const ACCESS_DENIED = -31001;
const RATE_LIMITED = -31029;
/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * Builds a server for one MCP connection from explicit workbench modules.
 * Reads nothing and starts nothing until a client calls a tool.
 */
export function assembleServer(
  options: CreateServerOptions,
  available: readonly WorkbenchModule[],
): AssembledServer {
  const toolsetOwners = new Map<string, string>();
  for (const module of available) {
    for (const toolset of module.toolsets ?? [{ name: module.name, description: "" }]) {
      const owner = toolsetOwners.get(toolset.name);
      if (owner !== undefined) {
        throw new RangeError(`Toolset ${toolset.name} is declared by ${owner} and ${module.name}`);
      }
      toolsetOwners.set(toolset.name, module.name);
    }
  }
  const selected = selectToolsets(options.toolsets, available, toolsetOwners);
  // A workbench none of whose toolsets is selected is not served at all (no prompts, resources).
  const modules = selected === null
    ? available
    : available.filter((module) =>
      (module.toolsets ?? [{ name: module.name }]).some((toolset) => selected.has(toolset.name))
    );
  const roots = resolveRoots(options.roots ?? []);
  const fence = new RootFence(roots);
  const principal = options.principal ?? LOCAL_PRINCIPAL;
  const profile: Required<PolicyProfile> = {
    readOnly: options.readOnly ?? false,
    allowProcessLaunch: options.allowProcessLaunch ?? false,
    allowFileWrites: options.allowFileWrites ?? false,
  };
  const gate = new PolicyGate(
    [...defaultRules(profile), ...(options.policyRules ?? [])],
    options.policyTransforms ?? [],
    {
      visibility: [...defaultVisibility(profile), ...(options.policyVisibility ?? [])],
      inputTransforms: options.policyInputTransforms ?? [],
    },
  );
  const evidencePrefix = options.evidenceUriPrefix ?? DEFAULT_EVIDENCE_URI_PREFIX;
  const evidenceUri = (id: string): string => `${evidencePrefix}${id}`;
  const clearingTools = modules.flatMap((m) => m.clearsEvidenceWith ?? []);
  const ledger = new EvidenceLedger(options.ledgerLimits, {
    ...(clearingTools.length > 0
      ? { clearHint: `call ${clearingTools.join(" or ")} to clear the session's Evidence` }
      : {}),
  });
  for (const module of modules) declareErrorCodes(module.errorCodes ?? {});
  const instructions = [
    INSTRUCTIONS_LEAD,
    ...modules.map((m) => m.instructions ?? "").filter((text) => text.length > 0),
    `Every observation comes back with an evidence_id; cite it, and read ${evidencePrefix}<id> for the full record.`,
    INSTRUCTIONS_TAIL,
  ].join(" ");
  const server = new Server(
    { name: "casefile", title: "Casefile", version: VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        completions: {},
        logging: {},
      },
      instructions,
    },
  );
  let connected = false;
  // Until every workbench is built, what building does (loading the demo estate, start-up
  // warnings) stays on stderr: the client hears nothing it would not have heard had the
  // workbenches been built before it connected.
  let built = false;
  const announcing = (): boolean => connected && built;
  const stderr = stderrLogger(options.logLevel ?? "warning");
  const log: Logger = (level, message, data) => {
    stderr(level, message, data);
    if (announcing()) {
      server.sendLoggingMessage({
        level,
        logger: "casefile",
        data: data ? { message, ...data } : message,
      })
        .catch(() => {});
    }
  };
  // Every new Evidence record changes the resource list: a walk of 200 pages would send 200
  // notifications the client must each parse. Changes close together share one (the last
  // change is always followed by one).
  const resourceListChanged = coalescedSignal(() => {
    if (announcing()) server.sendResourceListChanged().catch(() => {});
  }, LIST_CHANGED_WINDOW_MS);
  // A change the client would not have heard of (before the handshake or the build) is not
  // sent later either.
  const listChanged = (): void => {
    if (announcing()) resourceListChanged.request();
  };
  const permissions = probePermissions(modules.flatMap((m) => m.permissionNeeds(roots)));
  const subscriptions = new Set<string>();
  const workbenches: Workbench[] = [];
  const services: WorkbenchServices = {
    ledger,
    evidenceUri,
    clearEvidence: () => {
      const cleared = ledger.size;
      ledger.clear();
      for (const workbench of workbenches) workbench.onEvidenceCleared?.();
      return cleared;
    },
    gate,
    policy: profile,
    principal,
    log,
    permissions,
    roots,
    fence,
    notifyToolsChanged: () => {
      if (announcing()) server.sendToolListChanged().catch(() => {});
    },
    notifyResourceUpdated: (uri) => {
      if (announcing() && subscriptions.has(uri)) {
        server.sendResourceUpdated({ uri }).catch(() => {});
      }
    },
    notifyResourceListChanged: listChanged,
  };

  const catalog = new ToolCatalog();
  const prompts = new PromptRegistry();
  const families = new Map<string, CompletionFamily>();
  const templates: ResourceTemplateDefinition[] = [];
  const statics = new Map<string, StaticResourceDefinition & { workbench: string }>();
  /** Which workbench each tool, prompt and template came from (its policy category). */
  const origin = new Map<string, string>();
  const nameRemovals: (() => void)[] = [];
  const evidenceFamily: CompletionFamily = {
    source: () => ledger.list().map((record) => record.evidence_id),
  };
  families.set("evidence", evidenceFamily);
  templates.push({
    name: "evidence",
    title: "Evidence record",
    uriTemplate: `${evidencePrefix}{evidenceId}`,
    description: "A retained Evidence v2 record of this session, by its exact id.",
    mimeType: "application/json",
    // The id is the SHA-256 of the record's canonical projection: served exactly.
    contentAddressed: true,
    variables: { evidenceId: evidenceFamily },
    list: () =>
      ledger.list().map((record) => ({
        uri: evidenceUri(record.evidence_id),
        name: record.evidence_id,
        description: `${record.operation} by ${record.provider.id}`,
        mimeType: "application/json",
      })),
    read: (variables, uri) => {
      const id = variables.evidenceId ?? "";
      const record = EVIDENCE_ID_PATTERN.test(id) ? ledger.get(id) : undefined;
      return Promise.resolve(
        record ? { uri, mimeType: "application/json", text: JSON.stringify(record) } : null,
      );
    },
  });
  origin.set(`template:${evidencePrefix}{evidenceId}`, "core");
  let matchers: { template: ResourceTemplateDefinition; match: UriMatcher }[] = [];
  /** Joins the built workbenches' tools, prompts, families and resources, in module order. */
  const register = (created: readonly Workbench[]): void => {
    for (const [index, workbench] of created.entries()) {
      const module = modules[index]!;
      workbenches.push(workbench);
      if (options.policyNames && workbench.knownNames) {
        nameRemovals.push(options.policyNames.add(workbench.knownNames));
      }
      const declared = new Set((module.toolsets ?? [{ name: module.name }]).map((t) => t.name));
      for (const tool of workbench.tools) {
        const toolset = tool.toolset ?? module.name;
        if (!declared.has(toolset)) {
          throw new RangeError(
            `Tool ${tool.name} of ${module.name} belongs to toolset ${toolset}, which ${module.name} does not declare`,
          );
        }
        catalog.add(tool.toolset === toolset ? tool : { ...tool, toolset });
        origin.set(`tool:${tool.name}`, module.name);
      }
      for (const [name, family] of Object.entries(workbench.completionFamilies)) {
        if (families.has(name)) throw new RangeError(`Completion family ${name} is defined twice`);
        families.set(name, family);
      }
      for (const template of workbench.resourceTemplates) {
        templates.push(template);
        origin.set(`template:${template.uriTemplate}`, module.name);
      }
      for (const resource of workbench.resources ?? []) {
        if (statics.has(resource.uri)) {
          throw new RangeError(`Resource ${resource.uri} is defined twice`);
        }
        statics.set(resource.uri, { ...resource, workbench: module.name });
      }
    }
    for (const [index, workbench] of workbenches.entries()) {
      for (const contract of workbench.prompts) {
        prompts.add(contract);
        origin.set(`prompt:${contract.name}`, modules[index]!.name);
      }
    }
    // Longest template first, so a more specific template wins over a shorter one it overlaps.
    matchers = templates
      .map((template, index) => ({
        template,
        index,
        match: compileUriTemplate(template.uriTemplate),
      }))
      .sort((a, b) =>
        b.template.uriTemplate.length - a.template.uriTemplate.length || a.index - b.index
      );
    prompts.onChange(() => {
      if (announcing()) server.sendPromptListChanged().catch(() => {});
    });
    built = true;
  };
  ledger.onChange(listChanged);
  // Modules that are not deferred are created now; when each answers synchronously they are
  // registered now too. A deferred one (a descriptor that imports its implementation) is
  // created once the client has finished the handshake, or a request needs it, whichever
  // comes first: initialize never waits for an import. When every module has a generated tool
  // catalog, tools/list is answered from those meanwhile, and the build waits for that answer.
  const created = modules.map((module) => module.deferred ? null : module.create(services));
  let pending: Promise<void> | null = null;
  let failed = false;
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  /** Requests answered from the catalogs whose answers are not sent yet. */
  const listedEarly = new Set<string | number>();
  const buildInBackground = (): void => {
    clearTimeout(graceTimer);
    if (closed) return;
    build().catch((error) => stderr("error", `A workbench failed to build: ${String(error)}`));
  };
  /** Builds in the background after `ms` (replacing a build scheduled before). */
  const buildAfter = (ms: number): void => {
    clearTimeout(graceTimer);
    graceTimer = setTimeout(buildInBackground, ms);
  };
  const build = (): Promise<void> => {
    if (pending === null) {
      pending = Promise.all(
        modules.map((module, index) => created[index] ?? module.create(services)),
      ).then(register);
      pending.catch(() => (failed = true));
    }
    return pending;
  };
  if (created.every((workbench) => workbench !== null && !isPromise(workbench))) {
    register(created as Workbench[]);
  } else {
    server.oninitialized = () => {
      if (!cataloguing) {
        buildInBackground();
        return;
      }
      // The client's tools/list follows the handshake at once, and is answered from the
      // catalogs (their load began when the handshake's answer went out: see connect):
      // building (module evaluation holds the event loop for a while) starts once that answer
      // is sent, or after a short grace when no listing comes.
      buildAfter(LISTING_GRACE_MS);
    };
  }
  const whenBuilt = (): Promise<void> | void => built ? undefined : build();

  const toolRequest = (
    tool: ToolFacts,
    args: Record<string, unknown> = {},
  ): PolicyRequest => ({
    kind: "tool",
    name: tool.name,
    principal,
    category: tool.category ?? tool.toolset ?? origin.get(`tool:${tool.name}`),
    sensitivity: tool.sensitivity ?? "internal",
    effects: tool.effects,
    arguments: args,
  });
  const offered = (tool: ToolFacts): boolean =>
    (selected === null || selected.has(tool.toolset ?? "")) && gate.visible(toolRequest(tool));
  // Every served module's generated catalog, when each has one: tools/list is answered from
  // them until the workbenches are built (imported on the first need).
  const cataloguing = modules.every((module) => module.toolCatalog !== undefined);
  let generated: Promise<{ facts: ToolFacts; listed: ListedTool }[]> | undefined;
  const catalogued = (): Promise<{ facts: ToolFacts; listed: ListedTool }[]> => {
    generated ??= Promise.all(modules.map((module) => module.toolCatalog!())).then((catalogs) =>
      catalogs.flat().map((entry: CatalogEntry) => ({
        facts: { ...entry, name: entry.listed.name },
        listed: entry.listed,
      }))
    );
    generated.catch(() => (generated = undefined));
    return generated;
  };
  const templateRequest = (
    template: ResourceTemplateDefinition,
    args: Record<string, unknown>,
    kind: PolicyRequest["kind"] = "template",
  ): PolicyRequest => ({
    kind,
    name: template.uriTemplate,
    principal,
    category: origin.get(`template:${template.uriTemplate}`),
    sensitivity: "internal",
    effects: {},
    arguments: args,
    ...(template.contentAddressed ? { contentAddressed: true } : {}),
  });
  const promptRequest = (name: string, args: Record<string, unknown>): PolicyRequest => ({
    kind: "prompt",
    name,
    principal,
    category: origin.get(`prompt:${name}`),
    sensitivity: "internal",
    effects: {},
    arguments: args,
  });
  const staticRequest = (
    resource: StaticResourceDefinition & { workbench: string },
  ): PolicyRequest => ({
    kind: "resource",
    name: resource.uri,
    principal,
    category: resource.category ?? resource.workbench,
    sensitivity: resource.sensitivity ?? "internal",
    effects: {},
    arguments: {},
    ...(resource.contentAddressed ? { contentAddressed: true } : {}),
  });

  // Transformed results may no longer fit a tool's declared schema: withhold it then.
  const withholdSchemas = (options.policyTransforms ?? []).length > 0;
  const shown = (listed: ListedTool): Tool =>
    (withholdSchemas ? withoutOutputSchema(listed) : listed) as Tool;
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    if (!built && !failed && cataloguing) {
      // Not built yet: answer from the generated catalogs (equal to what the build will list,
      // as a test checks); the build starts once the answer is sent. A failed build fails the
      // listing instead; a catalog that cannot be loaded leaves the listing to the build.
      const tools = await catalogued().catch(() => null);
      if (tools !== null && !failed && !built) {
        listedEarly.add(extra.requestId);
        return {
          tools: tools.filter((tool) => offered(tool.facts)).map((tool) => shown(tool.listed)),
        };
      }
    }
    await whenBuilt();
    return { tools: catalog.list().filter(offered).map((tool) => shown(describeTool(tool))) };
  });

  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      await whenBuilt();
      const { name, arguments: args } = request.params;
      const tool = catalog.get(name);
      if (!tool || !offered(tool)) {
        return failureResult(
          new ToolFailure("invalid_request", `Tool ${name} not found.`, {
            action: "Call tools/list for the tools this server offers.",
          }),
        );
      }
      const progressToken = extra._meta?.progressToken;
      const capabilities = server.getClientCapabilities();
      // An empty elicitation capability means form mode (the form-only protocol versions).
      const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
      const canElicit = elicitation !== undefined &&
        (elicitation.form !== undefined || elicitation.url === undefined);
      const closeStream = (extra as { closeSSEStream?: () => void }).closeSSEStream;
      const context = {
        signal: extra.signal,
        ...(canElicit
          ? {
            elicit: async (
              message: string,
              requestedSchema: ElicitationSchema,
            ): Promise<ElicitationAnswer> => {
              const answer = await server.elicitInput(
                { mode: "form", message, requestedSchema: requestedSchema as never },
                {
                  relatedRequestId: extra.requestId,
                  signal: extra.signal,
                  timeout: ELICITATION_TIMEOUT_MS,
                },
              );
              return {
                action: answer.action,
                ...(answer.content ? { content: answer.content as Record<string, unknown> } : {}),
              };
            },
          }
          : {}),
        ...(capabilities?.sampling
          ? {
            sample: async (prompt: string, maxTokens: number): Promise<SampledText> => {
              const answer = await server.createMessage(
                {
                  messages: [{ role: "user", content: { type: "text", text: prompt } }],
                  maxTokens,
                },
                { relatedRequestId: extra.requestId, signal: extra.signal },
              );
              const content = answer.content as { type?: string; text?: string };
              return {
                text: content.type === "text" ? content.text ?? "" : "",
                model: answer.model,
              };
            },
          }
          : {}),
        ...(closeStream ? { closeStream: () => closeStream() } : {}),
        progress: async (progress: number, total?: number, message?: string): Promise<void> => {
          if (progressToken === undefined) return;
          await extra.sendNotification({
            method: "notifications/progress",
            params: {
              progressToken,
              progress,
              ...(total !== undefined ? { total } : {}),
              ...(message !== undefined ? { message } : {}),
            },
          }).catch(() => {});
        },
      };
      const policyRequest = toolRequest(tool, args ?? {});
      try {
        const refusal = gate.check(policyRequest);
        if (refusal) throw refusal;
        const input = gate.transformInput(policyRequest, { ...(args ?? {}) });
        const parsed = tool.input.safeParse(input);
        if (!parsed.success) {
          throw new ToolFailure(
            "invalid_request",
            `Invalid arguments for ${name}: ${
              z.prettifyError(parsed.error).replaceAll("\n", "; ")
            }`,
            { action: "Check the tool's inputSchema and call it again." },
          );
        }
        const data = parsed.data as Record<string, unknown>;
        const parameters = Object.fromEntries(
          Object.keys(tool.input.shape).map((key) => [key, data[key] ?? null]),
        );
        const outcome = await tool.run(data, { ...context, parameters });
        const origin_ = origin.get(`tool:${name}`);
        const module = modules.find((m) => m.name === origin_);
        if (outcome.kind === "recorded") {
          // Already committed: report it even if the client cancelled meanwhile.
          const { evidence } = outcome;
          const uri = evidenceUri(evidence.evidence_id);
          return evidenceResult(
            gate.transformOutput({ ...policyRequest, source: uri }, outcome.result as JsonValue),
            evidence.evidence_id,
            uri,
            name,
            gate.transformOutput(policyRequest, outcome.links ?? []),
          );
        }
        if (extra.signal.aborted) throw new ToolFailure("cancelled", `${name} was cancelled.`);
        if (outcome.kind === "evidence") {
          const predicate = outcome.draft.predicate_type ?? module?.evidencePredicate;
          if (predicate === undefined) {
            throw new TypeError(`${name} recorded Evidence without a predicate type`);
          }
          const record = await createEvidence({ ...outcome.draft, predicate_type: predicate });
          await ledger.record(record);
          const uri = evidenceUri(record.evidence_id);
          return evidenceResult(
            // A text the policy cuts here stays whole in the record: its marker names the URI.
            gate.transformOutput({ ...policyRequest, source: uri }, record.normalized_result),
            record.evidence_id,
            uri,
            name,
          );
        }
        return plainResult(
          gate.transformOutput(policyRequest, outcome.result),
          // Links pass the same transforms as the payload, so pseudonyms in their URIs agree.
          gate.transformOutput(policyRequest, outcome.links ?? []),
          outcome.content ?? [],
        );
      } catch (error) {
        return failureResult(
          scrubbed(gate, policyRequest, asFailure(error, name, extra.signal)),
        );
      }
    },
  );

  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    await whenBuilt();
    return {
      prompts: prompts.list()
        .filter((contract) => gate.visible(promptRequest(contract.name, {})))
        .map((contract) => ({
          name: contract.name,
          title: contract.title,
          description: contract.description,
          arguments: contract.arguments.map(({ name, description, required }) => ({
            name,
            description,
            required,
          })),
        })),
    };
  });

  server.setRequestHandler(
    GetPromptRequestSchema,
    async (request, extra): Promise<GetPromptResult> => {
      await whenBuilt();
      const { name, arguments: args } = request.params;
      const policyRequest = promptRequest(name, args ?? {});
      if (!prompts.has(name) || !gate.visible(policyRequest)) {
        throw new McpError(ErrorCode.InvalidParams, `Prompt ${name} not found`);
      }
      try {
        return await gate.run(
          policyRequest,
          (input) => prompts.renderLive(name, input, { signal: extra.signal }),
        ) as GetPromptResult;
      } catch (error) {
        if (error instanceof PromptArgumentError) {
          throw new McpError(ErrorCode.InvalidParams, error.message);
        }
        if (error instanceof RangeError) {
          throw new McpError(ErrorCode.InvalidParams, `Prompt ${name} not found`);
        }
        if (error instanceof ToolFailure) {
          throw protocolError(scrubbed(gate, policyRequest, error));
        }
        throw error;
      }
    },
  );

  server.setRequestHandler(
    CompleteRequestSchema,
    async (request, extra): Promise<CompleteResult> => {
      await whenBuilt();
      const { ref, argument, context } = request.params;
      let family: CompletionFamily | undefined;
      let policyRequest: PolicyRequest;
      const args = { argument: argument.name, value: argument.value, context: context ?? {} };
      if (ref.type === "ref/prompt") {
        policyRequest = { ...promptRequest(ref.name, args), kind: "completion" };
        if (!prompts.has(ref.name) || !gate.visible(promptRequest(ref.name, {}))) {
          throw new McpError(ErrorCode.InvalidParams, `Prompt ${ref.name} not found`);
        }
        const name = prompts.completionFamily(ref.name, argument.name);
        family = name ? families.get(name) : undefined;
        policyRequest.name = `prompt:${ref.name}#${argument.name}`;
      } else {
        const template = templates.find((t) => t.uriTemplate === ref.uri);
        if (!template || !gate.visible(templateRequest(template, {}))) {
          throw new McpError(ErrorCode.InvalidParams, `Resource template ${ref.uri} not found`);
        }
        family = template.variables[argument.name];
        policyRequest = {
          ...templateRequest(template, args, "completion"),
          name: `resource:${ref.uri}#${argument.name}`,
        };
      }
      // A refusal (denied, rate limited) is a protocol error, never an empty list.
      const refusal = gate.check(policyRequest);
      if (refusal) throw protocolError(refusal);
      if (!family) return { completion: emptyCompletion() };
      const chosen = family;
      const input = gate.transformInput(policyRequest, {
        value: argument.value,
        arguments: context?.arguments ?? {},
      });
      const completionContext = {
        arguments: (input.arguments ?? {}) as Record<string, string>,
        signal: extra.signal,
      };
      let answer: CompletionAnswer = await complete(
        typeof input.value === "string" ? input.value : argument.value,
        chosen.source,
        completionContext,
        chosen.options,
      );
      if (answer.total === 0 && argument.value !== "" && options.policyPseudonymizes) {
        // The client only ever saw pseudonyms: match what it typed against them too.
        const shown = (value: string): string | undefined =>
          gate.transformOutput(policyRequest, { values: [value], total: 1, hasMore: false })
            .values[0];
        answer = await complete(
          argument.value,
          async (context) =>
            (await chosen.source(context)).slice(0, MAX_CANDIDATES_SCANNED).flatMap((candidate) => {
              const value = typeof candidate === "string"
                ? candidate
                : (candidate as { value?: unknown })?.value;
              if (typeof value !== "string") return [];
              const seen = shown(value);
              return seen === undefined ? [] : [{ value, keys: [seen] }];
            }),
          completionContext,
          { ...chosen.options, match: "prefix" },
        );
      }
      let transformed: CompletionAnswer;
      try {
        transformed = gate.transformOutput(policyRequest, answer);
      } catch (error) {
        if (error instanceof ToolFailure) throw protocolError(error);
        transformed = emptyCompletion();
      }
      return { completion: transformed };
    },
  );

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
    await whenBuilt();
    return {
      resourceTemplates: templates
        .filter((t) => gate.visible(templateRequest(t, {})))
        .map((t) => ({
          name: t.name,
          ...(t.title ? { title: t.title } : {}),
          uriTemplate: t.uriTemplate,
          description: t.description,
          mimeType: t.mimeType,
        })),
    };
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    await whenBuilt();
    const fixed = [...statics.values()]
      .filter((resource) => gate.visible(staticRequest(resource)))
      .map(({ uri, name, description, mimeType }) => ({
        uri,
        name,
        ...(description !== undefined ? { description } : {}),
        ...(mimeType !== undefined ? { mimeType } : {}),
      }));
    const all = [
      ...fixed,
      ...templates.filter((t) => gate.visible(templateRequest(t, {}))).flatMap((t) =>
        t.list?.() ?? []
      ),
    ];
    const start = decodeCursor(request.params?.cursor, all.length);
    const page = all.slice(start, start + RESOURCE_PAGE);
    const next = start + RESOURCE_PAGE < all.length ? String(start + RESOURCE_PAGE) : undefined;
    return { resources: page, ...(next ? { nextCursor: next } : {}) };
  });

  server.setRequestHandler(
    ReadResourceRequestSchema,
    async (request): Promise<ReadResourceResult> => {
      await whenBuilt();
      const { uri } = request.params;
      const fixed = statics.get(uri);
      if (fixed && gate.visible(staticRequest(fixed))) {
        const contents = await readGuarded(staticRequest(fixed), () => fixed.read(uri));
        if (contents) return { contents: [contents] };
        throw new McpError(-32002, `Resource ${uri} not found`, { uri });
      }
      for (const { template, match } of matchers) {
        const variables = match(uri);
        if (!variables) continue;
        const policyRequest = { ...templateRequest(template, variables, "resource"), name: uri };
        if (!gate.visible(templateRequest(template, {}))) continue;
        const contents = await readGuarded(
          policyRequest,
          (input) => template.read(input as Record<string, string>, uri),
        );
        if (contents) {
          return { contents: [contents] };
        }
      }
      throw new McpError(-32002, `Resource ${uri} not found`, { uri });
    },
  );

  /** Runs a resource read through the gate; refusals and failures become protocol errors. */
  const readGuarded = async <T>(
    policyRequest: PolicyRequest,
    read: (args: Record<string, unknown>) => Promise<T>,
  ): Promise<T> => {
    try {
      return await gate.run(policyRequest, read);
    } catch (error) {
      if (error instanceof ToolFailure) throw protocolError(scrubbed(gate, policyRequest, error));
      throw error;
    }
  };

  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });

  let closed = false;
  return {
    server,
    prompts,
    catalog,
    ledger,
    ready: async (): Promise<void> => {
      await whenBuilt();
    },
    async connect(transport: McpTransport): Promise<void> {
      const send = transport.send.bind(transport);
      transport.send = async (message, sendOptions) => {
        try {
          await send(message, sendOptions);
        } finally {
          const answer = message as { id?: string | number; result?: { serverInfo?: unknown } };
          // One turn of the event loop lets the transport flush the answer before the build.
          if (answer.id !== undefined && listedEarly.delete(answer.id) && !closed) buildAfter(0);
          // The handshake's answer is out: load the catalogs while the client turns around.
          if (answer.result?.serverInfo !== undefined && cataloguing && !built && !closed) {
            catalogued().catch(() => {});
          }
        }
      };
      await server.connect(transport as unknown as Transport);
      connected = true;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      connected = false;
      resourceListChanged.cancel();
      clearTimeout(graceTimer);
      // A workbench still being built is closed once it is (a failed build has nothing to close).
      await pending?.catch(() => {});
      for (const workbench of workbenches) {
        try {
          await workbench.close?.();
        } catch (error) {
          stderr("warning", `closing workbench ${workbench.name} failed: ${String(error)}`);
        }
      }
      for (const remove of nameRemovals) remove();
      ledger.clear();
      await server.close();
    },
  };
}

/** What `--toolsets` and the policy gate decide a tool's visibility by. */
type ToolFacts = Pick<ToolDefinition, "name" | "toolset" | "category" | "sensitivity" | "effects">;

/** A URI template's matcher. */
type UriMatcher = ReturnType<typeof compileUriTemplate>;

/** Whether a workbench module's `create` answered with a promise. */
function isPromise(value: Workbench | Promise<Workbench>): value is Promise<Workbench> {
  return typeof (value as { then?: unknown }).then === "function";
}

/**
 * The toolsets `--toolsets` selects: each name is a toolset or a whole
 * workbench; null selects everything.
 */
function selectToolsets(
  names: readonly string[] | undefined,
  modules: readonly WorkbenchModule[],
  owners: ReadonlyMap<string, string>,
): Set<string> | null {
  if (names === undefined) return null;
  const selected = new Set<string>();
  for (const name of names) {
    const module = modules.find((m) => m.name === name);
    if (module) {
      for (const toolset of module.toolsets ?? [{ name: module.name }]) selected.add(toolset.name);
    } else if (owners.has(name)) selected.add(name);
    else {
      throw new RangeError(
        `Unknown toolset ${JSON.stringify(name)}; known: ${
          [...modules.map((m) => m.name), ...owners.keys()].join(", ")
        }`,
      );
    }
  }
  return selected;
}

/**
 * A failure whose details (the caller's value, suggestions, close matches)
 * passed the output transforms, so a pseudonymising policy leaks nothing
 * through an error either.
 */
function scrubbed(gate: PolicyGate, request: PolicyRequest, failure: ToolFailure): ToolFailure {
  const details = failure.body.details;
  if (details === undefined) return failure;
  let transformed: Record<string, unknown>;
  try {
    transformed = gate.transformOutput(request, details);
  } catch {
    return failure;
  }
  if (transformed === details) return failure;
  return new ToolFailure(failure.code, failure.message, {
    category: failure.body.category,
    retryable: failure.body.retryable,
    action: failure.body.remediation.action,
    restartRequired: failure.body.remediation.restart_required,
    details: transformed,
  });
}

/** A policy refusal as a protocol error: access denied and rate limits keep their codes. */
function protocolError(failure: ToolFailure): McpError {
  const code = failure.code === "rate_limited"
    ? RATE_LIMITED
    : failure.code === "access_denied"
    ? ACCESS_DENIED
    : failure.code === "not_found"
    ? RESOURCE_NOT_FOUND
    : ErrorCode.InvalidRequest;
  return new McpError(code, failure.message, failure.body.details);
}

function decodeCursor(cursor: string | undefined, length: number): number {
  if (cursor === undefined) return 0;
  const start = Number(cursor);
  if (!Number.isSafeInteger(start) || start < 0 || start > length) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid cursor ${JSON.stringify(cursor)}`);
  }
  return start;
}

function evidenceResult(
  result: JsonValue,
  evidenceId: string,
  uri: string,
  toolName: string,
  links: { uri: string; name: string; description?: string; mimeType?: string }[] = [],
): CallToolResult {
  const structured = { result, evidence_id: evidenceId, evidence_uri: uri };
  return {
    structuredContent: structured,
    content: [
      // The same text as JSON.stringify(structured), reusing what the Evidence id was computed from.
      { type: "text", text: jsonText(structured, 2) },
      {
        type: "text",
        text:
          `Full Evidence record: resources/read ${uri} (copy the URI exactly; cite ${evidenceId}).`,
      },
      {
        type: "resource_link",
        uri,
        name: evidenceId,
        description: `Evidence recorded by ${toolName}`,
        mimeType: "application/json",
      },
      ...links.map((link) => ({ type: "resource_link" as const, ...link })),
    ],
  };
}

function plainResult(
  result: unknown,
  links: { uri: string; name: string; description?: string; mimeType?: string }[],
  blocks: readonly ToolContentBlock[] = [],
): CallToolResult {
  return {
    structuredContent: { result },
    content: [
      { type: "text", text: JSON.stringify({ result }) },
      ...blocks,
      ...links.map((link) => ({ type: "resource_link" as const, ...link })),
    ] as CallToolResult["content"],
  };
}

function failureResult(failure: ToolFailure): CallToolResult {
  const structured = { error: failure.body };
  return {
    isError: true,
    structuredContent: structured,
    content: [{ type: "text", text: JSON.stringify(structured) }],
  };
}

function asFailure(error: unknown, toolName: string, signal: AbortSignal): ToolFailure {
  if (error instanceof ToolFailure) return error;
  const permission = permissionFailure(error);
  if (permission) return permission;
  if (signal.aborted) return new ToolFailure("cancelled", `${toolName} was cancelled.`);
  const message = error instanceof Error ? error.message : String(error);
  return new ToolFailure("execution_failure", `${toolName} failed unexpectedly: ${message}`, {
    action: "This is a server fault; report it with the arguments you used.",
  });
}
