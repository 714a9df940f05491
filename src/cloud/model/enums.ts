/**
 * The closed vocabularies of the cloud model: asset types by family, edge
 * types with their reading and dependency direction, semantic relation types
 * by group, severities and providers.
 *
 * @module
 */

/** Asset types, grouped by family (the family names are headings, not values). */
export const ASSET_TYPE_FAMILIES = {
  "Compute": [
    "EC2",
    "VIRTUAL_MACHINE",
    "GCE_INSTANCE",
    "LAMBDA_FUNCTION",
    "CLOUD_FUNCTION",
    "ECS_CLUSTER",
    "EKS_CLUSTER",
    "AKS_CLUSTER",
    "GKE_CLUSTER",
    "APP_SERVICE",
  ],
  "Networking": [
    "VPC",
    "VNET",
    "SUBNET",
    "SECURITY_GROUP",
    "NSG",
    "NACL",
    "ROUTE_TABLE",
    "INTERNET_GATEWAY",
    "NAT_GATEWAY",
    "LOAD_BALANCER",
    "CLOUDFRONT",
    "CDN",
    "TRANSIT_GATEWAY",
    "PEERING_CONNECTION",
    "ELASTIC_IP",
    "NETWORK_INTERFACE",
  ],
  "Storage": [
    "S3_BUCKET",
    "BLOB_STORAGE",
    "GCS_BUCKET",
    "EBS_VOLUME",
    "ACCESS_POINT",
  ],
  "Database": [
    "RDS_INSTANCE",
    "AURORA_CLUSTER",
    "AZURE_SQL",
    "CLOUD_SQL",
    "DYNAMODB_TABLE",
  ],
  "IAM": [
    "IAM_USER",
    "IAM_ROLE",
    "IAM_POLICY",
    "IAM_GROUP",
    "SERVICE_PRINCIPAL",
  ],
  "Secrets / Keys": [
    "KMS_KEY",
    "SECRET",
    "CERTIFICATE",
    "KEY_VAULT",
  ],
  "Logging": [
    "CLOUDTRAIL",
    "FLOW_LOG",
    "LOG_GROUP",
  ],
  "Containers / Kubernetes": [
    "CONTAINER_REGISTRY",
    "CONTAINER_SERVICE",
    "TASK_DEFINITION",
    "NODE_GROUP",
    "FARGATE_PROFILE",
    "CLUSTER_ADDON",
    "K8S_NAMESPACE",
    "K8S_WORKLOAD",
    "K8S_SERVICE",
    "K8S_INGRESS",
    "K8S_SERVICE_ACCOUNT",
  ],
  "Compute fabric": [
    "AUTOSCALING_GROUP",
    "LAUNCH_TEMPLATE",
    "TARGET_GROUP",
    "API_GATEWAY",
    "VPC_ENDPOINT",
    "INSTANCE_PROFILE",
    "IDENTITY_PROVIDER",
  ],
  "Integration / messaging": [
    "MESSAGE_QUEUE",
    "NOTIFICATION_TOPIC",
    "EVENT_BUS",
    "EVENT_RULE",
    "STATE_MACHINE",
    "DATA_STREAM",
  ],
  "Data services": [
    "CACHE_CLUSTER",
    "SEARCH_DOMAIN",
    "DATA_WAREHOUSE",
    "FILE_SYSTEM",
  ],
  "DNS / deployment": [
    "DNS_ZONE",
    "DNS_RECORD",
    "IAC_STACK",
  ],
  "Security services and scanners": [
    "WAF_WEB_ACL",
    "NETWORK_FIREWALL",
    "DDOS_PROTECTION",
    "THREAT_DETECTOR",
    "SECURITY_HUB",
    "VULNERABILITY_SCANNER",
    "DATA_SECURITY_SCANNER",
    "CONFIG_RECORDER",
    "ACCESS_ANALYZER",
  ],
  "Organization / governance": [
    "ORGANIZATION",
    "ORG_UNIT",
    "CLOUD_ACCOUNT",
    "ORG_POLICY",
    "LANDING_ZONE",
    "GUARDRAIL",
    "RESOURCE_GROUP",
  ],
  "Identity federation and access": [
    "PERMISSION_SET",
    "IDENTITY_USER",
    "IDENTITY_GROUP",
    "ACCESS_KEY",
    "USER_POOL",
    "IDENTITY_POOL",
    "RESOURCE_SHARE",
  ],
  "Deployment / provisioning": [
    "STACK_SET",
    "PROVISIONED_PRODUCT",
    "PRODUCT_PORTFOLIO",
    "CI_PIPELINE",
    "BUILD_PROJECT",
    "DEPLOYMENT_GROUP",
  ],
  "Images, snapshots, backups": [
    "MACHINE_IMAGE",
    "SNAPSHOT",
    "BACKUP_PLAN",
    "BACKUP_VAULT",
  ],
  "Hybrid and edge networking": [
    "VPN_CONNECTION",
    "VPN_GATEWAY",
    "CUSTOMER_GATEWAY",
    "DIRECT_CONNECT",
    "ROUTER",
    "PREFIX_LIST",
    "ENDPOINT_SERVICE",
    "VPC_LINK",
    "CUSTOM_DOMAIN",
    "DNS_RESOLVER",
    "GLOBAL_ACCELERATOR",
    "SERVICE_NETWORK",
  ],
  "Application integration and operations": [
    "SCHEDULE",
    "EVENT_PIPE",
    "API_DESTINATION",
    "ALARM",
    "DELIVERY_STREAM",
    "LOG_SINK",
    "PARAMETER",
    "CAPACITY_PROVIDER",
    "SERVICE_REGISTRY",
    "EVENT_ARCHIVE",
    "RUNBOOK",
    "SOURCE_CONNECTION",
    "LB_LISTENER",
    "AUTHORIZER",
    "EDGE_FUNCTION",
  ],
  "Platforms and data processing": [
    "MESSAGE_BROKER",
    "BATCH_ENVIRONMENT",
    "JOB_QUEUE",
    "JOB_DEFINITION",
    "DATABASE_PROXY",
    "DATA_CATALOG",
    "ETL_JOB",
    "BIG_DATA_CLUSTER",
    "QUERY_WORKGROUP",
    "DATA_TRANSFER",
    "ML_WORKSPACE",
    "ML_ENDPOINT",
    "ML_MODEL",
    "AI_AGENT",
    "KNOWLEDGE_BASE",
    "AI_GUARDRAIL",
  ],
  "Generic": [
    "OTHER",
  ],
} as const satisfies Record<string, readonly string[]>;

/** Every asset type, in family order. */
export type AssetType = (typeof ASSET_TYPE_FAMILIES)[keyof typeof ASSET_TYPE_FAMILIES][number];

/** Every asset type, in family order. */
export const ASSET_TYPES: readonly AssetType[] = Object.values(ASSET_TYPE_FAMILIES).flat();

/** How an edge type makes one endpoint depend on the other. */
export type DependencyDirection = "forward" | "reverse" | "none";

/** Edge types: how each reads ("source … target"), its typical endpoints and its dependency direction. */
export const EDGE_TYPE_INFO = {
  SECURITY_GROUP_RULE: {
    reads: "allows traffic",
    typical: "CIDR→SG (ingress), SG→CIDR (egress)",
    dependency: "none",
  },
  NACL_RULE: {
    reads: "allows traffic",
    typical: "network ACL rules",
    dependency: "none",
  },
  ROUTE: {
    reads: "routes through / forwards to",
    typical: "route table→gateway, DNS record→LB",
    dependency: "forward",
  },
  IAM_TRUST: {
    reads: "may assume",
    typical: "principal/account/provider→role",
    dependency: "forward",
  },
  IAM_POLICY_ATTACHMENT: {
    reads: "has policy",
    typical: "user/group/role→managed policy",
    dependency: "forward",
  },
  CONTAINS: {
    reads: "contains",
    typical: "VPC→subnet, subnet→instance, account→resource",
    dependency: "reverse",
  },
  PEERING: {
    reads: "peers with",
    typical: "VPC→peering→VPC",
    dependency: "forward",
  },
  LOAD_BALANCER_TARGET: {
    reads: "sends traffic to",
    typical: "LB→target group→instance",
    dependency: "forward",
  },
  INTERNET_EXPOSED: {
    reads: "exposes",
    typical: "0.0.0.0/0→exposed asset",
    dependency: "none",
  },
  ATTACHED_TO: {
    reads: "is attached to",
    typical: "instance→SG, volume→instance, ENI→instance",
    dependency: "forward",
  },
  REFERENCES: {
    reads: "uses / points at",
    typical: "function→secret, table→KMS key",
    dependency: "forward",
  },
  INVOKES: {
    reads: "triggers / calls",
    typical: "bucket→function, queue→function",
    dependency: "reverse",
  },
  USES_IMAGE: {
    reads: "runs the image of",
    typical: "task/workload/function→registry",
    dependency: "forward",
  },
  ASSUMES_ROLE: {
    reads: "runs as",
    typical: "compute→role / service account",
    dependency: "forward",
  },
  GRANTS_ACCESS: {
    reads: "is granted access to",
    typical: "principal→resource in its policy",
    dependency: "forward",
  },
  LOGS_TO: {
    reads: "sends logs to",
    typical: "trail/flow log/LB→log destination",
    dependency: "forward",
  },
  PROTECTS: {
    reads: "protects",
    typical: "WAF→ALB/API/distribution",
    dependency: "reverse",
  },
  MONITORS: {
    reads: "monitors",
    typical: "Inspector→instance, GuardDuty→account",
    dependency: "reverse",
  },
  MANAGES: {
    reads: "manages",
    typical: "stack→resource, ASG→instance",
    dependency: "reverse",
  },
  GOVERNS: {
    reads: "governs",
    typical: "SCP/control→OU/account",
    dependency: "reverse",
  },
} as const satisfies Record<
  string,
  { reads: string; typical: string; dependency: DependencyDirection }
>;

/** An edge type. */
export type EdgeType = keyof typeof EDGE_TYPE_INFO;

/** Every edge type, in declaration order. */
export const EDGE_TYPES: readonly EdgeType[] = Object.keys(EDGE_TYPE_INFO) as EdgeType[];

/** Semantic relation types by relation group. */
export const RELATION_GROUPS = {
  NETWORK: [
    "INGRESS_ALLOWED",
    "INGRESS_DENIED",
    "EGRESS_ALLOWED",
    "EGRESS_DENIED",
    "ONLY_HTTP",
    "ONLY_HTTPS",
    "ONLY_SSH",
    "ONLY_RDP",
    "ALL_TRAFFIC",
    "PORT_RESTRICTED",
    "CIDR_RESTRICTED",
    "INTERNET_REACHABLE",
    "VPC_PEERED",
    "TRANSIT_ROUTED",
    "NAT_TRANSLATED",
    "DNS_RESOLVED",
  ],
  CONTAINMENT: [
    "CONTAINS",
    "VPC_CONTAINS_SUBNET",
    "SUBNET_CONTAINS_INSTANCE",
    "REGION_CONTAINS_VPC",
    "ACCOUNT_CONTAINS_REGION",
    "ORG_CONTAINS_ACCOUNT",
    "CLUSTER_CONTAINS_SERVICE",
    "LB_TARGETS_INSTANCE",
  ],
  IAM: [
    "ROLE_ASSUMES_ROLE",
    "USER_HAS_POLICY",
    "ROLE_HAS_POLICY",
    "GROUP_HAS_POLICY",
    "POLICY_ALLOWS_ACTION",
    "POLICY_DENIES_ACTION",
    "CROSS_ACCOUNT_TRUST",
    "SERVICE_LINKED_ROLE",
    "PERMISSION_BOUNDARY_LIMITS",
    "SCP_RESTRICTS",
  ],
  DATA_FLOW: [
    "READS_FROM",
    "WRITES_TO",
    "ENCRYPTS_WITH",
    "DECRYPTS_WITH",
    "LOGS_TO",
    "STREAMS_TO",
    "REPLICATES_TO",
    "BACKUP_TO",
    "CACHE_FOR",
  ],
  SECURITY: [
    "PROTECTED_BY_SG",
    "PROTECTED_BY_NACL",
    "PROTECTED_BY_WAF",
    "ENCRYPTED_BY_KMS",
    "ROTATES_SECRET",
    "CERTIFICATE_SECURES",
    "FINDING_AFFECTS",
    "VULNERABILITY_EXPLOITS",
    "COMPLIANCE_GOVERNS",
  ],
  COMPUTE: [
    "RUNS_ON",
    "TRIGGERED_BY",
    "INVOKES",
    "SCALES_WITH",
    "LOAD_BALANCED_BY",
    "SCHEDULED_BY",
    "DEPENDS_ON",
    "SERVES_TRAFFIC_TO",
  ],
  GOVERNANCE: [
    "TAGGED_WITH",
    "COST_ALLOCATED_TO",
    "OWNED_BY",
    "MONITORED_BY",
  ],
} as const satisfies Record<string, readonly string[]>;

/** A relation group. */
export type RelationGroup = keyof typeof RELATION_GROUPS;

/** A semantic relation type. */
export type RelationType = (typeof RELATION_GROUPS)[RelationGroup][number];

/** Every relation type, in group order. */
export const RELATION_TYPES: readonly RelationType[] = Object.values(RELATION_GROUPS).flat();

/** Severities, worst first. */
export const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"] as const;

/** A finding severity. */
export type Severity = (typeof SEVERITIES)[number];

/** Rank of a severity: CRITICAL 4 down to INFO 0. */
export function severityRank(severity: Severity): number {
  return SEVERITIES.length - 1 - SEVERITIES.indexOf(severity);
}

/** Base risk score of a severity. */
export const SEVERITY_BASE_RISK: Readonly<Record<Severity, number>> = {
  CRITICAL: 9.5,
  HIGH: 7.5,
  MEDIUM: 5.0,
  LOW: 2.5,
  INFO: 0.5,
};

/** Cloud providers. */
export const PROVIDERS = ["AWS", "AZURE", "GCP"] as const;

/** A cloud provider. */
export type CloudProvider = (typeof PROVIDERS)[number];

/** Compliance result statuses. */
export const COMPLIANCE_STATUSES = ["PASS", "FAIL", "NOT_APPLICABLE", "MANUAL"] as const;

/** A compliance result status. */
export type ComplianceStatus = (typeof COMPLIANCE_STATUSES)[number];
