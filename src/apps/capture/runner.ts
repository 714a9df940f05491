/**
 * Runs one approved capture plan and observes it.
 *
 * The program starts through a tiny `sh` wrapper that first joins the run's
 * pids cgroup (when there is one), then `exec`s `setsid` (a new session and
 * process group), optionally `prlimit --nproc`, `unshare -n` (a private
 * network namespace) and `strace -ff` or `gdb -batch`, and finally the
 * executable's pinned real path. The environment is built only from the
 * request's names plus HOME, TERM, PATH and the run token. stdin is scripted,
 * stdout and stderr are read through pipes with byte caps (and drained past
 * them), and the whole tree is ended and verified gone at the end.
 *
 * The program's rlimits (`resource_limits`, and RLIMIT_NPROC without a pids
 * cgroup) are set by one `prlimit` right after `setsid`, so they hold for the
 * whole tree; `library_path` reaches the program only (through `strace -E`,
 * gdb's `set environment` or `env`), never Deno's spawn.
 *
 * Requires `--allow-run` for the helpers (see `host.ts`), `--allow-write` and
 * `--allow-read` for the temporary directory (see `readiness.ts`), and read
 * access to the roots; `/proc` is read through `sh`.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { ToolFailure } from "../../core/errors.ts";
import type { DebuggerReport } from "./gdb.ts";
import { gdbArguments, parseGdbLog } from "./gdb.ts";
import type { HostFacts } from "./host.ts";
import type { CapturePlan } from "./plan.ts";
import { DEFAULT_PATH, recheckPlan } from "./plan.ts";
import { captureTempBase, tempDirFailure } from "./readiness.ts";
import type { CaptureEvent } from "./request.ts";
import { type Snapshot, takeSnapshot } from "./snapshot.ts";
import { parseTraces, straceArguments, type TraceSummary } from "./strace.ts";
import {
  alive,
  cgroupContainment,
  cleanUp,
  type CleanupReport,
  type Containment,
  readCommands,
  readStats,
  sessionContainment,
  shell,
  signalAll,
  sleep,
  ticksNow,
  within,
} from "./tree.ts";

/** The backends one run uses, decided before anything starts. */
export interface Backend {
  launcher: "sh+setsid";
  pty: "none";
  syscall_trace: "strace" | "none";
  debugger: "gdb" | "none";
  network: "namespace" | "host";
  containment: "pids-cgroup" | "session";
  process_limit: "pids-cgroup" | "rlimit-nproc" | "monitor";
  /** How resource_limits are applied: prlimit around the whole launched tree, or none asked. */
  resource_limits: "prlimit" | "none";
  /** Why syscall tracing is on or off. */
  trace_reason: string;
}

/** Chooses the backends for a plan; refuses what the request requires but the host lacks. */
export function chooseBackends(plan: CapturePlan, facts: HostFacts): Backend {
  const request = plan.request;
  const missing: string[] = [];
  if (!facts.helpers.sh.path || !facts.helpers.sh.granted) missing.push("sh (--allow-run=sh)");
  if (!facts.helpers.setsid.path || !facts.helpers.setsid.granted) {
    missing.push("setsid from util-linux (--allow-run=setsid)");
  }
  if (!facts.directKill && (!facts.helpers.kill.path || !facts.helpers.kill.granted)) {
    missing.push("kill (--allow-run=kill, or an unrestricted --allow-run)");
  }
  if (missing.length > 0) {
    throw new ToolFailure(
      "capability_unavailable",
      `Process capture cannot run here: it needs ${missing.join(", ")}. Nothing was run.`,
      { action: "Ask the operator to install or grant what is listed.", restartRequired: true },
    );
  }
  const strace = facts.helpers.strace;
  const straceUsable = strace.path !== null && strace.granted;
  let syscallTrace: Backend["syscall_trace"] = "none";
  let traceReason: string;
  if (request.crash_backtrace) {
    const gdb = facts.helpers.gdb;
    if (!gdb.path || !gdb.granted) {
      throw new ToolFailure(
        "capability_unavailable",
        `crash_backtrace needs gdb, which ${
          gdb.path ? "Deno does not grant (--allow-run=gdb)" : "is not installed"
        }. Nothing was run.`,
        { action: "Set crash_backtrace to false, or ask the operator to install and grant gdb." },
      );
    }
    traceReason = "off: the program runs under gdb, and one process cannot have two tracers";
  } else if (request.trace === "none") {
    traceReason = "off: the request turned it off";
  } else if (straceUsable) {
    syscallTrace = "strace";
    traceReason = "strace -ff followed every process of the run";
  } else if (request.trace === "strace") {
    throw new ToolFailure(
      "capability_unavailable",
      `trace "strace" was requested, but strace ${
        strace.path ? "is not granted (--allow-run=strace)" : "is not installed"
      }. Nothing was run.`,
      { action: 'Use trace "auto" or "none", or ask the operator to install and grant strace.' },
    );
  } else {
    traceReason = `off: strace ${
      strace.path ? "is not granted (--allow-run=strace)" : "is not installed"
    }`;
  }
  if (request.network_access === "none" && !facts.networkNamespace.available) {
    throw new ToolFailure(
      "capability_unavailable",
      `network_access "none" needs a private network namespace, which this host cannot make (${facts.networkNamespace.reason}). Nothing was run.`,
      {
        action:
          'Use network_access "host" if the operator policy allows it (--capture-allow-network), or run the server as root with unshare granted.',
      },
    );
  }
  const prlimit = facts.helpers.prlimit;
  const rlimits = requestedRlimits(plan);
  if (rlimits.length > 0 && (!prlimit.path || !prlimit.granted)) {
    throw new ToolFailure(
      "capability_unavailable",
      `resource_limits are applied with prlimit (util-linux), which ${
        prlimit.path ? "Deno does not grant (--allow-run=prlimit)" : "is not installed"
      }. Nothing was run.`,
      {
        action:
          "Leave resource_limits out, or ask the operator to install util-linux and restart the server with --allow-run=prlimit.",
        details: { flag: "--allow-run=prlimit" },
      },
    );
  }
  if (plan.libraryPath.length > 0 && !request.crash_backtrace && !facts.helpers.env.path) {
    throw new ToolFailure(
      "capability_unavailable",
      "library_path is set through env (coreutils), which is not installed. Nothing was run.",
      { action: "Leave library_path out, or ask the operator to install coreutils." },
    );
  }
  const containment = facts.pidsCgroup.parent ? "pids-cgroup" : "session";
  const processLimit = containment === "pids-cgroup"
    ? "pids-cgroup"
    : !facts.root && prlimit.path && prlimit.granted
    ? "rlimit-nproc"
    : "monitor";
  return {
    launcher: "sh+setsid",
    pty: "none",
    syscall_trace: syscallTrace,
    debugger: request.crash_backtrace ? "gdb" : "none",
    network: request.network_access === "none" ? "namespace" : "host",
    containment,
    process_limit: processLimit,
    resource_limits: rlimits.length > 0 ? "prlimit" : "none",
    trace_reason: traceReason,
  };
}

/** The rlimits a plan asks for, as `prlimit` options (`--as=N:N`, soft and hard alike). */
export function requestedRlimits(plan: CapturePlan): string[] {
  const limits = plan.request.resource_limits;
  const out: string[] = [];
  if (limits.address_space_bytes !== undefined) out.push(`--as=${limits.address_space_bytes}`);
  if (limits.cpu_seconds !== undefined) out.push(`--cpu=${limits.cpu_seconds}`);
  if (limits.file_size_bytes !== undefined) out.push(`--fsize=${limits.file_size_bytes}`);
  if (limits.open_files !== undefined) out.push(`--nofile=${limits.open_files}`);
  return out.map((option) => {
    const value = option.slice(option.indexOf("=") + 1);
    return `${option}:${value}`;
  });
}

/** What {@linkcode admitSample} needs to know about the run. */
export interface SampleScope {
  /** Whether the program runs under gdb. */
  debugged: boolean;
  /** The launcher's pid (the tracer or debugger once it has exec'd). */
  leader: number;
  /** The commands the program shows once started (its real and requested paths). */
  programCommands: readonly string[];
  /** Pids admitted so far as the program or its descendants (updated). */
  programPids: Set<number>;
}

/**
 * Whether a member of the run's containment is recorded as a process of the
 * run: `"program"` for the program itself under gdb, `true` for any other
 * admitted process, false for a placeholder (listed by the cgroup, gone
 * before its stat was read: pid known, nothing else) or, under gdb, for the
 * debugger's own helper processes, which are neither the program nor its
 * descendants.
 */
export function admitSample(
  member: { pid: number; ppid: number; state: string },
  command: string,
  scope: SampleScope,
): "program" | boolean {
  if (member.state === "?") return false;
  if (!scope.debugged) return true;
  const isProgram = member.ppid === scope.leader && scope.programCommands.includes(command);
  if (!isProgram && !scope.programPids.has(member.ppid) && !scope.programPids.has(member.pid)) {
    return false;
  }
  scope.programPids.add(member.pid);
  return isProgram ? "program" : true;
}

/** One chunk of output as read. */
export interface RawFrame {
  at_ms: number;
  stream: "stdout" | "stderr";
  data: string;
}

/** Byte accounting of one stream. */
export interface StreamStats {
  bytes: number;
  recorded_bytes: number;
  truncated: boolean;
  /**
   * SHA-256 of the recorded bytes as the program wrote them: frames hold their UTF-8
   * decoding, which turns bytes that are not UTF-8 into U+FFFD, so only this tells such
   * outputs apart.
   */
  sha256: string;
}

/** One dispatched (or attempted) interaction. */
export interface RawInteraction {
  scheduled_at_ms: number;
  dispatched_at_ms: number | null;
  type: "input" | "resize" | "stdin_close" | "signal";
  /** Input data (a byte-count placeholder when sensitive), the signal name, or null. */
  data: string | null;
  outcome: "dispatched" | "target_exited" | "failed";
}

/** One process first seen (or seen running a new command). */
export interface RawSample {
  at_ms: number;
  pid: number;
  parent_pid: number;
  command: string;
  process_group_id: number | null;
  session_id: number | null;
}

/** One filesystem checkpoint as taken. */
export interface RawCheckpoint {
  name: string;
  trigger: string;
  reached: boolean;
  at_ms: number;
  snapshot: Snapshot;
}

/** Everything one run observed, before redaction and normalisation. */
export interface RunObservation {
  startedAt: Date;
  completedAt: Date;
  /** Date.now() at the launch, the zero of every at_ms. */
  epochMs: number;
  backend: Backend;
  frames: RawFrame[];
  framesTruncated: boolean;
  streams: { stdout: StreamStats; stderr: StreamStats };
  interactions: RawInteraction[];
  exit: {
    code: number | null;
    signal: string | null;
    reason: "exited" | "timeout" | "idle_timeout" | "process_limit";
  };
  settlement:
    | { state: "quiesced"; elapsed_ms: number; cleanup_outcome: "not_required" }
    | {
      state: "alive_at_deadline" | "unverifiable";
      elapsed_ms: number;
      cleanup_outcome: "cleaned" | "failed";
    };
  samples: RawSample[];
  samplesTruncated: boolean;
  checkpoints: RawCheckpoint[];
  trace: TraceSummary | null;
  traceTruncated: boolean;
  debuggerReport: DebuggerReport | null;
  cleanup: CleanupReport;
  processLimit: { limit: number; reached: boolean; refused_forks: number | null };
  /** The run's own directory (excluded from snapshots, removed at the end). */
  tempRoot: string;
  /** Roots snapshotted (real paths). */
  snapshotRoots: string[];
  /** Inherited names the server's environment did not have. */
  unsetInherited: string[];
  notes: string[];
}

/** Options of {@linkcode runCapture}. */
export interface RunOptions {
  /** Aborts the run (cleanup still happens; then a `cancelled` failure is thrown). */
  signal?: AbortSignal;
  /** Progress messages. */
  onProgress?: (message: string) => void | Promise<void>;
  /** Time between SIGTERM and SIGKILL during cleanup. @default 1000 */
  graceMs?: number;
}

const SAMPLE_MS = 50;
// The launcher shell sets no variable of its own (an assignment would change a requested
// variable of the same name) and hands on PWD only when the request gives it: sh exports its
// own PWD otherwise, and rewrites a requested one to the real working directory.
const WRAPPER = [
  'if [ -n "$2" ]; then echo $$ > "$2" || exit 125; fi',
  'echo ready > "$1" || exit 125',
  'if [ "$3" = set ]; then PWD=$4; export PWD; else unset PWD; fi',
  "shift 4",
  'exec "$@"',
].join("\n");
/** SHA-256 of no bytes: a stream's digest before anything is read. */
const EMPTY_SHA256 = createHash("sha256").digest("hex");
/** Most bytes of strace output read back. */
const MAX_TRACE_BYTES = 64 * 1024 * 1024;
/** Extra cgroup tasks the tracer or debugger itself needs (gdb runs worker threads). */
const TRACER_TASKS = { strace: 2, gdb: 32, none: 0 };

/** Runs the plan with the chosen backends; cleans up whatever happens. */
export async function runCapture(
  plan: CapturePlan,
  backend: Backend,
  facts: HostFacts,
  options: RunOptions = {},
): Promise<RunObservation> {
  const request = plan.request;
  const notes: string[] = [];
  const tempRoot = await makeRunDirectory();
  let containment: Containment | null = null;
  let cleanupReport: CleanupReport | null = null;
  let child: Deno.ChildProcess | null = null;
  try {
    await Deno.mkdir(`${tempRoot}/home`).catch((error) => {
      throw tempDirFailure(error, captureTempBase()) ?? error;
    });
    const snapshotRoots = dedupeRoots([
      plan.workingDirectory.realPath,
      ...plan.filesystemRoots.map((r) => r.realPath),
    ]);
    const snapshotLimits = {
      files: request.limits.files,
      fileBytes: request.limits.file_bytes,
      depth: request.limits.filesystem_depth,
    };
    const snapshotQueue: { current: Promise<unknown> } = { current: Promise.resolve() };
    const snapshot = (): Promise<Snapshot> => {
      const next = snapshotQueue.current.then(() =>
        takeSnapshot(snapshotRoots, [tempRoot], snapshotLimits)
      );
      snapshotQueue.current = next.catch(() => {});
      return next;
    };
    await options.onProgress?.("taking the 'before' filesystem checkpoint");
    const before = await snapshot();

    const token = crypto.randomUUID();
    const { env, unsetInherited } = buildEnvironment(plan, tempRoot, token);
    const tracePrefix = `${tempRoot}/trace`;
    const gdbLog = `${tempRoot}/gdb.log`;
    const statusFile = `${tempRoot}/launch.status`;
    const tracerTasks = TRACER_TASKS[backend.debugger === "gdb" ? "gdb" : backend.syscall_trace];
    if (backend.containment === "pids-cgroup") {
      containment = await cgroupContainment(
        facts.pidsCgroup.parent!,
        request.limits.processes + tracerTasks,
      );
    }
    const chain: string[] = [facts.helpers.setsid.path!];
    const rlimits = requestedRlimits(plan);
    if (backend.process_limit === "rlimit-nproc") {
      const allowed = (await userTaskCount()) + request.limits.processes + tracerTasks;
      rlimits.unshift(`--nproc=${allowed}:${allowed}`);
    }
    // One prlimit sets every rlimit; the children of the tree inherit them across exec.
    if (rlimits.length > 0) chain.push(facts.helpers.prlimit.path!, ...rlimits, "--");
    if (backend.network === "namespace") chain.push(facts.helpers.unshare.path!, "-n", "--");
    // LD_LIBRARY_PATH reaches the program only (never the launcher, tracer or debugger), and
    // never through Deno's spawn, which refuses loader variables under a narrow --allow-run.
    const libraryPath = plan.libraryPath.map((p) => p.realPath).join(":");
    if (backend.syscall_trace === "strace") {
      chain.push(
        facts.helpers.strace.path!,
        ...straceArguments(tracePrefix),
        ...(libraryPath ? ["-E", `LD_LIBRARY_PATH=${libraryPath}`] : []),
        "--",
      );
    } else if (libraryPath && backend.debugger !== "gdb") {
      chain.push(facts.helpers.env.path!, `LD_LIBRARY_PATH=${libraryPath}`);
    }
    if (backend.debugger === "gdb") {
      chain.push(
        facts.helpers.gdb.path!,
        ...gdbArguments(gdbLog, {
          environment: libraryPath ? { LD_LIBRARY_PATH: libraryPath } : {},
          requested: env,
          envProgram: facts.helpers.env.path,
        }),
        "--args",
      );
    }
    chain.push(plan.executable.realPath, ...request.arguments);

    const runStartTicks = await ticksNow();
    // The last look before launch: a symlink swapped or a file replaced since planning stops here.
    await recheckPlan(plan);
    if (options.signal?.aborted) throw new ToolFailure("cancelled", "The capture was cancelled.");
    const startedAt = new Date();
    const epochMs = Date.now();
    const t0 = performance.now();
    let last = 0;
    const now = (): number => (last = Math.max(last, Math.round(performance.now() - t0)));

    child = new Deno.Command("sh", {
      args: [
        "-c",
        WRAPPER,
        "casefile-capture",
        statusFile,
        containment?.cgroupProcs ?? "",
        env.PWD === undefined ? "unset" : "set",
        env.PWD ?? "",
        ...chain,
      ],
      cwd: plan.workingDirectory.realPath,
      clearEnv: true,
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const leader = child.pid;
    if (!containment) containment = sessionContainment(leader, token, runStartTicks);
    const owned = containment;
    const wrapped = backend.syscall_trace === "strace" || backend.debugger === "gdb";
    await options.onProgress?.(`running ${plan.executable.realPath} (pid ${leader})`);

    // --- state shared by the watchers
    let leaderStatus: Deno.CommandStatus | null = null;
    const leaderDone = child.status.then((s) => (leaderStatus = s));
    let rootExitAt: number | null = null;
    let endReason: RunObservation["exit"]["reason"] = "exited";
    let killing: Promise<CleanupReport> | null = null;
    let lastOutputAt = 0;
    const directKill = facts.directKill;
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const kill = (reason: typeof endReason): void => {
      if (killing) return;
      if (rootExitAt === null) endReason = reason;
      killing = cleanUp(owned, { graceMs: options.graceMs ?? 1000, directKill });
      stop();
    };

    // --- output
    const frames: RawFrame[] = [];
    let framesTruncated = false;
    const streams = {
      stdout: { bytes: 0, recorded_bytes: 0, truncated: false, sha256: EMPTY_SHA256 },
      stderr: { bytes: 0, recorded_bytes: 0, truncated: false, sha256: EMPTY_SHA256 },
    };
    const literalWatchers = request.checkpoints
      .filter((c) => c.trigger.type === "terminal_literal")
      .map((c) => ({
        checkpoint: c,
        value: (c.trigger as { value: string }).value,
        wanted: (c.trigger as { occurrence: number }).occurrence,
        seen: 0,
        tail: "",
        fired: false,
      }));
    const checkpointTasks: Promise<RawCheckpoint>[] = [];
    const takeCheckpoint = (name: string, trigger: string, reached: boolean): void => {
      const at = now();
      checkpointTasks.push(
        snapshot().then((snap) => ({ name, trigger, reached, at_ms: at, snapshot: snap })),
      );
    };
    const readStream = async (
      stream: ReadableStream<Uint8Array>,
      name: "stdout" | "stderr",
    ): Promise<void> => {
      const stats = streams[name];
      const decoder = new TextDecoder();
      const hash = createHash("sha256");
      for await (const chunk of stream) {
        lastOutputAt = now();
        stats.bytes += chunk.length;
        const room = request.limits.output_bytes - stats.recorded_bytes;
        const kept = room >= chunk.length ? chunk : chunk.subarray(0, Math.max(0, room));
        if (kept.length < chunk.length) stats.truncated = true;
        if (kept.length === 0) continue; // drained past the cap
        stats.recorded_bytes += kept.length;
        hash.update(kept);
        const text = decoder.decode(kept, { stream: true });
        if (text === "") continue;
        if (frames.length < request.limits.frames) {
          frames.push({ at_ms: lastOutputAt, stream: name, data: text });
        } else framesTruncated = true;
        for (const watcher of literalWatchers) {
          if (watcher.fired) continue;
          const window = watcher.tail + text;
          let from = 0;
          for (;;) {
            const found = window.indexOf(watcher.value, from);
            if (found < 0) break;
            // Matches wholly inside the old tail were counted already.
            if (found + watcher.value.length > watcher.tail.length) watcher.seen++;
            from = found + 1;
          }
          watcher.tail = window.slice(-Math.max(0, watcher.value.length - 1));
          if (watcher.seen >= watcher.wanted) {
            watcher.fired = true;
            takeCheckpoint(watcher.checkpoint.name, "terminal_literal", true);
          }
        }
      }
      stats.sha256 = hash.digest("hex");
      const rest = decoder.decode();
      if (rest !== "" && frames.length < request.limits.frames) {
        frames.push({ at_ms: now(), stream: name, data: rest });
      }
    };
    const readers = Promise.all([
      readStream(child.stdout, "stdout"),
      readStream(child.stderr, "stderr"),
    ]);

    // --- scripted stdin and signals
    const interactions: RawInteraction[] = [];
    const writer = child.stdin.getWriter();
    let rootPid: number | null = wrapped ? null : leader;
    const rootGone = (): boolean => rootExitAt !== null;
    const script = (async () => {
      const events = request.events as CaptureEvent[];
      const lastInput = events.map((e) => e.type).lastIndexOf("input");
      const closeStdin = async (scheduled: number): Promise<void> => {
        const at = now();
        let outcome: RawInteraction["outcome"] = "dispatched";
        try {
          await writer.close();
        } catch {
          outcome = rootGone() ? "target_exited" : "failed";
        }
        interactions.push({
          scheduled_at_ms: scheduled,
          dispatched_at_ms: at,
          type: "stdin_close",
          data: null,
          outcome,
        });
      };
      if (lastInput < 0) await closeStdin(0);
      for (const [i, event] of events.entries()) {
        const wait = event.at_ms - (performance.now() - t0);
        if (wait > 0) await within(stopped, wait);
        if (killing || rootGone() || options.signal?.aborted) {
          interactions.push({
            scheduled_at_ms: event.at_ms,
            dispatched_at_ms: null,
            type: event.type,
            data: describeEvent(event),
            outcome: rootGone() ? "target_exited" : "failed",
          });
          continue;
        }
        const at = now();
        let outcome: RawInteraction["outcome"] = "dispatched";
        if (event.type === "input") {
          try {
            await writer.write(new TextEncoder().encode(event.data));
          } catch {
            outcome = rootGone() ? "target_exited" : "failed";
          }
        } else if (event.type === "signal") {
          const target = rootPid;
          if (target === null || rootGone()) outcome = "target_exited";
          else await signalAll([target], event.signal, directKill);
        } else outcome = "failed";
        interactions.push({
          scheduled_at_ms: event.at_ms,
          dispatched_at_ms: at,
          type: event.type,
          data: describeEvent(event),
          outcome,
        });
        if (i === lastInput) await closeStdin(event.at_ms);
      }
    })();

    // --- timers: wall clock, idle, time checkpoints
    const timers: ReturnType<typeof setTimeout>[] = [];
    timers.push(setTimeout(() => kill("timeout"), request.timeout_ms));
    const idleCheck = setInterval(() => {
      if (!rootGone() && now() - lastOutputAt >= request.idle_timeout_ms) kill("idle_timeout");
    }, Math.min(250, request.idle_timeout_ms));
    const timeCheckpoints = request.checkpoints.filter((c) => c.trigger.type === "time");
    const firedTime = new Set<string>();
    for (const checkpoint of timeCheckpoints) {
      const at = (checkpoint.trigger as { at_ms: number }).at_ms;
      timers.push(setTimeout(() => {
        if (rootGone() || killing) return;
        firedTime.add(checkpoint.name);
        takeCheckpoint(checkpoint.name, "time", true);
      }, at));
    }
    const onAbort = (): void => kill("timeout");
    options.signal?.addEventListener("abort", onAbort);

    // --- sampling: the process tree, the process limit, the root's exit
    const samples: RawSample[] = [];
    let samplesTruncated = false;
    const seenCommands = new Map<string, string>();
    const debugged = backend.debugger === "gdb";
    const programCommands = [plan.executable.realPath, request.executable];
    const programPids = new Set<number>();
    let limitReached = false;
    const sample = async (): Promise<void> => {
      const members = (await owned.snapshot()).filter(alive);
      const at = now();
      const unseen = members.filter((m) => !seenCommands.has(`${m.pid}:${m.startTicks}`));
      const commands = await readCommands(unseen.map((m) => m.pid));
      for (const member of members) {
        if (wrapped && member.pid === leader) continue;
        const key = `${member.pid}:${member.startTicks}`;
        // A process that exec'd keeps its pid: the comm change shows it.
        const known = seenCommands.get(key);
        const command = commands.get(member.pid) || (known ?? member.comm);
        const admitted = admitSample(member, command, {
          debugged,
          leader,
          programCommands,
          programPids,
        });
        if (!admitted) continue;
        if (debugged) {
          if (rootPid === null && admitted === "program") rootPid = member.pid;
        } else if (wrapped && rootPid === null && member.ppid === leader) rootPid = member.pid;
        if (known === command || (known !== undefined && !commands.has(member.pid))) continue;
        if (!seenCommands.has(key) && seenCommands.size >= request.limits.processes) {
          samplesTruncated = true;
          continue;
        }
        seenCommands.set(key, command);
        samples.push({
          at_ms: at,
          pid: member.pid,
          parent_pid: member.ppid,
          command,
          process_group_id: member.pgid,
          session_id: member.sid,
        });
      }
      const live = members.length - (wrapped ? 1 : 0);
      if (live > request.limits.processes) {
        limitReached = true;
        if (backend.process_limit !== "pids-cgroup") kill("process_limit");
      }
    };
    let sampling = true;
    let wakeSampler: () => void = () => {};
    const samplerStopped = new Promise<void>((resolve) => (wakeSampler = resolve));
    const sampler = (async () => {
      while (sampling) {
        await sample().catch(() => {});
        if (sampling) await within(samplerStopped, SAMPLE_MS);
      }
    })();

    // --- wait for the root to exit
    if (backend.syscall_trace === "strace") {
      while (rootExitAt === null) {
        if (leaderStatus !== null) break;
        const exit = await rootTraceExit(tempRoot);
        if (exit.pid !== null && rootPid === null) rootPid = exit.pid;
        if (exit.ended) break;
        await within(leaderDone, 20);
      }
    } else {
      await leaderDone;
    }
    rootExitAt = now();
    stop();
    clearInterval(idleCheck);
    for (const timer of timers) clearTimeout(timer);
    for (const checkpoint of request.checkpoints) {
      if (checkpoint.trigger.type === "root_exit") {
        takeCheckpoint(checkpoint.name, "root_exit", true);
      }
    }

    // --- settlement: descendants get settle_ms to end by themselves
    const settleStart = performance.now();
    let settlement: RunObservation["settlement"];
    let killReport: CleanupReport | null = null;
    const others = async (): Promise<number> =>
      (await owned.snapshot()).filter((m) => alive(m) && !(wrapped && m.pid === leader)).length;
    if (killing) {
      const report = killReport = await (killing as Promise<CleanupReport>);
      settlement = {
        state: "alive_at_deadline",
        elapsed_ms: Math.round(performance.now() - settleStart),
        cleanup_outcome: report.verified ? "cleaned" : "failed",
      };
    } else {
      // Two consecutive empty checks mean quiesced; the deadline is settle_ms.
      const interval = Math.max(10, Math.min(SAMPLE_MS, request.settle_ms / 2));
      let empty = 0;
      for (;;) {
        empty = (await others()) === 0 ? empty + 1 : 0;
        if (empty >= 2) break;
        const left = request.settle_ms - (performance.now() - settleStart);
        if (left <= 0 && empty === 0) break;
        await sleep(left > 0 ? Math.min(interval, left) : 10);
      }
      if (empty >= 2) {
        settlement = {
          state: "quiesced",
          elapsed_ms: Math.round(performance.now() - settleStart),
          cleanup_outcome: "not_required",
        };
      } else {
        kill(endReason);
        const report = killReport = await (killing as unknown as Promise<CleanupReport>);
        settlement = {
          state: "alive_at_deadline",
          elapsed_ms: Math.round(performance.now() - settleStart),
          cleanup_outcome: report.verified ? "cleaned" : "failed",
        };
      }
    }
    sampling = false;
    wakeSampler();
    await sampler;
    options.signal?.removeEventListener("abort", onAbort);
    for (const checkpoint of request.checkpoints) {
      if (checkpoint.trigger.type === "settled") takeCheckpoint(checkpoint.name, "settled", true);
    }
    for (const watcher of literalWatchers) {
      if (!watcher.fired) takeCheckpoint(watcher.checkpoint.name, "terminal_literal", false);
    }
    for (const checkpoint of timeCheckpoints) {
      if (!firedTime.has(checkpoint.name)) takeCheckpoint(checkpoint.name, "time", false);
    }

    // --- final cleanup: whatever is left (a tracer, a straggler) is ended and verified
    const wrapperEnded = (await within(leaderDone.then(() => true), 2000)) === true;
    if (!wrapperEnded) notes.push("The launcher had not exited 2 s after the run settled.");
    cleanupReport = mergeReports(
      killReport,
      await cleanUp(owned, { graceMs: options.graceMs ?? 1000, directKill }),
    );
    if (!cleanupReport.verified) {
      throw new ToolFailure(
        "cleanup_incomplete",
        `Processes of the capture survived cleanup: ${cleanupReport.residual.join(", ")}.`,
        { details: { residual: cleanupReport.residual } },
      );
    }
    await leaderDone;
    if (options.signal?.aborted) {
      throw new ToolFailure("cancelled", "The capture was cancelled; its processes were ended.");
    }
    try {
      await writer.close();
    } catch {
      // already closed
    }
    await within(readers, 2000);
    await script.catch(() => {});
    const checkpoints = [
      { name: "before", trigger: "before", reached: true, at_ms: 0, snapshot: before },
      ...(await Promise.all(checkpointTasks)),
    ];
    await options.onProgress?.("taking the 'after_settlement' filesystem checkpoint");
    const after = await snapshot();
    checkpoints.sort((a, b) => a.at_ms - b.at_ms);
    checkpoints.push({
      name: "after_settlement",
      trigger: "after_settlement",
      reached: true,
      at_ms: now(),
      snapshot: after,
    });

    // --- what the tracer or debugger saw
    let trace: TraceSummary | null = null;
    let traceTruncated = false;
    if (backend.syscall_trace === "strace") {
      const read = await readTraceFiles(tempRoot, MAX_TRACE_BYTES);
      traceTruncated = read.truncated;
      trace = parseTraces(read.texts, epochMs, {
        workingDirectory: plan.workingDirectory.realPath,
      });
    }
    let debuggerReport: DebuggerReport | null = null;
    if (backend.debugger === "gdb") {
      try {
        debuggerReport = parseGdbLog(await Deno.readTextFile(gdbLog));
      } catch {
        notes.push("gdb wrote no log: the backtrace is unavailable.");
      }
    }
    const launched = await exists(statusFile);
    if (!launched) {
      throw new ToolFailure(
        "process_capture_failed",
        "The capture launcher failed before starting the program (it could not join its process group or cgroup).",
        { action: "Check the server's permissions on /sys/fs/cgroup and retry." },
      );
    }
    const exit = exitOf(endReason, backend, leaderStatus!, trace, debuggerReport);
    const refusedForks = await owned.refusedForks();
    if (await identityChanged(plan)) {
      notes.push(
        `${plan.executable.realPath} changed on disk during the run; the bytes that ran may differ from the pinned digest.`,
      );
    }
    return {
      startedAt,
      completedAt: new Date(),
      epochMs,
      backend,
      frames,
      framesTruncated,
      streams,
      interactions,
      exit,
      settlement,
      samples,
      samplesTruncated,
      checkpoints,
      trace,
      traceTruncated,
      debuggerReport,
      cleanup: cleanupReport,
      processLimit: {
        limit: request.limits.processes,
        reached: limitReached || (refusedForks ?? 0) > 0,
        refused_forks: refusedForks,
      },
      tempRoot,
      snapshotRoots,
      unsetInherited,
      notes,
    };
  } finally {
    // Whatever failed above, nothing of the run survives it.
    if (containment && (!cleanupReport || !cleanupReport.verified)) {
      const report = await cleanUp(containment, {
        graceMs: options.graceMs ?? 1000,
        directKill: facts.directKill,
      });
      if (!report.verified) {
        await containment.dispose();
        await Deno.remove(tempRoot, { recursive: true }).catch(() => {});
        // deno-lint-ignore no-unsafe-finally -- a survivor must be reported above any other error
        throw new ToolFailure(
          "cleanup_incomplete",
          `Processes of the capture survived cleanup: ${report.residual.join(", ")}.`,
          {
            action: "End them by hand (kill -9) and check the host; no capture was recorded.",
            details: { residual: report.residual },
          },
        );
      }
    }
    if (child) {
      await child.status.catch(() => {});
      for (const stream of [child.stdout, child.stderr]) {
        await stream.cancel().catch(() => {});
      }
    }
    await containment?.dispose();
    await Deno.remove(tempRoot, { recursive: true }).catch(() => {});
  }
}

function mergeReports(first: CleanupReport | null, last: CleanupReport): CleanupReport {
  if (!first) return last;
  return {
    ...last,
    attempted: first.attempted || last.attempted,
    signals: [...first.signals, ...last.signals],
    elapsed_ms: first.elapsed_ms + last.elapsed_ms,
  };
}

function describeEvent(event: CaptureEvent): string | null {
  if (event.type === "input") {
    return event.sensitive
      ? `[sensitive input: ${new TextEncoder().encode(event.data).length} bytes]`
      : event.data;
  }
  if (event.type === "signal") return event.signal;
  return null;
}

/** The program's environment: only the request's names, plus HOME, TERM, PATH and the run token. */
function buildEnvironment(
  plan: CapturePlan,
  tempRoot: string,
  token: string,
): { env: Record<string, string>; unsetInherited: string[] } {
  const request = plan.request;
  const env: Record<string, string> = {};
  const unsetInherited: string[] = [];
  for (const name of request.inherit_environment) {
    const value = Deno.env.get(name);
    if (value === undefined) unsetInherited.push(name);
    else env[name] = value;
  }
  Object.assign(env, request.environment);
  env.PATH ??= DEFAULT_PATH;
  env.HOME = `${tempRoot}/home`;
  env.TERM = "dumb";
  env.REA_PROCESS_RUN_ID = token;
  return { env, unsetInherited };
}

function dedupeRoots(roots: string[]): string[] {
  const sorted = [...new Set(roots)].sort();
  return sorted.filter((root) =>
    !sorted.some((other) => other !== root && (other === "/" || root.startsWith(`${other}/`)))
  );
}

/** The root tracee's trace file (the first one strace opened) and whether it ended. */
async function rootTraceExit(tempRoot: string): Promise<{ pid: number | null; ended: boolean }> {
  let first: { pid: number; mtime: number } | null = null;
  for await (const entry of Deno.readDir(tempRoot)) {
    const found = /^trace\.(\d+)$/.exec(entry.name);
    if (!found) continue;
    const pid = Number(found[1]);
    const head = await readHead(`${tempRoot}/${entry.name}`, 64);
    const stamp = Number(/^(\d+\.\d+)/.exec(head)?.[1] ?? Infinity);
    if (!first || stamp < first.mtime) first = { pid, mtime: stamp };
  }
  if (!first) return { pid: null, ended: false };
  // strace buffers its files, so the process table says when the root is gone.
  const stat = (await readStats([first.pid]))[0];
  return { pid: first.pid, ended: stat === undefined || !alive(stat) };
}

async function readHead(path: string, bytes: number): Promise<string> {
  try {
    const file = await Deno.open(path);
    try {
      const buffer = new Uint8Array(bytes);
      const n = await file.read(buffer);
      return new TextDecoder().decode(buffer.subarray(0, n ?? 0));
    } finally {
      file.close();
    }
  } catch {
    return "";
  }
}

async function readTraceFiles(
  tempRoot: string,
  maxBytes: number,
): Promise<{ texts: Map<number, string>; truncated: boolean }> {
  const texts = new Map<number, string>();
  let total = 0;
  let truncated = false;
  const names: string[] = [];
  for await (const entry of Deno.readDir(tempRoot)) {
    if (/^trace\.\d+$/.test(entry.name)) names.push(entry.name);
  }
  names.sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)));
  for (const name of names) {
    const bytes = await Deno.readFile(`${tempRoot}/${name}`);
    if (total + bytes.length > maxBytes) {
      truncated = true;
      const room = maxBytes - total;
      if (room <= 0) continue;
      const text = new TextDecoder().decode(bytes.subarray(0, room));
      texts.set(Number(name.slice(6)), text.slice(0, text.lastIndexOf("\n") + 1));
      total = maxBytes;
      continue;
    }
    total += bytes.length;
    texts.set(Number(name.slice(6)), new TextDecoder().decode(bytes));
  }
  return { texts, truncated };
}

function exitOf(
  reason: RunObservation["exit"]["reason"],
  backend: Backend,
  leader: Deno.CommandStatus,
  trace: TraceSummary | null,
  report: DebuggerReport | null,
): RunObservation["exit"] {
  let code: number | null = leader.signal ? null : leader.code;
  let signal: string | null = leader.signal ?? null;
  if (backend.syscall_trace === "strace" && trace) {
    const root = trace.pids.length > 0 ? rootOfTrace(trace) : null;
    const ended = root === null ? undefined : trace.exits.find((e) => e.pid === root);
    if (ended) {
      code = ended.code;
      signal = ended.signal;
    }
  }
  if (backend.debugger === "gdb" && report) {
    if (report.stopSignal) {
      code = null;
      signal = report.stopSignal;
    } else if (report.terminatedBy) {
      code = null;
      signal = report.terminatedBy;
    } else if (report.exitCode !== null) {
      code = report.exitCode;
      signal = null;
    }
  }
  if (reason !== "exited") code = null;
  return { code, signal, reason };
}

/** The root tracee: the process whose first traced call came first. */
export function rootOfTrace(trace: TraceSummary): number | null {
  const firstExec = trace.executions[0];
  return firstExec ? firstExec.pid : trace.pids[0] ?? null;
}

async function identityChanged(plan: CapturePlan): Promise<boolean> {
  try {
    const info = await Deno.stat(plan.executable.realPath);
    return info.ino !== plan.executable.ino || info.size !== plan.executable.size ||
      (info.mtime?.getTime() ?? null) !== plan.executable.mtimeMs;
  } catch {
    return true;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes the run's own directory under the capture temp base and resolves it;
 * a failure (a missing write or read grant) leaves no directory behind and
 * names the flags.
 */
async function makeRunDirectory(): Promise<string> {
  const base = captureTempBase();
  let made: string;
  try {
    made = await Deno.makeTempDir({ dir: base, prefix: "casefile-capture-" });
  } catch (error) {
    throw tempDirFailure(error, base) ?? error;
  }
  try {
    return await Deno.realPath(made);
  } catch (error) {
    await Deno.remove(made, { recursive: true }).catch(() => {});
    throw tempDirFailure(error, base) ?? error;
  }
}

/** Tasks (threads included) of this user, for an RLIMIT_NPROC that leaves room for `limit` more. */
async function userTaskCount(): Promise<number> {
  const text = await shell(
    'u=$(id -u); grep -h "^Threads:" $(grep -l "^Uid:[[:space:]]*$u[[:space:]]" /proc/[0-9]*/status 2>/dev/null) 2>/dev/null',
  );
  return text.split("\n").reduce((sum, line) => sum + Number(/(\d+)/.exec(line)?.[1] ?? 0), 0);
}
