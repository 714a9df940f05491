/**
 * Load throughput per input kind on large generated inputs, each beside
 * `jq . FILE > /dev/null` on the same file in the same run: a seeded Terraform
 * state (100,000 resources ≈ 200 MB by default, `CLOUD_BENCH_RESOURCES`), Prowler
 * OCSF JSON Lines (`CLOUD_BENCH_FINDINGS`, default 40,000 findings) and IAM
 * authorization details (`CLOUD_BENCH_ROLES`, default 20,000 roles).
 * Prints MB/s for both and the RSS with the loaded records still alive.
 */

import {
  generateAuthorization,
  generateOcsf,
  generateState,
} from "./helpers/cloud_import_generators.ts";
import {
  benchLoadAgainstJq,
  importBenchDir,
  type ImportBenchKind,
  throughputLine,
} from "./helpers/import_bench.ts";
import { fileImportInput } from "../src/cloud/importers/import_input.ts";
import type { Importer } from "../src/cloud/importers/importer.ts";
import { terraformStateImporter } from "../src/cloud/importers/terraform_state.ts";
import { prowlerOcsfImporter } from "../src/cloud/importers/prowler_ocsf.ts";
import { iamAuthorizationImporter } from "../src/cloud/importers/iam_authorization.ts";

const COUNT = Number(Deno.env.get("CLOUD_BENCH_RESOURCES") ?? "100000");
const FINDINGS = Number(Deno.env.get("CLOUD_BENCH_FINDINGS") ?? "40000");
const ROLES = Number(Deno.env.get("CLOUD_BENCH_ROLES") ?? "20000");

const dir = await importBenchDir();

interface Kind extends ImportBenchKind {
  path: string;
  importer: Importer;
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
  kinds.push({ label, path, megabytes: bytes / 1024 / 1024, importer, records: "", rss: 0 });
  console.log(`generated ${label}: ${n} items, ${(bytes / 1024 / 1024).toFixed(1)} MB`);
}

for (const kind of kinds) {
  benchLoadAgainstJq(kind, {
    loadName: "importer load",
    runs: 2,
    load: async () => {
      const result = await kind.importer.load(fileImportInput(kind.path));
      return `${result.records.assets.length + result.records.findings.length} records`;
    },
    jq: ["jq", ".", kind.path],
  });
}

globalThis.addEventListener("unload", () => {
  for (const kind of kinds) {
    console.log(throughputLine(kind, `${kind.label} (${kind.megabytes.toFixed(1)} MB)`));
  }
});
