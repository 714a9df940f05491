/**
 * Load throughput and RSS for the input kinds `cloud_import_bench.ts` does
 * not cover, each on a large seeded input written by
 * `helpers/cloud_import_generators.ts` and loaded through the real loader
 * (`loadInput`: detection, the importer, then our rule set), beside
 * `jq . FILE > /dev/null` on the same bytes in the same run (for the AWS dump
 * directory jq reads every JSON file of it; for ScoutSuite's `.js` jq reads
 * the JSON after the `scoutsuite_results =` line). Default sizes are about
 * 60 MB per kind; `CLOUD_BENCH_IMPORT_SCALE` multiplies them (0.1 for a quick
 * run). `CLOUD_BENCH_IMPORT_KINDS=trivy,checkov` runs only those kinds (one kind
per process gives an RSS figure no earlier load inflates). `CLOUD_BENCH_DIR`
keeps the inputs there instead of a temp directory.
 *
 *   deno bench --no-prompt --allow-read --allow-write --allow-run --allow-env tests/cloud_import_kinds_bench.ts
 */

import { hasProgram } from "./helpers/programs.ts";
import {
  writeAsffReport,
  writeAwsDump,
  writeCheckovReport,
  writeScoutSuiteScript,
  writeTerraformPlan,
  writeTrivyReport,
} from "./helpers/cloud_import_generators.ts";
import {
  benchLoadAgainstJq,
  importBenchDir,
  type ImportBenchKind,
  jsonFiles,
  rssMb,
  throughputLine,
} from "./helpers/import_bench.ts";
import { loadInput } from "../src/cloud/importers/detect.ts";

const SCALE = Number(Deno.env.get("CLOUD_BENCH_IMPORT_SCALE") ?? "1");
const HAS_JQ = hasProgram("jq");
if (!HAS_JQ) console.log("skip: jq is not installed; the jq peer benches are ignored");

const dir = await importBenchDir({ prefix: "casefile-import-kinds-" });
const ONLY = Deno.env.get("CLOUD_BENCH_IMPORT_KINDS")?.split(",").map((k) => k.trim());
const scaled = (n: number): number => Math.max(1, Math.round(n * SCALE));

interface Kind extends ImportBenchKind {
  /** The file or directory loaded. */
  path: string;
  /** Expected detected kind. */
  kind: string;
  /** What the generator wrote, for the log. */
  what: string;
  write: () => Promise<number>;
  /** The jq command line over the same bytes. */
  jq: () => string[];
}

const dumpFiles: string[] = [];
const kinds: Kind[] = [
  {
    label: "aws-api-dump",
    path: `${dir}/bench-account`,
    kind: "aws-api",
    what: `4 regions × ${scaled(2_500)} instances (+ENIs, SGs, subnets, VPCs)`,
    write: async () => {
      const bytes = await writeAwsDump(`${dir}/bench-account`, {
        instancesPerRegion: scaled(2_500),
      });
      dumpFiles.push(...await jsonFiles(`${dir}/bench-account`));
      return bytes;
    },
    jq: () => ["jq", ".", ...dumpFiles],
  },
  {
    label: "checkov",
    path: `${dir}/results_json.json`,
    kind: "checkov",
    what: `${scaled(100_000)} checks`,
    write: () => writeCheckovReport(`${dir}/results_json.json`, scaled(100_000)),
    jq: () => ["jq", ".", `${dir}/results_json.json`],
  },
  {
    label: "trivy",
    path: `${dir}/trivy.json`,
    kind: "trivy",
    what: `${scaled(80_000)} vulnerabilities`,
    write: () => writeTrivyReport(`${dir}/trivy.json`, scaled(80_000)),
    jq: () => ["jq", ".", `${dir}/trivy.json`],
  },
  {
    label: "scoutsuite",
    path: `${dir}/scoutsuite_results_aws-bench.js`,
    kind: "scoutsuite",
    what: `${scaled(120_000)} security groups`,
    write: () => writeScoutSuiteScript(`${dir}/scoutsuite_results_aws-bench.js`, scaled(120_000)),
    jq: () => [
      "sh",
      "-c",
      'tail -n +2 "$1" | jq . > /dev/null',
      "sh",
      `${dir}/scoutsuite_results_aws-bench.js`,
    ],
  },
  {
    label: "prowler-asff",
    path: `${dir}/prowler-output.asff.json`,
    kind: "prowler-asff",
    what: `${scaled(50_000)} findings`,
    write: () => writeAsffReport(`${dir}/prowler-output.asff.json`, scaled(50_000)),
    jq: () => ["jq", ".", `${dir}/prowler-output.asff.json`],
  },
  {
    label: "terraform-plan",
    path: `${dir}/plan.json`,
    kind: "terraform-plan",
    what: `${scaled(850)} copies of the fixture plan's 55 resources`,
    write: () => writeTerraformPlan(`${dir}/plan.json`, scaled(850)),
    jq: () => ["jq", ".", `${dir}/plan.json`],
  },
].map((k) => ({ ...k, megabytes: 0, records: "", rss: 0 }))
  .filter((k) => !ONLY || ONLY.includes(k.label));

const fence = (path: string): Promise<string> => Deno.realPath(path);
const baselineRss = rssMb();

for (const kind of kinds) {
  const started = performance.now();
  kind.megabytes = (await kind.write()) / 2 ** 20;
  console.log(
    `generated ${kind.label}: ${kind.what}, ${kind.megabytes.toFixed(1)} MB in ${
      ((performance.now() - started) / 1000).toFixed(1)
    } s`,
  );
}

for (const kind of kinds) {
  benchLoadAgainstJq(kind, {
    loadName: "loadInput",
    runs: 3,
    load: async () => {
      const loaded = await loadInput(kind.path, { fence });
      if (loaded.kind !== kind.kind) {
        throw new Error(`${kind.label} was read as ${loaded.kind}, not ${kind.kind}`);
      }
      const r = loaded.records;
      return `${r.assets.length} assets, ${r.edges.length} edges, ${r.findings.length} findings`;
    },
    jq: kind.jq,
    hasJq: HAS_JQ,
  });
}

globalThis.addEventListener("unload", () => {
  console.log(`\nimport throughput (RSS before any load ${baselineRss.toFixed(0)} MB):`);
  for (const kind of kinds) {
    console.log(
      throughputLine(kind, `  ${kind.label} (${kind.megabytes.toFixed(1)} MB; ${kind.what})`),
    );
  }
});
