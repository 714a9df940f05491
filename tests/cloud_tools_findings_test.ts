/**
 * The findings toolset through a real MCP client on the demo estate: the
 * seed's figures (11 open findings = 2 CRITICAL, 5 HIGH, 2 MEDIUM, 1 LOW,
 * 1 INFO; f-versioning suppressed; f-ghost unmapped; f-web-cve at 7.8;
 * top_risks tie az-nsg and sg-admin at 16.39), bad input as isError results
 * that leave the workspace unchanged, and suppression with its version bump
 * and resource notifications.
 */

import assert from "node:assert/strict";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { fails, type Loose } from "./helpers/in_memory.ts";
import {
  bucketAsset,
  cursorPages,
  datasetVersion as version,
  readText,
  resourceLinks as links,
  result,
  withDemoClient,
  withInlineDataset,
} from "./helpers/cloud_client.ts";

const OPEN_ORDER = [
  "f-ssh-open",
  "f-rdp-open",
  "f-web-cve",
  "f-logs-public",
  "f-admin-policy",
  "f-gcs-public",
  "f-lambda-secret",
  "f-vendor-trust",
  "f-db-backup",
  "f-ghost",
  "f-api-logging",
];

Deno.test("list_findings lists the 11 open findings, highest risk first, with the breakdown", async () => {
  await withDemoClient(async (client) => {
    const page = await result(client, "list_findings");
    assert.equal(page.dataset, "sample");
    assert.equal(page.total, 11);
    const breakdown = { CRITICAL: 2, HIGH: 5, MEDIUM: 2, LOW: 1, INFO: 1 };
    assert.deepEqual(page.severity_breakdown, breakdown);
    assert.deepEqual(page.items.map((f: Loose) => f.id), OPEN_ORDER);
    assert.equal(page.next_cursor, null);
    const cve = page.items.find((f: Loose) => f.id === "f-web-cve");
    assert.equal(cve.risk_score, 7.8);
    assert.equal(cve.cvss_score, 8.1);
    assert.equal(cve.asset_name, "web-1");
    const ghost = page.items.find((f: Loose) => f.id === "f-ghost");
    assert.equal(ghost.asset_id, null);
    assert.equal(ghost.resource_id, "arn:aws:s3:::ghost-bucket");

    const all = await result(client, "list_findings", { include_suppressed: true });
    assert.equal(all.total, 12);
    assert.deepEqual(all.severity_breakdown.LOW, 2);
    assert.equal(all.items.find((f: Loose) => f.id === "f-versioning").is_suppressed, true);
  });
});

Deno.test("list_findings filters combine and fields project the briefs", async () => {
  await withDemoClient(async (client) => {
    const ids = async (args: Record<string, unknown>) =>
      (await result(client, "list_findings", args)).items.map((f: Loose) => f.id);
    assert.deepEqual(await ids({ severities: ["critical"] }), ["f-ssh-open", "f-rdp-open"]);
    assert.equal((await ids({ min_severity: "Medium" })).length, 9);
    assert.deepEqual(await ids({ source_tool: "SCOUTSUITE" }), ["f-rdp-open", "f-gcs-public"]);
    assert.deepEqual(await ids({ framework: "cis" }), [
      "f-ssh-open",
      "f-rdp-open",
      "f-logs-public",
      "f-admin-policy",
      "f-gcs-public",
    ]);
    assert.deepEqual(await ids({ framework: "pci", severities: ["HIGH"] }), []);
    assert.deepEqual(await ids({ resource: "web-1" }), ["f-web-cve"]);
    assert.deepEqual(await ids({ resource: "arn:aws:s3:::ghost-bucket" }), ["f-ghost"]);
    assert.deepEqual(await ids({ query: "SSH" }), ["f-ssh-open"]);
    assert.deepEqual(await ids({ sort_by: "title", severities: ["critical"] }), [
      "f-rdp-open",
      "f-ssh-open",
    ]);

    const slim = await result(client, "list_findings", {
      fields: ["severity", "RISK_SCORE", "severity"],
      limit: 1,
    });
    assert.deepEqual(slim.items, [{ id: "f-ssh-open", severity: "CRITICAL", risk_score: 9.5 }]);
  });
});

Deno.test("list_findings pages with cursors; forged, malformed and stale cursors fail", async () => {
  await withDemoClient(async (client) => {
    const seen: string[] = [];
    const pages = await cursorPages(client, "list_findings", { limit: 4 });
    for (const page of pages) {
      assert.equal(page.offset, seen.length);
      seen.push(...page.items.map((f: Loose) => f.id));
      assert.equal(page.truncated, (page.next_cursor ?? undefined) !== undefined);
    }
    assert.equal(pages.length, 3);
    assert.deepEqual(seen, OPEN_ORDER);

    const first = pages[0];
    const before = await version(client);
    const forged = await fails(client, "list_findings", {
      limit: 4,
      cursor: "c4.000000000000",
    });
    assert.equal(forged.code, "invalid_request");
    assert.match(forged.message, /stale cursor/i);
    const malformed = await fails(client, "list_findings", { cursor: "page-2" });
    assert.match(malformed.message, /invalid cursor/i);
    const otherFilters = await fails(client, "list_findings", {
      limit: 4,
      cursor: first.next_cursor,
      severities: ["HIGH"],
    });
    assert.match(otherFilters.message, /stale cursor/i);
    assert.equal(await version(client), before);

    // A change of the dataset turns the old cursor stale.
    await result(client, "suppress_findings", {
      finding_ids: ["f-api-logging"],
      reason: "informational only",
    });
    const stale = await fails(client, "list_findings", { limit: 4, cursor: first.next_cursor });
    assert.match(stale.message, /stale cursor/i);
  });
});

Deno.test("list_findings refuses bad input with clear errors and changes nothing", async () => {
  await withDemoClient(async (client) => {
    const before = await version(client);
    const unknown = await fails(client, "list_findings", { dataset: "nope" });
    assert.equal(unknown.code, "not_found");
    assert.deepEqual(unknown.details.datasets.map((d: Loose) => d.dataset), ["sample", "after"]);
    for (const limit of [0, 501]) {
      assert.equal((await fails(client, "list_findings", { limit })).code, "invalid_request");
    }
    const severity = await fails(client, "list_findings", { min_severity: "urgent" });
    assert.equal(severity.code, "invalid_request");
    assert.deepEqual(severity.details.valid, ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"]);
    const sort = await fails(client, "list_findings", { sort_by: "riskk" });
    assert.deepEqual(sort.details.close_matches, ["risk"]);
    const field = await fails(client, "list_findings", { fields: ["titel"] });
    assert.deepEqual(field.details.close_matches, ["title"]);
    assert.equal(await version(client), before);
  });
});

Deno.test("get_finding shows text, controls, suppression and asset, and links both", async () => {
  await withDemoClient(async (client) => {
    const ssh = await result(client, "get_finding", { finding_id: "f-ssh-open" });
    assert.equal(ssh.severity, "CRITICAL");
    assert.equal(ssh.asset.name, "sg-admin");
    assert.deepEqual(
      ssh.controls.map((c: Loose) => `${c.framework} ${c.control_id} ${c.status}`),
      ["CIS-AWS 5.2 FAIL", "PCI-DSS 1.3.1 FAIL"],
    );
    assert.equal(ssh.suppression_reason, null);
    assert.ok(ssh.remediation.length > 0);

    const cve = await result(client, "get_finding", { finding_id: "f-web-cve" });
    assert.equal(cve.risk_score, 7.8);
    assert.deepEqual(cve.controls, []);

    const kept = await result(client, "get_finding", { finding_id: "f-versioning" });
    assert.equal(kept.is_suppressed, true);
    assert.equal(
      kept.suppression_reason,
      "Accepted risk: the bucket is replicated nightly to a versioned copy.",
    );

    const ghost = await result(client, "get_finding", { finding_id: "f-ghost" });
    assert.equal(ghost.asset, null);
    const ghostLinks = await links(client, "get_finding", { finding_id: "f-ghost" });
    assert.deepEqual(ghostLinks.map((l: Loose) => l.uri), ["cloudg://findings/f-ghost"]);

    const both = await links(client, "get_finding", { finding_id: "f-web-cve" });
    assert.equal(both.length, 2);
    assert.equal(both[0].uri, cve.asset.uri);
    for (const link of both) {
      const read = await client.readResource({ uri: link.uri });
      assert.ok(read.contents[0]!.uri === link.uri);
    }
    const findingText = JSON.parse(await readText(client, both[1].uri));
    assert.equal(findingText.id, "f-web-cve");

    const missing = await fails(client, "get_finding", { finding_id: "f-ssh" });
    assert.equal(missing.code, "not_found");
    assert.deepEqual(missing.details.suggestions, ["f-ssh-open"]);
    const other = await fails(client, "get_finding", { finding_id: "f-ssh-open", dataset: "x" });
    assert.equal(other.code, "not_found");
  });
});

Deno.test("findings_summary groups by severity, tool, framework, type, account and asset", async () => {
  await withDemoClient(async (client) => {
    const bySeverity = await result(client, "findings_summary");
    assert.equal(bySeverity.total, 11);
    assert.deepEqual(Object.keys(bySeverity.groups), ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"]);
    assert.deepEqual(bySeverity.groups.HIGH, { total: 5, HIGH: 5 });

    const byTool = await result(client, "findings_summary", { group_by: "Source-Tool" });
    assert.deepEqual(byTool.groups.prowler, {
      total: 6,
      CRITICAL: 1,
      HIGH: 2,
      MEDIUM: 1,
      LOW: 1,
      INFO: 1,
    });
    assert.equal(Object.keys(byTool.groups)[0], "prowler");

    const byFramework = await result(client, "findings_summary", { group_by: "framework" });
    assert.deepEqual(byFramework.groups["(none)"], {
      total: 5,
      HIGH: 2,
      MEDIUM: 1,
      LOW: 1,
      INFO: 1,
    });
    assert.deepEqual(byFramework.groups["CIS-AWS"], { total: 3, CRITICAL: 1, HIGH: 2 });

    const byType = await result(client, "findings_summary", { group_by: "asset_type" });
    assert.deepEqual(byType.groups.unmapped, { total: 1, LOW: 1 });

    const withSuppressed = await result(client, "findings_summary", {
      group_by: "asset",
      include_suppressed: true,
      top: 2,
    });
    assert.equal(withSuppressed.total, 12);
    assert.equal(withSuppressed.group_count, 12);
    assert.equal(Object.keys(withSuppressed.groups).length, 2);

    const byAccount = await result(client, "findings_summary", { group_by: "account" });
    assert.equal(byAccount.groups["111111111111"].total, 7);
    assert.deepEqual(byAccount.groups["222222222222"], { total: 1, MEDIUM: 1 });
    assert.deepEqual(byAccount.groups.unmapped, { total: 1, LOW: 1 });

    const bad = await fails(client, "findings_summary", { group_by: "colour" });
    assert.equal(bad.code, "invalid_request");
    assert.equal(bad.details.valid.length, 6);
    assert.equal((await fails(client, "findings_summary", { top: 0 })).code, "invalid_request");
  });
});

Deno.test("findings_for_asset resolves references and reports unknown ones with suggestions", async () => {
  await withDemoClient(async (client) => {
    const web = await result(client, "findings_for_asset", { ref: "web-1" });
    assert.equal(web.asset.name, "web-1");
    assert.deepEqual(web.findings.map((f: Loose) => f.id), ["f-web-cve"]);
    assert.equal(web.total, 1);
    assert.equal(web.truncated, false);

    const data = await result(client, "findings_for_asset", { ref: "arn:aws:s3:::prod-data" });
    assert.equal(data.total, 0);
    const withSuppressed = await result(client, "findings_for_asset", {
      ref: "arn:aws:s3:::prod-data",
      include_suppressed: true,
      limit: 1,
    });
    assert.deepEqual(withSuppressed.findings.map((f: Loose) => f.id), ["f-versioning"]);

    const unknown = await fails(client, "findings_for_asset", { ref: "web-9" });
    assert.equal(unknown.code, "not_found");
    assert.deepEqual(
      unknown.details.suggestions.slice(0, 2).map((s: Loose) => s.name),
      ["web-2", "web-1"],
    );
    assert.equal(
      (await fails(client, "findings_for_asset", { ref: "web-1", limit: 501 })).code,
      "invalid_request",
    );
  });
});

Deno.test("top_risks ties az-nsg and sg-admin at 16.39 and explains the score", async () => {
  await withDemoClient(async (client) => {
    const ranked = await result(client, "top_risks", { top: 3 });
    assert.deepEqual(
      ranked.items.map((r: Loose) => [r.asset.name, r.score]),
      [["az-nsg", 16.39], ["sg-admin", 16.39], ["prod-logs", 14.64]],
    );
    assert.deepEqual(ranked.items[0].components, {
      max_finding_risk: 9.5,
      exposure_factor: 1.5,
      internet_reachable: true,
      transitive_dependents: 1,
      blast_factor: 1.151,
      open_findings: 1,
      volume_factor: 1,
    });
    assert.deepEqual(ranked.items[1].top_findings.map((f: Loose) => f.id), ["f-ssh-open"]);
    assert.equal(ranked.total_candidates, 10);
    assert.match(ranked.formula, /max_finding_risk × exposure_factor/);

    const all = await result(client, "top_risks", { top: 100 });
    const web = all.items.find((r: Loose) => r.asset.name === "web-1");
    assert.equal(web.components.max_finding_risk, 7.8);
    assert.equal(all.items.length, 10);

    const critical = await result(client, "top_risks", { min_severity: "critical" });
    assert.deepEqual(critical.items.map((r: Loose) => r.asset.name), ["az-nsg", "sg-admin"]);

    assert.match(await readText(client, ranked.items[0].asset.uri), /az-nsg/);

    for (const top of [0, 101]) {
      assert.equal((await fails(client, "top_risks", { top })).code, "invalid_request");
    }
    const bad = await fails(client, "top_risks", { min_severity: "severe" });
    assert.ok(Array.isArray(bad.details.valid));
    assert.equal((await fails(client, "top_risks", { dataset: "gone" })).code, "not_found");
  });
});

Deno.test("suppress_findings bumps the version, notifies summary subscribers and unsuppress undoes it", async () => {
  await withDemoClient(async (client) => {
    const uri = "cloudg://datasets/sample/summary";
    const updated: string[] = [];
    let notified!: () => void;
    const seen = new Promise<void>((resolve) => (notified = resolve));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
      updated.push(note.params.uri);
      if (note.params.uri === uri) notified();
    });
    await client.subscribeResource({ uri });
    const before = await version(client);

    const done = await result(client, "suppress_findings", {
      finding_ids: ["f-ssh-open", "f-versioning", "f-nothing", "f-ssh-open"],
      reason: "Compensating control: the group is detached.",
    });
    assert.deepEqual(done.suppressed, ["f-ssh-open"]);
    assert.deepEqual(done.already_suppressed, ["f-versioning"]);
    assert.deepEqual(done.not_found, ["f-nothing"]);
    assert.equal(done.version, before + 1);
    await seen;
    assert.deepEqual(updated, [uri]);
    assert.equal(await version(client), before + 1);

    const summary = await result(client, "dataset_summary");
    assert.equal(summary.open_findings, 10);
    assert.equal(summary.severity_breakdown.CRITICAL, 1);
    const detail = await result(client, "get_finding", { finding_id: "f-ssh-open" });
    assert.equal(detail.suppression_reason, "Compensating control: the group is detached.");
    const ranked = await result(client, "top_risks", { top: 2 });
    assert.deepEqual(ranked.items.map((r: Loose) => r.asset.name), ["az-nsg", "prod-logs"]);
    // The other dataset is untouched.
    assert.equal((await result(client, "list_findings", { dataset: "after" })).total, 11);

    // Nothing new to suppress: no version bump.
    const again = await result(client, "suppress_findings", {
      finding_ids: ["f-ssh-open"],
      reason: "still detached",
    });
    assert.deepEqual(again.suppressed, []);
    assert.equal(again.version, before + 1);

    const lifted = await result(client, "unsuppress_findings", {
      finding_ids: ["f-ssh-open", "f-web-cve", "f-nothing"],
    });
    assert.deepEqual(lifted.unsuppressed, ["f-ssh-open"]);
    assert.deepEqual(lifted.not_suppressed, ["f-web-cve"]);
    assert.deepEqual(lifted.not_found, ["f-nothing"]);
    assert.equal(lifted.version, before + 2);
    assert.equal((await result(client, "list_findings")).total, 11);
    const after = await result(client, "get_finding", { finding_id: "f-ssh-open" });
    assert.equal(after.suppression_reason, null);
  });
});

Deno.test("suppress_findings and unsuppress_findings refuse bad input and change nothing", async () => {
  await withDemoClient(async (client) => {
    const before = await version(client);
    const short = await fails(client, "suppress_findings", {
      finding_ids: ["f-ghost"],
      reason: "x",
    });
    assert.equal(short.code, "invalid_request");
    const blank = await fails(client, "suppress_findings", {
      finding_ids: ["f-ghost"],
      reason: "     ",
    });
    assert.equal(blank.code, "invalid_request");
    assert.equal(
      (await fails(client, "suppress_findings", { finding_ids: [], reason: "fine reason" })).code,
      "invalid_request",
    );
    const many = Array.from({ length: 501 }, (_, i) => `f-${i}`);
    assert.equal(
      (await fails(client, "unsuppress_findings", { finding_ids: many })).code,
      "invalid_request",
    );
    assert.equal(
      (await fails(client, "suppress_findings", {
        finding_ids: ["f-ghost"],
        reason: "fine reason",
        dataset: "missing",
      })).code,
      "not_found",
    );
    assert.equal(await version(client), before);
    assert.equal((await result(client, "list_findings")).total, 11);
  });
});

Deno.test("findings_summary keys assets and accounts as list_findings, find_assets and list_accounts do", async () => {
  // A Terraform-style asset (id = resource address, with an ARN) and one with no account.
  const dataset = {
    assets: [
      bucketAsset("aws_s3_bucket.logs", "logs", { arn: "arn:aws:s3:::logs" }),
      {
        id: "policy-admin",
        name: "AdministratorAccess",
        asset_type: "IAM_POLICY",
        provider: "AWS",
        region: "global",
        account_id: null,
      },
    ],
    edges: [],
    findings: [
      { id: "f1", resource_id: "aws_s3_bucket.logs", severity: "HIGH", source_tool: "t" },
      { id: "f2", resource_id: "arn:aws:s3:::logs", severity: "LOW", source_tool: "t" },
      { id: "f3", resource_id: "policy-admin", severity: "MEDIUM", source_tool: "t" },
    ],
  };
  await withInlineDataset(dataset, async (client) => {
    const listed = (await result(client, "list_findings", { limit: 100 })).items;
    const byAsset = (await result(client, "findings_summary", { group_by: "asset" })).groups;
    // Each group key is an asset id list_findings names, counting that asset's findings.
    const expected: Record<string, number> = {};
    for (const f of listed) expected[f.asset_id] = (expected[f.asset_id] ?? 0) + 1;
    assert.deepStrictEqual(
      Object.fromEntries(Object.entries(byAsset).map(([k, g]) => [k, (g as Loose).total])),
      expected,
    );
    for (const key of Object.keys(byAsset)) {
      const found = await result(client, "find_assets", { query: key });
      assert.ok(found.items.some((a: Loose) => a.id === key), key);
    }
    // Each account group is a list_accounts row the account_id filter finds.
    const byAccount = (await result(client, "findings_summary", { group_by: "account" })).groups;
    const accounts = (await result(client, "list_accounts")).items;
    const rows = accounts.map((a: Loose) => a.account_id);
    for (const key of Object.keys(byAccount)) {
      assert.ok(rows.includes(key), `${key} not in ${JSON.stringify(rows)}`);
      const found = await result(client, "find_assets", { account_id: key });
      const ids = found.items.map((a: Loose) => a.id);
      const count = listed.filter((f: Loose) => ids.includes(f.asset_id)).length;
      assert.equal((byAccount[key] as Loose).total, count, key);
    }
  });
});
