/**
 * The `aws-api` importer: one AWS account's API responses as the AWS CLI or
 * collectors write them, one folder per region holding
 * `<service>-<operation>.json` files and `<service>-<operation>/<id>` folders
 * of per-resource responses (names URL-encoded). The whole account becomes
 * one dataset: assets keyed by ARN, containment (account → VPC → subnet →
 * instance), attachment (instance/ENI/LB/DB/function → security group),
 * load-balancer, IAM (from the authorization details and credential report)
 * and internet edges.
 *
 * @module
 */

import { parse } from "csv-parse/sync";
import { DETECTION_ORDER } from "./importer.ts";
import type { AssetType, EdgeType } from "../model/enums.ts";
import type { Asset, Json } from "../model/records.ts";
import type { DirectoryEntry, Importer, ImportInput, ImportResult } from "./importer.ts";
import {
  arr,
  fileLabel,
  ImportError,
  obj,
  parseJsonText,
  readInputText,
  str,
  strings,
  tagList as tags,
} from "./import_input.ts";
import { addAuthorizationDetails, addResourcePolicyGrants } from "./iam_authorization.ts";
import { addFirewallRule, awsApiRule } from "./network_rules.ts";
import { MAX_ROUTES } from "./internet_reach.ts";
import { type AssetInit, RecordsBuilder } from "./records_builder.ts";
import { addNaclEntries, markExposure } from "./terraform_graph.ts";
import { evaluateRulesInto } from "../rules/rule_evaluate.ts";

const KIND = "aws-api";

/** What a regional asset adds beyond its ARN, region and account. */
type RegionalAssetInit = Omit<AssetInit, "id" | "arn" | "provider" | "region" | "account_id">;

/** Where an EC2 resource's facts stand in its record: see `addEc2` in `loadRegion`. */
interface Ec2Init {
  /** The field holding the resource id. */
  id: string;
  /** The ARN's resource path before the id (`vpc`, `subnet`, …). */
  path: string;
  /** The field holding the ARN, when the response gives one. */
  arn?: string;
  /** The field holding the name, when it is not the Name tag (the id stands in for either). */
  name?: string;
  /** The field holding the tag list (`Tags` unless given). */
  tags?: string;
  /** The field holding the cloud id of the containing VPC or subnet. */
  parent?: string;
  /** Whether other resources find it by its id (they never name volumes). @default true */
  findable?: boolean;
  asset_type: AssetType;
}

/** An EC2 listing: its file and list key, where its facts stand, and what links each resource. */
interface Ec2List extends Ec2Init {
  file: string;
  list: string;
  /** The key of each listed record holding the resources themselves (reservations' instances). */
  nested?: string;
  facts: (record: Record<string, unknown>) => Record<string, Json>;
  /** Edges of one resource, once it is added. */
  link?: (arn: string, record: Record<string, unknown>) => void;
  /** Work once the whole listing is added. */
  after?: () => void;
}

/** The fields of an API route naming where it sends traffic, in the order they are read. */
const ROUTE_TARGET_FIELDS = [
  "GatewayId",
  "NatGatewayId",
  "TransitGatewayId",
  "VpcPeeringConnectionId",
  "EgressOnlyInternetGatewayId",
  "NetworkInterfaceId",
  "InstanceId",
  "CarrierGatewayId",
  "LocalGatewayId",
  "CoreNetworkArn",
] as const;

/** A route table's routes that send traffic (AWS marks one whose target is gone `blackhole`). */
function activeRoutes(table: Record<string, unknown>): Record<string, unknown>[] {
  return arr(table.Routes).map(obj).filter((r) => r.State !== "blackhole");
}

/** An API route (`aws ec2 describe-route-tables`) as route metadata: destination and target. */
function apiRoute(r: Record<string, unknown>): Json {
  return {
    destination: str(r.DestinationCidrBlock) ?? str(r.DestinationIpv6CidrBlock) ??
      str(r.DestinationPrefixListId),
    target: ROUTE_TARGET_FIELDS.map((f) => str(r[f])).find((t) => t !== null) ?? null,
  };
}

/** A network ACL entry as the ACL reader takes it. */
function naclEntry(e: Record<string, unknown>): Record<string, Json> {
  return {
    direction: e.Egress === true ? "egress" : "ingress",
    rule_no: Number(e.RuleNumber ?? 0),
    action: String(e.RuleAction ?? ""),
    protocol: String(e.Protocol ?? ""),
    from_port: Number(obj(e.PortRange).From ?? 0),
    to_port: Number(obj(e.PortRange).To ?? 0),
    cidr: str(e.CidrBlock) ?? str(e.Ipv6CidrBlock) ?? "",
  };
}

/** A security group's rule lists and the direction of each. */
const PERMISSION_LISTS = [["IpPermissions", "ingress"], ["IpPermissionsEgress", "egress"]] as const;

const REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;

/** Whether a directory's names look like an account dump (regions, or describe-regions.json). */
export function looksLikeAwsDump(names: readonly string[]): boolean {
  return names.includes("describe-regions.json") || names.some((n) => REGION.test(n));
}

interface Region {
  name: string;
  dir: string;
  files: Set<string>;
}

/** Reads a dump through the input's callbacks. */
class DumpReader {
  constructor(private readonly input: ImportInput) {}
  async list(dir: string): Promise<DirectoryEntry[]> {
    try {
      return await this.input.listDirectory(dir);
    } catch {
      return [];
    }
  }
  async json(path: string): Promise<unknown> {
    const text = await readInputText(this.input, { kind: KIND, path: path });
    return parseJsonText(text, { kind: KIND, path: path });
  }
}

function join(dir: string, name: string): string {
  return dir.endsWith("/") ? dir + name : `${dir}/${name}`;
}

/** The rows of a CSV with a header line (the IAM credential report), by column name. */
function parseCsv(text: string): Record<string, string>[] {
  return parse(text, {
    columns: true,
    skip_empty_lines: true,
    relax_column_count: true,
    relax_quotes: true,
  }) as Record<string, string>[];
}

/** Per-resource responses in `<service>-<operation>/` folders, keyed by decoded file name. */
async function perResource(
  reader: DumpReader,
  region: Region,
  folder: string,
): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  if (!region.files.has(folder)) return out;
  for (const e of await reader.list(join(region.dir, folder))) {
    if (!e.isFile) continue;
    let key = e.name;
    try {
      key = decodeURIComponent(e.name);
    } catch {
      // keep the raw name
    }
    out.set(key, await reader.json(join(join(region.dir, folder), e.name)));
  }
  return out;
}

/** A listed asset: the fields holding its ARN and name, its type and facts. */
interface ListedInit {
  arn: string;
  name: string;
  asset_type: AssetType;
  metadata: Record<string, Json>;
}

/** Simple resource lists: file → list key → asset type, ARN and name fields. */
const SIMPLE_LISTS: readonly (Omit<ListedInit, "metadata"> & { file: string; list: string })[] = [
  {
    file: "ecr-describe-repositories.json",
    list: "repositories",
    asset_type: "CONTAINER_REGISTRY",
    arn: "repositoryArn",
    name: "repositoryName",
  },
  {
    file: "secretsmanager-list-secrets.json",
    list: "SecretList",
    asset_type: "SECRET",
    arn: "ARN",
    name: "Name",
  },
  {
    file: "kafka-list-clusters.json",
    list: "ClusterInfoList",
    asset_type: "MESSAGE_BROKER",
    arn: "ClusterArn",
    name: "ClusterName",
  },
  {
    file: "accessanalzyer-list-analyzers.json",
    list: "analyzers",
    asset_type: "ACCESS_ANALYZER",
    arn: "arn",
    name: "name",
  },
];

async function loadRegion(
  b: RecordsBuilder,
  reader: DumpReader,
  region: Region,
  account: string,
): Promise<void> {
  const r = region.name;
  const arnOf = (service: string, resource: string): string =>
    `arn:aws:${service}:${r}:${account}:${resource}`;
  const has = (f: string): boolean => region.files.has(f);
  const read = async (f: string): Promise<Record<string, unknown>> =>
    obj(await reader.json(join(region.dir, f)));
  const byId = new Map<string, string>();
  const idOf = (cloudId: string): string | undefined => byId.get(cloudId);
  // A reference the dump's records name that matches no resource of this dump.
  const unresolved = (from: string, attribute: string, value: string): void => {
    b.records.unresolved_references.push({ from, attribute, value });
  };
  const attachGroups = (self: string, groups: string[]) => {
    for (const g of groups) {
      const sg = idOf(g);
      if (sg) b.addEdge({ source_id: self, target_id: sg, edge_type: "ATTACHED_TO" });
      else unresolved(self, "security_group", g);
    }
  };
  // The subnet or VPC (`attribute`) holding an asset, listed as unresolved when not in the dump.
  const contain = (parentCloudId: string | null, self: string, attribute: "subnet" | "vpc") => {
    if (!parentCloudId) return;
    const parent = idOf(parentCloudId);
    if (parent) b.addEdge({ source_id: parent, target_id: self, edge_type: "CONTAINS" });
    else unresolved(self, attribute, parentCloudId);
  };
  // An asset of this region and account, its id being its ARN.
  const addRegional = (arn: string, init: RegionalAssetInit): Asset =>
    b.addAsset({ id: arn, arn, provider: "AWS", region: r, account_id: account, ...init });
  const used = new Set<string>();
  const use = (f: string): boolean => {
    used.add(f);
    return has(f);
  };
  // The value under `key` of a dump file, undefined when the file is absent.
  const field = async (f: string, key: string): Promise<unknown> =>
    use(f) ? (await read(f))[key] : undefined;
  // The records under `key` of a dump file, none when the file is absent.
  const records = async (f: string, key: string): Promise<Record<string, unknown>[]> =>
    arr(await field(f, key)).map(obj);
  // An asset whose ARN and name are fields of its record, none without an ARN.
  const addListed = (record: Record<string, unknown>, init: ListedInit): string | null => {
    const arn = str(record[init.arn]);
    if (!arn) return null;
    addRegional(arn, {
      name: str(record[init.name]) ?? arn,
      asset_type: init.asset_type,
      metadata: init.metadata,
    });
    return arn;
  };
  // An edge to the resource a cloud id names, when it names one this dump holds.
  const toKnown = (source: string, cloudId: unknown, edge_type: EdgeType): string | null => {
    const id = str(cloudId);
    const target = idOf(id ?? "");
    if (target) b.addEdge({ source_id: source, target_id: target, edge_type });
    return target ? null : id;
  };
  // An edge to the instance an attachment names, when it names one this dump holds; else the
  // instance id is listed as unresolved.
  const toInstance = (source: string, attachment: unknown, edge_type: EdgeType): void => {
    const missing = toKnown(source, obj(attachment).InstanceId, edge_type);
    if (missing) unresolved(source, "instance", missing);
  };
  // The security-group ids of a list of `{ [field]: id }` records.
  const groupIds = (list: unknown, field = "GroupId"): string[] =>
    arr(list).map((g) => str(obj(g)[field])).filter((g): g is string => !!g);
  // An EC2 resource of this region, none without an id: its ARN `arn:aws:ec2:…:<path>/<id>`
  // unless the record gives one, named by its Name tag unless named, found later by its id
  // (when findable) and contained by its parent's.
  const addEc2 = (
    record: Record<string, unknown>,
    init: Ec2Init,
    metadata: Record<string, Json>,
  ): string | null => {
    const id = str(record[init.id]);
    if (!id) return null;
    const arn = (init.arn ? str(record[init.arn]) : null) ?? arnOf("ec2", `${init.path}/${id}`);
    const labels = tags(record[init.tags ?? "Tags"]);
    addRegional(arn, {
      name: (init.name ? str(record[init.name]) : labels.Name) ?? id,
      asset_type: init.asset_type,
      tags: labels,
      metadata: { resource_id: id, ...metadata },
    });
    if (init.findable !== false) byId.set(id, arn);
    if (init.parent) {
      contain(str(record[init.parent]), arn, init.parent === "VpcId" ? "vpc" : "subnet");
      // A resource placed by its subnet also names its VPC: list that too when it is not here.
      const vpc = init.parent === "VpcId" ? null : str(record.VpcId);
      if (vpc && !idOf(vpc)) unresolved(arn, "vpc", vpc);
    }
    return arn;
  };
  // The response files read at once for every resource of a listing, none when it is absent.
  const responses = async (listing: string, folder: string): Promise<Map<string, unknown>> => {
    if (!has(listing)) return new Map();
    used.add(folder);
    return await perResource(reader, region, folder);
  };

  const groups: [string, Record<string, unknown>][] = [];
  // The EC2 listings in load order: where each resource's facts stand, and what links it.
  const ec2Lists: Ec2List[] = [
    {
      file: "ec2-describe-vpcs.json",
      list: "Vpcs",
      id: "VpcId",
      path: "vpc",
      asset_type: "VPC",
      facts: (v) => ({ cidr: str(v.CidrBlock), is_default: v.IsDefault === true, source: KIND }),
    },
    {
      file: "ec2-describe-subnets.json",
      list: "Subnets",
      id: "SubnetId",
      path: "subnet",
      arn: "SubnetArn",
      asset_type: "SUBNET",
      parent: "VpcId",
      facts: (s) => ({
        cidr: str(s.CidrBlock),
        public_subnet: s.MapPublicIpOnLaunch === true,
        source: KIND,
      }),
    },
    {
      file: "ec2-describe-internet-gateways.json",
      list: "InternetGateways",
      id: "InternetGatewayId",
      path: "internet-gateway",
      asset_type: "INTERNET_GATEWAY",
      facts: () => ({ source: KIND }),
      link: (arn, g) => {
        for (const a of arr(g.Attachments)) contain(str(obj(a).VpcId), arn, "vpc");
      },
    },
    {
      file: "ec2-describe-route-tables.json",
      list: "RouteTables",
      id: "RouteTableId",
      path: "route-table",
      asset_type: "ROUTE_TABLE",
      parent: "VpcId",
      // Exposure weighs these routes (see internet_reach.ts): a blackhole route sends nothing.
      facts: (t) => {
        const main = arr(t.Associations).some((a) => obj(a).Main === true);
        const vpc = str(t.VpcId);
        return {
          source: KIND,
          routes: activeRoutes(t).slice(0, MAX_ROUTES).map(apiRoute),
          ...(main && vpc ? { main_for_vpc: vpc } : {}),
        };
      },
      link: (arn, t) => {
        for (const a of arr(t.Associations).map(obj)) {
          const subnetId = str(a.SubnetId);
          if (!subnetId) continue;
          const subnet = idOf(subnetId);
          if (subnet) b.addEdge({ source_id: subnet, target_id: arn, edge_type: "ROUTE" });
          else unresolved(arn, "subnet", subnetId);
        }
        // Each route links the table to where it sends traffic, when the dump holds that.
        for (const route of activeRoutes(t)) toKnown(arn, obj(apiRoute(route)).target, "ROUTE");
      },
    },
    {
      file: "ec2-describe-security-groups.json",
      list: "SecurityGroups",
      id: "GroupId",
      path: "security-group",
      name: "GroupName",
      asset_type: "SECURITY_GROUP",
      parent: "VpcId",
      facts: (g) => {
        const rules = arr(g.IpPermissions).length + arr(g.IpPermissionsEgress).length;
        return {
          source: KIND,
          ...(g.GroupName === "default" ? { default_group: true, rule_count: rules } : {}),
        };
      },
      link: (arn, g) => groups.push([arn, g]),
      // Rules name other groups, so they are read once every group is known.
      after: () => {
        for (const [self, g] of groups) {
          for (const [key, direction] of PERMISSION_LISTS) {
            for (const p of arr(g[key])) {
              addFirewallRule(b, awsApiRule(obj(p), { groupId: self, direction, groupOf: idOf }));
            }
          }
        }
      },
    },
    {
      file: "ec2-describe-instances.json",
      list: "Reservations",
      nested: "Instances",
      id: "InstanceId",
      path: "instance",
      asset_type: "EC2",
      parent: "SubnetId",
      facts: (i) => {
        const tokens = str(obj(i.MetadataOptions).HttpTokens);
        return {
          source: KIND,
          state: str(obj(i.State).Name),
          public_ip: str(i.PublicIpAddress) !== null,
          ...(str(i.Ipv6Address) !== null ||
              arr(i.NetworkInterfaces).some((n) => arr(obj(n).Ipv6Addresses).length > 0)
            ? { ipv6: true }
            : {}),
          ...(tokens ? { imdsv2_required: tokens === "required" } : {}),
        };
      },
      link: (arn, i) => {
        attachGroups(arn, groupIds(i.SecurityGroups));
        const profile = str(obj(i.IamInstanceProfile).Arn);
        if (profile) b.addEdge({ source_id: arn, target_id: profile, edge_type: "ASSUMES_ROLE" });
      },
    },
    {
      file: "ec2-describe-network-acls.json",
      list: "NetworkAcls",
      id: "NetworkAclId",
      path: "network-acl",
      asset_type: "NACL",
      parent: "VpcId",
      facts: (n) => ({ source: KIND, is_default: n.IsDefault === true }),
      link: (arn, n) => {
        addNaclEntries(b, { naclId: arn, entries: arr(n.Entries).map(obj).map(naclEntry) });
        for (const a of arr(n.Associations)) {
          const subnetId = str(obj(a).SubnetId);
          const subnet = idOf(subnetId ?? "");
          if (subnet) b.addEdge({ source_id: subnet, target_id: arn, edge_type: "ATTACHED_TO" });
          else if (subnetId) unresolved(arn, "subnet", subnetId);
        }
      },
    },
    {
      file: "ec2-describe-volumes.json",
      list: "Volumes",
      id: "VolumeId",
      path: "volume",
      asset_type: "EBS_VOLUME",
      findable: false,
      facts: (v) => ({ source: KIND, encrypted: v.Encrypted === true }),
      link: (arn, v) => {
        for (const a of arr(v.Attachments)) toInstance(arn, a, "ATTACHED_TO");
      },
    },
    {
      file: "ec2-describe-network-interfaces.json",
      list: "NetworkInterfaces",
      id: "NetworkInterfaceId",
      path: "network-interface",
      name: "Description",
      asset_type: "NETWORK_INTERFACE",
      tags: "TagSet",
      parent: "SubnetId",
      facts: (n) => ({
        source: KIND,
        interface_type: str(n.InterfaceType),
        public_ip: str(obj(n.Association).PublicIp) !== null,
      }),
      link: (arn, n) => {
        attachGroups(arn, groupIds(n.Groups));
        toInstance(arn, n.Attachment, "ATTACHED_TO");
      },
    },
  ];
  for (const list of ec2Lists) {
    for (const listed of await records(list.file, list.list)) {
      for (const r of list.nested ? arr(listed[list.nested]).map(obj) : [listed]) {
        const arn = addEc2(r, list, list.facts(r));
        if (arn) list.link?.(arn, r);
      }
    }
    list.after?.();
  }
  for (const l of await records("elb-describe-load-balancers.json", "LoadBalancerDescriptions")) {
    const name = str(l.LoadBalancerName);
    if (!name) continue;
    const arn = arnOf("elasticloadbalancing", `loadbalancer/${name}`);
    addRegional(arn, {
      name,
      asset_type: "LOAD_BALANCER",
      metadata: {
        resource_id: name,
        source: KIND,
        classic: true,
        dns_name: str(l.DNSName),
        internet_facing: l.Scheme === "internet-facing",
      },
    });
    for (const s of strings(l.Subnets)) contain(s, arn, "subnet");
    attachGroups(arn, strings(l.SecurityGroups));
    for (const inst of arr(l.Instances)) toInstance(arn, inst, "LOAD_BALANCER_TARGET");
  }
  for (const l of await records("elbv2-describe-load-balancers.json", "LoadBalancers")) {
    const arn = addListed(l, {
      arn: "LoadBalancerArn",
      name: "LoadBalancerName",
      asset_type: "LOAD_BALANCER",
      metadata: {
        source: KIND,
        lb_type: str(l.Type),
        dns_name: str(l.DNSName),
        internet_facing: l.Scheme === "internet-facing",
      },
    });
    if (!arn) continue;
    for (const z of arr(l.AvailabilityZones)) contain(str(obj(z).SubnetId), arn, "subnet");
    attachGroups(arn, strings(l.SecurityGroups));
  }
  const health = await responses(
    "elbv2-describe-target-groups.json",
    "elbv2-describe-target-health",
  );
  for (const t of await records("elbv2-describe-target-groups.json", "TargetGroups")) {
    const arn = addListed(t, {
      arn: "TargetGroupArn",
      name: "TargetGroupName",
      asset_type: "TARGET_GROUP",
      metadata: { source: KIND },
    });
    if (!arn) continue;
    for (const lb of strings(t.LoadBalancerArns)) {
      b.addEdge({ source_id: lb, target_id: arn, edge_type: "LOAD_BALANCER_TARGET" });
    }
    for (const d of arr(obj(health.get(arn)).TargetHealthDescriptions)) {
      toKnown(arn, obj(obj(d).Target).Id, "LOAD_BALANCER_TARGET");
    }
  }
  for (const d of await records("rds-describe-db-instances.json", "DBInstances")) {
    const metadata = {
      source: KIND,
      engine: str(d.Engine),
      publicly_accessible: d.PubliclyAccessible === true,
      encrypted: d.StorageEncrypted === true,
      ...portOf(d.Endpoint),
    };
    const arn = addListed(d, {
      arn: "DBInstanceArn",
      name: "DBInstanceIdentifier",
      asset_type: "RDS_INSTANCE",
      metadata,
    });
    if (!arn) continue;
    for (const s of arr(obj(d.DBSubnetGroup).Subnets)) {
      contain(str(obj(s).SubnetIdentifier), arn, "subnet");
    }
    attachGroups(arn, groupIds(d.VpcSecurityGroups, "VpcSecurityGroupId"));
    const key = str(d.KmsKeyId);
    if (key) {
      b.addEdge({
        source_id: arn,
        target_id: key,
        edge_type: "REFERENCES",
        properties: { attribute: "KmsKeyId" },
      });
    }
  }
  for (const c of await records("redshift-describe-clusters.json", "Clusters")) {
    const id = str(c.ClusterIdentifier);
    if (!id) continue;
    const arn = arnOf("redshift", `cluster:${id}`);
    addRegional(arn, {
      name: id,
      asset_type: "DATA_WAREHOUSE",
      metadata: {
        source: KIND,
        publicly_accessible: c.PubliclyAccessible === true,
        encrypted: c.Encrypted === true,
        ...portOf(c.Endpoint),
      },
    });
    contain(str(c.VpcId), arn, "vpc");
    attachGroups(arn, groupIds(c.VpcSecurityGroups, "VpcSecurityGroupId"));
  }
  // Elasticsearch / OpenSearch domains: the listing names them, the describe folder holds each.
  const domains = await responses("es-list-domain-names.json", "es-describe-elasticsearch-domain");
  for (const d of await records("es-list-domain-names.json", "DomainNames")) {
    const name = str(d.DomainName);
    if (!name) continue;
    const status = obj(obj(domains.get(name)).DomainStatus);
    const vpc = obj(status.VPCOptions);
    const vpcOnly = str(vpc.VPCId) !== null || str(obj(status.Endpoints).vpc) !== null;
    const arn = str(status.ARN) ?? arnOf("es", `domain/${name}`);
    addRegional(arn, {
      name,
      asset_type: "SEARCH_DOMAIN",
      metadata: {
        source: KIND,
        vpc_only: vpcOnly,
        ...(typeof obj(status.EncryptionAtRestOptions).Enabled === "boolean"
          ? { encrypted: obj(status.EncryptionAtRestOptions).Enabled as boolean }
          : {}),
        ...policyFact(status.AccessPolicies),
      },
    });
    for (const s of strings(vpc.SubnetIds)) contain(s, arn, "subnet");
    attachGroups(arn, strings(vpc.SecurityGroupIds));
  }
  const policies = await responses("lambda-list-functions.json", "lambda-get-policy");
  for (const f of await records("lambda-list-functions.json", "Functions")) {
    const arn = str(f.FunctionArn);
    const name = str(f.FunctionName);
    if (!arn || !name) continue;
    const policy = str(obj(policies.get(name)).Policy);
    let doc: Json | undefined;
    try {
      doc = policy ? (JSON.parse(policy) as Json) : undefined;
    } catch {
      b.warn(`lambda-get-policy/${name} holds a policy that is not JSON.`);
    }
    addRegional(arn, {
      name,
      asset_type: "LAMBDA_FUNCTION",
      metadata: {
        source: KIND,
        runtime: str(f.Runtime),
        ...(doc !== undefined ? { resource_policy: doc } : {}),
      },
    });
    const role = str(f.Role);
    if (role) b.addEdge({ source_id: arn, target_id: role, edge_type: "ASSUMES_ROLE" });
    const vpc = obj(f.VpcConfig);
    for (const s of strings(vpc.SubnetIds)) contain(s, arn, "subnet");
    attachGroups(arn, strings(vpc.SecurityGroupIds));
  }
  const topicAttributes = await responses("sns-list-topics.json", "sns-get-topic-attributes");
  for (const t of await records("sns-list-topics.json", "Topics")) {
    const arn = str(t.TopicArn);
    if (!arn) continue;
    const a = obj(obj(topicAttributes.get(arn)).Attributes);
    addRegional(arn, {
      name: arn.split(":").pop() ?? arn,
      asset_type: "NOTIFICATION_TOPIC",
      metadata: { source: KIND, ...policyFact(a.Policy) },
    });
  }
  const queueAttributes = await responses("sqs-list-queues.json", "sqs-get-queue-attributes");
  for (const url of strings(await field("sqs-list-queues.json", "QueueUrls"))) {
    const a = obj(obj(queueAttributes.get(url)).Attributes);
    const name = url.split("/").pop() ?? url;
    const arn = str(a.QueueArn) ?? arnOf("sqs", name);
    addRegional(arn, {
      name,
      asset_type: "MESSAGE_QUEUE",
      metadata: { source: KIND, queue_url: url, ...policyFact(a.Policy) },
    });
  }
  const status = await responses("cloudtrail-describe-trails.json", "cloudtrail-get-trail-status");
  for (const t of await records("cloudtrail-describe-trails.json", "trailList")) {
    const s = obj(status.get(str(t.Name) ?? "") ?? status.get(str(t.TrailARN) ?? ""));
    const arn = addListed(t, {
      arn: "TrailARN",
      name: "Name",
      asset_type: "CLOUDTRAIL",
      metadata: {
        source: KIND,
        multi_region: t.IsMultiRegionTrail === true,
        log_file_validation: t.LogFileValidationEnabled === true,
        ...(typeof s.IsLogging === "boolean" ? { logging_enabled: s.IsLogging } : {}),
      },
    });
    if (!arn) continue;
    const bucket = str(t.S3BucketName);
    if (bucket) {
      b.addEdge({ source_id: arn, target_id: `arn:aws:s3:::${bucket}`, edge_type: "LOGS_TO" });
    }
  }
  if (has("ec2-describe-flow-logs.json")) {
    for (const f of await records("ec2-describe-flow-logs.json", "FlowLogs")) {
      const vpc = idOf(str(f.ResourceId) ?? "");
      const asset = vpc ? b.asset(vpc) : undefined;
      if (asset) asset.metadata.flow_logs = true;
    }
  } else {
    used.add("ec2-describe-flow-logs.json");
    // Without the flow-log listing the VPC facts are unknown: mark nothing.
    for (const a of b.assets()) {
      if (a.asset_type === "VPC" && a.region === r && a.metadata.flow_logs === undefined) {
        a.metadata.flow_logs = null;
      }
    }
  }
  for (const s of SIMPLE_LISTS) {
    for (const item of await records(s.file, s.list)) {
      addListed(item, { ...s, metadata: { source: KIND } });
    }
  }
  if (use("s3-list-buckets.json")) {
    await loadBuckets(b, reader, region, await read("s3-list-buckets.json"));
  }
  if (use("iam-get-account-authorization-details.json")) {
    addAuthorizationDetails(b, await read("iam-get-account-authorization-details.json"));
  }
  if (use("iam-get-credential-report.json")) {
    const report = await read("iam-get-credential-report.json");
    let content = str(report.Content) ?? "";
    if (!content.includes(",")) {
      try {
        content = atob(content);
      } catch {
        b.warn("iam-get-credential-report.json: Content is neither CSV nor base64.");
      }
    }
    for (const row of parseCsv(content)) {
      if (row.user === "<root_account>") {
        addAccount(b, account, {
          root_mfa_active: row.mfa_active === "true",
          root_access_keys_active: row.access_key_1_active === "true" ||
            row.access_key_2_active === "true",
        });
        continue;
      }
      const user = row.arn ? b.asset(row.arn) : undefined;
      const target = user ??
        (row.arn
          ? b.addAsset({
            id: row.arn,
            arn: row.arn,
            name: row.user ?? row.arn,
            asset_type: "IAM_USER",
            provider: "AWS",
            account_id: account,
            metadata: { source: KIND },
          })
          : undefined);
      if (!target) continue;
      target.metadata.password_enabled = row.password_enabled === "true";
      target.metadata.mfa_active = row.mfa_active === "true";
      target.metadata.access_keys_active = (row.access_key_1_active === "true" ? 1 : 0) +
        (row.access_key_2_active === "true" ? 1 : 0);
    }
  }
  // Files and command folders no reader here knows: counted, and named (at most MAX_UNREAD_NAMES
  // names) so the gap shows.
  for (const f of region.files) {
    if (used.has(f)) continue;
    b.skip("file not read");
    const named = Object.keys(b.notes.skipped).filter((k) => k.startsWith(UNREAD)).length;
    const key = `${UNREAD}${f.slice(0, 120)}`;
    b.skip(named < MAX_UNREAD_NAMES || key in b.notes.skipped ? key : `${UNREAD}(more, not named)`);
  }
}

/** The account's own asset (its root ARN, which it returns) with these facts. */
function addAccount(b: RecordsBuilder, account: string, metadata: Record<string, Json>): string {
  const arn = `arn:aws:iam::${account}:root`;
  b.addAsset({
    id: arn,
    arn,
    name: account,
    asset_type: "CLOUD_ACCOUNT",
    provider: "AWS",
    account_id: account,
    metadata,
  });
  return arn;
}

function policyFact(policy: unknown): Record<string, Json> {
  if (typeof policy !== "string") return {};
  try {
    return { resource_policy: JSON.parse(policy) as Json };
  } catch {
    return {};
  }
}

async function loadBuckets(
  b: RecordsBuilder,
  reader: DumpReader,
  region: Region,
  listing: Record<string, unknown>,
): Promise<void> {
  const policies = await perResource(reader, region, "s3-get-bucket-policy");
  const blocks = await perResource(reader, region, "s3-get-public-access-block");
  const acls = await perResource(reader, region, "s3-get-bucket-acl");
  const encryption = await perResource(reader, region, "s3-get-bucket-encryption");
  const locations = await perResource(reader, region, "s3-get-bucket-location");
  for (const bucket of arr(listing.Buckets).map(obj)) {
    const name = str(bucket.Name);
    if (!name) continue;
    const arn = `arn:aws:s3:::${name}`;
    const m: Record<string, Json> = { source: KIND };
    Object.assign(m, policyFact(obj(policies.get(name)).Policy));
    const block = obj(obj(blocks.get(name)).PublicAccessBlockConfiguration);
    if (blocks.size > 0) {
      m.public_access_block = block.BlockPublicAcls === true && block.BlockPublicPolicy === true &&
        block.IgnorePublicAcls === true && block.RestrictPublicBuckets === true;
    }
    const grants = arr(obj(acls.get(name)).Grants).map((g) => str(obj(obj(g).Grantee).URI) ?? "");
    if (
      grants.some((u) => u.endsWith("/global/AllUsers") || u.endsWith("/global/AuthenticatedUsers"))
    ) m.acl = "public-read";
    if (encryption.size > 0) m.encrypted = encryption.has(name);
    const location = str(obj(locations.get(name)).LocationConstraint);
    b.addAsset({
      id: arn,
      arn,
      name,
      asset_type: "S3_BUCKET",
      provider: "AWS",
      region: location ?? "us-east-1",
      account_id: null,
      metadata: m,
    });
  }
}

/**
 * Where a dump without sts-get-caller-identity names its own account: the
 * `OwnerId` of the records of these listings (reservations are always the
 * caller's; security groups and VPCs listed are its own unless shared).
 */
const OWNER_LISTINGS: readonly { file: string; list: string }[] = [
  { file: "ec2-describe-instances.json", list: "Reservations" },
  { file: "ec2-describe-security-groups.json", list: "SecurityGroups" },
  { file: "ec2-describe-vpcs.json", list: "Vpcs" },
];

/** An AWS account id: twelve digits. */
const ACCOUNT_ID = /^\d{12}$/;

/**
 * The account id of a dump: sts-get-caller-identity in a region folder, else
 * the first account-id `OwnerId` of its EC2 listings ({@link OWNER_LISTINGS}),
 * else `unknown`.
 */
async function accountOf(reader: DumpReader, regions: Region[]): Promise<string> {
  for (const r of regions) {
    if (r.files.has("sts-get-caller-identity.json")) {
      const id = str(obj(await reader.json(join(r.dir, "sts-get-caller-identity.json"))).Account);
      if (id) return id;
    }
  }
  for (const { file, list } of OWNER_LISTINGS) {
    for (const r of regions) {
      if (!r.files.has(file)) continue;
      for (const record of arr(obj(await reader.json(join(r.dir, file)))[list])) {
        const owner = str(obj(record).OwnerId);
        if (owner && ACCOUNT_ID.test(owner)) return owner;
      }
    }
  }
  return "unknown";
}

/** The `aws-api` importer entry. */
export const awsApiImporter: Importer = {
  kind: KIND,
  description:
    "an AWS API dump: one account folder with a folder per region (AWS CLI / collector output)",
  detectors: [{
    stage: "directory",
    order: DETECTION_ORDER.directory_aws_api,
    test: (listing) => looksLikeAwsDump(listing.names),
  }],
  async load(input: ImportInput): Promise<ImportResult> {
    const reader = new DumpReader(input);
    let entries: DirectoryEntry[];
    try {
      entries = await input.listDirectory(input.path);
    } catch {
      throw new ImportError(
        `${
          fileLabel(input.path)
        } is not a directory: an aws-api input is a folder with one sub-folder per region (us-east-1/, eu-west-1/, …) holding each AWS CLI output (--output json) under its command's name, e.g. eu-west-1/ec2-describe-security-groups.json for aws ec2 describe-security-groups. Put the file there and load the folder.`,
        { kind: KIND, file: input.path },
      );
    }
    const regions: Region[] = [];
    for (const e of entries) {
      if (!e.isDirectory || !REGION.test(e.name)) continue;
      const dir = join(input.path, e.name);
      regions.push({
        name: e.name,
        dir,
        files: new Set((await reader.list(dir)).map((f) => f.name)),
      });
    }
    if (regions.length === 0) {
      const accounts: string[] = [];
      for (const e of entries.filter((x) => x.isDirectory).slice(0, 100)) {
        const inner = await reader.list(join(input.path, e.name));
        if (looksLikeAwsDump(inner.map((x) => x.name))) accounts.push(e.name);
      }
      throw new ImportError(
        accounts.length > 0
          ? `${fileLabel(input.path)} holds several account dumps (${
            accounts.slice(0, 10).join(", ")
          }); ` +
            "load one account folder at a time."
          : `${
            fileLabel(input.path)
          } holds no region folder (such as us-east-1/): an aws-api input is one account's dump with one folder per region.`,
        { kind: KIND, file: input.path },
      );
    }
    const b = new RecordsBuilder();
    const account = await accountOf(reader, regions);
    for (const region of regions) await loadRegion(b, reader, region, account);
    for (const a of b.assets()) {
      if (a.account_id === null && a.asset_type === "S3_BUCKET") a.account_id = account;
    }
    const accountArn = addAccount(b, account, { source: KIND });
    const contained = new Set(
      b.records.edges.filter((e) => e.edge_type === "CONTAINS").map((e) => e.target_id),
    );
    for (const a of [...b.assets()]) {
      if (a.id === accountArn || contained.has(a.id)) continue;
      if (a.account_id === account) {
        b.addEdge({ source_id: accountArn, target_id: a.id, edge_type: "CONTAINS" });
      }
    }
    b.records.regions = regions.map((r) => r.name);
    addResourcePolicyGrants(b);
    // A domain reachable only inside its VPC does not let the internet in, whatever its policy.
    for (const e of b.records.edges) {
      if (
        e.edge_type === "GRANTS_ACCESS" && e.properties.anyone === true &&
        b.asset(e.target_id)?.metadata.vpc_only === true
      ) {
        e.properties.network_restricted = true;
      }
    }
    markExposure(b);
    evaluateRulesInto(b.records);
    return b.finish();
  },
};

/** `{port}` from an endpoint object (`Endpoint.Port` of RDS and Redshift), else nothing. */
function portOf(endpoint: unknown): { port?: number } {
  const port = obj(endpoint).Port;
  return typeof port === "number" && Number.isInteger(port) && port > 0 ? { port } : {};
}

/** The prefix of the skipped-notes keys naming a dump file or folder not read. */
const UNREAD = "file not read: ";
/** How many unread files or folders the notes name, across regions. */
const MAX_UNREAD_NAMES = 40;
