/**
 * Cloud load throughput and true peak memory per input kind, from a client
 * over stdio: for each kind a seeded input is generated once (the writers of
 * `helpers/cloud_import_generators.ts`), then every run starts a fresh server
 * (its root the input's directory), reads its idle RSS, times `load_dataset`
 * on the input and reads the server's VmHWM afterwards. The peer is
 * `jq . FILE > /dev/null` on the same bytes (every JSON file of the AWS dump;
 * the JSON after the first line of ScoutSuite's `.js`), its peak from
 * `/usr/bin/time -f %M` when present.
 *
 * Figures per kind: MB/s (ours and jq's), the load's peak above idle
 * (VmHWM − idle VmRSS) and that peak as a multiple k of the input size — the
 * figure `--max-dataset-bytes` is sized by. Sizes: large ≈ 60 MB per kind and
 * a 100,000-resource Terraform state (≈ 200 MB); medium a quarter; small a
 * twentieth; `CLOUD_LOAD_SCALE=4` multiplies the large sizes instead (to load a
 * file near `--max-dataset-bytes`). `CLOUD_LOAD_KINDS=terraform-state,trivy`
 * runs only those kinds.
 *
 * @module
 */

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
} from "../../helpers/cloud_import_generators.ts";
import { jsonFiles } from "../../helpers/import_bench.ts";
import {
  type BenchContext,
  BenchServer,
  onPath,
  paired,
  runPeer,
  spread,
  structured,
} from "../harness.ts";

interface LoadKind {
  /** Bench label. */
  label: string;
  /** The kind `load_dataset` must report (the summary's `kind`). */
  kind: string;
  /** File or directory name under the temp dir. */
  name: string;
  /** What the generator writes at scale 1. */
  what: (scale: number) => string;
  /** Writes the input; returns its bytes. */
  write: (path: string, scale: number) => Promise<number>;
  /** The jq command over the same bytes. */
  jq: (path: string) => Promise<string[]>;
}

const SCALES = { small: 0.05, medium: 0.25, large: 1 } as const;
const n = (count: number, scale: number): number => Math.max(1, Math.round(count * scale));

async function size(path: string): Promise<number> {
  const info = await Deno.stat(path);
  if (!info.isDirectory) return info.size;
  let total = 0;
  for (const file of await jsonFiles(path)) total += (await Deno.stat(file)).size;
  return total;
}

/** `jq . FILE… > /dev/null`, through `sh` so the output goes where the command sends it. */
const jqToNull = (...files: string[]): string[] => [
  "sh",
  "-c",
  'jq . "$@" > /dev/null',
  "sh",
  ...files,
];
const plainJq = (path: string): Promise<string[]> => Promise.resolve(jqToNull(path));

/** The input kinds, in report order. */
const KINDS: LoadKind[] = [
  {
    label: "terraform-state",
    kind: "terraform",
    name: "bench.tfstate",
    what: (s) => `${n(100_000, s)} resources`,
    write: (path, s) => generateState(path, n(100_000, s)),
    jq: plainJq,
  },
  {
    label: "terraform-plan",
    kind: "terraform-plan",
    name: "plan.json",
    what: (s) => `${n(850, s)} copies of a 55-resource plan`,
    write: (path, s) => writeTerraformPlan(path, n(850, s)),
    jq: plainJq,
  },
  {
    label: "aws-api-dump",
    kind: "aws-api",
    name: "bench-account",
    what: (s) => `4 regions × ${n(2_500, s)} instances`,
    write: async (path, s) => {
      await writeAwsDump(path, { instancesPerRegion: n(2_500, s) });
      return await size(path);
    },
    jq: async (path) => jqToNull(...await jsonFiles(path)),
  },
  {
    label: "iam-authorization",
    kind: "iam-authorization-details",
    name: "bench.authz.json",
    what: (s) => `${n(60_000, s)} roles`,
    write: (path, s) => generateAuthorization(path, n(60_000, s)),
    jq: plainJq,
  },
  {
    label: "prowler-asff",
    kind: "prowler-asff",
    name: "prowler-output.asff.json",
    what: (s) => `${n(50_000, s)} findings`,
    write: (path, s) => writeAsffReport(path, n(50_000, s)),
    jq: plainJq,
  },
  {
    label: "prowler-ocsf (JSON Lines)",
    kind: "prowler-ocsf",
    name: "bench.ocsf.jsonl",
    what: (s) => `${n(25_000, s)} findings`,
    write: (path, s) => generateOcsf(path, n(25_000, s)),
    jq: plainJq,
  },
  {
    label: "checkov",
    kind: "checkov",
    name: "results_json.json",
    what: (s) => `${n(100_000, s)} checks`,
    write: (path, s) => writeCheckovReport(path, n(100_000, s)),
    jq: plainJq,
  },
  {
    label: "trivy",
    kind: "trivy",
    name: "trivy.json",
    what: (s) => `${n(80_000, s)} vulnerabilities`,
    write: (path, s) => writeTrivyReport(path, n(80_000, s)),
    jq: plainJq,
  },
  {
    label: "scoutsuite",
    kind: "scoutsuite",
    name: "scoutsuite_results_aws-bench.js",
    what: (s) => `${n(120_000, s)} security groups`,
    write: (path, s) => writeScoutSuiteScript(path, n(120_000, s)),
    jq: (path) => Promise.resolve(["sh", "-c", 'tail -n +2 "$1" | jq . > /dev/null', "sh", path]),
  },
];

const MiB = 2 ** 20;

/** Runs the load measures. */
export default async function cloudLoad(ctx: BenchContext): Promise<void> {
  const hasJq = await onPath("jq");
  if (!hasJq) ctx.log("jq is not installed: the peer column is left out");
  const only = Deno.env.get("CLOUD_LOAD_KINDS")?.split(",").map((k) => k.trim());
  const kinds = only ? KINDS.filter((k) => only.includes(k.label) || only.includes(k.kind)) : KINDS;
  const scale = Number(Deno.env.get("CLOUD_LOAD_SCALE") ?? SCALES[ctx.size]);
  if (!(scale > 0)) throw new Error("CLOUD_LOAD_SCALE takes a positive number");
  for (const kind of kinds) {
    const dir = await Deno.makeTempDir({ dir: ctx.tempDir, prefix: "load-" });
    const path = `${dir}/${kind.name}`;
    const began = performance.now();
    const bytes = await kind.write(path, scale);
    ctx.log(
      `${kind.label}: ${kind.what(scale)}, ${(bytes / MiB).toFixed(1)} MiB written in ${
        ((performance.now() - began) / 1000).toFixed(1)
      } s`,
    );
    const jqArgs = await kind.jq(path);
    const growth: number[] = [];
    const idle: number[] = [];
    const jqPeaks: number[] = [];
    let records = "";
    let first = true;
    const result = await paired(`${kind.label} load_dataset (${(bytes / MiB).toFixed(0)} MiB)`, {
      peer: "jq . FILE",
      runs: ctx.runs,
      subject: async () => {
        const server = await BenchServer.start({ roots: [dir] });
        try {
          // The start-up peak is not the load's.
          await server.resetPeak();
          const before = await server.memory();
          const call = await server.call("load_dataset", { path });
          const after = await server.memory();
          const result = structured(call).result as Record<string, unknown>;
          const summary = result.summary as Record<string, unknown>;
          if (summary.kind !== kind.kind) {
            throw new Error(`${kind.label} was read as ${summary.kind}, not ${kind.kind}`);
          }
          records = `${summary.total_assets} assets, ${summary.total_edges} edges, ` +
            `${summary.total_findings} findings`;
          if (!first) {
            growth.push(after.peak - before.rss);
            idle.push(before.rss);
          }
          first = false;
          return call.ms;
        } finally {
          await server.close();
        }
      },
      peerRun: async () => {
        if (!hasJq) return NaN;
        const run = await runPeer(jqArgs, { measurePeak: true });
        if (run.peak !== undefined) jqPeaks.push(run.peak);
        return run.ms;
      },
    });
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    if (hasJq) ctx.pairedResult(result);
    const ours = spread(result.subject).median;
    const jq = spread(result.peerTimes).median;
    const peak = spread(growth);
    const mb = bytes / 1e6;
    ctx.figure({
      label: `${kind.label}: throughput`,
      value: `${(mb / (ours / 1000)).toFixed(1)} MB/s`,
      note: `${kind.what(scale)}, ${mb.toFixed(1)} MB → ${records}` +
        (hasJq ? `; jq ${(mb / (jq / 1000)).toFixed(1)} MB/s` : ""),
    });
    const jqPeak = jqPeaks.length ? spread(jqPeaks.slice(1)).median : NaN;
    ctx.figure({
      label: `${kind.label}: peak RSS of the load`,
      value: `${(peak.median / MiB).toFixed(0)} MiB = ${(peak.median / bytes).toFixed(1)}× file`,
      note: `VmHWM − idle VmRSS (idle ${(spread(idle).median / MiB).toFixed(0)} MiB), ` +
        `min ${(peak.min / bytes).toFixed(1)}× max ${(peak.max / bytes).toFixed(1)}×` +
        (Number.isNaN(jqPeak)
          ? ""
          : `; jq peak ${(jqPeak / MiB).toFixed(0)} MiB = ${(jqPeak / bytes).toFixed(1)}× file`),
    });
  }
}
