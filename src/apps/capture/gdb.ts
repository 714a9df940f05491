/**
 * The gdb backend for crash backtraces: the batch command line (gdb's own
 * output goes to a log file, so the program's stdout and stderr stay its
 * own; argument values are never printed), and a parser for that log: how
 * the program stopped or ended, the backtrace frames and the memory map.
 *
 * @module
 */

/** What the program gdb starts is given besides gdb's own defaults. */
export interface GdbLaunchOptions {
  /** Variables set for the program only (never for gdb itself). */
  environment?: Record<string, string>;
  /**
   * The program's requested environment: gdb adds LINES and COLUMNS and its startup shell
   * exports PWD, so each of those is set to the requested value or removed.
   */
  requested?: Record<string, string>;
  /** Absolute path of `env`, which removes or restores PWD after gdb's startup shell. */
  envProgram?: string | null;
}

/** gdb arguments placed before `--args <program> <arguments…>`. */
export function gdbArguments(logFile: string, options: GdbLaunchOptions = {}): string[] {
  const requested = options.requested ?? {};
  const own = ["LINES", "COLUMNS"].map((name) =>
    requested[name] === undefined
      ? `unset environment ${name}`
      : `set environment ${name}=${requested[name]}`
  );
  const pwd = requested.PWD;
  const wrapper = options.envProgram
    ? [
      `set exec-wrapper ${shellQuote(options.envProgram)} ${
        pwd === undefined ? "-u PWD" : shellQuote(`PWD=${pwd}`)
      }`,
    ]
    : [];
  const early = [
    `set logging file ${logFile}`,
    "set logging overwrite on",
    "set logging redirect on",
    "set logging debugredirect on",
    "set logging enabled on",
    "set debuginfod enabled off",
    "set pagination off",
    "set confirm off",
    "set print frame-arguments none",
    "set print frame-info location-and-address",
    "set print entry-values no",
    // Set for the program gdb starts, not for gdb itself.
    ...own,
    ...wrapper,
    ...Object.entries(options.environment ?? {}).map(([name, value]) =>
      `set environment ${name}=${value}`
    ),
  ];
  const commands = [
    "run",
    "bt 64",
    "info proc mappings",
    'printf "CASEFILE-PC %#lx\\n", $pc',
    "kill",
  ];
  return [
    "-nx",
    "-q",
    "-batch",
    ...early.flatMap((c) => ["-iex", c]),
    ...commands.flatMap((c) => ["-ex", c]),
  ];
}

/** One backtrace frame. */
export interface BacktraceFrame {
  index: number;
  /** Runtime program counter, `0x…`. */
  pc: string;
  /** The function gdb named, or null (`??`). */
  function: string | null;
  /** `file:line` when gdb had line information. */
  source: string | null;
  /** The library gdb named (`from …`), when it said. */
  library: string | null;
}

/** One line of `info proc mappings`. */
export interface MemoryMapping {
  start: string;
  end: string;
  /** File offset of `start`. */
  offset: string;
  permissions: string | null;
  /** The mapped file, or a pseudo name such as `[heap]`; null for anonymous memory. */
  path: string | null;
}

/** What the gdb log says. */
export interface DebuggerReport {
  /** The signal the program stopped on, or null when it ran to its end. */
  stopSignal: string | null;
  /** When it ended by itself: its exit code or the signal that terminated it. */
  exitCode: number | null;
  terminatedBy: string | null;
  /** The program's pid as gdb reported it. */
  pid: number | null;
  frames: BacktraceFrame[];
  mappings: MemoryMapping[];
  /** `$pc` at the stop. */
  pc: string | null;
}

const FRAME = /^#(\d+)\s+(0x[0-9a-f]+) in (\S+) \(.*?\)(?: at (.+:\d+)| from (.+))?$/;
const MAPPING =
  /^\s*(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+(0x[0-9a-f]+)\s+(?:([r-][w-][x-][ps-])\s+)?(.*)$/;

/** `text` as one single-quoted word of the shell gdb starts the program with. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Parses a gdb log written with {@linkcode gdbArguments}. */
export function parseGdbLog(text: string): DebuggerReport {
  const report: DebuggerReport = {
    stopSignal: null,
    exitCode: null,
    terminatedBy: null,
    pid: null,
    frames: [],
    mappings: [],
    pc: null,
  };
  for (const line of text.split("\n")) {
    let found = /^Program received signal (SIG[A-Z0-9]+)/.exec(line);
    if (found) {
      report.stopSignal = found[1]!;
      continue;
    }
    found = /^Program terminated with signal (SIG[A-Z0-9]+)/.exec(line);
    if (found) {
      report.terminatedBy = found[1]!;
      continue;
    }
    found = /^\[Inferior \d+ \(process (\d+)\) exited (normally|with code ([0-7]+))\]/.exec(line);
    if (found) {
      report.pid = Number(found[1]);
      // gdb prints the exit code in octal.
      report.exitCode = found[2] === "normally" ? 0 : parseInt(found[3]!, 8);
      continue;
    }
    found = /^process (\d+)$/.exec(line);
    if (found) {
      report.pid = Number(found[1]);
      continue;
    }
    found = /^CASEFILE-PC (0x[0-9a-f]+)$/.exec(line);
    if (found) {
      report.pc = found[1]!;
      continue;
    }
    found = FRAME.exec(line);
    if (found) {
      const index = Number(found[1]);
      // gdb prints the stop location once before the backtrace; keep frames once.
      if (report.frames.some((f) => f.index === index)) continue;
      report.frames.push({
        index,
        pc: found[2]!,
        function: found[3] === "??" ? null : found[3]!,
        source: found[4] ?? null,
        library: found[5] ?? null,
      });
      continue;
    }
    found = MAPPING.exec(line);
    if (found) {
      const path = found[5]!.trim();
      report.mappings.push({
        start: found[1]!,
        end: found[2]!,
        offset: found[3]!,
        permissions: found[4] ?? null,
        path: path === "" ? null : path,
      });
    }
  }
  return report;
}
