/**
 * Prowler's CSV output (`prowler -M csv`): semicolon-separated, with a header
 * that names its columns, Prowler 4/5's and Prowler 3's. Failed checks are
 * findings (a muted one suppressed, with why); passed and manual ones are
 * counted.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ImporterRegistry, loadInput } from "../src/cloud/importers/detect.ts";
import { LoadError } from "../src/cloud/model/errors.ts";
import { fileImportInput, ImportError } from "../src/cloud/importers/import_input.ts";
import { prowlerCsvImporter, prowlerCsvTime } from "../src/cloud/importers/prowler_csv.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const fence = (path: string) => Promise.resolve(path);

/** A CSV of `rows` under `header`, each row given by column. */
function csv(header: string[], rows: Record<string, string>[]): string {
  const quote = (v: string) => /[;"\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
  return [header.join(";"), ...rows.map((r) => header.map((h) => quote(r[h] ?? "")).join(";"))]
    .join("\n") + "\n";
}

// The columns Prowler 4 and 5 write (the first ones, and those read).
const V4 = [
  "AUTH_METHOD",
  "TIMESTAMP",
  "ACCOUNT_UID",
  "FINDING_UID",
  "PROVIDER",
  "CHECK_ID",
  "CHECK_TITLE",
  "STATUS",
  "STATUS_EXTENDED",
  "MUTED",
  "SEVERITY",
  "RESOURCE_TYPE",
  "RESOURCE_UID",
  "REGION",
  "DESCRIPTION",
  "REMEDIATION_RECOMMENDATION_TEXT",
  "COMPLIANCE",
];
// Prowler 3's.
const V3 = [
  "ASSESSMENT_START_TIME",
  "FINDING_UNIQUE_ID",
  "PROVIDER",
  "CHECK_ID",
  "CHECK_TITLE",
  "STATUS",
  "STATUS_EXTENDED",
  "SEVERITY",
  "RESOURCE_TYPE",
  "ACCOUNT_ID",
  "REGION",
  "RESOURCE_ID",
  "RESOURCE_ARN",
];

const ROLE = "arn:aws:iam::123456789012:role/admin";
const row = (extra: Record<string, string>) => ({
  AUTH_METHOD: "profile: default",
  TIMESTAMP: "2025-02-14 14:27:20.697446",
  ACCOUNT_UID: "123456789012",
  PROVIDER: "aws",
  CHECK_TITLE: "Ensure IAM roles do not have AdministratorAccess",
  SEVERITY: "high",
  RESOURCE_TYPE: "AwsIamRole",
  REGION: "us-east-1",
  MUTED: "False",
  ...extra,
});

Deno.test("prowler-csv: failed checks become findings, a muted one suppressed; passed and manual ones are counted; quoted cells keep their semicolons", async () => {
  const text = csv(V4, [
    row({
      FINDING_UID: "prowler-aws-iam_role_administratoraccess_policy-1",
      CHECK_ID: "iam_role_administratoraccess_policy",
      STATUS: "FAIL",
      // Quoted by the writer: a semicolon and a line break inside one cell.
      STATUS_EXTENDED: "IAM Role admin has AdministratorAccess; detach it.\nSee the policy.",
      RESOURCE_UID: ROLE,
      COMPLIANCE: "CIS-2.0: 1.16 | NIST-800-53-Revision-5: ac_2, ac_3",
      REMEDIATION_RECOMMENDATION_TEXT: "Apply least privilege.",
    }),
    row({ FINDING_UID: "f-2", CHECK_ID: "iam_root_mfa_enabled", STATUS: "PASS" }),
    row({ FINDING_UID: "f-3", CHECK_ID: "iam_x", STATUS: "FAIL", MUTED: "True" }),
    row({ FINDING_UID: "f-4", CHECK_ID: "iam_y", STATUS: "MANUAL" }),
  ]);
  await withTempDir(async (dir) => {
    const path = join(dir, "prowler-output-123456789012-20250214142720.csv");
    await Deno.writeTextFile(path, text);
    // Detected from its header, and read the same through the `prowler` kind.
    const loaded = await loadInput(path, { fence });
    assert.equal(loaded.kind, "prowler-csv");
    const viaProwler = await new ImporterRegistry().get("prowler")!.load(fileImportInput(path));
    assert.deepEqual(viaProwler.records.findings, loaded.records.findings);
    assert.deepEqual(loaded.notes.skipped, { "passed check": 1, "status MANUAL": 1 });
    assert.deepEqual(
      loaded.records.findings.map((x) => [x.id, x.is_suppressed]),
      [["prowler-aws-iam_role_administratoraccess_policy-1", false], ["f-3", true]],
    );
    assert.match(loaded.records.suppression_reasons["f-3"]!, /Muted in Prowler/);
    assert.deepEqual(Object.keys(loaded.records.suppression_reasons), ["f-3"]);
    const f = loaded.records.findings[0]!;
    assert.equal(f.id, "prowler-aws-iam_role_administratoraccess_policy-1");
    assert.equal(f.resource_id, ROLE);
    assert.equal(f.resource_arn, ROLE);
    assert.equal(f.severity, "HIGH");
    assert.equal(f.source_tool, "prowler");
    assert.equal(f.source_finding_id, "iam_role_administratoraccess_policy");
    assert.equal(f.evidence, "IAM Role admin has AdministratorAccess; detach it.\nSee the policy.");
    assert.equal(f.detected_at, "2025-02-14T14:27:20.697Z");
    assert.ok(f.compliance_frameworks.includes("CIS-AWS"), f.compliance_frameworks.join(", "));
    assert.deepEqual(loaded.records.regions, ["us-east-1"]);
  });
});

Deno.test("prowler-csv: Prowler 3's columns (ASSESSMENT_START_TIME, RESOURCE_ARN) are read too", async () => {
  const text = csv(V3, [{
    ASSESSMENT_START_TIME: "2023-05-04T10:11:12.000000",
    FINDING_UNIQUE_ID: "prowler-aws-s3_bucket_public_access-1",
    PROVIDER: "aws",
    CHECK_ID: "s3_bucket_public_access",
    CHECK_TITLE: "Ensure there are no S3 buckets open to Everyone",
    STATUS: "FAIL",
    SEVERITY: "critical",
    ACCOUNT_ID: "123456789012",
    REGION: "eu-west-1",
    RESOURCE_ID: "shop-assets",
    RESOURCE_ARN: "arn:aws:s3:::shop-assets",
  }]);
  await withTempDir(async (dir) => {
    const path = join(dir, "v3.csv");
    await Deno.writeTextFile(path, text);
    const r = await prowlerCsvImporter.load(fileImportInput(path));
    assert.deepEqual(
      r.records.findings.map((f) => [f.id, f.resource_id, f.severity, f.detected_at]),
      [[
        "prowler-aws-s3_bucket_public_access-1",
        "arn:aws:s3:::shop-assets",
        "CRITICAL",
        "2023-05-04T10:11:12.000Z",
      ]],
    );
  });
});

Deno.test("prowler-csv: another CSV is no known kind, and refused clearly when forced", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "other.csv");
    await Deno.writeTextFile(path, "name;status;severity\nx;FAIL;high\n");
    await assert.rejects(() => loadInput(path, { fence }), LoadError);
    await assert.rejects(
      () => prowlerCsvImporter.load(fileImportInput(path)),
      (e: unknown) =>
        e instanceof ImportError && /not Prowler CSV/.test(e.message) && /-M csv/.test(e.message),
    );
  });
  assert.equal(prowlerCsvTime("garbage"), null);
  assert.equal(prowlerCsvTime("2025-02-14 14:27:20+02:00"), "2025-02-14T12:27:20.000Z");
});
