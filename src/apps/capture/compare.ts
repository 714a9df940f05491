/**
 * Comparing two compatible Process Capture v4 results dimension by
 * dimension (terminal output, interaction, exit, filesystem effects,
 * protocol and connection attempts, processes, shims), after each side's
 * own normalisation (its paths, pids and ports replaced by placeholders, and
 * its patterns applied). The overall status derives from the dimensions.
 *
 * @module
 */

import { z } from "zod";
import { canonicalJson } from "../../core/canonical_json.ts";
import type { ProcessCapture } from "./result.ts";
import { compileLinearRegex } from "../../core/linear_regex.ts";

/** Every status a dimension (or the whole comparison) may have. */
export const COMPARISON_STATUSES = [
  "unchanged",
  "added",
  "removed",
  "changed",
  "truncated",
  "unknown",
  "contradiction",
] as const;
/** One status. */
export type ComparisonStatus = typeof COMPARISON_STATUSES[number];
/** The compared dimensions, in the order first_divergence looks at them. */
export const DIMENSIONS = [
  "terminal",
  "interaction",
  "exit",
  "filesystem",
  "protocol",
  "process",
  "shim",
] as const;
/** One dimension. */
export type Dimension = typeof DIMENSIONS[number];
/** The Evidence predicate of a comparison. */
export const COMPARISON_PREDICATE = "rea.process-comparison/v4";

const status = z.enum(COMPARISON_STATUSES);
const detail = z.strictObject({
  summary: z.string(),
  only_left: z.array(z.string()),
  only_right: z.array(z.string()),
});

/** The strict shape of a comparison result. */
export const comparisonResultSchema = z.strictObject({
  status,
  terminal: status,
  interaction: status,
  exit: status,
  filesystem: status,
  protocol: status,
  process: status,
  shim: status,
  first_divergence: z.strictObject({
    dimension: z.enum(DIMENSIONS),
    status,
    summary: z.string(),
  }).nullable(),
  details: z.strictObject({
    terminal: detail,
    interaction: detail,
    exit: detail,
    filesystem: detail,
    protocol: detail,
    process: detail,
    shim: detail,
  }),
  comparison_contract_sha256: z.string(),
  limitations: z.array(z.string()),
});

/** A comparison result. */
export type ComparisonResult = z.output<typeof comparisonResultSchema>;

/**
 * The overall status from the dimensions: any truncated → truncated; else any
 * changed, added, removed (or contradiction) → changed; else any unknown →
 * unknown; else unchanged.
 */
export function deriveComparisonStatus(
  dimensions: Readonly<Record<Dimension, ComparisonStatus>>,
): ComparisonStatus {
  const all = DIMENSIONS.map((d) => dimensions[d]);
  if (all.includes("truncated")) return "truncated";
  if (
    all.some((s) => s === "changed" || s === "added" || s === "removed" || s === "contradiction")
  ) {
    return "changed";
  }
  if (all.includes("unknown")) return "unknown";
  return "unchanged";
}

/** Whether a comparison result has a valid shape and an overall status that derives from its dimensions. */
export function comparisonIsConsistent(value: unknown): value is ComparisonResult {
  const parsed = comparisonResultSchema.safeParse(value);
  return parsed.success && parsed.data.status === deriveComparisonStatus(parsed.data);
}

/** Options of {@linkcode compareCaptures}. */
export interface CompareOptions {
  /** Refuse captures completed longer ago than this (ms), when given. */
  maxCaptureAgeMs?: number;
  /** The present, for the age check. @default Date.now() */
  now?: number;
}

/** Why two captures cannot be compared (thrown as a message by the caller). */
export class IncompatibleCaptures extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IncompatibleCaptures";
  }
}

/** Compares two validated captures; throws {@linkcode IncompatibleCaptures} when their contracts differ. */
export function compareCaptures(
  left: ProcessCapture,
  right: ProcessCapture,
  options: CompareOptions = {},
): ComparisonResult {
  if (left.manifest.comparison_contract_sha256 !== right.manifest.comparison_contract_sha256) {
    const differing = Object.keys(left.manifest.comparison_contract).filter((k) =>
      canonicalJson(left.manifest.comparison_contract[k] ?? null) !==
        canonicalJson(right.manifest.comparison_contract[k] ?? null)
    );
    throw new IncompatibleCaptures(
      `the captures were made under different comparison contracts (${differing.join(", ")})`,
    );
  }
  if (options.maxCaptureAgeMs !== undefined) {
    const now = options.now ?? Date.now();
    for (const [side, capture] of [["left", left], ["right", right]] as const) {
      const age = now - Date.parse(capture.manifest.completed_at);
      if (age > options.maxCaptureAgeMs) {
        throw new IncompatibleCaptures(
          `the ${side} capture is ${age} ms old, more than max_capture_age_ms ${options.maxCaptureAgeMs}`,
        );
      }
    }
  }
  const l = normalizer(left);
  const r = normalizer(right);
  const limitations: string[] = [];
  const details = {} as ComparisonResult["details"];
  const statuses = {} as Record<Dimension, ComparisonStatus>;
  const set = (
    dimension: Dimension,
    value: ComparisonStatus,
    d: ComparisonResult["details"][Dimension],
  ) => {
    statuses[dimension] = value;
    details[dimension] = d;
  };

  // terminal: the normalised text of each stream
  {
    const raw = (c: ProcessCapture, stream: "stdout" | "stderr") =>
      c.frames.filter((f) => f.stream === stream).map((f) => f.data).join("");
    const text = (c: ProcessCapture, n: Normalizer, stream: "stdout" | "stderr") =>
      n.text(raw(c, stream));
    const lines = (c: ProcessCapture, n: Normalizer) =>
      [
        ...text(c, n, "stdout").split("\n").map((x) => `stdout: ${x}`),
        ...text(c, n, "stderr").split("\n").map((x) => `stderr: ${x}`),
      ].filter((x) => !/^std(out|err): $/.test(x));
    const a = lines(left, l);
    const b = lines(right, r);
    // Frames hold the UTF-8 decoding: where the text is the same but the bytes are not, the
    // difference is in bytes that are not UTF-8 (decoded as U+FFFD), and it is a change.
    for (const stream of ["stdout", "stderr"] as const) {
      const [x, y] = [left.streams[stream].sha256, right.streams[stream].sha256];
      if (x !== y && raw(left, stream) === raw(right, stream)) {
        a.push(`${stream}: [bytes that are not UTF-8; recorded bytes sha256 ${x}]`);
        b.push(`${stream}: [bytes that are not UTF-8; recorded bytes sha256 ${y}]`);
      }
    }
    const truncated = left.streams.stdout.truncated || left.streams.stderr.truncated ||
      right.streams.stdout.truncated || right.streams.stderr.truncated;
    const diff = listDiff(a, b);
    set(
      "terminal",
      truncated ? "truncated" : classify(a.length, b.length, diff),
      {
        summary: truncated
          ? "at least one side's output was truncated"
          : `${a.length} and ${b.length} non-empty output lines`,
        ...diff,
      },
    );
  }
  // interaction
  {
    const events = (c: ProcessCapture, n: Normalizer) =>
      c.interaction_events.map((e) => `${e.type} ${e.outcome} ${n.text(e.data ?? "")}`);
    const a = events(left, l);
    const b = events(right, r);
    const diff = listDiff(a, b);
    set("interaction", classify(a.length, b.length, diff), {
      summary: `${a.length} and ${b.length} interaction events`,
      ...diff,
    });
  }
  // exit
  {
    const a = `${left.exit.reason} code=${left.exit.code} signal=${left.exit.signal}`;
    const b = `${right.exit.reason} code=${right.exit.code} signal=${right.exit.signal}`;
    set("exit", a === b ? "unchanged" : "changed", {
      summary: a === b ? a : `${a} → ${b}`,
      only_left: a === b ? [] : [a],
      only_right: a === b ? [] : [b],
    });
  }
  // filesystem: snapshot effects, plus writes seen by the syscall trace
  {
    const effects = (c: ProcessCapture, n: Normalizer) =>
      c.filesystem_checkpoints.flatMap((k) =>
        k.effects.map((e) => {
          const state = e.after ?? e.before;
          const digest = state && state.type === "file" ? state.sha256 ?? "?" : "";
          return `${k.name}: ${e.status} ${n.path(e.path)} ${state?.type ?? ""} ${digest}`.trim();
        })
      );
    const writes = (c: ProcessCapture, n: Normalizer) =>
      c.syscalls.files.filter((f) => f.writes).map((f) =>
        `write ${f.operation} ${n.path(f.path)}${f.to ? ` → ${n.path(f.to)}` : ""} ${f.result}`
      );
    const truncated =
      [...left.filesystem_checkpoints, ...right.filesystem_checkpoints].some((k) => k.truncated) ||
      left.syscalls.truncated || right.syscalls.truncated;
    const traced = left.syscalls.observed && right.syscalls.observed;
    const a = [...effects(left, l), ...(traced ? writes(left, l) : [])];
    const b = [...effects(right, r), ...(traced ? writes(right, r) : [])];
    const diff = setDiff(a, b);
    let value = truncated ? "truncated" : classify(a.length, b.length, diff);
    if (!traced && value === "unchanged") {
      value = "unknown";
      limitations.push(
        "filesystem: at least one side has no syscall trace, so writes outside the snapshotted roots are unknown.",
      );
    }
    set("filesystem", value, {
      summary: `${a.length} and ${b.length} filesystem effects`,
      ...diff,
    });
  }
  // protocol: connection attempts (and replay traffic, which this server never has)
  {
    const traced = left.syscalls.observed && right.syscalls.observed;
    const connections = (c: ProcessCapture, n: Normalizer) => [
      ...c.syscalls.connections.map((x) =>
        `${x.family} ${n.path(x.address ?? "")} ${n.port(x.port)} ${x.result}`
      ),
      ...c.protocol_events.map((e) => `${e.protocol} ${e.direction} ${e.method} ${e.path}`),
    ];
    const a = connections(left, l);
    const b = connections(right, r);
    const diff = setDiff(a, b);
    set(
      "protocol",
      traced ? classify(a.length, b.length, diff) : "unknown",
      {
        summary: traced
          ? `${a.length} and ${b.length} connection attempts`
          : "connection attempts were not observed on at least one side (no syscall trace)",
        ...diff,
      },
    );
  }
  // process: programs executed
  {
    const traced = left.syscalls.observed && right.syscalls.observed;
    const programs = (c: ProcessCapture, n: Normalizer) =>
      traced
        ? c.syscalls.executions.map((e) =>
          `${n.path(e.path)} ${n.text(JSON.stringify(e.arguments.slice(1)))} ${e.result}`
        )
        : c.process_samples.map((s) => n.path(s.command));
    const a = programs(left, l);
    const b = programs(right, r);
    const diff = setDiff(a, b);
    const value = classify(a.length, b.length, diff);
    set("process", traced ? value : "unknown", {
      summary: traced
        ? `${a.length} and ${b.length} program executions`
        : "only periodic samples on at least one side: processes may have been missed",
      ...diff,
    });
  }
  // shim
  {
    const events = (c: ProcessCapture) =>
      c.shim_events.map((e) => `${e.command} ${e.route_index} ${e.outcome}`);
    const a = events(left);
    const b = events(right);
    const diff = listDiff(a, b);
    set("shim", classify(a.length, b.length, diff), {
      summary: `${a.length} and ${b.length} shim events`,
      ...diff,
    });
  }

  if (left.truncated || right.truncated) {
    limitations.push("At least one capture is truncated; its bounded observations are partial.");
  }
  if (
    left.manifest.executable_sha256 !== right.manifest.executable_sha256
  ) {
    limitations.push("The two captures ran different executables (different SHA-256).");
  }
  if (canonicalJson(left.manifest.backend) !== canonicalJson(right.manifest.backend)) {
    limitations.push(
      "The two captures used different backends; some differences may come from that.",
    );
  }
  limitations.push(
    "Times are not compared; output is compared after each side's normalisation (paths, pids, ports, patterns).",
  );
  const overall = deriveComparisonStatus(statuses);
  const first = DIMENSIONS.find((d) => statuses[d] !== "unchanged");
  return {
    status: overall,
    ...statuses,
    first_divergence: first
      ? { dimension: first, status: statuses[first], summary: details[first].summary }
      : null,
    details,
    comparison_contract_sha256: left.manifest.comparison_contract_sha256,
    limitations,
  };
}

interface Normalizer {
  text(value: string): string;
  path(value: string): string;
  port(value: number | null): string;
}

/** One capture's own normalisation. */
function normalizer(capture: ProcessCapture): Normalizer {
  const n = capture.normalization;
  const scenario = capture.manifest.scenario;
  const places: Array<[string, string]> = [];
  if (n.paths) {
    places.push([capture.manifest.executable_real_path, "<executable>"]);
    places.push([scenario.executable, "<executable>"]);
    places.push([scenario.working_directory, "<cwd>"]);
    scenario.filesystem_roots.forEach((root, i) => places.push([root, `<root:${i}>`]));
    places.sort((a, b) => b[0].length - a[0].length);
  }
  const pids = new Set<number>();
  if (n.pids) {
    for (const s of capture.process_samples) {
      pids.add(s.pid);
      pids.add(s.parent_pid);
    }
    for (const f of capture.syscalls.files) pids.add(f.pid);
    for (const e of capture.syscalls.executions) pids.add(e.pid);
    for (const c of capture.syscalls.connections) pids.add(c.pid);
  }
  const pidPattern = pids.size === 0 ? null : new RegExp(
    `\\b(?:${[...pids].filter((p) => p >= 100).join("|") || "(?!)"})\\b`,
    "g",
  );
  const patterns = n.patterns.map((p) => ({
    regex: compileLinearRegex(p.pattern),
    to: p.replacement,
  }));
  const path = (value: string): string => {
    let out = value;
    for (const [from, to] of places) out = out.split(from).join(to);
    // The run's own temporary root (HOME lives there) differs on every run.
    return n.paths ? out.replace(/\/[^\s"']*?casefile-capture-[0-9a-f]{16}/g, "<tmp>") : out;
  };
  return {
    path,
    text: (value) => {
      let out = path(value);
      if (pidPattern) out = out.replace(pidPattern, "<pid>");
      for (const { regex, to } of patterns) out = regex.replaceAll(out, to);
      return out;
    },
    port: (value) => (value === null ? "-" : n.ports ? "<port>" : String(value)),
  };
}

function listDiff(a: string[], b: string[]): { only_left: string[]; only_right: string[] } {
  if (a.length === b.length && a.every((x, i) => x === b[i])) {
    return { only_left: [], only_right: [] };
  }
  return setDiffOrOrder(a, b);
}

function setDiffOrOrder(a: string[], b: string[]): { only_left: string[]; only_right: string[] } {
  const diff = setDiff(a, b);
  if (diff.only_left.length === 0 && diff.only_right.length === 0) {
    // Same items, different order or multiplicity.
    return {
      only_left: ["(order or repetition differs)"],
      only_right: ["(order or repetition differs)"],
    };
  }
  return diff;
}

function setDiff(a: string[], b: string[]): { only_left: string[]; only_right: string[] } {
  const count = (list: string[]) => {
    const m = new Map<string, number>();
    for (const x of list) m.set(x, (m.get(x) ?? 0) + 1);
    return m;
  };
  const ca = count(a);
  const cb = count(b);
  const onlyLeft: string[] = [];
  const onlyRight: string[] = [];
  for (const [x, n] of ca) for (let i = cb.get(x) ?? 0; i < n; i++) onlyLeft.push(x);
  for (const [x, n] of cb) for (let i = ca.get(x) ?? 0; i < n; i++) onlyRight.push(x);
  return { only_left: onlyLeft.sort().slice(0, 100), only_right: onlyRight.sort().slice(0, 100) };
}

function classify(
  left: number,
  right: number,
  diff: { only_left: string[]; only_right: string[] },
): ComparisonStatus {
  if (diff.only_left.length === 0 && diff.only_right.length === 0) return "unchanged";
  if (left === 0) return "added";
  if (right === 0) return "removed";
  if (diff.only_left.length === 0) return "added";
  if (diff.only_right.length === 0) return "removed";
  return "changed";
}
