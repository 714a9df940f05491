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

import {
  benchLoadAgainstJq,
  IMPORT_INPUTS,
  importBenchDir,
  type ImportBenchInput,
  type ImportBenchKind,
  rssMb,
  scaledCount,
  throughputLine,
} from "./helpers/import_bench.ts";
import { loadInput } from "../src/cloud/importers/detect.ts";

/** The kinds `cloud_import_bench.ts` does not cover, in report order. */
const KINDS = [
  "aws-api-dump",
  "checkov",
  "trivy",
  "scoutsuite",
  "prowler-asff",
  "terraform-plan",
];
const SCALE = Number(Deno.env.get("CLOUD_BENCH_IMPORT_SCALE") ?? "1");

const dir = await importBenchDir({ prefix: "casefile-import-kinds-" });
const ONLY = Deno.env.get("CLOUD_BENCH_IMPORT_KINDS")?.split(",").map((k) => k.trim());

interface Kind extends ImportBenchKind {
  input: ImportBenchInput;
  /** The file or directory loaded. */
  path: string;
  /** How many items the generator wrote. */
  count: number;
  /** The jq command line over the same bytes. */
  jq: string[];
}

/** The entry of IMPORT_INPUTS labelled `label`. */
function importInput(label: string): ImportBenchInput {
  const input = IMPORT_INPUTS.find((i) => i.label === label);
  if (!input) throw new Error(`no import bench input is labelled ${label}`);
  return input;
}

const fence = (path: string): Promise<string> => Deno.realPath(path);
const baselineRss = rssMb();

const kinds: Kind[] = [];
for (const label of KINDS.filter((k) => !ONLY || ONLY.includes(k))) {
  const input = importInput(label);
  const path = `${dir}/${input.name}`;
  const count = scaledCount(input.count, SCALE);
  const started = performance.now();
  const megabytes = (await input.write(path, count)) / 2 ** 20;
  kinds.push({
    label,
    input,
    path,
    count,
    jq: await input.jq(path),
    megabytes,
    records: "",
    rss: 0,
  });
  console.log(
    `generated ${label}: ${input.what(count)}, ${megabytes.toFixed(1)} MB in ${
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
      if (loaded.kind !== kind.input.kind) {
        throw new Error(`${kind.label} was read as ${loaded.kind}, not ${kind.input.kind}`);
      }
      const r = loaded.records;
      return `${r.assets.length} assets, ${r.edges.length} edges, ${r.findings.length} findings`;
    },
    jq: kind.jq,
  });
}

globalThis.addEventListener("unload", () => {
  console.log(`\nimport throughput (RSS before any load ${baselineRss.toFixed(0)} MB):`);
  for (const kind of kinds) {
    console.log(
      throughputLine(
        kind,
        `  ${kind.label} (${kind.megabytes.toFixed(1)} MB; ${kind.input.what(kind.count)})`,
      ),
    );
  }
});
