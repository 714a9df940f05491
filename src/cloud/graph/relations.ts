/**
 * Semantic relation inference (spec §5.4): the RelationTypes an edge stands
 * for, and the relations an asset's own tags and metadata imply. The
 * ontology builds its object-property triples from these.
 *
 * @module
 */

import type { RelationType } from "../model/enums.ts";
import { RELATION_TYPES } from "../model/enums.ts";
import type { Asset, Edge, Json } from "../model/records.ts";
import { isInternetSource } from "./internet.ts";
import type { PortRange } from "./ports.ts";
import { coversAllPorts, edgePortRanges, portInRanges } from "./ports.ts";

/** Looks an asset up by id. */
export type AssetLookup = (id: string) => Asset | undefined;

const KNOWN_RELATIONS: ReadonlySet<string> = new Set(RELATION_TYPES);

/** Edge types whose declared relationship replaces the inferred default. */
const TYPED_EDGES = new Set([
  "CONTAINS",
  "INVOKES",
  "USES_IMAGE",
  "ASSUMES_ROLE",
  "GRANTS_ACCESS",
  "LOGS_TO",
  "PROTECTS",
  "MONITORS",
  "MANAGES",
  "GOVERNS",
  "REFERENCES",
  "ATTACHED_TO",
]);

/** Relations fixed by edge type alone. */
const FIXED: Readonly<Record<string, readonly RelationType[]>> = {
  LOAD_BALANCER_TARGET: ["LB_TARGETS_INSTANCE", "LOAD_BALANCED_BY"],
  PEERING: ["VPC_PEERED"],
  ROUTE: ["TRANSIT_ROUTED"],
  INTERNET_EXPOSED: ["INTERNET_REACHABLE"],
  INVOKES: ["INVOKES"],
  USES_IMAGE: ["RUNS_ON"],
  ASSUMES_ROLE: ["RUNS_ON"],
  GRANTS_ACCESS: ["POLICY_ALLOWS_ACTION"],
  LOGS_TO: ["LOGS_TO"],
  PROTECTS: ["PROTECTED_BY_WAF"],
  MONITORS: ["MONITORED_BY"],
  MANAGES: ["OWNED_BY"],
  GOVERNS: ["COMPLIANCE_GOVERNS"],
  REFERENCES: ["DEPENDS_ON"],
};

const PORT_RELATIONS: readonly [number, RelationType][] = [
  [80, "ONLY_HTTP"],
  [443, "ONLY_HTTPS"],
  [22, "ONLY_SSH"],
  [3389, "ONLY_RDP"],
];

const CLUSTER_TYPES = new Set([
  "ECS_CLUSTER",
  "EKS_CLUSTER",
  "AKS_CLUSTER",
  "GKE_CLUSTER",
  "K8S_NAMESPACE",
]);
const CLUSTER_MEMBER_TYPES = new Set([
  "K8S_NAMESPACE",
  "K8S_WORKLOAD",
  "K8S_SERVICE",
  "K8S_INGRESS",
  "K8S_SERVICE_ACCOUNT",
  "CONTAINER_SERVICE",
  "TASK_DEFINITION",
  "NODE_GROUP",
  "FARGATE_PROFILE",
  "CLUSTER_ADDON",
  "CAPACITY_PROVIDER",
]);
/** Network constructs and hierarchy: never the "instance" a subnet contains. */
const NOT_SUBNET_MEMBERS = new Set([
  "VPC",
  "VNET",
  "SUBNET",
  "ROUTE_TABLE",
  "NACL",
  "SECURITY_GROUP",
  "NSG",
  "INTERNET_GATEWAY",
  "TRANSIT_GATEWAY",
  "PEERING_CONNECTION",
  "PREFIX_LIST",
  "ROUTER",
  "VPN_GATEWAY",
  "CUSTOMER_GATEWAY",
  "ORGANIZATION",
  "ORG_UNIT",
  "CLOUD_ACCOUNT",
  "RESOURCE_GROUP",
]);
const POLICY_TARGETS: Readonly<Record<string, RelationType>> = {
  IAM_USER: "USER_HAS_POLICY",
  IAM_ROLE: "ROLE_HAS_POLICY",
  IAM_GROUP: "GROUP_HAS_POLICY",
};
const FILTER_TARGETS: Readonly<Record<string, RelationType>> = {
  SECURITY_GROUP: "PROTECTED_BY_SG",
  NSG: "PROTECTED_BY_SG",
  NACL: "PROTECTED_BY_NACL",
};

function rulePortRanges(edge: Edge): PortRange[] {
  if (!(edge.port_range ?? "").trim() && edge.ports.length > 0) {
    return edge.ports.map((p) => [p, p] as const);
  }
  return edgePortRanges(edge);
}

/** The port relations of a rule: ALL_TRAFFIC, else ONLY_* per well-known port, else PORT_RESTRICTED. */
export function portRelations(edge: Edge): RelationType[] {
  const ranges = rulePortRanges(edge);
  if (ranges.length === 0) return [];
  if (coversAllPorts(ranges)) return ["ALL_TRAFFIC"];
  const out = PORT_RELATIONS.filter(([port]) => portInRanges(port, ranges)).map(([, rel]) => rel);
  return out.length > 0 ? out : ["PORT_RESTRICTED"];
}

function securityGroupRule(edge: Edge): RelationType[] {
  const cidr = edge.cidr ?? "";
  const internet = isInternetSource(cidr);
  const out: RelationType[] = [
    (edge.direction ?? "ingress").toLowerCase() === "ingress"
      ? "INGRESS_ALLOWED"
      : "EGRESS_ALLOWED",
  ];
  if (internet) out.push("INTERNET_REACHABLE");
  out.push(...portRelations(edge));
  if (!internet && cidr) out.push("CIDR_RESTRICTED");
  return out;
}

function containment(source: string, target: string): RelationType | null {
  if ((source === "VPC" || source === "VNET") && target === "SUBNET") return "VPC_CONTAINS_SUBNET";
  if (source === "SUBNET" && !NOT_SUBNET_MEMBERS.has(target)) return "SUBNET_CONTAINS_INSTANCE";
  if (CLUSTER_TYPES.has(source) && CLUSTER_MEMBER_TYPES.has(target)) {
    return "CLUSTER_CONTAINS_SERVICE";
  }
  if ((source === "ORGANIZATION" || source === "ORG_UNIT") && target === "CLOUD_ACCOUNT") {
    return "ORG_CONTAINS_ACCOUNT";
  }
  return null;
}

function ruleRelations(edge: Edge, lookup: AssetLookup): RelationType[] | null {
  const s = lookup(edge.source_id);
  const t = lookup(edge.target_id);
  switch (edge.edge_type) {
    case "SECURITY_GROUP_RULE":
      return securityGroupRule(edge);
    case "CONTAINS":
      return [s && t ? containment(s.asset_type, t.asset_type) ?? "CONTAINS" : "CONTAINS"];
    case "IAM_TRUST": {
      const out: RelationType[] = ["ROLE_ASSUMES_ROLE"];
      if (s?.account_id && t?.account_id && s.account_id !== t.account_id) {
        out.push("CROSS_ACCOUNT_TRUST");
      }
      return out;
    }
    case "IAM_POLICY_ATTACHMENT": {
      const rel = t ? POLICY_TARGETS[t.asset_type] : undefined;
      return rel ? [rel] : [];
    }
    case "ATTACHED_TO": {
      const rel = t ? FILTER_TARGETS[t.asset_type] : undefined;
      return [rel ?? "DEPENDS_ON"];
    }
    default:
      return null;
  }
}

/**
 * The relations an edge stands for: a declared relationship naming a
 * RelationType first; for typed edge kinds a declared relation replaces the
 * default; otherwise the rule for the edge type (security group rules,
 * containment, trust, policy attachment, attachment) or its fixed
 * relations, without repeats.
 */
export function inferRelations(edge: Edge, lookup: AssetLookup): RelationType[] {
  const out: RelationType[] = [];
  const declared = edge.relationship;
  if (declared && KNOWN_RELATIONS.has(declared)) out.push(declared);
  if (out.length > 0 && TYPED_EDGES.has(edge.edge_type)) return out;
  const inferred = ruleRelations(edge, lookup) ?? FIXED[edge.edge_type] ?? [];
  for (const r of inferred) if (!out.includes(r)) out.push(r);
  return out;
}

/** One asset-level relation: the asset is the subject, `object` an asset id or a literal. */
export interface AssetRelation {
  relation: RelationType;
  /** An asset id, or `tag:<value>`, `vpc:<id>`, `sg:<id>`, or a raw key reference. */
  object: string;
}

const TAG_RELATIONS: Readonly<Record<string, RelationType>> = {
  owner: "OWNED_BY",
  team: "OWNED_BY",
  department: "OWNED_BY",
  costcenter: "COST_ALLOCATED_TO",
  "cost-center": "COST_ALLOCATED_TO",
  cost_center: "COST_ALLOCATED_TO",
  monitoring: "MONITORED_BY",
  "monitored-by": "MONITORED_BY",
};

const NETWORK_TYPES = new Set(["VPC", "VNET"]);

/** The lookups asset-level inference needs, built once for a set of assets. */
export interface AssetRelationContext {
  /** KMS key id for each id, ARN, name, bare key id and alias of a key (first key wins). */
  kmsKeys: ReadonlyMap<string, string>;
  /** `vpc_id` → the first VPC / VNet asset declaring it. */
  vpcOwners: ReadonlyMap<string, string>;
  /** `vpc_id` → the non-network assets declaring it, in order. */
  vpcMembers: ReadonlyMap<string, readonly Asset[]>;
}

function text(value: Json | undefined): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/** Builds the lookups of {@link inferAssetRelations} for a set of assets. */
export function assetRelationContext(assets: readonly Asset[]): AssetRelationContext {
  const kmsKeys = new Map<string, string>();
  const vpcOwners = new Map<string, string>();
  const vpcMembers = new Map<string, Asset[]>();
  const claim = (ref: string | null, id: string): void => {
    if (ref && !kmsKeys.has(ref)) kmsKeys.set(ref, id);
  };
  for (const a of assets) {
    if (a.asset_type === "KMS_KEY") {
      claim(a.id, a.id);
      claim(a.arn, a.id);
      claim(a.name, a.id);
      if (a.arn) claim(a.arn.slice(a.arn.lastIndexOf("/") + 1), a.id);
      const aliases = a.metadata["aliases"];
      if (Array.isArray(aliases)) { for (const alias of aliases) claim(text(alias), a.id); }
    }
    const vpc = text(a.metadata["vpc_id"]);
    if (vpc === null) continue;
    if (NETWORK_TYPES.has(a.asset_type)) {
      if (!vpcOwners.has(vpc)) vpcOwners.set(vpc, a.id);
    } else {
      const list = vpcMembers.get(vpc);
      if (list) list.push(a);
      else vpcMembers.set(vpc, [a]);
    }
  }
  return { kmsKeys, vpcOwners, vpcMembers };
}

/**
 * The relations an asset's own tags and metadata imply, the asset being
 * the subject: governance tags (OWNED_BY, COST_ALLOCATED_TO, MONITORED_BY →
 * `tag:<value>`); what a VPC / VNet contains by members' `vpc_id`
 * (VPC_CONTAINS_SUBNET for subnets, else CONTAINS; only the first network
 * asset declaring the id claims them); ENCRYPTED_BY_KMS for an encrypted
 * asset naming a `kms_key_id` (the key asset when known, else the raw
 * reference); ROTATES_SECRET (self) for secrets and keys with rotation;
 * DEPENDS_ON `vpc:<id>` for a Lambda function in a VPC; PROTECTED_BY_SG
 * `sg:<id>` for each security group an EC2 instance lists.
 */
export function inferAssetRelations(
  asset: Asset,
  context: AssetRelationContext,
): AssetRelation[] {
  const out: AssetRelation[] = [];
  for (const [key, value] of Object.entries(asset.tags)) {
    const relation = TAG_RELATIONS[key.toLowerCase()];
    if (relation) out.push({ relation, object: `tag:${value}` });
  }
  const md = asset.metadata;
  const vpc = text(md["vpc_id"]);
  if (
    vpc !== null && NETWORK_TYPES.has(asset.asset_type) && context.vpcOwners.get(vpc) === asset.id
  ) {
    for (const member of context.vpcMembers.get(vpc) ?? []) {
      out.push({
        relation: member.asset_type === "SUBNET" ? "VPC_CONTAINS_SUBNET" : "CONTAINS",
        object: member.id,
      });
    }
  }
  const kms = text(md["kms_key_id"]);
  if (kms !== null && (md["encryption"] || md["storage_encrypted"])) {
    out.push({ relation: "ENCRYPTED_BY_KMS", object: context.kmsKeys.get(kms) ?? kms });
  }
  if (asset.asset_type === "LAMBDA_FUNCTION") {
    const config = md["vpc_config"];
    if (config && typeof config === "object" && !Array.isArray(config)) {
      const id = (config as Record<string, Json>)["VpcId"];
      if (id) out.push({ relation: "DEPENDS_ON", object: `vpc:${String(id)}` });
    }
  }
  if ((asset.asset_type === "SECRET" || asset.asset_type === "KMS_KEY") && md["rotation_enabled"]) {
    out.push({ relation: "ROTATES_SECRET", object: asset.id });
  }
  if (asset.asset_type === "EC2") {
    const groups = md["security_groups"];
    if (Array.isArray(groups)) {
      for (const sg of groups) {
        out.push({ relation: "PROTECTED_BY_SG", object: `sg:${String(sg)}` });
      }
    }
  }
  return out;
}

/** Every asset-level relation of a set of assets, as `[asset, relation]` in asset order. */
export function allAssetRelations(assets: readonly Asset[]): [Asset, AssetRelation][] {
  const context = assetRelationContext(assets);
  const out: [Asset, AssetRelation][] = [];
  for (const a of assets) for (const r of inferAssetRelations(a, context)) out.push([a, r]);
  return out;
}
