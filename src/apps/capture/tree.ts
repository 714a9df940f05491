/**
 * The process tree a capture owns, read from `/proc`, and its cleanup.
 *
 * Deno refuses `/proc` and `/sys` to anything short of `--allow-all`, so
 * they are read (and the cgroup written) through `sh` and `grep`, which the
 * capture runs anyway; every line is tagged with its file, so a process
 * cannot hide by putting a newline in its name.
 *
 * Membership is either a per-run pids cgroup (nothing escapes it, and the
 * kernel caps the process count) or the run's session: every process whose
 * session id is the launcher's, plus any process started after the run whose
 * environment carries the run's private token (which catches children that
 * called `setsid` while keeping their environment). Cleanup sends SIGTERM,
 * waits a grace period, then SIGSTOP and SIGKILL until nothing is left, and
 * verifies by reading `/proc` again. Zombies (ended, not yet reaped) hold no
 * resources and are counted apart.
 *
 * Requires `--allow-run=sh` (and `kill` unless `--allow-run` is unrestricted).
 *
 * @module
 */

import { HELPER_PATH } from "./host.ts";

/** One `/proc/<pid>/stat` line. */
export interface ProcStat {
  pid: number;
  /** `comm`, at most 15 bytes. */
  comm: string;
  state: string;
  ppid: number;
  pgid: number;
  sid: number;
  /** Start time in clock ticks after boot. */
  startTicks: number;
}

/** Parses `/proc/<pid>/stat` (the command may itself contain spaces and parentheses). */
export function parseStat(text: string): ProcStat | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text.slice(close + 2).trim().split(" ");
  // rest[0] is field 3 (state); starttime is field 22.
  const state = rest[0] ?? "";
  const ppid = Number(rest[1]);
  const pgid = Number(rest[2]);
  const sid = Number(rest[3]);
  const startTicks = Number(rest[19]);
  if (![pid, ppid, pgid, sid, startTicks].every(Number.isSafeInteger)) return null;
  return { pid, comm: text.slice(open + 1, close), state, ppid, pgid, sid, startTicks };
}

/** Runs a shell script (with positional arguments) and returns its stdout. */
export async function shell(script: string, args: readonly string[] = []): Promise<string> {
  const out = await new Deno.Command("sh", {
    args: ["-c", script, "casefile-proc", ...args],
    clearEnv: true,
    env: { PATH: HELPER_PATH, LC_ALL: "C" },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Groups `grep -H ""` output by pid: `/proc/<pid>/<file>:<line>` lines, rejoined. */
export function groupByPid(text: string, file: string): Map<number, string> {
  const out = new Map<number, string>();
  const prefix = new RegExp(`^/proc/(\\d+)/${file}:`);
  for (const line of text.split("\n")) {
    const found = prefix.exec(line);
    if (!found) continue;
    const pid = Number(found[1]);
    const rest = line.slice(found[0].length);
    out.set(pid, out.has(pid) ? `${out.get(pid)}\n${rest}` : rest);
  }
  return out;
}

const STATS_ALL = 'grep -a -H "" /proc/[0-9]*/stat 2>/dev/null';
const STATS_OF = 'for p in "$@"; do set -- "$@" "/proc/$p/stat"; shift; done; ' +
  'grep -a -H "" "$@" 2>/dev/null';

/** Stats of every process, or of `pids` only. */
export async function readStats(pids?: readonly number[]): Promise<ProcStat[]> {
  if (pids && pids.length === 0) return [];
  const text = pids ? await shell(STATS_OF, pids.map(String)) : await shell(STATS_ALL);
  const stats: ProcStat[] = [];
  for (const [pid, line] of groupByPid(text, "stat")) {
    const stat = parseStat(line);
    // An unparseable line (a hostile name) still names a live process.
    stats.push(
      stat ?? { pid, comm: "?", state: "?", ppid: 0, pgid: 0, sid: 0, startTicks: 0 },
    );
  }
  return stats;
}

/** argv[0] of each pid that still exists. */
export async function readCommands(pids: readonly number[]): Promise<Map<number, string>> {
  if (pids.length === 0) return new Map();
  const text = await shell(
    'for p in "$@"; do set -- "$@" "/proc/$p/cmdline"; shift; done; ' +
      'grep -a -H "" "$@" 2>/dev/null',
    pids.map(String),
  );
  const out = new Map<number, string>();
  for (const [pid, line] of groupByPid(text, "cmdline")) out.set(pid, line.split("\0")[0] ?? "");
  return out;
}

/** Clock ticks since boot now (USER_HZ is 100 on every Linux ABI Deno runs on). */
export async function ticksNow(): Promise<number> {
  const uptime = Number((await shell("cat /proc/uptime")).split(" ")[0]);
  return Number.isFinite(uptime) ? Math.floor(uptime * 100) : 0;
}

/** How membership is decided. */
export type ContainmentKind = "pids-cgroup" | "session";

/** The processes of one run. */
export interface Containment {
  readonly kind: ContainmentKind;
  /** The cgroup's `cgroup.procs` file, when a cgroup is used. */
  readonly cgroupProcs: string | null;
  /** Members right now, zombies included. */
  snapshot(): Promise<ProcStat[]>;
  /** Refused forks counted by the cgroup (`pids.events` max), or null. */
  refusedForks(): Promise<number | null>;
  /** Removes the cgroup (after cleanup). */
  dispose(): Promise<void>;
}

/** Whether a stat is a live process (not a zombie). */
export function alive(stat: ProcStat): boolean {
  return stat.state !== "Z" && stat.state !== "X";
}

/** Makes a pids cgroup under `parent` capped at `maxProcesses` (through sh: Deno refuses /sys). */
export async function cgroupContainment(
  parent: string,
  maxProcesses: number,
): Promise<Containment> {
  const dir = `${parent}/casefile-${crypto.randomUUID()}`;
  const made = await shell(
    'mkdir "$1" && echo "$2" > "$1/pids.max" && echo ok || rmdir "$1" 2>/dev/null',
    [dir, String(maxProcesses)],
  );
  if (made.trim() !== "ok") throw new Error(`cannot create the pids cgroup ${dir}`);
  const procs = `${dir}/cgroup.procs`;
  return {
    kind: "pids-cgroup",
    cgroupProcs: procs,
    snapshot: async () => {
      const pids = (await shell('cat "$1" 2>/dev/null', [procs])).split("\n")
        .filter((l) => /^\d+$/.test(l)).map(Number);
      const stats = await readStats(pids);
      const seen = new Set(stats.map((s) => s.pid));
      // Listed in the cgroup but unreadable: count it as alive.
      for (const pid of pids) {
        if (!seen.has(pid)) {
          stats.push({ pid, comm: "?", state: "?", ppid: 0, pgid: 0, sid: 0, startTicks: 0 });
        }
      }
      return stats;
    },
    refusedForks: async () => {
      const events = await shell('cat "$1" 2>/dev/null', [`${dir}/pids.events`]);
      const found = /^max\s+(\d+)/m.exec(events);
      return found ? Number(found[1]) : null;
    },
    dispose: async () => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const gone = await shell('rmdir "$1" 2>/dev/null; [ -d "$1" ] || echo gone', [dir]);
        if (gone.trim() === "gone") return;
        await sleep(20);
      }
    },
  };
}

/**
 * Membership by session: the launcher becomes a session leader (`setsid`), so
 * its session id is its pid; processes that leave the session are still
 * recognised by the run token in their environment.
 */
export function sessionContainment(
  leader: number,
  token: string,
  runStartTicks: number,
): Containment {
  const known = new Map<number, number>(); // pid → start ticks
  const strangers = new Set<string>(); // `${pid}:${ticks}` checked and not ours
  const needle = `REA_PROCESS_RUN_ID=${token}`;
  return {
    kind: "session",
    cgroupProcs: null,
    snapshot: async () => {
      const found: ProcStat[] = [];
      const candidates: ProcStat[] = [];
      for (const stat of await readStats()) {
        if (stat.sid === leader || known.get(stat.pid) === stat.startTicks) {
          known.set(stat.pid, stat.startTicks);
          found.push(stat);
        } else if (
          stat.startTicks >= runStartTicks && !strangers.has(`${stat.pid}:${stat.startTicks}`)
        ) candidates.push(stat);
      }
      if (candidates.length > 0) {
        const text = await shell(
          'n=$1; shift; for p in "$@"; do set -- "$@" "/proc/$p/environ"; shift; done; ' +
            'grep -a -l -F -e "$n" "$@" 2>/dev/null',
          [needle, ...candidates.map((c) => String(c.pid))],
        );
        const ours = new Set(
          text.split("\n").map((l) => /^\/proc\/(\d+)\/environ$/.exec(l)?.[1]).filter(Boolean).map(
            Number,
          ),
        );
        for (const stat of candidates) {
          if (ours.has(stat.pid)) {
            known.set(stat.pid, stat.startTicks);
            found.push(stat);
          } else strangers.add(`${stat.pid}:${stat.startTicks}`);
        }
      }
      return found;
    },
    refusedForks: () => Promise.resolve(null),
    dispose: () => Promise.resolve(),
  };
}

/** Sends `signal` to each pid (gone ones are ignored). */
export async function signalAll(
  pids: readonly number[],
  signal: "SIGTERM" | "SIGKILL" | "SIGINT" | "SIGSTOP",
  directKill: boolean,
): Promise<void> {
  if (pids.length === 0) return;
  if (directKill) {
    for (const pid of pids) {
      try {
        Deno.kill(pid, signal);
      } catch {
        // already gone
      }
    }
    return;
  }
  // Without an unrestricted --allow-run, Deno.kill is refused: the kill program does it.
  for (let i = 0; i < pids.length; i += 500) {
    await new Deno.Command("kill", {
      args: ["-s", signal.slice(3), "--", ...pids.slice(i, i + 500).map(String)],
      clearEnv: true,
      env: { PATH: HELPER_PATH },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
  }
}

/** What cleanup did, for the result. */
export interface CleanupReport {
  /** Whether any process was still there to end. */
  attempted: boolean;
  /** Whether /proc showed no live member afterwards. */
  verified: boolean;
  /** Pids still alive after the last attempt (empty when verified). */
  residual: number[];
  /** Members ended but not reaped (their parent, often init, has not waited for them). */
  unreaped: number;
  method: ContainmentKind;
  /** Signals sent, in order, with how many processes each reached. */
  signals: { signal: "SIGTERM" | "SIGKILL"; processes: number }[];
  elapsed_ms: number;
}

/** Options of {@linkcode cleanUp}. */
export interface CleanupOptions {
  /** Time between SIGTERM and SIGKILL. @default 1000 */
  graceMs?: number;
  /** Total time allowed. @default 10000 */
  deadlineMs?: number;
  /** Whether Deno.kill may be used. */
  directKill: boolean;
}

/** Ends every member: SIGTERM, grace, then SIGSTOP + SIGKILL until none is left or the deadline passes. */
export async function cleanUp(
  containment: Containment,
  options: CleanupOptions,
): Promise<CleanupReport> {
  const started = performance.now();
  const grace = options.graceMs ?? 1000;
  const deadline = started + (options.deadlineMs ?? 10_000);
  const signals: CleanupReport["signals"] = [];
  const live = async (): Promise<ProcStat[]> => (await containment.snapshot()).filter(alive);
  let current = await live();
  const attempted = current.length > 0;
  if (attempted) {
    await signalAll(current.map((s) => s.pid), "SIGTERM", options.directKill);
    signals.push({ signal: "SIGTERM", processes: current.length });
    const termEnd = performance.now() + grace;
    while (performance.now() < termEnd) {
      await sleep(20);
      current = await live();
      if (current.length === 0) break;
    }
    while (current.length > 0 && performance.now() < deadline) {
      // Stop first, so nothing forks between the listing and the kill (a fork bomb).
      await signalAll(current.map((s) => s.pid), "SIGSTOP", options.directKill);
      current = await live();
      await signalAll(current.map((s) => s.pid), "SIGKILL", options.directKill);
      const last = signals.at(-1);
      if (last?.signal === "SIGKILL") last.processes += current.length;
      else signals.push({ signal: "SIGKILL", processes: current.length });
      await sleep(20);
      current = await live();
    }
  }
  // Two consecutive empty readings, so a fork in flight is not missed.
  let final = await containment.snapshot();
  if (final.filter(alive).length === 0) {
    await sleep(10);
    final = await containment.snapshot();
  }
  const residual = final.filter(alive).map((s) => s.pid).sort((a, b) => a - b);
  return {
    attempted,
    verified: residual.length === 0,
    residual,
    unreaped: final.filter((s) => !alive(s)).length,
    method: containment.kind,
    signals,
    elapsed_ms: Math.round(performance.now() - started),
  };
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits for `promise` or `ms`, whichever comes first; the timer never outlives the wait. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
