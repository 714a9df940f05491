import { deepStrictEqual } from "node:assert/strict";
import {
  allAssetRelations,
  assetRelationContext,
  inferAssetRelations,
  inferRelations,
  portRelations,
} from "../src/cloud/graph/relations.ts";
import type { Asset } from "../src/cloud/model/records.ts";
import { asset, edge, miniEstate } from "./helpers/cloud_estate.ts";

const W = "0.0.0.0/0";

function relationsOf(id: string): string[] {
  const view = miniEstate();
  const e = view.records.edges.find((x) => x.id === id)!;
  return inferRelations(e, (a) => view.asset(a));
}

Deno.test("inferRelations() reads security group rules by direction, source and ports", () => {
  deepStrictEqual(relationsOf("e1"), ["INGRESS_ALLOWED", "INTERNET_REACHABLE", "ONLY_HTTPS"]);
  deepStrictEqual(relationsOf("e21"), ["EGRESS_ALLOWED", "INTERNET_REACHABLE", "ALL_TRAFFIC"]);
  deepStrictEqual(relationsOf("e23"), ["INGRESS_ALLOWED", "PORT_RESTRICTED"]);
  const lookup = (): undefined => undefined;
  const wide = edge("w", ["10.0.0.0/8", "SECURITY_GROUP_RULE", "sg"], {
    cidr: "10.0.0.0/8",
    port_range: "1-1024",
    protocol: "tcp",
  });
  deepStrictEqual(inferRelations(wide, lookup), [
    "INGRESS_ALLOWED",
    "ONLY_HTTP",
    "ONLY_HTTPS",
    "ONLY_SSH",
    "CIDR_RESTRICTED",
  ]);
  const icmp = edge("i", [W, "SECURITY_GROUP_RULE", "sg"], {
    cidr: W,
    port_range: "8--1",
    protocol: "icmp",
  });
  deepStrictEqual(inferRelations(icmp, lookup), ["INGRESS_ALLOWED", "INTERNET_REACHABLE"]);
  const azure = edge("z", ["Internet", "SECURITY_GROUP_RULE", "nsg"], {
    cidr: "Internet",
    port_range: "*",
    protocol: "Tcp",
  });
  deepStrictEqual(inferRelations(azure, lookup), [
    "INGRESS_ALLOWED",
    "INTERNET_REACHABLE",
    "ALL_TRAFFIC",
  ]);
});

Deno.test("portRelations() uses the ports list when the range is empty", () => {
  deepStrictEqual(portRelations(edge("p", ["a", "SECURITY_GROUP_RULE", "b"], { ports: [3389] })), [
    "ONLY_RDP",
  ]);
  deepStrictEqual(portRelations(edge("p", ["a", "ROUTE", "b"])), []);
});

Deno.test("inferRelations() picks containment, trust, attachment and fixed relations", () => {
  deepStrictEqual(relationsOf("e9"), ["VPC_CONTAINS_SUBNET"]);
  deepStrictEqual(relationsOf("e10"), ["SUBNET_CONTAINS_INSTANCE"]);
  deepStrictEqual(relationsOf("e14"), ["ROLE_ASSUMES_ROLE", "CROSS_ACCOUNT_TRUST"]);
  deepStrictEqual(relationsOf("e4"), ["PROTECTED_BY_SG"]);
  deepStrictEqual(relationsOf("e6"), ["LB_TARGETS_INSTANCE", "LOAD_BALANCED_BY"]);
  deepStrictEqual(relationsOf("e12"), ["RUNS_ON"]);
  deepStrictEqual(relationsOf("e13"), ["POLICY_ALLOWS_ACTION"]);
  deepStrictEqual(relationsOf("e18"), ["PROTECTED_BY_WAF"]);
  deepStrictEqual(relationsOf("e19"), ["INVOKES"]);
  deepStrictEqual(relationsOf("e16"), ["DEPENDS_ON"]);
  deepStrictEqual(relationsOf("e8"), ["INTERNET_REACHABLE"]);
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
  deepStrictEqual(inferRelations(edge("a", ["sub", "CONTAINS", "rt"]), lookup), ["CONTAINS"]);
  deepStrictEqual(inferRelations(edge("a", ["eks", "CONTAINS", "ns"]), lookup), [
    "CLUSTER_CONTAINS_SERVICE",
  ]);
  deepStrictEqual(inferRelations(edge("a", ["ou", "CONTAINS", "acct"]), lookup), [
    "ORG_CONTAINS_ACCOUNT",
  ]);
  deepStrictEqual(inferRelations(edge("a", ["ghost", "CONTAINS", "vm"]), lookup), ["CONTAINS"]);
  deepStrictEqual(inferRelations(edge("a", ["pol", "IAM_POLICY_ATTACHMENT", "user"]), lookup), [
    "USER_HAS_POLICY",
  ]);
  deepStrictEqual(inferRelations(edge("a", ["pol", "IAM_POLICY_ATTACHMENT", "vm"]), lookup), []);
  deepStrictEqual(inferRelations(edge("a", ["vol", "ATTACHED_TO", "vm"]), lookup), [
    "DEPENDS_ON",
  ]);
});

Deno.test("inferRelations() puts a declared relation first; on typed edges it replaces the default", () => {
  const lookup = (): undefined => undefined;
  deepStrictEqual(
    inferRelations(edge("a", ["f", "REFERENCES", "k"], { relationship: "ENCRYPTS_WITH" }), lookup),
    ["ENCRYPTS_WITH"],
  );
  deepStrictEqual(
    inferRelations(edge("a", ["r", "ROUTE", "g"], { relationship: "NAT_TRANSLATED" }), lookup),
    ["NAT_TRANSLATED", "TRANSIT_ROUTED"],
  );
  deepStrictEqual(
    inferRelations(edge("a", ["r", "PEERING", "g"], { relationship: "VPC_PEERED" }), lookup),
    ["VPC_PEERED"],
  );
});

Deno.test("inferAssetRelations() reads tags, VPC membership, keys, rotation and groups", () => {
  const assets: Asset[] = [
    asset("vpc-a", "VPC", { metadata: { vpc_id: "vpc-1" }, tags: { Owner: "alice", env: "p" } }),
    asset("vpc-b", "VPC", { metadata: { vpc_id: "vpc-1" } }),
    asset("sub", "SUBNET", { metadata: { vpc_id: "vpc-1" } }),
    asset("vm", "EC2", {
      metadata: { vpc_id: "vpc-1", security_groups: ["sg-1", "sg-2"] },
      tags: { CostCenter: "42", "monitored-by": "ops" },
    }),
    asset("key", "KMS_KEY", {
      arn: "arn:aws:kms:us-east-1:1:key/abcd",
      metadata: { aliases: ["alias/app"], rotation_enabled: true },
    }),
    asset("db", "RDS_INSTANCE", { metadata: { kms_key_id: "alias/app", storage_encrypted: true } }),
    asset("db2", "RDS_INSTANCE", { metadata: { kms_key_id: "abcd", encryption: "aws:kms" } }),
    asset("db3", "RDS_INSTANCE", { metadata: { kms_key_id: "other-key", encryption: true } }),
    asset("db4", "RDS_INSTANCE", { metadata: { kms_key_id: "abcd" } }),
    asset("fn", "LAMBDA_FUNCTION", { metadata: { vpc_config: { VpcId: "vpc-9" } } }),
    asset("sec", "SECRET", { metadata: { rotation_enabled: true } }),
  ];
  const context = assetRelationContext(assets);
  const of = (id: string): [string, string][] =>
    inferAssetRelations(assets.find((a) => a.id === id)!, context).map((r) => [
      r.relation,
      r.object,
    ]);
  deepStrictEqual(of("vpc-a"), [
    ["OWNED_BY", "tag:alice"],
    ["VPC_CONTAINS_SUBNET", "sub"],
    ["CONTAINS", "vm"],
  ]);
  deepStrictEqual(of("vpc-b"), []);
  deepStrictEqual(of("vm"), [
    ["COST_ALLOCATED_TO", "tag:42"],
    ["MONITORED_BY", "tag:ops"],
    ["PROTECTED_BY_SG", "sg:sg-1"],
    ["PROTECTED_BY_SG", "sg:sg-2"],
  ]);
  deepStrictEqual(of("key"), [["ROTATES_SECRET", "key"]]);
  deepStrictEqual(of("db"), [["ENCRYPTED_BY_KMS", "key"]]);
  deepStrictEqual(of("db2"), [["ENCRYPTED_BY_KMS", "key"]]);
  deepStrictEqual(of("db3"), [["ENCRYPTED_BY_KMS", "other-key"]]);
  deepStrictEqual(of("db4"), []);
  deepStrictEqual(of("fn"), [["DEPENDS_ON", "vpc:vpc-9"]]);
  deepStrictEqual(of("sec"), [["ROTATES_SECRET", "sec"]]);
  deepStrictEqual(allAssetRelations(assets).length, 13);
});
