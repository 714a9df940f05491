/**
 * Load throughput of the Terraform state importer on a large generated state
 * (seeded; 100,000 resources ≈ 200 MB by default, `CLOUD_BENCH_RESOURCES` for
 * fewer), beside `jq . FILE > /dev/null` on the same file in the same run.
 * Prints MB/s for both and the RSS with the loaded records still alive.
 */

import { compareTo, measure, median } from "./helpers/bench_stats.ts";
import { hasProgram } from "./helpers/programs.ts";
import { fileImportInput } from "../src/cloud/importers/importer.ts";
import { terraformStateImporter } from "../src/cloud/importers/terraform_state.ts";

const COUNT = Number(Deno.env.get("CLOUD_BENCH_RESOURCES") ?? "100000");
const HAS_JQ = hasProgram("jq");
if (!HAS_JQ) console.log("skip: jq is not installed; the jq peer bench is ignored");

/** mulberry32: a small seeded generator, so every run writes the same state. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes a version-4 state of `count` resources to `path`, a resource at a time. */
async function generateState(path: string, count: number): Promise<number> {
  const rand = prng(42);
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

const dir = Deno.env.get("CLOUD_BENCH_DIR") ?? await Deno.makeTempDir();
const path = `${dir}/bench.tfstate`;
const bytes = await generateState(path, COUNT);
const megabytes = bytes / 1024 / 1024;
console.log(`generated ${COUNT} resources, ${megabytes.toFixed(1)} MB`);
let assets = 0;
let peakAfterLoad = Number.NaN;

Deno.bench({
  name: "terraformStateImporter.load (generated state)",
  group: "terraform-load",
  baseline: true,
  n: 2,
  warmup: 0,
  fn: async (b) => {
    await measure("tf-load", b, async () => {
      const result = await terraformStateImporter.load(fileImportInput(path));
      assets = result.records.assets.length;
      // Sampled while the records are alive: close to the load's peak.
      peakAfterLoad = Math.max(Number.isNaN(peakAfterLoad) ? 0 : peakAfterLoad, rssMb());
    });
  },
});

Deno.bench({
  name: "jq . FILE > /dev/null (same file)",
  group: "terraform-load",
  ignore: !HAS_JQ,
  n: 2,
  warmup: 0,
  fn: async (b) => {
    await measure("tf-jq", b, async () => {
      const out = await new Deno.Command("jq", {
        args: [".", path],
        stdout: "null",
        stderr: "null",
      }).output();
      if (!out.success) throw new Error("jq failed");
    });
  },
});

compareTo("terraform state load vs jq", "tf-load", "tf-jq", null);

globalThis.addEventListener("unload", () => {
  const load = median("tf-load");
  const jq = median("tf-jq");
  if (!Number.isNaN(load)) {
    console.log(
      `terraform load: ${(megabytes / (load / 1000)).toFixed(1)} MB/s (${assets} assets)`,
    );
  }
  if (!Number.isNaN(jq)) console.log(`jq . : ${(megabytes / (jq / 1000)).toFixed(1)} MB/s`);
  console.log(`RSS with the loaded records alive (max over runs): ${peakAfterLoad.toFixed(0)} MB`);
  if (Deno.env.get("CLOUD_BENCH_DIR")) return;
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch {
    // already gone
  }
});
