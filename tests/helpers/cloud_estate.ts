/**
 * Small cloud estates for tests: record builders, a DatasetView over plain
 * records with a Map cache, and two hand-checked estates ("mini" for the
 * graph queries, "small" for the ontology).
 */

import type { AssetType, EdgeType, RelationType, Severity } from "../../src/cloud/model/enums.ts";
import type { Asset, DatasetRecords, Edge, Finding } from "../../src/cloud/model/records.ts";
import { emptyRecords } from "../../src/cloud/model/records.ts";
import type { DatasetView } from "../../src/cloud/model/view.ts";
import { loadDemo } from "../../src/cloud/demo/load_demo.ts";
import { Workspace } from "../../src/cloud/workspace/workspace.ts";

/** An asset with defaults (AWS, us-east-1, account 111111111111, not exposed). */
export function asset(
  id: string,
  type: AssetType,
  extra: Partial<Asset> = {},
): Asset {
  return {
    id,
    arn: `arn:aws:test:::${id}`,
    name: id,
    asset_type: type,
    provider: "AWS",
    region: "us-east-1",
    account_id: "111111111111",
    tags: {},
    metadata: {},
    collected_at: "2026-01-15T12:00:00Z",
    is_internet_exposed: false,
    ...extra,
  };
}

/** An edge with defaults (ingress, no ports, no relationship). */
export function edge(
  id: string,
  ends: [string, EdgeType, string],
  extra: Partial<Edge> = {},
): Edge {
  return {
    id,
    source_id: ends[0],
    edge_type: ends[1],
    target_id: ends[2],
    ports: [],
    port_range: null,
    protocol: null,
    cidr: null,
    direction: "ingress",
    description: null,
    relationship: null as RelationType | null,
    properties: {},
    ...extra,
  };
}

/** A finding on an asset id. */
export function finding(
  id: string,
  resource: string,
  severity: Severity,
  extra: Partial<Finding> = {},
): Finding {
  return {
    id,
    resource_id: resource,
    resource_arn: null,
    severity,
    title: `${severity} on ${resource}`,
    description: "",
    evidence: "",
    remediation: "",
    source_tool: "test",
    source_finding_id: null,
    compliance_frameworks: [],
    cvss_score: null,
    detected_at: "2026-01-15T12:00:00Z",
    is_suppressed: false,
    ...extra,
  };
}

/** A DatasetView over records: findings map to assets by id, then by ARN; derived views cached in a Map. */
export function makeView(
  parts: Partial<DatasetRecords>,
  options: { name?: string; version?: number } = {},
): DatasetView & { builds: Map<string, number> } {
  const records: DatasetRecords = { ...emptyRecords(), ...parts };
  const byId = new Map(records.assets.map((a) => [a.id, a]));
  const byArn = new Map<string, Asset>();
  for (const a of records.assets) if (a.arn && !byArn.has(a.arn)) byArn.set(a.arn, a);
  const findingAsset = (f: Finding): Asset | undefined =>
    byId.get(f.resource_id) ?? byArn.get(f.resource_id) ??
      (f.resource_arn ? byArn.get(f.resource_arn) : undefined);
  const byAsset = new Map<string, Finding[]>();
  for (const f of records.findings) {
    const a = findingAsset(f);
    if (!a) continue;
    const list = byAsset.get(a.id);
    if (list) list.push(f);
    else byAsset.set(a.id, [f]);
  }
  const cache = new Map<string, unknown>();
  const builds = new Map<string, number>();
  return {
    name: options.name ?? "test",
    version: options.version ?? 1,
    instanceId: "0123456789abcdef",
    records,
    asset: (id) => byId.get(id),
    findingAsset,
    findingsFor: (id) => byAsset.get(id) ?? [],
    derived<T>(key: string, build: () => T): T {
      if (cache.has(key)) return cache.get(key) as T;
      const value = build();
      cache.set(key, value);
      builds.set(key, (builds.get(key) ?? 0) + 1);
      return value;
    },
    builds,
  };
}

const WORLD = "0.0.0.0/0";

/**
 * The "mini" estate: a web tier behind an ALB and a WAF, a bastion open to
 * SSH, a database behind its own security group, a role chain crossing
 * accounts, a queue-triggered function. Hand-computed answers live in the
 * tests next to each query.
 */
export function miniEstate(): DatasetView & { builds: Map<string, number> } {
  const assets: Asset[] = [
    asset("vpc", "VPC"),
    asset("subnet", "SUBNET"),
    asset("sg-web", "SECURITY_GROUP"),
    asset("sg-admin", "SECURITY_GROUP"),
    asset("sg-db", "SECURITY_GROUP"),
    asset("web-1", "EC2", { is_internet_exposed: true }),
    asset("bastion", "EC2", { is_internet_exposed: true }),
    asset("alb", "LOAD_BALANCER", { is_internet_exposed: true }),
    asset("tg", "TARGET_GROUP"),
    asset("app-role", "IAM_ROLE"),
    asset("deploy-role", "IAM_ROLE", { account_id: "222222222222" }),
    asset("db", "RDS_INSTANCE"),
    asset("bucket", "S3_BUCKET"),
    asset("kms", "KMS_KEY"),
    asset("waf", "WAF_WEB_ACL"),
    asset("vendor", "CLOUD_ACCOUNT", { account_id: "999999999999", metadata: { external: true } }),
    asset("fn", "LAMBDA_FUNCTION"),
    asset("queue", "MESSAGE_QUEUE"),
  ];
  const tcp = (port: string, extra: Partial<Edge> = {}): Partial<Edge> => ({
    port_range: port,
    protocol: "TCP",
    cidr: WORLD,
    ...extra,
  });
  const edges: Edge[] = [
    edge("e1", [WORLD, "SECURITY_GROUP_RULE", "sg-web"], tcp("443", { description: "https" })),
    edge("e2", [WORLD, "SECURITY_GROUP_RULE", "sg-web"], tcp("80", { description: "http" })),
    edge("e3", [WORLD, "SECURITY_GROUP_RULE", "sg-admin"], tcp("22", { ports: [22] })),
    edge("e4", ["web-1", "ATTACHED_TO", "sg-web"]),
    edge("e5", ["bastion", "ATTACHED_TO", "sg-admin"]),
    edge("e6", ["alb", "LOAD_BALANCER_TARGET", "tg"]),
    edge("e7", ["tg", "LOAD_BALANCER_TARGET", "web-1"]),
    edge("e8", [WORLD, "INTERNET_EXPOSED", "alb"]),
    edge("e9", ["vpc", "CONTAINS", "subnet"]),
    edge("e10", ["subnet", "CONTAINS", "web-1"]),
    edge("e11", ["subnet", "CONTAINS", "db"]),
    edge("e12", ["web-1", "ASSUMES_ROLE", "app-role"]),
    edge("e13", ["app-role", "GRANTS_ACCESS", "bucket"]),
    edge("e14", ["app-role", "IAM_TRUST", "deploy-role"]),
    edge("e15", ["vendor", "IAM_TRUST", "deploy-role"]),
    edge("e16", ["db", "REFERENCES", "kms"]),
    edge("e17", ["bucket", "REFERENCES", "kms"]),
    edge("e18", ["waf", "PROTECTS", "alb"]),
    edge("e19", ["queue", "INVOKES", "fn"]),
    edge("e20", ["fn", "ASSUMES_ROLE", "app-role"]),
    edge("e21", ["sg-web", "SECURITY_GROUP_RULE", WORLD], {
      protocol: "ALL",
      port_range: "0-65535",
      cidr: WORLD,
      direction: "egress",
    }),
    edge("e22", ["db", "ATTACHED_TO", "sg-db"]),
    edge("e23", ["sg-web", "SECURITY_GROUP_RULE", "sg-db"], {
      port_range: "5432",
      protocol: "TCP",
    }),
  ];
  const findings: Finding[] = [
    finding("f1", "bastion", "CRITICAL"),
    finding("f2", "web-1", "HIGH", { cvss_score: 8.1 }),
    finding("f3", "web-1", "MEDIUM"),
    finding("f4", "db", "HIGH"),
    finding("f5", "bucket", "LOW", { is_suppressed: true }),
  ];
  return makeView({ assets, edges, findings });
}

// The ontology estate names its assets apart from their ids and leaves ARNs out unless given.
function named(id: string, type: AssetType, name: string, extra: Partial<Asset> = {}): Asset {
  return asset(id, type, { name, arn: null, ...extra });
}

function link(
  id: string,
  source: string,
  target: string,
  type: EdgeType,
  extra: Partial<Edge> = {},
): Edge {
  return edge(id, [source, type, target], extra);
}

/**
 * A small estate: 17 assets, 17 edges, 4 findings. The relations each edge
 * and asset imply are listed in the ontology tests.
 */
export function smallEstate(): DatasetRecords {
  const records = emptyRecords();
  records.assets = [
    named("vpc-1", "VPC", "main-vpc"),
    named("subnet-1", "SUBNET", "public-a", { metadata: { vpc_id: "vpc-1" } }),
    named("sg-web", "SECURITY_GROUP", "sg-web"),
    named("sg-admin", "SECURITY_GROUP", "sg-admin"),
    named("web-1", "EC2", "web-1", {
      is_internet_exposed: true,
      tags: { env: "prod", owner: "alice" },
      metadata: { security_groups: ["sg-web"] },
    }),
    named("bastion", "EC2", "bastion", { is_internet_exposed: true, tags: { env: "prod" } }),
    named("alb", "LOAD_BALANCER", "alb-web", { is_internet_exposed: true }),
    named("app-role", "IAM_ROLE", "app-role", { arn: "arn:aws:iam::111111111111:role/app-role" }),
    named("deploy-role", "IAM_ROLE", "deploy-role", {
      account_id: "222222222222",
      arn: "arn:aws:iam::222222222222:role/deploy-role",
    }),
    named("policy-admin", "IAM_POLICY", "admin-policy"),
    named("db-1", "RDS_INSTANCE", "orders-db", {
      metadata: { kms_key_id: "kms-1", storage_encrypted: true },
    }),
    named("kms-1", "KMS_KEY", "kms-main", { metadata: { rotation_enabled: true } }),
    named("bucket-1", "S3_BUCKET", "data-bucket", {
      arn: "arn:aws:s3:::prod-data",
      tags: { "cost-center": "cc42" },
    }),
    named("fn-1", "LAMBDA_FUNCTION", "api-handler", {
      metadata: { vpc_config: { VpcId: "vpc-1" } },
    }),
    named("waf-1", "WAF_WEB_ACL", "web-acl"),
    named("az-vm", "VIRTUAL_MACHINE", "jump-vm", {
      provider: "AZURE",
      region: "westeurope",
      account_id: "00000000-aaaa-bbbb-cccc-000000000001",
    }),
    named("gcs-1", "GCS_BUCKET", "public gcs", {
      provider: "GCP",
      region: "global",
      account_id: "proj-analytics",
      is_internet_exposed: true,
    }),
  ];
  const internet = "0.0.0.0/0";
  records.edges = [
    link("e1", internet, "sg-admin", "SECURITY_GROUP_RULE", {
      port_range: "22",
      protocol: "tcp",
      cidr: internet,
    }),
    link("e2", internet, "sg-web", "SECURITY_GROUP_RULE", {
      port_range: "80,443",
      protocol: "tcp",
      cidr: internet,
    }),
    link("e3", "10.0.0.0/8", "sg-web", "SECURITY_GROUP_RULE", {
      port_range: "8080",
      protocol: "tcp",
      cidr: "10.0.0.0/8",
    }),
    link("e4", "sg-web", internet, "SECURITY_GROUP_RULE", {
      port_range: "*",
      protocol: "-1",
      cidr: internet,
      direction: "egress",
    }),
    link("e5", "vpc-1", "subnet-1", "CONTAINS"),
    link("e6", "subnet-1", "web-1", "CONTAINS"),
    link("e7", "web-1", "sg-web", "ATTACHED_TO"),
    link("e8", "bastion", "sg-admin", "ATTACHED_TO"),
    link("e9", "alb", "web-1", "LOAD_BALANCER_TARGET"),
    link("e10", "web-1", "app-role", "ASSUMES_ROLE"),
    link("e11", "app-role", "deploy-role", "IAM_TRUST"),
    link("e12", "app-role", "policy-admin", "IAM_POLICY_ATTACHMENT"),
    link("e13", "waf-1", "alb", "PROTECTS"),
    link("e14", "fn-1", "db-1", "REFERENCES", { relationship: "READS_FROM" }),
    link("e15", "db-1", "kms-1", "REFERENCES"),
    link("e16", internet, "gcs-1", "INTERNET_EXPOSED"),
    link("e17", "bucket-1", "fn-1", "INVOKES"),
  ];
  records.findings = [
    finding("f-ssh-open", "sg-admin", "CRITICAL", {
      title: "SSH open to the internet",
      compliance_frameworks: ["CIS-AWS", "PCI-DSS"],
    }),
    finding("f-web-cve", "web-1", "HIGH", { title: "Outdated web server", cvss_score: 8.1 }),
    finding("f-ghost", "arn:aws:s3:::ghost-bucket", "MEDIUM", {
      title: "Ghost bucket",
      compliance_frameworks: ["CIS-AWS"],
    }),
    finding("f-versioning", "other", "LOW", {
      resource_arn: "arn:aws:s3:::prod-data",
      title: "Versioning disabled",
      is_suppressed: true,
    }),
  ];
  return records;
}

/** A fresh workspace holding the demo datasets (`sample` active, `after`). */
export function demoWorkspace(): Workspace {
  const workspace = new Workspace();
  loadDemo(workspace);
  return workspace;
}
