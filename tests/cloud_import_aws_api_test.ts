/**
 * The AWS API dump importer over the cloudmapper demo account. Counts and
 * records were checked by hand with jq on the files of
 * `cloudmapper/account-data/demo/us-east-1/` (commands beside the assertions).
 */

import assert from "node:assert/strict";
import { fileImportInput, ImportError } from "../src/cloud/importers/import_input.ts";
import { awsApiImporter, looksLikeAwsDump } from "../src/cloud/importers/aws_api_dump.ts";
import { withTempDir } from "./helpers/temp_dir.ts";
import { hasProgram, run } from "./helpers/programs.ts";
import { sharedFixture } from "./helpers/shared_fixtures.ts";
import { isInternetEntry } from "../src/cloud/graph/internet.ts";

const DEMO = sharedFixture("cloud/cloudmapper/account-data/demo");
const ACCOUNT = "123456789012";
const HAS_JQ = hasProgram("jq");
if (!HAS_JQ) console.log("jq is not on PATH: the unresolved-references test is skipped");
const sg = (id: string): string => `arn:aws:ec2:us-east-1:${ACCOUNT}:security-group/${id}`;

Deno.test("awsApiImporter loads the demo account as one dataset", async () => {
  const result = await awsApiImporter.load(fileImportInput(DEMO));
  const r = result.records;
  const count = (t: string): number => r.assets.filter((a) => a.asset_type === t).length;
  // 44 with the search domain myvpcdomain (jq '.DomainNames|length' es-list-domain-names.json).
  assert.equal(r.assets.length, 44);
  // 105 with sg-00000001's rule admitting its own members (jq: its IpPermissions name its GroupId),
  // and 4 of the domain: its subnet and group (jq '.DomainStatus.VPCOptions'
  // es-describe-elasticsearch-domain/myvpcdomain), its policy's grant to `*` and bad_role's es:*.
  assert.equal(r.edges.length, 109);
  assert.equal(r.findings.length, 21);
  assert.equal(count("SECURITY_GROUP"), 8); // jq '.SecurityGroups|length' ec2-describe-security-groups.json
  assert.equal(count("EC2"), 3); // jq '[.Reservations[].Instances[]]|length' ec2-describe-instances.json
  assert.equal(count("SUBNET"), 4); // jq '.Subnets|length' ec2-describe-subnets.json
  assert.equal(count("VPC"), 1);
  assert.equal(count("LOAD_BALANCER"), 2); // one classic (weblb), one ALB (demo)
  assert.equal(count("CLOUD_ACCOUNT"), 1);
  assert.deepEqual(r.regions, ["us-east-1"]);
  assert.ok(looksLikeAwsDump(["describe-regions.json", "us-east-1"]));
  assert.ok(result.notes.skipped["file not read"]! > 0);
});

Deno.test("awsApiImporter names the files and command folders it does not read, and reads the search domain", async () => {
  const result = await awsApiImporter.load(fileImportInput(DEMO));
  const region = `${DEMO}/us-east-1`;
  const listed = [...Deno.readDirSync(region)].map((e) => e.name);
  const named = Object.keys(result.notes.skipped).filter((k) => k.startsWith("file not read: "))
    .map((k) => k.slice("file not read: ".length)).sort();
  // Every name is an entry of the region folder, and together they make the count.
  assert.ok(named.every((n) => listed.includes(n)), named.join(", "));
  assert.equal(named.length, result.notes.skipped["file not read"]);
  assert.ok(named.includes("ecs-describe-tasks") && named.includes("iam-get-role"));
  assert.ok(!named.includes("es-describe-elasticsearch-domain"));
  // myvpcdomain: AccessPolicies allow AWS:* es:*, but its endpoint is the VPC's
  // (jq '.DomainStatus.Endpoints' es-describe-elasticsearch-domain/myvpcdomain), so no internet entry.
  const domain = result.records.assets.find((a) => a.asset_type === "SEARCH_DOMAIN")!;
  assert.equal(domain.name, "myvpcdomain");
  assert.equal(domain.metadata.vpc_only, true);
  assert.equal(domain.is_internet_exposed, false);
  const open = result.records.edges.find((e) =>
    e.source_id === "*" && e.target_id === domain.id && e.edge_type === "GRANTS_ACCESS"
  )!;
  assert.equal(open.properties.network_restricted, true);
  assert.equal(isInternetEntry(open), false);
});

Deno.test("awsApiImporter: containment, attachment, load balancer and internet edges", async () => {
  const r = (await awsApiImporter.load(fileImportInput(DEMO))).records;
  const has = (type: string, s: string, t: string): boolean =>
    r.edges.some((e) => e.edge_type === type && e.source_id === s && e.target_id === t);
  const vpc = `arn:aws:ec2:us-east-1:${ACCOUNT}:vpc/vpc-12345678`;
  const i0 = `arn:aws:ec2:us-east-1:${ACCOUNT}:instance/i-00000000000000000`;
  const i2 = `arn:aws:ec2:us-east-1:${ACCOUNT}:instance/i-00000000000000002`;
  const weblb = `arn:aws:elasticloadbalancing:us-east-1:${ACCOUNT}:loadbalancer/weblb`;
  const eni = `arn:aws:ec2:us-east-1:${ACCOUNT}:network-interface/eni-00000001`;
  assert.ok(has("CONTAINS", `arn:aws:iam::${ACCOUNT}:root`, vpc));
  assert.ok(has("CONTAINS", vpc, sg("sg-00000001")));
  // jq '.Reservations[].Instances[] | {InstanceId, SubnetId, sg: [.SecurityGroups[].GroupId]}'
  assert.ok(has("CONTAINS", `arn:aws:ec2:us-east-1:${ACCOUNT}:subnet/subnet-00000001`, i0));
  assert.ok(has("ATTACHED_TO", i0, sg("sg-00000002")));
  // jq '.LoadBalancerDescriptions[] | .Instances' elb-describe-load-balancers.json (i-…3 is not in the dump)
  assert.ok(has("LOAD_BALANCER_TARGET", weblb, i2));
  // Bastion sg-00000002 admits 22 from 1.1.1.1/32 and 2.2.2.2/28 only: not internet.
  const bastion = r.edges.filter((e) =>
    e.target_id === sg("sg-00000002") && e.edge_type === "SECURITY_GROUP_RULE"
  );
  assert.deepEqual(bastion.map((e) => e.cidr).sort(), ["1.1.1.1/32", "2.2.2.2/28"]);
  assert.ok(!bastion.some((e) => e.properties.internet === true));
  // sg-00000008 admits 443 from 0.0.0.0/0; eni-00000001 is in it with public IP 3.80.3.41.
  assert.ok(has("SECURITY_GROUP_RULE", "0.0.0.0/0", sg("sg-00000008")));
  assert.ok(has("INTERNET_EXPOSED", "0.0.0.0/0", eni));
  assert.equal(r.assets.find((a) => a.id === eni)?.is_internet_exposed, true);
  assert.equal(r.assets.find((a) => a.id === i0)?.is_internet_exposed, false);
  assert.ok(has("INTERNET_EXPOSED", "0.0.0.0/0", weblb));
  // jq -r .Policy s3-get-bucket-policy/cloudmapper_demo → Principal {"AWS":"*"} s3:GetObject
  assert.ok(has("INTERNET_EXPOSED", "0.0.0.0/0", "arn:aws:s3:::cloudmapper_demo"));
  assert.ok(
    has(
      "ASSUMES_ROLE",
      `arn:aws:lambda:us-east-1:${ACCOUNT}:function:invpclambda`,
      `arn:aws:iam::${ACCOUNT}:role/service-role/invpclambda`,
    ),
  );
  assert.ok(has("IAM_TRUST", "*", `arn:aws:iam::${ACCOUNT}:role/bad_role`));
  // Resource policies: jq -r .Attributes.Policy sqs-get-queue-attributes/* → Principal {"AWS":"*"};
  // jq -r .Policy lambda-get-policy/invpclambda → Principal {"Service":"apigateway.amazonaws.com"}
  assert.ok(has("GRANTS_ACCESS", "*", `arn:aws:sqs:us-east-1:${ACCOUNT}:demo`));
  // jq '.RoleDetailList[] | select(.RoleName=="exfiller") | .RolePolicyList' → s3:* on *: the bucket
  // (data-bearing) is reached, the roles and groups of the account are not.
  assert.ok(
    has("GRANTS_ACCESS", `arn:aws:iam::${ACCOUNT}:role/exfiller`, "arn:aws:s3:::cloudmapper_demo"),
  );
  assert.ok(
    !r.edges.some((e) => e.edge_type === "GRANTS_ACCESS" && e.target_id.includes(":role/")),
  );
  assert.ok(
    has(
      "GRANTS_ACCESS",
      "apigateway.amazonaws.com",
      `arn:aws:lambda:us-east-1:${ACCOUNT}:function:invpclambda`,
    ),
  );
});

Deno.test("awsApiImporter: findings from the credential report, policies and trails", async () => {
  const r = (await awsApiImporter.load(fileImportInput(DEMO))).records;
  const ids = new Set(r.findings.map((f) => f.id));
  // iam-get-credential-report.json: <root_account> access_key_1_active=true, mfa_active=true
  assert.ok(ids.has(`f-root-access-keys:arn:aws:iam::${ACCOUNT}:root`));
  assert.ok(!ids.has(`f-root-mfa-disabled:arn:aws:iam::${ACCOUNT}:root`));
  // user "user": password_enabled=true, mfa_active=false
  assert.ok(ids.has(`f-user-console-no-mfa:arn:aws:iam::${ACCOUNT}:user/user`));
  // cloudtrail-describe-trails.json: IsMultiRegionTrail false, LogFileValidationEnabled true
  assert.ok(
    ids.has(
      `f-cloudtrail-not-multi-region:arn:aws:cloudtrail:us-east-1:${ACCOUNT}:trail/cloudtrail`,
    ),
  );
  assert.ok(
    !ids.has(
      `f-cloudtrail-log-validation-disabled:arn:aws:cloudtrail:us-east-1:${ACCOUNT}:trail/cloudtrail`,
    ),
  );
  assert.ok(ids.has(`f-resource-policy-public:arn:aws:sqs:us-east-1:${ACCOUNT}:demo`));
  assert.ok(ids.has(`f-resource-policy-public:arn:aws:sns:us-east-1:${ACCOUNT}:demo_public`));
  assert.ok(!ids.has(`f-resource-policy-public:arn:aws:sns:us-east-1:${ACCOUNT}:demo_private`));
  assert.ok(ids.has(`f-default-sg-traffic:${sg("sg-00000001")}`));
  const cis = new Map(r.compliance.map((c) => [c.id, c.status]));
  assert.equal(cis.get("CIS-AWS:1.4"), "FAIL");
  assert.equal(cis.get("CIS-AWS:1.5"), "PASS");
  assert.equal(cis.get("CIS-AWS:5.2"), "PASS");
});

Deno.test("awsApiImporter: a file, a folder without regions and a broken region file are refused", async () => {
  await assert.rejects(
    () => awsApiImporter.load(fileImportInput(new URL("..", `file://${DEMO}/`).pathname)),
    (e: unknown) => e instanceof ImportError && /several account dumps \(demo\)/.test(e.message),
  );
  const file = `${DEMO}/describe-regions.json`;
  await assert.rejects(
    () => awsApiImporter.load(fileImportInput(file)),
    (e: unknown) =>
      e instanceof ImportError && /not a directory/.test(e.message) &&
      // It says where a lone CLI output goes.
      e.message.includes("eu-west-1/ec2-describe-security-groups.json"),
  );
  await withTempDir(async (dir) => {
    await assert.rejects(
      () => awsApiImporter.load(fileImportInput(dir)),
      (e: unknown) => e instanceof ImportError && /no region folder/.test(e.message),
    );
    await Deno.mkdir(`${dir}/eu-west-1`);
    await Deno.writeTextFile(
      `${dir}/eu-west-1/ec2-describe-vpcs.json`,
      '{"Vpcs": [{"VpcId": "vpc-1"',
    );
    await assert.rejects(
      () => awsApiImporter.load(fileImportInput(dir)),
      (e: unknown) =>
        e instanceof ImportError && /ec2-describe-vpcs\.json is not valid JSON/.test(e.message) &&
        /truncated/.test(e.message),
    );
  });
});

Deno.test("awsApiImporter: NACLs, volumes, flow logs and URL-encoded per-resource names", async () => {
  const dir = await Deno.makeTempDir();
  const put = async (name: string, value: unknown): Promise<void> => {
    const path = `${dir}/eu-west-1/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, JSON.stringify(value));
  };
  try {
    await put("sts-get-caller-identity.json", { Account: "210987654321" });
    await put("ec2-describe-vpcs.json", { Vpcs: [{ VpcId: "vpc-a" }, { VpcId: "vpc-b" }] });
    await put("ec2-describe-flow-logs.json", { FlowLogs: [{ ResourceId: "vpc-a" }] });
    await put("ec2-describe-instances.json", {
      Reservations: [{
        Instances: [{ InstanceId: "i-1", MetadataOptions: { HttpTokens: "required" } }],
      }],
    });
    await put("ec2-describe-volumes.json", {
      Volumes: [{ VolumeId: "vol-1", Encrypted: false, Attachments: [{ InstanceId: "i-1" }] }],
    });
    await put("ec2-describe-network-acls.json", {
      NetworkAcls: [{
        NetworkAclId: "acl-1",
        VpcId: "vpc-a",
        Entries: [
          {
            RuleNumber: 100,
            Protocol: "-1",
            RuleAction: "allow",
            Egress: false,
            CidrBlock: "0.0.0.0/0",
          },
          {
            RuleNumber: 32767,
            Protocol: "-1",
            RuleAction: "deny",
            Egress: false,
            CidrBlock: "0.0.0.0/0",
          },
        ],
      }],
    });
    const bucket = "odd.name-ü:x";
    await put("s3-list-buckets.json", { Buckets: [{ Name: bucket }] });
    await put(`s3-get-public-access-block/${encodeURIComponent(bucket)}`, {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    const r = (await awsApiImporter.load(fileImportInput(dir))).records;
    const ids = new Set(r.findings.map((f) => f.id));
    const arn = (res: string): string => `arn:aws:ec2:eu-west-1:210987654321:${res}`;
    assert.ok(ids.has(`f-nacl-open:${arn("network-acl/acl-1")}`));
    assert.ok(ids.has(`f-volume-unencrypted:${arn("volume/vol-1")}`));
    assert.ok(ids.has(`f-vpc-flow-logs-disabled:${arn("vpc/vpc-b")}`));
    assert.ok(!ids.has(`f-vpc-flow-logs-disabled:${arn("vpc/vpc-a")}`));
    assert.ok(!ids.has(`f-imdsv2-not-required:${arn("instance/i-1")}`));
    assert.ok(
      r.edges.some((e) =>
        e.edge_type === "ATTACHED_TO" && e.source_id === arn("volume/vol-1") &&
        e.target_id === arn("instance/i-1")
      ),
    );
    assert.ok(r.edges.some((e) => e.edge_type === "NACL_RULE" && e.source_id === "0.0.0.0/0"));
    const b = r.assets.find((a) => a.asset_type === "S3_BUCKET")!;
    assert.equal(b.id, `arn:aws:s3:::${bucket}`);
    assert.equal(b.metadata.public_access_block, true);
    assert.equal(b.account_id, "210987654321");
    assert.ok(!ids.has(`f-bucket-no-public-access-block:${b.id}`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("awsApiImporter: without sts-get-caller-identity the account is the reservations' OwnerId", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/ap-south-1`);
    const owner = "303030303030";
    const reservations = [
      { OwnerId: owner, Instances: [{ InstanceId: "i-aaa1", SecurityGroups: [] }] },
      { OwnerId: owner, Instances: [{ InstanceId: "i-bbb2", SecurityGroups: [] }] },
    ];
    await Deno.writeTextFile(
      `${dir}/ap-south-1/ec2-describe-instances.json`,
      JSON.stringify({ Reservations: reservations }),
    );
    const r = (await awsApiImporter.load(fileImportInput(dir))).records;
    const instances = r.assets.filter((a) => a.asset_type === "EC2");
    assert.deepEqual(
      instances.map((a) => [a.account_id, a.arn]).sort(),
      reservations.flatMap((res) =>
        res.Instances.map((
          i,
        ) => [owner, `arn:aws:ec2:ap-south-1:${owner}:instance/${i.InstanceId}`])
      ).sort(),
    );
    assert.deepEqual(
      r.assets.filter((a) => a.asset_type === "CLOUD_ACCOUNT").map((a) => a.account_id),
      [owner],
    );
  });
});

Deno.test(
  "awsApiImporter lists every subnet, VPC and group an asset names that the dump lacks as unresolved",
  { ignore: !HAS_JQ },
  async () => {
    await withTempDir(async (dir) => {
      await Deno.mkdir(`${dir}/eu-west-1`);
      const owner = "404040404040";
      // One instance in a subnet, VPC and group the dump lacks; one in a VPC it holds.
      const reservations = [{
        OwnerId: owner,
        Instances: [
          {
            InstanceId: "i-0001",
            SubnetId: "subnet-gone",
            VpcId: "vpc-gone",
            SecurityGroups: [{ GroupId: "sg-gone" }, { GroupId: "sg-here" }],
          },
          { InstanceId: "i-0002", SubnetId: "subnet-here", VpcId: "vpc-here", SecurityGroups: [] },
        ],
      }];
      const file = `${dir}/eu-west-1/ec2-describe-instances.json`;
      await Deno.writeTextFile(file, JSON.stringify({ Reservations: reservations }));
      await Deno.writeTextFile(
        `${dir}/eu-west-1/ec2-describe-vpcs.json`,
        JSON.stringify({ Vpcs: [{ VpcId: "vpc-here" }] }),
      );
      await Deno.writeTextFile(
        `${dir}/eu-west-1/ec2-describe-subnets.json`,
        JSON.stringify({ Subnets: [{ SubnetId: "subnet-here", VpcId: "vpc-here" }] }),
      );
      await Deno.writeTextFile(
        `${dir}/eu-west-1/ec2-describe-security-groups.json`,
        JSON.stringify({ SecurityGroups: [{ GroupId: "sg-here", VpcId: "vpc-here" }] }),
      );
      const r = (await awsApiImporter.load(fileImportInput(dir))).records;
      // The peer: every id an instance names, less the ids the dump's listings hold.
      const named = JSON.parse(
        await run("jq", [
          "-c",
          "--slurpfile",
          "v",
          `${dir}/eu-west-1/ec2-describe-vpcs.json`,
          "--slurpfile",
          "s",
          `${dir}/eu-west-1/ec2-describe-subnets.json`,
          "--slurpfile",
          "g",
          `${dir}/eu-west-1/ec2-describe-security-groups.json`,
          `([$v[0].Vpcs[].VpcId] + [$s[0].Subnets[].SubnetId] + [$g[0].SecurityGroups[].GroupId])
           as $held | [.Reservations[] | .OwnerId as $o | .Instances[] | .InstanceId as $i |
           ((.SubnetId // empty | ["subnet", .]), (.VpcId // empty | ["vpc", .]),
            (.SecurityGroups[].GroupId | ["security_group", .]))
           | select(.[1] as $id | $held | index($id) | not)
           | ["arn:aws:ec2:eu-west-1:\\($o):instance/\\($i)"] + .] | sort`,
          file,
        ]),
      );
      assert.ok(named.length > 0);
      assert.deepEqual(
        r.unresolved_references.map((u) => {
          const x = u as Record<string, string>;
          return [x.from, x.attribute, x.value];
        }).sort(),
        named,
      );
    });
  },
);

/** Copies the directory `from` into `to` (which must not exist), files and folders. */
async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to);
  for (const entry of Deno.readDirSync(from)) {
    if (entry.isDirectory) await copyTree(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

Deno.test("awsApiImporter: a public address is exposed only through its subnet's route to an internet gateway", async () => {
  await withTempDir(async (tmp) => {
    const dir = `${tmp}/demo`;
    await copyTree(DEMO, dir);
    const eni = `arn:aws:ec2:us-east-1:${ACCOUNT}:network-interface/eni-00000001`;
    const table = `arn:aws:ec2:us-east-1:${ACCOUNT}:route-table/rtb-1`;
    const local = { DestinationCidrBlock: "10.0.0.0/16", GatewayId: "local", State: "active" };
    const toIgw = { DestinationCidrBlock: "0.0.0.0/0", GatewayId: "igw-1", State: "active" };
    // eni-00000001 (public IP 3.80.3.41, sg-00000008 open on 443) sits in subnet-00000001.
    const load = async (tables: unknown[] | null) => {
      const routes = `${dir}/us-east-1/ec2-describe-route-tables.json`;
      if (tables === null) await Deno.remove(routes).catch(() => {});
      else await Deno.writeTextFile(routes, JSON.stringify({ RouteTables: tables }));
      const r = (await awsApiImporter.load(fileImportInput(dir))).records;
      const asset = r.assets.find((a) => a.id === eni)!;
      return {
        r,
        exposed: asset.is_internet_exposed,
        route: asset.metadata.internet_route,
        edge: r.edges.some((e) => e.edge_type === "INTERNET_EXPOSED" && e.target_id === eni),
      };
    };
    await Deno.writeTextFile(
      `${dir}/us-east-1/ec2-describe-internet-gateways.json`,
      JSON.stringify({
        InternetGateways: [{
          InternetGatewayId: "igw-1",
          Attachments: [{ State: "available", VpcId: "vpc-12345678" }],
        }],
      }),
    );
    const associated = (routes: unknown[]) => [{
      RouteTableId: "rtb-1",
      VpcId: "vpc-12345678",
      Routes: routes,
      Associations: [{ RouteTableId: "rtb-1", SubnetId: "subnet-00000001", Main: false }],
    }];

    const open = await load(associated([local, toIgw]));
    assert.deepEqual([open.exposed, open.route, open.edge], [true, "internet_gateway", true]);
    const has = (type: string, s: string, t: string): boolean =>
      open.r.edges.some((e) => e.edge_type === type && e.source_id === s && e.target_id === t);
    const subnet = `arn:aws:ec2:us-east-1:${ACCOUNT}:subnet/subnet-00000001`;
    const igw = `arn:aws:ec2:us-east-1:${ACCOUNT}:internet-gateway/igw-1`;
    assert.ok(has("ROUTE", subnet, table) && has("ROUTE", table, igw));
    assert.equal(open.r.assets.find((a) => a.id === igw)?.asset_type, "INTERNET_GATEWAY");

    // Only the VPC's own range: the address answers nothing from the internet.
    const closed = await load(associated([local]));
    assert.deepEqual([closed.exposed, closed.route, closed.edge], [false, "none", false]);
    // A route to a gateway that is gone (AWS: State blackhole) sends nothing either.
    const gone = await load(associated([local, { ...toIgw, State: "blackhole" }]));
    assert.deepEqual([gone.exposed, gone.route, gone.edge], [false, "none", false]);
    // A 0.0.0.0/0 route to a NAT gateway is a way out, not in.
    const nat = await load(
      associated([local, { ...toIgw, GatewayId: undefined, NatGatewayId: "nat-1" }]),
    );
    assert.deepEqual([nat.exposed, nat.route], [false, "none"]);

    // No association for the subnet: the VPC's main table decides.
    const main = (routes: unknown[]) => [{
      RouteTableId: "rtb-main",
      VpcId: "vpc-12345678",
      Routes: routes,
      Associations: [{ RouteTableId: "rtb-main", Main: true }],
    }];
    const viaMain = await load(main([local, toIgw]));
    assert.deepEqual([viaMain.exposed, viaMain.route], [true, "internet_gateway"]);
    const mainClosed = await load(main([local]));
    assert.deepEqual([mainClosed.exposed, mainClosed.route], [false, "none"]);

    // Without route tables the routes are not weighed, as before, and the result says so.
    const unknown = await load(null);
    assert.deepEqual([unknown.exposed, unknown.route, unknown.edge], [true, "not_checked", true]);
  }, { prefix: "casefile-aws-routes-" });
});
