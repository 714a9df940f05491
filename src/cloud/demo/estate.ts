/**
 * Casefile's demo estate: a small synthetic multi-cloud estate with fixed
 * ids and one timestamp, loaded as dataset `sample`, and `after`, the same
 * estate once the WAF web ACL (`web-acl`) and its edge are gone. Every
 * figure the documentation quotes is computed from these records.
 *
 * AWS organisation `o-sample`: prod `111111111111`, shared services
 * `222222222222`, and an external vendor `999999999999`; Azure subscription
 * `00000000-aaaa-bbbb-cccc-000000000001`; GCP project `proj-analytics`.
 *
 * @module
 */

import type { AssetType, CloudProvider, EdgeType, Severity } from "../model/enums.ts";
import type {
  Asset,
  ComplianceResult,
  DatasetRecords,
  Edge,
  EdgeInit,
  Finding,
  Json,
} from "../model/records.ts";
import { newEdge } from "../model/records.ts";

/** The one collection and detection time of the estate. */
export const DEMO_TIMESTAMP = "2026-01-15T12:00:00Z";
/** The prod AWS account. */
export const PROD_ACCOUNT = "111111111111";
/** The shared-services AWS account. */
export const SHARED_ACCOUNT = "222222222222";
/** The external vendor's AWS account. */
export const VENDOR_ACCOUNT = "999999999999";
/** The Azure subscription. */
export const AZURE_SUBSCRIPTION = "00000000-aaaa-bbbb-cccc-000000000001";
/** The GCP project. */
export const GCP_PROJECT = "proj-analytics";
/** The name of the full estate. */
export const SAMPLE_DATASET = "sample";
/** The name of the estate without the WAF. */
export const AFTER_DATASET = "after";
/** The id of the WAF web ACL that `after` lacks. */
export const WAF_ASSET_ID = "waf-web";

const EC2 = `arn:aws:ec2:us-east-1:${PROD_ACCOUNT}`;
const IAM = `arn:aws:iam::${PROD_ACCOUNT}`;
const AZ = `/subscriptions/${AZURE_SUBSCRIPTION}/resourceGroups/rg-jump/providers`;

interface AssetSpec {
  arn?: string | null;
  provider?: CloudProvider;
  region?: string;
  account?: string | null;
  exposed?: boolean;
  tags?: Record<string, string>;
  metadata?: Record<string, Json>;
}

function asset(id: string, name: string, type: AssetType, spec: AssetSpec = {}): Asset {
  return {
    id,
    arn: spec.arn === undefined ? null : spec.arn,
    name,
    asset_type: type,
    provider: spec.provider ?? "AWS",
    region: spec.region ?? "us-east-1",
    account_id: spec.account === undefined ? PROD_ACCOUNT : spec.account,
    tags: spec.tags ?? {},
    metadata: spec.metadata ?? {},
    collected_at: DEMO_TIMESTAMP,
    is_internet_exposed: spec.exposed ?? false,
  };
}

const azure = (spec: AssetSpec): AssetSpec => ({
  provider: "AZURE",
  region: "westeurope",
  account: AZURE_SUBSCRIPTION,
  ...spec,
});
const gcp = (spec: AssetSpec): AssetSpec => ({
  provider: "GCP",
  region: "europe-west1",
  account: GCP_PROJECT,
  ...spec,
});
const prodTags = (extra: Record<string, string> = {}): Record<string, string> => ({
  env: "prod",
  owner: "platform",
  ...extra,
});

function demoAssets(): Asset[] {
  return [
    // Organisation accounts.
    asset("acct-prod", "prod", "CLOUD_ACCOUNT", {
      arn: `arn:aws:organizations::${PROD_ACCOUNT}:account/o-sample/${PROD_ACCOUNT}`,
      region: "global",
      metadata: { organization_id: "o-sample", management: true },
    }),
    asset("acct-shared", "shared-services", "CLOUD_ACCOUNT", {
      arn: `arn:aws:organizations::${PROD_ACCOUNT}:account/o-sample/${SHARED_ACCOUNT}`,
      region: "global",
      account: SHARED_ACCOUNT,
      metadata: { organization_id: "o-sample" },
    }),
    asset("acct-vendor", "vendor", "CLOUD_ACCOUNT", {
      region: "global",
      account: VENDOR_ACCOUNT,
      metadata: { external: true },
    }),
    // Prod network.
    asset("vpc-prod", "prod-vpc", "VPC", {
      arn: `${EC2}:vpc/vpc-0a11b22c33d44e001`,
      tags: prodTags(),
      metadata: { cidr_block: "10.0.0.0/16" },
    }),
    asset("subnet-public", "public-a", "SUBNET", {
      arn: `${EC2}:subnet/subnet-0a1000000000000a1`,
      metadata: { vpc_id: "vpc-0a11b22c33d44e001", cidr_block: "10.0.1.0/24" },
    }),
    asset("subnet-private", "private-a", "SUBNET", {
      arn: `${EC2}:subnet/subnet-0a1000000000000a2`,
      metadata: { vpc_id: "vpc-0a11b22c33d44e001", cidr_block: "10.0.2.0/24" },
    }),
    asset("igw-prod", "prod-igw", "INTERNET_GATEWAY", {
      arn: `${EC2}:internet-gateway/igw-0a1000000000000a3`,
    }),
    asset("rtb-public", "public-routes", "ROUTE_TABLE", {
      arn: `${EC2}:route-table/rtb-0a1000000000000a4`,
    }),
    asset("sg-alb", "sg-alb", "SECURITY_GROUP", {
      arn: `${EC2}:security-group/sg-0a1000000000000b1`,
    }),
    asset("sg-web", "sg-web", "SECURITY_GROUP", {
      arn: `${EC2}:security-group/sg-0a1000000000000b2`,
    }),
    asset("sg-admin", "sg-admin", "SECURITY_GROUP", {
      arn: `${EC2}:security-group/sg-0a1000000000000b3`,
      exposed: true,
    }),
    asset("sg-db", "sg-db", "SECURITY_GROUP", {
      arn: `${EC2}:security-group/sg-0a1000000000000b4`,
    }),
    // Web tier.
    asset("alb-web", "web-alb", "LOAD_BALANCER", {
      arn:
        `arn:aws:elasticloadbalancing:us-east-1:${PROD_ACCOUNT}:loadbalancer/app/web-alb/5f1c0d3e2b4a6978`,
      exposed: true,
      tags: prodTags({ tier: "web" }),
      metadata: {
        scheme: "internet-facing",
        dns_name: "web-alb-123456.us-east-1.elb.amazonaws.com",
      },
    }),
    asset("tg-web", "web-tg", "TARGET_GROUP", {
      arn:
        `arn:aws:elasticloadbalancing:us-east-1:${PROD_ACCOUNT}:targetgroup/web-tg/0c1d2e3f4a5b6c7d`,
    }),
    asset(WAF_ASSET_ID, "web-acl", "WAF_WEB_ACL", {
      arn:
        `arn:aws:wafv2:us-east-1:${PROD_ACCOUNT}:regional/webacl/web-acl/3f2e1d0c-5a6b-4c7d-8e9f-00000000a001`,
      metadata: { default_action: "allow", rules: 4 },
    }),
    asset("web-1", "web-1", "EC2", {
      arn: `${EC2}:instance/i-0a00000000000b001`,
      tags: prodTags({ tier: "web" }),
      metadata: { private_ip: "10.0.2.11", image_id: "ami-0c0ffee000000001" },
    }),
    asset("web-2", "web-2", "EC2", {
      arn: `${EC2}:instance/i-0a00000000000b002`,
      tags: prodTags({ tier: "web" }),
      metadata: { private_ip: "10.0.2.12", image_id: "ami-0c0ffee000000001" },
    }),
    asset("bastion", "bastion", "EC2", {
      arn: `${EC2}:instance/i-0a00000000000b003`,
      exposed: true,
      tags: prodTags({ tier: "admin" }),
      metadata: { public_ip: "203.0.113.10", private_ip: "10.0.1.5" },
    }),
    // Data.
    asset("orders-db", "orders-db", "RDS_INSTANCE", {
      arn: `arn:aws:rds:us-east-1:${PROD_ACCOUNT}:db:orders-db`,
      tags: prodTags({ data: "confidential" }),
      metadata: { engine: "postgres", storage_encrypted: true, backup_retention_period: 0 },
    }),
    asset("db-secret", "orders-db-credentials", "SECRET", {
      arn: `arn:aws:secretsmanager:us-east-1:${PROD_ACCOUNT}:secret:orders-db-credentials-Q1w2E3`,
      metadata: { rotation_enabled: true },
    }),
    asset("kms-main", "kms-main", "KMS_KEY", {
      arn: `arn:aws:kms:us-east-1:${PROD_ACCOUNT}:key/1c2d3e4f-5a6b-4c7d-8e9f-000000000001`,
      metadata: { rotation_enabled: false },
    }),
    asset("data-bucket", "prod-data", "S3_BUCKET", {
      arn: "arn:aws:s3:::prod-data",
      tags: prodTags({ data: "confidential" }),
      metadata: { versioning: "Suspended", encryption: "aws:kms" },
    }),
    asset("logs-bucket", "prod-logs", "S3_BUCKET", {
      arn: "arn:aws:s3:::prod-logs",
      exposed: true,
      tags: prodTags(),
      metadata: { public_access_block: false, acl: "public-read" },
    }),
    // Serverless API.
    asset("api-gw", "public-api", "API_GATEWAY", {
      arn: "arn:aws:apigateway:us-east-1::/restapis/a1b2c3d4e5",
      metadata: { endpoint_type: "REGIONAL", access_logging: false },
    }),
    asset("api-handler", "api-handler", "LAMBDA_FUNCTION", {
      arn: `arn:aws:lambda:us-east-1:${PROD_ACCOUNT}:function:api-handler`,
      metadata: { runtime: "python3.12" },
    }),
    // Identity.
    asset("app-role", "app-role", "IAM_ROLE", { arn: `${IAM}:role/app-role`, region: "global" }),
    asset("api-lambda-role", "api-lambda-role", "IAM_ROLE", {
      arn: `${IAM}:role/api-lambda-role`,
      region: "global",
    }),
    asset("bastion-admin", "bastion-admin", "IAM_ROLE", {
      arn: `${IAM}:role/bastion-admin`,
      region: "global",
    }),
    asset("ci-user", "ci-user", "IAM_USER", { arn: `${IAM}:user/ci-user`, region: "global" }),
    asset("full-access-policy", "full-access-policy", "IAM_POLICY", {
      arn: `${IAM}:policy/full-access-policy`,
      region: "global",
      metadata: { statements: [{ effect: "Allow", action: "*", resource: "*" }] },
    }),
    asset("deploy-role", "deploy-role", "IAM_ROLE", {
      arn: `arn:aws:iam::${SHARED_ACCOUNT}:role/deploy-role`,
      region: "global",
      account: SHARED_ACCOUNT,
      metadata: { trusted_accounts: [PROD_ACCOUNT, VENDOR_ACCOUNT] },
    }),
    asset("ec2-app-profile", "ec2-app-profile", "INSTANCE_PROFILE", {
      arn: `${IAM}:instance-profile/ec2-app-profile`,
      region: "global",
    }),
    // Logging and detection.
    asset("cloudtrail", "org-trail", "CLOUDTRAIL", {
      arn: `arn:aws:cloudtrail:us-east-1:${PROD_ACCOUNT}:trail/org-trail`,
      metadata: { multi_region: true, security_service: "cloudtrail", enabled: true },
    }),
    asset("flow-log", "prod-vpc-flow", "FLOW_LOG", {
      arn: `${EC2}:vpc-flow-log/fl-0a00000000000c001`,
    }),
    asset("guardduty", "guardduty", "THREAT_DETECTOR", {
      arn: `arn:aws:guardduty:us-east-1:${PROD_ACCOUNT}:detector/4ab1c2d3e4f5a6b7c8d9e0f1a2b3c4d5`,
      metadata: { security_service: "guardduty", enabled: true },
    }),
    asset("security-alerts", "security-alerts", "NOTIFICATION_TOPIC", {
      arn: `arn:aws:sns:us-east-1:${PROD_ACCOUNT}:security-alerts`,
    }),
    // Azure jump host.
    asset(
      "az-vnet",
      "jump-vnet",
      "VNET",
      azure({
        arn: `${AZ}/Microsoft.Network/virtualNetworks/jump-vnet`,
      }),
    ),
    asset(
      "az-subnet",
      "jump-subnet",
      "SUBNET",
      azure({
        arn: `${AZ}/Microsoft.Network/virtualNetworks/jump-vnet/subnets/jump-subnet`,
      }),
    ),
    asset(
      "az-jump",
      "jump-vm",
      "VIRTUAL_MACHINE",
      azure({
        arn: `${AZ}/Microsoft.Compute/virtualMachines/jump-vm`,
        metadata: { os: "windows", public_ip: "198.51.100.20" },
      }),
    ),
    asset(
      "az-nsg",
      "az-nsg",
      "NSG",
      azure({
        arn: `${AZ}/Microsoft.Network/networkSecurityGroups/az-nsg`,
        exposed: true,
      }),
    ),
    asset(
      "az-kv",
      "jump-kv",
      "KEY_VAULT",
      azure({
        arn: `${AZ}/Microsoft.KeyVault/vaults/jump-kv`,
      }),
    ),
    // GCP analytics.
    asset(
      "gcp-gcs",
      "analytics-public",
      "GCS_BUCKET",
      gcp({
        arn: "//storage.googleapis.com/projects/_/buckets/analytics-public",
        exposed: true,
        metadata: { iam_members: ["allUsers"] },
      }),
    ),
    asset(
      "gcp-vm",
      "etl-worker",
      "GCE_INSTANCE",
      gcp({
        arn:
          `//compute.googleapis.com/projects/${GCP_PROJECT}/zones/europe-west1-b/instances/etl-worker`,
      }),
    ),
    asset(
      "gcp-sql",
      "analytics-sql",
      "CLOUD_SQL",
      gcp({
        arn: `//sqladmin.googleapis.com/projects/${GCP_PROJECT}/instances/analytics-sql`,
      }),
    ),
  ];
}

type EdgeSpec = Omit<EdgeInit, "source_id" | "target_id" | "edge_type">;

function edge(
  id: string,
  source: string,
  target: string,
  type: EdgeType,
  spec: EdgeSpec = {},
): Edge {
  return newEdge(id, { source_id: source, target_id: target, edge_type: type, ...spec });
}

const INTERNET = "0.0.0.0/0";
const tcp = (port: number, description: string): EdgeSpec => ({
  ports: [port],
  port_range: String(port),
  protocol: "TCP",
  description,
});
const fromInternet = (port: number, description: string): EdgeSpec => ({
  ...tcp(port, description),
  cidr: INTERNET,
});

function demoEdges(): Edge[] {
  return [
    edge("e01", "vpc-prod", "subnet-public", "CONTAINS"),
    edge("e02", "vpc-prod", "subnet-private", "CONTAINS"),
    edge("e03", "subnet-public", "bastion", "CONTAINS"),
    edge("e04", "subnet-public", "alb-web", "CONTAINS"),
    edge("e05", "subnet-private", "web-1", "CONTAINS"),
    edge("e06", "subnet-private", "web-2", "CONTAINS"),
    edge("e07", "subnet-private", "orders-db", "CONTAINS"),
    edge("e08", "rtb-public", "igw-prod", "ROUTE", { cidr: INTERNET }),
    edge("e09", "igw-prod", "vpc-prod", "ATTACHED_TO"),
    edge(
      "e10",
      INTERNET,
      "sg-alb",
      "SECURITY_GROUP_RULE",
      fromInternet(443, "HTTPS from anywhere"),
    ),
    edge("e11", INTERNET, "sg-admin", "SECURITY_GROUP_RULE", fromInternet(22, "SSH from anywhere")),
    edge("e12", "sg-alb", "sg-web", "SECURITY_GROUP_RULE", tcp(8080, "app port from the ALB")),
    edge("e13", "sg-web", "sg-db", "SECURITY_GROUP_RULE", tcp(5432, "postgres from web")),
    edge("e14", "alb-web", "sg-alb", "ATTACHED_TO"),
    edge("e15", "web-1", "sg-web", "ATTACHED_TO"),
    edge("e16", "web-2", "sg-web", "ATTACHED_TO"),
    edge("e17", "bastion", "sg-admin", "ATTACHED_TO"),
    edge("e18", "orders-db", "sg-db", "ATTACHED_TO"),
    edge("e19", "alb-web", "tg-web", "LOAD_BALANCER_TARGET", tcp(443, "listener")),
    edge("e20", "tg-web", "web-1", "LOAD_BALANCER_TARGET", tcp(8080, "target")),
    edge("e21", "tg-web", "web-2", "LOAD_BALANCER_TARGET", tcp(8080, "target")),
    edge("e22", WAF_ASSET_ID, "alb-web", "PROTECTS"),
    edge("e23", INTERNET, "alb-web", "INTERNET_EXPOSED", fromInternet(443, "public listener")),
    edge("e24", INTERNET, "bastion", "INTERNET_EXPOSED", fromInternet(22, "public SSH")),
    edge("e25", INTERNET, "logs-bucket", "INTERNET_EXPOSED", { description: "public-read ACL" }),
    edge("e26", "web-1", "app-role", "ASSUMES_ROLE"),
    edge("e27", "web-2", "app-role", "ASSUMES_ROLE"),
    edge("e28", "web-1", "ec2-app-profile", "ATTACHED_TO"),
    edge("e29", "ec2-app-profile", "app-role", "REFERENCES"),
    edge("e30", "bastion", "bastion-admin", "ASSUMES_ROLE"),
    edge("e31", "api-handler", "api-lambda-role", "ASSUMES_ROLE"),
    edge("e32", "bastion-admin", "full-access-policy", "IAM_POLICY_ATTACHMENT"),
    edge("e33", "ci-user", "full-access-policy", "IAM_POLICY_ATTACHMENT"),
    edge("e34", "app-role", "deploy-role", "IAM_TRUST", { properties: { cross_account: true } }),
    edge("e35", "acct-vendor", "deploy-role", "IAM_TRUST", {
      properties: { cross_account: true, external: true },
    }),
    edge("e36", "deploy-role", "data-bucket", "GRANTS_ACCESS", {
      description: "s3:PutObject",
      properties: { cross_account: true },
    }),
    edge("e37", "app-role", "data-bucket", "GRANTS_ACCESS", { description: "s3:GetObject" }),
    edge("e38", "app-role", "db-secret", "GRANTS_ACCESS", {
      description: "secretsmanager:GetSecretValue",
    }),
    edge("e39", "orders-db", "kms-main", "REFERENCES", { description: "storage encryption" }),
    edge("e40", "data-bucket", "kms-main", "REFERENCES", { description: "default encryption" }),
    edge("e41", "db-secret", "orders-db", "REFERENCES", { description: "credentials for" }),
    edge("e42", "api-gw", "api-handler", "INVOKES"),
    edge("e43", "api-handler", "db-secret", "REFERENCES"),
    edge("e44", "cloudtrail", "logs-bucket", "LOGS_TO"),
    edge("e45", "flow-log", "logs-bucket", "LOGS_TO"),
    edge("e46", "alb-web", "logs-bucket", "LOGS_TO"),
    edge("e47", "guardduty", "acct-prod", "MONITORS"),
    edge("e48", "guardduty", "security-alerts", "REFERENCES", {
      description: "publishes findings",
    }),
    edge("e49", "az-vnet", "az-subnet", "CONTAINS"),
    edge("e50", "az-subnet", "az-jump", "CONTAINS"),
    edge("e51", "az-jump", "az-nsg", "ATTACHED_TO"),
    edge("e52", INTERNET, "az-nsg", "SECURITY_GROUP_RULE", {
      ...fromInternet(3389, "RDP from anywhere"),
      protocol: "TCP",
    }),
    edge("e53", "az-jump", "az-kv", "REFERENCES"),
    edge("e54", INTERNET, "gcp-gcs", "INTERNET_EXPOSED", { description: "allUsers reader" }),
    edge("e55", "gcp-vm", "gcp-gcs", "GRANTS_ACCESS", { description: "storage.objects.get" }),
    edge("e56", "gcp-vm", "gcp-sql", "REFERENCES"),
  ];
}

interface FindingSpec {
  resource: string;
  /** The resource's ARN; by default `resource` when that is an ARN, else null. */
  arn?: string | null;
  title: string;
  tool: string;
  frameworks?: string[];
  cvss?: number;
  suppressed?: boolean;
  remediation: string;
  description: string;
  evidence: string;
}

function finding(id: string, severity: Severity, spec: FindingSpec): Finding {
  return {
    id,
    resource_id: spec.resource,
    resource_arn: spec.arn !== undefined
      ? spec.arn
      : spec.resource.startsWith("arn:")
      ? spec.resource
      : null,
    severity,
    title: spec.title,
    description: spec.description,
    evidence: spec.evidence,
    remediation: spec.remediation,
    source_tool: spec.tool,
    source_finding_id: `${spec.tool}:${id.slice(2)}`,
    compliance_frameworks: spec.frameworks ?? [],
    cvss_score: spec.cvss ?? null,
    detected_at: DEMO_TIMESTAMP,
    is_suppressed: spec.suppressed ?? false,
  };
}

function demoFindings(): Finding[] {
  return [
    finding("f-ssh-open", "CRITICAL", {
      resource: `${EC2}:security-group/sg-0a1000000000000b3`,
      title: "Security group allows SSH from the whole internet",
      tool: "prowler",
      frameworks: ["CIS-AWS", "PCI-DSS"],
      description: "Port 22 is open to 0.0.0.0/0 on the admin security group.",
      evidence: "ingress tcp/22 from 0.0.0.0/0",
      remediation: "Limit SSH to the corporate range or replace it with Session Manager.",
    }),
    finding("f-rdp-open", "CRITICAL", {
      resource: `${AZ}/Microsoft.Network/networkSecurityGroups/az-nsg`,
      title: "Network security group allows RDP from the internet",
      tool: "scoutsuite",
      frameworks: ["CIS-Azure"],
      description: "An inbound rule admits TCP 3389 from any source.",
      evidence: "inbound allow tcp/3389 from *",
      remediation: "Remove the rule and reach the jump host through Azure Bastion.",
    }),
    finding("f-web-cve", "HIGH", {
      resource: "i-0a00000000000b001",
      title: "Web server package with a known remote-code-execution CVE",
      tool: "trivy",
      cvss: 8.1,
      description: "The web server image ships a library with a published critical advisory.",
      evidence: "CVE-2025-0001 in libexample 1.2.3",
      remediation: "Rebuild the image with the fixed library version and redeploy both hosts.",
    }),
    finding("f-logs-public", "HIGH", {
      resource: "arn:aws:s3:::prod-logs",
      title: "Log bucket readable by anyone",
      tool: "prowler",
      frameworks: ["CIS-AWS"],
      description: "The bucket ACL grants public read and block-public-access is off.",
      evidence: "acl public-read; public access block disabled",
      remediation: "Enable block public access and drop the public ACL grant.",
    }),
    finding("f-admin-policy", "HIGH", {
      resource: `${IAM}:policy/full-access-policy`,
      title: "Customer policy grants full administrative access",
      tool: "prowler",
      frameworks: ["CIS-AWS"],
      description: "A managed policy allows every action on every resource and is attached.",
      evidence: "Allow * on *",
      remediation: "Replace the policy with least-privilege policies per duty.",
    }),
    finding("f-gcs-public", "HIGH", {
      resource: "analytics-public",
      title: "Storage bucket open to allUsers",
      tool: "scoutsuite",
      frameworks: ["CIS-GCP"],
      description: "The bucket IAM policy lets anyone read objects.",
      evidence: "roles/storage.objectViewer granted to allUsers",
      remediation: "Remove allUsers and allAuthenticatedUsers bindings.",
    }),
    finding("f-lambda-secret", "HIGH", {
      resource: `arn:aws:lambda:us-east-1:${PROD_ACCOUNT}:function:api-handler`,
      title: "Function environment holds a plaintext credential",
      tool: "checkov",
      description: "An environment variable of the function carries a static access key.",
      evidence: "environment variable named like an access key",
      remediation: "Read the credential from the secret at run time and rotate it.",
    }),
    finding("f-vendor-trust", "MEDIUM", {
      resource: `arn:aws:iam::${SHARED_ACCOUNT}:role/deploy-role`,
      title: "Role trusted by an external account without an external id",
      tool: "iam",
      description: "The trust policy lets the vendor account assume the role unconditionally.",
      evidence: "Principal arn:aws:iam::999999999999:root, no sts:ExternalId condition",
      remediation: "Require an external id and narrow the role's permissions.",
    }),
    finding("f-db-backup", "MEDIUM", {
      resource: `arn:aws:rds:us-east-1:${PROD_ACCOUNT}:db:orders-db`,
      title: "Database has automated backups turned off",
      tool: "prowler",
      frameworks: ["NIST-800-53"],
      description: "The backup retention period is zero days.",
      evidence: "backup_retention_period = 0",
      remediation: "Set a retention period of at least seven days.",
    }),
    finding("f-ghost", "LOW", {
      resource: "arn:aws:s3:::ghost-bucket",
      title: "Bucket access logging disabled",
      tool: "prowler",
      description: "Server access logging is off for a bucket that was not collected.",
      evidence: "logging not configured",
      remediation: "Turn on server access logging to the log bucket.",
    }),
    finding("f-api-logging", "INFO", {
      resource: "arn:aws:apigateway:us-east-1::/restapis/a1b2c3d4e5",
      title: "API stage without access logging",
      tool: "prowler",
      description: "The stage writes no access log.",
      evidence: "accessLogSettings absent",
      remediation: "Send access logs to a log group.",
    }),
    finding("f-versioning", "LOW", {
      resource: "arn:aws:s3:::prod-data",
      title: "Bucket versioning suspended",
      tool: "prowler",
      suppressed: true,
      description: "Object versioning is suspended on the data bucket.",
      evidence: "versioning Suspended",
      remediation: "Enable versioning, or accept the risk where replication covers it.",
    }),
  ];
}

function result(
  framework: string,
  controlId: string,
  title: string,
  status: ComplianceResult["status"],
  findingIds: string[],
  resourceArn: string | null,
): ComplianceResult {
  return {
    id: `cr-${framework.toLowerCase()}-${controlId}`,
    framework,
    control_id: controlId,
    control_title: title,
    status,
    finding_ids: findingIds,
    resource_arn: resourceArn,
  };
}

function demoCompliance(): ComplianceResult[] {
  return [
    result(
      "CIS-AWS",
      "5.2",
      "No security group admits remote administration ports from 0.0.0.0/0",
      "FAIL",
      ["f-ssh-open"],
      `${EC2}:security-group/sg-0a1000000000000b3`,
    ),
    result(
      "CIS-AWS",
      "2.1.4",
      "S3 buckets block public access",
      "FAIL",
      ["f-logs-public"],
      "arn:aws:s3:::prod-logs",
    ),
    result(
      "CIS-AWS",
      "1.16",
      "No attached policy grants full administrative privileges",
      "FAIL",
      ["f-admin-policy"],
      `${IAM}:policy/full-access-policy`,
    ),
    result(
      "CIS-AWS",
      "3.1",
      "CloudTrail records in every region",
      "PASS",
      [],
      `arn:aws:cloudtrail:us-east-1:${PROD_ACCOUNT}:trail/org-trail`,
    ),
    result(
      "PCI-DSS",
      "1.3.1",
      "Inbound traffic to the cardholder environment is restricted",
      "FAIL",
      ["f-ssh-open"],
      `${EC2}:security-group/sg-0a1000000000000b3`,
    ),
    result(
      "NIST-800-53",
      "CP-9",
      "System backup",
      "FAIL",
      ["f-db-backup"],
      `arn:aws:rds:us-east-1:${PROD_ACCOUNT}:db:orders-db`,
    ),
    result(
      "CIS-Azure",
      "6.1",
      "RDP access from the internet is restricted",
      "FAIL",
      ["f-rdp-open"],
      `${AZ}/Microsoft.Network/networkSecurityGroups/az-nsg`,
    ),
    result(
      "CIS-GCP",
      "5.1",
      "Cloud Storage buckets are not anonymously or publicly accessible",
      "FAIL",
      ["f-gcs-public"],
      "//storage.googleapis.com/projects/_/buckets/analytics-public",
    ),
  ];
}

function demoOrganization(): Json {
  return {
    id: "o-sample",
    arn: `arn:aws:organizations::${PROD_ACCOUNT}:organization/o-sample`,
    management_account_id: PROD_ACCOUNT,
    root_id: "r-sam1",
    accounts: [
      { id: PROD_ACCOUNT, name: "prod", parent: "ou-sam1-workloads", status: "ACTIVE" },
      { id: SHARED_ACCOUNT, name: "shared-services", parent: "ou-sam1-infra", status: "ACTIVE" },
    ],
    ous: [
      { id: "ou-sam1-workloads", name: "Workloads", parent: "r-sam1" },
      { id: "ou-sam1-infra", name: "Infrastructure", parent: "r-sam1" },
    ],
    policies: [{
      id: "p-regions01",
      name: "deny-unapproved-regions",
      type: "SERVICE_CONTROL_POLICY",
      targets: ["r-sam1"],
    }],
    control_tower: { enabled: true, home_region: "us-east-1" },
    governed_regions: ["us-east-1", "eu-west-1"],
  };
}

/** The full demo estate: 44 assets, 56 edges, 12 findings, 8 compliance results. */
export function sampleRecords(): DatasetRecords {
  return {
    assets: demoAssets(),
    edges: demoEdges(),
    findings: demoFindings(),
    compliance: demoCompliance(),
    unresolved_references: [{
      source_id: "api-handler",
      field: "dead_letter_config.target_arn",
      reference: `arn:aws:sqs:us-east-1:${PROD_ACCOUNT}:dead-letter-queue`,
      reason: "no collected asset has this ARN",
    }],
    organization: demoOrganization(),
    coverage: [{
      provider: "AWS",
      account_id: PROD_ACCOUNT,
      region: "us-east-1",
      service: "ec2",
      status: "success",
      resources: 17,
      collected_at: DEMO_TIMESTAMP,
    }],
    providers: ["AWS", "AZURE", "GCP"],
    regions: ["us-east-1", "westeurope", "europe-west1"],
    suppression_reasons: {
      "f-versioning": "Accepted risk: the bucket is replicated nightly to a versioned copy.",
    },
  };
}

/** The demo estate once the WAF web ACL and its edge are gone. */
export function afterRecords(): DatasetRecords {
  const records = sampleRecords();
  records.assets = records.assets.filter((a) => a.id !== WAF_ASSET_ID);
  records.edges = records.edges.filter((e) =>
    e.source_id !== WAF_ASSET_ID && e.target_id !== WAF_ASSET_ID
  );
  return records;
}
