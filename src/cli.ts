/**
 * The command line: flags, transports, signals.
 *
 * @module
 */

import { normalize } from "node:path";
import { parseArgs } from "node:util";
import { isGranted } from "./core/permissions.ts";
import { LOG_LEVELS, type LogLevel, stderrLogger } from "./core/log.ts";
import { serveHttp } from "./http.ts";
import { StdioServerTransport } from "./sdk.ts";
import { createServer, type CreateServerOptions } from "./server.ts";
import type { CapturePolicySettings } from "./core/workbench.ts";
import { VERSION } from "./version.ts";

/** Environment variable holding the HTTP bearer token (needs `--allow-env=CASEFILE_TOKEN`). */
export const TOKEN_ENV = "CASEFILE_TOKEN";

/** The usage text. */
export const USAGE = `casefile ${VERSION} — an MCP server for evidence-backed investigations

Usage: casefile [options]

Transport (stdio unless --http is given):
  --http [HOST:]PORT     serve Streamable HTTP at http://HOST:PORT/mcp (HOST defaults to 127.0.0.1)
  --token TOKEN          require "Authorization: Bearer TOKEN" on HTTP (or set ${TOKEN_ENV})
  --allow-host NAME      also accept this Host header on HTTP (repeatable)
  --allow-origin ORIGIN  also accept this Origin header on HTTP (repeatable)

Targets and policy:
  --root DIR             a directory targets may be opened from (repeatable; also grant --allow-read=DIR)
  --read-only            hide and refuse tools with effects outside the session
  --allow-process-launch operator policy: allow starting helper programs (the objdump provider;
                         Deno must also grant them, e.g. --allow-run=objdump)
  --allow-file-writes    operator policy: allow tools that write files (extract_artifact;
                         Deno must also grant the output directory's parent with --allow-write)
  --log-level LEVEL      stderr threshold: ${LOG_LEVELS.join(", ")} (default warning)

Process capture (capture_process_scenario; --allow-process-launch is the master switch):
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

  -h, --help             print this help
  -V, --version          print the version
`;

/** Parsed command line. */
export interface CliConfig {
  http: { hostname: string; port: number } | null;
  token: string | undefined;
  allowedHosts: string[];
  allowedOrigins: string[];
  server: CreateServerOptions;
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
export function parseCli(args: string[]): CliConfig {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        http: { type: "string" },
        token: { type: "string" },
        "allow-host": { type: "string", multiple: true },
        "allow-origin": { type: "string", multiple: true },
        root: { type: "string", multiple: true },
        "read-only": { type: "boolean" },
        "allow-process-launch": { type: "boolean" },
        "allow-file-writes": { type: "boolean" },
        "allow-capture": { type: "string", multiple: true },
        "capture-root": { type: "string", multiple: true },
        "capture-env": { type: "string", multiple: true },
        "capture-allow-network": { type: "boolean" },
        "confirm-captures": { type: "boolean" },
        "capture-policy": { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const values = parsed.values;
  if (values.token === "") throw new UsageError("--token must not be empty");
  const logLevel = values["log-level"] ?? "warning";
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(", ")}; got ${logLevel}`);
  }
  const capturePolicy = parseCapturePolicy(values);
  return {
    http: values.http === undefined ? null : parseHostPort(values.http),
    token: values.token,
    allowedHosts: values["allow-host"] ?? [],
    allowedOrigins: values["allow-origin"] ?? [],
    server: {
      roots: values.root ?? [],
      readOnly: values["read-only"] ?? false,
      allowProcessLaunch: values["allow-process-launch"] ?? false,
      allowFileWrites: values["allow-file-writes"] ?? false,
      logLevel: logLevel as LogLevel,
      ...(capturePolicy ? { capturePolicy } : {}),
    },
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const POLICY_KEYS = [
  "executables",
  "roots",
  "environment",
  "allow_host_network",
  "require_human_confirmation",
];

/**
 * The operator capture policy from the capture flags and `--capture-policy FILE`
 * (lists merged, booleans or-ed); undefined when no capture flag is given.
 */
export function parseCapturePolicy(values: {
  "allow-capture"?: string[];
  "capture-root"?: string[];
  "capture-env"?: string[];
  "capture-allow-network"?: boolean;
  "confirm-captures"?: boolean;
  "capture-policy"?: string;
}): CapturePolicySettings | undefined {
  const policy: CapturePolicySettings = {
    executables: absolutePaths(values["allow-capture"] ?? [], "--allow-capture"),
    roots: absolutePaths(values["capture-root"] ?? [], "--capture-root"),
    environment: envNames(values["capture-env"] ?? [], "--capture-env"),
    allowHostNetwork: values["capture-allow-network"] ?? false,
    requireHumanConfirmation: values["confirm-captures"] ?? false,
  };
  const file = values["capture-policy"];
  if (file !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Deno.readTextFileSync(file));
    } catch (error) {
      const hint = error instanceof Deno.errors.NotCapable ? ` (grant --allow-read=${file})` : "";
      throw new UsageError(
        `--capture-policy ${file}: ${error instanceof Error ? error.message : error}${hint}`,
      );
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new UsageError(`--capture-policy ${file}: expected a JSON object`);
    }
    const record = parsed as Record<string, unknown>;
    const unknown = Object.keys(record).filter((k) => !POLICY_KEYS.includes(k));
    if (unknown.length > 0) {
      throw new UsageError(
        `--capture-policy ${file}: unknown key(s) ${unknown.join(", ")}; allowed: ${
          POLICY_KEYS.join(", ")
        }`,
      );
    }
    const list = (key: string): string[] => {
      const value = record[key] ?? [];
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
        throw new UsageError(`--capture-policy ${file}: ${key} must be an array of strings`);
      }
      return value as string[];
    };
    const flag = (key: string): boolean => {
      const value = record[key] ?? false;
      if (typeof value !== "boolean") {
        throw new UsageError(`--capture-policy ${file}: ${key} must be true or false`);
      }
      return value;
    };
    policy.executables.push(...absolutePaths(list("executables"), `${file} executables`));
    policy.roots.push(...absolutePaths(list("roots"), `${file} roots`));
    policy.environment.push(...envNames(list("environment"), `${file} environment`));
    policy.allowHostNetwork ||= flag("allow_host_network");
    policy.requireHumanConfirmation ||= flag("require_human_confirmation");
  }
  const given = file !== undefined || policy.executables.length > 0 ||
    policy.roots.length > 0 || policy.environment.length > 0 || policy.allowHostNetwork ||
    policy.requireHumanConfirmation;
  if (!given) return undefined;
  policy.executables = [...new Set(policy.executables)];
  policy.roots = [...new Set(policy.roots)];
  policy.environment = [...new Set(policy.environment)];
  return policy;
}

function absolutePaths(paths: string[], what: string): string[] {
  return paths.map((path) => {
    if (!path.startsWith("/")) {
      throw new UsageError(`${what} expects an absolute path; got ${JSON.stringify(path)}`);
    }
    return normalize(path);
  });
}

function envNames(names: string[], what: string): string[] {
  for (const name of names) {
    if (!ENV_NAME.test(name)) {
      throw new UsageError(
        `${what} expects an environment variable name; got ${JSON.stringify(name)}`,
      );
    }
  }
  return names;
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
    let endpoint;
    try {
      endpoint = await serveHttp({
        hostname: config.http.hostname,
        port: config.http.port,
        token,
        allowedHosts: config.allowedHosts,
        allowedOrigins: config.allowedOrigins,
        createSession: () => createServer(config.server),
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
    return 0;
  }
  const casefile = createServer(config.server);
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
  return 0;
}

function onTermination(shutdown: () => Promise<void>): () => void {
  const handler = (): void => {
    shutdown().catch(() => {}).finally(() => Deno.exit(0));
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
