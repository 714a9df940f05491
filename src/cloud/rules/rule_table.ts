/**
 * Casefile's own rule set, as data: each rule has a stable id, severity,
 * title, remediation, coarse compliance tags, the Prowler checks it is
 * equivalent to (from which its CIS control mapping is derived, see
 * `cis_mapping.ts`), the assets it applies to and the test that fails them.
 *
 * Rules read normalised facts that importers put in asset metadata:
 * `internet_ingress` (edges), `public_access`, `public_access_block`,
 * `encrypted`, `publicly_accessible`, `policy_document`, `inline_policies`,
 * `trust_policy`, `resource_policy`, `root_access_keys_active`,
 * `root_mfa_active`, `password_enabled`, `mfa_active`,
 * `direct_policy_attachment`, `multi_region`, `log_file_validation`,
 * `logging_enabled`, `rotation_enabled`, `key_spec`, `key_enabled`,
 * `flow_logs`, `imdsv2_required`, `default_group`, `rule_count`, `entries`.
 *
 * @module
 */

import type { AssetType, CloudProvider, Severity } from "../model/enums.ts";
import type { Asset, Edge, Json } from "../model/records.ts";
import { rangeCovers } from "../importers/records_builder.ts";
import {
  allowsAnyone,
  exfiltrationActions,
  isWildcardAdmin,
  parsePolicy,
  privilegeEscalations,
  trustedPrincipals,
} from "../importers/iam_policy.ts";

/** What a rule sees besides the asset: the edges into it. */
export interface RuleContext {
  /** Edges whose target is the asset. */
  incoming(assetId: string): readonly Edge[];
}

/** One rule. */
export interface RuleDefinition {
  /** Stable id, the prefix of every finding id it produces. */
  id: string;
  severity: Severity;
  title: string;
  description: string;
  remediation: string;
  /** Coarse framework tags attached to findings (besides derived CIS frameworks). */
  compliance: string[];
  /** Prowler check ids this rule is equivalent to (the basis of its CIS mapping). */
  prowler_checks: string[];
  /** Asset types the rule looks at. */
  asset_types: readonly AssetType[];
  /** Providers the rule looks at. */
  providers: readonly CloudProvider[];
  /** Whether the asset holds the facts the rule needs (else not evaluated). */
  applies(asset: Asset, ctx: RuleContext): boolean;
  /** Evidence when the asset fails the rule, else null. */
  check(asset: Asset, ctx: RuleContext): string | null;
  /**
   * Whether an asset that fails the rule fails CIS control `control` of
   * `framework` too, when the control asks for less than the rule (by
   * default every mapped control fails with it).
   */
  failsControl?(framework: string, control: string, asset: Asset, ctx: RuleContext): boolean;
}

const GROUP_TYPES: readonly AssetType[] = ["SECURITY_GROUP", "NSG"];
const BUCKET_TYPES: readonly AssetType[] = ["S3_BUCKET", "GCS_BUCKET", "BLOB_STORAGE"];
const DB_TYPES: readonly AssetType[] = ["RDS_INSTANCE", "AURORA_CLUSTER", "CLOUD_SQL", "AZURE_SQL"];
const ALL: readonly CloudProvider[] = ["AWS", "AZURE", "GCP"];

function openIngress(asset: Asset, ctx: RuleContext, port: number | null): Edge[] {
  return ctx.incoming(asset.id).filter((e) =>
    e.edge_type === "SECURITY_GROUP_RULE" && e.direction === "ingress" &&
    e.properties.internet === true &&
    (e.protocol === "ALL" || e.protocol === "TCP") &&
    (port === null ? e.port_range === "*" : rangeCovers(e.port_range, port))
  );
}

/**
 * CIS AWS splits internet ingress by address family: 5.2 is about `0.0.0.0/0`, 5.3 about `::/0`.
 * An open rule fails the one its open sources belong to (`*` and Azure's `Internet` are both).
 */
function failsByFamily(port: number | null): NonNullable<RuleDefinition["failsControl"]> {
  return (framework: string, control: string, asset: Asset, ctx: RuleContext): boolean => {
    if (framework !== "CIS-AWS" || (control !== "5.2" && control !== "5.3")) return true;
    const v6 = control === "5.3";
    return openIngress(asset, ctx, port).some((e) => {
      const cidr = e.cidr ?? "";
      return !/^(0\.0\.0\.0\/0|::\/0)$/.test(cidr) || cidr.includes(":") === v6;
    });
  };
}

function describeEdges(edges: readonly Edge[]): string {
  return edges.slice(0, 5).map((e) => `${e.protocol} ${e.port_range} from ${e.cidr}`).join("; ");
}

function portRule(port: number, id: string, name: string, checks: string[]): RuleDefinition {
  return {
    id,
    severity: "HIGH",
    title: `${name} (port ${port}) open to the internet`,
    description: `An ingress rule admits ${name} from any address.`,
    remediation: `Restrict port ${port} to known source ranges or use a bastion / session manager.`,
    compliance: ["CIS", "NIST-800-53", "PCI-DSS"],
    prowler_checks: checks,
    asset_types: GROUP_TYPES,
    providers: ALL,
    applies: () => true,
    check(asset, ctx): string | null {
      const edges = openIngress(asset, ctx, port);
      return edges.length > 0 ? `Ingress ${describeEdges(edges)}` : null;
    },
    failsControl: failsByFamily(port),
  };
}

function bool(value: Json | undefined): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

/** Inline and attached policy documents an asset carries. */
/** AWS's managed AdministratorAccess policy, in any partition (aws, aws-cn, aws-us-gov). */
const ADMINISTRATOR_ACCESS = /^arn:aws(?:-[a-z]+)*:iam::aws:policy\/AdministratorAccess$/;

function documents(asset: Asset): Json[] {
  const docs: Json[] = [];
  if (asset.metadata.policy_document !== undefined) docs.push(asset.metadata.policy_document);
  const inline = asset.metadata.inline_policies;
  if (Array.isArray(inline)) {
    for (const p of inline) {
      if (p && typeof p === "object" && !Array.isArray(p) && "document" in p) docs.push(p.document);
    }
  }
  return docs;
}

type NaclEntry = {
  direction: string;
  rule_no: number;
  action: string;
  protocol: string;
  from_port: number;
  to_port: number;
  cidr: string;
};

/** The action of the first NACL entry (lowest number) matching internet ingress to a port. */
function naclDecision(entries: NaclEntry[], port: number | null): string | null {
  const sorted = entries.filter((e) =>
    e.direction === "ingress" && (e.cidr === "0.0.0.0/0" || e.cidr === "::/0")
  ).sort((a, b) => a.rule_no - b.rule_no);
  for (const e of sorted) {
    const all = e.protocol === "-1" || e.protocol.toLowerCase() === "all";
    const tcp = all || e.protocol === "6" || e.protocol.toLowerCase() === "tcp";
    if (!tcp) continue;
    const anyPort = all || (e.from_port === 0 && (e.to_port === 0 || e.to_port === 65535));
    if (port === null ? anyPort : anyPort || (e.from_port <= port && port <= e.to_port)) {
      return e.action.toLowerCase();
    }
  }
  return null;
}

/** Every rule, in a stable order. */
export const RULES: readonly RuleDefinition[] = [
  portRule(22, "f-ssh-open", "SSH", [
    "ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22",
    "network_ssh_internet_access_restricted",
    "compute_firewall_ssh_access_from_the_internet_allowed",
  ]),
  portRule(3389, "f-rdp-open", "RDP", [
    "ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_3389",
    "network_rdp_internet_access_restricted",
    "compute_firewall_rdp_access_from_the_internet_allowed",
  ]),
  {
    id: "f-all-ports-open",
    severity: "CRITICAL",
    title: "All ports open to the internet",
    description: "An ingress rule admits every port from any address.",
    remediation: "Replace the rule with rules for the ports the service needs, from known ranges.",
    compliance: ["CIS", "NIST-800-53", "PCI-DSS"],
    prowler_checks: ["ec2_securitygroup_allow_ingress_from_internet_to_all_ports"],
    asset_types: GROUP_TYPES,
    providers: ALL,
    applies: () => true,
    check(asset, ctx): string | null {
      const edges = openIngress(asset, ctx, null);
      return edges.length > 0 ? `Ingress ${describeEdges(edges)}` : null;
    },
    failsControl: failsByFamily(null),
  },
  {
    id: "f-nacl-open",
    severity: "MEDIUM",
    title: "Network ACL allows internet ingress to administration ports",
    description: "The first matching NACL entry for traffic from 0.0.0.0/0 or ::/0 allows it.",
    remediation: "Add deny entries for 22 and 3389 from the internet ahead of broad allow entries.",
    compliance: ["CIS", "NIST-800-53"],
    prowler_checks: [
      "ec2_networkacl_allow_ingress_any_port",
      "ec2_networkacl_allow_ingress_tcp_port_22",
      "ec2_networkacl_allow_ingress_tcp_port_3389",
    ],
    asset_types: ["NACL"],
    providers: ["AWS"],
    applies: (a) => Array.isArray(a.metadata.entries),
    check(asset): string | null {
      const entries = asset.metadata.entries as unknown as NaclEntry[];
      const open = ([22, 3389] as const).filter((p) => naclDecision(entries, p) === "allow");
      return open.length > 0 ? `Internet ingress allowed to port(s) ${open.join(", ")}` : null;
    },
  },
  {
    id: "f-default-sg-traffic",
    severity: "LOW",
    title: "Default security group allows traffic",
    description: "The VPC's default security group has inbound or outbound rules.",
    remediation: "Remove every rule from default security groups and use purpose-made groups.",
    compliance: ["CIS"],
    prowler_checks: ["ec2_securitygroup_default_restrict_traffic"],
    asset_types: ["SECURITY_GROUP"],
    providers: ["AWS"],
    applies: (a) => a.metadata.default_group === true,
    check: (a) =>
      typeof a.metadata.rule_count === "number" && a.metadata.rule_count > 0
        ? `${a.metadata.rule_count} rule(s) on the default group`
        : null,
  },
  {
    id: "f-bucket-public",
    severity: "HIGH",
    title: "Storage bucket is publicly accessible",
    description: "A bucket policy, ACL or IAM binding grants access to anyone.",
    remediation:
      "Remove public grants (principal *, allUsers, public ACLs) and block public access.",
    compliance: ["CIS", "GDPR", "HIPAA", "PCI-DSS"],
    prowler_checks: ["s3_bucket_public_access", "cloudstorage_bucket_public_access"],
    asset_types: BUCKET_TYPES,
    providers: ALL,
    applies: (a) => bool(a.metadata.public_access) !== undefined,
    check: (a) => (a.metadata.public_access === true ? "Bucket grants access to anyone" : null),
  },
  {
    id: "f-bucket-no-public-access-block",
    severity: "MEDIUM",
    title: "S3 bucket has no complete public access block",
    description: "Neither the bucket nor the account blocks all four kinds of public access.",
    remediation: "Enable all four S3 Block Public Access settings on the bucket or the account.",
    compliance: ["CIS"],
    prowler_checks: ["s3_bucket_level_public_access_block"],
    asset_types: ["S3_BUCKET"],
    providers: ["AWS"],
    applies: (a) =>
      typeof a.metadata.public_access_block === "boolean" ||
      typeof a.metadata.account_public_access_block === "boolean",
    check: (a) =>
      a.metadata.public_access_block === true || a.metadata.account_public_access_block === true
        ? null
        : "No bucket- or account-level block of all public access",
  },
  {
    id: "f-db-public",
    severity: "HIGH",
    title: "Database is publicly accessible",
    description: "The database instance accepts connections from public addresses.",
    remediation: "Disable public accessibility and reach the database through private networking.",
    compliance: ["CIS", "PCI-DSS", "HIPAA"],
    prowler_checks: ["rds_instance_no_public_access", "cloudsql_instance_public_access"],
    asset_types: DB_TYPES,
    providers: ALL,
    applies: (a) => bool(a.metadata.publicly_accessible) !== undefined,
    check: (a) => (a.metadata.publicly_accessible === true ? "publicly_accessible is true" : null),
  },
  {
    id: "f-db-unencrypted",
    severity: "MEDIUM",
    title: "Database storage is not encrypted",
    description: "The database's storage is not encrypted at rest.",
    remediation: "Enable storage encryption (re-create from an encrypted snapshot if needed).",
    compliance: ["CIS", "HIPAA", "PCI-DSS", "GDPR"],
    prowler_checks: ["rds_instance_storage_encrypted"],
    asset_types: DB_TYPES,
    providers: ALL,
    applies: (a) => bool(a.metadata.encrypted) !== undefined,
    check: (a) => (a.metadata.encrypted === false ? "Storage encryption is off" : null),
  },
  {
    id: "f-volume-unencrypted",
    severity: "MEDIUM",
    title: "Block volume is not encrypted",
    description: "The volume is not encrypted at rest.",
    remediation: "Enable EBS encryption by default and migrate the volume to an encrypted copy.",
    compliance: ["CIS", "HIPAA", "PCI-DSS"],
    prowler_checks: ["ec2_ebs_volume_encryption"],
    asset_types: ["EBS_VOLUME"],
    providers: ["AWS"],
    applies: (a) => bool(a.metadata.encrypted) !== undefined,
    check: (a) => (a.metadata.encrypted === false ? "encrypted is false" : null),
  },
  {
    id: "f-bucket-unencrypted",
    severity: "MEDIUM",
    title: "Storage bucket has no default encryption",
    description: "The bucket has no server-side encryption configuration.",
    remediation: "Configure default server-side encryption (SSE-S3 or SSE-KMS).",
    compliance: ["HIPAA", "PCI-DSS", "GDPR"],
    prowler_checks: ["s3_bucket_default_encryption"],
    asset_types: ["S3_BUCKET"],
    providers: ["AWS"],
    applies: (a) => bool(a.metadata.encrypted) !== undefined,
    check: (a) => (a.metadata.encrypted === false ? "No server-side encryption configured" : null),
  },
  {
    id: "f-iam-wildcard-admin",
    severity: "CRITICAL",
    title: "IAM policy grants full administrative access",
    description: "A policy allows every action (`*`) on every resource without condition.",
    remediation: "Replace `*:*` with the actions and resources the principal needs.",
    compliance: ["CIS", "NIST-800-53", "SOC2"],
    prowler_checks: [
      "iam_aws_attached_policy_no_administrative_privileges",
      "iam_customer_attached_policy_no_administrative_privileges",
      "iam_inline_policy_no_administrative_privileges",
    ],
    asset_types: ["IAM_POLICY", "IAM_USER", "IAM_ROLE", "IAM_GROUP"],
    providers: ["AWS"],
    applies: (a) => documents(a).length > 0,
    check: (a) =>
      isWildcardAdmin(documents(a).flatMap((d) => parsePolicy(d)))
        ? "Allow Action * on Resource *"
        : null,
  },
  {
    id: "f-iam-administrator-access-attached",
    severity: "HIGH",
    title: "Principal has the AWS-managed AdministratorAccess policy attached",
    description:
      "The user, role or group has AWS's AdministratorAccess policy (every action on every resource) attached.",
    remediation: "Detach AdministratorAccess and attach a policy scoped to the principal's tasks.",
    compliance: ["NIST-800-53", "SOC2"],
    prowler_checks: [
      "iam_user_administrator_access_policy",
      "iam_role_administratoraccess_policy",
      "iam_group_administrator_access_policy",
    ],
    asset_types: ["IAM_USER", "IAM_ROLE", "IAM_GROUP"],
    providers: ["AWS"],
    // The attachment is known by the policy's ARN: its document need not be in the import.
    applies: (a) => Array.isArray(a.metadata.managed_policy_arns),
    check(a): string | null {
      const arns = (a.metadata.managed_policy_arns as Json[]).map(String);
      const admin = arns.find((arn) => ADMINISTRATOR_ACCESS.test(arn));
      return admin ? `${admin} attached` : null;
    },
  },
  {
    id: "f-iam-privilege-escalation",
    severity: "HIGH",
    title: "IAM permissions allow privilege escalation",
    description: "The effective permissions include every action of a known escalation method.",
    remediation:
      "Remove the escalation actions or scope them to resources that cannot raise privileges.",
    compliance: ["NIST-800-53", "SOC2"],
    prowler_checks: ["iam_policy_allows_privilege_escalation"],
    asset_types: ["IAM_POLICY", "IAM_USER", "IAM_ROLE", "IAM_GROUP"],
    providers: ["AWS"],
    applies: (a) => Array.isArray(a.metadata.privilege_escalation) || documents(a).length > 0,
    check(a): string | null {
      const list = Array.isArray(a.metadata.privilege_escalation)
        ? a.metadata.privilege_escalation.map(String)
        : privilegeEscalations(documents(a).flatMap((d) => parsePolicy(d)));
      return list.length > 0 ? `Escalation methods: ${list.join(", ")}` : null;
    },
  },
  {
    id: "f-iam-data-exfiltration",
    severity: "MEDIUM",
    title: "IAM permissions allow data exfiltration",
    description: "The effective permissions read objects, parameters, secrets or snapshots.",
    remediation: "Scope data-reading actions to the resources the principal needs.",
    compliance: ["GDPR", "SOC2"],
    prowler_checks: [],
    asset_types: ["IAM_POLICY", "IAM_USER", "IAM_ROLE", "IAM_GROUP"],
    providers: ["AWS"],
    applies: (a) => Array.isArray(a.metadata.exfiltration_actions) || documents(a).length > 0,
    check(a): string | null {
      const list = Array.isArray(a.metadata.exfiltration_actions)
        ? a.metadata.exfiltration_actions.map(String)
        : exfiltrationActions(documents(a).flatMap((d) => parsePolicy(d)));
      return list.length > 0 ? `Allowed: ${list.join(", ")}` : null;
    },
  },
  {
    id: "f-iam-trust-any",
    severity: "CRITICAL",
    title: "Role can be assumed by anyone",
    description: "The role's trust policy admits principal `*` without a condition.",
    remediation: "Name the accounts or services that may assume the role, and add conditions.",
    compliance: ["NIST-800-53", "SOC2"],
    prowler_checks: ["iam_role_cross_service_confused_deputy_prevention"],
    asset_types: ["IAM_ROLE"],
    providers: ["AWS"],
    applies: (a) => a.metadata.trust_policy !== undefined,
    check(a): string | null {
      const anyone = trustedPrincipals(parsePolicy(a.metadata.trust_policy)).filter((p) =>
        p.anyone && !p.conditional
      );
      if (anyone.length === 0) return null;
      const except = anyone.find((p) => p.except)?.except;
      return except && anyone.every((p) => p.except)
        ? `Trust policy allows every principal but ${except.join(", ")} (Allow with ` +
          "NotPrincipal; AWS now refuses NotPrincipal in trust policies, so this holds only if " +
          "the policy is in force)"
        : "Trust policy admits principal *";
    },
  },
  {
    id: "f-resource-policy-public",
    severity: "HIGH",
    title: "Resource policy grants access to anyone",
    description:
      "A queue, topic, function or registry policy allows principal `*` unconditionally.",
    remediation: "Restrict the policy's principals to named accounts, or add source conditions.",
    compliance: ["NIST-800-53", "SOC2"],
    prowler_checks: [
      "sqs_queues_not_publicly_accessible",
      "sns_topics_not_publicly_accessible",
      "awslambda_function_not_publicly_accessible",
      "ecr_repositories_not_publicly_accessible",
    ],
    asset_types: ["MESSAGE_QUEUE", "NOTIFICATION_TOPIC", "LAMBDA_FUNCTION", "CONTAINER_REGISTRY"],
    providers: ["AWS"],
    applies: (a) => a.metadata.resource_policy !== undefined,
    check: (a) =>
      allowsAnyone(parsePolicy(a.metadata.resource_policy)) ? "Policy admits principal *" : null,
  },
  {
    id: "f-root-access-keys",
    severity: "CRITICAL",
    title: "Root account has active access keys",
    description: "The account's root user has at least one active access key.",
    remediation: "Delete the root user's access keys; use IAM roles for programmatic access.",
    compliance: ["CIS", "NIST-800-53", "PCI-DSS"],
    prowler_checks: ["iam_no_root_access_key"],
    asset_types: ["CLOUD_ACCOUNT"],
    providers: ["AWS"],
    applies: (a) => bool(a.metadata.root_access_keys_active) !== undefined,
    check: (a) => (a.metadata.root_access_keys_active === true ? "Root access key active" : null),
  },
  {
    id: "f-root-mfa-disabled",
    severity: "CRITICAL",
    title: "Root account has no MFA",
    description: "The account's root user signs in without multi-factor authentication.",
    remediation: "Enable (hardware) MFA on the root user.",
    compliance: ["CIS", "NIST-800-53", "PCI-DSS"],
    prowler_checks: ["iam_root_mfa_enabled"],
    asset_types: ["CLOUD_ACCOUNT"],
    providers: ["AWS"],
    applies: (a) => bool(a.metadata.root_mfa_active) !== undefined,
    check: (a) => (a.metadata.root_mfa_active === false ? "mfa_active is false for root" : null),
  },
  {
    id: "f-user-console-no-mfa",
    severity: "HIGH",
    title: "Console user without MFA",
    description: "An IAM user with a console password has no MFA device.",
    remediation: "Require MFA for every user with console access.",
    compliance: ["CIS", "NIST-800-53", "PCI-DSS"],
    prowler_checks: ["iam_user_mfa_enabled_console_access"],
    asset_types: ["IAM_USER"],
    providers: ["AWS"],
    applies: (a) =>
      a.metadata.password_enabled === true && bool(a.metadata.mfa_active) !== undefined,
    check: (a) => (a.metadata.mfa_active === false ? "Password enabled, no MFA" : null),
  },
  {
    id: "f-iam-user-direct-policy",
    severity: "LOW",
    title: "Policy attached directly to a user",
    description: "Permissions are granted to the user rather than through groups or roles.",
    remediation: "Attach policies to groups and add the user to them.",
    compliance: ["CIS"],
    prowler_checks: ["iam_policy_attached_only_to_group_or_roles"],
    asset_types: ["IAM_USER"],
    providers: ["AWS"],
    applies: () => true,
    check: (a) =>
      a.metadata.direct_policy_attachment === true ? "User has attached or inline policies" : null,
  },
  {
    id: "f-cloudtrail-not-multi-region",
    severity: "MEDIUM",
    title: "CloudTrail trail is not multi-region",
    description: "The trail records events of its home region only.",
    remediation: "Enable a multi-region trail.",
    compliance: ["CIS", "NIST-800-53", "SOC2"],
    prowler_checks: ["cloudtrail_multi_region_enabled"],
    asset_types: ["CLOUDTRAIL"],
    providers: ["AWS"],
    applies: (a) => bool(a.metadata.multi_region) !== undefined,
    check: (a) => (a.metadata.multi_region === false ? "IsMultiRegionTrail is false" : null),
  },
  {
    id: "f-cloudtrail-log-validation-disabled",
    severity: "LOW",
    title: "CloudTrail log file validation is disabled",
    description: "The trail's log files carry no integrity digest.",
    remediation: "Enable log file validation on the trail.",
    compliance: ["CIS", "SOC2"],
    prowler_checks: ["cloudtrail_log_file_validation_enabled"],
    asset_types: ["CLOUDTRAIL"],
    providers: ["AWS"],
    applies: (a) => bool(a.metadata.log_file_validation) !== undefined,
    check: (
      a,
    ) => (a.metadata.log_file_validation === false ? "LogFileValidationEnabled is false" : null),
  },
  {
    id: "f-logging-disabled",
    severity: "HIGH",
    title: "Audit logging is turned off",
    description: "The trail exists but is not logging.",
    remediation: "Start logging on the trail.",
    compliance: ["NIST-800-53", "SOC2", "PCI-DSS"],
    prowler_checks: ["cloudtrail_logging_enabled"],
    asset_types: ["CLOUDTRAIL"],
    providers: ["AWS"],
    applies: (a) => bool(a.metadata.logging_enabled) !== undefined,
    check: (a) => (a.metadata.logging_enabled === false ? "Trail is not logging" : null),
  },
  {
    id: "f-kms-rotation-disabled",
    severity: "MEDIUM",
    title: "KMS key rotation is disabled",
    description: "An enabled symmetric customer-managed key does not rotate.",
    remediation: "Enable automatic key rotation.",
    compliance: ["CIS", "PCI-DSS"],
    prowler_checks: ["kms_cmk_rotation_enabled"],
    asset_types: ["KMS_KEY"],
    providers: ["AWS"],
    applies: (a) =>
      bool(a.metadata.rotation_enabled) !== undefined && a.metadata.key_enabled !== false &&
      (a.metadata.key_spec ?? "SYMMETRIC_DEFAULT") === "SYMMETRIC_DEFAULT",
    check: (a) => (a.metadata.rotation_enabled === false ? "Rotation is off" : null),
  },
  {
    id: "f-vpc-flow-logs-disabled",
    severity: "MEDIUM",
    title: "VPC has no flow logs",
    description: "No flow log records the VPC's traffic.",
    remediation: "Create a flow log for the VPC (at least rejected traffic).",
    compliance: ["CIS", "NIST-800-53"],
    prowler_checks: ["vpc_flow_logs_enabled"],
    asset_types: ["VPC"],
    providers: ["AWS"],
    applies: (a) => a.metadata.flow_logs !== null,
    check: (a) => (a.metadata.flow_logs === true ? null : "No flow log monitors this VPC"),
  },
  {
    id: "f-imdsv2-not-required",
    severity: "MEDIUM",
    title: "Instance does not require IMDSv2",
    description: "The instance metadata service accepts v1 (token-less) requests.",
    remediation: "Set the metadata options to require tokens (IMDSv2).",
    compliance: ["CIS"],
    prowler_checks: ["ec2_instance_imdsv2_enabled"],
    asset_types: ["EC2"],
    providers: ["AWS"],
    applies: (a) => bool(a.metadata.imdsv2_required) !== undefined,
    check: (a) => (a.metadata.imdsv2_required === false ? "HttpTokens is optional" : null),
  },
];
