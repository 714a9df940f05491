/**
 * The ontology class of each asset type, the family superclass of each
 * family heading, and the labels of classes and relation properties.
 *
 * @module
 */

import { ASSET_TYPE_FAMILIES, type AssetType } from "../model/enums.ts";

/** Asset types that share a class, or whose class name is not the CamelCase of the type. */
export const ASSET_CLASS_OVERRIDES: Readonly<Partial<Record<AssetType, string>>> = {
  EC2: "ComputeInstance",
  VIRTUAL_MACHINE: "ComputeInstance",
  GCE_INSTANCE: "ComputeInstance",
  LAMBDA_FUNCTION: "ServerlessFunction",
  CLOUD_FUNCTION: "ServerlessFunction",
  ECS_CLUSTER: "ContainerCluster",
  EKS_CLUSTER: "ContainerCluster",
  AKS_CLUSTER: "ContainerCluster",
  GKE_CLUSTER: "ContainerCluster",
  VPC: "VirtualNetwork",
  VNET: "VirtualNetwork",
  SECURITY_GROUP: "SecurityGroup",
  NSG: "SecurityGroup",
  NACL: "NetworkACL",
  S3_BUCKET: "ObjectStorage",
  BLOB_STORAGE: "ObjectStorage",
  GCS_BUCKET: "ObjectStorage",
  EBS_VOLUME: "BlockStorage",
  RDS_INSTANCE: "RelationalDatabase",
  AURORA_CLUSTER: "RelationalDatabase",
  AZURE_SQL: "RelationalDatabase",
  CLOUD_SQL: "RelationalDatabase",
  DYNAMODB_TABLE: "NoSQLDatabase",
  KMS_KEY: "EncryptionKey",
  CLOUDTRAIL: "AuditLog",
  WAF_WEB_ACL: "WebApplicationFirewall",
  SECURITY_HUB: "SecurityPostureHub",
  CLOUD_ACCOUNT: "Account",
  ORG_UNIT: "OrganizationalUnit",
  IAM_USER: "IAMUser",
  IAM_ROLE: "IAMRole",
  IAM_POLICY: "IAMPolicy",
  IAM_GROUP: "IAMGroup",
  CLOUDFRONT: "ContentDeliveryNetwork",
  CDN: "ContentDeliveryNetwork",
  DNS_ZONE: "DNSZone",
  DNS_RECORD: "DNSRecord",
  DNS_RESOLVER: "DNSResolver",
  K8S_NAMESPACE: "KubernetesNamespace",
  K8S_WORKLOAD: "KubernetesWorkload",
  K8S_SERVICE: "KubernetesService",
  K8S_INGRESS: "KubernetesIngress",
  K8S_SERVICE_ACCOUNT: "KubernetesServiceAccount",
};

/** Classes that are not asset classes: findings, compliance, places and tags. */
export const HELPER_CLASSES: readonly string[] = [
  "CloudResource",
  "SecurityFinding",
  "ComplianceControl",
  "Region",
  "Account",
  "Organization",
  "TagValue",
  "EdgeMetadata",
];

/** `SOME_ENUM_NAME` → `SomeEnumName`. */
function camelCase(name: string): string {
  return name.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0)
    .map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
}

/**
 * The class name (local part under `cm:`) of an asset type: the explicit
 * entry of {@link ASSET_CLASS_OVERRIDES}, else the CamelCase of the type.
 *
 * @example
 * ```ts
 * import { assetClassName } from "./classes.ts";
 * assetClassName("EC2"); // "ComputeInstance"
 * assetClassName("MESSAGE_QUEUE"); // "MessageQueue"
 * ```
 */
export function assetClassName(assetType: AssetType): string {
  return ASSET_CLASS_OVERRIDES[assetType] ?? camelCase(assetType);
}

/**
 * The class name of a family heading: its words in CamelCase followed by
 * `Resource` (`"Secrets / Keys"` → `SecretsKeysResource`).
 */
export function familyClassName(family: string): string {
  return camelCase(family) + "Resource";
}

const FAMILY_OF = new Map<AssetType, string>();
for (const [family, types] of Object.entries(ASSET_TYPE_FAMILIES)) {
  for (const type of types) FAMILY_OF.set(type, family);
}

/** The family heading of an asset type (`Generic` for types outside every family). */
export function assetFamily(assetType: AssetType): string {
  return FAMILY_OF.get(assetType) ?? "Generic";
}

/** `ComputeInstance` → `Compute Instance`, `NoSQLDatabase` → `NoSQL Database`. */
export function classLabel(className: string): string {
  return className.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2");
}

/** A relation type's label in Title Case (`INGRESS_ALLOWED` → `Ingress Allowed`). */
export function relationLabel(relation: string): string {
  return relation.toLowerCase().split("_").map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ");
}
