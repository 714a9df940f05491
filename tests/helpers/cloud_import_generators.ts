/**
 * Seeded writers of large inputs for the import benchmarks, one per input
 * kind: a Terraform state, Prowler OCSF JSON Lines, IAM authorization details,
 * an AWS API dump directory (cloudmapper layout), Checkov `results_json`, Trivy
 * JSON, ScoutSuite `scoutsuite_results*.js`, Prowler JSON-ASFF and a Terraform
 * plan (`terraform show -json`). Most clone real records (the shared fixtures or
 * the format samples of `cloud_scanner_samples.ts`) and varies their ids, so
 * the shapes are the formats' own; the same seed always writes the same bytes.
 * Every writer streams to disk and returns the bytes written.
 */

import { mulberry32 } from "./random.ts";
import {
  ASFF_REPORT,
  CHECKOV_REPORT,
  SCOUTSUITE_SCRIPT,
  TRIVY_REPORT,
} from "./cloud_scanner_samples.ts";

type Json = Record<string, unknown>;

const FIXTURES = new URL("../../../shared/fixtures/cloud/", import.meta.url);
const DUMP_REGION = new URL("cloudmapper/account-data/demo/us-east-1/", FIXTURES);
const TF_PLAN = new URL("checkov/tfplan.json", FIXTURES);
const OCSF_FIXTURE = new URL("prowler/ocsf/test_prowler_output.ocsf.json", FIXTURES);
const PAD_WORDS = "the quick brown fox jumps over the lazy dog while the cloud estate grows ";

/** Buffers text and writes it to a file in blocks of about a megabyte. */
class BlockWriter {
  #file: Deno.FsFile;
  #parts: string[] = [];
  #pending = 0;
  #encoder = new TextEncoder();
  /** Bytes written so far (flushed or not). */
  bytes = 0;

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** Opens (truncating) `path`. */
  static async open(path: string): Promise<BlockWriter> {
    return new BlockWriter(
      await Deno.open(path, { write: true, create: true, truncate: true }),
    );
  }

  /** Appends text, flushing when a block is full. */
  async write(text: string): Promise<void> {
    this.#parts.push(text);
    this.#pending += text.length;
    if (this.#pending >= 1 << 20) await this.#flush();
  }

  async #flush(): Promise<void> {
    const data = this.#encoder.encode(this.#parts.join(""));
    this.#parts = [];
    this.#pending = 0;
    this.bytes += data.length;
    let offset = 0;
    while (offset < data.length) offset += await this.#file.write(data.subarray(offset));
  }

  /** Flushes and closes; returns the bytes written. */
  async close(): Promise<number> {
    await this.#flush();
    this.#file.close();
    return this.bytes;
  }
}

/** Writes `{"<key>": [items…]}`-shaped JSON: `head`, the items comma-joined, then `tail`. */
async function writeArrayDocument(
  path: string,
  head: string,
  count: number,
  item: (i: number) => unknown,
  tail: string,
): Promise<number> {
  const out = await BlockWriter.open(path);
  await out.write(head);
  for (let i = 0; i < count; i++) await out.write((i === 0 ? "" : ",") + JSON.stringify(item(i)));
  await out.write(tail);
  return await out.close();
}

function padding(random: () => number, min: number, spread: number): string {
  const length = min + Math.floor(random() * spread);
  return PAD_WORDS.repeat(Math.ceil(length / PAD_WORDS.length)).slice(0, length);
}

function hex(random: () => number, digits: number): string {
  let out = "";
  for (let i = 0; i < digits; i++) out += Math.floor(random() * 16).toString(16);
  return out;
}

async function fixtureJson(url: URL): Promise<Json> {
  return JSON.parse(await Deno.readTextFile(url)) as Json;
}

/** Options of {@linkcode writeAwsDump}. */
export interface AwsDumpOptions {
  /** Regions written. @default 4 */
  regions?: number;
  /** EC2 instances per region (with one ENI each). @default 2,500 */
  instancesPerRegion?: number;
  /** @default 17 */
  seed?: number;
}

const DUMP_REGIONS = [
  "us-east-1",
  "eu-west-1",
  "ap-south-1",
  "us-west-2",
  "eu-central-1",
  "sa-east-1",
  "ca-central-1",
  "ap-northeast-1",
];

/**
 * Writes an account dump at `dir` (the account directory): `describe-regions.json`
 * and per region the caller identity, VPCs, subnets, security groups,
 * instances and network interfaces, cloned from the cloudmapper demo account.
 * Per region: a VPC per 125 instances, 8 subnets
 * per VPC, 4 security groups per 5 instances. Returns the bytes of every file.
 */
export async function writeAwsDump(dir: string, options: AwsDumpOptions = {}): Promise<number> {
  const regions = DUMP_REGIONS.slice(0, Math.min(options.regions ?? 4, DUMP_REGIONS.length));
  const perRegion = options.instancesPerRegion ?? 2_500;
  const random = mulberry32(options.seed ?? 17);
  const read = (name: string): Promise<Json> => fixtureJson(new URL(name, DUMP_REGION));
  const baseInstance = ((await read("ec2-describe-instances.json")).Reservations as Json[])[0]!;
  const baseGroups = (await read("ec2-describe-security-groups.json")).SecurityGroups as Json[];
  const baseSubnet = ((await read("ec2-describe-subnets.json")).Subnets as Json[])[0]!;
  const baseVpc = ((await read("ec2-describe-vpcs.json")).Vpcs as Json[])[0]!;
  const baseEni =
    ((await read("ec2-describe-network-interfaces.json")).NetworkInterfaces as Json[])[0]!;
  const identity = await read("sts-get-caller-identity.json");
  const account = String(identity.Account);

  await Deno.mkdir(dir, { recursive: true });
  let bytes = 0;
  const small = async (path: string, value: unknown): Promise<void> => {
    const text = JSON.stringify(value, null, 2);
    await Deno.writeTextFile(path, text);
    bytes += new TextEncoder().encode(text).length;
  };
  await small(`${dir}/describe-regions.json`, {
    Regions: regions.map((r) => ({ Endpoint: `ec2.${r}.amazonaws.com`, RegionName: r })),
  });
  for (const [r, region] of regions.entries()) {
    const at = `${dir}/${region}`;
    await Deno.mkdir(at, { recursive: true });
    await small(`${at}/sts-get-caller-identity.json`, identity);
    const vpcs = Math.max(1, Math.ceil(perRegion / 125));
    const subnets = vpcs * 8;
    const groups = Math.max(1, Math.floor(perRegion * 0.8));
    const vpcId = (v: number): string => `vpc-${r}${v.toString(16).padStart(7, "0")}`;
    const subnetId = (s: number): string => `subnet-${r}${s.toString(16).padStart(7, "0")}`;
    const groupId = (g: number): string => `sg-${r}${g.toString(16).padStart(7, "0")}`;
    const instanceId = (i: number): string => `i-${r}${i.toString(16).padStart(16, "0")}`;
    const eniId = (i: number): string => `eni-${r}${i.toString(16).padStart(7, "0")}`;
    bytes += await writeArrayDocument(`${at}/ec2-describe-vpcs.json`, '{"Vpcs":[', vpcs, (v) => ({
      ...structuredClone(baseVpc),
      VpcId: vpcId(v),
      CidrBlock: `10.${v % 256}.0.0/16`,
      Tags: [{ Key: "Name", Value: `vpc-${region}-${v}` }],
    }), "]}");
    bytes += await writeArrayDocument(
      `${at}/ec2-describe-subnets.json`,
      '{"Subnets":[',
      subnets,
      (s) => ({
        ...structuredClone(baseSubnet),
        SubnetId: subnetId(s),
        VpcId: vpcId(Math.floor(s / 8)),
        CidrBlock: `10.${Math.floor(s / 8) % 256}.${(s % 8) * 16}.0/20`,
        MapPublicIpOnLaunch: random() < 0.25,
        Tags: [{ Key: "Name", Value: `subnet-${region}-${s}` }],
      }),
      "]}",
    );
    bytes += await writeArrayDocument(
      `${at}/ec2-describe-security-groups.json`,
      '{"SecurityGroups":[',
      groups,
      (g) => ({
        ...structuredClone(baseGroups[g % baseGroups.length]!),
        GroupId: groupId(g),
        GroupName: `sg-${region}-${g}`,
        VpcId: vpcId(g % vpcs),
        OwnerId: account,
      }),
      "]}",
    );
    const placement: { subnet: number; group: number; public: boolean }[] = [];
    for (let i = 0; i < perRegion; i++) {
      placement.push({
        subnet: Math.floor(random() * subnets),
        group: Math.floor(random() * groups),
        public: random() < 0.2,
      });
    }
    bytes += await writeArrayDocument(
      `${at}/ec2-describe-instances.json`,
      '{"Reservations":[',
      perRegion,
      (i) => {
        const p = placement[i]!;
        const reservation = structuredClone(baseInstance);
        const instance = (reservation.Instances as Json[])[0]!;
        const vpc = vpcId(Math.floor(p.subnet / 8));
        const sg = { GroupName: `sg-${region}-${p.group}`, GroupId: groupId(p.group) };
        const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
        Object.assign(instance, {
          InstanceId: instanceId(i),
          SubnetId: subnetId(p.subnet),
          VpcId: vpc,
          PrivateIpAddress: ip,
          SecurityGroups: [sg],
          Tags: [{ Key: "Name", Value: `web-${region}-${i}` }, {
            Key: "team",
            Value: `t${i % 20}`,
          }],
        });
        if (!p.public) {
          delete instance.PublicIpAddress;
          instance.PublicDnsName = "";
        }
        for (const eni of (instance.NetworkInterfaces as Json[] | undefined) ?? []) {
          Object.assign(eni, {
            NetworkInterfaceId: eniId(i),
            SubnetId: subnetId(p.subnet),
            VpcId: vpc,
            Groups: [sg],
            PrivateIpAddress: ip,
          });
        }
        reservation.ReservationId = `r-${r}${i.toString(16).padStart(16, "0")}`;
        reservation.OwnerId = account;
        return reservation;
      },
      "]}",
    );
    bytes += await writeArrayDocument(
      `${at}/ec2-describe-network-interfaces.json`,
      '{"NetworkInterfaces":[',
      perRegion,
      (i) => {
        const p = placement[i]!;
        const eni = structuredClone(baseEni);
        Object.assign(eni, {
          NetworkInterfaceId: eniId(i),
          SubnetId: subnetId(p.subnet),
          VpcId: vpcId(Math.floor(p.subnet / 8)),
          Groups: [{ GroupName: `sg-${region}-${p.group}`, GroupId: groupId(p.group) }],
          Description: `Primary network interface of ${instanceId(i)}`,
        });
        const attachment = eni.Attachment as Json | undefined;
        if (attachment) attachment.InstanceId = instanceId(i);
        return eni;
      },
      "]}",
    );
  }
  return bytes;
}

/** Writes a Checkov `results_json` report of `checks` checks, about a third of them failed. */
export async function writeCheckovReport(path: string, checks: number, seed = 19): Promise<number> {
  const random = mulberry32(seed);
  const templates = [
    ...CHECKOV_REPORT.results.passed_checks,
    ...CHECKOV_REPORT.results.failed_checks,
  ] as Json[];
  const failed: number[] = [];
  const passed: number[] = [];
  for (let i = 0; i < checks; i++) (random() < 0.35 ? failed : passed).push(i);
  const check = (i: number, result: "PASSED" | "FAILED"): Json => {
    const base = structuredClone(templates[i % templates.length]!);
    const [type] = String(base.resource).split(".");
    const file = `/modules/m${i % 400}/main.tf`;
    return {
      ...base,
      check_result: { ...(base.check_result as Json), result },
      resource: `${type}.r${i}`,
      resource_address: `module.m${i % 400}.${type}.r${i}`,
      file_path: file,
      repo_file_path: file,
      file_abs_path: `/src/infra${file}`,
      file_line_range: [i % 900, (i % 900) + 12],
      check_name: `${base.check_name} (${padding(random, 40, 120)})`,
    };
  };
  const out = await BlockWriter.open(path);
  await out.write(
    `{"check_type":"terraform","results":{"passed_checks":[`,
  );
  for (const [n, i] of passed.entries()) {
    await out.write((n ? "," : "") + JSON.stringify(check(i, "PASSED")));
  }
  await out.write(`],"failed_checks":[`);
  for (const [n, i] of failed.entries()) {
    await out.write((n ? "," : "") + JSON.stringify(check(i, "FAILED")));
  }
  await out.write(
    `],"skipped_checks":[],"parsing_errors":[]},"summary":${
      JSON.stringify({
        ...CHECKOV_REPORT.summary,
        passed: passed.length,
        failed: failed.length,
        resource_count: checks,
      })
    }}`,
  );
  return await out.close();
}

/** Writes a Trivy (schema 2) report of `vulnerabilities` vulnerabilities over 50-package targets. */
export async function writeTrivyReport(
  path: string,
  vulnerabilities: number,
  seed = 23,
): Promise<number> {
  const random = mulberry32(seed);
  const [osResult, ...rest] = TRIVY_REPORT.Results as Json[];
  const baseVuln = (osResult!.Vulnerabilities as Json[])[0]!;
  const severities = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "UNKNOWN"];
  const { Results: _results, ...head } = TRIVY_REPORT;
  const out = await BlockWriter.open(path);
  await out.write(JSON.stringify(head).slice(0, -1) + `,"Results":[`);
  const perTarget = 50;
  const targets = Math.ceil(vulnerabilities / perTarget);
  for (let t = 0; t < targets; t++) {
    const vulns: Json[] = [];
    for (let k = 0; k < perTarget && t * perTarget + k < vulnerabilities; k++) {
      const n = t * perTarget + k;
      vulns.push({
        ...baseVuln,
        VulnerabilityID: `CVE-${2015 + (n % 10)}-${10000 + n}`,
        PkgName: `pkg-${n % 5000}`,
        InstalledVersion: `1.${n % 30}.${n % 7}`,
        FixedVersion: random() < 0.7 ? `1.${n % 30}.${(n % 7) + 1}` : "",
        Severity: severities[Math.floor(random() * severities.length)],
        Title: `pkg-${n % 5000}: ${padding(random, 20, 60)}`,
        Description: padding(random, 300, 500),
        CVSS: { nvd: { V3Score: Math.round(random() * 100) / 10 } },
      });
    }
    await out.write(
      (t ? "," : "") + JSON.stringify({
        Target: `registry.example.invalid/team${t % 40}/svc${t}:1.${t % 9} (alpine 3.10.9)`,
        Class: "os-pkgs",
        Type: "alpine",
        Vulnerabilities: vulns,
      }),
    );
  }
  for (const result of rest) await out.write("," + JSON.stringify(result));
  await out.write("]}");
  return await out.close();
}

/**
 * Writes a ScoutSuite results script: per region, VPCs of security groups
 * (the resource data ScoutSuite stores beside its findings), about a fifth
 * of the groups flagged by the SSH rule and `groups / 10` buckets flagged by
 * the bucket rule. `groups` security groups in all.
 */
export async function writeScoutSuiteScript(
  path: string,
  groups: number,
  seed = 29,
): Promise<number> {
  const random = mulberry32(seed);
  const sample = JSON.parse(SCOUTSUITE_SCRIPT.slice(SCOUTSUITE_SCRIPT.indexOf("{"))) as Json;
  const services = sample.services as Record<string, { findings: Record<string, Json> }>;
  const sshRule = services.ec2!.findings["ec2-security-group-opens-SSH-port-to-all"]!;
  const bucketRule = services.s3!.findings["s3-bucket-world-policy-star"]!;
  const regions = DUMP_REGIONS.slice(0, 4);
  const sshItems: string[] = [];
  const out = await BlockWriter.open(path);
  await out.write(
    `scoutsuite_results =\n{"account_id":"123456789012","provider_code":"aws","provider_name":"Amazon Web Services","services":{"ec2":{"regions":{`,
  );
  const perVpc = 50;
  for (const [r, region] of regions.entries()) {
    await out.write(`${r ? "," : ""}${JSON.stringify(region)}:{"vpcs":{`);
    const inRegion = Math.ceil(groups / regions.length);
    for (let v = 0; v * perVpc < inRegion; v++) {
      const vpc = `vpc-${r}${v.toString(16).padStart(7, "0")}`;
      const sgs: Record<string, Json> = {};
      for (let k = 0; k < perVpc && v * perVpc + k < inRegion; k++) {
        const sg = `sg-${r}${(v * perVpc + k).toString(16).padStart(7, "0")}`;
        const open = random() < 0.2;
        if (open) {
          sshItems.push(
            `ec2.regions.${region}.vpcs.${vpc}.security_groups.${sg}.rules.ingress.protocols.TCP.ports.22.cidrs.0.CIDR`,
          );
        }
        sgs[sg] = {
          id: sg,
          name: `sg-${region}-${v}-${k}`,
          description: padding(random, 30, 80),
          owner_id: "123456789012",
          arn: `arn:aws:ec2:${region}:123456789012:security-group/${sg}`,
          rules: {
            ingress: {
              count: 1,
              protocols: {
                TCP: {
                  ports: { "22": { cidrs: [{ CIDR: open ? "0.0.0.0/0" : "10.0.0.0/8" }] } },
                },
              },
            },
            egress: { count: 1, protocols: { ALL: { ports: { "1-65535": { cidrs: [] } } } } },
          },
          used_by: { ec2: { resource_type: { instances: [`i-${hex(random, 17)}`] } } },
        };
      }
      await out.write(
        `${v ? "," : ""}${JSON.stringify(vpc)}:${
          JSON.stringify({ id: vpc, name: vpc, security_groups: sgs })
        }`,
      );
    }
    await out.write("}}");
  }
  const buckets = Math.max(1, Math.floor(groups / 10));
  const bucketItems = Array.from({ length: buckets }, (_, i) => `s3.buckets.bucket-${i}`);
  await out.write(
    `},"findings":${
      JSON.stringify({
        "ec2-security-group-opens-SSH-port-to-all": {
          ...sshRule,
          checked_items: groups,
          flagged_items: sshItems.length,
          items: sshItems,
        },
      })
    }},"s3":{"findings":${
      JSON.stringify({
        "s3-bucket-world-policy-star": {
          ...bucketRule,
          checked_items: buckets,
          flagged_items: buckets,
          items: bucketItems,
        },
      })
    }}}}\n`,
  );
  return await out.close();
}

/** Writes Prowler JSON-ASFF: `findings` findings, two thirds failed, each on its own bucket. */
export async function writeAsffReport(path: string, findings: number, seed = 31): Promise<number> {
  const random = mulberry32(seed);
  const [failedBase, passedBase] = ASFF_REPORT as Json[];
  return await writeArrayDocument(path, "[", findings, (i) => {
    const base = structuredClone(i % 3 === 0 ? passedBase! : failedBase!);
    const region = DUMP_REGIONS[i % 4]!;
    const check = `check_${i % 300}`;
    const bucket = `bucket-${i}`;
    return {
      ...base,
      Id: `prowler-${check}-123456789012-${region}-${bucket}`,
      GeneratorId: `prowler-${check}`,
      Description: `S3 Bucket ${bucket}: ${padding(random, 200, 400)}`,
      Resources: [{
        Type: "AwsS3Bucket",
        Id: `arn:aws:s3:::${bucket}`,
        Partition: "aws",
        Region: region,
      }],
      ProductFields: {
        ProviderName: "Prowler",
        ProviderVersion: "3.11.0",
        ProwlerResourceName: bucket,
      },
    };
  }, "]");
}

/**
 * Writes a Terraform plan (`terraform show -json`) holding `copies` copies of
 * the Checkov fixture plan's resources (planned values and resource changes),
 * each copy's names suffixed `_cN`; configuration and variables as in the fixture.
 */
export async function writeTerraformPlan(path: string, copies: number): Promise<number> {
  const plan = await fixtureJson(TF_PLAN);
  const root = (plan.planned_values as Json).root_module as Json;
  const resources = root.resources as Json[];
  const changes = plan.resource_changes as Json[];
  const renamed = (item: Json, c: number): Json => {
    const name = `${item.name}_c${c}`;
    return { ...item, name, address: `${item.type}.${name}` };
  };
  const { planned_values: _p, resource_changes: _r, prior_state: _s, ...rest } = plan;
  const out = await BlockWriter.open(path);
  await out.write(
    JSON.stringify(rest).slice(0, -1) + `,"planned_values":{"root_module":{"resources":[`,
  );
  for (let c = 0; c < copies; c++) {
    for (const [k, resource] of resources.entries()) {
      await out.write((c || k ? "," : "") + JSON.stringify(renamed(resource, c)));
    }
  }
  await out.write(`]}},"resource_changes":[`);
  for (let c = 0; c < copies; c++) {
    for (const [k, change] of changes.entries()) {
      await out.write((c || k ? "," : "") + JSON.stringify(renamed(change, c)));
    }
  }
  await out.write("]}");
  return await out.close();
}

/**
 * Writes a version-4 Terraform state of `count` AWS resources (VPCs, security
 * groups, instances, buckets, roles) to `path`, a resource at a time.
 * Returns the bytes written.
 */
export async function generateState(path: string, count: number): Promise<number> {
  const rand = mulberry32(42);
  const hex = (n: number): string =>
    Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join("");
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const enc = new TextEncoder();
  let bytes = 0;
  const write = async (s: string): Promise<void> => {
    const data = enc.encode(s);
    bytes += data.length;
    await file.write(data);
  };
  await write(
    '{"version":4,"terraform_version":"1.6.0","serial":1,"lineage":"bench","outputs":{},"resources":[',
  );
  const vpcs: string[] = [];
  const sgs: string[] = [];
  for (let i = 0; i < count; i++) {
    const kind = i < 10 ? 0 : Math.floor(rand() * 5);
    const module = i % 7 === 0 ? `"module":"module.m${i % 50}",` : "";
    const region = ["eu-west-1", "us-east-1", "ap-south-1"][i % 3]!;
    let type: string;
    let attributes: Record<string, unknown>;
    const tags = {
      Name: `r${i}`,
      team: `t${i % 20}`,
      cost: hex(8),
      note: "x".repeat(1400 + Math.floor(rand() * 400)),
    };
    if (kind === 0) {
      const id = `vpc-${hex(17)}`;
      vpcs.push(id);
      type = "aws_vpc";
      attributes = {
        id,
        arn: `arn:aws:ec2:${region}:111122223333:vpc/${id}`,
        cidr_block: "10.0.0.0/16",
        tags,
      };
    } else if (kind === 1) {
      const id = `sg-${hex(17)}`;
      sgs.push(id);
      type = "aws_security_group";
      const cidr = rand() < 0.1 ? "0.0.0.0/0" : "10.1.0.0/16";
      attributes = {
        id,
        arn: `arn:aws:ec2:${region}:111122223333:security-group/${id}`,
        name: `sg${i}`,
        vpc_id: vpcs[Math.floor(rand() * vpcs.length)],
        ingress: [{
          cidr_blocks: [cidr],
          ipv6_cidr_blocks: [],
          from_port: 22,
          to_port: 22,
          protocol: "tcp",
          security_groups: [],
          self: false,
          description: "ssh",
        }],
        egress: [{
          cidr_blocks: ["0.0.0.0/0"],
          ipv6_cidr_blocks: [],
          from_port: 0,
          to_port: 0,
          protocol: "-1",
          security_groups: [],
          self: false,
          description: "",
        }],
        tags,
      };
    } else if (kind === 2) {
      const id = `i-${hex(17)}`;
      type = "aws_instance";
      attributes = {
        id,
        arn: `arn:aws:ec2:${region}:111122223333:instance/${id}`,
        ami: `ami-${hex(8)}`,
        instance_type: "t3.micro",
        vpc_security_group_ids: sgs.length ? [sgs[Math.floor(rand() * sgs.length)]] : [],
        public_ip: rand() < 0.2 ? "203.0.113.9" : "",
        metadata_options: [{ http_tokens: rand() < 0.5 ? "required" : "optional" }],
        user_data: hex(64),
        tags,
      };
    } else if (kind === 3) {
      const name = `bucket-${i}-${hex(6)}`;
      type = "aws_s3_bucket";
      attributes = {
        id: name,
        bucket: name,
        arn: `arn:aws:s3:::${name}`,
        acl: "private",
        server_side_encryption_configuration: rand() < 0.5 ? [{}] : [],
        tags,
      };
    } else {
      type = "aws_iam_role";
      attributes = {
        id: `role${i}`,
        name: `role${i}`,
        arn: `arn:aws:iam::111122223333:role/role${i}`,
        assume_role_policy: JSON.stringify({
          Version: "2012-10-17",
          Statement: [{
            Effect: "Allow",
            Principal: { Service: "ec2.amazonaws.com" },
            Action: "sts:AssumeRole",
          }],
        }),
        tags,
      };
    }
    const resource =
      `{${module}"mode":"managed","type":"${type}","name":"r${i}","provider":"provider[\\"registry.terraform.io/hashicorp/aws\\"]","instances":[{"schema_version":1,"attributes":${
        JSON.stringify(attributes)
      },"dependencies":${i > 0 && kind === 2 ? '["aws_vpc.r0"]' : "[]"}}]}`;
    await write((i === 0 ? "" : ",") + resource);
  }
  await write("]}");
  file.close();
  return bytes;
}

/** Writes `count` OCSF findings as JSON Lines, varying the fixture's failed finding; returns the bytes. */
export async function generateOcsf(path: string, count: number): Promise<number> {
  const items = JSON.parse(await Deno.readTextFile(OCSF_FIXTURE)) as Record<string, unknown>[];
  const base = items[0]!;
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const f = structuredClone(base);
    (f.finding_info as Record<string, unknown>).uid = `prowler-aws-check-${i}`;
    ((f.resources as Record<string, unknown>[])[0]!).uid = `arn:aws:s3:::bucket-${i}`;
    f.status_code = i % 3 === 0 ? "PASS" : "FAIL";
    lines.push(JSON.stringify(f));
  }
  const text = lines.join("\n") + "\n";
  await Deno.writeTextFile(path, text);
  return new TextEncoder().encode(text).length;
}

/** Writes IAM authorization details with `count` roles, a tenth with broad inline policies; returns the bytes. */
export async function generateAuthorization(path: string, count: number): Promise<number> {
  const rand = mulberry32(7);
  const roles = [];
  for (let i = 0; i < count; i++) {
    const broad = rand() < 0.1;
    roles.push({
      Path: "/",
      RoleName: `role-${i}`,
      RoleId: `AROA${i}`,
      Arn: `arn:aws:iam::111122223333:role/role-${i}`,
      AssumeRolePolicyDocument: {
        Version: "2012-10-17",
        Statement: [{
          Effect: "Allow",
          Principal: { Service: "ec2.amazonaws.com" },
          Action: "sts:AssumeRole",
        }],
      },
      RolePolicyList: [{
        PolicyName: "inline",
        PolicyDocument: {
          Version: "2012-10-17",
          Statement: [{
            Effect: "Allow",
            Action: broad ? ["iam:PassRole", "ec2:RunInstances", "s3:*"] : ["s3:GetObject"],
            Resource: broad ? "*" : `arn:aws:s3:::bucket-${i}/*`,
          }],
        },
      }],
      AttachedManagedPolicies: [{
        PolicyName: "ReadOnly",
        PolicyArn: "arn:aws:iam::111122223333:policy/ReadOnly",
      }],
      Tags: [{ Key: "team", Value: `t${i % 20}` }],
    });
  }
  const doc = {
    UserDetailList: [],
    GroupDetailList: [],
    RoleDetailList: roles,
    Policies: [{
      PolicyName: "ReadOnly",
      Arn: "arn:aws:iam::111122223333:policy/ReadOnly",
      DefaultVersionId: "v1",
      PolicyVersionList: [{
        VersionId: "v1",
        IsDefaultVersion: true,
        Document: { Statement: [{ Effect: "Allow", Action: ["ec2:Describe*"], Resource: "*" }] },
      }],
    }],
  };
  const text = JSON.stringify(doc);
  await Deno.writeTextFile(path, text);
  return new TextEncoder().encode(text).length;
}
