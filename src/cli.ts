/**
 * The command line: flags, transports, signals.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { isGranted } from "./core/permissions.ts";
import { LOG_LEVELS, type LogLevel, stderrLogger } from "./core/log.ts";
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
  serveHttp,
} from "./http.ts";
import { StdioServerTransport } from "./sdk.ts";
import type { CreateServerOptions } from "./server.ts";
import type { WorkbenchModule } from "./core/workbench.ts";
import { ANONYMOUS_PRINCIPAL, type Principal } from "./core/policy.ts";
import { sha256Hex } from "./core/canonical_json.ts";
import { builtinWorkbenches, createServer } from "./workbenches.ts";
import {
  type CompiledPolicy,
  compilePolicy,
  gateOptions,
  VAULT_KEY_ENV,
} from "./core/policy/compile.ts";
import { loadPolicy } from "./core/policy/document.ts";
import { privacyModuleWith } from "./privacy/descriptor.ts";
import { VERSION } from "./version.ts";

/** Environment variable holding the HTTP bearer token (needs `--allow-env=CASEFILE_TOKEN`). */
export const TOKEN_ENV = "CASEFILE_TOKEN";

/** Environment variable naming the policy (a profile or a file) when --policy is absent. */
export const POLICY_ENV = "CASEFILE_POLICY";

/** The policy when neither --policy nor CASEFILE_POLICY names one. */
export const DEFAULT_POLICY = "standard";

/** A bearer token and the principal it stands for. */
export interface TokenGrant {
  /** The secret the client sends. */
  token: string;
  /** The principal id. @default derived from the token's hash */
  principal?: string;
  /** Roles the policy grants it (besides `default`). @default [] */
  roles: string[];
}

const IDLE_SECONDS = DEFAULT_IDLE_TIMEOUT_MS / 1000;

const CORE_USAGE = `casefile ${VERSION} — an MCP server for evidence-backed investigations

Usage: casefile [options]

Transport (stdio unless --http is given):
  --http [HOST:]PORT     serve Streamable HTTP at http://HOST:PORT/mcp (HOST defaults to 127.0.0.1)
  --token TOKEN[=ID:ROLE,ROLE]
                         require "Authorization: Bearer TOKEN" on HTTP (or set ${TOKEN_ENV});
                         repeatable; =ID:ROLES names the principal and its policy roles
  --allow-host NAME      also accept this Host header on HTTP (repeatable)
  --allow-origin ORIGIN  also accept this Origin header on HTTP (repeatable)
  --max-sessions N       most concurrent HTTP sessions (default ${DEFAULT_MAX_SESSIONS})
  --max-sessions-per-principal N
                         most concurrent HTTP sessions of one bearer token, or of all anonymous
                         clients together (default ${DEFAULT_MAX_SESSIONS_PER_PRINCIPAL})
  --session-idle-timeout SECONDS
                         close HTTP sessions idle this long (default ${IDLE_SECONDS}); when a cap is
                         reached, the least recently used session idle for a minute makes room

Targets and policy:
  --root DIR             a directory targets may be opened from (repeatable; also grant --allow-read=DIR)
  --read-only            hide and refuse tools with effects outside the session
  --policy NAME|FILE     the policy: open, standard, strict, read_only, airgapped, audit, soc-analyst,
                         or a .yaml/.yml/.json file (or set ${POLICY_ENV}; default: standard); the vault
                         key comes from the policy or ${VAULT_KEY_ENV}
  --toolsets LIST        serve only these toolsets or workbenches (comma-separated; default all):
                         TOOLSETS
  --allow-process-launch operator policy: allow starting helper programs (the objdump provider;
                         Deno must also grant them, e.g. --allow-run=objdump)
  --allow-file-writes    operator policy: allow tools that write files (extract_artifact;
                         Deno must also grant the output directory's parent with --allow-write
                         and --allow-read)
  --log-level LEVEL      stderr threshold: ${LOG_LEVELS.join(", ")} (default warning)
`;

const USAGE_TAIL = `
  -h, --help             print this help
  -V, --version          print the version
`;

/** The usage text for the given workbenches (the built-in ones by default). */
export function usage(modules: readonly WorkbenchModule[] = builtinWorkbenches()): string {
  const toolsets = modules.map((m) =>
    `${m.name} (${(m.toolsets ?? [{ name: m.name }]).map((t) => t.name).join(", ")})`
  ).join("; ");
  const sections = modules.map((m) => m.cli?.help ?? "").filter((help) => help.length > 0);
  return [CORE_USAGE.replace("TOOLSETS", toolsets), ...sections].join("\n") + USAGE_TAIL;
}

/** The usage text. */
export const USAGE: string = usage();

/** Parsed command line. */
export interface CliConfig {
  http: { hostname: string; port: number } | null;
  token: string | undefined;
  /** Every bearer token with its principal (from --token and the policy's tokens). */
  tokens: TokenGrant[];
  /** The compiled policy, when --policy (or ${POLICY_ENV}) names one. */
  policy?: CompiledPolicy;
  allowedHosts: string[];
  allowedOrigins: string[];
  /** HTTP session caps and idle timeout (`--max-sessions`, `--max-sessions-per-principal`, `--session-idle-timeout`). */
  sessions: { maxSessions: number; maxSessionsPerPrincipal: number; idleTimeoutMs: number };
  server: CreateServerOptions;
  /** The workbenches, each configured by its own flags. */
  workbenches: WorkbenchModule[];
  help: boolean;
  version: boolean;
}

/** A command line the parser refuses. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Parses arguments; throws UsageError with a readable message. */
export function parseCli(
  args: string[],
  modules: readonly WorkbenchModule[] = builtinWorkbenches(),
): CliConfig {
  const workbenchOptions: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {};
  for (const module of modules) Object.assign(workbenchOptions, module.cli?.options ?? {});
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        ...workbenchOptions,
        http: { type: "string" },
        token: { type: "string", multiple: true },
        policy: { type: "string" },
        "allow-host": { type: "string", multiple: true },
        "allow-origin": { type: "string", multiple: true },
        "max-sessions": { type: "string" },
        "max-sessions-per-principal": { type: "string" },
        "session-idle-timeout": { type: "string" },
        root: { type: "string", multiple: true },
        "read-only": { type: "boolean" },
        "allow-process-launch": { type: "boolean" },
        "allow-file-writes": { type: "boolean" },
        toolsets: { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined> & {
    http?: string;
    token?: string[];
    policy?: string;
    "allow-host"?: string[];
    "allow-origin"?: string[];
    "max-sessions"?: string;
    "max-sessions-per-principal"?: string;
    "session-idle-timeout"?: string;
    root?: string[];
    "read-only"?: boolean;
    "allow-process-launch"?: boolean;
    "allow-file-writes"?: boolean;
    toolsets?: string;
    "log-level"?: string;
    help?: boolean;
    version?: boolean;
  };
  const grants = (values.token ?? []).map(parseTokenGrant);
  const policySpec = values.policy ??
    (isGranted("env", POLICY_ENV) ? Deno.env.get(POLICY_ENV) || undefined : undefined) ??
    DEFAULT_POLICY;
  let policy: CompiledPolicy | undefined;
  if (policySpec !== undefined) {
    try {
      policy = compilePolicy(loadPolicy(policySpec), {
        env: (name) => (isGranted("env", name) ? Deno.env.get(name) : undefined),
      });
    } catch (error) {
      throw new UsageError(`--policy: ${error instanceof Error ? error.message : String(error)}`);
    }
    for (const spec of policy.document.tokens ?? []) {
      const secret = spec.token ??
        (spec.token_env && isGranted("env", spec.token_env)
          ? Deno.env.get(spec.token_env)
          : undefined);
      if (!secret) continue;
      grants.push({
        token: secret,
        ...(spec.principal ? { principal: spec.principal } : {}),
        roles: spec.roles ?? [],
      });
    }
  }
  const logLevel = values["log-level"] ?? "warning";
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(", ")}; got ${logLevel}`);
  }
  const workbenches = modules.map((module) => {
    if (module.name === "privacy" && policy) return privacyModuleWith({ policy });
    if (!module.cli) return module;
    const own = Object.fromEntries(
      Object.keys(module.cli.options).map((name) => [name, values[name]]),
    );
    try {
      return module.cli.configure(own);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  });
  const toolsets = values.toolsets === undefined
    ? undefined
    : parseToolsets(values.toolsets, modules);
  return {
    http: values.http === undefined ? null : parseHostPort(values.http),
    token: grants[0]?.token,
    tokens: grants,
    ...(policy ? { policy } : {}),
    allowedHosts: values["allow-host"] ?? [],
    allowedOrigins: values["allow-origin"] ?? [],
    sessions: {
      maxSessions: positiveInteger(values["max-sessions"], "--max-sessions", DEFAULT_MAX_SESSIONS),
      maxSessionsPerPrincipal: positiveInteger(
        values["max-sessions-per-principal"],
        "--max-sessions-per-principal",
        DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
      ),
      idleTimeoutMs: 1000 * positiveInteger(
        values["session-idle-timeout"],
        "--session-idle-timeout",
        DEFAULT_IDLE_TIMEOUT_MS / 1000,
      ),
    },
    server: {
      roots: values.root ?? [],
      readOnly: values["read-only"] ?? false,
      allowProcessLaunch: values["allow-process-launch"] ?? false,
      allowFileWrites: values["allow-file-writes"] ?? false,
      logLevel: logLevel as LogLevel,
      ...(toolsets ? { toolsets } : {}),
      ...(policy ? gateOptions(policy) : {}),
    },
    workbenches,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

/** A flag's whole positive number (at most 10^9), or `fallback` when the flag is absent. */
export function positiveInteger(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^[1-9][0-9]{0,8}$/.test(text.trim()) && text.trim() !== "1000000000") {
    throw new UsageError(
      `${flag} expects a whole number from 1 to 1000000000; got ${
        JSON.stringify(text.slice(0, 40))
      }`,
    );
  }
  return Number(text.trim());
}

/** `--toolsets a,b`: each name a toolset or a workbench of `modules`. */
function parseToolsets(text: string, modules: readonly WorkbenchModule[]): string[] {
  const known = new Set(
    modules.flatMap((m) => [m.name, ...(m.toolsets ?? []).map((t) => t.name)]),
  );
  const names = text.split(",").map((name) => name.trim()).filter((name) => name.length > 0);
  if (names.length === 0) throw new UsageError("--toolsets needs at least one name");
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `--toolsets: unknown ${unknown.join(", ")}; known: ${[...known].join(", ")}`,
    );
  }
  return names;
}

/** `TOKEN` or `TOKEN=ID:ROLE,ROLE` (the id may be empty: `TOKEN=:admin`). */
export function parseTokenGrant(text: string): TokenGrant {
  const eq = text.indexOf("=");
  const token = eq < 0 ? text : text.slice(0, eq);
  if (token === "") throw new UsageError("--token must not be empty");
  if (eq < 0) return { token, roles: [] };
  const rest = text.slice(eq + 1);
  const colon = rest.indexOf(":");
  const id = colon < 0 ? rest : rest.slice(0, colon);
  const roles = colon < 0
    ? []
    : rest.slice(colon + 1).split(",").map((r) => r.trim()).filter((r) => r.length > 0);
  return { token, ...(id ? { principal: id } : {}), roles };
}

/**
 * The principal of an HTTP session: derived from its bearer token (with the
 * id and roles its grant names), or anonymous.
 */
export function httpPrincipal(
  token: string | undefined,
  grants: readonly TokenGrant[] = [],
): Principal {
  if (!token) return ANONYMOUS_PRINCIPAL;
  const grant = grants.find((g) => g.token === token);
  return {
    id: grant?.principal ?? `token:${sha256Hex(token).slice(0, 12)}`,
    kind: "token",
    roles: grant?.roles ?? [],
  };
}

/** `8787`, `127.0.0.1:8787`, `[::1]:8787`. */
export function parseHostPort(text: string): { hostname: string; port: number } {
  const found = /^(?:(\[[0-9a-fA-F:]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(text);
  const port = Number(found?.[2]);
  if (!found || port > 65535) {
    throw new UsageError(
      `--http expects [HOST:]PORT with PORT 0-65535; got ${JSON.stringify(text)}`,
    );
  }
  const host = found[1] ?? "127.0.0.1";
  return { hostname: host.startsWith("[") ? host.slice(1, -1) : host, port };
}

/** Runs the CLI; resolves with the exit code. */
export async function runCli(args: string[]): Promise<number> {
  let config: CliConfig;
  try {
    config = parseCli(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    writeErr(`casefile: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (config.help) {
    writeOut(USAGE);
    return 0;
  }
  if (config.version) {
    writeOut(`casefile ${VERSION}\n`);
    return 0;
  }
  const log = stderrLogger(config.server.logLevel ?? "warning");
  if (config.http) {
    const token = config.token ??
      (isGranted("env", TOKEN_ENV) ? Deno.env.get(TOKEN_ENV) || undefined : undefined);
    const extraTokens = config.tokens.slice(1).map((grant) => grant.token);
    let endpoint;
    try {
      endpoint = await serveHttp({
        hostname: config.http.hostname,
        port: config.http.port,
        token,
        tokens: extraTokens,
        allowedHosts: config.allowedHosts,
        allowedOrigins: config.allowedOrigins,
        ...config.sessions,
        createSession: (matched) =>
          createServer({
            ...config.server,
            workbenches: config.workbenches,
            principal: httpPrincipal(matched ?? token, config.tokens),
          }),
        log,
        onListen: ({ hostname, port }) =>
          log(
            "notice",
            `listening on http://${
              hostname.includes(":") ? `[${hostname}]` : hostname
            }:${port}/mcp`,
          ),
      });
    } catch (error) {
      const hint = error instanceof Deno.errors.NotCapable
        ? ` (grant --allow-net=${config.http.hostname}:${config.http.port})`
        : "";
      writeErr(
        `casefile: cannot listen on ${config.http.hostname}:${config.http.port}: ${
          (error as Error).message
        }${hint}\n`,
      );
      return 1;
    }
    const auth = token
      ? "bearer token required"
      : isGranted("env", TOKEN_ENV)
      ? "no bearer token"
      : `no bearer token; ${TOKEN_ENV} is not read without --allow-env=${TOKEN_ENV}`;
    writeErr(`casefile: listening on ${endpoint.url} (${auth})\n`);
    const stop = onTermination(() => endpoint.shutdown());
    await endpoint.finished;
    stop();
    return saveVault(config) ? 0 : 1;
  }
  const casefile = createServer({ ...config.server, workbenches: config.workbenches });
  const transport = new StdioServerTransport();
  // Answer lines that are not JSON-RPC instead of dropping them silently.
  transport.onerror = (error) => {
    const reply = {
      jsonrpc: "2.0",
      id: null,
      error: error instanceof SyntaxError
        ? { code: -32700, message: `Parse error: ${error.message}` }
        : { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 message" },
    };
    if (error instanceof SyntaxError || error.name === "ZodError") {
      transport.send(reply as never).catch(() => {});
    }
  };
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await casefile.connect(transport);
  // The SDK's stdio transport does not notice stdin EOF by itself; watch for it.
  const { stdin } = await import("node:process");
  stdin.once("end", () => void casefile.close());
  const stop = onTermination(() => casefile.close());
  await closed;
  stop();
  return saveVault(config) ? 0 : 1;
}

/** Saves the policy's pseudonym vault at shutdown when it persists; false when that failed. */
function saveVault(config: CliConfig): boolean {
  const file = config.policy?.vaultFile;
  if (!file) return true;
  try {
    file.save();
    return true;
  } catch (error) {
    writeErr(`casefile: ${(error as Error).message}\n`);
    return false;
  }
}

/** Longest a signal waits for a graceful shutdown before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 2_000;

function onTermination(shutdown: () => Promise<void>): () => void {
  let signalled = false;
  const handler = (): void => {
    // A second signal, or a shutdown that waits on a request that will not end, never keeps
    // the process alive: the exit does not depend on anything a request is doing.
    if (signalled) Deno.exit(0);
    signalled = true;
    const timer = setTimeout(() => Deno.exit(0), SHUTDOWN_GRACE_MS);
    shutdown().catch(() => {}).finally(() => {
      clearTimeout(timer);
      Deno.exit(0);
    });
  };
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, handler);
  return () => {
    for (const signal of signals) Deno.removeSignalListener(signal, handler);
  };
}

function writeOut(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text));
}

function writeErr(text: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(text));
}
