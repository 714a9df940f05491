/**
 * Small cloud estates for graph tests: record builders, a DatasetView over
 * plain records with a Map cache, and one hand-checked estate ("mini").
 */

import type { AssetType, EdgeType, RelationType, Severity } from "../../src/cloud/model/enums.ts";
import type { Asset, DatasetRecords, Edge, Finding } from "../../src/cloud/model/records.ts";
import { emptyRecords } from "../../src/cloud/model/records.ts";
import type { DatasetView } from "../../src/cloud/model/view.ts";

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
  options: { name?: string } = {},
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
    version: 1,
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
