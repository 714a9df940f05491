/**
 * Our rule set: every rule has an estate that triggers it and one that does
 * not (the two differ in the one fact the rule reads), fixtures trigger the
 * rules they should, and the CIS control table matches the control-to-check
 * mapping facts of the shared Prowler compliance files.
 */

import assert from "node:assert/strict";
import type { AssetType, CloudProvider } from "../src/cloud/model/enums.ts";
import type { Asset, DatasetRecords, Edge, Json } from "../src/cloud/model/records.ts";
import { emptyRecords } from "../src/cloud/model/records.ts";
import { RULES } from "../src/cloud/rules/rule_table.ts";
import { CIS_FRAMEWORKS, RULE_CIS_CONTROLS } from "../src/cloud/rules/cis_mapping.ts";
import { evaluateRules } from "../src/cloud/rules/rule_evaluate.ts";
import { frameworkCatalog } from "../src/cloud/rules/framework_catalog.ts";
import { asset as sharedAsset } from "./helpers/cloud_estate.ts";

const COMPLIANCE = new URL("../../shared/fixtures/cloud/prowler/compliance/", import.meta.url);

function asset(
  id: string,
  type: AssetType,
  metadata: Record<string, Json>,
  provider: CloudProvider = "AWS",
): Asset {
  return sharedAsset(id, type, {
    arn: null,
    provider,
    region: "eu-west-1",
    account_id: "111122223333",
    metadata,
    collected_at: "2024-01-01T00:00:00.000Z",
  });
}

function rule(
  source: string,
  target: string,
  port: string,
  protocol = "TCP",
  internet = true,
): Edge {
  return {
    id: `${source}->${target}:${port}`,
    source_id: source,
    target_id: target,
    edge_type: "SECURITY_GROUP_RULE",
    ports: [],
    port_range: port,
    protocol,
    cidr: source,
    direction: "ingress",
    description: null,
    relationship: null,
    properties: internet ? { internet: true } : {},
  };
}

function records(assets: Asset[], edges: Edge[] = []): DatasetRecords {
  return { ...emptyRecords(), assets, edges };
}

const ADMIN = { Statement: [{ Effect: "Allow", Action: "*", Resource: "*" }] };
const READ = { Statement: [{ Effect: "Allow", Action: "s3:ListBucket", Resource: "*" }] };
const nacl = (action: string) => ({
  entries: [
    {
      direction: "ingress",
      rule_no: 100,
      action,
      protocol: "-1",
      from_port: 0,
      to_port: 0,
      cidr: "0.0.0.0/0",
    },
  ],
});

/** Rule id → [estate that triggers it, estate that does not]. */
const CASES: Record<string, [DatasetRecords, DatasetRecords]> = {
  "f-ssh-open": [
    records([asset("sg", "SECURITY_GROUP", {})], [rule("0.0.0.0/0", "sg", "20-25")]),
    records([asset("sg", "SECURITY_GROUP", {})], [rule("10.0.0.0/8", "sg", "22", "TCP", false)]),
  ],
  "f-rdp-open": [
    records([asset("nsg", "NSG", {}, "AZURE")], [rule("0.0.0.0/0", "nsg", "3389")]),
    records([asset("nsg", "NSG", {}, "AZURE")], [rule("0.0.0.0/0", "nsg", "443")]),
  ],
  "f-all-ports-open": [
    records([asset("sg", "SECURITY_GROUP", {})], [rule("::/0", "sg", "*", "ALL")]),
    records([asset("sg", "SECURITY_GROUP", {})], [rule("::/0", "sg", "*", "UDP")]),
  ],
  "f-nacl-open": [
    records([asset("acl", "NACL", nacl("allow"))]),
    records([asset("acl", "NACL", nacl("deny"))]),
  ],
  "f-default-sg-traffic": [
    records([asset("sg", "SECURITY_GROUP", { default_group: true, rule_count: 2 })]),
    records([asset("sg", "SECURITY_GROUP", { default_group: true, rule_count: 0 })]),
  ],
  "f-bucket-public": [
    records([asset("b", "GCS_BUCKET", { public_access: true }, "GCP")]),
    records([asset("b", "GCS_BUCKET", { public_access: false }, "GCP")]),
  ],
  "f-bucket-no-public-access-block": [
    records([asset("b", "S3_BUCKET", { public_access_block: false })]),
    records([
      asset("b", "S3_BUCKET", { public_access_block: false, account_public_access_block: true }),
    ]),
  ],
  "f-db-public": [
    records([asset("db", "RDS_INSTANCE", { publicly_accessible: true })]),
    records([asset("db", "RDS_INSTANCE", { publicly_accessible: false })]),
  ],
  "f-db-unencrypted": [
    records([asset("db", "AURORA_CLUSTER", { encrypted: false })]),
    records([asset("db", "AURORA_CLUSTER", { encrypted: true })]),
  ],
  "f-volume-unencrypted": [
    records([asset("v", "EBS_VOLUME", { encrypted: false })]),
    records([asset("v", "EBS_VOLUME", { encrypted: true })]),
  ],
  "f-bucket-unencrypted": [
    records([asset("b", "S3_BUCKET", { encrypted: false })]),
    records([asset("b", "S3_BUCKET", { encrypted: true })]),
  ],
  "f-iam-wildcard-admin": [
    records([asset("p", "IAM_POLICY", { policy_document: ADMIN })]),
    records([asset("p", "IAM_POLICY", { policy_document: READ })]),
  ],
  "f-iam-administrator-access-attached": [
    records([
      asset("r", "IAM_ROLE", {
        managed_policy_arns: ["arn:aws:iam::aws:policy/AdministratorAccess"],
      }),
    ]),
    records([
      asset("r", "IAM_ROLE", {
        // Not AWS's policy: a customer-managed one of the same name.
        managed_policy_arns: [
          "arn:aws:iam::aws:policy/PowerUserAccess",
          "arn:aws:iam::123456789012:policy/AdministratorAccess",
        ],
      }),
    ]),
  ],
  "f-iam-privilege-escalation": [
    records([asset("r", "IAM_ROLE", { privilege_escalation: ["CreateAccessKey"] })]),
    records([asset("r", "IAM_ROLE", { privilege_escalation: [] })]),
  ],
  "f-iam-data-exfiltration": [
    records([
      asset("p", "IAM_POLICY", {
        policy_document: { Statement: [{ Effect: "Allow", Action: "s3:Get*", Resource: "*" }] },
      }),
    ]),
    records([asset("p", "IAM_POLICY", { policy_document: READ })]),
  ],
  "f-iam-trust-any": [
    records([
      asset("r", "IAM_ROLE", {
        trust_policy: {
          Statement: [{ Effect: "Allow", Principal: "*", Action: "sts:AssumeRole" }],
        },
      }),
    ]),
    records([
      asset("r", "IAM_ROLE", {
        trust_policy: {
          Statement: [{
            Effect: "Allow",
            Principal: "*",
            Action: "sts:AssumeRole",
            Condition: { StringEquals: { "sts:ExternalId": "x" } },
          }],
        },
      }),
    ]),
  ],
  "f-resource-policy-public": [
    records([
      asset("q", "MESSAGE_QUEUE", {
        resource_policy: {
          Statement: [{ Effect: "Allow", Principal: { AWS: "*" }, Action: "sqs:SendMessage" }],
        },
      }),
    ]),
    records([
      asset("q", "MESSAGE_QUEUE", {
        resource_policy: {
          Statement: [{
            Effect: "Allow",
            Principal: { AWS: "arn:aws:iam::111122223333:root" },
            Action: "sqs:SendMessage",
          }],
        },
      }),
    ]),
  ],
  "f-root-access-keys": [
    records([asset("acct", "CLOUD_ACCOUNT", { root_access_keys_active: true })]),
    records([asset("acct", "CLOUD_ACCOUNT", { root_access_keys_active: false })]),
  ],
  "f-root-mfa-disabled": [
    records([asset("acct", "CLOUD_ACCOUNT", { root_mfa_active: false })]),
    records([asset("acct", "CLOUD_ACCOUNT", { root_mfa_active: true })]),
  ],
  "f-user-console-no-mfa": [
    records([asset("u", "IAM_USER", { password_enabled: true, mfa_active: false })]),
    records([asset("u", "IAM_USER", { password_enabled: false, mfa_active: false })]),
  ],
  "f-iam-user-direct-policy": [
    records([asset("u", "IAM_USER", { direct_policy_attachment: true })]),
    records([asset("u", "IAM_USER", { direct_policy_attachment: false })]),
  ],
  "f-cloudtrail-not-multi-region": [
    records([asset("t", "CLOUDTRAIL", { multi_region: false })]),
    records([asset("t", "CLOUDTRAIL", { multi_region: true })]),
  ],
  "f-cloudtrail-log-validation-disabled": [
    records([asset("t", "CLOUDTRAIL", { log_file_validation: false })]),
    records([asset("t", "CLOUDTRAIL", { log_file_validation: true })]),
  ],
  "f-logging-disabled": [
    records([asset("t", "CLOUDTRAIL", { logging_enabled: false })]),
    records([asset("t", "CLOUDTRAIL", { logging_enabled: true })]),
  ],
  "f-kms-rotation-disabled": [
    records([
      asset("k", "KMS_KEY", {
        rotation_enabled: false,
        key_enabled: true,
        key_spec: "SYMMETRIC_DEFAULT",
      }),
    ]),
    records([
      asset("k", "KMS_KEY", { rotation_enabled: false, key_enabled: true, key_spec: "RSA_4096" }),
    ]),
  ],
  "f-vpc-flow-logs-disabled": [
    records([asset("vpc", "VPC", {})]),
    records([asset("vpc", "VPC", { flow_logs: true })]),
  ],
  "f-imdsv2-not-required": [
    records([asset("i", "EC2", { imdsv2_required: false })]),
    records([asset("i", "EC2", { imdsv2_required: true })]),
  ],
};

Deno.test("every rule has a triggering and a clean case", () => {
  assert.deepEqual(Object.keys(CASES).sort(), RULES.map((r) => r.id).sort());
  assert.equal(new Set(RULES.map((r) => r.id)).size, RULES.length);
});

for (const r of RULES) {
  Deno.test(`rule ${r.id} fires on its estate and not on the clean one`, () => {
    const [bad, good] = CASES[r.id]!;
    const fired = evaluateRules(bad, [r]).findings;
    assert.equal(fired.length, 1, `${r.id} did not fire`);
    const f = fired[0]!;
    assert.equal(f.id, `${r.id}:${bad.assets[0]!.id}`);
    assert.equal(f.severity, r.severity);
    assert.equal(f.source_finding_id, r.id);
    assert.ok(f.evidence.length > 0 && f.remediation.length > 0 && f.title.length > 0);
    assert.equal(evaluateRules(good, [r]).findings.length, 0, `${r.id} fired on the clean estate`);
  });
}

Deno.test("CIS results: FAIL with finding ids, PASS when evaluated clean, none for absent providers", () => {
  const out = evaluateRules(CASES["f-ssh-open"]![0]);
  const c52 = out.compliance.find((c) => c.id === "CIS-AWS:5.2")!;
  assert.equal(c52.status, "FAIL");
  assert.deepEqual(c52.finding_ids, ["f-ssh-open:sg"]);
  assert.ok(!out.compliance.some((c) => c.framework === "CIS-AZURE"));
  const clean = evaluateRules(CASES["f-ssh-open"]![1]);
  assert.equal(clean.compliance.find((c) => c.id === "CIS-AWS:5.2")?.status, "PASS");
  assert.ok(out.findings[0]!.compliance_frameworks.includes("CIS-AWS"));
});

Deno.test("RULE_CIS_CONTROLS matches the CIS 3.0 control-to-check facts", async () => {
  const files: Record<string, string> = {
    "CIS-AWS": "aws",
    "CIS-AZURE": "azure",
    "CIS-GCP": "gcp",
  };
  for (const framework of CIS_FRAMEWORKS) {
    const doc = JSON.parse(
      await Deno.readTextFile(new URL(`cis_3.0_${files[framework]}.json`, COMPLIANCE)),
    );
    assert.equal(doc.Version, "3.0");
    const requirements = doc.Requirements as { Id: string; Checks: string[] }[];
    for (const r of RULES) {
      const derived = requirements.filter((q) => q.Checks.some((c) => r.prowler_checks.includes(c)))
        .map((q) => q.Id);
      assert.deepEqual(
        [...(RULE_CIS_CONTROLS[r.id]?.[framework] ?? [])],
        derived,
        `${r.id} ${framework}`,
      );
    }
  }
  assert.ok(Object.keys(RULE_CIS_CONTROLS).every((id) => RULES.some((r) => r.id === id)));
});

Deno.test("frameworkCatalog() lists the 28 reference frameworks with what we evaluate", () => {
  const catalog = frameworkCatalog();
  assert.equal(catalog.length, 28);
  const aws = catalog.find((c) => c.framework === "CIS-AWS")!;
  assert.equal(aws.provider, "AWS");
  assert.ok(aws.controls.includes("5.2") && aws.controls.includes("1.4"));
  assert.ok(aws.rules.includes("f-ssh-open"));
  const gcp = catalog.find((c) => c.framework === "CIS-GCP")!;
  assert.deepEqual(gcp.controls, ["3.6", "3.7", "5.1", "6.5", "6.6"]);
  const pci = catalog.find((c) => c.framework === "PCI-GCP")!;
  assert.deepEqual(pci.controls, []);
  assert.ok(pci.rules.includes("f-db-public") && !pci.rules.includes("f-root-access-keys"));
  assert.deepEqual(catalog.find((c) => c.framework === "MITRE-ATTACK-AWS")!.rules, []);
});
