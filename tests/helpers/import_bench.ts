/**
 * Pieces the import-throughput benches (`cloud_import_bench.ts`,
 * `cloud_import_kinds_bench.ts`) share: where their generated inputs go, the
 * load bench of one input kind beside `jq` reading the same bytes, the
 * summary line of a kind, and the JSON files of a dump directory (also used by
 * the client bench `cloud_load`).
 *
 * @module
 */

import { compareTo, measure, median } from "./bench_stats.ts";

/** Resident set size now, in MiB (Deno denies /proc/self/status without --allow-all). */
export function rssMb(): number {
  return Deno.memoryUsage().rss / 2 ** 20;
}

/** Every `.json` file below `root`, recursively, sorted by path. */
export async function jsonFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(root)) {
    const path = `${root}/${entry.name}`;
    if (entry.isDirectory) out.push(...await jsonFiles(path));
    else if (entry.name.endsWith(".json")) out.push(path);
  }
  return out.sort();
}

/**
 * The directory the generated inputs go to: `CLOUD_BENCH_DIR` when set (kept
 * afterwards), otherwise a fresh temporary directory removed when the bench
 * process unloads.
 */
export async function importBenchDir(options: { prefix?: string } = {}): Promise<string> {
  const kept = Deno.env.get("CLOUD_BENCH_DIR");
  if (kept) return kept;
  const dir = await Deno.makeTempDir(options);
  globalThis.addEventListener("unload", () => {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch {
      // already gone
    }
  });
  return dir;
}

/** One input kind of an import bench, filled in while it runs. */
export interface ImportBenchKind {
  /** The bench group, and the prefix of its sample keys. */
  label: string;
  /** The input's size. */
  megabytes: number;
  /** What the last load produced, for the summary. */
  records: string;
  /** The highest RSS sampled with the loaded records alive, in MiB. */
  rss: number;
}

/** Options of {@link benchLoadAgainstJq}. */
export interface LoadAgainstJqOptions {
  /** How the load bench is named after the label (`${label}: ${loadName}`). */
  loadName: string;
  /** Timed runs of each side (no warm-up: the inputs are large). */
  runs: number;
  /** Loads the input once; returns what it produced, for the summary. */
  load: () => Promise<string>;
  /** The command line (program first) that has jq read the same bytes. */
  jq: () => string[];
  /** Whether jq is installed; without it the jq bench is ignored. */
  hasJq: boolean;
}

/**
 * Registers the load of `kind` (the group's baseline) and `jq` over the same
 * bytes as two benches of one group, samples the RSS while the loaded records
 * are alive, and reports the load's median as a ratio of jq's at the end.
 */
export function benchLoadAgainstJq(kind: ImportBenchKind, options: LoadAgainstJqOptions): void {
  Deno.bench({
    name: `${kind.label}: ${options.loadName}`,
    group: kind.label,
    baseline: true,
    n: options.runs,
    warmup: 0,
    fn: async (b) => {
      await measure(`${kind.label}-load`, b, async () => {
        kind.records = await options.load();
        // Sampled while the records are alive: close to the load's peak.
        kind.rss = Math.max(kind.rss, rssMb());
      });
    },
  });
  Deno.bench({
    name: `${kind.label}: jq . FILE > /dev/null`,
    group: kind.label,
    ignore: !options.hasJq,
    n: options.runs,
    warmup: 0,
    fn: async (b) => {
      await measure(`${kind.label}-jq`, b, async () => {
        const [command, ...args] = options.jq();
        const out = await new Deno.Command(command!, {
          args,
          stdout: "null",
          stderr: "piped",
        }).output();
        if (!out.success) {
          throw new Error(`jq failed on ${kind.label}: ${new TextDecoder().decode(out.stderr)}`);
        }
      });
    },
  });
  compareTo(
    `${kind.label} ${options.loadName} vs jq`,
    `${kind.label}-load`,
    `${kind.label}-jq`,
    null,
  );
}

/**
 * The summary line of one kind after its benches ran: `heading`, then the
 * load's and jq's throughput from their medians and the RSS with the records
 * alive (a side that did not run is left out).
 */
export function throughputLine(kind: ImportBenchKind, heading: string): string {
  const load = median(`${kind.label}-load`);
  const jq = median(`${kind.label}-jq`);
  const parts = [heading];
  if (!Number.isNaN(load)) {
    parts.push(`load ${(kind.megabytes / (load / 1000)).toFixed(1)} MB/s → ${kind.records}`);
    parts.push(`RSS with records alive ${kind.rss.toFixed(0)} MB`);
  }
  if (!Number.isNaN(jq)) parts.push(`jq ${(kind.megabytes / (jq / 1000)).toFixed(1)} MB/s`);
  return parts.join("; ");
}
