/**
 * The Process Capture v4 request: a strict schema (unknown keys refused)
 * with the documented defaults and caps, and the cross-field rules checked
 * before anything runs. Casefile extends the REA request with
 * `network_access: "none"` (the default: a private network namespace),
 * `trace` (syscall tracing) and `crash_backtrace` (a debugger run).
 *
 * @module
 */

import { z } from "zod";
import { ToolFailure } from "../../core/errors.ts";
import { compileLinearRegex, PatternError } from "../../core/linear_regex.ts";

/** Environment variable names the request may use. */
export const ENV_NAME: RegExp = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names a request can neither set nor inherit. */
export const RESERVED_ENV_NAMES: readonly string[] = [
  "HOME",
  "TERM",
  "REA_PROCESS_RUN_ID",
  "REA_REPLAY_HTTP_URL",
  "REA_REPLAY_WEBSOCKET_URL",
  "REA_SHIM_LEDGER_URL",
];
/** Checkpoint names the capture itself always takes. */
export const BUILT_IN_CHECKPOINTS: readonly string[] = ["before", "after_settlement"];
/** Signals an event or a shim may name. */
export const EVENT_SIGNALS = ["SIGINT", "SIGTERM", "SIGKILL"] as const;

const MEGABYTE = 1_000_000;
const MAX_MS = 300_000;

const absolutePath = (what: string) =>
  z.string().min(1).max(4096).refine((p) => p.startsWith("/"), {
    error: `${what} must be an absolute path (starting with /)`,
  }).refine((p) => !p.includes("\0"), { error: `${what} must not contain NUL` });

const envName = z.string().regex(ENV_NAME, {
  error: "environment names match ^[A-Za-z_][A-Za-z0-9_]*$",
}).max(256);

const positive = (fallback: number, max: number, what: string) =>
  z.number().int().min(1).max(max).default(fallback).describe(
    `${what} (default ${fallback}, at most ${max}).`,
  );

/** The `limits` object. */
export const limitsSchema = z.strictObject({
  output_bytes: positive(1_000_000, 10_000_000, "Bytes recorded per output stream"),
  frames: positive(10_000, 100_000, "Output frames recorded"),
  files: positive(10_000, 100_000, "Files listed per filesystem checkpoint"),
  file_bytes: positive(10_000_000, 100_000_000, "Bytes hashed per filesystem checkpoint"),
  processes: positive(
    1_000,
    10_000,
    "Processes the run may have at once and distinct processes sampled",
  ),
  protocol_events: positive(10_000, 100_000, "Protocol events recorded"),
  protocol_body_bytes: positive(1_000_000, 10_000_000, "Protocol body bytes recorded"),
  connections: positive(100, 1_000, "Connection attempts recorded"),
  filesystem_depth: z.number().int().min(1).max(64).default(16).describe(
    "Directory depth walked below each root (1 to 64, default 16).",
  ),
});

/** The `resource_limits` object: rlimits applied to the launched tree (through `prlimit`). */
export const resourceLimitsSchema = z.strictObject({
  address_space_bytes: z.number().int().min(16 * 1024 * 1024).max(2 ** 46).optional().describe(
    "RLIMIT_AS: most bytes of virtual memory each process may map (16 MiB to 64 TiB); an allocation past it fails.",
  ),
  cpu_seconds: z.number().int().min(1).max(86_400).optional().describe(
    "RLIMIT_CPU: CPU seconds each process may use (1 to 86,400); past it the kernel sends SIGXCPU, then SIGKILL.",
  ),
  file_size_bytes: z.number().int().min(1).max(2 ** 46).optional().describe(
    "RLIMIT_FSIZE: largest file each process may write, in bytes; a write past it fails (SIGXFSZ).",
  ),
  open_files: z.number().int().min(16).max(1_048_576).optional().describe(
    "RLIMIT_NOFILE: open file descriptors per process (16 to 1,048,576).",
  ),
});

/** The `normalization` object. */
export const normalizationSchema = z.strictObject({
  paths: z.boolean().default(true).describe(
    "Replace the run's own paths (working directory, roots, temporary root) by placeholders.",
  ),
  pids: z.boolean().default(true).describe("Replace observed process ids by <pid>."),
  ports: z.boolean().default(true).describe("Replace connection ports by <port>."),
  time_bucket_ms: z.number().int().min(1).max(60_000).default(10).describe(
    "Round times to this many milliseconds when comparing (1 to 60,000).",
  ),
  patterns: z.array(z.strictObject({
    pattern: z.string().min(1).max(500).describe("A regular expression (JavaScript syntax)."),
    replacement: z.string().max(100).describe("What each match becomes."),
  })).max(32).default([]).describe("Extra replacements applied to output before comparing."),
});

const triggerSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("time"),
    at_ms: z.number().int().min(0).max(MAX_MS).describe("Milliseconds after the start."),
  }),
  z.strictObject({
    type: z.literal("terminal_literal"),
    value: z.string().min(1).max(10_000).describe("Text to wait for in the output."),
    occurrence: z.number().int().min(1).max(1000).default(1).describe("Which occurrence."),
  }),
  z.strictObject({ type: z.literal("root_exit") }),
  z.strictObject({ type: z.literal("settled") }),
]);

const checkpointSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/).describe("Checkpoint name."),
  trigger: triggerSchema.describe("When the filesystem snapshot is taken."),
});

const shimSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/),
  routes: z.array(z.strictObject({
    arguments: z.array(z.string()).max(256),
    outputs: z.array(z.strictObject({
      at_ms: z.number().int().min(0).max(MAX_MS),
      stream: z.enum(["stdout", "stderr"]),
      data: z.string().max(MEGABYTE),
    })).max(1000),
    termination: z.discriminatedUnion("type", [
      z.strictObject({ type: z.literal("exit"), code: z.number().int().min(0).max(255) }),
      z.strictObject({ type: z.literal("signal"), signal: z.enum(EVENT_SIGNALS) }),
    ]),
    max_calls: z.number().int().min(1).max(100).default(1),
  })).min(1).max(100),
});

const eventSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("input"),
    at_ms: z.number().int().min(0).max(MAX_MS).describe("Milliseconds after the start."),
    data: z.string().max(MEGABYTE).describe("Bytes written to stdin (UTF-8)."),
    sensitive: z.boolean().default(false).describe(
      "Record only the byte length, never the data.",
    ),
  }),
  z.strictObject({
    type: z.literal("resize"),
    at_ms: z.number().int().min(0).max(MAX_MS),
    columns: z.number().int().min(1).max(1000),
    rows: z.number().int().min(1).max(1000),
  }),
  z.strictObject({
    type: z.literal("signal"),
    at_ms: z.number().int().min(0).max(MAX_MS),
    signal: z.enum(EVENT_SIGNALS).describe("Sent to the target process."),
  }),
]);

const httpRouteSchema = z.strictObject({
  method: z.string().min(1).max(16),
  path: z.string().regex(/^\//, "a route path starts with /").max(4096),
  status: z.number().int().min(100).max(599),
  body: z.string().max(MEGABYTE).default(""),
  request_headers: z.record(z.string(), z.string()).default({}),
  request_body: z.string().max(MEGABYTE).optional(),
  response_headers: z.record(z.string(), z.string()).default({}),
  delay_ms: z.number().int().min(0).max(30_000).default(0),
  disconnect: z.boolean().default(false),
  max_calls: z.number().int().min(1).max(100).default(1),
});

/** The `replay` object (accepted for shape; Casefile runs no replay peers). */
export const replaySchema = z.strictObject({
  machine: z.record(z.string(), z.unknown()).nullable().default(null),
  http: z.array(httpRouteSchema).max(100).default([]),
  websocket_messages: z.array(z.record(z.string(), z.unknown())).max(100).default([]),
  websocket_connections: z.array(z.record(z.string(), z.unknown())).max(100).default([]),
});

/** The capture request (the `capture_process_scenario` input). */
export const captureRequestShape = {
  approved: z.literal(true, {
    error:
      "approved must be the literal true: the per-call approval layer is missing (pass approved: true once the plan is agreed)",
  }).describe("Per-call approval: must be the literal true for anything to run."),
  unknown_registry_approved: z.literal(true).optional().describe(
    "true: also record in the residual-unknowns registry what the capture left unknown (its residual limitations), citing its Evidence.",
  ),
  executable: absolutePath("executable").describe(
    "Absolute path of the program to run; its real path must be allowed by the operator.",
  ),
  arguments: z.array(z.string().max(131_072)).max(256).default([]).describe(
    "Arguments after argv[0] (at most 256).",
  ),
  working_directory: absolutePath("working_directory").describe(
    "Absolute working directory; it must lie inside an operator capture root.",
  ),
  environment: z.record(envName, z.string().max(131_072)).refine(
    (env) => Object.keys(env).length <= 64,
    { error: "at most 64 environment entries" },
  ).default({}).describe(
    "Variables to set (name → value). Values are never recorded; only names are.",
  ),
  inherit_environment: z.array(envName).max(64).default([]).describe(
    "Names copied from the server's own environment (each needs --allow-env=NAME).",
  ),
  secret_aliases: z.array(envName).max(64).default([]).describe(
    "Names of environment entries whose values are secrets: redacted from all output.",
  ),
  network_access: z.enum(["none", "host"]).default("none").describe(
    "none (default): a private network namespace with no interfaces up, refused when the host cannot provide one; host: the host's network (the operator must allow it).",
  ),
  filesystem_roots: z.array(absolutePath("filesystem root")).max(16).default([]).describe(
    "Directories snapshotted at every checkpoint (besides the working directory); each inside a capture root.",
  ),
  terminal: z.strictObject({
    columns: z.number().int().min(1).max(1000).default(80),
    rows: z.number().int().min(1).max(1000).default(24),
    scrollback: z.number().int().min(0).max(10_000).default(1000),
  }).prefault({}).describe(
    "Terminal geometry; recorded only, since the process runs on pipes, not a terminal.",
  ),
  checkpoints: z.array(checkpointSchema).max(64).default([]).describe(
    "Extra filesystem checkpoints (before and after_settlement are always taken).",
  ),
  command_shims: z.array(shimSchema).max(32).default([]).describe(
    "Command shims (not supported by this server: must be empty).",
  ),
  events: z.array(eventSchema).max(1000).default([]).describe(
    "Timed stdin input and signals, in non-decreasing at_ms; stdin closes after the last input.",
  ),
  timeout_ms: positive(30_000, MAX_MS, "Wall-clock limit in milliseconds"),
  idle_timeout_ms: positive(30_000, MAX_MS, "Limit on silence (no output) in milliseconds"),
  settle_ms: z.number().int().min(0).max(10_000).default(100).describe(
    "How long descendants may outlive the root process before they are ended (0 to 10,000 ms).",
  ),
  limits: limitsSchema.prefault({}).describe("Caps on everything recorded."),
  resource_limits: resourceLimitsSchema.prefault({}).describe(
    "Kernel resource limits (rlimits) for every process of the run, tracer or debugger included; applied through prlimit (needs --allow-run=prlimit) and recorded in the plan and the Evidence. The process count is limits.processes.",
  ),
  library_path: z.array(absolutePath("library_path entry")).max(16).default([]).describe(
    "Directories the dynamic loader searches first (LD_LIBRARY_PATH for the launched tree), each inside a capture root; set by the launcher, so it needs neither --capture-env nor an unrestricted --allow-run.",
  ),
  normalization: normalizationSchema.prefault({}).describe("How captures are compared."),
  replay: replaySchema.prefault({}).describe(
    "Replay peers (not supported by this server: must be empty).",
  ),
  reactive: z.record(z.string(), z.unknown()).nullable().default(null).describe(
    "A reactive scenario (not supported by this server: must be null).",
  ),
  trace: z.enum(["auto", "strace", "none"]).default("auto").describe(
    "Syscall tracing: auto uses strace when installed and granted; strace requires it; none turns it off.",
  ),
  crash_backtrace: z.boolean().default(false).describe(
    "Run under gdb and record the backtrace and memory map if the program stops on a signal (needs gdb; excludes strace).",
  ),
};

/** The strict request schema. */
export const captureRequestSchema = z.strictObject(captureRequestShape);

/** A parsed request, defaults applied. */
export type CaptureRequest = z.output<typeof captureRequestSchema>;
/** One timed event. */
export type CaptureEvent = CaptureRequest["events"][number];

/**
 * The cross-field rules of §4.2 (plus Casefile's own), checked before any
 * side effect. Throws `invalid_request` naming the first broken rule, or
 * `capability_unavailable` for parts of the request this server cannot run.
 */
export function validateCrossFields(request: CaptureRequest): void {
  let last = 0;
  request.events.forEach((event, i) => {
    if (event.at_ms < last) {
      throw bad(`events[${i}] at ${event.at_ms} ms comes before the previous event (${last} ms).`);
    }
    if (event.at_ms > request.timeout_ms) {
      throw bad(`events[${i}] at ${event.at_ms} ms falls after timeout_ms ${request.timeout_ms}.`);
    }
    last = event.at_ms;
  });
  for (const alias of request.secret_aliases) {
    if (!Object.hasOwn(request.environment, alias)) {
      throw bad(`secret alias ${alias} has no value in environment.`);
    }
  }
  const explicit = Object.keys(request.environment);
  for (const name of [...explicit, ...request.inherit_environment]) {
    if (RESERVED_ENV_NAMES.includes(name)) {
      throw bad(`${name} is reserved and cannot be set or inherited.`);
    }
  }
  for (const name of request.inherit_environment) {
    if (explicit.includes(name)) throw bad(`${name} is both set and inherited; choose one.`);
  }
  if (
    request.library_path.length > 0 &&
    [...explicit, ...request.inherit_environment].includes("LD_LIBRARY_PATH")
  ) {
    throw bad(
      "library_path sets LD_LIBRARY_PATH; leave it out of environment and inherit_environment.",
    );
  }
  for (const [i, dir] of request.library_path.entries()) {
    if (dir.includes(":")) {
      throw bad(`library_path[${i}] contains ":", which the loader reads as a separator.`);
    }
  }
  if (new Set(request.inherit_environment).size !== request.inherit_environment.length) {
    throw bad("inherit_environment names a variable twice.");
  }
  if (new Set(request.secret_aliases).size !== request.secret_aliases.length) {
    throw bad("secret_aliases names a variable twice.");
  }
  const names = request.checkpoints.map((c) => c.name);
  for (const name of names) {
    if (BUILT_IN_CHECKPOINTS.includes(name)) {
      throw bad(`checkpoint name ${name} is reserved for the capture's own checkpoints.`);
    }
  }
  if (new Set(names).size !== names.length) throw bad("checkpoint names must be unique.");
  const shimNames = request.command_shims.map((s) => s.name);
  if (new Set(shimNames).size !== shimNames.length) throw bad("shim names must be unique.");
  const { replay } = request;
  if (
    replay.machine !== null &&
    (replay.http.length > 0 || replay.websocket_messages.length > 0 ||
      replay.websocket_connections.length > 0)
  ) {
    throw bad("a replay machine cannot be combined with static http or websocket scripts.");
  }
  if (request.crash_backtrace && request.trace === "strace") {
    throw bad(
      "crash_backtrace runs the program under gdb, which cannot share it with strace; set trace to auto or none.",
    );
  }
  for (const pattern of request.normalization.patterns) checkPattern(pattern.pattern);
  // What this server does not run is refused, never ignored.
  if (request.command_shims.length > 0) unsupported("command shims");
  if (
    replay.machine !== null || replay.http.length > 0 || replay.websocket_messages.length > 0 ||
    replay.websocket_connections.length > 0
  ) {
    unsupported("replay peers");
  }
  if (request.reactive !== null) unsupported("reactive scenarios");
  if (request.events.some((e) => e.type === "resize")) {
    unsupported("resize events (the process runs on pipes, not a terminal)");
  }
}

// Normalisation patterns run on the linear-time RE2 engine (see compare.ts), so no pattern
// can backtrack catastrophically; one RE2 cannot run is refused before anything runs.
function checkPattern(pattern: string): void {
  try {
    compileLinearRegex(pattern);
  } catch (error) {
    if (!(error instanceof PatternError)) throw error;
    throw bad(`normalization pattern: ${error.message}`);
  }
}

function bad(message: string): ToolFailure {
  return new ToolFailure("invalid_request", `Invalid capture request: ${message}`, {
    action: "Correct the request; nothing was run.",
  });
}

function unsupported(what: string): never {
  throw new ToolFailure(
    "capability_unavailable",
    `This server does not support ${what} in process captures; nothing was run.`,
    { action: "Remove them from the request." },
  );
}
