/**
 * Semantic relation inference (spec §5.4): which of the 64 relation types an
 * edge or an asset's own facts (tags, metadata) stand for. The ontology's
 * ABox and its RAG chunks build their relations from here.
 *
 * Per edge, a declared `relationship` naming a relation type comes first; for
 * the typed edge kinds it replaces the default. Otherwise the rules below add
 * the defaults (network rules by direction, ports and CIDR; containment by
 * endpoint types; IAM by principal type; fixed ones for the rest).
 *
 * @module
 */

import {
  ASSET_TYPE_FAMILIES,
  type AssetType,
  type EdgeType,
  RELATION_TYPES,
  type RelationType,
} from "./enums.ts";
import type { Asset, Edge, Json } from "./records.ts";
import { endpointAccount } from "./edge_accounts.ts";

// Edge kinds whose declared relationship replaces the inferred default.
const TYPED_EDGE_KINDS: ReadonlySet<EdgeType> = new Set<EdgeType>([
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

/** The fixed relations of edge kinds that need no rule. */
export const FIXED_EDGE_RELATIONS: Readonly<Partial<Record<EdgeType, readonly RelationType[]>>> = {
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

const RELATION_SET: ReadonlySet<string> = new Set(RELATION_TYPES);

/** Whether a string names one of the 64 relation types. */
function isRelationType(value: unknown): value is RelationType {
  return typeof value === "string" && RELATION_SET.has(value);
}

/** Endpoint ids and CIDRs that stand for the whole internet. */
const INTERNET = new Set(["0.0.0.0/0", "::/0", "*", "internet", "any", "public"]);

/** Whether a CIDR or endpoint id stands for the internet (`0.0.0.0/0`, `::/0`, `*`, …). */
function isInternetRange(value: string | null | undefined): boolean {
  return value !== null && value !== undefined && INTERNET.has(value.trim().toLowerCase());
}

const NETWORK_TYPES: ReadonlySet<AssetType> = new Set(ASSET_TYPE_FAMILIES.Networking);
const CLUSTER_TYPES: ReadonlySet<AssetType> = new Set<AssetType>([
  "ECS_CLUSTER",
  "EKS_CLUSTER",
  "AKS_CLUSTER",
  "GKE_CLUSTER",
]);
// Every container and Kubernetes type except the registry, which no cluster contains.
const CLUSTER_MEMBER_TYPES: ReadonlySet<AssetType> = new Set<AssetType>(
  ASSET_TYPE_FAMILIES["Containers / Kubernetes"].filter((type) => type !== "CONTAINER_REGISTRY"),
);
const ORG_TYPES: ReadonlySet<AssetType> = new Set<AssetType>(["ORGANIZATION", "ORG_UNIT"]);
const USER_TYPES: ReadonlySet<AssetType> = new Set<AssetType>(["IAM_USER", "IDENTITY_USER"]);
const ROLE_TYPES: ReadonlySet<AssetType> = new Set<AssetType>([
  "IAM_ROLE",
  "SERVICE_PRINCIPAL",
  "PERMISSION_SET",
  "INSTANCE_PROFILE",
  "K8S_SERVICE_ACCOUNT",
]);
const GROUP_TYPES: ReadonlySet<AssetType> = new Set<AssetType>(["IAM_GROUP", "IDENTITY_GROUP"]);

/** Well-known ports and the relation each stands for, in this order. */
const PORT_RELATIONS: readonly [number, RelationType][] = [
  [22, "ONLY_SSH"],
  [80, "ONLY_HTTP"],
  [443, "ONLY_HTTPS"],
  [3389, "ONLY_RDP"],
];

/** Port ranges of a rule: `null` when it opens every port, `[]` when it names none. */
export function ruleRanges(edge: Pick<Edge, "ports" | "port_range" | "protocol">): [
  number,
  number,
][] | null {
  const ranges: [number, number][] = [];
  const text = (edge.port_range ?? "").trim().toLowerCase();
  if (text === "*" || text === "all" || text === "-1" || text === "any") return null;
  for (const part of text.split(",")) {
    const item = part.trim();
    if (item === "") continue;
    if (item === "*") return null;
    const match = /^(\d+)\s*(?:-\s*(\d+))?$/.exec(item);
    if (!match) continue;
    const low = Number(match[1]);
    const high = match[2] === undefined ? low : Number(match[2]);
    ranges.push([Math.min(low, high), Math.max(low, high)]);
  }
  for (const port of edge.ports ?? []) {
    if (Number.isInteger(port)) ranges.push([port, port]);
  }
  if (ranges.some(([low, high]) => low <= 1 && high >= 65535)) return null;
  const protocol = (edge.protocol ?? "").trim().toLowerCase();
  if (ranges.length === 0 && (protocol === "-1" || protocol === "all" || protocol === "*")) {
    return null;
  }
  return ranges;
}

function networkRuleRelations(edge: Edge, out: RelationType[]): void {
  out.push(edge.direction === "egress" ? "EGRESS_ALLOWED" : "INGRESS_ALLOWED");
  if (
    edge.direction !== "egress" && (isInternetRange(edge.source_id) || isInternetRange(edge.cidr))
  ) {
    out.push("INTERNET_REACHABLE");
  }
  const ranges = ruleRanges(edge);
  if (ranges === null) {
    out.push("ALL_TRAFFIC");
  } else if (ranges.length > 0) {
    let known = false;
    for (const [port, relation] of PORT_RELATIONS) {
      if (ranges.some(([low, high]) => low <= port && port <= high)) {
        out.push(relation);
        known = true;
      }
    }
    if (!known) out.push("PORT_RESTRICTED");
  }
  if (edge.cidr && !isInternetRange(edge.cidr)) out.push("CIDR_RESTRICTED");
}

function containsRelation(source: Asset | undefined, target: Asset | undefined): RelationType {
  const from = source?.asset_type;
  const to = target?.asset_type;
  if (from === undefined || to === undefined) return "CONTAINS";
  if ((from === "VPC" || from === "VNET") && to === "SUBNET") return "VPC_CONTAINS_SUBNET";
  if (from === "SUBNET" && !NETWORK_TYPES.has(to)) return "SUBNET_CONTAINS_INSTANCE";
  if (CLUSTER_TYPES.has(from) && CLUSTER_MEMBER_TYPES.has(to)) return "CLUSTER_CONTAINS_SERVICE";
  if (ORG_TYPES.has(from) && to === "CLOUD_ACCOUNT") return "ORG_CONTAINS_ACCOUNT";
  return "CONTAINS";
}

function policyAttachmentRelation(
  source: Asset | undefined,
  target: Asset | undefined,
): RelationType | null {
  // The principal is normally the source (user/group/role → policy); an
  // edge drawn the other way round is read by its target.
  for (const type of [source?.asset_type, target?.asset_type]) {
    if (type === undefined) continue;
    if (USER_TYPES.has(type)) return "USER_HAS_POLICY";
    if (GROUP_TYPES.has(type)) return "GROUP_HAS_POLICY";
    if (ROLE_TYPES.has(type)) return "ROLE_HAS_POLICY";
  }
  return null;
}

/**
 * The relation types an edge stands for, in order and without repeats.
 *
 * @param edge the edge
 * @param source the asset at `edge.source_id`, or undefined for a placeholder
 * @param target the asset at `edge.target_id`, or undefined for a placeholder
 *
 * @example
 * ```ts
 * import { inferEdgeRelations } from "./relations.ts";
 * import type { Edge } from "./records.ts";
 * const edge: Edge = {
 *   id: "e1", source_id: "0.0.0.0/0", target_id: "sg-1", edge_type: "SECURITY_GROUP_RULE",
 *   ports: [], port_range: "22", protocol: "tcp", cidr: "0.0.0.0/0", direction: "ingress",
 *   description: null, relationship: null, properties: {},
 * };
 * inferEdgeRelations(edge, undefined, undefined);
 * // ["INGRESS_ALLOWED", "INTERNET_REACHABLE", "ONLY_SSH"]
 * ```
 */
export function inferEdgeRelations(
  edge: Edge,
  source: Asset | undefined,
  target: Asset | undefined,
): RelationType[] {
  const out: RelationType[] = [];
  const declared = isRelationType(edge.relationship) ? edge.relationship : null;
  if (declared !== null) {
    out.push(declared);
    if (TYPED_EDGE_KINDS.has(edge.edge_type)) return out;
  }
  switch (edge.edge_type) {
    case "SECURITY_GROUP_RULE":
      networkRuleRelations(edge, out);
      break;
    case "CONTAINS":
      out.push(containsRelation(source, target));
      break;
    case "IAM_TRUST": {
      out.push("ROLE_ASSUMES_ROLE");
      const from = endpointAccount(edge.source_id, source);
      const to = endpointAccount(edge.target_id, target);
      if (edge.properties?.cross_account === true || (from && to && from !== to)) {
        out.push("CROSS_ACCOUNT_TRUST");
      }
      break;
    }
    case "IAM_POLICY_ATTACHMENT": {
      const relation = policyAttachmentRelation(source, target);
      if (relation) out.push(relation);
      break;
    }
    case "ATTACHED_TO": {
      const type = target?.asset_type;
      if (type === "SECURITY_GROUP" || type === "NSG") out.push("PROTECTED_BY_SG");
      else if (type === "NACL") out.push("PROTECTED_BY_NACL");
      else out.push("DEPENDS_ON");
      break;
    }
    default:
      out.push(...(FIXED_EDGE_RELATIONS[edge.edge_type] ?? []));
  }
  return [...new Set(out)];
}

/** One relation an asset's own facts imply. */
export interface AssetRelation {
  /**
   * The subject: the asset's id, or a reference `vpc:<id>` when the asset is
   * the object (VPC membership).
   */
  subject: string;
  /** The relation type. */
  relation: RelationType;
  /**
   * The object: an asset id (the asset itself for ROTATES_SECRET) or a
   * reference `tag:<value>`, `vpc:<id>`, `sg:<id>`, `kms:<id>`.
   */
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

function text(value: Json | undefined): string | null {
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  if (typeof value === "number") return String(value);
  return null;
}

function truthy(value: Json | undefined): boolean {
  if (typeof value === "string") {
    return ["true", "yes", "enabled", "on", "1"].includes(value.trim().toLowerCase());
  }
  return value === true || (typeof value === "number" && value !== 0) ||
    (value !== null && typeof value === "object" && !Array.isArray(value) &&
      truthy((value as Record<string, Json>).enabled ?? (value as Record<string, Json>).Enabled));
}

function field(record: Json | undefined, ...keys: string[]): Json | undefined {
  if (record === null || typeof record !== "object" || Array.isArray(record)) return undefined;
  for (const key of keys) {
    const value = (record as Record<string, Json>)[key];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/** Security group ids from a `security_groups` list of ids or `{GroupId}` records. */
function securityGroupIds(value: Json | undefined): string[] {
  if (!Array.isArray(value)) return [];
  const ids: string[] = [];
  for (const item of value) {
    const id = text(item) ?? text(field(item, "GroupId", "group_id", "id"));
    if (id !== null) ids.push(id);
  }
  return ids;
}

/**
 * The relations implied by an asset's tags and metadata: owner, cost and
 * monitoring tags; VPC membership; KMS encryption; secret rotation; a
 * function's VPC; an instance's security groups.
 *
 * @example
 * ```ts
 * import { inferAssetRelations } from "./relations.ts";
 * // tags { owner: "alice" } → [{ subject: <asset id>, relation: "OWNED_BY", object: "tag:alice" }]
 * ```
 */
export function inferAssetRelations(asset: Asset): AssetRelation[] {
  const out: AssetRelation[] = [];
  const self = asset.id;
  for (const [key, value] of Object.entries(asset.tags ?? {})) {
    const relation = TAG_RELATIONS[key.trim().toLowerCase()];
    if (relation) out.push({ subject: self, relation, object: `tag:${value}` });
  }
  const meta = asset.metadata ?? {};
  const vpc = text(meta.vpc_id);
  if (vpc !== null && asset.asset_type !== "VPC" && asset.asset_type !== "VNET") {
    out.push({
      subject: `vpc:${vpc}`,
      relation: asset.asset_type === "SUBNET" ? "VPC_CONTAINS_SUBNET" : "CONTAINS",
      object: self,
    });
  }
  const kms = text(meta.kms_key_id);
  if (kms !== null && (truthy(meta.encryption) || truthy(meta.storage_encrypted))) {
    out.push({ subject: self, relation: "ENCRYPTED_BY_KMS", object: `kms:${kms}` });
  }
  if (
    (asset.asset_type === "SECRET" || asset.asset_type === "KMS_KEY") &&
    truthy(meta.rotation_enabled)
  ) {
    out.push({ subject: self, relation: "ROTATES_SECRET", object: self });
  }
  if (asset.asset_type === "LAMBDA_FUNCTION") {
    const config = meta.vpc_config ?? meta.VpcConfig;
    const lambdaVpc = text(field(config, "vpc_id", "VpcId"));
    if (lambdaVpc !== null) {
      out.push({ subject: self, relation: "DEPENDS_ON", object: `vpc:${lambdaVpc}` });
    }
  }
  if (asset.asset_type === "EC2") {
    for (const group of securityGroupIds(meta.security_groups)) {
      out.push({ subject: self, relation: "PROTECTED_BY_SG", object: `sg:${group}` });
    }
  }
  return out;
}
