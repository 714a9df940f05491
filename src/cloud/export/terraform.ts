/**
 * Terraform mapping of dataset assets: which resource type of the `aws`,
 * `azurerm` or `google` provider an asset would be managed as, the id
 * `terraform import` needs for it, and the files `export_terraform` writes
 * (`provider.tf.json`, `variables.tf.json`, `main.tf.json` in Terraform's
 * JSON syntax, and `import_commands.sh`). The resource blocks are import
 * skeletons: the identifying arguments and tags known from the dataset, to be
 * completed after `terraform import` and checked with `terraform plan`.
 *
 * @module
 */

import { ASSET_TYPES, type AssetType, type CloudProvider } from "../model/enums.ts";
import { InvalidArgumentError } from "../model/errors.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { type Asset, displayId, type Json } from "../model/records.ts";
import { arnResourcePart, resolveAsset } from "../model/references.ts";
import type { DatasetView } from "../model/view.ts";
import type { ExportFile } from "./output_dir.ts";

/** How the import id of a resource type is derived from the asset. */
type ImportIdRule =
  | "arn" // the ARN (or full cloud id) itself
  | "name" // the asset name
  | "last" // the last `/` or `:` segment of the ARN resource part (i-…, vpc-…, key id)
  | "account" // the account id
  | "waf" // aws_wafv2_web_acl: ID/NAME/SCOPE
  | "google"; // the cloud id without its //service.googleapis.com/ prefix

/** One mapping row. */
interface TerraformMapping {
  /** The Terraform resource type. */
  type: string;
  /** How its import id is derived. */
  importId: ImportIdRule;
  /** The argument that carries the asset name, if any. */
  nameArgument?: string;
  /** Whether the resource takes `tags` (aws, azurerm) or `labels` (google). @default true */
  tags?: boolean;
}

const m = (
  type: string,
  importId: ImportIdRule,
  nameArgument?: string,
  tags = true,
): TerraformMapping =>
  nameArgument === undefined ? { type, importId, tags } : { type, importId, nameArgument, tags };

/** The AWS provider's resource types by asset type. */
const AWS: Partial<Record<AssetType, TerraformMapping>> = {
  EC2: m("aws_instance", "last"),
  LAMBDA_FUNCTION: m("aws_lambda_function", "name", "function_name"),
  ECS_CLUSTER: m("aws_ecs_cluster", "name", "name"),
  EKS_CLUSTER: m("aws_eks_cluster", "name", "name"),
  VPC: m("aws_vpc", "last"),
  SUBNET: m("aws_subnet", "last"),
  SECURITY_GROUP: m("aws_security_group", "last", "name"),
  NACL: m("aws_network_acl", "last"),
  ROUTE_TABLE: m("aws_route_table", "last"),
  INTERNET_GATEWAY: m("aws_internet_gateway", "last"),
  NAT_GATEWAY: m("aws_nat_gateway", "last"),
  LOAD_BALANCER: m("aws_lb", "arn", "name"),
  CLOUDFRONT: m("aws_cloudfront_distribution", "last"),
  TRANSIT_GATEWAY: m("aws_ec2_transit_gateway", "last"),
  PEERING_CONNECTION: m("aws_vpc_peering_connection", "last"),
  ELASTIC_IP: m("aws_eip", "last"),
  NETWORK_INTERFACE: m("aws_network_interface", "last"),
  S3_BUCKET: m("aws_s3_bucket", "name", "bucket"),
  EBS_VOLUME: m("aws_ebs_volume", "last"),
  RDS_INSTANCE: m("aws_db_instance", "name", "identifier"),
  AURORA_CLUSTER: m("aws_rds_cluster", "name", "cluster_identifier"),
  DYNAMODB_TABLE: m("aws_dynamodb_table", "name", "name"),
  IAM_USER: m("aws_iam_user", "name", "name"),
  IAM_ROLE: m("aws_iam_role", "name", "name"),
  IAM_POLICY: m("aws_iam_policy", "arn", "name"),
  IAM_GROUP: m("aws_iam_group", "name", "name", false),
  INSTANCE_PROFILE: m("aws_iam_instance_profile", "name", "name"),
  KMS_KEY: m("aws_kms_key", "last"),
  SECRET: m("aws_secretsmanager_secret", "arn", "name"),
  CERTIFICATE: m("aws_acm_certificate", "arn"),
  CLOUDTRAIL: m("aws_cloudtrail", "name", "name"),
  FLOW_LOG: m("aws_flow_log", "last"),
  LOG_GROUP: m("aws_cloudwatch_log_group", "name", "name"),
  CONTAINER_REGISTRY: m("aws_ecr_repository", "name", "name"),
  AUTOSCALING_GROUP: m("aws_autoscaling_group", "name", "name", false),
  LAUNCH_TEMPLATE: m("aws_launch_template", "last", "name"),
  TARGET_GROUP: m("aws_lb_target_group", "arn", "name"),
  LB_LISTENER: m("aws_lb_listener", "arn"),
  API_GATEWAY: m("aws_api_gateway_rest_api", "last", "name"),
  VPC_ENDPOINT: m("aws_vpc_endpoint", "last"),
  NOTIFICATION_TOPIC: m("aws_sns_topic", "arn", "name"),
  EVENT_BUS: m("aws_cloudwatch_event_bus", "name", "name"),
  STATE_MACHINE: m("aws_sfn_state_machine", "arn", "name"),
  DATA_STREAM: m("aws_kinesis_stream", "name", "name"),
  CACHE_CLUSTER: m("aws_elasticache_cluster", "name", "cluster_id"),
  SEARCH_DOMAIN: m("aws_opensearch_domain", "name", "domain_name"),
  DATA_WAREHOUSE: m("aws_redshift_cluster", "name", "cluster_identifier"),
  FILE_SYSTEM: m("aws_efs_file_system", "last"),
  DNS_ZONE: m("aws_route53_zone", "last", "name"),
  IAC_STACK: m("aws_cloudformation_stack", "name", "name"),
  WAF_WEB_ACL: m("aws_wafv2_web_acl", "waf", "name"),
  NETWORK_FIREWALL: m("aws_networkfirewall_firewall", "arn", "name"),
  THREAT_DETECTOR: m("aws_guardduty_detector", "last"),
  SECURITY_HUB: m("aws_securityhub_account", "account", undefined, false),
  CONFIG_RECORDER: m("aws_config_configuration_recorder", "name", "name", false),
  ACCESS_ANALYZER: m("aws_accessanalyzer_analyzer", "name", "analyzer_name"),
  CLOUD_ACCOUNT: m("aws_organizations_account", "account", "name"),
  ORG_UNIT: m("aws_organizations_organizational_unit", "last", "name"),
  ORG_POLICY: m("aws_organizations_policy", "last", "name"),
  USER_POOL: m("aws_cognito_user_pool", "last", "name"),
  BACKUP_VAULT: m("aws_backup_vault", "name", "name"),
  VPN_CONNECTION: m("aws_vpn_connection", "last"),
  VPN_GATEWAY: m("aws_vpn_gateway", "last"),
  CUSTOMER_GATEWAY: m("aws_customer_gateway", "last"),
  ALARM: m("aws_cloudwatch_metric_alarm", "name", "alarm_name"),
  PARAMETER: m("aws_ssm_parameter", "name", "name"),
  DELIVERY_STREAM: m("aws_kinesis_firehose_delivery_stream", "arn", "name"),
  MACHINE_IMAGE: m("aws_ami", "last", "name"),
};

/** The azurerm provider's resource types (imported by their full resource id). */
const AZURE: Partial<Record<AssetType, TerraformMapping>> = {
  VIRTUAL_MACHINE: m("azurerm_linux_virtual_machine", "arn", "name"),
  VNET: m("azurerm_virtual_network", "arn", "name"),
  SUBNET: m("azurerm_subnet", "arn", "name", false),
  NSG: m("azurerm_network_security_group", "arn", "name"),
  KEY_VAULT: m("azurerm_key_vault", "arn", "name"),
  BLOB_STORAGE: m("azurerm_storage_account", "arn", "name"),
  AZURE_SQL: m("azurerm_mssql_server", "arn", "name"),
  AKS_CLUSTER: m("azurerm_kubernetes_cluster", "arn", "name"),
  APP_SERVICE: m("azurerm_linux_web_app", "arn", "name"),
  RESOURCE_GROUP: m("azurerm_resource_group", "arn", "name"),
  LOAD_BALANCER: m("azurerm_lb", "arn", "name"),
  NETWORK_INTERFACE: m("azurerm_network_interface", "arn", "name"),
  ELASTIC_IP: m("azurerm_public_ip", "arn", "name"),
  CONTAINER_REGISTRY: m("azurerm_container_registry", "arn", "name"),
};

/** The google provider's resource types. */
const GCP: Partial<Record<AssetType, TerraformMapping>> = {
  GCE_INSTANCE: m("google_compute_instance", "google", "name"),
  GCS_BUCKET: m("google_storage_bucket", "name", "name"),
  CLOUD_SQL: m("google_sql_database_instance", "google", "name", false),
  GKE_CLUSTER: m("google_container_cluster", "google", "name"),
  CLOUD_FUNCTION: m("google_cloudfunctions_function", "google", "name"),
  VPC: m("google_compute_network", "google", "name", false),
  SUBNET: m("google_compute_subnetwork", "google", "name", false),
  KMS_KEY: m("google_kms_crypto_key", "google", "name"),
  SERVICE_PRINCIPAL: m("google_service_account", "google", undefined, false),
};

const BY_PROVIDER: Record<CloudProvider, Partial<Record<AssetType, TerraformMapping>>> = {
  AWS,
  AZURE,
  GCP,
};

/** The Terraform provider (registry name) of each cloud provider. */
export const TERRAFORM_PROVIDERS: Readonly<Record<CloudProvider, string>> = {
  AWS: "aws",
  AZURE: "azurerm",
  GCP: "google",
};

/** The Terraform resource type an asset maps to, or null when it has none here. */
export function terraformType(
  asset: Pick<Asset, "provider" | "asset_type" | "metadata">,
): string | null {
  const mapping = BY_PROVIDER[asset.provider]?.[asset.asset_type];
  if (!mapping) return null;
  if (mapping.type === "azurerm_linux_virtual_machine" && isWindows(asset.metadata)) {
    return "azurerm_windows_virtual_machine";
  }
  return mapping.type;
}

function isWindows(metadata: Record<string, Json>): boolean {
  const os = metadata["os"] ?? metadata["os_type"];
  return typeof os === "string" && os.toLowerCase().startsWith("windows");
}

function lastSegment(asset: Asset): string {
  const resourceId = asset.metadata["resource_id"];
  if (typeof resourceId === "string" && resourceId !== "") return resourceId;
  if (!asset.arn) return asset.id;
  const part = arnResourcePart(asset.arn) ?? asset.arn;
  const segments = part.split(/[/:]/).filter((s) => s !== "");
  return segments[segments.length - 1] ?? asset.id;
}

/** The id `terraform import` takes for an asset of a mapped type. */
function importIdOf(asset: Asset, mapping: TerraformMapping): string {
  switch (mapping.importId) {
    case "arn":
      return asset.arn ?? asset.id;
    case "name":
      return asset.name;
    case "last":
      return lastSegment(asset);
    case "account":
      return asset.account_id ?? asset.id;
    case "google":
      return (asset.arn ?? asset.id).replace(/^\/\/[a-z0-9.-]+\.googleapis\.com\//, "");
    case "waf": {
      const scope = asset.arn?.includes(":global/") ? "CLOUDFRONT" : "REGIONAL";
      return `${lastSegment(asset)}/${asset.name}/${scope}`;
    }
  }
}

/** One planned resource. */
export interface TerraformResource {
  asset_id: string;
  display_id: string;
  name: string;
  asset_type: AssetType;
  provider: CloudProvider;
  terraform_type: string;
  /** `type.name`, unique in the plan. */
  address: string;
  import_id: string;
}

/** The mapped/unmapped split of a selection. */
export interface TerraformPlan {
  dataset: string;
  /** Assets selected. */
  selected: number;
  /** Assets with a Terraform type. */
  mapped: number;
  /** Assets without one. */
  unmapped: number;
  /** Resources per Terraform type, most first then by name. */
  by_type: { terraform_type: string; count: number }[];
  /** Unmapped assets per provider and asset type, most first. */
  unmapped_types: { provider: CloudProvider; asset_type: AssetType; count: number }[];
  /** Terraform providers needed, in aws, azurerm, google order. */
  providers: string[];
  /** The resources, in dataset order. */
  resources: TerraformResource[];
}

/** Which assets to map. */
export interface TerraformSelection {
  /** Asset references (id, ARN, name…); empty: every asset. @default [] */
  refs?: readonly string[];
  /** Asset types (any case) the selection is narrowed to; empty: every type. @default [] */
  assetTypes?: readonly string[];
}

function resourceName(text: string): string {
  let name = text.toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  if (name === "") name = "resource";
  if (!/^[a-z_]/.test(name)) name = `r_${name}`;
  return name.slice(0, 64);
}

/**
 * Maps the selected assets: `refs` picks assets (each resolved like every
 * other asset reference; an unknown one throws with suggestions), and
 * `assetTypes` keeps only those types (of the picked assets, or of every
 * asset when no ref is given). Assets marked `metadata.external` (another
 * party's account or resource) are never mapped.
 */
export function terraformPlan(
  view: DatasetView,
  selection: TerraformSelection = {},
): TerraformPlan {
  const refs = selection.refs ?? [];
  const types = new Set(
    (selection.assetTypes ?? []).map((t) => parseEnum(t, ASSET_TYPES, { label: "asset type" })),
  );
  let assets: Asset[];
  if (refs.length > 0) {
    const seen = new Set<string>();
    assets = [];
    for (const ref of refs) {
      const asset = resolveAsset(view, ref);
      if (!seen.has(asset.id)) {
        seen.add(asset.id);
        assets.push(asset);
      }
    }
  } else {
    assets = [...view.records.assets];
  }
  if (types.size > 0) assets = assets.filter((a) => types.has(a.asset_type));
  const resources: TerraformResource[] = [];
  const used = new Set<string>();
  const byType = new Map<string, number>();
  const unmapped = new Map<
    string,
    { provider: CloudProvider; asset_type: AssetType; count: number }
  >();
  for (const asset of assets) {
    const mapping = BY_PROVIDER[asset.provider]?.[asset.asset_type];
    const type = terraformType(asset);
    if (!mapping || type === null || asset.metadata["external"] === true) {
      const key = `${asset.provider}:${asset.asset_type}`;
      const row = unmapped.get(key) ??
        { provider: asset.provider, asset_type: asset.asset_type, count: 0 };
      row.count++;
      unmapped.set(key, row);
      continue;
    }
    const base = resourceName(asset.name || asset.id);
    let name = base;
    for (let n = 2; used.has(`${type}.${name}`); n++) name = `${base}_${n}`;
    used.add(`${type}.${name}`);
    byType.set(type, (byType.get(type) ?? 0) + 1);
    resources.push({
      asset_id: asset.id,
      display_id: displayId(asset),
      name: asset.name,
      asset_type: asset.asset_type,
      provider: asset.provider,
      terraform_type: type,
      address: `${type}.${name}`,
      import_id: importIdOf(asset, mapping),
    });
  }
  const providers = (["AWS", "AZURE", "GCP"] as const)
    .filter((p) => resources.some((r) => r.provider === p))
    .map((p) => TERRAFORM_PROVIDERS[p]);
  return {
    dataset: view.name,
    selected: assets.length,
    mapped: resources.length,
    unmapped: assets.length - resources.length,
    by_type: [...byType].map(([terraform_type, count]) => ({ terraform_type, count }))
      .sort((a, b) => b.count - a.count || (a.terraform_type < b.terraform_type ? -1 : 1)),
    unmapped_types: [...unmapped.values()].sort((a, b) =>
      b.count - a.count ||
      (`${a.provider}:${a.asset_type}` < `${b.provider}:${b.asset_type}` ? -1 : 1)
    ),
    providers,
    resources,
  };
}

/** Single-quotes a word for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function resourceBody(view: DatasetView, resource: TerraformResource): Record<string, Json> {
  const asset = view.asset(resource.asset_id);
  const mapping = asset ? BY_PROVIDER[asset.provider]?.[asset.asset_type] : undefined;
  const body: Record<string, Json> = {
    "//": `From dataset ${view.name}: asset ${resource.asset_id} (${resource.display_id}). ` +
      `Import it with import_commands.sh, then complete the arguments until terraform plan shows no change.`,
  };
  if (mapping?.nameArgument && asset) body[mapping.nameArgument] = asset.name;
  if (asset && mapping?.tags !== false && Object.keys(asset.tags).length > 0) {
    body[asset.provider === "GCP" ? "labels" : "tags"] = { ...asset.tags };
  }
  if (asset?.provider === "AZURE" && mapping?.nameArgument) {
    const group = /\/resourceGroups\/([^/]+)/i.exec(asset.arn ?? "")?.[1];
    if (group) body["resource_group_name"] = group;
    if (asset.region && asset.region !== "global" && mapping.tags !== false) {
      body["location"] = asset.region;
    }
  }
  body["lifecycle"] = { prevent_destroy: true };
  return body;
}

/**
 * The four Terraform files of a plan: providers with their sources, the
 * region/project variables, the resource skeletons, and a shell script of
 * `terraform import` commands (one per resource, quoted for the shell).
 */
export function terraformFiles(view: DatasetView, plan: TerraformPlan): ExportFile[] {
  const regionOf = (provider: CloudProvider): string => {
    const counts = new Map<string, number>();
    for (const r of plan.resources) {
      const asset = view.asset(r.asset_id);
      if (r.provider === provider && asset && asset.region !== "global") {
        counts.set(asset.region, (counts.get(asset.region) ?? 0) + 1);
      }
    }
    return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? "";
  };
  const has = (provider: CloudProvider): boolean =>
    plan.resources.some((r) => r.provider === provider);
  const required: Record<string, Json> = {};
  const providerBlocks: Record<string, Json> = {};
  const variables: Record<string, Json> = {};
  if (has("AWS")) {
    required["aws"] = { source: "hashicorp/aws", version: ">= 5.0" };
    providerBlocks["aws"] = [{ region: "${var.aws_region}" }];
    variables["aws_region"] = {
      type: "string",
      description: "AWS region of the imported resources.",
      default: regionOf("AWS") || "us-east-1",
    };
  }
  if (has("AZURE")) {
    required["azurerm"] = { source: "hashicorp/azurerm", version: ">= 3.0" };
    providerBlocks["azurerm"] = [{
      features: [{}],
      subscription_id: "${var.azure_subscription_id}",
    }];
    const subscription = plan.resources.find((r) => r.provider === "AZURE");
    variables["azure_subscription_id"] = {
      type: "string",
      description: "Azure subscription of the imported resources.",
      default: (subscription && view.asset(subscription.asset_id)?.account_id) ?? "",
    };
  }
  if (has("GCP")) {
    required["google"] = { source: "hashicorp/google", version: ">= 5.0" };
    providerBlocks["google"] = [{ project: "${var.gcp_project}", region: "${var.gcp_region}" }];
    const project = plan.resources.find((r) => r.provider === "GCP");
    variables["gcp_project"] = {
      type: "string",
      description: "GCP project of the imported resources.",
      default: (project && view.asset(project.asset_id)?.account_id) ?? "",
    };
    variables["gcp_region"] = {
      type: "string",
      description: "GCP region of the imported resources.",
      default: regionOf("GCP") || "us-central1",
    };
  }
  const resources: Record<string, Record<string, Json>> = {};
  for (const resource of plan.resources) {
    const name = resource.address.slice(resource.terraform_type.length + 1);
    (resources[resource.terraform_type] ??= {})[name] = resourceBody(view, resource);
  }
  const script = [
    "#!/bin/sh",
    `# terraform import commands for ${plan.mapped} resources of dataset ${view.name}.`,
    "# Run from this directory after terraform init. Each id is quoted for the shell.",
    "set -eu",
    ...plan.resources.map((r) =>
      `terraform import ${shellQuote(r.address)} ${shellQuote(r.import_id)}`
    ),
    "",
  ].join("\n");
  const pretty = (value: unknown): string => JSON.stringify(value, null, 2) + "\n";
  return [
    {
      name: "provider.tf.json",
      content: pretty({
        terraform: { required_version: ">= 1.3", required_providers: required },
        provider: providerBlocks,
      }),
    },
    { name: "variables.tf.json", content: pretty({ variable: variables }) },
    { name: "main.tf.json", content: pretty({ resource: resources }) },
    { name: "import_commands.sh", content: script, mode: 0o755 },
  ];
}

/** Refuses an empty plan with a sentence saying what to change. */
export function requireMapped(plan: TerraformPlan): TerraformPlan {
  if (plan.mapped === 0) {
    throw new InvalidArgumentError(
      "None of the selected assets maps to a Terraform resource type; pick other refs or asset types (terraform_preview shows the mapping).",
      { dataset: plan.dataset, selected: plan.selected },
    );
  }
  return plan;
}
