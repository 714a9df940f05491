/**
 * The strace backend: the command line, and a parser for the per-process
 * trace files `strace -ff -q -ttt -y -s 4096 -o <prefix>` writes. It yields the
 * files opened (and which of them for writing), files removed and renamed,
 * programs executed, connection attempts (family, address, port, result),
 * and how each traced process ended.
 *
 * @module
 */

import { posix } from "node:path";

/** The syscalls traced. */
export const TRACED_SYSCALLS = [
  "execve",
  "execveat",
  "open",
  "openat",
  "creat",
  "unlink",
  "unlinkat",
  "rename",
  "renameat",
  "renameat2",
  "mkdir",
  "mkdirat",
  "chdir",
  "fchdir",
  "connect",
];

/** strace arguments placed before `--` and the program. */
export function straceArguments(prefix: string): string[] {
  return [
    "-ff",
    "-q",
    "-ttt",
    "-y",
    "-s",
    "4096",
    "-e",
    `trace=${TRACED_SYSCALLS.join(",")}`,
    "-o",
    prefix,
  ];
}

/** One file access. */
export interface FileAccess {
  at_ms: number;
  pid: number;
  operation: "open" | "create" | "unlink" | "rename" | "mkdir";
  path: string;
  /** For renames: the new name. */
  to: string | null;
  /** Opened for writing (or created, removed, renamed). */
  writes: boolean;
  /** `ok`, or the errno name. */
  result: string;
}

/** One execve. */
export interface ExecAttempt {
  at_ms: number;
  pid: number;
  path: string;
  arguments: string[];
  result: string;
}

/** One connect(). */
export interface ConnectAttempt {
  at_ms: number;
  pid: number;
  family: string;
  address: string | null;
  port: number | null;
  result: string;
}

/** How a traced process ended. */
export interface TracedExit {
  pid: number;
  at_ms: number;
  code: number | null;
  signal: string | null;
}

/** A signal a traced process received (with its fault address when the kernel gives one). */
export interface TracedSignal {
  pid: number;
  at_ms: number;
  signal: string;
  code: string | null;
  fault_address: string | null;
}

/** Everything parsed from one run's trace files. */
export interface TraceSummary {
  files: FileAccess[];
  executions: ExecAttempt[];
  connections: ConnectAttempt[];
  exits: TracedExit[];
  signals: TracedSignal[];
  /** Pids that have a trace file. */
  pids: number[];
  /** Lines not understood (counted, not kept). */
  unparsed: number;
}

/** Options of {@linkcode parseTraces}. */
export interface ParseTraceOptions {
  /**
   * The directory the run started in: relative paths of calls without a directory fd
   * (unlink, rename, mkdir, open, creat) are resolved against each process's working
   * directory, followed through chdir and fchdir. Left relative when it cannot be known.
   */
  workingDirectory?: string;
}

const CHANGES_DIRECTORY = /^\d+\.\d{6} f?chdir\(/m;

const LINE = /^(\d+)\.(\d{6}) (.*)$/;
const CALL = /^([a-z0-9_]+)\((.*)\) += (.*)$/s;

/**
 * Parses trace files: `texts` maps pid → the contents of `<prefix>.<pid>`.
 * Times are milliseconds after `startedAtEpochMs`.
 */
export function parseTraces(
  texts: Map<number, string>,
  startedAtEpochMs: number,
  options: ParseTraceOptions = {},
): TraceSummary {
  const summary: TraceSummary = {
    files: [],
    executions: [],
    connections: [],
    exits: [],
    signals: [],
    pids: [...texts.keys()].sort((a, b) => a - b),
    unparsed: 0,
  };
  // A process starts in the run's directory unless another process (an ancestor, perhaps)
  // changed directory: which one is not known, so then its start is unknown.
  const changers = [...texts].filter(([, text]) => CHANGES_DIRECTORY.test(text)).map(([p]) => p);
  for (const [pid, text] of texts) {
    let cwd: string | null = changers.some((p) => p !== pid)
      ? null
      : options.workingDirectory ?? null;
    for (const raw of text.split("\n")) {
      if (raw === "") continue;
      const line = LINE.exec(raw);
      if (!line) {
        summary.unparsed++;
        continue;
      }
      const epochMs = Number(line[1]) * 1000 + Number(line[2]) / 1000;
      const atMs = Math.max(0, Math.round(epochMs - startedAtEpochMs));
      const body = line[3]!;
      if (body.startsWith("+++ ")) {
        const exited = /^\+\+\+ exited with (\d+) \+\+\+$/.exec(body);
        const killed = /^\+\+\+ killed by (SIG[A-Z0-9]+)/.exec(body);
        if (exited) summary.exits.push({ pid, at_ms: atMs, code: Number(exited[1]), signal: null });
        else if (killed) summary.exits.push({ pid, at_ms: atMs, code: null, signal: killed[1]! });
        else summary.unparsed++;
        continue;
      }
      if (body.startsWith("--- ")) {
        const found = /^--- (SIG[A-Z0-9]+) \{(.*)\} ---$/.exec(body);
        if (!found) {
          summary.unparsed++;
          continue;
        }
        const fields = found[2]!;
        const code = /si_code=([A-Z_0-9]+)/.exec(fields)?.[1] ?? null;
        const address = /si_addr=(NULL|0x[0-9a-f]+)/.exec(fields)?.[1] ?? null;
        summary.signals.push({
          pid,
          at_ms: atMs,
          signal: found[1]!,
          code,
          fault_address: address === "NULL" ? "0x0" : address,
        });
        continue;
      }
      const call = CALL.exec(body);
      if (!call) {
        summary.unparsed++;
        continue;
      }
      const name = call[1]!;
      if (name === "chdir" || name === "fchdir") {
        cwd = changedDirectory(cwd, call[2]!, call[3]!, name === "fchdir");
        continue;
      }
      parseCall(summary, { pid, atMs, name, args: call[2]!, returned: call[3]!, cwd });
    }
  }
  const byTime = <T extends { at_ms: number; pid: number }>(list: T[]) =>
    list.sort((a, b) => a.at_ms - b.at_ms || a.pid - b.pid);
  byTime(summary.files);
  byTime(summary.executions);
  byTime(summary.connections);
  byTime(summary.exits);
  byTime(summary.signals);
  return summary;
}

/** The working directory after a chdir or fchdir; null when it is not known. */
function changedDirectory(
  cwd: string | null,
  args: string,
  returned: string,
  byDescriptor: boolean,
): string | null {
  if (resultOf(returned) !== "ok") return cwd;
  const argument = splitArguments(args)[0] ?? "";
  if (byDescriptor) {
    const found = /<(.*)>$/s.exec(argument)?.[1];
    return found === undefined ? null : decodeDecoration(found);
  }
  const path = cString(argument);
  if (path === null) return null;
  if (path.startsWith("/")) return posix.normalize(path);
  return cwd === null ? null : againstDirectory(cwd, path);
}

/** `path` resolved against directory `cwd` (lexically; an absolute path stays as it is). */
function againstDirectory(cwd: string, path: string): string {
  return path.startsWith("/") ? path : posix.join(cwd, path);
}

/** One traced call, with its process's working directory (null when not known). */
interface TracedCall {
  pid: number;
  atMs: number;
  name: string;
  args: string;
  returned: string;
  cwd: string | null;
}

/**
 * Records one call in `summary`. File paths are recorded resolved: against the `-y`
 * decoration of the directory fd for the *at calls, against the working directory for
 * open, creat, unlink, rename and mkdir (left relative when neither is known).
 */
function parseCall(summary: TraceSummary, traced: TracedCall): void {
  const { pid, atMs, name, args, returned, cwd } = traced;
  const result = resultOf(returned);
  const parts = splitArguments(args);
  const str = (i: number): string | null => cString(parts[i] ?? "");
  const decorated = /^\d+<(.*)>$/s.exec(returned)?.[1];
  const decoratedReturn = decorated === undefined ? null : decodeDecoration(decorated);
  switch (name) {
    case "execve":
    case "execveat": {
      const pathIndex = name === "execve" ? 0 : 1;
      const path = str(pathIndex);
      if (path === null) break;
      summary.executions.push({
        at_ms: atMs,
        pid,
        path: resolvePath(path, name === "execveat" ? { fd: parts[pathIndex - 1] } : {}),
        arguments: arrayOfStrings(parts[pathIndex + 1] ?? ""),
        result,
      });
      return;
    }
    case "open":
    case "openat":
    case "creat": {
      const at = name === "openat";
      const path = str(at ? 1 : 0);
      if (path === null) break;
      const flags = name === "creat" ? "O_WRONLY|O_CREAT|O_TRUNC" : parts[at ? 2 : 1] ?? "";
      const writes = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/.test(flags);
      summary.files.push({
        at_ms: atMs,
        pid,
        operation: /O_CREAT/.test(flags) ? "create" : "open",
        path: decoratedReturn ?? resolvePath(path, at ? { fd: parts[0] } : { cwd }),
        to: null,
        writes,
        result,
      });
      return;
    }
    case "unlink":
    case "unlinkat":
    case "mkdir":
    case "mkdirat": {
      const at = name.endsWith("at");
      const path = str(at ? 1 : 0);
      if (path === null) break;
      summary.files.push({
        at_ms: atMs,
        pid,
        operation: name.startsWith("unlink") ? "unlink" : "mkdir",
        path: resolvePath(path, at ? { fd: parts[0] } : { cwd }),
        to: null,
        writes: true,
        result,
      });
      return;
    }
    case "rename":
    case "renameat":
    case "renameat2": {
      const at = name !== "rename";
      const from = str(at ? 1 : 0);
      const to = str(at ? 3 : 1);
      if (from === null || to === null) break;
      summary.files.push({
        at_ms: atMs,
        pid,
        operation: "rename",
        path: resolvePath(from, at ? { fd: parts[0] } : { cwd }),
        to: resolvePath(to, at ? { fd: parts[2] } : { cwd }),
        writes: true,
        result,
      });
      return;
    }
    case "connect": {
      const address = parts[1] ?? "";
      const family = /sa_family=([A-Z0-9_]+)/.exec(address)?.[1] ?? "unknown";
      let host: string | null = null;
      let port: number | null = null;
      if (family === "AF_INET") {
        host = /inet_addr\("([^"]*)"\)/.exec(address)?.[1] ?? null;
        port = numberOr(/sin_port=htons\((\d+)\)/.exec(address)?.[1]);
      } else if (family === "AF_INET6") {
        host = /inet_pton\(AF_INET6, "([^"]*)"/.exec(address)?.[1] ?? null;
        port = numberOr(/sin6_port=htons\((\d+)\)/.exec(address)?.[1]);
      } else if (family === "AF_UNIX") {
        const path = /sun_path=(@?"(?:[^"\\]|\\.)*")/.exec(address)?.[1] ?? null;
        host = path === null ? null : (path.startsWith("@") ? "@" : "") +
          (cString(path.replace(/^@/, "")) ?? "");
      }
      summary.connections.push({ at_ms: atMs, pid, family, address: host, port, result });
      return;
    }
  }
  summary.unparsed++;
}

function numberOr(text: string | undefined): number | null {
  return text === undefined ? null : Number(text);
}

/** `0`, `3</path>` → ok; `-1 ENOENT (No such file)` → ENOENT; `?` → unknown. */
function resultOf(returned: string): string {
  const error = /^-1 ([A-Z0-9]+)/.exec(returned);
  if (error) return error[1]!;
  if (/^-?\d+/.test(returned) || returned.startsWith("0x")) return "ok";
  return "unknown";
}

/**
 * Resolves a relative path: against the `-y`-decorated directory fd argument of an *at call
 * (`AT_FDCWD</dir>`, `3</dir>`) when `base.fd` is present, otherwise against `base.cwd` when
 * it is given and known; left as it is when neither says where it is.
 */
function resolvePath(
  path: string,
  base: { fd?: string | undefined; cwd?: string | null },
): string {
  if (path.startsWith("/")) return path;
  if (!("fd" in base)) {
    const cwd = base.cwd ?? null;
    return cwd === null ? path : againstDirectory(cwd, path);
  }
  if (base.fd === undefined) return path;
  const found = /<(.*)>$/s.exec(base.fd)?.[1];
  const dir = found === undefined ? null : decodeDecoration(found);
  if (!dir) return path;
  return dir.endsWith("/") ? `${dir}${path}` : `${dir}/${path}`;
}

/**
 * The path in a `-y` decoration (`3</a\74b>`, `AT_FDCWD</w\303\266rk>`): strace escapes it
 * like a quoted string (and `<`, `>` as octal), so it is decoded the same way.
 */
function decodeDecoration(inner: string): string {
  return cString(`"${inner}"`) ?? inner;
}

/** Splits strace's argument list at top-level commas (outside quotes, braces, brackets). */
export function splitArguments(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === "{" || c === "[" || c === "(" || c === "<") depth++;
    else if (c === "}" || c === "]" || c === ")" || c === ">") depth--;
    else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = text.slice(start).trim();
  if (last !== "") parts.push(last);
  return parts;
}

/** Decodes a C string literal as strace prints it (`"a\nb"`, possibly followed by `...`). */
export function cString(text: string): string | null {
  const found = /^"((?:[^"\\]|\\.)*)"(\.\.\.)?$/s.exec(text.trim());
  if (!found) return null;
  const body = found[1]!;
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      bytes.push(...encoder.encode(c));
      continue;
    }
    const next = body[++i] ?? "";
    const simple: Record<string, number> = {
      n: 10,
      t: 9,
      r: 13,
      v: 11,
      f: 12,
      a: 7,
      b: 8,
      '"': 34,
      "\\": 92,
    };
    if (next in simple) bytes.push(simple[next]!);
    else if (next === "x") {
      bytes.push(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (/[0-7]/.test(next)) {
      let digits = next;
      while (digits.length < 3 && /[0-7]/.test(body[i + 1] ?? "")) digits += body[++i];
      bytes.push(parseInt(digits, 8));
    } else bytes.push(...encoder.encode(next));
  }
  return new TextDecoder().decode(new Uint8Array(bytes)) + (found[2] ? "..." : "");
}

function arrayOfStrings(text: string): string[] {
  const inner = /^\[(.*)\]$/s.exec(text.trim());
  if (!inner) return [];
  return splitArguments(inner[1]!).map((s) => cString(s) ?? s);
}
