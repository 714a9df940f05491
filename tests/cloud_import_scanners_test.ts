/**
 * Scanner report importers: Prowler OCSF (the shared fixture, as a JSON array
 * and as JSON Lines), and samples written from the public formats of Prowler
 * ASFF, Checkov, Trivy and ScoutSuite. Each finding keeps the resource id as
 * the scanner named it; severities and compliance tags are normalised.
 */

import assert from "node:assert/strict";
import { fileImportInput, ImportError } from "../src/cloud/importers/import_input.ts";
import { ocsfTime, prowlerOcsfImporter } from "../src/cloud/importers/prowler_ocsf.ts";
import { OCSF_MUTED_REASON } from "../src/cloud/importers/prowler_ocsf.ts";
import { prowlerAsffImporter } from "../src/cloud/importers/prowler_asff.ts";
import { checkovImporter } from "../src/cloud/importers/checkov_results.ts";
import { trivyImporter } from "../src/cloud/importers/trivy_report.ts";
import { scoutSuiteImporter } from "../src/cloud/importers/scoutsuite_results.ts";
import { ImporterRegistry } from "../src/cloud/importers/detect.ts";
import { normaliseFrameworks, normaliseSeverity } from "../src/cloud/importers/scanner_common.ts";
import { ASFF_REPORT, CHECKOV_REPORT, TRIVY_REPORT } from "./helpers/cloud_scanner_samples.ts";
import { SCOUTSUITE_SCRIPT } from "./helpers/cloud_scanner_samples.ts";
import { withTempDir } from "./helpers/temp_dir.ts";
import { hasProgram, run } from "./helpers/programs.ts";
import { sharedFixture } from "./helpers/shared_fixtures.ts";

const OCSF = sharedFixture("cloud/prowler/ocsf/test_prowler_output.ocsf.json");

const HAS_JQ = hasProgram("jq");
if (!HAS_JQ) console.log("jq is not on PATH: the ASFF product-name test is skipped");

async function withFiles(
  files: Record<string, string>,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  await withTempDir(async (dir) => {
    for (const [name, text] of Object.entries(files)) {
      const path = `${dir}/${name}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, text);
    }
    await fn(dir);
  });
}

Deno.test("prowlerOcsfImporter: one failed finding kept, two passed counted (array and JSON Lines)", async () => {
  // jq -c '.[] | {status_code, severity, uid: .finding_info.uid, r: [.resources[].uid]}' test_prowler_output.ocsf.json
  const a = await prowlerOcsfImporter.load(fileImportInput(OCSF));
  assert.equal(a.records.findings.length, 1);
  assert.equal(a.notes.skipped["passed check"], 2);
  const f = a.records.findings[0]!;
  assert.equal(f.id, "prowler-aws-accessanalyzer_enabled-123456789012-us-east-1-123456789012");
  assert.equal(f.resource_id, "arn:aws:iam::123456789012:root");
  assert.equal(f.resource_arn, "arn:aws:iam::123456789012:root");
  assert.equal(f.severity, "LOW");
  assert.equal(f.source_finding_id, "accessanalyzer_enabled");
  assert.deepEqual(f.compliance_frameworks, ["CIS", "CIS-AWS"]);
  assert.equal(f.remediation, "Enable IAM Access Analyzer for all accounts.");
  const lines = (JSON.parse(await Deno.readTextFile(OCSF)) as unknown[]).map((x) =>
    JSON.stringify(x)
  ).join("\n");
  await withFiles({ "out.ocsf.jsonl": lines }, async (dir) => {
    const b = await prowlerOcsfImporter.load(fileImportInput(`${dir}/out.ocsf.jsonl`));
    assert.deepEqual(b.records.findings, a.records.findings);
  });
  await withFiles({ "cut.jsonl": lines.slice(0, lines.length - 200) }, async (dir) => {
    await assert.rejects(
      () => prowlerOcsfImporter.load(fileImportInput(`${dir}/cut.jsonl`)),
      (e: unknown) => e instanceof ImportError && /line 3 is not a JSON object/.test(e.message),
    );
  });
});

Deno.test("prowlerOcsfImporter: a failed check Prowler muted (status Suppressed) is kept as a suppressed finding", async () => {
  const [failed] = (JSON.parse(await Deno.readTextFile(OCSF)) as Record<string, unknown>[])
    .filter((f) => f.status_code === "FAIL");
  const muted = {
    ...failed,
    status: "Suppressed",
    finding_info: { ...(failed!.finding_info as object), uid: "muted-one" },
  };
  const r = await prowlerOcsfImporter.load({
    ...fileImportInput("muted.ocsf.json"),
    json: [failed, muted],
  });
  assert.deepEqual(
    r.records.findings.map((f) => [f.id, f.is_suppressed]),
    [[(failed!.finding_info as { uid: string }).uid, false], ["muted-one", true]],
  );
  assert.deepEqual(r.records.suppression_reasons, { "muted-one": OCSF_MUTED_REASON });
  assert.equal(r.notes.skipped["muted check"], undefined);
});

Deno.test("prowlerAsffImporter: failed findings with normalised tags", async () => {
  await withFiles({ "p.asff.json": JSON.stringify(ASFF_REPORT) }, async (dir) => {
    const r = await prowlerAsffImporter.load(fileImportInput(`${dir}/p.asff.json`));
    assert.equal(r.records.findings.length, 1);
    assert.equal(r.notes.skipped["passed check"], 1);
    const f = r.records.findings[0]!;
    assert.equal(f.resource_arn, "arn:aws:s3:::data");
    assert.equal(f.severity, "CRITICAL");
    assert.deepEqual(f.compliance_frameworks, ["CIS", "CIS-AWS", "PCI-DSS"]);
    assert.equal(f.remediation, "Remove the public grant.");
  });
});

Deno.test("checkovImporter: failed checks keyed by Terraform address, from a file or a folder", async () => {
  await withFiles({ "out/results_json.json": JSON.stringify(CHECKOV_REPORT) }, async (dir) => {
    for (const path of [`${dir}/out/results_json.json`, `${dir}/out`]) {
      const r = await checkovImporter.load(fileImportInput(path));
      assert.deepEqual(
        r.records.findings.map((f) => [f.resource_id, f.severity, f.source_finding_id]),
        [
          ["aws_s3_bucket.data", "HIGH", "CKV_AWS_20"],
          ["aws_security_group.web-node", "MEDIUM", "CKV_AWS_24"],
        ],
      );
      assert.equal(r.notes.skipped["passed check"], 1);
      assert.equal(r.records.findings[0]!.evidence, "/s3.tf:1-13");
    }
  });
});

Deno.test("trivyImporter: vulnerabilities with CVSS, failed misconfigurations and secrets without their value", async () => {
  await withFiles({ "t.json": JSON.stringify(TRIVY_REPORT) }, async (dir) => {
    const r = await trivyImporter.load(fileImportInput(`${dir}/t.json`));
    assert.equal(r.records.findings.length, 3);
    const cve = r.records.findings.find((f) => f.source_finding_id === "CVE-2021-36159")!;
    assert.equal(cve.resource_id, "registry.example.invalid/shop/web:1.4");
    assert.equal(cve.cvss_score, 9.1);
    assert.equal(cve.severity, "CRITICAL");
    assert.deepEqual(cve.compliance_frameworks, ["CVE"]);
    assert.equal(r.notes.skipped["passed check"], 1);
    const secret = r.records.findings.find((f) => f.source_finding_id === "aws-access-key-id")!;
    assert.equal(secret.evidence, "app/.env:3");
    assert.ok(!JSON.stringify(r).includes("AWS_ACCESS_KEY_ID="));
  });
});

Deno.test("trivyImporter: not_affected vulnerabilities are skipped; an unnamed image is named by its OS target; a filesystem scan's findings sit on their files", async () => {
  // Shaped as DefectDojo's unittests/scans/trivy/all_statuses.json (ArtifactName "", one OS
  // target) and misconfigurations_and_secrets.json (an fs scan of ".").
  const vuln = (id: string, status: string) => ({
    VulnerabilityID: id,
    PkgName: "bash",
    InstalledVersion: "5.0-4",
    Status: status,
    Severity: "LOW",
  });
  const image = {
    SchemaVersion: 2,
    ArtifactName: "",
    ArtifactType: "container_image",
    Results: [{
      Target: "example/app:main-159 (debian 10.13)",
      Class: "os-pkgs",
      Type: "debian",
      Vulnerabilities: [
        vuln("CVE-2019-18276", "not_affected"),
        vuln("CVE-2022-3715", "affected"),
        vuln("CVE-2019-9192", "will_not_fix"),
      ],
    }],
  };
  const fs = {
    SchemaVersion: 2,
    ArtifactName: ".",
    ArtifactType: "filesystem",
    Results: [
      {
        Target: "requirements.txt",
        Class: "lang-pkgs",
        Type: "pip",
        Vulnerabilities: [{ ...vuln("CVE-2023-43804", "fixed"), PkgName: "urllib3" }],
      },
      {
        Target: "secret.txt",
        Class: "secret",
        Secrets: [{ RuleID: "github-pat", Category: "GitHub", Severity: "CRITICAL", StartLine: 1 }],
      },
    ],
  };
  await withFiles(
    { "i.json": JSON.stringify(image), "f.json": JSON.stringify(fs) },
    async (dir) => {
      const i = await trivyImporter.load(fileImportInput(`${dir}/i.json`));
      assert.deepEqual(
        i.records.findings.map((f) => [f.source_finding_id, f.resource_id]),
        [["CVE-2022-3715", "example/app:main-159"], ["CVE-2019-9192", "example/app:main-159"]],
      );
      assert.equal(i.notes.skipped["not affected"], 1);
      const f = await trivyImporter.load(fileImportInput(`${dir}/f.json`));
      assert.deepEqual(
        f.records.findings.map((x) => [x.source_finding_id, x.resource_id]),
        [["CVE-2023-43804", "requirements.txt"], ["github-pat", "secret.txt"]],
      );
    },
  );
});

Deno.test("scoutSuiteImporter: flagged items become findings on the named resource", async () => {
  await withFiles(
    { "report/scoutsuite-results/scoutsuite_results_aws-demo.js": SCOUTSUITE_SCRIPT },
    async (dir) => {
      const r = await scoutSuiteImporter.load(fileImportInput(`${dir}/report`));
      assert.deepEqual(r.records.findings.map((f) => [f.resource_id, f.severity]).sort(), [
        ["cloudmapper_demo", "MEDIUM"],
        ["sg-00000008", "HIGH"],
      ]);
      assert.equal(r.notes.skipped["rule with no flagged item"], 1);
      const ssh = r.records.findings.find((f) => f.resource_id === "sg-00000008")!;
      assert.deepEqual(ssh.compliance_frameworks, ["CIS", "CIS-AWS"]);
    },
  );
  await withFiles(
    { "scoutsuite_results_aws-x.js": SCOUTSUITE_SCRIPT.slice(0, 300) },
    async (dir) => {
      await assert.rejects(
        () => scoutSuiteImporter.load(fileImportInput(`${dir}/scoutsuite_results_aws-x.js`)),
        (e: unknown) =>
          e instanceof ImportError && /not valid JSON/.test(e.message) &&
          /truncated/.test(e.message),
      );
    },
  );
});

Deno.test("scanner importers refuse a report of another kind", async () => {
  await withFiles({
    "t.json": JSON.stringify(TRIVY_REPORT),
    "c.json": JSON.stringify(CHECKOV_REPORT),
  }, async (dir) => {
    await assert.rejects(
      () => checkovImporter.load(fileImportInput(`${dir}/t.json`)),
      (e: unknown) => e instanceof ImportError && /not Checkov output/.test(e.message),
    );
    await assert.rejects(
      () => trivyImporter.load(fileImportInput(`${dir}/c.json`)),
      (e: unknown) => e instanceof ImportError && /not a Trivy report/.test(e.message),
    );
    await assert.rejects(
      () => prowlerAsffImporter.load(fileImportInput(OCSF)),
      (e: unknown) => e instanceof ImportError && /not ASFF/.test(e.message),
    );
    await assert.rejects(
      () => prowlerOcsfImporter.load(fileImportInput(`${dir}/c.json`)),
      (e: unknown) => e instanceof ImportError && /not Prowler OCSF/.test(e.message),
    );
    await assert.rejects(
      () => scoutSuiteImporter.load(fileImportInput(`${dir}/c.json`)),
      (e: unknown) => e instanceof ImportError && /not a ScoutSuite results script/.test(e.message),
    );
  });
});

Deno.test("the registry detects each scanner sample as its own kind", async () => {
  const samples: [string, unknown][] = [
    ["trivy", TRIVY_REPORT],
    ["checkov", CHECKOV_REPORT],
    ["prowler-asff", ASFF_REPORT],
    ["prowler-ocsf", JSON.parse(await Deno.readTextFile(OCSF))],
  ];
  const registry = new ImporterRegistry();
  for (const [kind, value] of samples) {
    const found = await registry.detect({ path: "/x.json", fileName: "x.json", json: value });
    assert.equal(found?.kind, kind);
  }
});

Deno.test("normaliseSeverity() and normaliseFrameworks()", () => {
  assert.equal(normaliseSeverity("Informational"), "INFO");
  assert.equal(normaliseSeverity(4), "HIGH");
  assert.equal(normaliseSeverity("moderate"), "MEDIUM");
  assert.equal(normaliseSeverity("danger"), "HIGH");
  assert.equal(normaliseSeverity(null, "LOW"), "LOW");
  assert.deepEqual(normaliseFrameworks("CIS-3.0", "gcp"), ["CIS", "CIS-GCP"]);
  assert.deepEqual(normaliseFrameworks("NIST-800-53-Revision-5", null), ["NIST-800-53"]);
  assert.deepEqual(normaliseFrameworks("ENS-RD2022", null), ["ENS-RD2022"]);
  // A tag naming its provider keeps it, even when the resource does not say which cloud it is.
  assert.deepEqual(normaliseFrameworks("CIS-GCP", null), ["CIS", "CIS-GCP"]);
  assert.deepEqual(normaliseFrameworks("CIS-Azure", null), ["CIS", "CIS-AZURE"]);
  // Prowler names both AWS programmes; only the first is the Security Best Practices standard.
  assert.deepEqual(normaliseFrameworks("AWS-Foundational-Security-Best-Practices", "aws"), [
    "AWS-Foundational-Security-Best-Practices",
  ]);
  assert.deepEqual(normaliseFrameworks("AWS-Foundational-Technical-Review", "aws"), [
    "AWS-Foundational-Technical-Review",
  ]);
  // Security Hub standards, by ARN or by id.
  assert.deepEqual(
    normaliseFrameworks(
      "arn:aws:securityhub:::ruleset/cis-aws-foundations-benchmark/v/1.2.0",
      null,
    ),
    ["CIS", "CIS-AWS"],
  );
  assert.deepEqual(normaliseFrameworks("standards/pci-dss/v/3.2.1", "AWS"), ["PCI-DSS"]);
});

Deno.test("prowlerAsffImporter: a Security Hub control finding is tagged with its standard", async () => {
  // aws securityhub get-findings: the standard of a control finding is in ProductFields.
  const finding = {
    SchemaVersion: "2018-10-08",
    Id: "arn:aws:securityhub:us-east-1:012345678912:subscription/x/finding/1",
    ProductArn: "arn:aws:securityhub:us-east-1::product/aws/securityhub",
    GeneratorId: "aws-foundational-security-best-practices/v/1.0.0/EC2.2",
    AwsAccountId: "012345678912",
    Severity: { Label: "HIGH" },
    Title: "EC2.2 The VPC default security group should not allow inbound and outbound traffic",
    ProductFields: {
      StandardsArn:
        "arn:aws:securityhub:::standards/aws-foundational-security-best-practices/v/1.0.0",
    },
    Resources: [{
      Type: "AwsEc2SecurityGroup",
      Id: "arn:aws:ec2:us-east-1:012345678912:security-group/sg-1",
    }],
    Compliance: { Status: "FAILED" },
  };
  const r = await prowlerAsffImporter.load({
    ...fileImportInput("sh.json"),
    json: { Findings: [finding] },
  });
  assert.deepEqual(r.records.findings[0]!.compliance_frameworks, [
    "AWS-Foundational-Security-Best-Practices",
  ]);
});

Deno.test("prowlerAsffImporter: archived records and resolved workflows are counted, suppressed workflows kept suppressed, none open", async () => {
  // Security Hub counts a finding as open only while RecordState is ACTIVE and its workflow is
  // NEW or NOTIFIED.
  const finding = (id: string, extra: Record<string, unknown>) => ({
    SchemaVersion: "2018-10-08",
    Id: id,
    ProductArn: "arn:aws:securityhub:us-east-1::product/aws/securityhub",
    GeneratorId: "aws-foundational-security-best-practices/v/1.0.0/S3.1",
    AwsAccountId: "012345678912",
    Severity: { Label: "MEDIUM" },
    Title: "S3.1",
    Resources: [{ Type: "AwsAccount", Id: `AWS::::Account:012345678912:${id}` }],
    RecordState: "ACTIVE",
    Workflow: { Status: "NEW" },
    ...extra,
  });
  const r = await prowlerAsffImporter.load({
    ...fileImportInput("sh.json"),
    json: {
      Findings: [
        finding("open", { Compliance: { Status: "FAILED" } }),
        finding("notified", { Compliance: { Status: "FAILED" }, Workflow: { Status: "NOTIFIED" } }),
        // A GuardDuty-style finding has no compliance status: open while active.
        finding("threat", {}),
        finding("archived", { Compliance: { Status: "FAILED" }, RecordState: "ARCHIVED" }),
        finding("suppressed", {
          Compliance: { Status: "FAILED" },
          Workflow: { Status: "SUPPRESSED" },
        }),
        finding("resolved", { Workflow: { Status: "RESOLVED" } }),
        finding("passed", { Compliance: { Status: "PASSED" } }),
      ],
    },
  });
  assert.deepEqual(
    r.records.findings.map((f) => [f.id, f.is_suppressed]),
    [["open", false], ["notified", false], ["threat", false], ["suppressed", true]],
  );
  assert.deepEqual(r.notes.skipped, {
    "archived record": 1,
    "workflow resolved": 1,
    "passed check": 1,
  });
});

Deno.test("the prowler kind reads either format by content", async () => {
  const prowler = new ImporterRegistry().get("prowler")!;
  const ocsf = await prowler.load(fileImportInput(OCSF));
  assert.equal(ocsf.records.findings[0]!.source_finding_id, "accessanalyzer_enabled");
  await withFiles(
    { "p.json": JSON.stringify(ASFF_REPORT), "t.json": JSON.stringify(TRIVY_REPORT) },
    async (dir) => {
      const asff = await prowler.load(fileImportInput(`${dir}/p.json`));
      assert.equal(asff.records.findings[0]!.resource_arn, "arn:aws:s3:::data");
      await assert.rejects(
        () => prowler.load(fileImportInput(`${dir}/t.json`)),
        (e: unknown) => e instanceof ImportError && /not Prowler output/.test(e.message),
      );
    },
  );
});

Deno.test("ocsfTime() reads zoned, zone-less and epoch times and never throws", () => {
  assert.equal(ocsfTime({ time_dt: "2024-12-30T15:00:00.000000" }), "2024-12-30T15:00:00.000Z");
  assert.equal(ocsfTime({ time_dt: "2024-12-30T16:00:00+01:00" }), "2024-12-30T15:00:00.000Z");
  assert.equal(ocsfTime({ time_dt: "garbage", time: 1735570800 }), "2024-12-30T15:00:00.000Z");
  assert.equal(ocsfTime({ time: 1735570800000 }), "2024-12-30T15:00:00.000Z");
  assert.equal(ocsfTime({}), null, "no time is no time, not the epoch");
  // Prowler 4.2 (DefectDojo's unittests/scans/aws_prowler_v3plus/many_vuln.ocsf.json): no time
  // or time_dt, but event_time and finding_info.created_time, zone-less.
  assert.equal(
    ocsfTime({
      event_time: "2024-06-03T14:15:19.382075",
      finding_info: { created_time: "2024-06-03T14:15:19.382075" },
    }),
    "2024-06-03T14:15:19.382Z",
  );
  assert.equal(
    ocsfTime({ finding_info: { created_time: 1735570800 } }),
    "2024-12-30T15:00:00.000Z",
  );
  assert.equal(
    ocsfTime({ time: 1735570800, event_time: "2020-01-01T00:00:00Z" }),
    "2024-12-30T15:00:00.000Z",
    "time comes first",
  );
});

Deno.test("prowlerAsffImporter: a Normalized score without Label is read on the ASFF 0-100 scale", async () => {
  // Scores as ASFF defines them: 0 informational, 1-39 low, 40-69 medium, 70-89 high, 90+ critical.
  const scores: [number, string][] = [[0, "INFO"], [15, "LOW"], [40, "MEDIUM"], [75, "HIGH"], [
    95,
    "CRITICAL",
  ]];
  const findings = scores.map(([normalized], i) => ({
    SchemaVersion: "2018-10-08",
    Id: `scan/item-${i}`,
    ProductArn: "arn:aws:securityhub:eu-north-1::product/example/scanner",
    GeneratorId: "ExampleScanner",
    AwsAccountId: "210987654321",
    Severity: { Product: normalized / 10, Normalized: normalized },
    Title: `item ${i}`,
    Resources: [{ Type: "Container", Id: `image-${i}`, Region: "eu-north-1" }],
    RecordState: "ACTIVE",
  }));
  await withFiles({ "s.asff.json": JSON.stringify(findings) }, async (dir) => {
    const r = await prowlerAsffImporter.load(fileImportInput(`${dir}/s.asff.json`));
    assert.deepEqual(
      r.records.findings.map((f) => [f.id, f.severity]),
      scores.map(([, label], i) => [`scan/item-${i}`, label]),
    );
  });
});

Deno.test("checkovImporter: the summary Checkov prints when it checked nothing loads as an empty report", async () => {
  const summary = {
    passed: 0,
    failed: 0,
    skipped: 0,
    parsing_errors: 0,
    resource_count: 0,
    checkov_version: "3.2.1",
  };
  await withFiles({ "empty/results_json.json": JSON.stringify(summary) }, async (dir) => {
    const path = `${dir}/empty/results_json.json`;
    const detected = await new ImporterRegistry().detect({
      path,
      fileName: "results_json.json",
      json: summary,
    });
    assert.equal(detected?.kind, "checkov");
    for (const p of [path, `${dir}/empty`]) {
      const r = await checkovImporter.load(fileImportInput(p));
      assert.equal(r.records.findings.length, summary.failed);
      assert.equal(r.notes.warnings.length, 1);
    }
  });
});

Deno.test(
  "prowlerAsffImporter names each finding's tool from the product the ASFF finding names",
  { ignore: !HAS_JQ },
  async () => {
    const failed = (extra: Record<string, unknown>, id: string): Record<string, unknown> => ({
      SchemaVersion: "2018-10-08",
      Id: id,
      GeneratorId: id,
      Title: id,
      Severity: { Label: "HIGH" },
      Compliance: { Status: "FAILED" },
      Resources: [{ Type: "Other", Id: `arn:aws:s3:::${id}` }],
      ...extra,
    });
    const report = [
      // As Trivy writes it: the product only in ProductFields.
      failed({
        ProductArn: "arn:aws:securityhub:eu-west-1::product/aquasecurity/aquasecurity",
        ProductFields: { "Product Name": "Trivy" },
      }, "trivy-1"),
      // As Prowler writes it.
      failed({
        ProductArn: "arn:aws:securityhub:eu-west-1::product/prowler/prowler",
        ProductName: "Prowler",
        ProductFields: { ProviderName: "Prowler" },
      }, "prowler-1"),
      // As Security Hub exports its own control findings.
      failed({
        ProductArn: "arn:aws:securityhub:eu-west-1::product/aws/securityhub",
        ProductFields: { "aws/securityhub/ProductName": "Security Hub" },
      }, "hub-1"),
      // Only the product ARN.
      failed({ ProductArn: "arn:aws:securityhub:eu-west-1::product/acme/scanner" }, "arn-1"),
    ];
    await withFiles({ "r.asff.json": JSON.stringify(report) }, async (dir) => {
      const r = await prowlerAsffImporter.load(fileImportInput(`${dir}/r.asff.json`));
      const peer = JSON.parse(
        await run("jq", [
          "-c",
          `[.[] | [.Id, ((.ProductName // .ProductFields["aws/securityhub/ProductName"]
            // .ProductFields.ProviderName // .ProductFields["Product Name"]
            // (.ProductArn | capture("product/[^/]+/(?<p>[^/]+)$").p)) | ascii_downcase)]]`,
          `${dir}/r.asff.json`,
        ]),
      );
      assert.deepEqual(r.records.findings.map((f) => [f.id, f.source_tool]), peer);
      assert.ok(r.records.findings.some((f) => f.source_tool === "trivy"));
    });
  },
);

/** An ASFF finding (Security Hub control shape) listing the given resources. */
function asffFinding(id: string, resources: string[]): Record<string, unknown> {
  return {
    SchemaVersion: "2018-10-08",
    Id: id,
    ProductArn: "arn:aws:securityhub:us-east-1::product/aws/securityhub",
    GeneratorId: "aws-foundational-security-best-practices/v/1.0.0/EC2.2",
    AwsAccountId: "012345678912",
    Title: "EC2.2 The VPC default security group should not allow traffic",
    Severity: { Label: "HIGH" },
    Compliance: { Status: "FAILED" },
    RecordState: "ACTIVE",
    UpdatedAt: "2024-03-09T10:15:00.000Z",
    Resources: resources.map((r) => ({ Type: "AwsEc2SecurityGroup", Id: r, Region: "us-east-1" })),
  };
}

const ASFF_MULTI = [
  asffFinding("f-1", [
    "arn:aws:ec2:us-east-1:012345678912:security-group/sg-1",
    "arn:aws:ec2:us-east-1:012345678912:security-group/sg-2",
    "arn:aws:ec2:us-east-1:012345678912:vpc/vpc-3",
  ]),
  asffFinding("f-2", ["arn:aws:s3:::bucket-a"]),
];

Deno.test("prowlerAsffImporter reads the lower-case findings key and EventBridge events; auto-detection picks it", async () => {
  const shapes: Record<string, unknown> = {
    "lower.json": { findings: ASFF_MULTI },
    "event.json": {
      version: "0",
      "detail-type": "Security Hub Findings - Imported",
      source: "aws.securityhub",
      detail: { findings: ASFF_MULTI },
    },
  };
  const expected = ASFF_MULTI.flatMap((f) => (f.Resources as { Id: string }[]).map((r) => r.Id));
  const registry = new ImporterRegistry();
  for (const [name, value] of Object.entries(shapes)) {
    const found = await registry.detect({ path: `/${name}`, fileName: name, json: value });
    assert.equal(found?.kind, "prowler-asff", name);
    await withFiles({ [name]: JSON.stringify(value) }, async (dir) => {
      const r = await prowlerAsffImporter.load(fileImportInput(`${dir}/${name}`));
      assert.deepEqual(r.records.findings.map((f) => f.resource_id), expected, name);
    });
  }
  // The generic report shape keeps its own importer.
  const generic = { findings: [{ id: "g", resource_id: "r", severity: "LOW", title: "t" }] };
  const found = await registry.detect({ path: "/g.json", fileName: "g.json", json: generic });
  assert.equal(found?.kind, "generic");
});

Deno.test("prowlerAsffImporter makes one finding per listed resource, with unique stable ids", async () => {
  await withFiles({ "m.json": JSON.stringify({ Findings: ASFF_MULTI }) }, async (dir) => {
    const r = await prowlerAsffImporter.load(fileImportInput(`${dir}/m.json`));
    const again = await prowlerAsffImporter.load(fileImportInput(`${dir}/m.json`));
    const total = ASFF_MULTI.reduce((n, f) => n + (f.Resources as unknown[]).length, 0);
    assert.equal(r.records.findings.length, total);
    const ids = r.records.findings.map((f) => f.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(again.records.findings.map((f) => f.id), ids);
    assert.deepEqual(ids, ["f-1#0", "f-1#1", "f-1#2", "f-2"]);
  });
});

Deno.test("checkov and trivy findings have no made-up detection time; trivy uses its report's CreatedAt", async () => {
  const { CreatedAt: _drop, ...trivyNoTime } = TRIVY_REPORT as Record<string, unknown>;
  const created = "2025-06-01T08:30:00.123456789Z";
  await withFiles({
    "c.json": JSON.stringify(CHECKOV_REPORT),
    "t.json": JSON.stringify(trivyNoTime),
    "t2.json": JSON.stringify({ ...trivyNoTime, CreatedAt: created }),
  }, async (dir) => {
    const checkov = await checkovImporter.load(fileImportInput(`${dir}/c.json`));
    const trivy = await trivyImporter.load(fileImportInput(`${dir}/t.json`));
    for (const f of [...checkov.records.findings, ...trivy.records.findings]) {
      assert.equal(f.detected_at, null, f.id);
    }
    const dated = await trivyImporter.load(fileImportInput(`${dir}/t2.json`));
    assert.ok(dated.records.findings.length > 0);
    for (const f of dated.records.findings) assert.equal(f.detected_at, created);
  });
});

Deno.test("an ASFF finding with neither UpdatedAt nor CreatedAt has no made-up detection time", async () => {
  const dated = asffFinding("f-dated", ["arn:aws:s3:::bucket-a"]);
  const { UpdatedAt: _u, CreatedAt: _c, ...timeless } = asffFinding("f-timeless", [
    "arn:aws:s3:::bucket-b",
  ]);
  await withFiles({ "a.json": JSON.stringify({ Findings: [dated, timeless] }) }, async (dir) => {
    const r = await prowlerAsffImporter.load(fileImportInput(`${dir}/a.json`));
    const byId = new Map(r.records.findings.map((f) => [f.id, f.detected_at]));
    assert.equal(byId.get("f-timeless"), null);
    assert.equal(byId.get("f-dated"), dated.UpdatedAt ?? dated.CreatedAt);
  });
});
