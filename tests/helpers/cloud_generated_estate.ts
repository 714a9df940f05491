/**
 * A seeded synthetic cloud estate of N assets and exactly 3N edges for
 * scale tests and benchmarks: accounts of VPCs with subnets, security groups
 * (some open to the internet), instances behind load balancers, functions
 * fed by queues, roles with grants and cross-account trust, buckets,
 * databases, keys and secrets, plus findings on about a tenth of the assets.
 */

import type { AssetType, EdgeType, Severity } from "../../src/cloud/model/enums.ts";
import type { Asset, DatasetRecords, Edge, Finding } from "../../src/cloud/model/records.ts";
import { emptyRecords } from "../../src/cloud/model/records.ts";
import { edge } from "./cloud_estate.ts";
import { mulberry32 } from "./random.ts";

/** Share of the estate per asset type (instances take the rest). */
const MIX: readonly [AssetType, number][] = [
  ["CLOUD_ACCOUNT", 0.0005],
  ["VPC", 0.01],
  ["SUBNET", 0.04],
  ["SECURITY_GROUP", 0.06],
  ["LOAD_BALANCER", 0.015],
  ["TARGET_GROUP", 0.015],
  ["LAMBDA_FUNCTION", 0.08],
  ["MESSAGE_QUEUE", 0.03],
  ["IAM_ROLE", 0.1],
  ["S3_BUCKET", 0.1],
  ["RDS_INSTANCE", 0.03],
  ["DYNAMODB_TABLE", 0.02],
  ["KMS_KEY", 0.02],
  ["SECRET", 0.03],
  ["LOG_GROUP", 0.02],
];

const WORLD = "0.0.0.0/0";
const SEVERITIES: readonly Severity[] = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"];
const OPEN_PORTS: readonly string[] = ["22", "443", "80", "3389", "5432", "8080"];

/** A generated estate: the records plus the ids of each type, for picking query arguments. */
export interface GeneratedEstate {
  records: DatasetRecords;
  byType: Map<AssetType, string[]>;
}

/** Generates the estate; the same `size` and `seed` always give the same records. */
export function generateEstate(size: number, seed = 42): GeneratedEstate {
  if (!Number.isInteger(size) || size < 40) {
    throw new RangeError(`generateEstate() needs an integer size of at least 40, got ${size}.`);
  }
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const counts = new Map<AssetType, number>();
  let assigned = 0;
  for (const [type, share] of MIX) {
    const n = Math.max(1, Math.round(size * share));
    counts.set(type, n);
    assigned += n;
  }
  counts.set("EC2", Math.max(1, size - assigned));
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  if (total > size) {
    // Tiny estates: trim instances' share back so the count is exact.
    counts.set("EC2", counts.get("EC2")! - (total - size));
  }
  const accounts = counts.get("CLOUD_ACCOUNT")!;
  const accountId = (i: number): string => String(100000000000 + (i % accounts));
  const regions = ["us-east-1", "eu-west-1", "ap-south-1"];
  const assets: Asset[] = [];
  const byType = new Map<AssetType, string[]>();
  for (const [type, n] of [...counts]) {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = `${type.toLowerCase()}-${i}`;
      const account = type === "CLOUD_ACCOUNT"
        ? accountId(i)
        : accountId(Math.floor(random() * 1e9));
      const region = pick(regions);
      assets.push({
        id,
        arn: `arn:aws:${type.toLowerCase()}:${region}:${account}:${id}`,
        name: `${type.toLowerCase().replace(/_/g, "-")}-${i}`,
        asset_type: type,
        provider: "AWS",
        region,
        account_id: account,
        tags: i % 3 === 0 ? { owner: `team-${i % 7}`, env: i % 2 ? "prod" : "dev" } : {},
        metadata: type === "CLOUD_ACCOUNT" && i === accounts - 1 && accounts > 1
          ? { external: true }
          : {},
        collected_at: "2026-01-15T12:00:00Z",
        is_internet_exposed: type === "LOAD_BALANCER",
      });
      ids.push(id);
    }
    byType.set(type, ids);
  }
  const ids = (type: AssetType): string[] => byType.get(type) ?? [];
  const edges: Edge[] = [];
  const target = size * 3;
  const add = (
    source: string,
    type: EdgeType,
    targetId: string,
    extra: Partial<Edge> = {},
  ): void => {
    if (edges.length >= target) return;
    edges.push(edge(`edge-${edges.length}`, [source, type, targetId], extra));
  };
  const vpcs = ids("VPC");
  const subnets = ids("SUBNET");
  const groups = ids("SECURITY_GROUP");
  const openGroups = new Set<string>();
  subnets.forEach((s, i) => add(vpcs[i % vpcs.length]!, "CONTAINS", s));
  for (const g of groups) {
    if (random() < 0.2) {
      openGroups.add(g);
      const port = pick(OPEN_PORTS);
      add(WORLD, "SECURITY_GROUP_RULE", g, {
        cidr: WORLD,
        port_range: port,
        protocol: "TCP",
        ports: [Number(port)],
      });
    }
    add(pick(groups), "SECURITY_GROUP_RULE", g, { port_range: "443", protocol: "TCP" });
    add(g, "SECURITY_GROUP_RULE", WORLD, {
      cidr: WORLD,
      port_range: "0-65535",
      protocol: "ALL",
      direction: "egress",
    });
  }
  const exposed = new Set<string>();
  for (const vm of ids("EC2")) {
    add(pick(subnets), "CONTAINS", vm);
    const g = pick(groups);
    add(vm, "ATTACHED_TO", g);
    if (openGroups.has(g)) exposed.add(vm);
    add(vm, "ASSUMES_ROLE", pick(ids("IAM_ROLE")));
  }
  for (const db of ids("RDS_INSTANCE")) {
    add(pick(subnets), "CONTAINS", db);
    add(db, "ATTACHED_TO", pick(groups));
    add(db, "REFERENCES", pick(ids("KMS_KEY")));
  }
  ids("LOAD_BALANCER").forEach((lb, i) => {
    const tg = ids("TARGET_GROUP")[i % ids("TARGET_GROUP").length]!;
    add(WORLD, "INTERNET_EXPOSED", lb, { port_range: "443", protocol: "TCP" });
    add(lb, "LOAD_BALANCER_TARGET", tg);
    for (let k = 0; k < 5; k++) add(tg, "LOAD_BALANCER_TARGET", pick(ids("EC2")));
  });
  for (const fn of ids("LAMBDA_FUNCTION")) {
    add(fn, "ASSUMES_ROLE", pick(ids("IAM_ROLE")));
    add(fn, "REFERENCES", pick(ids("SECRET")));
    add(fn, "LOGS_TO", pick(ids("LOG_GROUP")));
  }
  for (const q of ids("MESSAGE_QUEUE")) add(q, "INVOKES", pick(ids("LAMBDA_FUNCTION")));
  for (const b of ids("S3_BUCKET")) add(b, "REFERENCES", pick(ids("KMS_KEY")));
  const grantable = [...ids("S3_BUCKET"), ...ids("DYNAMODB_TABLE"), ...ids("SECRET")];
  for (const role of ids("IAM_ROLE")) {
    add(role, "GRANTS_ACCESS", pick(grantable));
    add(role, "GRANTS_ACCESS", pick(grantable));
    if (random() < 0.3) add(role, "IAM_TRUST", pick(ids("IAM_ROLE")));
  }
  ids("CLOUD_ACCOUNT").forEach((acct) => add(acct, "IAM_TRUST", pick(ids("IAM_ROLE"))));
  const fillers: [AssetType, EdgeType, AssetType][] = [
    ["EC2", "REFERENCES", "SECRET"],
    ["IAM_ROLE", "GRANTS_ACCESS", "S3_BUCKET"],
    ["EC2", "LOGS_TO", "LOG_GROUP"],
    ["LAMBDA_FUNCTION", "REFERENCES", "DYNAMODB_TABLE"],
    ["EC2", "ATTACHED_TO", "SECURITY_GROUP"],
  ];
  while (edges.length < target) {
    const [from, type, to] = pick(fillers);
    add(pick(ids(from)), type, pick(ids(to)));
  }
  for (const a of assets) if (exposed.has(a.id)) a.is_internet_exposed = true;
  const findings: Finding[] = [];
  const findingCount = Math.max(1, Math.round(size / 10));
  for (let i = 0; i < findingCount; i++) {
    const a = assets[Math.floor(random() * assets.length)]!;
    findings.push({
      id: `finding-${i}`,
      resource_id: a.id,
      resource_arn: a.arn,
      severity: pick(SEVERITIES),
      title: `synthetic finding ${i}`,
      description: "",
      evidence: "",
      remediation: "",
      source_tool: "synthetic",
      source_finding_id: null,
      compliance_frameworks: i % 4 === 0 ? ["CIS-AWS"] : [],
      cvss_score: i % 5 === 0 ? Math.round(random() * 100) / 10 : null,
      detected_at: "2026-01-15T12:00:00Z",
      is_suppressed: i % 17 === 0,
    });
  }
  return { records: { ...emptyRecords(), assets, edges, findings }, byType };
}
