import { deepStrictEqual } from "node:assert/strict";
import type { Asset, Edge } from "../src/cloud/model/records.ts";
import {
  inferAssetRelations,
  inferEdgeRelations,
  ruleRanges,
} from "../src/cloud/model/relations.ts";
import { asset, edge, miniEstate, smallEstate } from "./helpers/cloud_estate.ts";

const estate = smallEstate();
const byId = new Map(estate.assets.map((a) => [a.id, a]));
const edgeById = new Map(estate.edges.map((e) => [e.id, e]));

function relationsOf(edgeId: string): string[] {
  const edge = edgeById.get(edgeId)!;
  return inferEdgeRelations(edge, byId.get(edge.source_id), byId.get(edge.target_id));
}

function rule(extra: Partial<Edge>): Edge {
  return {
    ...edgeById.get("e1")!,
    port_range: null,
    ports: [],
    cidr: null,
    protocol: "tcp",
    ...extra,
  };
}

Deno.test("inferEdgeRelations() reads security group rules by direction, ports and CIDR", () => {
  deepStrictEqual(relationsOf("e1"), ["INGRESS_ALLOWED", "INTERNET_REACHABLE", "ONLY_SSH"]);
  deepStrictEqual(relationsOf("e2"), [
    "INGRESS_ALLOWED",
    "INTERNET_REACHABLE",
    "ONLY_HTTP",
    "ONLY_HTTPS",
  ]);
  deepStrictEqual(relationsOf("e3"), ["INGRESS_ALLOWED", "PORT_RESTRICTED", "CIDR_RESTRICTED"]);
  deepStrictEqual(relationsOf("e4"), ["EGRESS_ALLOWED", "ALL_TRAFFIC"]);
  // A range holding 22 and 3389, from a private source: both port relations, CIDR restricted.
  deepStrictEqual(
    inferEdgeRelations(
      rule({ source_id: "10.1.0.0/16", port_range: "20-3390", cidr: "10.1.0.0/16" }),
      undefined,
      undefined,
    ),
    ["INGRESS_ALLOWED", "ONLY_SSH", "ONLY_HTTP", "ONLY_HTTPS", "ONLY_RDP", "CIDR_RESTRICTED"],
  );
  // No ports at all: no port relation; the full range is all traffic.
  deepStrictEqual(inferEdgeRelations(rule({ source_id: "sg-x" }), undefined, undefined), [
    "INGRESS_ALLOWED",
  ]);
  deepStrictEqual(
    inferEdgeRelations(
      rule({ source_id: "sg-x", ports: [0, 65535], port_range: "0-65535" }),
      undefined,
      undefined,
    ),
    ["INGRESS_ALLOWED", "ALL_TRAFFIC"],
  );
  deepStrictEqual(
    inferEdgeRelations(
      rule({ source_id: "::/0", cidr: "::/0", ports: [3389] }),
      undefined,
      undefined,
    ),
    ["INGRESS_ALLOWED", "INTERNET_REACHABLE", "ONLY_RDP"],
  );
});

Deno.test("ruleRanges() parses lists, ranges and the Azure star", () => {
  deepStrictEqual(ruleRanges({ ports: [], port_range: "80,443", protocol: "tcp" }), [[80, 80], [
    443,
    443,
  ]]);
  deepStrictEqual(ruleRanges({ ports: [], port_range: "1000-100", protocol: "tcp" }), [[
    100,
    1000,
  ]]);
  deepStrictEqual(ruleRanges({ ports: [], port_range: "*", protocol: "tcp" }), null);
  deepStrictEqual(ruleRanges({ ports: [], port_range: null, protocol: "-1" }), null);
  deepStrictEqual(ruleRanges({ ports: [8080], port_range: null, protocol: "tcp" }), [[8080, 8080]]);
});

Deno.test("inferEdgeRelations() reads containment by endpoint types", () => {
  deepStrictEqual(relationsOf("e5"), ["VPC_CONTAINS_SUBNET"]);
  deepStrictEqual(relationsOf("e6"), ["SUBNET_CONTAINS_INSTANCE"]);
  const make = (from: Asset["asset_type"], to: Asset["asset_type"]): string[] =>
    inferEdgeRelations(
      { ...edgeById.get("e5")!, source_id: "a", target_id: "b" },
      { ...byId.get("vpc-1")!, id: "a", asset_type: from },
      { ...byId.get("subnet-1")!, id: "b", asset_type: to },
    );
  deepStrictEqual(make("EKS_CLUSTER", "K8S_SERVICE"), ["CLUSTER_CONTAINS_SERVICE"]);
  deepStrictEqual(make("ORGANIZATION", "CLOUD_ACCOUNT"), ["ORG_CONTAINS_ACCOUNT"]);
  // A subnet holding a network construct is plain containment.
  deepStrictEqual(make("SUBNET", "NETWORK_INTERFACE"), ["CONTAINS"]);
  deepStrictEqual(make("CLOUD_ACCOUNT", "S3_BUCKET"), ["CONTAINS"]);
});

Deno.test("inferEdgeRelations() reads IAM edges and attachments", () => {
  deepStrictEqual(relationsOf("e11"), ["ROLE_ASSUMES_ROLE", "CROSS_ACCOUNT_TRUST"]);
  deepStrictEqual(relationsOf("e12"), ["ROLE_HAS_POLICY"]);
  deepStrictEqual(relationsOf("e7"), ["PROTECTED_BY_SG"]);
  const trust = edgeById.get("e11")!;
  // Same account: no cross-account trust; an account placeholder from elsewhere: cross-account.
  deepStrictEqual(
    inferEdgeRelations(trust, byId.get("app-role"), {
      ...byId.get("deploy-role")!,
      account_id: "111111111111",
    }),
    ["ROLE_ASSUMES_ROLE"],
  );
  deepStrictEqual(
    inferEdgeRelations(
      { ...trust, source_id: "arn:aws:iam::999999999999:root" },
      undefined,
      byId.get("app-role"),
    ),
    ["ROLE_ASSUMES_ROLE", "CROSS_ACCOUNT_TRUST"],
  );
  const attach = edgeById.get("e12")!;
  deepStrictEqual(
    inferEdgeRelations(
      attach,
      { ...byId.get("app-role")!, asset_type: "IAM_USER" },
      byId.get("policy-admin"),
    ),
    ["USER_HAS_POLICY"],
  );
  deepStrictEqual(
    inferEdgeRelations(
      attach,
      { ...byId.get("app-role")!, asset_type: "IAM_GROUP" },
      byId.get("policy-admin"),
    ),
    ["GROUP_HAS_POLICY"],
  );
  const attached = edgeById.get("e7")!;
  deepStrictEqual(
    inferEdgeRelations(attached, byId.get("web-1"), { ...byId.get("sg-web")!, asset_type: "NACL" }),
    ["PROTECTED_BY_NACL"],
  );
  deepStrictEqual(
    inferEdgeRelations(attached, byId.get("web-1"), byId.get("db-1")),
    ["DEPENDS_ON"],
  );
});

Deno.test("inferEdgeRelations() gives the fixed relations and honours declared ones", () => {
  deepStrictEqual(relationsOf("e9"), ["LB_TARGETS_INSTANCE", "LOAD_BALANCED_BY"]);
  deepStrictEqual(relationsOf("e10"), ["RUNS_ON"]);
  deepStrictEqual(relationsOf("e13"), ["PROTECTED_BY_WAF"]);
  deepStrictEqual(relationsOf("e15"), ["DEPENDS_ON"]);
  deepStrictEqual(relationsOf("e16"), ["INTERNET_REACHABLE"]);
  deepStrictEqual(relationsOf("e17"), ["INVOKES"]);
  // A typed edge kind: the declared relation replaces the default.
  deepStrictEqual(relationsOf("e14"), ["READS_FROM"]);
  // An untyped kind: the declared relation comes first, the rules still apply.
  const peering = {
    ...edgeById.get("e5")!,
    edge_type: "PEERING" as const,
    relationship: "DEPENDS_ON" as const,
  };
  deepStrictEqual(inferEdgeRelations(peering, undefined, undefined), ["DEPENDS_ON", "VPC_PEERED"]);
  // A relationship that names no relation type is ignored.
  const odd = { ...edgeById.get("e15")!, relationship: "NOT_A_RELATION" as unknown as null };
  deepStrictEqual(inferEdgeRelations(odd, undefined, undefined), ["DEPENDS_ON"]);
  const kinds: [Edge["edge_type"], string[]][] = [
    ["ROUTE", ["TRANSIT_ROUTED"]],
    ["USES_IMAGE", ["RUNS_ON"]],
    ["GRANTS_ACCESS", ["POLICY_ALLOWS_ACTION"]],
    ["LOGS_TO", ["LOGS_TO"]],
    ["MONITORS", ["MONITORED_BY"]],
    ["MANAGES", ["OWNED_BY"]],
    ["GOVERNS", ["COMPLIANCE_GOVERNS"]],
    ["NACL_RULE", []],
  ];
  for (const [edge_type, expected] of kinds) {
    deepStrictEqual(
      inferEdgeRelations({ ...edgeById.get("e15")!, edge_type }, undefined, undefined),
      expected,
      edge_type,
    );
  }
});

Deno.test("inferAssetRelations() reads tags and metadata", () => {
  deepStrictEqual(inferAssetRelations(byId.get("web-1")!), [
    { subject: "web-1", relation: "OWNED_BY", object: "tag:alice" },
    { subject: "web-1", relation: "PROTECTED_BY_SG", object: "sg:sg-web" },
  ]);
  deepStrictEqual(inferAssetRelations(byId.get("subnet-1")!), [
    { subject: "vpc:vpc-1", relation: "VPC_CONTAINS_SUBNET", object: "subnet-1" },
  ]);
  deepStrictEqual(inferAssetRelations(byId.get("db-1")!), [
    { subject: "db-1", relation: "ENCRYPTED_BY_KMS", object: "kms:kms-1" },
  ]);
  deepStrictEqual(inferAssetRelations(byId.get("kms-1")!), [
    { subject: "kms-1", relation: "ROTATES_SECRET", object: "kms-1" },
  ]);
  deepStrictEqual(inferAssetRelations(byId.get("bucket-1")!), [
    { subject: "bucket-1", relation: "COST_ALLOCATED_TO", object: "tag:cc42" },
  ]);
  deepStrictEqual(inferAssetRelations(byId.get("fn-1")!), [
    { subject: "fn-1", relation: "DEPENDS_ON", object: "vpc:vpc-1" },
  ]);
  const other = {
    ...byId.get("bastion")!,
    asset_type: "EBS_VOLUME" as const,
    tags: { Team: "core", monitoring: "datadog", CostCenter: "7" },
    metadata: { vpc_id: "vpc-9", kms_key_id: "k", encryption: false },
  };
  deepStrictEqual(inferAssetRelations(other), [
    { subject: "bastion", relation: "OWNED_BY", object: "tag:core" },
    { subject: "bastion", relation: "MONITORED_BY", object: "tag:datadog" },
    { subject: "bastion", relation: "COST_ALLOCATED_TO", object: "tag:7" },
    { subject: "vpc:vpc-9", relation: "CONTAINS", object: "bastion" },
  ]);
});

function edgeRelations(e: Edge, lookup: (id: string) => Asset | undefined): string[] {
  return inferEdgeRelations(e, lookup(e.source_id), lookup(e.target_id));
}

const W = "0.0.0.0/0";

function miniRelationsOf(id: string): string[] {
  const view = miniEstate();
  const e = view.records.edges.find((x) => x.id === id)!;
  return edgeRelations(e, (a) => view.asset(a));
}

Deno.test("inferEdgeRelations() reads the mini estate's rules, ICMP and Azure service tags", () => {
  deepStrictEqual(miniRelationsOf("e1"), ["INGRESS_ALLOWED", "INTERNET_REACHABLE", "ONLY_HTTPS"]);
  deepStrictEqual(miniRelationsOf("e21"), ["EGRESS_ALLOWED", "ALL_TRAFFIC"]);
  deepStrictEqual(miniRelationsOf("e23"), ["INGRESS_ALLOWED", "PORT_RESTRICTED"]);
  const lookup = (): undefined => undefined;
  const wide = edge("w", ["10.0.0.0/8", "SECURITY_GROUP_RULE", "sg"], {
    cidr: "10.0.0.0/8",
    port_range: "1-1024",
    protocol: "tcp",
  });
  deepStrictEqual(edgeRelations(wide, lookup), [
    "INGRESS_ALLOWED",
    "ONLY_SSH",
    "ONLY_HTTP",
    "ONLY_HTTPS",
    "CIDR_RESTRICTED",
  ]);
  const icmp = edge("i", [W, "SECURITY_GROUP_RULE", "sg"], {
    cidr: W,
    port_range: "8--1",
    protocol: "icmp",
  });
  deepStrictEqual(edgeRelations(icmp, lookup), ["INGRESS_ALLOWED", "INTERNET_REACHABLE"]);
  const azure = edge("z", ["Internet", "SECURITY_GROUP_RULE", "nsg"], {
    cidr: "Internet",
    port_range: "*",
    protocol: "Tcp",
  });
  deepStrictEqual(edgeRelations(azure, lookup), [
    "INGRESS_ALLOWED",
    "INTERNET_REACHABLE",
    "ALL_TRAFFIC",
  ]);
});

Deno.test("inferEdgeRelations() picks containment, trust, attachment and fixed relations in the mini estate", () => {
  deepStrictEqual(miniRelationsOf("e9"), ["VPC_CONTAINS_SUBNET"]);
  deepStrictEqual(miniRelationsOf("e10"), ["SUBNET_CONTAINS_INSTANCE"]);
  deepStrictEqual(miniRelationsOf("e14"), ["ROLE_ASSUMES_ROLE", "CROSS_ACCOUNT_TRUST"]);
  deepStrictEqual(miniRelationsOf("e4"), ["PROTECTED_BY_SG"]);
  deepStrictEqual(miniRelationsOf("e6"), ["LB_TARGETS_INSTANCE", "LOAD_BALANCED_BY"]);
  deepStrictEqual(miniRelationsOf("e12"), ["RUNS_ON"]);
  deepStrictEqual(miniRelationsOf("e13"), ["POLICY_ALLOWS_ACTION"]);
  deepStrictEqual(miniRelationsOf("e18"), ["PROTECTED_BY_WAF"]);
  deepStrictEqual(miniRelationsOf("e19"), ["INVOKES"]);
  deepStrictEqual(miniRelationsOf("e16"), ["DEPENDS_ON"]);
  deepStrictEqual(miniRelationsOf("e8"), ["INTERNET_REACHABLE"]);
  const types: Record<string, Asset> = {
    sub: asset("sub", "SUBNET"),
    rt: asset("rt", "ROUTE_TABLE"),
    eks: asset("eks", "EKS_CLUSTER"),
    ns: asset("ns", "K8S_NAMESPACE"),
    ou: asset("ou", "ORG_UNIT"),
    acct: asset("acct", "CLOUD_ACCOUNT"),
    user: asset("user", "IAM_USER"),
    pol: asset("pol", "IAM_POLICY"),
    vol: asset("vol", "EBS_VOLUME"),
    vm: asset("vm", "EC2"),
  };
  const lookup = (id: string): Asset | undefined => types[id];
  deepStrictEqual(edgeRelations(edge("a", ["sub", "CONTAINS", "rt"]), lookup), ["CONTAINS"]);
  deepStrictEqual(edgeRelations(edge("a", ["eks", "CONTAINS", "ns"]), lookup), [
    "CLUSTER_CONTAINS_SERVICE",
  ]);
  deepStrictEqual(edgeRelations(edge("a", ["ou", "CONTAINS", "acct"]), lookup), [
    "ORG_CONTAINS_ACCOUNT",
  ]);
  deepStrictEqual(edgeRelations(edge("a", ["ghost", "CONTAINS", "vm"]), lookup), ["CONTAINS"]);
  deepStrictEqual(edgeRelations(edge("a", ["pol", "IAM_POLICY_ATTACHMENT", "user"]), lookup), [
    "USER_HAS_POLICY",
  ]);
  deepStrictEqual(edgeRelations(edge("a", ["pol", "IAM_POLICY_ATTACHMENT", "vm"]), lookup), []);
  deepStrictEqual(edgeRelations(edge("a", ["vol", "ATTACHED_TO", "vm"]), lookup), [
    "DEPENDS_ON",
  ]);
});

Deno.test("inferEdgeRelations() keeps a declared relation before a non-typed edge's default", () => {
  const lookup = (): undefined => undefined;
  deepStrictEqual(
    edgeRelations(edge("a", ["f", "REFERENCES", "k"], { relationship: "ENCRYPTS_WITH" }), lookup),
    ["ENCRYPTS_WITH"],
  );
  deepStrictEqual(
    edgeRelations(edge("a", ["r", "ROUTE", "g"], { relationship: "NAT_TRANSLATED" }), lookup),
    ["NAT_TRANSLATED", "TRANSIT_ROUTED"],
  );
  deepStrictEqual(
    edgeRelations(edge("a", ["r", "PEERING", "g"], { relationship: "VPC_PEERED" }), lookup),
    ["VPC_PEERED"],
  );
});

Deno.test("inferAssetRelations() leaves VPC and key references for the ontology to resolve", () => {
  const of = (a: Asset): [string, string, string][] =>
    inferAssetRelations(a).map((r) => [r.subject, r.relation, r.object]);
  deepStrictEqual(
    of(asset("vpc-a", "VPC", { metadata: { vpc_id: "vpc-1" }, tags: { Owner: "alice" } })),
    [["vpc-a", "OWNED_BY", "tag:alice"]],
  );
  deepStrictEqual(of(asset("sub", "SUBNET", { metadata: { vpc_id: "vpc-1" } })), [
    ["vpc:vpc-1", "VPC_CONTAINS_SUBNET", "sub"],
  ]);
  deepStrictEqual(
    of(asset("vm", "EC2", {
      metadata: { vpc_id: "vpc-1", security_groups: ["sg-1"] },
      tags: { CostCenter: "42", "monitored-by": "ops" },
    })),
    [
      ["vm", "COST_ALLOCATED_TO", "tag:42"],
      ["vm", "MONITORED_BY", "tag:ops"],
      ["vpc:vpc-1", "CONTAINS", "vm"],
      ["vm", "PROTECTED_BY_SG", "sg:sg-1"],
    ],
  );
  deepStrictEqual(
    of(
      asset("db", "RDS_INSTANCE", {
        metadata: { kms_key_id: "alias/app", storage_encrypted: true },
      }),
    ),
    [["db", "ENCRYPTED_BY_KMS", "kms:alias/app"]],
  );
  // Only a true-like encryption flag counts; an algorithm name is not one.
  deepStrictEqual(
    of(asset("db2", "RDS_INSTANCE", { metadata: { kms_key_id: "abcd", encryption: "aws:kms" } })),
    [],
  );
  deepStrictEqual(of(asset("db4", "RDS_INSTANCE", { metadata: { kms_key_id: "abcd" } })), []);
});
