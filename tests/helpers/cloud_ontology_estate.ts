/**
 * Estates for the ontology tests and benches: a small hand-made one whose
 * relations are known, a seeded generator for large ones, and a minimal
 * DatasetView over records.
 */

import type { AssetType, EdgeType, Severity } from "../../src/cloud/model/enums.ts";
import {
  type Asset,
  type DatasetRecords,
  type Edge,
  emptyRecords,
  type Finding,
  type Json,
} from "../../src/cloud/model/records.ts";
import type { DatasetView } from "../../src/cloud/model/view.ts";
import { mulberry32 } from "./random.ts";

const AT = "2026-01-15T12:00:00Z";

function asset(
  id: string,
  asset_type: AssetType,
  name: string,
  extra: Partial<Asset> = {},
): Asset {
  return {
    id,
    arn: null,
    name,
    asset_type,
    provider: "AWS",
    region: "us-east-1",
    account_id: "111111111111",
    tags: {},
    metadata: {},
    collected_at: AT,
    is_internet_exposed: false,
    ...extra,
  };
}

function edge(
  id: string,
  source_id: string,
  target_id: string,
  edge_type: EdgeType,
  extra: Partial<Edge> = {},
): Edge {
  return {
    id,
    source_id,
    target_id,
    edge_type,
    ports: [],
    port_range: null,
    protocol: null,
    cidr: null,
    direction: "ingress",
    description: null,
    relationship: null,
    properties: {},
    ...extra,
  };
}

function finding(
  id: string,
  resource_id: string,
  severity: Severity,
  extra: Partial<Finding> = {},
): Finding {
  return {
    id,
    resource_id,
    resource_arn: null,
    severity,
    title: `Finding ${id}`,
    description: "",
    evidence: "",
    remediation: "",
    source_tool: "test",
    source_finding_id: null,
    compliance_frameworks: [],
    cvss_score: null,
    detected_at: AT,
    is_suppressed: false,
    ...extra,
  };
}

/**
 * A small estate: 17 assets, 17 edges, 4 findings. The relations each edge
 * and asset imply are listed in the ontology tests.
 */
export function smallEstate(): DatasetRecords {
  const records = emptyRecords();
  records.assets = [
    asset("vpc-1", "VPC", "main-vpc"),
    asset("subnet-1", "SUBNET", "public-a", { metadata: { vpc_id: "vpc-1" } }),
    asset("sg-web", "SECURITY_GROUP", "sg-web"),
    asset("sg-admin", "SECURITY_GROUP", "sg-admin"),
    asset("web-1", "EC2", "web-1", {
      is_internet_exposed: true,
      tags: { env: "prod", owner: "alice" },
      metadata: { security_groups: ["sg-web"] },
    }),
    asset("bastion", "EC2", "bastion", { is_internet_exposed: true, tags: { env: "prod" } }),
    asset("alb", "LOAD_BALANCER", "alb-web", { is_internet_exposed: true }),
    asset("app-role", "IAM_ROLE", "app-role", { arn: "arn:aws:iam::111111111111:role/app-role" }),
    asset("deploy-role", "IAM_ROLE", "deploy-role", {
      account_id: "222222222222",
      arn: "arn:aws:iam::222222222222:role/deploy-role",
    }),
    asset("policy-admin", "IAM_POLICY", "admin-policy"),
    asset("db-1", "RDS_INSTANCE", "orders-db", {
      metadata: { kms_key_id: "kms-1", storage_encrypted: true },
    }),
    asset("kms-1", "KMS_KEY", "kms-main", { metadata: { rotation_enabled: true } }),
    asset("bucket-1", "S3_BUCKET", "data-bucket", {
      arn: "arn:aws:s3:::prod-data",
      tags: { "cost-center": "cc42" },
    }),
    asset("fn-1", "LAMBDA_FUNCTION", "api-handler", {
      metadata: { vpc_config: { VpcId: "vpc-1" } },
    }),
    asset("waf-1", "WAF_WEB_ACL", "web-acl"),
    asset("az-vm", "VIRTUAL_MACHINE", "jump-vm", {
      provider: "AZURE",
      region: "westeurope",
      account_id: "00000000-aaaa-bbbb-cccc-000000000001",
    }),
    asset("gcs-1", "GCS_BUCKET", "public gcs", {
      provider: "GCP",
      region: "global",
      account_id: "proj-analytics",
      is_internet_exposed: true,
    }),
  ];
  const internet = "0.0.0.0/0";
  records.edges = [
    edge("e1", internet, "sg-admin", "SECURITY_GROUP_RULE", {
      port_range: "22",
      protocol: "tcp",
      cidr: internet,
    }),
    edge("e2", internet, "sg-web", "SECURITY_GROUP_RULE", {
      port_range: "80,443",
      protocol: "tcp",
      cidr: internet,
    }),
    edge("e3", "10.0.0.0/8", "sg-web", "SECURITY_GROUP_RULE", {
      port_range: "8080",
      protocol: "tcp",
      cidr: "10.0.0.0/8",
    }),
    edge("e4", "sg-web", internet, "SECURITY_GROUP_RULE", {
      port_range: "*",
      protocol: "-1",
      cidr: internet,
      direction: "egress",
    }),
    edge("e5", "vpc-1", "subnet-1", "CONTAINS"),
    edge("e6", "subnet-1", "web-1", "CONTAINS"),
    edge("e7", "web-1", "sg-web", "ATTACHED_TO"),
    edge("e8", "bastion", "sg-admin", "ATTACHED_TO"),
    edge("e9", "alb", "web-1", "LOAD_BALANCER_TARGET"),
    edge("e10", "web-1", "app-role", "ASSUMES_ROLE"),
    edge("e11", "app-role", "deploy-role", "IAM_TRUST"),
    edge("e12", "app-role", "policy-admin", "IAM_POLICY_ATTACHMENT"),
    edge("e13", "waf-1", "alb", "PROTECTS"),
    edge("e14", "fn-1", "db-1", "REFERENCES", { relationship: "READS_FROM" }),
    edge("e15", "db-1", "kms-1", "REFERENCES"),
    edge("e16", internet, "gcs-1", "INTERNET_EXPOSED"),
    edge("e17", "bucket-1", "fn-1", "INVOKES"),
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

/** A minimal view: findings map to assets by id, then ARN (resource id or resource ARN). */
export function viewOf(records: DatasetRecords, name = "test", version = 1): DatasetView {
  const byId = new Map(records.assets.map((a) => [a.id, a]));
  const byArn = new Map(records.assets.filter((a) => a.arn).map((a) => [a.arn!, a]));
  const findingAsset = (f: Finding): Asset | undefined =>
    byId.get(f.resource_id) ?? byArn.get(f.resource_id) ??
      (f.resource_arn ? byArn.get(f.resource_arn) : undefined);
  const cache = new Map<string, unknown>();
  return {
    name,
    version,
    instanceId: `${name}-instance`,
    records,
    asset: (id) => byId.get(id),
    findingAsset,
    findingsFor: (id) => records.findings.filter((f) => findingAsset(f)?.id === id),
    derived<T>(key: string, build: () => T): T {
      if (!cache.has(key)) cache.set(key, build());
      return cache.get(key) as T;
    },
  };
}

/**
 * A generated estate of about `size` assets in accounts of ~200 assets each:
 * per account a VPC with subnets and security groups, instances in subnets
 * behind load balancers, roles, buckets, databases and keys, with findings on
 * about a fifth of the assets. The same seed gives the same estate.
 */
export function generatedEstate(size: number, seed = 1): DatasetRecords {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const records = emptyRecords();
  const severities: Severity[] = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"];
  const accounts = Math.max(1, Math.round(size / 200));
  let edgeNo = 0;
  const addEdge = (s: string, t: string, type: EdgeType, extra: Partial<Edge> = {}): void => {
    records.edges.push(edge(`g-e${edgeNo++}`, s, t, type, extra));
  };
  for (let a = 0; a < accounts && records.assets.length < size; a++) {
    const account = String(100000000000 + a);
    const prefix = `a${a}`;
    const local = (id: string, type: AssetType, extra: Partial<Asset> = {}): Asset => {
      const made = asset(`${prefix}-${id}`, type, `${prefix}-${id}`, {
        account_id: account,
        arn: `arn:aws:ec2:us-east-1:${account}:${type.toLowerCase()}/${prefix}-${id}`,
        ...extra,
      });
      records.assets.push(made);
      return made;
    };
    const vpc = local("vpc", "VPC");
    const subnets = [0, 1, 2, 3].map((i) =>
      local(`subnet${i}`, "SUBNET", { metadata: { vpc_id: vpc.id } })
    );
    for (const subnet of subnets) addEdge(vpc.id, subnet.id, "CONTAINS");
    const groups = [0, 1, 2, 3, 4].map((i) => local(`sg${i}`, "SECURITY_GROUP"));
    for (const group of groups) {
      const open = random() < 0.3;
      addEdge(open ? "0.0.0.0/0" : "10.0.0.0/8", group.id, "SECURITY_GROUP_RULE", {
        port_range: pick(["22", "80,443", "3389", "8080", "0-65535"]),
        protocol: "tcp",
        cidr: open ? "0.0.0.0/0" : "10.0.0.0/8",
      });
    }
    const role = local("role", "IAM_ROLE");
    const policy = local("policy", "IAM_POLICY");
    addEdge(role.id, policy.id, "IAM_POLICY_ATTACHMENT");
    const key = local("kms", "KMS_KEY", { metadata: { rotation_enabled: random() < 0.5 } });
    const lb = local("alb", "LOAD_BALANCER", { is_internet_exposed: true });
    const accountEnd = Math.min(size, (a + 1) * 200);
    for (let i = 0; records.assets.length < accountEnd; i++) {
      const kind = random();
      const tags: Record<string, string> = { env: pick(["prod", "dev", "test"]) };
      if (random() < 0.3) tags.owner = pick(["alice", "bob", "carol", "dave"]);
      if (kind < 0.5) {
        const instance = local(`vm${i}`, "EC2", {
          tags,
          is_internet_exposed: random() < 0.1,
          metadata: { security_groups: [pick(groups).id] as Json },
        });
        addEdge(pick(subnets).id, instance.id, "CONTAINS");
        addEdge(instance.id, pick(groups).id, "ATTACHED_TO");
        addEdge(instance.id, role.id, "ASSUMES_ROLE");
        if (random() < 0.3) addEdge(lb.id, instance.id, "LOAD_BALANCER_TARGET");
      } else if (kind < 0.7) {
        const bucket = local(`bucket${i}`, "S3_BUCKET", {
          tags,
          metadata: { kms_key_id: key.id, encryption: true },
        });
        addEdge(role.id, bucket.id, "GRANTS_ACCESS");
      } else if (kind < 0.85) {
        const db = local(`db${i}`, "RDS_INSTANCE", { tags });
        addEdge(db.id, key.id, "REFERENCES");
        addEdge(pick(subnets).id, db.id, "CONTAINS");
      } else {
        const fn = local(`fn${i}`, "LAMBDA_FUNCTION", {
          tags,
          metadata: { vpc_config: { VpcId: vpc.id } },
        });
        addEdge(fn.id, role.id, "ASSUMES_ROLE");
      }
    }
    if (a > 0) addEdge(role.id, `a${a - 1}-role`, "IAM_TRUST");
  }
  let findingNo = 0;
  for (const target of records.assets) {
    if (random() < 0.2) {
      records.findings.push(finding(`g-f${findingNo++}`, target.id, pick(severities), {
        compliance_frameworks: random() < 0.5 ? [pick(["CIS-AWS", "PCI-DSS", "SOC2"])] : [],
        cvss_score: random() < 0.3 ? Math.round(random() * 100) / 10 : null,
      }));
    }
  }
  return records;
}
