/**
 * Load throughput per input kind on large generated inputs, each beside
 * `jq . FILE > /dev/null` on the same file in the same run: a seeded Terraform
 * state (100,000 resources ≈ 200 MB by default, `CLOUD_BENCH_RESOURCES`), Prowler
 * OCSF JSON Lines (`CLOUD_BENCH_FINDINGS`, default 40,000 findings) and IAM
 * authorization details (`CLOUD_BENCH_ROLES`, default 20,000 roles).
 * Prints MB/s for both and the RSS with the loaded records still alive.
 */

import { compareTo, measure, median } from "./helpers/bench_stats.ts";
import { hasProgram } from "./helpers/programs.ts";
import {
  generateAuthorization,
  generateOcsf,
  generateState,
} from "./helpers/cloud_import_generators.ts";
import { fileImportInput } from "../src/cloud/importers/import_input.ts";
import type { Importer } from "../src/cloud/importers/importer.ts";
import { terraformStateImporter } from "../src/cloud/importers/terraform_state.ts";
import { prowlerOcsfImporter } from "../src/cloud/importers/prowler_ocsf.ts";
import { iamAuthorizationImporter } from "../src/cloud/importers/iam_authorization.ts";

const COUNT = Number(Deno.env.get("CLOUD_BENCH_RESOURCES") ?? "100000");
const FINDINGS = Number(Deno.env.get("CLOUD_BENCH_FINDINGS") ?? "40000");
const ROLES = Number(Deno.env.get("CLOUD_BENCH_ROLES") ?? "20000");
const HAS_JQ = hasProgram("jq");
if (!HAS_JQ) console.log("skip: jq is not installed; the jq peer bench is ignored");

/** Resident set size now, in MB (Deno denies /proc/self/status without --allow-all). */
function rssMb(): number {
  return Deno.memoryUsage().rss / 1024 / 1024;
}

const dir = Deno.env.get("CLOUD_BENCH_DIR") ?? await Deno.makeTempDir();

interface Kind {
  label: string;
  path: string;
  megabytes: number;
  importer: Importer;
  items: number;
  rss: number;
}

const kinds: Kind[] = [];
for (
  const [label, file, importer, generate, n] of [
    ["terraform", "bench.tfstate", terraformStateImporter, generateState, COUNT],
    ["prowler-ocsf", "bench.ocsf.jsonl", prowlerOcsfImporter, generateOcsf, FINDINGS],
    [
      "iam-authorization-details",
      "bench.authz.json",
      iamAuthorizationImporter,
      generateAuthorization,
      ROLES,
    ],
  ] as const
) {
  const path = `${dir}/${file}`;
  const bytes = await generate(path, n);
  kinds.push({ label, path, megabytes: bytes / 1024 / 1024, importer, items: 0, rss: 0 });
  console.log(`generated ${label}: ${n} items, ${(bytes / 1024 / 1024).toFixed(1)} MB`);
}

for (const kind of kinds) {
  Deno.bench({
    name: `${kind.label}: importer load`,
    group: kind.label,
    baseline: true,
    n: 2,
    warmup: 0,
    fn: async (b) => {
      await measure(`${kind.label}-load`, b, async () => {
        const result = await kind.importer.load(fileImportInput(kind.path));
        kind.items = result.records.assets.length + result.records.findings.length;
        // Sampled while the records are alive: close to the load's peak.
        kind.rss = Math.max(kind.rss, rssMb());
      });
    },
  });
  Deno.bench({
    name: `${kind.label}: jq . FILE > /dev/null`,
    group: kind.label,
    ignore: !HAS_JQ,
    n: 2,
    warmup: 0,
    fn: async (b) => {
      await measure(`${kind.label}-jq`, b, async () => {
        const out = await new Deno.Command("jq", {
          args: [".", kind.path],
          stdout: "null",
          stderr: "null",
        }).output();
        if (!out.success) throw new Error("jq failed");
      });
    },
  });
  compareTo(`${kind.label} load vs jq`, `${kind.label}-load`, `${kind.label}-jq`, null);
}

globalThis.addEventListener("unload", () => {
  for (const kind of kinds) {
    const load = median(`${kind.label}-load`);
    const jq = median(`${kind.label}-jq`);
    const parts = [`${kind.label} (${kind.megabytes.toFixed(1)} MB)`];
    if (!Number.isNaN(load)) {
      parts.push(`load ${(kind.megabytes / (load / 1000)).toFixed(1)} MB/s, ${kind.items} records`);
      parts.push(`RSS with records alive ${kind.rss.toFixed(0)} MB`);
    }
    if (!Number.isNaN(jq)) parts.push(`jq ${(kind.megabytes / (jq / 1000)).toFixed(1)} MB/s`);
    console.log(parts.join("; "));
  }
  if (Deno.env.get("CLOUD_BENCH_DIR")) return;
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch {
    // already gone
  }
});
