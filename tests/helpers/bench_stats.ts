/**
 * Benchmark helper: keeps every sample a bench measured (between
 * `b.start()` and `b.end()`), and prints medians and ratios against a peer
 * measured in the same run when the bench file finishes.
 */

const samples = new Map<string, number[]>();
const comparisons: { label: string; subject: string; peer: string; target: number | null }[] = [];
const absolutes: { label: string; subject: string; targetMs: number | null }[] = [];

/** Times `fn` inside a Deno.bench body and keeps the sample under `name`. */
export async function measure(
  name: string,
  b: Deno.BenchContext,
  fn: () => unknown | Promise<unknown>,
): Promise<void> {
  const start = performance.now();
  b.start();
  await fn();
  b.end();
  const list = samples.get(name) ?? [];
  list.push(performance.now() - start);
  samples.set(name, list);
}

/** The median of a bench's samples, or NaN. */
export function median(name: string): number {
  const list = [...(samples.get(name) ?? [])].sort((a, b) => a - b);
  if (list.length === 0) return Number.NaN;
  const mid = Math.floor(list.length / 2);
  return list.length % 2 ? list[mid]! : (list[mid - 1]! + list[mid]!) / 2;
}

/** Reports `subject`'s median as a ratio of `peer`'s at the end. */
export function compareTo(
  label: string,
  subject: string,
  peer: string,
  target: number | null,
): void {
  comparisons.push({ label, subject, peer, target });
}

/** Reports `subject`'s median against an absolute target at the end. */
export function reportMedian(label: string, subject: string, targetMs: number | null): void {
  absolutes.push({ label, subject, targetMs });
}

/** One side of {@link benchPair}: its bench name, the key its samples go under, what it times. */
export interface BenchSide {
  name: string;
  key: string;
  fn: () => unknown | Promise<unknown>;
}

/** Options of {@link benchPair}. */
export interface BenchPairOptions {
  /** The bench group both sides join. */
  group: string;
  /** Timed runs per side (after one warm-up run). */
  runs: number;
  /** The subject's line in the summary; the ratio's line adds `, vs ${versus}`. */
  label: string;
  /** What the baseline is, for the ratio's line. */
  versus: string;
}

/**
 * Registers `subject` and its `baseline` as two benches of one group, and
 * reports the subject's median and its ratio to the baseline's at the end.
 */
export function benchPair(
  subject: BenchSide,
  baseline: BenchSide,
  options: BenchPairOptions,
): void {
  Deno.bench({
    name: subject.name,
    group: options.group,
    n: options.runs,
    warmup: 1,
    fn: async (b) => await measure(subject.key, b, subject.fn),
  });
  Deno.bench({
    name: baseline.name,
    group: options.group,
    baseline: true,
    n: options.runs,
    warmup: 1,
    fn: async (b) => await measure(baseline.key, b, baseline.fn),
  });
  compareTo(`${options.label}, vs ${options.versus}`, subject.key, baseline.key, null);
  reportMedian(options.label, subject.key, null);
}

globalThis.addEventListener("unload", () => {
  const lines: string[] = [];
  for (const { label, subject, targetMs } of absolutes) {
    const value = median(subject);
    if (Number.isNaN(value)) continue;
    const verdict = targetMs === null
      ? ""
      : value <= targetMs
      ? ` (target ≤ ${targetMs} ms: met)`
      : ` (target ≤ ${targetMs} ms: MISSED)`;
    lines.push(
      `${label}: median ${value.toFixed(3)} ms over ${samples.get(subject)!.length} runs${verdict}`,
    );
  }
  for (const { label, subject, peer, target } of comparisons) {
    const a = median(subject);
    const b = median(peer);
    if (Number.isNaN(a) || Number.isNaN(b)) continue;
    const ratio = a / b;
    const verdict = target === null
      ? ""
      : ratio <= target
      ? ` (target ≤ ${target}×: met)`
      : ` (target ≤ ${target}×: MISSED)`;
    lines.push(
      `${label}: ${a.toFixed(2)} ms vs ${b.toFixed(2)} ms = ${ratio.toFixed(2)}×${verdict}`,
    );
  }
  if (lines.length > 0) console.log(`\nsummary (medians, same run):\n  ${lines.join("\n  ")}`);
});
