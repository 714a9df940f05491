/**
 * Pieces the import-throughput benches (`cloud_import_bench.ts`,
 * `cloud_import_kinds_bench.ts` and the client bench `cloud_load`) share: the
 * generated input kinds with the jq command over the same bytes, where the
 * inputs go, the load bench of one input kind beside `jq`, and the summary
 * line of a kind.
 *
 * @module
 */

import { compareTo, measure, median } from "./bench_stats.ts";
import { hasProgram } from "./programs.ts";
import {
  generateAuthorization,
  generateOcsf,
  generateState,
  writeAsffReport,
  writeAwsDump,
  writeCheckovReport,
  writeScoutSuiteScript,
  writeTerraformPlan,
  writeTrivyReport,
} from "./cloud_import_generators.ts";

/** Resident set size now, in MiB (Deno denies /proc/self/status without --allow-all). */
export function rssMb(): number {
  return Deno.memoryUsage().rss / 2 ** 20;
}

/** Every `.json` file below `root`, recursively, sorted by path. */
async function jsonFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(root)) {
    const path = `${root}/${entry.name}`;
    if (entry.isDirectory) out.push(...await jsonFiles(path));
    else if (entry.name.endsWith(".json")) out.push(path);
  }
  return out.sort();
}

/** `count` items at `scale` (at least one). */
export function scaledCount(count: number, scale: number): number {
  return Math.max(1, Math.round(count * scale));
}

/** `jq . FILE… > /dev/null`, through `sh` so the output goes where the command sends it. */
function jqToNull(...files: string[]): string[] {
  return ["sh", "-c", 'jq . "$@" > /dev/null', "sh", ...files];
}

const plainJq = (path: string): Promise<string[]> => Promise.resolve(jqToNull(path));

/** One generated input kind of the import benches. */
export interface ImportBenchInput {
  /** Bench label. */
  label: string;
  /** The kind the loader must detect (`load_dataset`'s summary `kind`). */
  kind: string;
  /** File or directory name in the bench's directory. */
  name: string;
  /** How many items the generator writes at scale 1 (about 60 MB for most kinds). */
  count: number;
  /** What the generator writes for `count` items, for the log. */
  what: (count: number) => string;
  /** Writes `count` items at `path`; returns the bytes written. */
  write: (path: string, count: number) => Promise<number>;
  /**
   * The command that has jq read the same bytes, output to /dev/null: every
   * JSON file of the AWS dump, the JSON after the first line of ScoutSuite's `.js`.
   */
  jq: (path: string) => Promise<string[]>;
}

/** The input kinds, in report order. */
export const IMPORT_INPUTS: readonly ImportBenchInput[] = [
  {
    label: "terraform-state",
    kind: "terraform",
    name: "bench.tfstate",
    count: 100_000,
    what: (n) => `${n} resources`,
    write: generateState,
    jq: plainJq,
  },
  {
    label: "terraform-plan",
    kind: "terraform-plan",
    name: "plan.json",
    count: 850,
    what: (n) => `${n} copies of the fixture plan's 55 resources`,
    write: writeTerraformPlan,
    jq: plainJq,
  },
  {
    label: "aws-api-dump",
    kind: "aws-api",
    name: "bench-account",
    count: 2_500,
    what: (n) => `4 regions × ${n} instances (+ENIs, SGs, subnets, VPCs)`,
    write: (path, n) => writeAwsDump(path, { instancesPerRegion: n }),
    jq: async (path) => jqToNull(...await jsonFiles(path)),
  },
  {
    label: "iam-authorization",
    kind: "iam-authorization-details",
    name: "bench.authz.json",
    count: 60_000,
    what: (n) => `${n} roles`,
    write: generateAuthorization,
    jq: plainJq,
  },
  {
    label: "prowler-asff",
    kind: "prowler-asff",
    name: "prowler-output.asff.json",
    count: 50_000,
    what: (n) => `${n} findings`,
    write: writeAsffReport,
    jq: plainJq,
  },
  {
    label: "prowler-ocsf (JSON Lines)",
    kind: "prowler-ocsf",
    name: "bench.ocsf.jsonl",
    count: 25_000,
    what: (n) => `${n} findings`,
    write: generateOcsf,
    jq: plainJq,
  },
  {
    label: "checkov",
    kind: "checkov",
    name: "results_json.json",
    count: 100_000,
    what: (n) => `${n} checks`,
    write: writeCheckovReport,
    jq: plainJq,
  },
  {
    label: "trivy",
    kind: "trivy",
    name: "trivy.json",
    count: 80_000,
    what: (n) => `${n} vulnerabilities`,
    write: writeTrivyReport,
    jq: plainJq,
  },
  {
    label: "scoutsuite",
    kind: "scoutsuite",
    name: "scoutsuite_results_aws-bench.js",
    count: 120_000,
    what: (n) => `${n} security groups`,
    write: writeScoutSuiteScript,
    jq: (path) => Promise.resolve(["sh", "-c", 'tail -n +2 "$1" | jq . > /dev/null', "sh", path]),
  },
];

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
  jq: string[];
}

let jqFound: boolean | undefined;

/** Whether jq is installed, looked up once per process (saying so when it is not). */
function hasJq(): boolean {
  if (jqFound === undefined) {
    jqFound = hasProgram("jq");
    if (!jqFound) console.log("skip: jq is not installed; the jq peer benches are ignored");
  }
  return jqFound;
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
    ignore: !hasJq(),
    n: options.runs,
    warmup: 0,
    fn: async (b) => {
      await measure(`${kind.label}-jq`, b, async () => {
        const [command, ...args] = options.jq;
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
