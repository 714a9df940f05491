/**
 * Client-side benchmark harness: starts the server as a user does (a fresh
 * `deno run` of `mod.ts` with the `deno task start` flags), drives it with
 * the SDK `Client` over stdio, and times each measure beside a peer program
 * in the same loop. Every measure runs `runs + 1` paired iterations and drops
 * the first; figures are min/median/max of the paired ratios.
 *
 * Benches live in `tests/client_bench/benches/*.ts`, each exporting a default
 * `(ctx: BenchContext) => Promise<void>`; `deno task bench:client` runs them
 * all (or the ones named on the command line) through `main.ts`, with
 * `--allow-all`: Deno grants `/proc/<pid>/status` (peak RSS) to nothing less.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { concat } from "../../src/apps/artifacts/chunk_source.ts";
import { spawnPiped } from "../helpers/programs.ts";
import { collectStderr } from "../helpers/spawn.ts";

/** Absolute path of the project's `mod.ts`. */
export const MOD_TS: string = new URL("../../mod.ts", import.meta.url).pathname;
/** Absolute path of the project's `src/` (the start task grants read on it). */
export const SRC_DIR: string = new URL("../../src", import.meta.url).pathname;

/**
 * The `deno run` flags of the project's `deno task start` line, read from
 * `deno.json` so the benches start the server exactly as a user does, but
 * for its read grant (each bench grants its own roots and `src/`).
 */
export function startTaskFlags(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url))) as {
    tasks: Record<string, string>;
  };
  const words = config.tasks.start!.trim().split(/\s+/);
  const first = words.indexOf("run") + 1;
  const last = words.indexOf("mod.ts");
  if (first === 0 || last < first) {
    throw new Error(
      `deno.json's start task is not "deno run FLAGS mod.ts ARGS": ${words.join(" ")}`,
    );
  }
  return words.slice(first, last).filter((flag) => !flag.startsWith("--allow-read="));
}

const MINIMAL_SERVER = new URL("./peers/minimal_server.ts", import.meta.url).pathname;

/**
 * A transport (not yet connected) that spawns the minimal SDK server, the
 * peer of the start-up and per-call measures, with the start task's flags
 * and read grants.
 */
export function minimalServerTransport(): StdioClientTransport {
  return new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...startTaskFlags(), `--allow-read=/usr/bin,/usr/lib,${SRC_DIR}`, MINIMAL_SERVER],
    stderr: "pipe",
  });
}

/** How to start one server. */
export interface ServerSpec {
  /** `--root` directories (also granted `--allow-read`). */
  roots?: string[];
  /** Server arguments after the roots (e.g. `["--dataset", "bench=FILE"]`). */
  args?: string[];
  /** Extra read grants beyond the roots and `src/`. */
  allowRead?: string[];
  /** `--allow-write` grants. */
  allowWrite?: string[];
  /** `--allow-run` grants. */
  allowRun?: string[];
  /** Leave out `--v8-flags=--max-semi-space-size=2` (on by default, as in the start task). */
  defaultV8?: boolean;
  /** Extra environment for the child (`CASEFILE_*` of the bench's shell is never passed). */
  env?: Record<string, string>;
  /** Extra `deno run` flags (e.g. `--cpu-prof` while profiling), before `mod.ts`. */
  denoFlags?: string[];
}

/** The `deno` argument vector for `spec`, mirroring the `deno task start` flags. */
export function serverArgs(spec: ServerSpec): string[] {
  const roots = spec.roots ?? [];
  const read = [...roots, SRC_DIR, ...(spec.allowRead ?? [])];
  const flags = ["run"];
  for (const flag of startTaskFlags()) {
    if (spec.defaultV8 && flag.startsWith("--v8-flags=")) continue;
    flags.push(flag);
  }
  flags.push(`--allow-read=${read.join(",")}`);
  if (spec.allowWrite?.length) flags.push(`--allow-write=${spec.allowWrite.join(",")}`);
  if (spec.allowRun?.length) flags.push(`--allow-run=${spec.allowRun.join(",")}`);
  flags.push(...(spec.denoFlags ?? []));
  return [...flags, MOD_TS, ...roots.flatMap((root) => ["--root", root]), ...(spec.args ?? [])];
}

/** A transport (not yet connected) that spawns our server for `spec`. */
export function serverTransport(spec: ServerSpec): StdioClientTransport {
  return new StdioClientTransport({
    command: Deno.execPath(),
    args: serverArgs(spec),
    env: childEnv(spec.env),
    stderr: "pipe",
  });
}

function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) => !name.startsWith("CASEFILE_")),
  );
  return { ...env, ...extra };
}

/** One timed tool call. */
export interface TimedCall {
  /** Wall time from request to parsed response, in milliseconds. */
  ms: number;
  /** UTF-8 bytes of the JSON result (text blocks plus `structuredContent`). */
  bytes: number;
  /** The raw result. */
  result: Record<string, unknown>;
}

/** A running server and its client. */
export class BenchServer implements AsyncDisposable {
  /** Milliseconds from spawn to a finished `initialize` handshake. */
  readonly startMs: number;
  /**
   * Milliseconds from spawn to the answer of the first `tools/list` (sent
   * right after the handshake, as a client does; answered from the generated
   * tool catalogs when the workbenches are not built yet).
   */
  readonly readyMs: number = 0;
  /**
   * Milliseconds from spawn to the answer of a `prompts/list` sent after
   * that `tools/list`, which waits for every workbench to be built: what a
   * bench measures next excludes the build.
   */
  readonly builtMs: number = 0;
  readonly #client: Client;
  readonly #transport: StdioClientTransport;
  #stderr: () => string = () => "";

  private constructor(client: Client, transport: StdioClientTransport, startMs: number) {
    this.#client = client;
    this.#transport = transport;
    this.startMs = startMs;
  }

  /** Spawns the server for `spec` and completes the MCP handshake. */
  static async start(spec: ServerSpec): Promise<BenchServer> {
    const transport = serverTransport(spec);
    const client = new Client({ name: "casefile-client-bench", version: "0.0.0" });
    const began = performance.now();
    const server = new BenchServer(client, transport, 0);
    server.#stderr = collectStderr(transport);
    try {
      await client.connect(transport);
    } catch (error) {
      throw new Error(`the server did not start: ${error}\n${server.#stderr()}`);
    }
    (server as { startMs: number }).startMs = performance.now() - began;
    await client.listTools();
    (server as { readyMs: number }).readyMs = performance.now() - began;
    await client.listPrompts();
    (server as { builtMs: number }).builtMs = performance.now() - began;
    return server;
  }

  /** The SDK client, for calls the helpers below do not cover. */
  get client(): Client {
    return this.#client;
  }

  /** The server's process id. */
  get pid(): number {
    const pid = this.#transport.pid;
    if (pid === null) throw new Error("the server process has no pid");
    return pid;
  }

  /** What the server wrote to stderr so far. */
  get stderr(): string {
    return this.#stderr();
  }

  /** Calls a tool and times it; a tool error throws with its text. */
  async call(name: string, args: Record<string, unknown> = {}): Promise<TimedCall> {
    const began = performance.now();
    const result = await this.#client.callTool({ name, arguments: args }, undefined, {
      timeout: 30 * 60_000,
      resetTimeoutOnProgress: true,
    }) as Record<string, unknown>;
    const ms = performance.now() - began;
    if (result.isError) {
      const content = result.content as { text?: string }[] | undefined;
      throw new Error(`${name} failed: ${content?.[0]?.text ?? JSON.stringify(result)}`);
    }
    return { ms, bytes: utf8Bytes(result), result };
  }

  /** The server's memory from `/proc/<pid>/status`: peak (VmHWM) and current (VmRSS), in bytes. */
  async memory(): Promise<{ peak: number; rss: number }> {
    return await processMemory(this.pid);
  }

  /**
   * Resets the server's peak (VmHWM) to its current RSS, so the next
   * {@linkcode memory} reports the peak of what ran in between.
   */
  async resetPeak(): Promise<void> {
    await resetProcessPeak(this.pid);
  }

  /** Closes the client and the server process. */
  async close(): Promise<void> {
    await this.#client.close().catch(() => {});
  }

  /** Same as {@linkcode close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** The structured result of a tool call (`structuredContent`), or throws. */
export function structured(call: TimedCall): Record<string, unknown> {
  const value = call.result.structuredContent;
  if (!value || typeof value !== "object") throw new Error("the result has no structuredContent");
  return value as Record<string, unknown>;
}

/** UTF-8 length of `value` serialised as JSON. */
export function utf8Bytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

/**
 * Peak (VmHWM) and current (VmRSS) resident memory of process `pid`, in bytes.
 * Read through `cat`: Deno grants `/proc/<pid>/status` only with --allow-all.
 */
export async function processMemory(pid: number): Promise<{ peak: number; rss: number }> {
  const output = await new Deno.Command("cat", {
    args: [`/proc/${pid}/status`],
    stdout: "piped",
    stderr: "null",
  }).output();
  if (!output.success) throw new Error(`cannot read /proc/${pid}/status`);
  const status = new TextDecoder().decode(output.stdout);
  const field = (name: string): number => {
    const match = status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"));
    if (!match) throw new Error(`/proc/${pid}/status has no ${name}`);
    return Number(match[1]) * 1024;
  };
  return { peak: field("VmHWM"), rss: field("VmRSS") };
}

/**
 * Resets the peak resident memory (VmHWM) of process `pid` to its current RSS
 * (`echo 5 > /proc/<pid>/clear_refs`, through `sh`: Deno grants `/proc` only
 * with --allow-all).
 */
export async function resetProcessPeak(pid: number): Promise<void> {
  const out = await new Deno.Command("sh", {
    args: ["-c", 'echo 5 > "/proc/$1/clear_refs"', "sh", String(pid)],
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`cannot reset the peak of ${pid}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** What a peer run produced. */
export interface PeerRun {
  /** Wall time, in milliseconds. */
  ms: number;
  /** Bytes the peer wrote to stdout (read and discarded). */
  stdoutBytes: number;
  /** The peer's peak RSS in bytes, from `/usr/bin/time -f %M` when asked. */
  peak?: number;
  /** The peer's stdout as text, when `captureStdout` was asked for. */
  stdout?: string;
}

/**
 * Runs a peer program to completion, reading and discarding its stdout, and
 * times it. Throws when it exits non-zero. With `measurePeak`, runs it under
 * GNU `time` (when `/usr/bin/time` exists) for its maximum RSS; with
 * `captureStdout`, keeps its stdout as text.
 */
export async function runPeer(
  command: string[],
  options: { measurePeak?: boolean; captureStdout?: boolean } = {},
): Promise<PeerRun> {
  const [program, ...rest] = command;
  if (!program) throw new Error("runPeer needs a command");
  const timed = options.measurePeak && await exists("/usr/bin/time");
  const argv = timed ? ["/usr/bin/time", "-f", "%M", program, ...rest] : [program, ...rest];
  const began = performance.now();
  const child = await spawnPiped(argv[0]!, argv.slice(1));
  let stdoutBytes = 0;
  const kept: Uint8Array[] = [];
  const drain = (async () => {
    for await (const chunk of child.stdout) {
      stdoutBytes += chunk.length;
      if (options.captureStdout) kept.push(chunk);
    }
  })();
  const errText = new Response(child.stderr).text();
  const status = await child.status;
  await drain;
  const ms = performance.now() - began;
  const stderr = await errText;
  if (!status.success) throw new Error(`${argv.join(" ")} exited ${status.code}: ${stderr}`);
  const run: PeerRun = { ms, stdoutBytes };
  if (options.captureStdout) run.stdout = new TextDecoder().decode(concat(kept));
  if (timed) {
    const kb = Number(stderr.trim().split("\n").at(-1));
    if (Number.isFinite(kb)) run.peak = kb * 1024;
  }
  return run;
}

function exists(path: string): Promise<boolean> {
  return Deno.stat(path).then(() => true, () => false);
}

/** min/median/max of a list of numbers. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** The spread of `values` (NaN for an empty list). */
export function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return { min: NaN, median: NaN, max: NaN };
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { min: sorted[0]!, median, max: sorted.at(-1)! };
}

/** One measure of a paired loop. */
export interface PairedResult {
  /** What was measured. */
  label: string;
  /** The peer's description. */
  peer: string;
  /** Our times (ms), first run dropped. */
  subject: number[];
  /** The peer's times (ms), first run dropped. */
  peerTimes: number[];
  /** subject[i] / peer[i]. */
  ratios: Spread;
  /** The target ratio, when the issue sets one. */
  target: number | null;
}

/**
 * Runs `subject` and `peer` alternately `runs + 1` times, drops the first
 * pair, and returns the spread of the paired ratios. Each function returns
 * the milliseconds it measured (so setup can be excluded).
 */
export async function paired(
  label: string,
  options: {
    peer: string;
    runs: number;
    subject: () => Promise<number>;
    peerRun: () => Promise<number>;
    target?: number | null;
  },
): Promise<PairedResult> {
  const subject: number[] = [];
  const peerTimes: number[] = [];
  for (let i = 0; i <= options.runs; i++) {
    const ours = await options.subject();
    const theirs = await options.peerRun();
    if (i === 0) continue;
    subject.push(ours);
    peerTimes.push(theirs);
  }
  const ratios = spread(subject.map((value, i) => value / peerTimes[i]!));
  return { label, peer: options.peer, subject, peerTimes, ratios, target: options.target ?? null };
}

/** A row of free-form figures a bench reports beside its paired ratios. */
export interface FigureRow {
  /** What was measured. */
  label: string;
  /** The figure, already formatted with its unit. */
  value: string;
  /** Optional remark (target, peer figure…). */
  note?: string;
}

/** A free-form table a bench reports (growth curves and the like). */
export interface FigureTable {
  /** What the table shows. */
  title: string;
  /** Column headings. */
  columns: string[];
  /** Rows of already formatted cells, one per column. */
  rows: string[][];
}

/** What a bench receives: its run count and where it reports. */
export interface BenchContext {
  /** Paired iterations after the dropped first one (`--runs`, default 5). */
  runs: number;
  /** Scale hint (`--size small|medium|large`, default large). */
  size: "small" | "medium" | "large";
  /** A fresh temporary directory for the bench's inputs, removed afterwards. */
  tempDir: string;
  /** Records a paired measure. */
  pairedResult(result: PairedResult): void;
  /** Records a free-form figure. */
  figure(row: FigureRow): void;
  /** Records a free-form table. */
  table(table: FigureTable): void;
  /** Logs progress to stderr. */
  log(message: string): void;
}

/** Formats a paired result as a markdown table row. */
export function pairedRow(result: PairedResult): string {
  const ours = spread(result.subject).median;
  const peer = spread(result.peerTimes).median;
  const { min, median, max } = result.ratios;
  const verdict = result.target === null
    ? ""
    : median <= result.target
    ? `≤ ${result.target}× met`
    : `≤ ${result.target}× MISSED`;
  return `| ${result.label} | ${ours.toFixed(1)} ms | ${result.peer} ${peer.toFixed(1)} ms | ${
    min.toFixed(2)
  }× / ${median.toFixed(2)}× / ${max.toFixed(2)}× | ${verdict} |`;
}

/** Whether `program` can be found on PATH. */
export async function onPath(program: string): Promise<boolean> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir && await exists(`${dir}/${program}`)) return true;
  }
  return false;
}
