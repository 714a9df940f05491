/**
 * Grants to any principal (`*`) and the internet: every tool that counts
 * internet entries (get_edges from the internet, find_paths and
 * attack_paths from the internet, internet_exposure, the exposure flag of
 * asset briefs) applies one rule — an unconditional grant or trust to `*` is
 * an internet entry, one a policy condition or an S3 public access block
 * limits is not. Checked over a real client on an inline dataset, on the
 * cloudmapper demo account (expected grants read from its policy files at
 * test time) and on driftctl's S3 state with a public access block added.
 */

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client";
import type { Loose } from "./helpers/in_memory.ts";
import { withClient } from "./helpers/in_memory.ts";
import { bucketAsset, cursorPages, result, withInlineDataset } from "./helpers/cloud_client.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const FIXTURES = new URL("../../shared/fixtures/cloud/", import.meta.url).pathname;
const CLOUDMAPPER = `${FIXTURES}cloudmapper/account-data/demo`;
const S3_STATE = `${FIXTURES}driftctl/state/aws_s3_full.tfstate`;

/** The targets of the edges get_edges lists from the internet, sorted. */
async function internetTargets(client: Client, args: Record<string, unknown>): Promise<string[]> {
  const pages = await cursorPages(client, "get_edges", { limit: 500, ...args });
  return pages.flatMap((p) => p.items).filter((e: Loose) => e.source === "*").map((e: Loose) =>
    e.target
  ).sort();
}

/** The ids internet_exposure lists. */
async function exposedIds(client: Client): Promise<Set<string>> {
  const pages = await cursorPages(client, "internet_exposure", { limit: 500 });
  return new Set(pages.flatMap((p) => p.items).map((a: Loose) => a.id));
}

/** The paths find_paths finds from the internet to `target` in `mode`. */
async function pathsFromInternet(client: Client, target: string, mode = "flow"): Promise<Loose[]> {
  return (await result(client, "find_paths", { source: "internet", target, mode, max_paths: 50 }))
    .paths;
}

Deno.test("every tool counts an unconditional grant to * as an internet entry and a limited one as none", async () => {
  const grant = (target: string, properties: Record<string, unknown> = {}) => ({
    source_id: "*",
    target_id: target,
    edge_type: "GRANTS_ACCESS",
    description: "resource policy",
    properties: { via: "resource_policy", ...properties },
  });
  const dataset = {
    assets: [
      bucketAsset("open", "open"),
      bucketAsset("limited", "limited"),
      bucketAsset("blocked", "blocked"),
    ],
    edges: [
      grant("open"),
      // e.g. Condition {StringEquals: {aws:SourceVpce: ...}}: only callers through that endpoint.
      grant("limited", { conditional: true }),
      grant("blocked", { public_access_blocked: true }),
    ],
  };
  await withInlineDataset(dataset, async (client) => {
    // get_edges lists only the open grant from the internet; source `*` lists all three.
    assert.deepEqual(await internetTargets(client, { source: "internet" }), ["open"]);
    assert.deepEqual(await internetTargets(client, { internet_only: true }), ["open"]);
    const all = (await result(client, "get_edges", { source: "*" })).items;
    assert.deepEqual(
      all.map((e: Loose) => [e.target, e.conditional === true]),
      [["open", false], ["limited", true], ["blocked", false]],
    );
    // find_paths from the internet reaches the open bucket over the grant, in every mode,
    // and never leaves `*` along a limited grant.
    for (const mode of ["flow", "directed", "undirected"]) {
      const open = await pathsFromInternet(client, "open", mode);
      assert.deepEqual(open.map((p) => p.summary), ["* -> open"], mode);
      assert.deepEqual(open[0].edge_types, ["GRANTS_ACCESS"], mode);
      for (const target of ["limited", "blocked"]) {
        assert.deepEqual(await pathsFromInternet(client, target, mode), [], `${mode} ${target}`);
      }
    }
    // internet_exposure lists the open bucket with the grant as its evidence, and only it.
    const exposure = (await result(client, "internet_exposure", {})).items;
    assert.deepEqual(exposure.map((a: Loose) => a.id), ["open"]);
    assert.deepEqual(exposure[0].internet_rules.map((r: Loose) => r.edge_type), ["GRANTS_ACCESS"]);
    // The exposure flag of briefs and filters agrees.
    const flagged = (await result(client, "find_assets", { internet_exposed: true })).items;
    assert.deepEqual(flagged.map((a: Loose) => a.id), ["open"]);
    for (const id of ["open", "limited", "blocked"]) {
      const asset = await result(client, "get_asset", { ref: id });
      assert.equal(asset.internet_exposed, id === "open", id);
    }
    assert.equal((await result(client, "dataset_summary", {})).internet_exposed, 1);
    // attack_paths reaches the open bucket (a crown jewel) and not the others.
    const attacks = (await result(client, "attack_paths", {})).paths;
    const ends = attacks.map((p: Loose) => p.nodes.at(-1).id).sort();
    assert.deepEqual([...new Set(ends)], ["open"]);
  });
});

/** Whether a policy statement allows any principal (`"*"` or `{"AWS": "*"}`, alone or listed). */
function allowsAnyone(statement: Loose): boolean {
  if (statement.Effect !== "Allow") return false;
  const p = statement.Principal;
  if (p === "*") return true;
  const aws = p?.AWS;
  return aws === "*" || (Array.isArray(aws) && aws.includes("*"));
}

/**
 * The resources of the cloudmapper demo whose policy grants `*` (bucket,
 * queue and topic policies, role trust), read from the dump files: `open`
 * when a statement has no Condition, else `limited`.
 */
function demoStarGrants(): { open: Set<string>; limited: Set<string> } {
  const dir = `${CLOUDMAPPER}/us-east-1`;
  const read = (path: string): Loose => JSON.parse(Deno.readTextFileSync(`${dir}/${path}`));
  const policies: [string, Loose][] = [];
  for (const f of Deno.readDirSync(`${dir}/s3-get-bucket-policy`)) {
    policies.push([
      `arn:aws:s3:::${f.name}`,
      JSON.parse(read(`s3-get-bucket-policy/${f.name}`).Policy),
    ]);
  }
  const attributeFiles: [string, string][] = [
    ["sqs-get-queue-attributes", "QueueArn"],
    ["sns-get-topic-attributes", "TopicArn"],
  ];
  for (const [folder, key] of attributeFiles) {
    for (const f of Deno.readDirSync(`${dir}/${folder}`)) {
      const attributes = read(`${folder}/${f.name}`).Attributes;
      policies.push([attributes[key], JSON.parse(attributes.Policy)]);
    }
  }
  for (const role of read("iam-get-account-authorization-details.json").RoleDetailList) {
    policies.push([role.Arn, role.AssumeRolePolicyDocument]);
  }
  const open = new Set<string>();
  const limited = new Set<string>();
  for (const [arn, policy] of policies) {
    for (const s of policy.Statement.filter(allowsAnyone)) {
      (s.Condition === undefined ? open : limited).add(arn);
    }
  }
  // Search domains answering only inside their VPC (an `Endpoints.vpc`): their grants to * are
  // imported but let no one in from the internet.
  for (const f of Deno.readDirSync(`${dir}/es-describe-elasticsearch-domain`)) {
    const status = read(`es-describe-elasticsearch-domain/${f.name}`).DomainStatus;
    const policy = JSON.parse(status.AccessPolicies);
    if (!policy.Statement.some(allowsAnyone)) continue;
    (status.Endpoints?.vpc === undefined ? open : limited).add(status.ARN);
  }
  for (const arn of open) limited.delete(arn);
  return { open, limited };
}

Deno.test("the cloudmapper demo's grants to * are internet entries for every tool exactly when unconditional", async () => {
  const { open, limited } = demoStarGrants();
  assert.ok(open.size >= 3 && limited.size >= 1, JSON.stringify([[...open], [...limited]]));
  await withClient({ roots: [FIXTURES], workbenches: [cloudWorkbenchWith()] }, async (client) => {
    await result(client, "load_dataset", { path: CLOUDMAPPER, name: "demo" });
    // Every `*` grant is imported; get_edges from the internet lists the open ones only.
    const star = await internetTargets(client, { source: "*" });
    assert.deepEqual(new Set(star), new Set([...open, ...limited]));
    assert.deepEqual(await internetTargets(client, { source: "internet" }), [...open].sort());
    const exposed = await exposedIds(client);
    for (const arn of open) {
      assert.ok(exposed.has(arn), `internet_exposure misses ${arn}`);
      const paths = await pathsFromInternet(client, arn);
      assert.ok(paths.some((p) => p.nodes[0].id === "*" && p.length === 1), arn);
      assert.equal((await result(client, "get_asset", { ref: arn })).internet_exposed, true, arn);
    }
    for (const arn of limited) {
      assert.ok(!exposed.has(arn), `internet_exposure lists ${arn}`);
      // Other routes (through a role anyone may assume) may exist; the limited grant is no hop.
      const paths = await pathsFromInternet(client, arn);
      assert.ok(!paths.some((p) => p.nodes[0].id === "*" && p.length === 1), arn);
      assert.equal((await result(client, "get_asset", { ref: arn })).internet_exposed, false, arn);
    }
  });
});

Deno.test("a public access block takes the bucket's grants to * out of the internet entries", async () => {
  const state = JSON.parse(await Deno.readTextFile(S3_STATE));
  const policies = state.resources.filter((r: Loose) => r.type === "aws_s3_bucket_policy");
  const buckets: string[] = policies.map((r: Loose) => r.instances[0].attributes.bucket).sort();
  for (const r of policies) {
    const statements = JSON.parse(r.instances[0].attributes.policy).Statement;
    assert.ok(statements.some((s: Loose) => allowsAnyone(s) && s.Condition === undefined));
  }
  assert.ok(buckets.length >= 2, JSON.stringify(buckets));
  const blocked = buckets[0]!;
  // Block public policies on the first bucket, as aws_s3_bucket_public_access_block does.
  state.resources.push({
    mode: "managed",
    type: "aws_s3_bucket_public_access_block",
    name: "blocked",
    provider: 'provider["registry.terraform.io/hashicorp/aws"]',
    instances: [{
      schema_version: 0,
      attributes: {
        id: blocked,
        bucket: blocked,
        block_public_acls: true,
        block_public_policy: true,
        ignore_public_acls: true,
        restrict_public_buckets: true,
      },
    }],
  });
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/s3.tfstate`, JSON.stringify(state));
    await withClient({ roots: [dir], workbenches: [cloudWorkbenchWith()] }, async (client) => {
      await result(client, "load_dataset", { path: `${dir}/s3.tfstate`, name: "s3" });
      const nameOf = async (id: string): Promise<string> =>
        (await result(client, "get_asset", { ref: id })).name;
      const granted = await internetTargets(client, { source: "*" });
      const entries = await internetTargets(client, { source: "internet" });
      assert.deepEqual(
        (await Promise.all(granted.map(nameOf))).sort(),
        buckets,
        "every bucket policy grants *",
      );
      assert.deepEqual((await Promise.all(entries.map(nameOf))).sort(), buckets.slice(1));
      const exposed = await exposedIds(client);
      for (const id of granted) {
        const name = await nameOf(id);
        assert.equal(exposed.has(id), name !== blocked, name);
        const direct = (await pathsFromInternet(client, id)).some((p) =>
          p.nodes[0].id === "*" && p.length === 1
        );
        assert.equal(direct, name !== blocked, name);
      }
    });
  }, { prefix: "cloud-public-access-block-", realPath: true });
});

/**
 * SNS topics granting `*` under each condition of `conditions` (none for
 * `undefined`), as an AWS API dump of account 123456789012 with one open
 * security group (so the dataset has an internet node), loaded as the
 * client's active dataset while `body` runs.
 */
async function withStarTopics(
  conditions: Record<string, unknown>,
  body: (client: Client, topic: (name: string) => string) => Promise<void>,
): Promise<void> {
  const account = "123456789012";
  const topic = (name: string): string => `arn:aws:sns:us-east-1:${account}:${name}`;
  await withTempDir(async (dir) => {
    const put = async (name: string, value: unknown): Promise<void> => {
      const path = `${dir}/dump/us-east-1/${name}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, JSON.stringify(value));
    };
    await put("sts-get-caller-identity.json", { Account: account });
    await put("ec2-describe-security-groups.json", {
      SecurityGroups: [{
        GroupId: "sg-web",
        GroupName: "web",
        IpPermissions: [{
          IpProtocol: "tcp",
          FromPort: 443,
          ToPort: 443,
          IpRanges: [{ CidrIp: "0.0.0.0/0" }],
        }],
      }],
    });
    await put("sns-list-topics.json", {
      Topics: Object.keys(conditions).map((name) => ({ TopicArn: topic(name) })),
    });
    for (const [name, condition] of Object.entries(conditions)) {
      const statement = {
        Effect: "Allow",
        Principal: { AWS: "*" },
        Action: ["SNS:Publish", "SNS:Subscribe"],
        Resource: topic(name),
        ...(condition === undefined ? {} : { Condition: condition }),
      };
      await put(`sns-get-topic-attributes/${encodeURIComponent(topic(name))}`, {
        Attributes: {
          TopicArn: topic(name),
          Policy: JSON.stringify({ Version: "2012-10-17", Statement: [statement] }),
        },
      });
    }
    await withClient({ roots: [dir], workbenches: [cloudWorkbenchWith()] }, async (client) => {
      await result(client, "load_dataset", { path: `${dir}/dump`, name: "topics" });
      await body(client, topic);
    });
  }, { prefix: "cloud-star-topics-", realPath: true });
}

Deno.test("a grant to * is conditional and no internet entry exactly when its condition limits the caller", async () => {
  const account = "123456789012";
  // Topic name → [Condition, whether it limits who may call].
  const cases: Record<string, [unknown, boolean]> = {
    open: [undefined, false],
    owner: [{ StringEquals: { "AWS:SourceOwner": account } }, true],
    org: [{ StringEquals: { "aws:PrincipalOrgID": "o-a1b2c3d4e5" } }, true],
    endpoint: [{ StringEquals: { "aws:SourceVpce": "vpce-1a2b3c4d" } }, true],
    office: [{ IpAddress: { "aws:SourceIp": ["203.0.113.0/24", "198.51.100.7"] } }, true],
    anyBucket: [{ ArnLike: { "aws:SourceArn": `arn:aws:s3:::*` } }, false],
    alarms: [
      { ArnLike: { "aws:SourceArn": `arn:aws:cloudwatch:us-east-1:${account}:alarm:*` } },
      true,
    ],
    tls: [{ Bool: { "aws:SecureTransport": "true" } }, false],
    everywhere: [{ IpAddress: { "aws:SourceIp": "0.0.0.0/0" } }, false],
    wide: [{ IpAddress: { "aws:SourceIp": "10.0.0.0/7" } }, false],
    optional: [{ StringEqualsIfExists: { "aws:SourceAccount": account } }, false],
    anyAccount: [{ StringLike: { "aws:SourceAccount": "*" } }, false],
  };
  const conditions = Object.fromEntries(Object.entries(cases).map(([k, [c]]) => [k, c]));
  await withStarTopics(conditions, async (client, topic) => {
    const exposed = await exposedIds(client);
    const reach = (await result(client, "internet_exposure", { include_reachable: true }))
      .graph_reachable.items;
    for (const [name, [, limited]] of Object.entries(cases)) {
      const edges = (await result(client, "get_edges", { source: "*", target: topic(name) }))
        .items;
      assert.equal(edges.length, 1, name);
      assert.equal(edges[0].conditional === true, limited, name);
      // Every tool counts the open grant as an internet entry, none the limited one.
      const fromInternet =
        (await result(client, "get_edges", { source: "internet", target: topic(name) })).items;
      assert.equal(fromInternet.length, limited ? 0 : 1, name);
      assert.equal(exposed.has(topic(name)), !limited, name);
      // graph_reachable follows network hops only, never a grant.
      assert.ok(!reach.some((a: Loose) => a.id === topic(name)), name);
      const paths = await pathsFromInternet(client, topic(name));
      assert.equal(paths.length, limited ? 0 : 1, name);
    }
  });
});
