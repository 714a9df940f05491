import assert from "node:assert/strict";
import {
  complianceGaps,
  complianceRollup,
  controlStatus,
  frameworkDetail,
  listControls,
} from "../src/cloud/compliance/rollup.ts";
import { listRulesetFrameworks, RULESET_FRAMEWORKS } from "../src/cloud/compliance/frameworks.ts";
import {
  findingDetail,
  findingsBySeverity,
  findingsOverview,
} from "../src/cloud/findings/detail.ts";
import {
  filterFindings,
  findingsForAsset,
  findingsSummary,
  listFindings,
  resolveFinding,
} from "../src/cloud/findings/queries.ts";
import {
  InvalidEnumError,
  NotFoundError,
  StaleCursorError,
  UnknownAssetError,
  UnknownFindingError,
  UnknownFrameworkError,
} from "../src/cloud/model/errors.ts";
import { demoWorkspace } from "./helpers/cloud_estate.ts";

Deno.test("filterFindings() filters by severity, tool, framework, resource and query", () => {
  const view = demoWorkspace().dataset("sample");
  const ids = (f: { id: string }[]): string[] => f.map((x) => x.id);
  assert.equal(filterFindings(view).length, 11);
  assert.equal(filterFindings(view, { include_suppressed: true }).length, 12);
  assert.deepEqual(ids(filterFindings(view, { severities: ["critical"] })), [
    "f-ssh-open",
    "f-rdp-open",
  ]);
  assert.equal(filterFindings(view, { severities: ["high"] }).length, 5);
  assert.equal(filterFindings(view, { min_severity: "medium" }).length, 9);
  assert.deepEqual(ids(filterFindings(view, { source_tool: "TRIVY" })), ["f-web-cve"]);
  assert.deepEqual(ids(filterFindings(view, { framework: "cis-aws" })), [
    "f-ssh-open",
    "f-logs-public",
    "f-admin-policy",
  ]);
  assert.deepEqual(ids(filterFindings(view, { resource: "web-1" })), ["f-web-cve"]);
  assert.deepEqual(ids(filterFindings(view, { resource: "arn:aws:s3:::ghost-bucket" })), [
    "f-ghost",
  ]);
  assert.deepEqual(ids(filterFindings(view, { query: "BACKUP" })), ["f-db-backup"]);
  assert.deepEqual(ids(filterFindings(view, { sort_by: "title" })).slice(0, 2), [
    "f-api-logging",
    "f-ghost",
  ]);
  assert.throws(() => filterFindings(view, { min_severity: "severe" }), InvalidEnumError);
  assert.throws(() => filterFindings(view, { sort_by: "colour" }), InvalidEnumError);
});

Deno.test("listFindings() pages briefs highest risk first with a stable cursor", () => {
  const workspace = demoWorkspace();
  const view = workspace.dataset("sample");
  const first = listFindings(view, { limit: 4 });
  assert.equal(first.total, 11);
  assert.deepEqual(first.items.map((f) => f.id), [
    "f-ssh-open",
    "f-rdp-open",
    "f-web-cve",
    "f-logs-public",
  ]);
  assert.deepEqual(first.severity_breakdown, { CRITICAL: 2, HIGH: 5, MEDIUM: 2, LOW: 1, INFO: 1 });
  const second = listFindings(view, { limit: 4, cursor: first.next_cursor });
  assert.equal(second.offset, 4);
  assert.throws(
    () => listFindings(view, { limit: 4, cursor: first.next_cursor, severities: ["HIGH"] }),
    StaleCursorError,
  );
});

Deno.test("findingsSummary() groups by severity, tool, framework, asset type and account", () => {
  const view = demoWorkspace().dataset("sample");
  const bySeverity = findingsSummary(view);
  assert.deepEqual(Object.keys(bySeverity.groups), ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"]);
  assert.deepEqual(bySeverity.groups["HIGH"], { total: 5, HIGH: 5 });
  assert.equal(findingsSummary(view, { group_by: "source_tool" }).groups["prowler"]?.total, 6);
  const frameworks = findingsSummary(view, { group_by: "framework" }).groups;
  assert.equal(frameworks["CIS-AWS"]?.total, 3);
  assert.equal(frameworks["(none)"]?.total, 5);
  assert.equal(findingsSummary(view, { group_by: "asset_type" }).groups["unmapped"]?.total, 1);
  assert.equal(findingsSummary(view, { group_by: "account" }).groups["999999999999"], undefined);
  assert.equal(findingsSummary(view, { group_by: "asset", top: 2 }).group_count, 11);
});

Deno.test("findingsForAsset() and resolveFinding() with unknown refs and ids", () => {
  const view = demoWorkspace().dataset("sample");
  const data = findingsForAsset(view, "prod-data", { include_suppressed: true });
  assert.deepEqual(data.findings.map((f) => f.id), ["f-versioning"]);
  assert.equal(findingsForAsset(view, "prod-data").total, 0);
  assert.equal(findingsForAsset(view, "sg-admin").asset.max_severity, "CRITICAL");
  assert.throws(() => findingsForAsset(view, "nothing-here"), UnknownAssetError);
  assert.equal(resolveFinding(view, "f-ghost").resource_id, "arn:aws:s3:::ghost-bucket");
  assert.equal(resolveFinding(view, "trivy:web-cve").id, "f-web-cve");
  assert.throws(() => resolveFinding(view, "f-rdp"), (e: unknown) => {
    assert.ok(e instanceof UnknownFindingError);
    assert.deepEqual(e.data.suggestions, ["f-rdp-open"]);
    return true;
  });
});

Deno.test("complianceRollup() CIS-AWS passes 1 of 4 controls: 25.0", () => {
  const view = demoWorkspace().dataset("sample");
  const rows = complianceRollup(view);
  assert.deepEqual(rows.map((r) => r.framework), [
    "CIS-AWS",
    "CIS-Azure",
    "CIS-GCP",
    "NIST-800-53",
    "PCI-DSS",
  ]);
  const cis = rows[0]!;
  assert.deepEqual(
    [cis.controls_evaluated, cis.controls_failing, cis.controls_passing, cis.pass_rate],
    [4, 3, 1, 25],
  );
  assert.equal(cis.open_findings, 3);
  assert.deepEqual(cis.severity_breakdown, { CRITICAL: 1, HIGH: 2 });
  assert.equal(cis.uri, "cloudg://compliance/CIS-AWS");
  assert.deepEqual(complianceRollup(view, "cis").map((r) => r.framework).sort(), [
    "CIS-AWS",
    "CIS-Azure",
    "CIS-GCP",
  ]);
});

Deno.test("compliance: a suppressed finding turns its failing control into a pass", () => {
  const workspace = demoWorkspace();
  workspace.suppress(["f-admin-policy"], "accepted: break-glass role");
  const view = workspace.dataset("sample");
  assert.equal(controlStatus(view, "cis-aws", "1.16").status, "PASS (all findings suppressed)");
  assert.equal(complianceRollup(view, "CIS-AWS")[0]!.pass_rate, 50);
  assert.equal(controlStatus(view, "CIS-AWS", "9.9").status, "NOT_EVALUATED");
});

Deno.test("frameworkDetail(), listControls() and complianceGaps() on the demo estate", () => {
  const view = demoWorkspace().dataset("sample");
  const detail = frameworkDetail(view, "cis-aws");
  assert.deepEqual(detail.failing_controls.map((c) => c.control_id), ["5.2", "1.16", "2.1.4"]);
  assert.throws(() => frameworkDetail(view, "HIPAA"), UnknownFrameworkError);
  assert.deepEqual(listControls(view, "CIS-AWS", { status: "pass" }).map((c) => c.control_id), [
    "3.1",
  ]);
  const gaps = complianceGaps(view);
  assert.equal(gaps[0]!.max_severity, "CRITICAL");
  assert.ok(gaps.some((g) => g.name === "sg-admin" && g.frameworks.length === 2));
  assert.equal(complianceGaps(view, { framework: "NIST" })[0]!.name, "orders-db");
  assert.equal(RULESET_FRAMEWORKS.length, 28);
});

Deno.test("findingDetail(), findingsOverview() and findingsBySeverity() on the demo estate", () => {
  const view = demoWorkspace().dataset("sample");
  const ssh = findingDetail(view, "f-ssh-open");
  assert.deepEqual(ssh.controls.map((c) => `${c.framework} ${c.control_id}`), [
    "CIS-AWS 5.2",
    "PCI-DSS 1.3.1",
  ]);
  assert.equal(ssh.asset?.id, "sg-admin");
  assert.equal(ssh.suppression_reason, null);
  const versioning = findingDetail(view, "f-versioning");
  assert.match(versioning.suppression_reason ?? "", /Accepted risk/);
  assert.equal(findingDetail(view, "f-ghost").asset, null);
  const overview = findingsOverview(view);
  assert.deepEqual([overview.open_findings, overview.suppressed], [11, 1]);
  assert.deepEqual(overview.by_tool, { prowler: 6, scoutsuite: 2, trivy: 1, checkov: 1, iam: 1 });
  const high = findingsBySeverity(view, "high");
  assert.deepEqual([high.severity, high.total, high.truncated], ["HIGH", 5, false]);
  assert.equal(high.findings[0]!.id, "f-web-cve");
  assert.throws(() => findingsBySeverity(view, "urgent"), (e: unknown) => {
    assert.ok(e instanceof NotFoundError);
    assert.equal(e.data.valid?.length, 5);
    return true;
  });
});

Deno.test("listRulesetFrameworks() filters the 28 ruleset frameworks by provider", () => {
  assert.equal(listRulesetFrameworks().length, 28);
  const azure = listRulesetFrameworks("azure").map((f) => f.framework);
  assert.ok(azure.includes("CIS-AZURE") && azure.includes("GDPR") && !azure.includes("CIS-AWS"));
});
