/**
 * `createServer`: one MCP server for one connection, holding that
 * connection's session (Evidence ledger, workbench state) and routing every
 * request through the policy gate.
 *
 * @module
 */

import { normalize, resolve } from "node:path";
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
  allowedWhenReadOnly,
  annotationsFor,
  type ElicitationAnswer,
  type ElicitationSchema,
  ToolCatalog,
  type ToolDefinition,
} from "./core/catalog.ts";
import type { JsonValue } from "./core/canonical_json.ts";
import { complete, type CompletionAnswer, emptyCompletion } from "./core/completion.ts";
import { ToolFailure } from "./core/errors.ts";
import { createEvidence, EvidenceLedger, evidenceUri, type LedgerLimits } from "./core/evidence.ts";
import { type Logger, type LogLevel, stderrLogger } from "./core/log.ts";
import { permissionFailure, probePermissions } from "./core/permissions.ts";
import {
  defaultRules,
  PolicyGate,
  type PolicyProfile,
  type PolicyRule,
  type PolicyTransform,
} from "./core/policy.ts";
import { PromptArgumentError, PromptRegistry } from "./core/prompts.ts";
import {
  type CapturePolicySettings,
  compileUriTemplate,
  type CompletionFamily,
  type ResourceTemplateDefinition,
  type RootDirectory,
  type Workbench,
  type WorkbenchModule,
  type WorkbenchServices,
} from "./core/workbench.ts";
import { appsWorkbench } from "./apps/workbench.ts";
import { VERSION } from "./version.ts";

/** Options of {@linkcode createServer}. */
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
  /** Policy transforms applied to every outgoing value. @default [] */
  policyTransforms?: PolicyTransform[];
  /** Ledger caps. @default 10,000 records and 64 MiB */
  ledgerLimits?: LedgerLimits;
  /**
   * Operator policy for process captures: which executables, roots and
   * environment names a capture may use. Captures also need `allowProcessLaunch`.
   * @default nothing allowed
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
  /** The tools. */
  readonly catalog: ToolCatalog;
}

const SERVER_INSTRUCTIONS =
  "Casefile investigates shipped binaries with evidence. Start with binary_session, then open_binary on a path under an allowed root. Every observation comes back with an evidence_id; cite it, and read rea://evidence/<id> for the full record. Guided prompts (prompts/list) give ordered workflows; completion/complete suggests only identifiers that exist in this session.";

const RESOURCE_PAGE = 500;
/** How long a human has to answer an elicitation. */
const ELICITATION_TIMEOUT_MS = 600_000;

/**
 * Creates a server for one MCP connection. Reads nothing and starts nothing
 * until a client calls a tool.
 *
 * @example
 * ```ts
 * import { createServer } from "./server.ts";
 * // @ts-types="@modelcontextprotocol/sdk/server/stdio"
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * const casefile = createServer({ roots: ["/usr/bin"] });
 * await casefile.connect(new StdioServerTransport());
 * ```
 */
export function createServer(options: CreateServerOptions = {}): CasefileServer {
  return assembleServer(options, [appsWorkbench]);
}

/** Builds a server from explicit workbench modules. */
export function assembleServer(
  options: CreateServerOptions,
  modules: readonly WorkbenchModule[],
): AssembledServer {
  const roots = resolveRoots(options.roots ?? []);
  const profile: Required<PolicyProfile> = {
    readOnly: options.readOnly ?? false,
    allowProcessLaunch: options.allowProcessLaunch ?? false,
    allowFileWrites: options.allowFileWrites ?? false,
  };
  const gate = new PolicyGate(
    [...defaultRules(profile), ...(options.policyRules ?? [])],
    options.policyTransforms ?? [],
  );
  const ledger = new EvidenceLedger(options.ledgerLimits);
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
      instructions: SERVER_INSTRUCTIONS,
    },
  );
  let connected = false;
  const stderr = stderrLogger(options.logLevel ?? "warning");
  const log: Logger = (level, message, data) => {
    stderr(level, message, data);
    if (connected) {
      server.sendLoggingMessage({
        level,
        logger: "casefile",
        data: data ? { message, ...data } : message,
      })
        .catch(() => {});
    }
  };
  const permissions = probePermissions(modules.flatMap((m) => m.permissionNeeds(roots)));
  const subscriptions = new Set<string>();
  const capturePolicy: CapturePolicySettings = {
    executables: [...(options.capturePolicy?.executables ?? [])],
    roots: [...(options.capturePolicy?.roots ?? [])],
    environment: [...(options.capturePolicy?.environment ?? [])],
    allowHostNetwork: options.capturePolicy?.allowHostNetwork ?? false,
    requireHumanConfirmation: options.capturePolicy?.requireHumanConfirmation ?? false,
  };
  const services: WorkbenchServices = {
    ledger,
    gate,
    policy: profile,
    capturePolicy,
    log,
    permissions,
    roots,
    notifyToolsChanged: () => {
      if (connected) server.sendToolListChanged().catch(() => {});
    },
    notifyResourceUpdated: (uri) => {
      if (connected && subscriptions.has(uri)) {
        server.sendResourceUpdated({ uri }).catch(() => {});
      }
    },
  };

  const catalog = new ToolCatalog();
  const prompts = new PromptRegistry();
  const families = new Map<string, CompletionFamily>();
  const templates: ResourceTemplateDefinition[] = [];
  const workbenches: Workbench[] = [];
  for (const module of modules) {
    const workbench = module.create(services);
    workbenches.push(workbench);
    for (const tool of workbench.tools) catalog.add(tool);
    for (const [name, family] of Object.entries(workbench.completionFamilies)) {
      if (families.has(name)) throw new RangeError(`Completion family ${name} is defined twice`);
      families.set(name, family);
    }
    templates.push(...workbench.resourceTemplates);
  }
  for (const workbench of workbenches) {
    for (const contract of workbench.prompts) prompts.add(contract);
  }
  prompts.onChange(() => {
    if (connected) server.sendPromptListChanged().catch(() => {});
  });
  ledger.onChange(() => {
    if (connected) server.sendResourceListChanged().catch(() => {});
  });
  const matchers = templates.map((template) => ({
    template,
    match: compileUriTemplate(template.uriTemplate),
  }));

  const visible = (tool: ToolDefinition): boolean =>
    !profile.readOnly || allowedWhenReadOnly(tool.effects);

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: catalog.list().filter(visible).map(describeTool),
  }));

  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args } = request.params;
      const tool = catalog.get(name);
      if (!tool || !visible(tool)) {
        return failureResult(
          new ToolFailure("invalid_request", `Tool ${name} not found.`, {
            action: "Call tools/list for the tools this server offers.",
          }),
        );
      }
      const progressToken = extra._meta?.progressToken;
      const canElicit = Boolean(server.getClientCapabilities()?.elicitation?.form);
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
      try {
        return await gate.run({ kind: "tool", name, effects: tool.effects }, async () => {
          const parsed = tool.input.safeParse(args ?? {});
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
          if (outcome.kind === "recorded") {
            // Already committed: report it even if the client cancelled meanwhile.
            const { evidence } = outcome;
            return evidenceResult(
              outcome.result as JsonValue,
              evidence.evidence_id,
              name,
              outcome.links,
            );
          }
          if (extra.signal.aborted) throw new ToolFailure("cancelled", `${name} was cancelled.`);
          if (outcome.kind === "evidence") {
            const record = await createEvidence(outcome.draft);
            await ledger.record(record);
            return evidenceResult(record.normalized_result, record.evidence_id, name);
          }
          return plainResult(outcome.result, outcome.links ?? []);
        });
      } catch (error) {
        return failureResult(asFailure(error, name, extra.signal));
      }
    },
  );

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: prompts.list().map((contract) => ({
      name: contract.name,
      title: contract.title,
      description: contract.description,
      arguments: contract.arguments.map(({ name, description, required }) => ({
        name,
        description,
        required,
      })),
    })),
  }));

  server.setRequestHandler(GetPromptRequestSchema, async (request): Promise<GetPromptResult> => {
    const { name, arguments: args } = request.params;
    try {
      return await gate.run(
        { kind: "prompt", name, effects: {} },
        () => prompts.render(name, args),
      ) as GetPromptResult;
    } catch (error) {
      if (error instanceof PromptArgumentError) {
        throw new McpError(ErrorCode.InvalidParams, error.message);
      }
      if (error instanceof RangeError) {
        throw new McpError(ErrorCode.InvalidParams, `Prompt ${name} not found`);
      }
      if (error instanceof ToolFailure) throw new McpError(ErrorCode.InvalidRequest, error.message);
      throw error;
    }
  });

  server.setRequestHandler(
    CompleteRequestSchema,
    async (request, extra): Promise<CompleteResult> => {
      const { ref, argument, context } = request.params;
      let family: CompletionFamily | undefined;
      let refName: string;
      if (ref.type === "ref/prompt") {
        if (!prompts.has(ref.name)) {
          throw new McpError(ErrorCode.InvalidParams, `Prompt ${ref.name} not found`);
        }
        const name = prompts.completionFamily(ref.name, argument.name);
        family = name ? families.get(name) : undefined;
        refName = `prompt:${ref.name}`;
      } else {
        const template = templates.find((t) => t.uriTemplate === ref.uri);
        if (!template) {
          throw new McpError(ErrorCode.InvalidParams, `Resource template ${ref.uri} not found`);
        }
        family = template.variables[argument.name];
        refName = `resource:${ref.uri}`;
      }
      if (!family) return { completion: emptyCompletion() };
      const chosen = family;
      let answer: CompletionAnswer;
      try {
        answer = await gate.run(
          { kind: "completion", name: `${refName}#${argument.name}`, effects: {} },
          () =>
            complete(argument.value, chosen.source, {
              arguments: context?.arguments ?? {},
              signal: extra.signal,
            }, chosen.options),
        );
      } catch {
        answer = emptyCompletion();
      }
      return { completion: answer };
    },
  );

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: templates.map((t) => ({
      name: t.name,
      ...(t.title ? { title: t.title } : {}),
      uriTemplate: t.uriTemplate,
      description: t.description,
      mimeType: t.mimeType,
    })),
  }));

  server.setRequestHandler(ListResourcesRequestSchema, (request) => {
    const all = templates.flatMap((t) => t.list?.() ?? []);
    const start = decodeCursor(request.params?.cursor, all.length);
    const page = all.slice(start, start + RESOURCE_PAGE);
    const next = start + RESOURCE_PAGE < all.length ? String(start + RESOURCE_PAGE) : undefined;
    return { resources: page, ...(next ? { nextCursor: next } : {}) };
  });

  server.setRequestHandler(
    ReadResourceRequestSchema,
    async (request): Promise<ReadResourceResult> => {
      const { uri } = request.params;
      for (const { template, match } of matchers) {
        const variables = match(uri);
        if (!variables) continue;
        let contents;
        try {
          contents = await gate.run(
            { kind: "resource", name: uri, effects: {} },
            () => template.read(variables, uri),
          );
        } catch (error) {
          if (error instanceof ToolFailure) {
            throw new McpError(ErrorCode.InvalidRequest, error.message);
          }
          throw error;
        }
        if (contents) {
          return { contents: [contents] };
        }
      }
      throw new McpError(-32002, `Resource ${uri} not found`, { uri });
    },
  );

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
    async connect(transport: McpTransport): Promise<void> {
      await server.connect(transport as unknown as Transport);
      connected = true;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      connected = false;
      for (const workbench of workbenches) {
        try {
          await workbench.close?.();
        } catch (error) {
          stderr("warning", `closing workbench ${workbench.name} failed: ${String(error)}`);
        }
      }
      ledger.clear();
      await server.close();
    },
  };
}

function resolveRoots(roots: string[]): RootDirectory[] {
  return roots.map((root) => {
    const path = normalize(resolve(root));
    try {
      return { path, realPath: Deno.realPathSync(path) };
    } catch {
      // Missing, or no read permission: such a root admits nothing.
      return { path, realPath: null };
    }
  });
}

function decodeCursor(cursor: string | undefined, length: number): number {
  if (cursor === undefined) return 0;
  const start = Number(cursor);
  if (!Number.isSafeInteger(start) || start < 0 || start > length) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid cursor ${JSON.stringify(cursor)}`);
  }
  return start;
}

const ERROR_SCHEMA = {
  type: "object",
  properties: {
    code: { type: "string" },
    category: { type: "string" },
    message: { type: "string" },
    retryable: { type: "boolean" },
    remediation: {
      type: "object",
      properties: { action: { type: "string" }, restart_required: { type: "boolean" } },
      required: ["action", "restart_required"],
    },
    details: { type: "object" },
  },
  required: ["code", "category", "message", "retryable", "remediation"],
};

function describeTool(tool: ToolDefinition): Tool {
  const input = z.toJSONSchema(tool.input, { target: "draft-7", io: "input" }) as Record<
    string,
    unknown
  >;
  delete input.$schema;
  const result = z.toJSONSchema(tool.result, { target: "draft-7", io: "output" }) as Record<
    string,
    unknown
  >;
  delete result.$schema;
  const success = tool.producesEvidence
    ? {
      properties: {
        result,
        evidence_id: { type: "string", pattern: "^ev_[0-9a-f]{64}$" },
        evidence_uri: { type: "string" },
      },
      required: ["result", "evidence_id", "evidence_uri"],
    }
    : { properties: { result }, required: ["result"] };
  return {
    name: tool.name,
    title: annotationsFor(tool.name, tool.effects).title,
    description: tool.description,
    inputSchema: input as Tool["inputSchema"],
    outputSchema: {
      type: "object",
      anyOf: [
        { type: "object", ...success },
        { type: "object", properties: { error: ERROR_SCHEMA }, required: ["error"] },
      ],
    } as Tool["outputSchema"],
    annotations: annotationsFor(tool.name, tool.effects),
  };
}

function evidenceResult(
  result: JsonValue,
  evidenceId: string,
  toolName: string,
  links: { uri: string; name: string; description?: string; mimeType?: string }[] = [],
): CallToolResult {
  const uri = evidenceUri(evidenceId);
  const structured = { result, evidence_id: evidenceId, evidence_uri: uri };
  return {
    structuredContent: structured,
    content: [
      { type: "text", text: JSON.stringify(structured) },
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
): CallToolResult {
  return {
    structuredContent: { result },
    content: [
      { type: "text", text: JSON.stringify({ result }) },
      ...links.map((link) => ({ type: "resource_link" as const, ...link })),
    ],
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
