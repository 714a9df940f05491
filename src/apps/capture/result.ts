/**
 * The Process Capture v4 result (`normalized_result` of a capture Evidence
 * record): its strict schema, the builder that turns one run's observation
 * into it (secret values redacted everywhere, commitments computed), and
 * {@linkcode validateCapture}, the full v4 validation — shape and every
 * semantic invariant — that the `capture` completion family, the comparison
 * tools and reconstruction verification all use.
 *
 * Casefile reports its own backend values: `pty_backend` is `"pipes"` (no
 * terminal), and `manifest.backend` says which launcher, tracer, debugger,
 * network isolation and process-limit enforcement were used.
 *
 * @module
 */

import { z } from "zod";
import { canonicalJson, sha256Hex } from "../../core/canonical_json.ts";
import type { CapturePlan } from "./plan.ts";
import { captureRequestShape, type limitsSchema, normalizationSchema } from "./request.ts";
import { type RawFrame, requestedRlimits, type RunObservation } from "./runner.ts";
import { effectsBetween, type FileState } from "./snapshot.ts";
import type { TraceSummary } from "./strace.ts";

/** The Evidence predicate of a capture. */
export const CAPTURE_PREDICATE = "rea.process-capture/v4";
/** The provider of capture and comparison Evidence. */
export const PROCESS_PROVIDER = {
  id: "rea-process",
  name: "Casefile process capture",
  version: "3",
} as const;
/** The marker that replaces every environment value and every secret. */
export const REDACTED = "[redacted]";
/** The scenario fields two captures must share to be compared. */
export const CONTRACT_FIELDS = [
  "working_directory",
  "inherit_environment",
  "secret_aliases",
  "network_access",
  "filesystem_roots",
  "terminal",
  "checkpoints",
  "events",
  "timeout_ms",
  "idle_timeout_ms",
  "settle_ms",
  "limits",
  "resource_limits",
  "normalization",
  "command_shims",
  "replay",
  "reactive",
  "trace",
  "crash_backtrace",
] as const;
/** Signals that mean the program faulted. */
export const FAULT_SIGNALS = ["SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT", "SIGTRAP"];

const SHA = z.string().regex(/^[0-9a-f]{64}$/);
const int = z.number().int().min(0);
const iso = z.string().datetime({ offset: true });
const hexAddress = z.string().regex(/^0x[0-9a-f]+$/);

const fileState = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("file"),
    path: z.string(),
    mode: int,
    size: int,
    sha256: SHA.nullable(),
  }),
  z.strictObject({
    type: z.literal("symlink"),
    path: z.string(),
    mode: int,
    size: int,
    target: z.string(),
  }),
  z.strictObject({ type: z.literal("directory"), path: z.string(), mode: int, size: int }),
  z.strictObject({ type: z.literal("other"), path: z.string(), mode: int, size: int }),
]);
const fileEffect = z.strictObject({
  status: z.enum(["created", "deleted", "modified"]),
  path: z.string(),
  before: fileState.nullable(),
  after: fileState.nullable(),
});

/** The recorded scenario: the request with every environment value and secret redacted. */
export const recordedScenarioSchema = z.strictObject({
  ...captureRequestShape,
  unknown_registry_approved: z.boolean(),
  executable_sha256: SHA,
});

const backendSchema = z.strictObject({
  launcher: z.literal("sh+setsid"),
  pty: z.literal("none"),
  syscall_trace: z.enum(["strace", "none"]),
  trace_reason: z.string(),
  debugger: z.enum(["gdb", "none"]),
  network: z.enum(["namespace", "host"]),
  containment: z.enum(["pids-cgroup", "session"]),
  process_limit: z.strictObject({
    enforcement: z.enum(["pids-cgroup", "rlimit-nproc", "monitor"]),
    limit: z.number().int().min(1),
    reached: z.boolean(),
    refused_forks: int.nullable(),
  }),
  resource_limits: z.strictObject({
    enforcement: z.enum(["prlimit", "none"]),
    /** The `prlimit` options used (soft:hard), empty when none were asked. */
    applied: z.array(z.string()),
    scope: z.string(),
  }),
});

const manifestSchema = z.strictObject({
  casefile_version: z.string(),
  provider_version: z.literal("3"),
  platform: z.string(),
  architecture: z.string(),
  pty_backend: z.literal("pipes"),
  backend: backendSchema,
  started_at: iso,
  completed_at: iso,
  scenario: recordedScenarioSchema,
  comparison_contract: z.record(z.string(), z.unknown()),
  shim_plan: z.array(z.unknown()),
  replay_plan: z.record(z.string(), z.unknown()),
  executable_real_path: z.string(),
  environment_names: z.array(z.string()),
  full_scenario_sha256: SHA,
  comparison_contract_sha256: SHA,
  executable_sha256: SHA,
  normalization_sha256: SHA,
  shim_plan_sha256: SHA,
  replay_plan_sha256: SHA,
});

const streamStats = z.strictObject({
  bytes: int,
  recorded_bytes: int,
  truncated: z.boolean(),
  sha256: SHA.describe(
    "SHA-256 of the recorded bytes as written; frames decode them as UTF-8 (bytes that are not UTF-8 become U+FFFD), so this tells such outputs apart.",
  ),
});

const fileAccess = z.strictObject({
  at_ms: int,
  pid: int,
  operation: z.enum(["open", "create", "unlink", "rename", "mkdir"]),
  path: z.string(),
  to: z.string().nullable(),
  writes: z.boolean(),
  result: z.string(),
});

/** The strict shape of a capture (`normalized_result`). */
export const captureResultSchema = z.strictObject({
  schema_version: z.literal(4),
  manifest: manifestSchema,
  normalization: normalizationSchema,
  frames: z.array(z.strictObject({
    sequence: int,
    at_ms: int,
    stream: z.enum(["stdout", "stderr"]),
    data: z.string(),
  })),
  rendered_frames: z.array(z.strictObject({
    sequence: int,
    at_ms: int,
    columns: int,
    rows: int,
    cursor_x: int,
    cursor_y: int,
    active_buffer: z.enum(["normal", "alternate"]),
    lines: z.array(z.string()),
    serialized_state: z.string(),
  })),
  streams: z.strictObject({ stdout: streamStats, stderr: streamStats }),
  interaction_events: z.array(z.strictObject({
    sequence: int,
    scheduled_at_ms: int,
    dispatched_at_ms: int.nullable(),
    type: z.enum(["input", "resize", "stdin_close", "signal"]),
    data: z.string().nullable(),
    outcome: z.enum(["dispatched", "target_exited", "failed"]),
  })),
  exit: z.strictObject({
    code: z.number().int().nullable(),
    signal: z.string().nullable(),
    reason: z.enum(["exited", "timeout", "idle_timeout", "process_limit"]),
  }),
  settlement: z.union([
    z.strictObject({
      state: z.literal("quiesced"),
      elapsed_ms: int,
      cleanup_outcome: z.literal("not_required"),
    }),
    z.strictObject({
      state: z.enum(["alive_at_deadline", "unverifiable"]),
      elapsed_ms: int,
      cleanup_outcome: z.enum(["cleaned", "failed"]),
    }),
  ]),
  process_samples: z.array(z.strictObject({
    at_ms: int,
    pid: int,
    parent_pid: int,
    command: z.string(),
    process_group_id: int.nullable(),
    session_id: int.nullable(),
  })),
  filesystem_checkpoints: z.array(z.strictObject({
    name: z.string(),
    trigger: z.string(),
    reached: z.boolean(),
    at_ms: int,
    files: z.array(fileState),
    effects: z.array(fileEffect),
    truncated: z.boolean(),
  })),
  shim_events: z.array(z.strictObject({
    sequence: int,
    at_ms: int,
    command: z.string(),
    route_index: int.nullable(),
    arguments: z.array(z.string()),
    working_directory: z.string(),
    outcome: z.enum(["matched", "unmatched", "exhausted"]),
  })),
  protocol_events: z.array(z.strictObject({
    sequence: int,
    at_ms: int,
    protocol: z.enum(["http", "websocket"]),
    direction: z.enum(["request", "response", "received", "sent"]),
    method: z.string().nullable(),
    path: z.string().nullable(),
    data: z.string(),
    outcome: z.enum([
      "matched",
      "unmatched",
      "script_exhausted",
      "disconnected",
      "invalid_state",
      "guard_failed",
      "transition_exhausted",
      "invalid_capture",
      "unexpected_reconnect",
      "limit_exhausted",
    ]),
  })),
  replay_transitions: z.array(z.strictObject({
    sequence: int,
    at_ms: int,
    transition_id: z.string(),
    state_before: z.string(),
    state_after: z.string(),
    sensitive_aliases: z.array(z.string()),
  })),
  reactive_run: z.null(),
  event_journal: z.array(z.strictObject({
    capture_order: int,
    collection: z.string(),
    index: int,
  })),
  files_before: z.array(fileState),
  files_after: z.array(fileState),
  filesystem_effects: z.array(fileEffect),
  syscalls: z.strictObject({
    observed: z.boolean(),
    backend: z.enum(["strace", "none"]),
    reason: z.string(),
    files: z.array(fileAccess),
    executions: z.array(z.strictObject({
      at_ms: int,
      pid: int,
      path: z.string(),
      arguments: z.array(z.string()),
      result: z.string(),
    })),
    connections: z.array(z.strictObject({
      at_ms: int,
      pid: int,
      family: z.string(),
      address: z.string().nullable(),
      port: int.nullable(),
      result: z.string(),
    })),
    truncated: z.boolean(),
    unparsed_lines: int,
  }),
  crash: z.strictObject({
    signal: z.string(),
    source: z.enum(["gdb", "strace", "exit-status"]),
    fault_address: hexAddress.nullable(),
    pc: hexAddress.nullable(),
    frames: z.array(z.strictObject({
      index: int,
      pc: hexAddress,
      function: z.string().nullable(),
      source: z.string().nullable(),
      library: z.string().nullable(),
    })),
    mappings: z.array(z.strictObject({
      start: hexAddress,
      end: hexAddress,
      offset: hexAddress,
      permissions: z.string().nullable(),
      path: z.string().nullable(),
    })),
  }).nullable(),
  truncated: z.boolean(),
  limitations: z.array(z.string()),
  residual_unknowns: z.array(z.strictObject({
    scope: z.enum([
      "terminal",
      "interaction",
      "exit",
      "process",
      "filesystem",
      "protocol",
      "shim",
      "cleanup",
      "network",
    ]),
    reason: z.string(),
  })),
  cleanup: z.strictObject({
    owned_process_group: z.literal("verified"),
    temporary_root: z.literal("removed"),
    attempted: z.boolean(),
    verified: z.literal(true),
    residual: z.array(int).max(0),
    unreaped: int,
    method: z.enum(["pids-cgroup", "session"]),
    signals: z.array(z.strictObject({ signal: z.enum(["SIGTERM", "SIGKILL"]), processes: int })),
    elapsed_ms: int,
  }),
});

/** A validated capture. */
export type ProcessCapture = z.output<typeof captureResultSchema>;

/** Facts the builder needs besides the plan and the observation. */
export interface BuildContext {
  casefileVersion: string;
  platform: string;
  architecture: string;
}

/** SHA-256 of the RFC 8785 canonical JSON of `value`. */
export function commitment(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** A function replacing each value by its marker (longest values first). */
export function redactor(redactions: ReadonlyArray<[marker: string, value: string]>): (
  text: string,
) => string {
  const ordered = redactions.filter(([, v]) => v !== "").sort((a, b) => b[1].length - a[1].length);
  if (ordered.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const [marker, value] of ordered) out = out.split(value).join(marker);
    return out;
  };
}

/**
 * What is redacted from everything a capture records: each secret alias's
 * value (`[secret:NAME]`) and the data of each sensitive input, which the
 * program may echo (`[sensitive input]`).
 */
export function redactionsOf(plan: CapturePlan): Array<[string, string]> {
  const out: Array<[string, string]> = plan.request.secret_aliases.map((name) => [
    `[secret:${name}]`,
    plan.request.environment[name] ?? "",
  ]);
  for (const event of plan.request.events) {
    if (event.type !== "input" || !event.sensitive) continue;
    out.push(["[sensitive input]", event.data]);
    const trimmed = event.data.trim();
    if (trimmed !== event.data && trimmed.length >= 4) out.push(["[sensitive input]", trimmed]);
  }
  return out;
}

/** Builds the capture from one run; secrets are redacted from everything it records. */
export function buildCapture(
  plan: CapturePlan,
  run: RunObservation,
  context: BuildContext,
): ProcessCapture {
  const request = plan.request;
  const redact = redactor(redactionsOf(plan));
  const scenario = recordedScenario(plan, redact);
  const contract = contractOf(scenario);
  const frames = mergeAcrossSecrets(run.frames, redactionsOf(plan)).map((frame, sequence) => ({
    sequence,
    at_ms: frame.at_ms,
    stream: frame.stream,
    data: redact(frame.data),
  }));
  const checkpoints = run.checkpoints.map((checkpoint, i) => ({
    name: checkpoint.name,
    trigger: checkpoint.trigger,
    reached: checkpoint.reached,
    at_ms: checkpoint.at_ms,
    files: checkpoint.snapshot.files.map((f) => redactState(f, redact)),
    effects: i === 0 ? [] : effectsBetween(
      run.checkpoints[i - 1]!.snapshot.files.map((f) => redactState(f, redact)),
      checkpoint.snapshot.files.map((f) => redactState(f, redact)),
    ),
    truncated: checkpoint.snapshot.truncated,
  }));
  const first = checkpoints[0]!;
  const last = checkpoints.at(-1)!;
  const syscalls = syscallsOf(run, request.limits, redact);
  const crash = crashOf(run);
  const streamsTruncated = run.streams.stdout.truncated || run.streams.stderr.truncated;
  const truncated = streamsTruncated || run.framesTruncated || run.samplesTruncated ||
    checkpoints.some((c) => c.truncated) || syscalls.truncated;
  const capture: ProcessCapture = {
    schema_version: 4,
    manifest: {
      casefile_version: context.casefileVersion,
      provider_version: "3",
      platform: context.platform,
      architecture: context.architecture,
      pty_backend: "pipes",
      backend: {
        launcher: run.backend.launcher,
        pty: run.backend.pty,
        syscall_trace: run.backend.syscall_trace,
        trace_reason: run.backend.trace_reason,
        debugger: run.backend.debugger,
        network: run.backend.network,
        containment: run.backend.containment,
        process_limit: {
          enforcement: run.backend.process_limit,
          limit: run.processLimit.limit,
          reached: run.processLimit.reached,
          refused_forks: run.processLimit.refused_forks,
        },
        resource_limits: {
          enforcement: run.backend.resource_limits,
          applied: requestedRlimits(plan),
          scope: run.backend.resource_limits === "prlimit"
            ? "every process of the run, the tracer or debugger included (rlimits are inherited across fork and exec)"
            : "none asked",
        },
      },
      started_at: run.startedAt.toISOString(),
      completed_at: run.completedAt.toISOString(),
      scenario,
      comparison_contract: contract,
      shim_plan: scenario.command_shims,
      replay_plan: scenario.replay,
      executable_real_path: redact(plan.executable.realPath),
      environment_names: plan.environmentNames,
      full_scenario_sha256: commitment(scenario),
      comparison_contract_sha256: commitment(contract),
      executable_sha256: plan.executable.sha256,
      normalization_sha256: commitment(request.normalization),
      shim_plan_sha256: commitment(scenario.command_shims),
      replay_plan_sha256: commitment(scenario.replay),
    },
    normalization: request.normalization,
    frames,
    rendered_frames: [],
    streams: run.streams,
    interaction_events: run.interactions.map((event, sequence) => ({
      sequence,
      ...event,
      data: event.data === null ? null : redact(event.data),
    })),
    exit: run.exit,
    settlement: run.settlement,
    process_samples: run.samples.map((s) => ({ ...s, command: redact(s.command) })),
    filesystem_checkpoints: checkpoints,
    shim_events: [],
    protocol_events: [],
    replay_transitions: [],
    reactive_run: null,
    event_journal: [],
    files_before: first.files,
    files_after: last.files,
    filesystem_effects: effectsBetween(first.files, last.files),
    syscalls,
    crash,
    truncated,
    limitations: limitationsOf(plan, run, truncated),
    residual_unknowns: residualsOf(run, syscalls.observed, truncated),
    cleanup: {
      owned_process_group: "verified",
      temporary_root: "removed",
      attempted: run.cleanup.attempted,
      verified: true,
      residual: [],
      unreaped: run.cleanup.unreaped,
      method: run.cleanup.method,
      signals: run.cleanup.signals,
      elapsed_ms: run.cleanup.elapsed_ms,
    },
  };
  return capture;
}

function recordedScenario(
  plan: CapturePlan,
  redact: (text: string) => string,
): z.output<typeof recordedScenarioSchema> {
  const request = plan.request;
  return {
    ...request,
    arguments: request.arguments.map(redact),
    environment: Object.fromEntries(Object.keys(request.environment).map((k) => [k, REDACTED])),
    events: request.events.map((event) =>
      event.type === "input"
        ? {
          ...event,
          data: event.sensitive
            ? `[sensitive input: ${new TextEncoder().encode(event.data).length} bytes]`
            : redact(event.data),
        }
        : event
    ),
    unknown_registry_approved: request.unknown_registry_approved === true,
    executable_sha256: plan.executable.sha256,
  };
}

/** The comparison contract of a recorded scenario. */
export function contractOf(scenario: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(CONTRACT_FIELDS.map((field) => [field, scenario[field] ?? null]));
}

function redactState(state: FileState, redact: (text: string) => string): FileState {
  const path = redact(state.path);
  if (state.type === "symlink") return { ...state, path, target: redact(state.target) };
  return { ...state, path };
}

/** Merges frames of one stream whose boundary falls inside a secret, so redaction sees it whole. */
function mergeAcrossSecrets(
  frames: readonly RawFrame[],
  secrets: ReadonlyArray<[string, string]>,
): RawFrame[] {
  const values = secrets.map(([, v]) => v).filter((v) => v.length > 1);
  if (values.length === 0) return [...frames];
  const out: RawFrame[] = [];
  for (const stream of ["stdout", "stderr"] as const) {
    const own = frames.filter((f) => f.stream === stream);
    const text = own.map((f) => f.data).join("");
    const inside = new Uint8Array(text.length + 1); // 1 where a boundary would cut a secret
    for (const value of values) {
      for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
        for (let i = at + 1; i < at + value.length; i++) inside[i] = 1;
      }
    }
    let offset = 0;
    let pending = null as RawFrame | null;
    for (const frame of own) {
      pending = pending ? { ...pending, data: pending.data + frame.data } : { ...frame };
      offset += frame.data.length;
      if (!inside[offset]) {
        out.push(pending);
        pending = null;
      }
    }
    if (pending) out.push(pending);
  }
  return out.sort((a, b) => a.at_ms - b.at_ms);
}

function syscallsOf(
  run: RunObservation,
  limits: z.output<typeof limitsSchema>,
  redact: (text: string) => string,
): ProcessCapture["syscalls"] {
  const trace: TraceSummary | null = run.trace;
  if (!trace) {
    return {
      observed: false,
      backend: "none",
      reason: run.backend.trace_reason,
      files: [],
      executions: [],
      connections: [],
      truncated: false,
      unparsed_lines: 0,
    };
  }
  const files = trace.files.slice(0, limits.files).map((f) => ({
    ...f,
    path: redact(f.path),
    to: f.to === null ? null : redact(f.to),
  }));
  const executions = trace.executions.slice(0, limits.processes).map((e) => ({
    ...e,
    path: redact(e.path),
    arguments: e.arguments.map(redact),
  }));
  const connections = trace.connections.slice(0, limits.connections).map((c) => ({
    ...c,
    address: c.address === null ? null : redact(c.address),
  }));
  return {
    observed: true,
    backend: "strace",
    reason: run.backend.trace_reason,
    files,
    executions,
    connections,
    truncated: run.traceTruncated || files.length < trace.files.length ||
      executions.length < trace.executions.length ||
      connections.length < trace.connections.length,
    unparsed_lines: trace.unparsed,
  };
}

function crashOf(run: RunObservation): ProcessCapture["crash"] {
  const report = run.debuggerReport;
  if (report?.stopSignal) {
    return {
      signal: report.stopSignal,
      source: "gdb",
      fault_address: null,
      pc: report.pc ?? report.frames[0]?.pc.replace(/^0x0+(?=[0-9a-f])/, "0x") ?? null,
      frames: report.frames.slice(0, 64).map((f) => ({
        ...f,
        pc: f.pc.replace(/^0x0+(?=[0-9a-f])/, "0x"),
      })),
      mappings: report.mappings.slice(0, 512),
    };
  }
  const signal = run.exit.signal;
  if (signal === null || !FAULT_SIGNALS.includes(signal) || run.exit.reason !== "exited") {
    return null;
  }
  const faulted = run.trace?.signals.find((s) => s.signal === signal && s.fault_address !== null);
  return {
    signal,
    source: faulted ? "strace" : "exit-status",
    fault_address: faulted?.fault_address ?? null,
    pc: null,
    frames: [],
    mappings: [],
  };
}

function limitationsOf(plan: CapturePlan, run: RunObservation, truncated: boolean): string[] {
  const b = run.backend;
  const out = [
    "Process capture is not a sandbox: the program ran with this server's user and permissions.",
    "Output was read through pipes, not a terminal: no rendered frames, and programs that check for a terminal may behave differently.",
    `Process samples come from /proc every 50 ms; ${
      b.syscall_trace === "strace"
        ? "strace recorded every exec."
        : "shorter-lived processes may be missed."
    }`,
    `Syscall tracing: ${b.trace_reason}.`,
    b.network === "namespace"
      ? "The program ran in a private network namespace: no interface was up (not even loopback), so every connection attempt failed."
      : "The program used the host's network.",
    {
      "pids-cgroup":
        "Process count capped by a per-run pids cgroup (threads count as tasks there).",
      "rlimit-nproc":
        "Process count capped by RLIMIT_NPROC, which counts every process of this user.",
      "monitor":
        "Process count only monitored every 50 ms (no kernel cap was available): a fast fork bomb can pass the limit before the run is ended.",
    }[b.process_limit],
    run.backend.containment === "session"
      ? "Processes were tracked by session and run token; one that left the session and cleared its environment would escape tracking."
      : "Every process of the run stayed in its cgroup.",
  ];
  if (plan.request.terminal.columns !== 80 || plan.request.terminal.rows !== 24) {
    out.push("The terminal geometry was recorded but not applied (there is no terminal).");
  }
  if (b.debugger === "gdb") {
    out.push(
      "The program ran under gdb (address randomisation off); on a stop signal gdb recorded the backtrace and then killed it.",
    );
  }
  if (run.unsetInherited.length > 0) {
    out.push(
      `Inherited names not set in the server's environment: ${run.unsetInherited.join(", ")}.`,
    );
  }
  if (run.cleanup.unreaped > 0) {
    out.push(
      `${run.cleanup.unreaped} ended process(es) were left unreaped by their new parent (the host's init): they hold no resources.`,
    );
  }
  if (truncated) out.push("At least one bounded observation hit its limit (truncated is true).");
  out.push(...run.notes);
  return out;
}

function residualsOf(
  run: RunObservation,
  traced: boolean,
  truncated: boolean,
): ProcessCapture["residual_unknowns"] {
  const out: ProcessCapture["residual_unknowns"] = [];
  if (run.streams.stdout.truncated || run.streams.stderr.truncated || run.framesTruncated) {
    out.push({ scope: "terminal", reason: "output beyond the byte or frame cap was not kept" });
  }
  if (run.interactions.some((e) => e.outcome !== "dispatched")) {
    out.push({ scope: "interaction", reason: "some scripted events were not delivered" });
  }
  if (run.exit.reason !== "exited") {
    out.push({
      scope: "exit",
      reason: `the program was ended (${run.exit.reason}) before it exited by itself`,
    });
  }
  if (!traced) {
    out.push({ scope: "process", reason: "no syscall trace: short-lived processes may be missed" });
    out.push({
      scope: "filesystem",
      reason: "no syscall trace: changes outside the snapshotted roots were not observed",
    });
    out.push({
      scope: "network",
      reason: "no syscall trace: connection attempts were not observed",
    });
  }
  if (truncated && !out.some((u) => u.scope === "filesystem")) {
    if (run.checkpoints.some((c) => c.snapshot.truncated)) {
      out.push({ scope: "filesystem", reason: "a filesystem checkpoint hit its limits" });
    }
  }
  return out;
}

/** The outcome of {@linkcode validateCapture}. */
export type CaptureValidation =
  | { valid: true; capture: ProcessCapture }
  | { valid: false; reason: string };

/**
 * The full Process Capture v4 validation: the strict shape, then every
 * semantic invariant — commitments, ordering, journal, lifecycle, shims,
 * replay, truncation and cleanup. Pure: reads nothing but `value`.
 */
export function validateCapture(value: unknown): CaptureValidation {
  if (
    typeof value === "object" && value !== null &&
    (value as { schema_version?: unknown }).schema_version === 3
  ) {
    return {
      valid: false,
      reason: "a Process Capture v3 result cannot be upgraded to v4: recapture it",
    };
  }
  const parsed = captureResultSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      valid: false,
      reason: `not a v4 capture: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`,
    };
  }
  const capture = parsed.data;
  // Defaults must not have filled anything in: the commitments cover the record as stored.
  const rawScenario = (value as { manifest: { scenario: unknown } }).manifest.scenario;
  if (canonicalJson(rawScenario) !== canonicalJson(capture.manifest.scenario)) {
    return { valid: false, reason: "the recorded scenario is incomplete (defaults missing)" };
  }
  const problem = semanticProblem(capture);
  return problem ? { valid: false, reason: problem } : { valid: true, capture };
}

function semanticProblem(c: ProcessCapture): string | null {
  const m = c.manifest;
  // Commitments.
  if (commitment(m.scenario) !== m.full_scenario_sha256) return "full_scenario_sha256 mismatch";
  if (canonicalJson(contractOf(m.scenario)) !== canonicalJson(m.comparison_contract)) {
    return "the comparison contract is not the scenario's";
  }
  if (commitment(m.comparison_contract) !== m.comparison_contract_sha256) {
    return "comparison_contract_sha256 mismatch";
  }
  if (commitment(c.normalization) !== m.normalization_sha256) {
    return "normalization_sha256 mismatch";
  }
  if (canonicalJson(c.normalization) !== canonicalJson(m.scenario.normalization)) {
    return "normalization differs from the scenario's";
  }
  if (canonicalJson(m.shim_plan) !== canonicalJson(m.scenario.command_shims)) {
    return "shim_plan differs from the scenario's command_shims";
  }
  if (commitment(m.shim_plan) !== m.shim_plan_sha256) return "shim_plan_sha256 mismatch";
  if (canonicalJson(m.replay_plan) !== canonicalJson(m.scenario.replay)) {
    return "replay_plan differs from the scenario's replay";
  }
  if (commitment(m.replay_plan) !== m.replay_plan_sha256) return "replay_plan_sha256 mismatch";
  if (m.scenario.executable_sha256 !== m.executable_sha256) {
    return "the scenario's executable_sha256 differs from the manifest's";
  }
  if (Date.parse(m.started_at) > Date.parse(m.completed_at)) {
    return "started_at is after completed_at";
  }
  if (Object.values(m.scenario.environment).some((v) => v !== REDACTED)) {
    return "an environment value is recorded unredacted";
  }
  // Ordering.
  const sequences: Array<[string, { sequence: number }[]]> = [
    ["frames", c.frames],
    ["rendered_frames", c.rendered_frames],
    ["interaction_events", c.interaction_events],
    ["shim_events", c.shim_events],
    ["protocol_events", c.protocol_events],
    ["replay_transitions", c.replay_transitions],
  ];
  for (const [name, list] of sequences) {
    if (list.some((item, i) => item.sequence !== i)) {
      return `${name} sequences are not contiguous from 0`;
    }
  }
  const timed: Array<[string, { at_ms: number }[]]> = [
    ["frames", c.frames],
    ["rendered_frames", c.rendered_frames],
    ["process_samples", c.process_samples],
    ["filesystem_checkpoints", c.filesystem_checkpoints],
    ["shim_events", c.shim_events],
    ["protocol_events", c.protocol_events],
    ["replay_transitions", c.replay_transitions],
  ];
  for (const [name, list] of timed) {
    if (list.some((item, i) => i > 0 && item.at_ms < list[i - 1]!.at_ms)) {
      return `${name} at_ms decreases`;
    }
  }
  // Journal (optional; empty is the legacy case).
  if (c.event_journal.length > 0) {
    const sizes: Record<string, number> = {
      frames: c.frames.length,
      rendered_frames: c.rendered_frames.length,
      interaction_events: c.interaction_events.length,
      process_samples: c.process_samples.length,
      filesystem_checkpoints: c.filesystem_checkpoints.length,
      shim_events: c.shim_events.length,
      protocol_events: c.protocol_events.length,
      replay_transitions: c.replay_transitions.length,
      lifecycle: 2,
    };
    const seen = new Set<string>();
    for (const [i, entry] of c.event_journal.entries()) {
      if (entry.capture_order !== i) return "event_journal capture_order is not 0..n-1";
      const size = sizes[entry.collection];
      if (size === undefined || entry.index >= size) return "event_journal points outside";
      const key = `${entry.collection}:${entry.index}`;
      if (seen.has(key)) return "event_journal repeats a reference";
      seen.add(key);
    }
    const total = Object.values(sizes).reduce((a, b) => a + b, 0);
    if (seen.size !== total) return "event_journal does not cover every observation";
  }
  // Lifecycle.
  const names = c.filesystem_checkpoints.map((k) => k.name);
  if (new Set(names).size !== names.length) return "checkpoint names repeat";
  if (names[0] !== "before" || names.at(-1) !== "after_settlement") {
    return "checkpoints must start with before and end with after_settlement";
  }
  if (c.filesystem_checkpoints.some((k) => k.truncated) && !c.truncated) {
    return "a truncated checkpoint in a capture not marked truncated";
  }
  if (
    (c.streams.stdout.truncated || c.streams.stderr.truncated || c.syscalls.truncated) &&
    !c.truncated
  ) {
    return "a truncated observation in a capture not marked truncated";
  }
  if (c.exit.reason !== "exited" && c.exit.code !== null) {
    return "an exit that was not by the program itself has a code";
  }
  if (
    canonicalJson(c.files_before) !== canonicalJson(c.filesystem_checkpoints[0]!.files) ||
    canonicalJson(c.files_after) !== canonicalJson(c.filesystem_checkpoints.at(-1)!.files)
  ) {
    return "files_before / files_after differ from the first / last checkpoint";
  }
  // Shims.
  const shims = m.scenario.command_shims;
  const matched = new Map<string, number>();
  for (const event of c.shim_events) {
    if (event.outcome === "unmatched") {
      if (event.route_index !== null) return "an unmatched shim event names a route";
      continue;
    }
    const shim = shims.find((s) => s.name === event.command);
    const route = event.route_index === null ? undefined : shim?.routes[event.route_index];
    if (!route) return "a shim event matches no declared route";
    if (event.outcome === "matched") {
      const key = `${event.command}#${event.route_index}`;
      const count = (matched.get(key) ?? 0) + 1;
      if (count > route.max_calls) return "a shim route matched more than max_calls";
      matched.set(key, count);
    }
  }
  // Replay: this server runs no replay peers, so there is nothing to have matched.
  if (m.scenario.replay.machine !== null) return "replay machines are not supported";
  for (const event of c.protocol_events) {
    if (event.protocol === "http" && event.outcome === "matched") {
      const routes = m.scenario.replay.http;
      if (!routes.some((r) => r.method === event.method && r.path === event.path)) {
        return "a matched HTTP request has no declared route";
      }
    }
  }
  if (c.replay_transitions.length > 0) return "replay transitions without a replay machine";
  if (c.cleanup.residual.length > 0) return "cleanup left processes behind";
  return null;
}
