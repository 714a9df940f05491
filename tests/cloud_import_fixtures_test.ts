/**
 * Every data file of the shared cloud fixtures is recognised by exactly the
 * importer meant for it and loads (or, for the two invalid-version states, is
 * refused with the version named). The CIS compliance facts are read by the
 * rules test instead.
 */

import assert from "node:assert/strict";
import { fileImportInput, ImportError } from "../src/cloud/importers/import_input.ts";
import { ImporterRegistry } from "../src/cloud/importers/detect.ts";
import { listDirectory } from "../src/cloud/importers/read.ts";

const ROOT = new URL("../../shared/fixtures/cloud/", import.meta.url).pathname;

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    const path = `${dir}${dir.endsWith("/") ? "" : "/"}${e.name}`;
    if (e.isDirectory) out.push(...walk(path));
    else if (!/(LICENSE|PROVENANCE\.md|README\.md)$/.test(e.name)) out.push(path);
  }
  return out;
}

Deno.test("every cloud fixture file is detected and loaded by its importer", async () => {
  const files = walk(ROOT);
  const covered = new Set<string>();
  const registry = new ImporterRegistry();
  const importerFor = (kind: string) => registry.get(kind);
  const demo = `${ROOT}cloudmapper/account-data/demo`;
  // The account dump is one input: its folder.
  const listing = await listDirectory(demo);
  assert.equal((await registry.detect({ path: demo, fileName: "demo", listing }))?.kind, "aws-api");
  const dump = await importerFor("aws-api")!.load(fileImportInput(demo));
  assert.ok(dump.records.assets.length > 0);
  for (const f of files) if (f.startsWith(demo)) covered.add(f);

  const expected: Record<string, string> = {
    "checkov/tfplan.json": "terraform-plan",
    "cloudsplaining/example-authz-details.json": "iam-authorization-details",
    "prowler/ocsf/test_prowler_output.ocsf.json": "prowler-ocsf",
  };
  for (const f of files) {
    if (covered.has(f) || f.includes("/prowler/compliance/")) {
      covered.add(f);
      continue;
    }
    const rel = f.slice(ROOT.length);
    const parsed = JSON.parse(await Deno.readTextFile(f));
    const found = await registry.detect({ path: f, fileName: "x.json", json: parsed });
    const want = expected[rel] ?? (rel.endsWith(".tfstate") ? "terraform" : "?");
    assert.equal(found?.kind, want, rel);
    const importer = importerFor(want)!;
    if (rel.includes("/invalid/")) {
      await assert.rejects(
        () => importer.load(fileImportInput(f, { json: parsed })),
        (e: unknown) => e instanceof ImportError && /terraform_version/.test(e.message),
        rel,
      );
    } else {
      const result = await importer.load(fileImportInput(f, { json: parsed }));
      const produced = result.records.assets.length + result.records.findings.length +
        Object.values(result.notes.skipped).reduce((a, b) => a + b, 0);
      assert.ok(produced > 0, rel);
    }
    covered.add(f);
  }
  assert.equal(covered.size, files.length);
  // The dump's own authorization details also load alone.
  const iam = await importerFor("iam-authorization-details")!.load(
    fileImportInput(`${demo}/us-east-1/iam-get-account-authorization-details.json`),
  );
  assert.equal(iam.records.assets.filter((a) => a.asset_type === "IAM_ROLE").length, 4);
});
