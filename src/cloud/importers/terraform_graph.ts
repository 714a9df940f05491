/**
 * Terraform resource instances (from a state or a plan) turned into assets
 * and typed edges. Asset ids are Terraform addresses (`module.net.aws_vpc.main`,
 * `aws_instance.web[0]`, `aws_iam_user.u["alice"]`), which a plan and the
 * state it changes share, and which Checkov reports name; the asset's `arn`
 * holds the real ARN / Azure id / Google self link when the attributes have it.
 *
 * References become edges: by attribute value (a security group id on an
 * instance, a role ARN on a function, a KMS key id…) and, for plans, by the
 * configuration's expression references; `depends_on` links that no typed
 * edge covers become `REFERENCES` edges marked `depends_on`.
 *
 * @module
 */

import type { AssetType, CloudProvider, EdgeType } from "../model/enums.ts";
import type { Asset, Edge, Json } from "../model/records.ts";
import { arr, isObject, obj, str, strings } from "./import_input.ts";
import { allowsAnyone, parsePolicy } from "./iam_policy.ts";
import { analyseIam } from "./iam_authorization.ts";
import {
  addCoveringRules,
  addFirewallRule,
  awsTerraformRule,
  azureRule,
  googleRules,
} from "./network_rules.ts";
import {
  internetRoutes,
  MAX_ROUTES,
  ruleAdmitsPort,
  ruleFamily,
  servicePort,
} from "./internet_reach.ts";
import { RecordsBuilder } from "./records_builder.ts";
import {
  TERRAFORM_ASSET_TYPES,
  TERRAFORM_LINK_TYPES,
  terraformProvider,
} from "./terraform_types.ts";
import { pushTo } from "../../core/multimap.ts";
import { KEPT_ATTRIBUTES } from "../model/kept_attributes.ts";

/** One resource instance, as a state or plan holds it. */
export interface TerraformInstance {
  /** Full address: `module.a.aws_vpc.main[0]`. */
  address: string;
  /** Address without the instance key: `module.a.aws_vpc.main`. */
  resourceAddress: string;
  /** Module path (`module.a`), or "" for the root module. */
  module: string;
  mode: "managed" | "data";
  type: string;
  name: string;
  /** Attribute values (unknown values absent). */
  values: Record<string, unknown>;
  /** Resource addresses this instance depends on (`depends_on` and implicit). */
  dependencies: string[];
  /** Attribute name → referenced resource addresses (plans, from the configuration). */
  references: Record<string, string[]>;
  /** Plan actions (`create`, `update`…), when from a plan. */
  actions?: string[];
}

/** Attribute name → edge type and direction for references by value. */
const REFERENCE_ATTRIBUTES: Readonly<Record<string, { type: EdgeType; reverse?: boolean }>> = {
  vpc_id: { type: "CONTAINS", reverse: true },
  subnet_id: { type: "CONTAINS", reverse: true },
  subnet_ids: { type: "CONTAINS", reverse: true },
  subnets: { type: "CONTAINS", reverse: true },
  network: { type: "CONTAINS", reverse: true },
  subnetwork: { type: "CONTAINS", reverse: true },
  resource_group_name: { type: "CONTAINS", reverse: true },
  virtual_network_name: { type: "CONTAINS", reverse: true },
  load_balancer_arn: { type: "CONTAINS", reverse: true },
  vpc_security_group_ids: { type: "ATTACHED_TO" },
  security_groups: { type: "ATTACHED_TO" },
  security_group_ids: { type: "ATTACHED_TO" },
  network_security_group_id: { type: "ATTACHED_TO" },
  network_interface_id: { type: "ATTACHED_TO" },
  instance: { type: "ATTACHED_TO" },
  instance_id: { type: "ATTACHED_TO" },
  role: { type: "ASSUMES_ROLE" },
  role_arn: { type: "ASSUMES_ROLE" },
  execution_role_arn: { type: "ASSUMES_ROLE" },
  task_role_arn: { type: "ASSUMES_ROLE" },
  iam_role_arn: { type: "ASSUMES_ROLE" },
  service_role: { type: "ASSUMES_ROLE" },
  iam_instance_profile: { type: "ASSUMES_ROLE" },
  public_ip_address_id: { type: "REFERENCES" },
  kms_key_id: { type: "REFERENCES" },
  kms_key_arn: { type: "REFERENCES" },
  kms_master_key_id: { type: "REFERENCES" },
  kms_key_self_link: { type: "REFERENCES" },
  target_group_arn: { type: "LOAD_BALANCER_TARGET" },
  target_group_arns: { type: "LOAD_BALANCER_TARGET" },
  instances: { type: "LOAD_BALANCER_TARGET" },
  s3_bucket_name: { type: "LOGS_TO" },
  log_destination: { type: "LOGS_TO" },
  cloud_watch_logs_group_arn: { type: "LOGS_TO" },
};

/**
 * The AWS ids of network resources (security groups, subnets, VPCs, instances, network
 * interfaces, gateways, route tables, network ACLs), by prefix: a reference attribute holding one
 * that is not in the input is listed as an unresolved reference, whether its body is the hex AWS
 * assigns or not (a hand-written or imported state may hold `subnet-missing`).
 */
const AWS_NETWORK_ID = /^(?:sg|subnet|vpc|i|eni|igw|nat|rtb|acl|tgw|pcx|vpce)-[0-9A-Za-z]+$/;

/**
 * Terraform types of AWS's global services (IAM, Route 53 but its resolver, CloudFront,
 * Organizations, Global Accelerator, WAF Classic, Shield, Budgets, Cost Explorer, account
 * settings): they have no region, whatever the provider's.
 */
const AWS_GLOBAL_TYPE =
  /^aws_(?:iam_|route53_(?!resolver)|route53domains_|cloudfront_|organizations_|globalaccelerator_|waf_|shield_|budgets_|ce_|account_|s3_account_)/;

/** Attributes never read as references (they are the resource's own identity). */
const SELF_ATTRIBUTES = new Set(["id", "arn", "name", "owner_id", "account_id", "project", "tags"]);

function region(values: Record<string, unknown>, arn: string | null): string | null {
  if (arn?.startsWith("arn:")) {
    const r = arn.split(":")[3];
    if (r) return r;
  }
  const explicit = str(values.region) ?? str(values.location);
  if (explicit) return explicit;
  const zone = str(values.availability_zone) ?? str(values.zone);
  if (zone) {
    return /^[a-z]{2}-[a-z]+-\d[a-z]$/.test(zone) ? zone.slice(0, -1) : zone.replace(/-[a-z]$/, "");
  }
  return null;
}

function account(values: Record<string, unknown>, arn: string | null): string | null {
  if (arn?.startsWith("arn:")) {
    const a = arn.split(":")[4];
    if (a) return a;
  }
  const sub = /^\/subscriptions\/([^/]+)/i.exec(str(values.id) ?? "");
  if (sub) return sub[1]!;
  return str(values.owner_id) ?? str(values.account_id) ?? str(values.project) ??
    (/projects\/([^/]+)/.exec(str(values.id) ?? "")?.[1] ?? null);
}

function cloudArn(provider: CloudProvider, values: Record<string, unknown>): string | null {
  const arn = str(values.arn);
  if (arn) return arn;
  const id = str(values.id);
  if (provider === "AZURE" && id?.startsWith("/subscriptions/")) return id;
  if (provider === "GCP") return str(values.self_link) ?? (id?.startsWith("projects/") ? id : null);
  return null;
}

function tagsOf(values: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const source of [values.tags, values.labels]) {
    if (!isObject(source)) continue;
    for (const [k, v] of Object.entries(source)) if (typeof v === "string") out[k] = v;
  }
  return out;
}

function jsonOf(value: unknown): Json | undefined {
  if (typeof value === "string") {
    try {
      return JSON.parse(value) as Json;
    } catch {
      return undefined;
    }
  }
  return isObject(value) ? (value as Json) : undefined;
}

function keptAttributes(v: Record<string, unknown>, m: Record<string, Json>): void {
  for (const key of KEPT_ATTRIBUTES) {
    const value = v[key];
    if (m[key] !== undefined) continue;
    if (
      typeof value === "string"
        ? value !== "" && value.length <= 200
        : typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))
    ) {
      m[key] = value as Json;
    }
  }
}

/** Normalised facts per resource type, read by the rule set, and the {@link KEPT_ATTRIBUTES}. */
function facts(type: string, v: Record<string, unknown>): Record<string, Json> {
  const m: Record<string, Json> = {};
  keptAttributes(v, m);
  const first = (x: unknown): Record<string, unknown> => obj(arr(x)[0]);
  switch (type) {
    case "aws_s3_bucket": {
      // A bucket-level block is its own resource; until one is folded in, there is none.
      m.public_access_block = false;
      if (Array.isArray(v.server_side_encryption_configuration)) {
        m.encrypted = v.server_side_encryption_configuration.length > 0;
      }
      const policy = jsonOf(v.policy);
      if (policy !== undefined) m.resource_policy = policy;
      if (typeof v.acl === "string") m.acl = v.acl;
      if (Array.isArray(v.logging)) m.access_logging = v.logging.length > 0;
      break;
    }
    case "aws_db_instance":
    case "aws_rds_cluster":
    case "aws_neptune_cluster":
    case "aws_docdb_cluster":
      if (typeof v.storage_encrypted === "boolean") m.encrypted = v.storage_encrypted;
      if (typeof v.publicly_accessible === "boolean") m.publicly_accessible = v.publicly_accessible;
      if (typeof v.engine === "string") m.engine = v.engine;
      if (typeof v.port === "number" && v.port > 0) m.port = v.port;
      break;
    case "aws_redshift_cluster":
      if (typeof v.publicly_accessible === "boolean") m.publicly_accessible = v.publicly_accessible;
      if (typeof v.port === "number" && v.port > 0) m.port = v.port;
      break;
    case "aws_ebs_volume":
      if (typeof v.encrypted === "boolean") m.encrypted = v.encrypted;
      break;
    case "aws_instance": {
      const md = first(v.metadata_options);
      if (typeof md.http_tokens === "string") m.imdsv2_required = md.http_tokens === "required";
      if (str(v.public_ip) || v.associate_public_ip_address === true) m.public_ip = true;
      // Asked for no public address (this overrides the subnet's default), or holding none.
      else if (v.associate_public_ip_address === false || v.public_ip === "") m.public_ip = false;
      if (strings(v.ipv6_addresses).length > 0 || Number(v.ipv6_address_count ?? 0) > 0) {
        m.ipv6 = true;
      }
      break;
    }
    case "aws_vpc":
      if (str(v.main_route_table_id)) m.main_route_table_id = str(v.main_route_table_id)!;
      break;
    case "aws_route_table":
    case "aws_default_route_table":
      if (Array.isArray(v.route)) m.routes = v.route.slice(0, MAX_ROUTES).map(routeOf);
      if (type === "aws_default_route_table" && str(v.vpc_id)) m.main_for_vpc = str(v.vpc_id)!;
      break;
    case "aws_subnet":
    case "aws_default_subnet":
      if (typeof v.map_public_ip_on_launch === "boolean") {
        m.public_subnet = v.map_public_ip_on_launch;
      }
      break;
    case "aws_kms_key": {
      const policy = jsonOf(v.policy);
      if (policy !== undefined) m.resource_policy = policy;
      if (typeof v.enable_key_rotation === "boolean") m.rotation_enabled = v.enable_key_rotation;
      m.key_enabled = v.is_enabled !== false;
      m.key_spec = str(v.customer_master_key_spec) ?? "SYMMETRIC_DEFAULT";
      m.key_usage = str(v.key_usage) ?? "ENCRYPT_DECRYPT";
      break;
    }
    case "aws_iam_policy": {
      const doc = jsonOf(v.policy);
      if (doc !== undefined) m.policy_document = doc;
      break;
    }
    case "aws_iam_role":
    case "aws_iam_user": {
      const trust = type === "aws_iam_role" ? jsonOf(v.assume_role_policy) : undefined;
      if (trust !== undefined) m.trust_policy = trust;
      const boundary = str(v.permissions_boundary);
      if (boundary) m.permissions_boundary = boundary;
      break;
    }
    case "aws_cloudtrail":
      m.multi_region = v.is_multi_region_trail === true;
      m.log_file_validation = v.enable_log_file_validation === true;
      m.logging_enabled = v.enable_logging !== false;
      break;
    case "aws_lb":
    case "aws_alb":
    case "aws_elb":
      if (typeof v.internal === "boolean") m.internet_facing = !v.internal;
      break;
    case "aws_sqs_queue":
    case "aws_sns_topic":
    case "aws_lambda_function":
    case "aws_ecr_repository": {
      const policy = jsonOf(v.policy);
      if (policy !== undefined) m.resource_policy = policy;
      break;
    }
    case "google_compute_instance":
      m.public_ip = arr(v.network_interface).some((n) => arr(obj(n).access_config).length > 0);
      m.networks = arr(v.network_interface).map((n) => str(obj(n).network)).filter((
        n,
      ): n is string => n !== null);
      m.network_tags = strings(v.tags);
      break;
    case "google_compute_firewall":
      if (str(v.network)) m.network = str(v.network);
      m.target_tags = strings(v.target_tags);
      break;
    case "google_sql_database_instance": {
      const ip = first(first(v.settings).ip_configuration);
      m.publicly_accessible = ip.ipv4_enabled === true &&
        arr(ip.authorized_networks).some((n) => str(obj(n).value) === "0.0.0.0/0");
      break;
    }
    case "azurerm_storage_account":
      if (typeof v.allow_blob_public_access === "boolean") {
        m.public_access = v.allow_blob_public_access;
      }
      if (typeof v.enable_https_traffic_only === "boolean") {
        m.https_only = v.enable_https_traffic_only;
      }
      break;
  }
  return m;
}

function displayName(inst: TerraformInstance): string {
  const v = inst.values;
  const tags = tagsOf(v);
  return str(v.name) ?? str(v.bucket) ?? str(v.identifier) ?? str(v.function_name) ??
    str(v.cluster_identifier) ?? str(v.domain_name) ?? tags.Name ?? str(v.id) ?? inst.address;
}

/** One `module.name` step of a module path, with its count or for_each key if any. */
const MODULE_STEP = /module\.[^.[\]]+(?:\[(?:"(?:[^"\\]|\\.)*"|[^\]]*)\])?/g;

/**
 * An address without its module instance keys, as the configuration names it:
 * `module.app["prod"].module.db.aws_db_instance.x` → `module.app.module.db.aws_db_instance.x`.
 */
export function configAddress(address: string): string {
  return address.replace(MODULE_STEP, (step) => step.replace(/\[[\s\S]*\]$/, ""));
}

/** A module path and its ancestors, deepest first: `module.a[0].module.b` → it, `module.a[0]`. */
function moduleInstancePaths(module: string): string[] {
  const steps = module.match(MODULE_STEP) ?? [];
  return steps.map((_, i) => steps.slice(0, i + 1).join(".")).reverse();
}

/** Builds records from resource instances. `collectedAt` is every asset's timestamp. */
export function buildTerraformRecords(
  instances: readonly TerraformInstance[],
  options: {
    collectedAt?: string;
    source: string;
    /**
     * Whether one AWS provider configuration manages every AWS resource (no alias, no
     * module-level provider), and the region it sets when the input says: see
     * {@linkcode placeByProvider}.
     */
    awsProvider?: { region: string | null } | null;
  },
): RecordsBuilder {
  const b = new RecordsBuilder(options.collectedAt);
  const byCloudId = new Map<string, string>();
  const byName = new Map<string, string | null>();
  const byResource = new Map<string, string[]>();
  const links: TerraformInstance[] = [];
  const kept: TerraformInstance[] = [];

  for (const inst of instances) {
    if (inst.mode === "data") {
      b.skip("data source");
      continue;
    }
    const provider = terraformProvider(inst.type);
    if (provider === null) {
      b.skip("not a cloud resource");
      continue;
    }
    if (TERRAFORM_LINK_TYPES.has(inst.type)) {
      links.push(inst);
      continue;
    }
    let assetType: AssetType | undefined = TERRAFORM_ASSET_TYPES[inst.type];
    if (assetType === undefined) {
      assetType = "OTHER";
      b.countUnknown(inst.type);
    }
    const v = inst.values;
    const arn = cloudArn(provider, v);
    const metadata: Record<string, Json> = {
      terraform_address: inst.address,
      terraform_type: inst.type,
      source: options.source,
      ...facts(inst.type, v),
    };
    const cloudId = str(v.id);
    if (cloudId) metadata.resource_id = cloudId;
    if (inst.module) metadata.terraform_module = inst.module;
    if (inst.actions) metadata.plan_actions = inst.actions;
    b.addAsset({
      id: inst.address,
      arn,
      name: displayName(inst),
      asset_type: assetType,
      provider,
      region: region(v, arn),
      account_id: account(v, arn),
      tags: tagsOf(v),
      metadata,
    });
    kept.push(inst);
    pushTo(byResource, inst.resourceAddress, inst.address);
    for (const key of [cloudId, arn, str(v.self_link)]) {
      if (key && !byCloudId.has(key)) byCloudId.set(key, inst.address);
    }
    // Names are weaker keys: usable only when one resource holds the name.
    for (const key of new Set([str(v.name), str(v.bucket)])) {
      if (!key) continue;
      const seen = byName.get(key);
      byName.set(key, seen === undefined || seen === inst.address ? inst.address : null);
    }
  }

  const resolve = (value: string): string | undefined => {
    const direct = byCloudId.get(value) ?? byName.get(value);
    if (direct) return direct;
    // Google "b/<bucket>" and URL forms, Azure ids in other case.
    if (value.startsWith("b/")) {
      return byCloudId.get(value.slice(2)) ?? byName.get(value.slice(2)) ?? undefined;
    }
    const tail = /\/projects\/.+$/.exec(value);
    return tail ? byCloudId.get(tail[0].slice(1)) : undefined;
  };
  const lookup = (address: string): string[] | undefined =>
    byResource.get(address) ?? byResource.get(address.replace(/\[[^\]]*\]$/, ""));
  // Configuration addresses (plan references, state dependencies) carry no module instance
  // keys: `module.app.aws_subnet.s` from inside `module.app["prod"]` is that instance's subnet.
  const resolveAddress = (address: string, from?: TerraformInstance): string[] => {
    const found = lookup(address);
    if (found) return found;
    for (const module of from ? moduleInstancePaths(from.module) : []) {
      const prefix = `${configAddress(module)}.`;
      if (module.includes("[") && address.startsWith(prefix)) {
        const inside = lookup(`${module}.${address.slice(prefix.length)}`);
        if (inside) return inside;
      }
    }
    return [];
  };
  const link = (self: string, target: string, type: EdgeType, reverse: boolean, attr: string) => {
    if (reverse) {
      b.addEdge({
        source_id: target,
        target_id: self,
        edge_type: type,
        properties: { attribute: attr },
      });
    } else {b.addEdge({
        source_id: self,
        target_id: target,
        edge_type: type,
        properties: { attribute: attr },
      });}
  };

  // A network id (a group, subnet, VPC, instance, …) a resource names that is not in the input.
  const listed = new Set<string>();
  const unresolved = (from: string, attribute: string, value: string): void => {
    const key = `${from}\u0000${attribute}\u0000${value}`;
    if (listed.has(key)) return;
    listed.add(key);
    b.records.unresolved_references.push({ from, attribute, value });
  };

  // Pass 2: references by attribute value and by configuration expression.
  for (const inst of kept) {
    const self = inst.address;
    for (const [attr, value] of Object.entries(inst.values)) {
      if (SELF_ATTRIBUTES.has(attr)) continue;
      const typed = REFERENCE_ATTRIBUTES[attr];
      const candidates = typeof value === "string"
        ? [value]
        : Array.isArray(value)
        ? value.filter((x): x is string => typeof x === "string")
        : [];
      for (const c of candidates) {
        if (c.length < 3) continue;
        const target = resolve(c);
        if (!target && typed && AWS_NETWORK_ID.test(c)) unresolved(self, attr, c);
        if (!target || target === self) continue;
        if (typed) link(self, target, typed.type, typed.reverse === true, attr);
        else if (c.length >= 8) {
          b.addEdge({
            source_id: self,
            target_id: target,
            edge_type: "REFERENCES",
            properties: { attribute: attr },
          });
        }
      }
    }
    // One level into nested blocks (default_action[].target_group_arn, vpc_config[].subnet_ids…).
    for (const [block, value] of Object.entries(inst.values)) {
      if (!Array.isArray(value)) continue;
      for (const item of value) {
        if (!isObject(item)) continue;
        for (const [attr, inner] of Object.entries(item)) {
          const typed = REFERENCE_ATTRIBUTES[attr];
          if (!typed) continue;
          for (const c of strings(inner)) {
            const target = resolve(c);
            if (target && target !== self) {
              link(self, target, typed.type, typed.reverse === true, `${block}.${attr}`);
            }
          }
        }
      }
    }
    for (const [attr, addresses] of Object.entries(inst.references)) {
      const typed = REFERENCE_ATTRIBUTES[attr] ?? { type: "REFERENCES" as EdgeType };
      for (const address of addresses) {
        for (const target of resolveAddress(address, inst)) {
          if (target !== self) link(self, target, typed.type, typed.reverse === true, attr);
        }
      }
    }
    if (inst.type === "aws_flow_log") {
      const vpc = resolve(str(inst.values.vpc_id) ?? "") ??
        resolveAddress((inst.references.vpc_id ?? [])[0] ?? "", inst)[0];
      if (vpc) {
        b.addEdge({ source_id: self, target_id: vpc, edge_type: "MONITORS" });
        const asset = b.asset(vpc);
        if (asset) asset.metadata.flow_logs = true;
      }
    }
  }

  // Pass 3: link resources folded into edges and parent facts.
  const targetOf = (inst: TerraformInstance, attr: string): string[] => {
    const values = strings(inst.values[attr]);
    const out = values.map(resolve).filter((x): x is string => !!x);
    if (out.length > 0) return out;
    const referenced = (inst.references[attr] ?? []).flatMap((address) =>
      resolveAddress(address, inst)
    );
    // What a link names by id or name (a user's inline policy naming the user) that the input
    // does not hold; AWS-managed policies are never in a state, and a rule's missing group is
    // listed with its stub.
    if (referenced.length === 0 && attr !== "security_group_id") {
      for (const value of values) {
        if (!value.startsWith("arn:aws:iam::aws:policy/")) unresolved(inst.address, attr, value);
      }
    }
    return referenced;
  };
  for (const inst of links) foldLink(b, inst, targetOf, resolve);

  // Pass 4: firewall rules held on the groups themselves.
  for (const inst of kept) {
    const v = inst.values;
    const self = inst.address;
    if (inst.type === "aws_security_group" || inst.type === "aws_default_security_group") {
      for (const dir of ["ingress", "egress"] as const) {
        for (const block of arr(v[dir])) {
          addFirewallRule(
            b,
            awsTerraformRule(obj(block), { groupId: self, direction: dir, groupOf: resolve }),
          );
        }
      }
      if (inst.type === "aws_default_security_group" || v.name === "default") {
        const asset = b.asset(self)!;
        asset.metadata.default_group = true;
        asset.metadata.rule_count = arr(v.ingress).length + arr(v.egress).length;
      }
    } else if (inst.type === "azurerm_network_security_group") {
      for (const rule of arr(v.security_rule)) {
        const r = azureRule(self, obj(rule));
        if (r) addFirewallRule(b, r);
      }
    } else if (inst.type === "google_compute_firewall") {
      for (const r of googleRules(self, v)) addFirewallRule(b, r);
    } else if (inst.type === "aws_route_table" || inst.type === "aws_default_route_table") {
      // Routes written inline link the table to their targets as aws_route resources do.
      for (const block of arr(v.route)) {
        const route = obj(block);
        for (const attr of ROUTE_TARGETS) {
          const target = resolve(str(route[attr]) ?? "");
          if (target) b.addEdge({ source_id: self, target_id: target, edge_type: "ROUTE" });
        }
      }
    } else if (inst.type === "aws_network_acl" || inst.type === "aws_default_network_acl") {
      const entries: Json[] = [];
      for (const dir of ["ingress", "egress"] as const) {
        for (const e of arr(v[dir])) {
          const rule = obj(e);
          const cidr = str(rule.cidr_block) ?? str(rule.ipv6_cidr_block);
          entries.push({
            direction: dir,
            rule_no: Number(rule.rule_no ?? 0),
            action: String(rule.action ?? ""),
            protocol: String(rule.protocol ?? ""),
            from_port: Number(rule.from_port ?? 0),
            to_port: Number(rule.to_port ?? 0),
            cidr: cidr ?? "",
          });
        }
      }
      addNaclEntries(b, { naclId: self, entries: entries });
      for (const subnet of strings(v.subnet_ids).map(resolve)) {
        if (subnet) b.addEdge({ source_id: subnet, target_id: self, edge_type: "ATTACHED_TO" });
      }
    }
  }

  // Pass 5: depends_on links not already covered by a typed edge. A dependency on a resource
  // with several instances (count, for_each) names the resource, not which instance: it links
  // the instances whose ids the dependent's values, or those of what else it depends on, hold
  // (an RDS instance on its subnet group's two subnets, not on all four), or every instance
  // when none is named.
  const byAddress = new Map(kept.map((inst) => [inst.address, inst]));
  for (const inst of kept) {
    let named: Set<string> | null = null;
    const namedByValue = (): Set<string> => {
      if (named) return named;
      named = new Set();
      // The dependent and each single-instance resource it depends on (the instances of a
      // multi-instance one would each name themselves).
      const sources = [
        inst,
        ...inst.dependencies.map((d) => resolveAddress(d, inst)).filter((t) => t.length === 1)
          .map(([address]) => byAddress.get(address!)).filter((x) => x !== undefined),
      ];
      for (const source of sources) {
        for (const value of stringsWithin(source.values)) {
          const address = resolve(value);
          if (address) named.add(address);
        }
      }
      return named;
    };
    for (const dep of inst.dependencies) {
      let targets = resolveAddress(dep, inst);
      if (targets.length > 1) {
        const narrowed = targets.filter((t) => namedByValue().has(t));
        if (narrowed.length > 0) targets = narrowed;
      }
      for (const target of targets) {
        if (target === inst.address || b.connected(inst.address, target)) continue;
        b.addEdge({
          source_id: inst.address,
          target_id: target,
          edge_type: "REFERENCES",
          properties: { depends_on: true },
        });
      }
    }
  }

  // Pass 6: a database, cache or warehouse runs in the subnets of its subnet group: each of
  // them contains it (as the API dump's DBSubnetGroup.Subnets say), so its route to the
  // internet is read from their route tables.
  const subnetsOf = new Map<string, string[]>();
  for (const e of b.records.edges) {
    if (e.edge_type === "CONTAINS" && b.asset(e.source_id)?.asset_type === "SUBNET") {
      pushTo(subnetsOf, e.target_id, e.source_id);
    }
  }
  for (const inst of kept) {
    const attr = SUBNET_GROUP_ATTRIBUTES[inst.type];
    if (attr === undefined) continue;
    // Resolved only: a group the input does not hold (AWS's "default") places it nowhere.
    const groups = [
      ...strings(inst.values[attr]).map(resolve).filter((x): x is string => !!x),
      ...(inst.references[attr] ?? []).flatMap((address) => resolveAddress(address, inst)),
    ];
    for (const group of new Set(groups)) {
      if (b.asset(group)?.asset_type === "SUBNET") continue;
      for (const subnet of subnetsOf.get(group) ?? []) {
        if (b.connected(subnet, inst.address)) continue;
        b.addEdge({
          source_id: subnet,
          target_id: inst.address,
          edge_type: "CONTAINS",
          properties: { attribute: attr, via: group },
        });
      }
    }
  }

  analyseIam(b);
  markExposure(b);
  if (options.awsProvider) placeByProvider(b, options.awsProvider.region);
  placeAzureSubnets(b);
  return b;
}

/** Every string inside a value (objects and arrays walked), at most `limit` of them. */
function stringsWithin(value: unknown, limit = 10_000): string[] {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0 && out.length < limit) {
    const v = stack.pop();
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) stack.push(...v);
    else if (isObject(v)) stack.push(...Object.values(v));
  }
  return out;
}

/**
 * Azure subnets carry no location of their own: each lies in its virtual network's region
 * (the network it references, or the one that contains it).
 */
function placeAzureSubnets(b: RecordsBuilder): void {
  for (const edge of b.records.edges) {
    const [subnet, network] = edge.edge_type === "CONTAINS"
      ? [b.asset(edge.target_id), b.asset(edge.source_id)]
      : edge.edge_type === "REFERENCES"
      ? [b.asset(edge.source_id), b.asset(edge.target_id)]
      : [undefined, undefined];
    if (subnet?.provider !== "AZURE" || subnet.asset_type !== "SUBNET") continue;
    if (network?.asset_type !== "VNET" || subnet.region !== "global") continue;
    if (network.region !== "global") subnet.region = network.region;
  }
}

/**
 * Places the AWS resources of an input whose AWS resources one provider configuration
 * manages: they share its region and account. Regional resources whose values name no region
 * take the region the configuration sets (`region`), or else the one region every other regional
 * resource's ARN, zone or region attribute names; resources without an account take the one
 * account the others name. Nothing is filled when the resources disagree (a resource-level
 * region override, an assumed role in another account), and AWS's global services keep no region.
 */
function placeByProvider(b: RecordsBuilder, region: string | null): void {
  const aws = b.records.assets.filter((a) => a.provider === "AWS");
  const regional = aws.filter((a) => !AWS_GLOBAL_TYPE.test(String(a.metadata.terraform_type)));
  const regions = new Set(regional.map((a) => a.region).filter((r) => r !== "global"));
  const shared = region ?? (regions.size === 1 ? [...regions][0]! : null);
  if (shared !== null) {
    for (const a of regional) if (a.region === "global") a.region = shared;
  }
  const accounts = new Set(aws.map((a) => a.account_id).filter((x): x is string => x !== null));
  if (accounts.size === 1) {
    const only = [...accounts][0]!;
    for (const a of aws) if (a.account_id === null) a.account_id = only;
  }
}

/** Records NACL entries on the NACL and adds `NACL_RULE` edges for the allowing ones. */
export function addNaclEntries(
  b: RecordsBuilder,
  options: { naclId: string; entries: Json[] },
): void {
  const { naclId, entries } = options;
  const asset = b.asset(naclId);
  if (asset) asset.metadata.entries = entries;
  for (const entry of entries) {
    const e = entry as Record<string, Json>;
    if (String(e.action).toLowerCase() !== "allow" || !e.cidr) continue;
    const cidr = String(e.cidr);
    const ingress = e.direction === "ingress";
    const open = cidr === "0.0.0.0/0" || cidr === "::/0";
    const proto = String(e.protocol);
    const all = proto === "-1" || proto.toLowerCase() === "all";
    const from = Number(e.from_port);
    const to = Number(e.to_port);
    b.addEdge({
      source_id: ingress ? cidr : naclId,
      target_id: ingress ? naclId : cidr,
      edge_type: "NACL_RULE",
      cidr,
      direction: ingress ? "ingress" : "egress",
      protocol: all ? "ALL" : proto.toUpperCase(),
      port_range: all || (from === 0 && (to === 0 || to === 65535))
        ? "*"
        : from === to
        ? String(from)
        : `${from}-${to}`,
      properties: { rule_no: Number(e.rule_no), internet: open },
    });
  }
}

/** One route (inline block or `aws_route`) as metadata: its destination and where it sends traffic. */
function routeOf(block: unknown): Json {
  const r = obj(block);
  return {
    destination: str(r.cidr_block) ?? str(r.ipv6_cidr_block) ?? str(r.destination_cidr_block) ??
      str(r.destination_ipv6_cidr_block) ?? str(r.destination_prefix_list_id),
    target: ROUTE_TARGETS.map((attr) => str(r[attr])).find((t) => t !== null) ??
      str(r.egress_only_gateway_id) ?? str(r.network_interface_id) ?? null,
  };
}

/** The attribute naming the subnet group a resource type runs in. */
const SUBNET_GROUP_ATTRIBUTES: Readonly<Record<string, string>> = {
  aws_db_instance: "db_subnet_group_name",
  aws_rds_cluster: "db_subnet_group_name",
  aws_neptune_cluster: "neptune_subnet_group_name",
  aws_docdb_cluster: "db_subnet_group_name",
  aws_redshift_cluster: "cluster_subnet_group_name",
  aws_elasticache_cluster: "subnet_group_name",
  aws_elasticache_replication_group: "subnet_group_name",
  aws_dax_cluster: "subnet_group_name",
  aws_memorydb_cluster: "subnet_group_name",
};

/** The attributes of an AWS route (resource or inline block) naming where it sends traffic. */
const ROUTE_TARGETS = [
  "gateway_id",
  "nat_gateway_id",
  "transit_gateway_id",
  "vpc_peering_connection_id",
] as const;

function foldLink(
  b: RecordsBuilder,
  inst: TerraformInstance,
  targetOf: (inst: TerraformInstance, attr: string) => string[],
  resolve: (value: string) => string | undefined,
): void {
  const v = inst.values;
  const edges = (type: EdgeType, from: string[], to: string[]) => {
    for (const s of from) {
      for (const t of to) {
        b.addEdge({
          source_id: s,
          target_id: t,
          edge_type: type,
          properties: { via: inst.address },
        });
      }
    }
  };
  const parentFacts = (attr: string, f: (a: Asset) => void) => {
    for (const id of targetOf(inst, attr)) {
      const a = b.asset(id);
      if (a) f(a);
    }
  };
  b.skip("folded into edges or parent");
  switch (inst.type) {
    case "aws_security_group_rule": {
      const dir = v.type === "egress" ? "egress" : "ingress";
      for (const sg of groupsOrStub(b, inst, targetOf(inst, "security_group_id"))) {
        addFirewallRule(b, awsTerraformRule(v, { groupId: sg, direction: dir, groupOf: resolve }));
      }
      break;
    }
    case "aws_vpc_security_group_ingress_rule":
    case "aws_vpc_security_group_egress_rule": {
      const dir = inst.type.endsWith("egress_rule") ? "egress" : "ingress";
      for (const sg of groupsOrStub(b, inst, targetOf(inst, "security_group_id"))) {
        addFirewallRule(b, awsTerraformRule(v, { groupId: sg, direction: dir, groupOf: resolve }));
      }
      break;
    }
    case "aws_network_interface_sg_attachment":
      edges(
        "ATTACHED_TO",
        targetOf(inst, "network_interface_id"),
        targetOf(inst, "security_group_id"),
      );
      break;
    case "aws_iam_role_policy_attachment":
      edges("IAM_POLICY_ATTACHMENT", targetOf(inst, "role"), targetOf(inst, "policy_arn"));
      recordManaged(b, targetOf(inst, "role"), str(v.policy_arn));
      break;
    case "aws_iam_user_policy_attachment":
      edges("IAM_POLICY_ATTACHMENT", targetOf(inst, "user"), targetOf(inst, "policy_arn"));
      recordManaged(b, targetOf(inst, "user"), str(v.policy_arn));
      for (const u of targetOf(inst, "user")) b.asset(u)!.metadata.direct_policy_attachment = true;
      break;
    case "aws_iam_group_policy_attachment":
      edges("IAM_POLICY_ATTACHMENT", targetOf(inst, "group"), targetOf(inst, "policy_arn"));
      recordManaged(b, targetOf(inst, "group"), str(v.policy_arn));
      break;
    case "aws_iam_policy_attachment": {
      const principals = [
        ...targetOf(inst, "users"),
        ...targetOf(inst, "roles"),
        ...targetOf(inst, "groups"),
      ];
      edges("IAM_POLICY_ATTACHMENT", principals, targetOf(inst, "policy_arn"));
      for (const u of targetOf(inst, "users")) b.asset(u)!.metadata.direct_policy_attachment = true;
      break;
    }
    case "aws_iam_user_group_membership":
      edges("CONTAINS", targetOf(inst, "groups"), targetOf(inst, "user"));
      break;
    case "aws_iam_group_membership":
      edges("CONTAINS", targetOf(inst, "group"), targetOf(inst, "users"));
      break;
    case "aws_iam_role_policy":
    case "aws_iam_user_policy":
    case "aws_iam_group_policy": {
      const attr = inst.type === "aws_iam_role_policy"
        ? "role"
        : inst.type === "aws_iam_user_policy"
        ? "user"
        : "group";
      const doc = jsonOf(v.policy);
      parentFacts(attr, (a) => {
        const list = Array.isArray(a.metadata.inline_policies) ? a.metadata.inline_policies : [];
        if (doc !== undefined) list.push({ name: str(v.name) ?? inst.name, document: doc });
        a.metadata.inline_policies = list;
        if (attr === "user") a.metadata.direct_policy_attachment = true;
      });
      break;
    }
    case "aws_route_table_association":
      edges("ROUTE", targetOf(inst, "subnet_id"), targetOf(inst, "route_table_id"));
      break;
    case "aws_route":
      edges(
        "ROUTE",
        targetOf(inst, "route_table_id"),
        ROUTE_TARGETS.flatMap((attr) => targetOf(inst, attr)),
      );
      parentFacts("route_table_id", (a) => {
        // A table whose own routes the input does not list (a plan's unknown values) is
        // known only in part.
        if (!Array.isArray(a.metadata.routes)) a.metadata.routes_partial = true;
        const list = Array.isArray(a.metadata.routes) ? a.metadata.routes : [];
        const route = obj(routeOf(v));
        // A plan names the gateway of a route it creates by reference, not by id.
        if (route.target === null) {
          route.target = ROUTE_TARGETS.flatMap((attr) => targetOf(inst, attr))[0] ?? null;
        }
        const same = (r: Json): boolean => JSON.stringify(r) === JSON.stringify(route);
        if (list.length < MAX_ROUTES && !list.some(same)) list.push(route as Json);
        a.metadata.routes = list;
      });
      break;
    case "aws_main_route_table_association":
      parentFacts("route_table_id", (a) => {
        if (str(v.vpc_id)) a.metadata.main_for_vpc = str(v.vpc_id)!;
      });
      break;
    case "aws_volume_attachment":
      edges("ATTACHED_TO", targetOf(inst, "volume_id"), targetOf(inst, "instance_id"));
      break;
    case "aws_lb_target_group_attachment":
    case "aws_alb_target_group_attachment":
      edges(
        "LOAD_BALANCER_TARGET",
        targetOf(inst, "target_group_arn"),
        targetOf(inst, "target_id"),
      );
      break;
    case "aws_s3_bucket_policy":
    case "aws_elasticsearch_domain_policy": {
      const doc = jsonOf(v.policy ?? v.access_policies);
      parentFacts(inst.type === "aws_s3_bucket_policy" ? "bucket" : "domain_name", (a) => {
        if (doc !== undefined) a.metadata.resource_policy = doc;
      });
      break;
    }
    case "aws_s3_bucket_public_access_block":
      parentFacts("bucket", (a) => {
        a.metadata.public_access_block = v.block_public_acls === true &&
          v.block_public_policy === true &&
          v.ignore_public_acls === true && v.restrict_public_buckets === true;
        a.metadata.public_access_block_settings = {
          block_public_acls: v.block_public_acls === true,
          block_public_policy: v.block_public_policy === true,
          ignore_public_acls: v.ignore_public_acls === true,
          restrict_public_buckets: v.restrict_public_buckets === true,
        };
      });
      break;
    case "aws_s3_account_public_access_block": {
      const all = v.block_public_acls === true && v.block_public_policy === true &&
        v.ignore_public_acls === true && v.restrict_public_buckets === true;
      // Bucket ARNs carry no account: the block applies to the buckets of this input.
      for (const a of b.assets()) {
        if (a.asset_type === "S3_BUCKET") a.metadata.account_public_access_block = all;
      }
      break;
    }
    case "aws_s3_bucket_server_side_encryption_configuration":
      parentFacts("bucket", (a) => (a.metadata.encrypted = true));
      break;
    case "aws_s3_bucket_acl":
      parentFacts("bucket", (a) => {
        if (typeof v.acl === "string") a.metadata.acl = v.acl;
      });
      break;
    case "aws_s3_bucket_logging":
      parentFacts("bucket", (a) => (a.metadata.access_logging = true));
      break;
    case "aws_s3_bucket_notification":
      for (const n of arr(v.lambda_function)) {
        edges(
          "INVOKES",
          targetOf(inst, "bucket"),
          strings(obj(n).lambda_function_arn).map(resolve).filter((x): x is string => !!x),
        );
      }
      break;
    case "aws_kms_alias":
      parentFacts("target_key_id", (a) => {
        if (str(v.name)) a.metadata.alias = str(v.name)!;
      });
      break;
    case "aws_lambda_permission":
      edges("INVOKES", targetOf(inst, "source_arn"), targetOf(inst, "function_name"));
      break;
    case "azurerm_network_security_rule": {
      for (const nsg of targetOf(inst, "network_security_group_name")) {
        const r = azureRule(nsg, v);
        if (r) addFirewallRule(b, r);
      }
      break;
    }
    case "azurerm_subnet_network_security_group_association":
    case "azurerm_network_interface_security_group_association":
      edges(
        "ATTACHED_TO",
        [...targetOf(inst, "subnet_id"), ...targetOf(inst, "network_interface_id")],
        targetOf(inst, "network_security_group_id"),
      );
      break;
    case "google_storage_bucket_iam_binding":
    case "google_storage_bucket_iam_member": {
      const members = [...strings(v.members), ...strings(v.member)];
      const bucketName = (str(v.bucket) ?? "").replace(/^b\//, "");
      let bucket = targetOf(inst, "bucket")[0] ?? resolve(bucketName);
      if (!bucket) {
        bucket = `google_storage_bucket:${bucketName}`;
        b.addAsset({
          id: bucket,
          arn: null,
          name: bucketName,
          asset_type: "GCS_BUCKET",
          provider: "GCP",
          metadata: { inferred_from: inst.address, source: "terraform" },
        });
      }
      const a = b.asset(bucket)!;
      const list = Array.isArray(a.metadata.iam_bindings) ? a.metadata.iam_bindings : [];
      list.push({ role: str(v.role) ?? "", members });
      a.metadata.iam_bindings = list;
      if (members.some((m) => m === "allUsers" || m === "allAuthenticatedUsers")) {
        a.metadata.public_access = true;
      }
      break;
    }
  }
}

/**
 * The groups a rule resource belongs to; when the group is not in the input,
 * a stub security group keyed by its cloud id stands for it (marked `stub`).
 */
function groupsOrStub(b: RecordsBuilder, inst: TerraformInstance, found: string[]): string[] {
  if (found.length > 0) return found;
  const id = str(inst.values.security_group_id);
  if (!id) return [];
  b.addAsset({
    id,
    arn: null,
    name: id,
    asset_type: "SECURITY_GROUP",
    provider: "AWS",
    metadata: { stub: true, inferred_from: inst.address, resource_id: id, source: "terraform" },
  });
  b.records.unresolved_references.push({
    from: inst.address,
    attribute: "security_group_id",
    value: id,
  });
  return [id];
}

function recordManaged(b: RecordsBuilder, principals: string[], policyArn: string | null): void {
  if (!policyArn) return;
  for (const p of principals) {
    const a = b.asset(p);
    if (!a) continue;
    const list = Array.isArray(a.metadata.managed_policy_arns)
      ? a.metadata.managed_policy_arns
      : [];
    if (!list.includes(policyArn)) list.push(policyArn);
    a.metadata.managed_policy_arns = list;
  }
}

/**
 * Marks the grants to anyone (`*`) into a bucket whose public access block
 * restricts public policies (`public_access_blocked: true`): S3 then admits
 * only the owner account and AWS services, so they are no internet entry.
 */
function markBlockedGrants(b: RecordsBuilder, bucketId: string): void {
  for (const edge of b.records.edges) {
    if (
      edge.target_id === bucketId && edge.edge_type === "GRANTS_ACCESS" && edge.source_id === "*"
    ) edge.properties.public_access_blocked = true;
  }
}

/** Sets public-bucket facts and internet exposure of resources behind open groups. */
export function markExposure(b: RecordsBuilder): void {
  addCoveringRules(b);
  // Each group open to the internet: the placeholder its rules come from, and those rules.
  const openGroups = new Map<string, { placeholder: string; rules: Edge[] }>();
  for (const edge of b.records.edges) {
    if (
      edge.edge_type === "SECURITY_GROUP_RULE" && edge.direction === "ingress" &&
      edge.properties.internet === true
    ) {
      const open = openGroups.get(edge.target_id);
      if (open) open.rules.push(edge);
      else openGroups.set(edge.target_id, { placeholder: edge.source_id, rules: [edge] });
    }
  }
  for (const asset of b.assets()) {
    const m = asset.metadata;
    if (asset.asset_type === "S3_BUCKET") {
      const policyPublic = m.resource_policy !== undefined &&
        allowsAnyone(parsePolicy(m.resource_policy));
      const aclPublic = typeof m.acl === "string" && /public-read|authenticated-read/.test(m.acl);
      const blocked = m.public_access_block === true || m.account_public_access_block === true;
      m.public_access = !blocked && (policyPublic || aclPublic);
      if (blocked) markBlockedGrants(b, asset.id);
    }
    if (m.public_access === true) {
      asset.is_internet_exposed = true;
      b.addEdge({
        source_id: "0.0.0.0/0",
        target_id: asset.id,
        edge_type: "INTERNET_EXPOSED",
        description: "public access",
      });
    }
  }
  // Google firewalls apply to the instances of their network (matching target tags).
  const gcpFirewalls = [...b.assets()].filter((a) =>
    a.provider === "GCP" && a.asset_type === "SECURITY_GROUP" &&
    typeof a.metadata.network === "string"
  );
  for (const inst of [...b.assets()]) {
    if (inst.asset_type !== "GCE_INSTANCE" || !Array.isArray(inst.metadata.networks)) continue;
    const tags = new Set((inst.metadata.network_tags as Json[] | undefined ?? []).map(String));
    for (const fw of gcpFirewalls) {
      const targets = (fw.metadata.target_tags as Json[] | undefined ?? []).map(String);
      const network = String(fw.metadata.network);
      const sameNetwork = inst.metadata.networks.some((n) => String(n) === network);
      if (!sameNetwork || (targets.length > 0 && !targets.some((t) => tags.has(t)))) continue;
      b.addEdge({
        source_id: inst.id,
        target_id: fw.id,
        edge_type: "ATTACHED_TO",
        properties: { via: "network" },
      });
    }
  }
  const publicSubnet = new Set<string>();
  for (const edge of b.records.edges) {
    if (edge.edge_type === "CONTAINS" && b.asset(edge.source_id)?.metadata.public_subnet === true) {
      publicSubnet.add(edge.target_id);
    }
  }
  markAzureExposure(b, openGroups);
  const routes = internetRoutes(b);
  for (const edge of [...b.records.edges]) {
    if (edge.edge_type !== "ATTACHED_TO") continue;
    const open = openGroups.get(edge.target_id);
    if (!open) continue;
    const asset = b.asset(edge.source_id);
    if (!asset) continue;
    const m = asset.metadata;
    const v4Address = m.public_ip === true || m.internet_facing === true ||
      m.publicly_accessible === true ||
      (asset.asset_type === "EC2" && m.public_ip !== false && publicSubnet.has(asset.id));
    const v6Address = m.ipv6 === true;
    if (!v4Address && !v6Address) continue;
    // AWS answers a public address only through a default route to an internet gateway.
    const route = routes(asset.id);
    m.internet_route = route.route;
    const v4 = v4Address && route.v4;
    const v6 = v6Address && route.v6;
    // A rule from ::/0 reaches only an IPv6 address, one from 0.0.0.0/0 only a public IPv4 one.
    const port = servicePort(asset);
    const rules = open.rules.filter((r) => {
      const family = ruleFamily(r);
      const reaches = family === 4 ? v4 : family === 6 ? v6 : v4 || v6;
      return reaches && (port === null || ruleAdmitsPort(r, port));
    });
    if (rules.length === 0) continue;
    asset.is_internet_exposed = true;
    b.addEdge({
      source_id: rules[0]!.source_id,
      target_id: asset.id,
      edge_type: "INTERNET_EXPOSED",
      description: `via ${edge.target_id}`,
      ...(port === null
        ? openPortsOf(rules)
        : { ports: [port], port_range: String(port), protocol: "TCP" }),
      properties: {
        via: edge.target_id,
        route_checked: route.route !== "not_checked",
        rules: rules.slice(0, 50).map((r) => r.id),
      },
    });
  }
}

/**
 * Azure: a network interface with a public IP is reachable from the internet when network
 * security groups filter it (on the interface, its subnet, or both) and every one of them admits
 * internet traffic; the interface and the virtual machines using it are exposed, through the
 * group closest to the interface. An interface with a public IP and no group at all is not
 * marked: whether Azure admits its traffic depends on the IP's SKU, which the input may not say.
 */
function markAzureExposure(
  b: RecordsBuilder,
  openGroups: ReadonlyMap<string, { placeholder: string; rules: Edge[] }>,
): void {
  const out = new Map<string, Edge[]>();
  const into = new Map<string, Edge[]>();
  for (const edge of b.records.edges) {
    pushTo(out, edge.source_id, edge);
    pushTo(into, edge.target_id, edge);
  }
  const linked = (id: string, type: string, assetType: string): string[] =>
    (out.get(id) ?? []).filter((e) =>
      e.edge_type === type && b.asset(e.target_id)?.asset_type === assetType
    ).map((e) => e.target_id);
  // A plan's configuration says the interface references its subnet; a state's ids, that the
  // subnet contains it.
  const subnetsOf = (nic: string): string[] => [
    ...linked(nic, "REFERENCES", "SUBNET"),
    ...(into.get(nic) ?? []).filter((e) =>
      e.edge_type === "CONTAINS" && b.asset(e.source_id)?.asset_type === "SUBNET"
    ).map((e) => e.source_id),
  ];
  // The virtual machines that reference an interface use it.
  const usersOf = (nic: string): string[] =>
    (into.get(nic) ?? []).filter((e) =>
      e.edge_type === "REFERENCES" && b.asset(e.source_id)?.asset_type === "VIRTUAL_MACHINE"
    ).map((e) => e.source_id);
  for (const nic of [...b.assets()]) {
    if (nic.provider !== "AZURE" || nic.asset_type !== "NETWORK_INTERFACE") continue;
    if (linked(nic.id, "REFERENCES", "ELASTIC_IP").length === 0) continue;
    const groups = [
      ...linked(nic.id, "ATTACHED_TO", "NSG"),
      ...subnetsOf(nic.id).flatMap((s) => linked(s, "ATTACHED_TO", "NSG")),
    ];
    if (groups.length === 0 || !groups.every((g) => openGroups.has(g))) continue;
    const via = groups[0]!;
    const open = openGroups.get(via)!;
    for (const id of [nic.id, ...usersOf(nic.id)]) {
      const asset = b.asset(id)!;
      asset.is_internet_exposed = true;
      asset.metadata.public_ip = true;
      b.addEdge({
        source_id: open.placeholder,
        target_id: id,
        edge_type: "INTERNET_EXPOSED",
        description: `via ${via}`,
        ...openPortsOf(open.rules),
        properties: { via },
      });
    }
  }
}

/**
 * The ports, port ranges and protocol an exposure through open rules admits: what the rules
 * say, joined (`22,80,443`), or every port (`*`) when one of them admits all.
 */
function openPortsOf(
  rules: readonly Edge[],
): { ports: number[]; port_range: string; protocol: string | null } {
  const protocols = new Set(rules.map((r) => r.protocol ?? "ALL"));
  const protocol = protocols.size === 1 ? [...protocols][0]! : "MIXED";
  const ranges: string[] = [];
  for (const r of rules) {
    const range = r.port_range || r.ports.join(",");
    if (range === "" || range === "*" || (r.protocol ?? "ALL").toUpperCase() === "ALL") {
      return { ports: [], port_range: "*", protocol };
    }
    for (const part of range.split(",")) if (!ranges.includes(part)) ranges.push(part);
  }
  const ports = [...new Set(rules.flatMap((r) => r.ports))].sort((a, c) => a - c);
  return { ports, port_range: ranges.join(","), protocol };
}
