/**
 * The compliance toolset through a real MCP client on the demo estate: the
 * 28 ruleset framework names, the rollup (CIS-AWS passes 1 of 4 controls:
 * 25.0), controls as the dataset evaluates them, the honest empty answer for
 * ruleset controls, one control in detail, and the assets failing.
 */

import assert from "node:assert/strict";
import { fails, type Loose } from "./helpers/in_memory.ts";
import {
  bucketAsset,
  cisFinding,
  datasetVersion,
  readText,
  resourceLinks,
  result,
  withDemoClient,
  withInlineDataset,
} from "./helpers/cloud_client.ts";

// Demo asset ids (as list_findings' asset_id and find_assets' id name them, not their ARNs).
const SG_ADMIN = "sg-admin";
const AZ_NSG = "az-nsg";

Deno.test("list_frameworks lists the 28 ruleset frameworks, filtered by provider", async () => {
  await withDemoClient(async (client) => {
    const all = await result(client, "list_frameworks");
    assert.equal(all.total, 28);
    assert.equal(all.provider, null);
    assert.equal(all.frameworks[1].framework, "CIS-AWS");
    assert.deepEqual(all.frameworks[1].providers, ["AWS"]);
    assert.deepEqual(
      all.frameworks.find((f: Loose) => f.framework === "GDPR").providers,
      ["AWS", "AZURE", "GCP"],
    );
    assert.equal(all.controls_available, false);
    assert.match(all.note, /not their control definitions/);
    // 10 AWS-only names and 6 provider-neutral ones; 6 + 6 each for Azure and GCP.
    assert.equal((await result(client, "list_frameworks", { provider: "aws" })).total, 16);
    const azure = await result(client, "list_frameworks", { provider: "Azure" });
    assert.equal(azure.provider, "AZURE");
    assert.equal(azure.total, 12);
    assert.ok(azure.frameworks.every((f: Loose) => !f.framework.endsWith("-AWS")));
    assert.equal((await result(client, "list_frameworks", { provider: "GCP" })).total, 12);

    const bad = await fails(client, "list_frameworks", { provider: "oci" });
    assert.equal(bad.code, "invalid_request");
    assert.deepEqual(bad.details.valid, ["AWS", "AZURE", "GCP"]);
    assert.equal(
      (await fails(client, "list_frameworks", { provider: "aws", extra: 1 })).code,
      "invalid_request",
    );
  });
});

Deno.test("compliance_summary rolls up five frameworks, CIS-AWS at 25.0, and links them", async () => {
  await withDemoClient(async (client) => {
    const summary = await result(client, "compliance_summary");
    assert.equal(summary.total, 5);
    assert.equal(summary.hint, undefined);
    assert.deepEqual(summary.frameworks[0], {
      framework: "CIS-AWS",
      controls_evaluated: 4,
      controls_failing: 3,
      controls_passing: 1,
      controls_other: 0,
      pass_rate: 25,
      open_findings: 3,
      severity_breakdown: { CRITICAL: 1, HIGH: 2 },
      affected_assets: 3,
      uri: "cloudg://compliance/CIS-AWS",
    });
    assert.deepEqual(
      summary.frameworks.slice(1).map((r: Loose) => [r.framework, r.open_findings, r.pass_rate]),
      [["CIS-Azure", 1, 0], ["CIS-GCP", 1, 0], ["NIST-800-53", 1, 0], ["PCI-DSS", 1, 0]],
    );

    const links = await resourceLinks(client, "compliance_summary", {});
    assert.equal(links.length, 5);
    for (const link of links) {
      const posture = JSON.parse(await readText(client, link.uri));
      assert.ok(Array.isArray(posture.posture));
    }

    const cis = await result(client, "compliance_summary", { framework: "cis" });
    assert.deepEqual(cis.frameworks.map((r: Loose) => r.framework), [
      "CIS-AWS",
      "CIS-Azure",
      "CIS-GCP",
    ]);
    const exact = await result(client, "compliance_summary", { framework: "cis-aws" });
    assert.deepEqual(exact.frameworks.map((r: Loose) => r.framework), ["CIS-AWS"]);

    const none = await result(client, "compliance_summary", { framework: "HIPAA" });
    assert.equal(none.total, 0);
    assert.match(none.hint, /its frameworks are CIS-AWS, CIS-Azure, CIS-GCP/);
    assert.deepEqual(await resourceLinks(client, "compliance_summary", { framework: "HIPAA" }), []);

    assert.equal(
      (await fails(client, "compliance_summary", { dataset: "missing" })).code,
      "not_found",
    );
  });
});

Deno.test("list_controls lists the dataset's controls by status and pages them", async () => {
  await withDemoClient(async (client) => {
    const cis = await result(client, "list_controls", { framework: "CIS-AWS" });
    assert.equal(cis.source, "dataset");
    assert.equal(cis.controls_available, true);
    assert.deepEqual(cis.frameworks, ["CIS-AWS"]);
    assert.deepEqual(
      cis.items.map((c: Loose) => [c.control_id, c.status, c.open_findings, c.max_severity]),
      [
        ["1.16", "FAIL", 1, "HIGH"],
        ["2.1.4", "FAIL", 1, "HIGH"],
        ["3.1", "PASS", 0, null],
        ["5.2", "FAIL", 1, "CRITICAL"],
      ],
    );
    const failing = await result(client, "list_controls", { framework: "cis", status: "fail" });
    assert.equal(failing.total, 5);
    assert.deepEqual(failing.frameworks, ["CIS-AWS", "CIS-Azure", "CIS-GCP"]);
    const passing = await result(client, "list_controls", { framework: "cis", status: "Pass" });
    assert.deepEqual(passing.items.map((c: Loose) => c.control_id), ["3.1"]);

    const first = await result(client, "list_controls", { framework: "CIS", limit: 4 });
    assert.equal(first.total, 6);
    assert.ok(first.next_cursor);
    const second = await result(client, "list_controls", {
      framework: "CIS",
      limit: 4,
      cursor: first.next_cursor,
    });
    assert.deepEqual(second.items.map((c: Loose) => `${c.framework} ${c.control_id}`), [
      "CIS-Azure 6.1",
      "CIS-GCP 5.1",
    ]);
    assert.equal(second.next_cursor, null);

    const before = await datasetVersion(client);
    const stale = await fails(client, "list_controls", {
      framework: "CIS-AWS",
      limit: 4,
      cursor: first.next_cursor,
    });
    assert.match(stale.message, /stale cursor/i);
    const unknown = await fails(client, "list_controls", { framework: "HIPAA" });
    assert.equal(unknown.code, "not_found");
    assert.deepEqual(unknown.details.valid, [
      "CIS-AWS",
      "CIS-Azure",
      "CIS-GCP",
      "NIST-800-53",
      "PCI-DSS",
    ]);
    const status = await fails(client, "list_controls", { framework: "CIS", status: "failed" });
    assert.deepEqual(status.details.close_matches, ["FAIL"]);
    const source = await fails(client, "list_controls", { framework: "CIS", source: "rules" });
    assert.equal(source.code, "invalid_request");
    assert.equal(
      (await fails(client, "list_controls", { framework: "CIS", limit: 0 })).code,
      "invalid_request",
    );
    assert.equal(await datasetVersion(client), before);
  });
});

Deno.test("list_controls source ruleset names the frameworks and invents no controls", async () => {
  await withDemoClient(async (client) => {
    const cis = await result(client, "list_controls", { framework: "CIS", source: "RULESET" });
    assert.equal(cis.source, "ruleset");
    assert.equal(cis.dataset, null);
    assert.deepEqual(cis.frameworks, ["CIS-AWS", "CIS-AZURE", "CIS-GCP"]);
    assert.equal(cis.controls_available, false);
    assert.equal(cis.total, 0);
    assert.deepEqual(cis.items, []);
    assert.equal(cis.next_cursor, null);
    assert.match(cis.note, /no ruleset controls can be listed/);
    // A framework the dataset does not evaluate is still a ruleset name.
    const hipaa = await result(client, "list_controls", { framework: "hipaa", source: "ruleset" });
    assert.deepEqual(hipaa.frameworks, ["HIPAA"]);

    const unknown = await fails(client, "list_controls", {
      framework: "FedRAMP",
      source: "ruleset",
    });
    assert.equal(unknown.code, "not_found");
    assert.equal(unknown.details.valid.length, 28);
  });
});

Deno.test("control_status shows one control; suppression turns FAIL into a pass", async () => {
  await withDemoClient(async (client) => {
    const ssh = await result(client, "control_status", {
      framework: "cis-aws",
      control_id: "5.2",
    });
    assert.equal(ssh.framework, "CIS-AWS");
    assert.equal(ssh.status, "FAIL");
    assert.equal(ssh.definition, null);
    assert.equal(
      ssh.control_title,
      "No security group admits remote administration ports from 0.0.0.0/0",
    );
    assert.deepEqual(ssh.results.map((r: Loose) => r.finding_ids), [["f-ssh-open"]]);
    assert.deepEqual(ssh.findings.map((f: Loose) => f.id), ["f-ssh-open"]);
    assert.deepEqual(ssh.affected_assets, [SG_ADMIN]);
    assert.equal(ssh.hint, undefined);

    const trail = await result(client, "control_status", {
      framework: "CIS-AWS",
      control_id: "3.1",
    });
    assert.equal(trail.status, "PASS");

    const missing = await result(client, "control_status", {
      framework: "CIS-AWS",
      control_id: "9.9",
    });
    assert.equal(missing.status, "NOT_EVALUATED");
    assert.deepEqual(missing.results, []);
    assert.match(missing.hint, /1\.16, 2\.1\.4, 3\.1, 5\.2/);

    await result(client, "suppress_findings", {
      finding_ids: ["f-logs-public"],
      reason: "Bucket holds public web assets only.",
    });
    const logs = await result(client, "control_status", {
      framework: "CIS-AWS",
      control_id: "2.1.4",
    });
    assert.equal(logs.status, "PASS (all findings suppressed)");
    assert.deepEqual(logs.affected_assets, []);
    const summary = await result(client, "compliance_summary", { framework: "CIS-AWS" });
    assert.equal(summary.frameworks[0].pass_rate, 50);
    assert.equal(summary.frameworks[0].open_findings, 2);

    const before = await datasetVersion(client);
    assert.equal(
      (await fails(client, "control_status", { framework: "HIPAA", control_id: "1" })).code,
      "not_found",
    );
    assert.equal(
      (await fails(client, "control_status", { framework: "CIS", control_id: "1", limit: 201 }))
        .code,
      "invalid_request",
    );
    assert.equal(
      (await fails(client, "control_status", { framework: "CIS", control_id: "" })).code,
      "invalid_request",
    );
    assert.equal(await datasetVersion(client), before);
  });
});

Deno.test("compliance_gaps lists failing assets worst first and pages them", async () => {
  await withDemoClient(async (client) => {
    const gaps = await result(client, "compliance_gaps");
    assert.equal(gaps.total, 6);
    assert.deepEqual(
      gaps.items.map((g: Loose) => [g.name, g.max_severity, g.open_findings]),
      [
        ["az-nsg", "CRITICAL", 1],
        ["sg-admin", "CRITICAL", 1],
        ["full-access-policy", "HIGH", 1],
        ["analytics-public", "HIGH", 1],
        ["prod-logs", "HIGH", 1],
        ["orders-db", "MEDIUM", 1],
      ],
    );
    assert.equal(gaps.items[0].asset, AZ_NSG);
    assert.deepEqual(gaps.items[1].frameworks, ["CIS-AWS", "PCI-DSS"]);
    assert.deepEqual(gaps.items[1].failing_controls, ["CIS-AWS 5.2", "PCI-DSS 1.3.1"]);

    const cis = await result(client, "compliance_gaps", { framework: "CIS-AWS" });
    assert.deepEqual(cis.items.map((g: Loose) => g.name), [
      "sg-admin",
      "full-access-policy",
      "prod-logs",
    ]);
    const critical = await result(client, "compliance_gaps", { min_severity: "critical" });
    assert.deepEqual(critical.items.map((g: Loose) => g.asset), [AZ_NSG, SG_ADMIN]);

    const first = await result(client, "compliance_gaps", { limit: 4 });
    const rest = await result(client, "compliance_gaps", { limit: 4, cursor: first.next_cursor });
    assert.deepEqual(
      [...first.items, ...rest.items].map((g: Loose) => g.asset),
      gaps.items.map((g: Loose) => g.asset),
    );

    const before = await datasetVersion(client);
    assert.equal(
      (await fails(client, "compliance_gaps", { framework: "SOC2" })).code,
      "not_found",
    );
    assert.equal(
      (await fails(client, "compliance_gaps", { min_severity: "worst" })).code,
      "invalid_request",
    );
    assert.match(
      (await fails(client, "compliance_gaps", { cursor: "c9.zzzzzzzzzzzz" })).message,
      /invalid cursor/i,
    );
    assert.equal(
      (await fails(client, "compliance_gaps", { limit: 501 })).code,
      "invalid_request",
    );
    assert.equal(await datasetVersion(client), before);

    await result(client, "suppress_findings", { finding_ids: ["f-rdp-open"], reason: "closed" });
    const stale = await fails(client, "compliance_gaps", { limit: 4, cursor: first.next_cursor });
    assert.match(stale.message, /stale cursor/i);
    assert.equal((await result(client, "compliance_gaps")).total, 5);
  });
});

Deno.test("compliance_summary counts as affected assets only assets of the dataset", async () => {
  const finding = cisFinding;
  const dataset = {
    assets: [bucketAsset("bucket-a", "a")],
    edges: [],
    // Two findings on the bucket, one on a resource the dataset has no asset for.
    findings: [
      finding("f1", "bucket-a"),
      finding("f2", "bucket-a"),
      finding("f3", "arn:aws:s3:::not-inventoried"),
    ],
  };
  await withInlineDataset(dataset, async (client) => {
    const listed = (await result(client, "list_findings", { framework: "CIS-AWS" })).items;
    const assets = new Set(listed.map((f: Loose) => f.asset_id).filter((id: unknown) => id));
    const row = (await result(client, "compliance_summary", { framework: "CIS-AWS" }))
      .frameworks[0];
    assert.equal(row.open_findings, listed.length);
    assert.equal(row.affected_assets, assets.size);
  });
});

Deno.test("control_status and compliance_gaps name assets by the ids list_findings and find_assets use", async () => {
  const finding = cisFinding;
  // A Terraform-style asset (id = resource address, with an ARN); findings name it by id and by
  // ARN, and one finding is on a resource the dataset has no asset for.
  const dataset = {
    assets: [bucketAsset("aws_s3_bucket.logs", "logs", { arn: "arn:aws:s3:::logs" })],
    edges: [],
    findings: [
      finding("f1", "aws_s3_bucket.logs"),
      finding("f2", "arn:aws:s3:::logs"),
      finding("f3", "arn:aws:s3:::not-inventoried"),
    ],
    compliance: [{
      framework: "CIS-AWS",
      control_id: "2.1.4",
      status: "FAIL",
      finding_ids: ["f1", "f2", "f3"],
    }],
  };
  await withInlineDataset(dataset, async (client) => {
    const listed = (await result(client, "list_findings", { framework: "CIS-AWS", limit: 100 }))
      .items;
    const findable = async (id: string): Promise<boolean> =>
      (await result(client, "find_assets", { query: id })).items.some((a: Loose) => a.id === id);

    // control_status: the asset ids list_findings gives the control's findings, no others.
    const control = await result(client, "control_status", {
      framework: "CIS-AWS",
      control_id: "2.1.4",
    });
    const named = new Set(control.results.flatMap((r: Loose) => r.finding_ids));
    const ofControl = listed.filter((f: Loose) => named.has(f.id));
    assert.equal(control.findings.length, ofControl.length);
    const ids = [...new Set(ofControl.map((f: Loose) => f.asset_id).filter((a: unknown) => a))];
    assert.deepStrictEqual([...control.affected_assets].sort(), ids.sort());
    for (const id of control.affected_assets) assert.ok(await findable(id), id);

    // compliance_gaps: mapped rows keyed by list_findings' asset_id with its finding count;
    // findings on no asset still form unmapped rows.
    const gaps = (await result(client, "compliance_gaps", { framework: "CIS-AWS" })).items;
    const expected: Record<string, number> = {};
    for (const f of listed) {
      const key = f.asset_id ?? `unmapped:${f.resource_id}`;
      expected[key] = (expected[key] ?? 0) + 1;
    }
    assert.deepStrictEqual(
      Object.fromEntries(gaps.map((g: Loose) => [g.asset, g.open_findings])),
      expected,
    );
    for (const g of gaps) {
      if (!g.asset.startsWith("unmapped:")) assert.ok(await findable(g.asset), g.asset);
    }
  });
});

Deno.test("dataset_summary lists the frameworks of finding tags, as compliance_summary does", async () => {
  const findings = [
    { ...cisFinding("a", "arn:aws:s3:::a"), compliance_frameworks: ["CIS-AWS", "PCI-DSS"] },
    { ...cisFinding("b", "arn:aws:s3:::b"), compliance_frameworks: ["NIST-800-53"] },
  ];
  await withInlineDataset({ findings }, async (client) => {
    const expected = [...new Set(findings.flatMap((f) => f.compliance_frameworks))].sort();
    const rollup = await result(client, "compliance_summary");
    assert.deepEqual(rollup.frameworks.map((r: Loose) => r.framework).sort(), expected);
    const summary = await result(client, "dataset_summary");
    assert.deepEqual(summary.compliance_frameworks, expected);
  });
});
