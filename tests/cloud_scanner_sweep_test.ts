/**
 * Scanner reports as DefectDojo's parser tests hold them (samples transcribed
 * in `tests/helpers/cloud_scanner_samples.ts`), and the shared Prowler OCSF
 * fixture: a failed check the scanner muted or Security Hub suppressed is a
 * suppressed finding with its reason (listable, not open); ScoutSuite
 * findings name their resource as the provider does; and the control ids a
 * report states (Checkov benchmarks, OCSF `unmapped.compliance`, Security Hub
 * control ids, Prowler's ASFF requirements, ScoutSuite rule references)
 * become compliance results, FAIL with the findings of failed checks and PASS
 * for passed ones.
 */

import assert from "node:assert/strict";
import { fileImportInput } from "../src/cloud/importers/import_input.ts";
import type { ImportResult } from "../src/cloud/importers/importer.ts";
import { OCSF_MUTED_REASON, prowlerOcsfImporter } from "../src/cloud/importers/prowler_ocsf.ts";
import { asffControls, prowlerAsffImporter } from "../src/cloud/importers/prowler_asff.ts";
import { checkovImporter } from "../src/cloud/importers/checkov_results.ts";
import {
  scoutSuiteImporter,
  scoutSuiteResourceId,
} from "../src/cloud/importers/scoutsuite_results.ts";
import {
  controlFramework,
  ScannerCompliance,
  tagVersion,
} from "../src/cloud/importers/scanner_common.ts";
import type { ComplianceResult } from "../src/cloud/model/records.ts";
import { emptyRecords } from "../src/cloud/model/records.ts";
import { mergeRecords } from "../src/cloud/findings/ingest_reports.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { type Loose, ok, withTempRoot } from "./helpers/in_memory.ts";
import { sharedFixture } from "./helpers/shared_fixtures.ts";
import {
  ASFF_REPORT,
  CHECKOV_GCP_BENCHMARKS,
  PROWLER_OCSF_MANY_VULN,
  SCOUTSUITE_GCP_SCRIPT,
  SCOUTSUITE_SCRIPT,
  SECURITY_HUB_PASSED_CONTROLS,
} from "./helpers/cloud_scanner_samples.ts";

const OCSF_FIXTURE = sharedFixture("cloud/prowler/ocsf/test_prowler_output.ocsf.json");

type Item = Record<string, unknown>;

/** A deep copy, for variants of a sample. */
function copy<T>(value: T): T {
  return structuredClone(value);
}

function uidOf(item: Item): string {
  return (item.finding_info as { uid: string }).uid;
}

async function load(
  importer: { load: typeof prowlerOcsfImporter.load },
  name: string,
  json: unknown,
): Promise<ImportResult> {
  return await importer.load({ ...fileImportInput(name), json });
}

/** The results of one framework and control, for short assertions. */
function resultsOf(
  results: readonly ComplianceResult[],
  framework: string,
  control: string,
): ComplianceResult[] {
  return results.filter((r) => r.framework === framework && r.control_id === control);
}

/** `[framework, control_id, status, finding_ids]` of every result, sorted. */
function outline(results: readonly ComplianceResult[]): [string, string, string, string[]][] {
  return results.map((r): [string, string, string, string[]] => [
    r.framework,
    r.control_id,
    r.status,
    [...r.finding_ids].sort(),
  ]).sort((a, b) => a.join("|").localeCompare(b.join("|")));
}

/** The ScoutSuite sample's JSON object. */
function scoutSuiteObject(script: string): Loose {
  return JSON.parse(script.slice(script.indexOf("{")).replace(/;\s*$/, ""));
}

// --- Muted and suppressed failed checks ---------------------------------------------------

Deno.test("prowlerOcsfImporter: a failed check Prowler muted (status Suppressed) is a suppressed finding with its reason", async () => {
  const r = await load(prowlerOcsfImporter, "many_vuln.ocsf.json", PROWLER_OCSF_MANY_VULN);
  const failed = PROWLER_OCSF_MANY_VULN.filter((f) => f.status_code === "FAIL");
  const muted = failed.filter((f) => f.status === "Suppressed").map(uidOf);
  assert.equal(muted.length, 1, "the sample holds one muted check");
  assert.deepEqual(r.records.findings.map((f) => f.id), failed.map(uidOf));
  assert.deepEqual(r.records.findings.filter((f) => f.is_suppressed).map((f) => f.id), muted);
  assert.deepEqual(r.records.suppression_reasons, { [muted[0]!]: OCSF_MUTED_REASON });
  assert.equal(r.notes.skipped["muted check"], undefined, "kept, so not counted as skipped");
});

Deno.test("load_dataset of Prowler OCSF: the muted finding is not open, is listed with include_suppressed, and get_finding gives why", async () => {
  await withTempRoot("cloud-sweep-", async ({ client, dir }) => {
    await Deno.writeTextFile(`${dir}/many_vuln.ocsf.json`, JSON.stringify(PROWLER_OCSF_MANY_VULN));
    await ok(client, "load_dataset", { path: `${dir}/many_vuln.ocsf.json` });
    const muted = PROWLER_OCSF_MANY_VULN.filter((f) => f.status === "Suppressed").map(uidOf);
    const open = (await ok(client, "list_findings", {})).result;
    const all = (await ok(client, "list_findings", { include_suppressed: true })).result;
    assert.equal(open.total, PROWLER_OCSF_MANY_VULN.length - muted.length);
    assert.equal(all.total, PROWLER_OCSF_MANY_VULN.length);
    assert.ok(!open.items.some((f: Loose) => muted.includes(f.id)));
    assert.deepEqual(
      all.items.filter((f: Loose) => f.is_suppressed).map((f: Loose) => f.id),
      muted,
    );
    const overview = (await ok(client, "findings_summary", { include_suppressed: true })).result;
    assert.equal(overview.total, PROWLER_OCSF_MANY_VULN.length);
    const detail = (await ok(client, "get_finding", { finding_id: muted[0] })).result;
    assert.equal(detail.is_suppressed, true);
    assert.equal(detail.suppression_reason, OCSF_MUTED_REASON);
  }, { workbenches: [cloudWorkbenchWith({ demo: false })] });
});

Deno.test("prowlerAsffImporter: a failed finding Security Hub suppressed is kept suppressed with its note; resolved and archived ones are counted", async () => {
  const base = SECURITY_HUB_PASSED_CONTROLS.findings[0]!;
  const variant = (id: string, extra: Item): Item => ({
    ...copy(base),
    Id: id,
    Compliance: { Status: "FAILED" },
    ...extra,
  });
  const r = await load(prowlerAsffImporter, "sh.json", {
    findings: [
      variant("open", {}),
      variant("muted", {
        Workflow: { Status: "SUPPRESSED" },
        Note: { Text: "Break-glass users sign in with hardware keys.", UpdatedBy: "secops" },
      }),
      variant("muted-quietly", { Workflow: { Status: "SUPPRESSED" } }),
      variant("resolved", { Workflow: { Status: "RESOLVED" } }),
      variant("archived", { RecordState: "ARCHIVED" }),
    ],
  });
  assert.deepEqual(
    r.records.findings.map((f) => [f.id, f.is_suppressed]),
    [["open", false], ["muted", true], ["muted-quietly", true]],
  );
  assert.deepEqual(r.records.suppression_reasons, {
    muted: "Suppressed in Security Hub (workflow status SUPPRESSED): " +
      "Break-glass users sign in with hardware keys.",
    "muted-quietly": "Suppressed in Security Hub (workflow status SUPPRESSED).",
  });
  assert.deepEqual(r.notes.skipped, { "workflow resolved": 1, "archived record": 1 });
  // The control failed on all three; the suppressed ones are named so the rollup can tell.
  assert.deepEqual(outline(r.records.compliance), [
    ["AWS-Foundational-Security-Best-Practices", "IAM.5", "FAIL", [
      "muted",
      "muted-quietly",
      "open",
    ]],
  ]);
});

// --- ScoutSuite resource names ----------------------------------------------------------------

Deno.test("scoutSuiteImporter: a flagged bucket is named by its bucket name, not ScoutSuite's hash key", async () => {
  await withTempRoot("cloud-sweep-", async ({ dir }) => {
    const path = `${dir}/scoutsuite_results_gcp-gcp-project-id.js`;
    await Deno.writeTextFile(path, SCOUTSUITE_GCP_SCRIPT);
    const r = await scoutSuiteImporter.load(fileImportInput(path));
    // Independently: walk each flagged item path to its bucket (the id after "buckets").
    const report = scoutSuiteObject(SCOUTSUITE_GCP_SCRIPT);
    const expected: [string, string][] = [];
    for (const service of Object.values(report.services) as Loose[]) {
      for (const rule of Object.values(service.findings) as Loose[]) {
        for (const item of rule.items as string[]) {
          const [, , project, , key] = item.split(".");
          expected.push([item, service.projects[project!].buckets[key!].name]);
        }
      }
    }
    assert.equal(expected.length, 4);
    assert.deepEqual(
      r.records.findings.map((f) => [f.evidence, f.resource_id]).sort(),
      expected.sort(),
    );
    assert.ok(r.records.findings.every((f) => !/^[0-9a-f]{40}$/.test(f.resource_id)));
    // A report that does not hold the resource keeps the key its item path gives.
    const aws = `${dir}/scoutsuite_results_aws-demo.js`;
    await Deno.writeTextFile(aws, SCOUTSUITE_SCRIPT);
    const bare = await scoutSuiteImporter.load(fileImportInput(aws));
    assert.deepEqual(bare.records.findings.map((f) => f.resource_id).sort(), [
      "cloudmapper_demo",
      "sg-00000008",
    ]);
  }, { workbenches: [cloudWorkbenchWith({ demo: false })] });
});

Deno.test("scoutSuiteResourceId() prefers the provider's own name: ARN, Azure id, own id, name, key", () => {
  const hash = "52fc025e81845686d3c9fe5a5dc4f5e7ae740064";
  const arn = "arn:aws:iam::123456789012:user/alice";
  assert.equal(scoutSuiteResourceId({ arn, id: "AIDA1", name: "alice" }, "AIDA1", "AWS"), arn);
  assert.equal(scoutSuiteResourceId({ id: "sg-1", name: "default" }, "sg-1", "AWS"), "sg-1");
  assert.equal(scoutSuiteResourceId({ id: hash, name: "logs" }, hash, "AWS"), "logs");
  const azure = "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/a";
  assert.equal(scoutSuiteResourceId({ id: azure, name: "a" }, hash, "AZURE"), azure);
  // Google's APIs address a resource by name; its numeric id comes second.
  assert.equal(scoutSuiteResourceId({ id: 4417, name: "vm-1" }, "4417", "GCP"), "vm-1");
  assert.equal(scoutSuiteResourceId({ id: 4417 }, "4417", "GCP"), "4417");
  assert.equal(scoutSuiteResourceId({ id: hash }, hash, "GCP"), hash, "nothing better: the key");
  assert.equal(scoutSuiteResourceId({ arn: "not-an-arn", name: "n" }, "k", "AWS"), "n");
});

// --- Compliance results -------------------------------------------------------------------

Deno.test("checkovImporter: each benchmark control of a failed check is a FAIL result naming its finding; passed checks' controls pass", async () => {
  const r = await load(checkovImporter, "checkov.json", CHECKOV_GCP_BENCHMARKS);
  // Independently from the sample: one FAIL per (benchmark, control) of each failed check.
  const frameworkOf: Record<string, string> = { "CIS GCP V1.1": "CIS-GCP", ISO27001: "ISO-27001" };
  const expected = new Map<string, string[]>();
  for (const c of CHECKOV_GCP_BENCHMARKS.results.failed_checks as Loose[]) {
    const finding = `checkov:${c.check_id}:${c.resource}`;
    for (const [tag, controls] of Object.entries(c.benchmarks as Record<string, Loose[]>)) {
      for (const control of controls) {
        const key = `${frameworkOf[tag]}|${control.name}`;
        expected.set(key, [...(expected.get(key) ?? []), finding]);
      }
    }
  }
  assert.equal(expected.size, 4, "5.1 and 5.2 of CIS GCP, two ISO 27001 controls");
  assert.deepEqual(
    outline(r.records.compliance),
    [...expected].map(([key, ids]): [string, string, string, string[]] => {
      const [framework, control] = key.split("|") as [string, string];
      return [framework, control, "FAIL", ids.sort()];
    }).sort((a, b) => a.join("|").localeCompare(b.join("|"))),
  );
  const [cis51] = resultsOf(r.records.compliance, "CIS-GCP", "5.1");
  assert.equal(
    cis51!.control_title,
    "CIS GCP V1.1 5.1: Ensure that Cloud Storage bucket is not anonymously or publicly accessible",
  );
  assert.equal(cis51!.resource_arn, null, "a Terraform address is no ARN");
  // Every result names findings the load made.
  const ids = new Set(r.records.findings.map((f) => f.id));
  assert.ok(r.records.compliance.every((c) => c.finding_ids.every((id) => ids.has(id))));

  // The same check passed instead: its control passes and names no finding.
  const passed = copy(CHECKOV_GCP_BENCHMARKS) as Loose;
  const [uniform] = passed.results.failed_checks.splice(0, 1);
  uniform.check_result = { result: "PASSED" };
  passed.results.passed_checks.push(uniform);
  const p = await load(checkovImporter, "checkov.json", passed);
  assert.deepEqual(
    resultsOf(p.records.compliance, "CIS-GCP", "5.2").map((c) => [c.status, c.finding_ids]),
    [["PASS", []]],
  );
  assert.equal(p.notes.skipped["passed check"], 1);
});

Deno.test("prowlerOcsfImporter: unmapped.compliance becomes FAIL results for failed checks and PASS for passed ones, newest version only", async () => {
  const many = await load(prowlerOcsfImporter, "many.ocsf.json", PROWLER_OCSF_MANY_VULN);
  const audit = PROWLER_OCSF_MANY_VULN.find((f) =>
    Object.keys((f.unmapped as Loose).compliance).length > 0
  )!;
  assert.deepEqual(outline(many.records.compliance), [
    ["AWS-Foundational-Technical-Review", "IAM-0012", "FAIL", [uidOf(audit)]],
    ["MITRE-ATTACK", "T1078", "FAIL", [uidOf(audit)]],
  ]);
  assert.ok(
    many.records.compliance.every((c) =>
      c.resource_arn === "arn:aws:iam::123456789012:role/AuditRole"
    ),
  );

  // The shared fixture: accessanalyzer FAIL under CIS-1.4 … CIS-3.0 (all 1.20); s3 PASS under
  // CIS-1.4 2.1.5 and CIS-2.0 2.1.4 and PCI-DSS-3.2.1 1.2.1, 1.3.1; ec2 PASS under CIS-1.4 and
  // CIS-2.0 5.6 and AWS-Foundational-Security-Best-Practices EC2.8
  // (jq '.[] | [.status_code, .unmapped.compliance]' test_prowler_output.ocsf.json).
  const fixture = JSON.parse(await Deno.readTextFile(OCSF_FIXTURE)) as Item[];
  const r = await load(prowlerOcsfImporter, "fixture.ocsf.json", fixture);
  const failedId = uidOf(fixture.find((f) => f.status_code === "FAIL")!);
  assert.deepEqual(outline(r.records.compliance), [
    ["AWS-Foundational-Security-Best-Practices", "EC2.8", "PASS", []],
    ["CIS-AWS", "1.20", "FAIL", [failedId]],
    ["CIS-AWS", "2.1.4", "PASS", []],
    ["CIS-AWS", "5.6", "PASS", []],
    ["PCI-DSS", "1.2.1", "PASS", []],
    ["PCI-DSS", "1.3.1", "PASS", []],
  ]);
  // The newest version names the control: 1.20 of CIS 3.0, 2.1.4 of CIS 2.0 (not 1.4's 2.1.5).
  assert.deepEqual(
    r.records.compliance.filter((c) => c.framework === "CIS-AWS").map((c) => c.control_title)
      .sort(),
    ["CIS-2.0 2.1.4", "CIS-2.0 5.6", "CIS-3.0 1.20"],
  );
  assert.equal(
    resultsOf(r.records.compliance, "CIS-AWS", "2.1.4")[0]!.resource_arn,
    "arn:aws:s3:::test-bucket-12345",
  );
});

Deno.test("prowlerOcsfImporter: a manual check's controls are MANUAL results and a muted pass still passes", async () => {
  const fixture = JSON.parse(await Deno.readTextFile(OCSF_FIXTURE)) as Item[];
  const [s3, ec2] = fixture.filter((f) => f.status_code === "PASS");
  const manual = { ...s3!, status_code: "MANUAL" };
  const mutedPass = { ...ec2!, status: "Suppressed" };
  const r = await load(prowlerOcsfImporter, "manual.ocsf.json", [manual, mutedPass]);
  assert.equal(r.records.findings.length, 0);
  assert.deepEqual(r.notes.skipped, { "status MANUAL": 1, "passed check": 1 });
  assert.deepEqual(outline(r.records.compliance), [
    ["AWS-Foundational-Security-Best-Practices", "EC2.8", "PASS", []],
    ["CIS-AWS", "2.1.4", "MANUAL", []],
    ["CIS-AWS", "5.6", "PASS", []],
    ["PCI-DSS", "1.2.1", "MANUAL", []],
    ["PCI-DSS", "1.3.1", "MANUAL", []],
  ]);
});

Deno.test("prowlerAsffImporter: Security Hub's passed controls are PASS results of their standard", async () => {
  const r = await load(
    prowlerAsffImporter,
    "config_many_findings.json",
    SECURITY_HUB_PASSED_CONTROLS,
  );
  const controls = SECURITY_HUB_PASSED_CONTROLS.findings.map((f) =>
    (f.ProductFields as { ControlId: string }).ControlId
  );
  assert.deepEqual(controls, ["IAM.5", "SSM.2", "ELBv2.1"]);
  assert.equal(r.records.findings.length, 0);
  assert.equal(r.notes.skipped["passed check"], controls.length);
  assert.deepEqual(
    outline(r.records.compliance),
    controls.map((c): [string, string, string, string[]] => [
      "AWS-Foundational-Security-Best-Practices",
      c,
      "PASS",
      [],
    ]).sort((a, b) => a.join("|").localeCompare(b.join("|"))),
  );
  assert.equal(
    resultsOf(r.records.compliance, "AWS-Foundational-Security-Best-Practices", "IAM.5")[0]!
      .control_title,
    "aws-foundational-security-best-practices/v/1.0.0 IAM.5: " +
      "MFA should be enabled for all IAM users that have console password",
  );
  // An archived record's pass no longer stands.
  const archived = copy(SECURITY_HUB_PASSED_CONTROLS);
  for (const f of archived.findings) f.RecordState = "ARCHIVED";
  const a = await load(prowlerAsffImporter, "archived.json", archived);
  assert.deepEqual(a.records.compliance, []);
});

Deno.test("asffControls() reads Prowler's requirements, consolidated control ids and nothing else", () => {
  // Prowler: "<standard> <id> <id>…", cut to 63 characters when longer than 64.
  assert.deepEqual(asffControls(ASFF_REPORT[0]!), [
    { tag: "CIS-1.4", controls: ["2.1.5"] },
    { tag: "PCI-3.2.1", controls: ["s3"] },
  ]);
  const ids = Array.from({ length: 12 }, (_, i) => `op.exp.${i + 10}`);
  const whole = `ENS-RD2022 ${ids.join(" ")}`;
  const cut = whole.slice(0, 63);
  assert.ok(whole.length > 64);
  const [parsed] = asffControls({
    ...ASFF_REPORT[0]!,
    Compliance: {
      Status: "FAILED",
      AssociatedStandards: [{ StandardsId: "ENS-RD2022" }],
      RelatedRequirements: [cut],
    },
  });
  const wholeIds = cut.slice("ENS-RD2022 ".length).split(" ").slice(0, -1);
  assert.deepEqual(parsed!.controls, wholeIds, "the last, cut id is left out");
  assert.ok(parsed!.controls.every((id) => ids.includes(id)));
  // Security Hub's consolidated findings: the security control id is FSBP's own.
  const consolidated = {
    ProductArn: "arn:aws:securityhub:us-east-1::product/aws/securityhub",
    Compliance: {
      Status: "FAILED",
      SecurityControlId: "IAM.5",
      AssociatedStandards: [
        { StandardsId: "standards/aws-foundational-security-best-practices/v/1.0.0" },
        { StandardsId: "ruleset/cis-aws-foundations-benchmark/v/1.2.0" },
      ],
      RelatedRequirements: ["CIS AWS Foundations Benchmark v1.2.0/1.2"],
    },
  };
  assert.deepEqual(asffControls(consolidated), [
    { tag: "standards/aws-foundational-security-best-practices/v/1.0.0", controls: ["IAM.5"] },
  ]);
  // Another tool's requirements are not Prowler's format: no control is guessed.
  assert.deepEqual(
    asffControls({
      ProductArn: "arn:aws:securityhub:us-east-1::product/aws/guardduty",
      Compliance: { Status: "FAILED", RelatedRequirements: ["PCI DSS 1.2.1"] },
    }),
    [],
  );
});

Deno.test("prowlerAsffImporter: Prowler's own ASFF gives FAIL and PASS results from its requirements", async () => {
  const r = await load(prowlerAsffImporter, "p.asff.json", ASFF_REPORT);
  const failed = ASFF_REPORT[0]!.Id;
  assert.deepEqual(outline(r.records.compliance), [
    ["CIS-AWS", "1.5", "PASS", []],
    ["CIS-AWS", "2.1.5", "FAIL", [failed]],
    ["PCI-DSS", "s3", "FAIL", [failed]],
  ]);
});

Deno.test("scoutSuiteImporter: a rule's control fails with its flagged findings and passes when it checked items it did not flag", async () => {
  await withTempRoot("cloud-sweep-", async ({ dir }) => {
    const path = `${dir}/scoutsuite_results_gcp-gcp-project-id.js`;
    await Deno.writeTextFile(path, SCOUTSUITE_GCP_SCRIPT);
    const r = await scoutSuiteImporter.load(fileImportInput(path));
    // Independently from the script: per control, the findings of flagged rules, and whether
    // some rule checked more items than it flagged.
    const report = scoutSuiteObject(SCOUTSUITE_GCP_SCRIPT);
    const fails = new Map<string, string[]>();
    const passes = new Set<string>();
    for (const [serviceName, service] of Object.entries(report.services) as [string, Loose][]) {
      for (const [ruleName, rule] of Object.entries(service.findings) as [string, Loose][]) {
        for (const c of rule.compliance ?? []) {
          if (rule.items.length > 0) {
            fails.set(c.reference, [
              ...(fails.get(c.reference) ?? []),
              ...rule.items.map((i: string) => `scoutsuite:${serviceName}:${ruleName}:${i}`),
            ]);
          }
          if (rule.checked_items > rule.items.length) passes.add(c.reference);
        }
      }
    }
    assert.deepEqual([...fails.keys(), ...passes].sort(), ["5.1", "5.3"], "6.1 checked nothing");
    const expected: [string, string, string, string[]][] = [
      ...[...fails].map(([c, ids]): [string, string, string, string[]] => [
        "CIS-GCP",
        c,
        "FAIL",
        ids.sort(),
      ]),
      ...[...passes].map((c): [string, string, string, string[]] => ["CIS-GCP", c, "PASS", []]),
    ];
    assert.deepEqual(
      outline(r.records.compliance),
      expected.sort((a, b) => a.join("|").localeCompare(b.join("|"))),
    );
    assert.equal(
      resultsOf(r.records.compliance, "CIS-GCP", "5.3")[0]!.control_title,
      "CIS Google Cloud Platform Foundations 1.0.0 5.3",
    );
  }, { workbenches: [cloudWorkbenchWith({ demo: false })] });
});

Deno.test("ScannerCompliance: newest version per framework, one result per control and status, ids that keep two reports apart", () => {
  assert.deepEqual(tagVersion("CIS-1.4"), [1, 4]);
  assert.deepEqual(tagVersion("CIS GCP V1.1"), [1, 1]);
  assert.deepEqual(
    tagVersion("arn:aws:securityhub:::standards/aws-foundational-security-best-practices/v/1.0.0"),
    [1, 0, 0],
  );
  assert.deepEqual(tagVersion("CIS Amazon Web Services Foundations", "1.2.0"), [1, 2, 0]);
  assert.equal(controlFramework("CIS-1.4", "aws"), "CIS-AWS");
  assert.equal(controlFramework("CIS-1.4", null), "CIS");
  assert.equal(controlFramework("ISO27001-2013", null), "ISO-27001");
  assert.equal(controlFramework("", null), null);

  const c = new ScannerCompliance("t");
  // ScoutSuite lists every CIS AWS version a rule belongs to: only 1.2.0's reference counts.
  const ssh = ["1.0.0", "1.1.0", "1.2.0"].map((version, i) => ({
    tag: "CIS Amazon Web Services Foundations",
    version,
    controls: [`4.${i + 1}`],
  }));
  c.add(ssh, { status: "FAIL", provider: "aws", findingIds: ["a"], resources: ["arn:aws:x:::1"] });
  c.add(ssh, { status: "FAIL", provider: "aws", findingIds: ["b"], resources: ["arn:aws:x:::2"] });
  c.add(ssh, { status: "PASS", provider: "aws", resources: ["arn:aws:x:::3"] });
  const results = c.results();
  assert.deepEqual(outline(results), [
    ["CIS-AWS", "4.3", "FAIL", ["a", "b"]],
    ["CIS-AWS", "4.3", "PASS", []],
  ]);
  const [fail, pass] = results;
  assert.equal(fail!.control_title, "CIS Amazon Web Services Foundations 1.2.0 4.3");
  assert.equal(fail!.resource_arn, null, "two resources: no one ARN");
  assert.equal(pass!.resource_arn, "arn:aws:x:::3");

  // A control a tag lists twice counts once; one resource named twice is still that resource.
  const twice = new ScannerCompliance("t");
  for (const finding of ["a", "b"]) {
    twice.add([{ tag: "MITRE-ATTACK", controls: ["T1078", " T1078"] }], {
      status: "FAIL",
      provider: null,
      findingIds: [finding],
      resources: ["arn:aws:iam::1:role/r"],
    });
  }
  assert.deepEqual(
    twice.results().map((r) => [r.control_id, r.finding_ids, r.resource_arn]),
    [["T1078", ["a", "b"], "arn:aws:iam::1:role/r"]],
  );

  // Two reports failing one control on different findings: both results survive a merge.
  const report = (finding: string) => {
    const one = new ScannerCompliance("t");
    one.add([{ tag: "MITRE-ATTACK", controls: ["T1078"] }], {
      status: "FAIL",
      provider: null,
      findingIds: [finding],
    });
    return { ...emptyRecords(), compliance: one.results() };
  };
  const target = emptyRecords();
  mergeRecords(target, report("f1"));
  mergeRecords(target, report("f2"));
  mergeRecords(target, report("f1"));
  assert.deepEqual(target.compliance.map((r) => r.finding_ids), [["f1"], ["f2"]]);
});

// --- Through a client: the reviewer's questions ------------------------------------------

Deno.test("compliance_summary and get_finding on the scanner samples: controls evaluated, no coarse CIS results", async () => {
  await withTempRoot("cloud-sweep-", async ({ client, dir }) => {
    const files: Record<string, string> = {
      "checkov.json": JSON.stringify(CHECKOV_GCP_BENCHMARKS),
      "many_vuln.ocsf.json": JSON.stringify(PROWLER_OCSF_MANY_VULN),
      "config_many_findings.json": JSON.stringify(SECURITY_HUB_PASSED_CONTROLS),
      "scoutsuite_results_gcp-gcp-project-id.js": SCOUTSUITE_GCP_SCRIPT,
    };
    const rows: Record<string, Record<string, number[]>> = {};
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
      await ok(client, "load_dataset", { path: `${dir}/${name}` });
      const summary = (await ok(client, "compliance_summary", {})).result;
      rows[name] = Object.fromEntries(
        summary.frameworks.map((
          f: Loose,
        ) => [f.framework, [f.controls_evaluated, f.controls_failing, f.controls_passing]]),
      );
    }
    // [evaluated, failing, passing] per framework. The coarse CIS tag the findings carry beside
    // CIS-GCP has no results of its own, so no control is counted under both.
    assert.deepEqual(rows, {
      "checkov.json": { "CIS": [0, 0, 0], "CIS-GCP": [2, 2, 0], "ISO-27001": [2, 2, 0] },
      "many_vuln.ocsf.json": {
        "AWS-Foundational-Technical-Review": [1, 1, 0],
        "MITRE-ATTACK": [1, 1, 0],
      },
      "config_many_findings.json": { "AWS-Foundational-Security-Best-Practices": [3, 0, 3] },
      "scoutsuite_results_gcp-gcp-project-id.js": { "CIS": [0, 0, 0], "CIS-GCP": [2, 1, 1] },
    });
    const detail = (await ok(client, "get_finding", {
      dataset: "checkov",
      finding_id: "checkov:CKV_GCP_28:google_storage_bucket_iam_binding.allow_public_read",
    })).result;
    assert.deepEqual(
      detail.controls.map((c: Loose) => `${c.framework} ${c.control_id} ${c.status}`).sort(),
      ["CIS-GCP 5.1 FAIL", "ISO-27001 A.14.1.3 FAIL", "ISO-27001 A.8.2.3 FAIL"],
    );
    const bucket = (await ok(client, "list_findings", {
      dataset: "scoutsuite_results_gcp-gcp-project-id",
      resource: "staging.gcp-project-id.appspot.com",
    })).result;
    assert.equal(bucket.total, 2, "both of the staging bucket's findings name it");
  }, { workbenches: [cloudWorkbenchWith({ demo: false })] });
});

Deno.test("mergeRecords() keeps the reason a report gives a finding it marks suppressed", async () => {
  const report = await prowlerOcsfImporter.load({
    ...fileImportInput("many_vuln_after_4_5_0.ocsf.json"),
    json: PROWLER_OCSF_MANY_VULN,
  });
  const target = emptyRecords();
  mergeRecords(target, report.records);
  const muted = report.records.findings.filter((f) => f.is_suppressed).map((f) => f.id);
  assert.equal(muted.length, 1);
  assert.deepEqual(target.suppression_reasons, { [muted[0]!]: OCSF_MUTED_REASON });
});
