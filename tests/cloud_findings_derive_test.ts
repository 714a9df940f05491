/**
 * Finding normalisation (de-duplication, framework re-mapping) and findings
 * derived from internet reachability to sensitive data stores.
 */

import assert from "node:assert/strict";
import type { AssetType } from "../src/cloud/model/enums.ts";
import type { Asset, Edge, Finding } from "../src/cloud/model/records.ts";
import { emptyRecords } from "../src/cloud/model/records.ts";
import { applyMerges, normaliseFindings } from "../src/cloud/findings/finding_normalise.ts";
import {
  REACHABILITY_SOURCE_TOOL,
  reachabilityFindings,
} from "../src/cloud/findings/reachability_findings.ts";
import { fileImportInput } from "../src/cloud/importers/import_input.ts";
import { prowlerOcsfImporter } from "../src/cloud/importers/prowler_ocsf.ts";
import {
  asset as sharedAsset,
  edge as sharedEdge,
  finding as sharedFinding,
} from "./helpers/cloud_estate.ts";
import { sharedFixture } from "./helpers/shared_fixtures.ts";

const OCSF = sharedFixture("cloud/prowler/ocsf/test_prowler_output.ocsf.json");

function finding(id: string, over: Partial<Finding> = {}): Finding {
  const sg = "arn:aws:ec2:eu-west-1:111122223333:security-group/sg-1";
  return sharedFinding(id, sg, "MEDIUM", {
    resource_arn: sg,
    title: "SSH open",
    source_tool: "prowler",
    source_finding_id: "ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22",
    compliance_frameworks: ["CIS-1.4"],
    detected_at: "2024-01-01T00:00:00Z",
    ...over,
  });
}

function asset(id: string, type: AssetType): Asset {
  return sharedAsset(id, type, {
    arn: null,
    region: "eu-west-1",
    account_id: "111122223333",
    collected_at: "2024-01-01T00:00:00.000Z",
  });
}

function edge(
  type: Edge["edge_type"],
  source: string,
  target: string,
  over: Partial<Edge> = {},
): Edge {
  return sharedEdge(`${type}:${source}->${target}`, [source, type, target], over);
}

Deno.test("normaliseFindings() merges duplicates and re-maps frameworks", () => {
  const input = [
    finding("a"),
    finding("b", { severity: "HIGH", compliance_frameworks: ["PCI-3.2.1"] }),
    finding("c", {
      resource_id: "sg-2",
      resource_arn: null,
      source_finding_id: "other_check",
      compliance_frameworks: [],
    }),
  ];
  const out = normaliseFindings(input);
  assert.equal(out.before, 3);
  assert.equal(out.after, 2);
  assert.deepEqual(out.merged_ids, ["b"]);
  const a = out.findings[0]!;
  assert.equal(a.severity, "HIGH");
  assert.deepEqual(a.compliance_frameworks.sort(), ["CIS", "CIS-AWS", "PCI-DSS"]);
  assert.deepEqual(out.frameworks, ["CIS", "CIS-AWS", "PCI-DSS"]);
  assert.deepEqual(input[0]!.compliance_frameworks, ["CIS-1.4"], "input unchanged");
});

Deno.test("applyMerges(): a compliance result that named a merged finding names the one it was merged into", () => {
  const records = emptyRecords();
  records.findings = [finding("a"), finding("b"), finding("c", { source_finding_id: "other" })];
  records.suppression_reasons = { b: "accepted", c: "accepted" };
  const result = (id: string, findingIds: string[]) => ({
    id,
    framework: "CIS-AWS",
    control_id: id,
    control_title: id,
    status: "FAIL" as const,
    finding_ids: findingIds,
    resource_arn: null,
  });
  records.compliance = [result("5.2", ["b"]), result("5.3", ["a", "b", "c"]), result("1.4", ["c"])];
  const out = normaliseFindings(records.findings);
  assert.deepEqual(out.merged_into, { b: "a" });
  applyMerges(records, out.merged_into);
  assert.deepEqual(records.compliance.map((r) => r.finding_ids), [["a"], ["a", "c"], ["c"]]);
  assert.deepEqual(records.suppression_reasons, { c: "accepted" });
});

Deno.test("normaliseFindings() keeps findings of one generator and resource whose titles differ", () => {
  // One generator id for every vulnerability, as Trivy's ASFF output gives; titles name each one.
  const titles = ["Package flaw VULN-0001 in image", "Package flaw VULN-0002 in image"];
  const input = titles.map((title, i) =>
    finding(`v${i}`, {
      title,
      source_finding_id: "ImageScanner",
      resource_id: "registry.example/app:1",
      resource_arn: null,
    })
  );
  const out = normaliseFindings(input);
  assert.deepEqual(out.findings.map((f) => f.title), titles);
  assert.deepEqual(out.merged_ids, []);
});

Deno.test("normaliseFindings() keeps the OCSF fixture's single failed finding", async () => {
  const r = await prowlerOcsfImporter.load(fileImportInput(OCSF));
  const out = normaliseFindings([...r.records.findings, ...r.records.findings]);
  assert.equal(out.after, 1);
  assert.deepEqual(out.findings[0]!.compliance_frameworks, ["CIS", "CIS-AWS"]);
});

Deno.test("reachabilityFindings() follows open groups, targets and identities to sensitive stores", async () => {
  const records = emptyRecords();
  records.assets = [
    asset("lb", "LOAD_BALANCER"),
    asset("sg-web", "SECURITY_GROUP"),
    asset("web", "EC2"),
    asset("role", "IAM_ROLE"),
    asset("table", "DYNAMODB_TABLE"),
    asset("sg-db", "SECURITY_GROUP"),
    asset("db", "RDS_INSTANCE"),
    asset("private-db", "RDS_INSTANCE"),
  ];
  records.edges = [
    edge("SECURITY_GROUP_RULE", "0.0.0.0/0", "sg-web", {
      port_range: "443",
      properties: { internet: true },
    }),
    edge("ATTACHED_TO", "lb", "sg-web"),
    edge("LOAD_BALANCER_TARGET", "lb", "web"),
    edge("ASSUMES_ROLE", "web", "role"),
    edge("GRANTS_ACCESS", "role", "table"),
    edge("SECURITY_GROUP_RULE", "::/0", "sg-db", {
      port_range: "5432",
      properties: { internet: true },
    }),
    edge("ATTACHED_TO", "db", "sg-db"),
    edge("SECURITY_GROUP_RULE", "sg-db", "0.0.0.0/0", { direction: "egress" }),
    edge("ATTACHED_TO", "private-db", "sg-private"),
  ];
  const found = await reachabilityFindings(records);
  assert.deepEqual(found.map((f) => [f.resource_id, f.evidence]), [
    ["db", "::/0 -> sg-db -> db"],
    ["table", "0.0.0.0/0 -> sg-web -> lb -> web -> role -> table"],
  ]);
  assert.equal(found[0]!.severity, "CRITICAL");
  assert.equal(found[1]!.severity, "HIGH");
  assert.equal(found[0]!.source_tool, REACHABILITY_SOURCE_TOOL);
  assert.match(
    found[0]!.id,
    /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  );
  assert.deepEqual((await reachabilityFindings(records)).map((f) => f.id), found.map((f) => f.id));
  assert.equal((await reachabilityFindings(records, { limit: 1 })).length, 1);
  records.edges = records.edges.filter((e) =>
    e.source_id !== "::/0" && e.source_id !== "0.0.0.0/0"
  );
  assert.deepEqual(await reachabilityFindings(records), []);
});
