/**
 * What the cloud vocabularies mean (`describe_schema`, `explain_asset_type`,
 * `explain_edge_type`): asset types by family with notes, crown-jewel
 * weights and Terraform types; edge types with their reading, dependency
 * direction and the ontology relations they yield; severities, relation
 * groups, compliance statuses and providers.
 *
 * @module
 */

import { CROWN_JEWEL_WEIGHTS, SENSITIVE_DATA_STORES } from "../graph/sensitivity.ts";
import { FIXED_EDGE_RELATIONS } from "../model/relations.ts";
import {
  ASSET_TYPE_FAMILIES,
  type AssetType,
  COMPLIANCE_STATUSES,
  type DependencyDirection,
  EDGE_TYPE_INFO,
  EDGE_TYPES,
  type EdgeType,
  PROVIDERS,
  RELATION_GROUPS,
  RELATION_TYPES,
  type RelationType,
  SEVERITIES,
  SEVERITY_BASE_RISK,
  severityRank,
} from "../model/enums.ts";

/** The sections `describe_schema` can return. */
export const SCHEMA_SECTIONS = [
  "all",
  "asset_types",
  "edge_types",
  "severities",
  "relation_types",
  "relation_groups",
  "compliance_statuses",
  "providers",
] as const;
/** One of {@linkcode SCHEMA_SECTIONS}. */
export type SchemaSection = (typeof SCHEMA_SECTIONS)[number];

/** Short notes on asset types whose name alone is ambiguous. */
export const ASSET_TYPE_NOTES: Readonly<Partial<Record<AssetType, string>>> = {
  EC2: "An AWS EC2 instance.",
  VIRTUAL_MACHINE: "An Azure virtual machine.",
  GCE_INSTANCE: "A Google Compute Engine instance.",
  APP_SERVICE: "An Azure App Service or Function App.",
  NSG: "An Azure network security group.",
  NACL: "A stateless subnet-level network ACL.",
  LOAD_BALANCER: "Application, network or gateway load balancer (any provider).",
  CLOUDFRONT: "An AWS CloudFront distribution.",
  ELASTIC_IP: "A static public IP address (AWS Elastic IP, Azure public IP, GCP address).",
  ACCESS_POINT: "An S3 or EFS access point.",
  SERVICE_PRINCIPAL: "An Azure AD service principal or GCP service account.",
  SECRET: "A managed secret (Secrets Manager, Key Vault secret, Secret Manager).",
  KEY_VAULT: "An Azure Key Vault.",
  CONTAINER_REGISTRY: "A container image registry (ECR, ACR, Artifact Registry).",
  CONTAINER_SERVICE: "A service running on a container cluster (ECS service, Cloud Run).",
  VPC_ENDPOINT: "A private endpoint to a provider service (PrivateLink, Private Endpoint).",
  INSTANCE_PROFILE: "The container passing an IAM role to EC2 instances.",
  IDENTITY_PROVIDER: "A SAML or OIDC identity provider trusted by IAM.",
  THREAT_DETECTOR: "A threat detection service (GuardDuty, Defender, Security Command Center).",
  ORG_POLICY: "An organisation policy (service control policy, Azure Policy, GCP org policy).",
  GUARDRAIL: "A Control Tower control or equivalent landing-zone guardrail.",
  RESOURCE_GROUP: "An Azure resource group or similar logical grouping.",
  PERMISSION_SET: "An IAM Identity Center permission set.",
  RESOURCE_SHARE: "A RAM resource share or equivalent cross-account share.",
  OTHER: "A resource whose source type has no closer match.",
};

/** Terraform resource types of asset types whose mapping is unambiguous. */
export const TERRAFORM_TYPES: Readonly<Partial<Record<AssetType, string>>> = {
  EC2: "aws_instance",
  VIRTUAL_MACHINE: "azurerm_virtual_machine",
  GCE_INSTANCE: "google_compute_instance",
  LAMBDA_FUNCTION: "aws_lambda_function",
  CLOUD_FUNCTION: "google_cloudfunctions_function",
  ECS_CLUSTER: "aws_ecs_cluster",
  EKS_CLUSTER: "aws_eks_cluster",
  AKS_CLUSTER: "azurerm_kubernetes_cluster",
  GKE_CLUSTER: "google_container_cluster",
  VPC: "aws_vpc",
  VNET: "azurerm_virtual_network",
  SUBNET: "aws_subnet",
  SECURITY_GROUP: "aws_security_group",
  NSG: "azurerm_network_security_group",
  NACL: "aws_network_acl",
  ROUTE_TABLE: "aws_route_table",
  INTERNET_GATEWAY: "aws_internet_gateway",
  NAT_GATEWAY: "aws_nat_gateway",
  LOAD_BALANCER: "aws_lb",
  CLOUDFRONT: "aws_cloudfront_distribution",
  TRANSIT_GATEWAY: "aws_ec2_transit_gateway",
  PEERING_CONNECTION: "aws_vpc_peering_connection",
  ELASTIC_IP: "aws_eip",
  NETWORK_INTERFACE: "aws_network_interface",
  S3_BUCKET: "aws_s3_bucket",
  BLOB_STORAGE: "azurerm_storage_account",
  GCS_BUCKET: "google_storage_bucket",
  EBS_VOLUME: "aws_ebs_volume",
  RDS_INSTANCE: "aws_db_instance",
  AURORA_CLUSTER: "aws_rds_cluster",
  AZURE_SQL: "azurerm_mssql_server",
  CLOUD_SQL: "google_sql_database_instance",
  DYNAMODB_TABLE: "aws_dynamodb_table",
  IAM_USER: "aws_iam_user",
  IAM_ROLE: "aws_iam_role",
  IAM_POLICY: "aws_iam_policy",
  IAM_GROUP: "aws_iam_group",
  KMS_KEY: "aws_kms_key",
  SECRET: "aws_secretsmanager_secret",
  KEY_VAULT: "azurerm_key_vault",
  CLOUDTRAIL: "aws_cloudtrail",
  FLOW_LOG: "aws_flow_log",
  LOG_GROUP: "aws_cloudwatch_log_group",
  CONTAINER_REGISTRY: "aws_ecr_repository",
  TARGET_GROUP: "aws_lb_target_group",
  API_GATEWAY: "aws_api_gateway_rest_api",
  INSTANCE_PROFILE: "aws_iam_instance_profile",
  MESSAGE_QUEUE: "aws_sqs_queue",
  NOTIFICATION_TOPIC: "aws_sns_topic",
  WAF_WEB_ACL: "aws_wafv2_web_acl",
  THREAT_DETECTOR: "aws_guardduty_detector",
  DNS_ZONE: "aws_route53_zone",
  DNS_RECORD: "aws_route53_record",
};

/** Types expected to face the internet (an exposure on them is by design). */
export const EXPECTED_INTERNET_FACING: ReadonlySet<string> = new Set([
  "LOAD_BALANCER",
  "CLOUDFRONT",
  "CDN",
  "INTERNET_GATEWAY",
]);

/** Short notes on edge types. */
export const EDGE_TYPE_NOTES: Readonly<Partial<Record<EdgeType, string>>> = {
  SECURITY_GROUP_RULE:
    "Ingress rules run from the CIDR placeholder (such as 0.0.0.0/0) to the group; egress rules the other way.",
  INTERNET_EXPOSED: "The source is the internet placeholder 0.0.0.0/0 or ::/0, not an asset.",
  CONTAINS: "Hierarchy edges (account, organisation) carry properties.hierarchy = true.",
  IAM_TRUST: "A trust from another account makes the edge cross-account.",
  ATTACHED_TO: "From a security group, NSG or NACL it reads as the filter admitting traffic.",
};

// The relations the rule-read edge types can yield; the rest yield their fixed relations.
const RULE_EDGE_RELATIONS: Readonly<Partial<Record<EdgeType, readonly RelationType[]>>> = {
  SECURITY_GROUP_RULE: [
    "INGRESS_ALLOWED",
    "EGRESS_ALLOWED",
    "INTERNET_REACHABLE",
    "ALL_TRAFFIC",
    "ONLY_HTTP",
    "ONLY_HTTPS",
    "ONLY_SSH",
    "ONLY_RDP",
    "PORT_RESTRICTED",
    "CIDR_RESTRICTED",
  ],
  NACL_RULE: [],
  IAM_TRUST: ["ROLE_ASSUMES_ROLE", "CROSS_ACCOUNT_TRUST"],
  IAM_POLICY_ATTACHMENT: ["USER_HAS_POLICY", "ROLE_HAS_POLICY", "GROUP_HAS_POLICY"],
  CONTAINS: [
    "CONTAINS",
    "VPC_CONTAINS_SUBNET",
    "SUBNET_CONTAINS_INSTANCE",
    "CLUSTER_CONTAINS_SERVICE",
    "ORG_CONTAINS_ACCOUNT",
  ],
  ATTACHED_TO: ["PROTECTED_BY_SG", "PROTECTED_BY_NACL", "DEPENDS_ON"],
};

/** The ontology relations an edge type can yield (spec §5.4 rules, declared relations aside). */
export const EDGE_TYPE_RELATIONS: Readonly<Record<EdgeType, readonly RelationType[]>> = Object
  .fromEntries(
    EDGE_TYPES.map((type) => [
      type,
      RULE_EDGE_RELATIONS[type] ?? FIXED_EDGE_RELATIONS[type] ?? [],
    ]),
  ) as Record<EdgeType, readonly RelationType[]>;

const DEPENDENCY_MEANING: Readonly<Record<DependencyDirection, string>> = {
  forward: "The source depends on the target.",
  reverse: "The target depends on the source.",
  none: "Neither end depends on the other.",
};

/** The family heading of an asset type. */
export function assetTypeFamily(type: AssetType): string {
  for (const [family, types] of Object.entries(ASSET_TYPE_FAMILIES)) {
    if ((types as readonly string[]).includes(type)) return family;
  }
  return "Generic";
}

/** The ontology class of an asset type: `cm:` and the CamelCase of the type. */
export function ontologyClassOf(type: AssetType): string {
  return `cm:${
    type.toLowerCase().split("_").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("")
  }`;
}

/** What one asset type means. */
export interface AssetTypeExplanation {
  asset_type: AssetType;
  family: string;
  note: string | null;
  ontology_class: string;
  terraform_type: string | null;
  sensitive_data_store: boolean;
  crown_jewel_weight: number;
  internet_exposure_expected: boolean;
}

/** Explains an asset type. */
export function explainAssetType(type: AssetType): AssetTypeExplanation {
  return {
    asset_type: type,
    family: assetTypeFamily(type),
    note: ASSET_TYPE_NOTES[type] ?? null,
    ontology_class: ontologyClassOf(type),
    terraform_type: TERRAFORM_TYPES[type] ?? null,
    sensitive_data_store: SENSITIVE_DATA_STORES.has(type),
    crown_jewel_weight: CROWN_JEWEL_WEIGHTS[type] ?? 0,
    internet_exposure_expected: EXPECTED_INTERNET_FACING.has(type),
  };
}

/** What one edge type means. */
export interface EdgeTypeExplanation {
  edge_type: EdgeType;
  reads_as: string;
  typical: string;
  note: string | null;
  dependency_direction: DependencyDirection;
  dependency_meaning: string;
  ontology_relations: RelationType[];
}

/** Explains an edge type. */
export function explainEdgeType(type: EdgeType): EdgeTypeExplanation {
  const info = EDGE_TYPE_INFO[type];
  return {
    edge_type: type,
    reads_as: info.reads,
    typical: info.typical,
    note: EDGE_TYPE_NOTES[type] ?? null,
    dependency_direction: info.dependency,
    dependency_meaning: DEPENDENCY_MEANING[info.dependency],
    ontology_relations: [...EDGE_TYPE_RELATIONS[type]],
  };
}

/** The schema description; sections not asked for are absent. */
export interface SchemaDescription {
  section: SchemaSection;
  asset_types?: { count: number; families: { family: string; types: string[] }[] };
  edge_types?: {
    edge_type: string;
    reads_as: string;
    typical: string;
    dependency_direction: string;
  }[];
  severities?: { severity: string; rank: number; base_risk: number }[];
  relation_types?: { count: number; types: string[] };
  relation_groups?: { group: string; count: number; relation_types: string[] }[];
  compliance_statuses?: string[];
  providers?: string[];
}

/** Describes one section of the data model, or all of them. */
export function describeSchema(section: SchemaSection = "all"): SchemaDescription {
  const want = (name: SchemaSection): boolean => section === "all" || section === name;
  const out: SchemaDescription = { section };
  if (want("asset_types")) {
    const families = Object.entries(ASSET_TYPE_FAMILIES).map(([family, types]) => ({
      family,
      types: [...types] as string[],
    }));
    out.asset_types = {
      count: families.reduce((n, f) => n + f.types.length, 0),
      families,
    };
  }
  if (want("edge_types")) {
    out.edge_types = Object.entries(EDGE_TYPE_INFO).map(([edge_type, info]) => ({
      edge_type,
      reads_as: info.reads,
      typical: info.typical,
      dependency_direction: info.dependency,
    }));
  }
  if (want("severities")) {
    out.severities = SEVERITIES.map((severity) => ({
      severity,
      rank: severityRank(severity),
      base_risk: SEVERITY_BASE_RISK[severity],
    }));
  }
  if (want("relation_types")) {
    out.relation_types = { count: RELATION_TYPES.length, types: [...RELATION_TYPES] };
  }
  if (want("relation_groups")) {
    out.relation_groups = Object.entries(RELATION_GROUPS).map(([group, types]) => ({
      group,
      count: types.length,
      relation_types: [...types] as string[],
    }));
  }
  if (want("compliance_statuses")) out.compliance_statuses = [...COMPLIANCE_STATUSES];
  if (want("providers")) out.providers = [...PROVIDERS];
  return out;
}
