/**
 * Load throughput per input kind on large generated inputs, each beside
 * `jq . FILE > /dev/null` on the same file in the same run: a seeded Terraform
 * state (100,000 resources ≈ 200 MB by default, `CLOUD_BENCH_RESOURCES`), Prowler
 * OCSF JSON Lines (`CLOUD_BENCH_FINDINGS`, default 40,000 findings) and IAM
 * authorization details (`CLOUD_BENCH_ROLES`, default 20,000 roles).
 * Prints MB/s for both and the RSS with the loaded records still alive.
 */

import { compareTo, measure, median } from "./helpers/bench_stats.ts";
import { hasProgram } from "./helpers/programs.ts";
import { mulberry32 } from "./helpers/random.ts";
import { fileImportInput } from "../src/cloud/importers/import_input.ts";
import type { Importer } from "../src/cloud/importers/importer.ts";
import { terraformStateImporter } from "../src/cloud/importers/terraform_state.ts";
import { prowlerOcsfImporter } from "../src/cloud/importers/prowler_ocsf.ts";
import { iamAuthorizationImporter } from "../src/cloud/importers/iam_authorization.ts";

const COUNT = Number(Deno.env.get("CLOUD_BENCH_RESOURCES") ?? "100000");
const FINDINGS = Number(Deno.env.get("CLOUD_BENCH_FINDINGS") ?? "40000");
const ROLES = Number(Deno.env.get("CLOUD_BENCH_ROLES") ?? "20000");
const OCSF_FIXTURE = new URL(
  "../../shared/fixtures/cloud/prowler/ocsf/test_prowler_output.ocsf.json",
  import.meta.url,
);
const HAS_JQ = hasProgram("jq");
if (!HAS_JQ) console.log("skip: jq is not installed; the jq peer bench is ignored");

/** Writes a version-4 state of `count` resources to `path`, a resource at a time. */
async function generateState(path: string, count: number): Promise<number> {
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

/** Resident set size now, in MB (Deno denies /proc/self/status without --allow-all). */
function rssMb(): number {
  return Deno.memoryUsage().rss / 1024 / 1024;
}

/** Writes `count` OCSF findings as JSON Lines, varying the fixture's failed finding. */
async function generateOcsf(path: string, count: number): Promise<number> {
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

/** Writes authorization details with `count` roles, a tenth of them with broad inline policies. */
async function generateAuthorization(path: string, count: number): Promise<number> {
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

const dir = Deno.env.get("CLOUD_BENCH_DIR") ?? await Deno.makeTempDir();

interface Kind {
  label: string;
  path: string;
  megabytes: number;
  importer: Importer;
  items: number;
  rss: number;
}

const kinds: Kind[] = [];
for (
  const [label, file, importer, generate, n] of [
    ["terraform", "bench.tfstate", terraformStateImporter, generateState, COUNT],
    ["prowler-ocsf", "bench.ocsf.jsonl", prowlerOcsfImporter, generateOcsf, FINDINGS],
    [
      "iam-authorization-details",
      "bench.authz.json",
      iamAuthorizationImporter,
      generateAuthorization,
      ROLES,
    ],
  ] as const
) {
  const path = `${dir}/${file}`;
  const bytes = await generate(path, n);
  kinds.push({ label, path, megabytes: bytes / 1024 / 1024, importer, items: 0, rss: 0 });
  console.log(`generated ${label}: ${n} items, ${(bytes / 1024 / 1024).toFixed(1)} MB`);
}

for (const kind of kinds) {
  Deno.bench({
    name: `${kind.label}: importer load`,
    group: kind.label,
    baseline: true,
    n: 2,
    warmup: 0,
    fn: async (b) => {
      await measure(`${kind.label}-load`, b, async () => {
        const result = await kind.importer.load(fileImportInput(kind.path));
        kind.items = result.records.assets.length + result.records.findings.length;
        // Sampled while the records are alive: close to the load's peak.
        kind.rss = Math.max(kind.rss, rssMb());
      });
    },
  });
  Deno.bench({
    name: `${kind.label}: jq . FILE > /dev/null`,
    group: kind.label,
    ignore: !HAS_JQ,
    n: 2,
    warmup: 0,
    fn: async (b) => {
      await measure(`${kind.label}-jq`, b, async () => {
        const out = await new Deno.Command("jq", {
          args: [".", kind.path],
          stdout: "null",
          stderr: "null",
        }).output();
        if (!out.success) throw new Error("jq failed");
      });
    },
  });
  compareTo(`${kind.label} load vs jq`, `${kind.label}-load`, `${kind.label}-jq`, null);
}

globalThis.addEventListener("unload", () => {
  for (const kind of kinds) {
    const load = median(`${kind.label}-load`);
    const jq = median(`${kind.label}-jq`);
    const parts = [`${kind.label} (${kind.megabytes.toFixed(1)} MB)`];
    if (!Number.isNaN(load)) {
      parts.push(`load ${(kind.megabytes / (load / 1000)).toFixed(1)} MB/s, ${kind.items} records`);
      parts.push(`RSS with records alive ${kind.rss.toFixed(0)} MB`);
    }
    if (!Number.isNaN(jq)) parts.push(`jq ${(kind.megabytes / (jq / 1000)).toFixed(1)} MB/s`);
    console.log(parts.join("; "));
  }
  if (Deno.env.get("CLOUD_BENCH_DIR")) return;
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch {
    // already gone
  }
});
