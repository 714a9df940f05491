/**
 * Terraform state and plan importers over the shared driftctl states and the
 * Checkov TerraGoat plan. Exact records were checked by hand against the
 * files with jq (commands beside each assertion).
 */

import assert from "node:assert/strict";
import {
  fileImportInput,
  ImportError,
  MAX_IMPORT_BYTES,
} from "../src/cloud/importers/import_input.ts";
import { terraformStateImporter } from "../src/cloud/importers/terraform_state.ts";
import { terraformPlanImporter } from "../src/cloud/importers/terraform_plan.ts";
import { withTempDir } from "./helpers/temp_dir.ts";
import { plannedResource, planOf } from "./helpers/terraform_plans.ts";

const STATES = new URL("../../shared/fixtures/cloud/driftctl/state/", import.meta.url);
const PLAN = new URL("../../shared/fixtures/cloud/checkov/tfplan.json", import.meta.url).pathname;

function state(name: string): string {
  return new URL(name, STATES).pathname;
}

Deno.test("terraformStateImporter loads every valid driftctl state", async () => {
  const names = [...Deno.readDirSync(STATES)].filter((e) =>
    e.isFile && e.name.endsWith(".tfstate")
  );
  assert.equal(names.length, 24);
  for (const e of names) {
    const result = await terraformStateImporter.load(fileImportInput(state(e.name)));
    const total = result.records.assets.length +
      Object.values(result.notes.skipped).reduce((a, b) => a + b, 0);
    assert.ok(total > 0, `${e.name} produced nothing`);
  }
});

Deno.test("terraformStateImporter refuses the two invalid-version states, naming the version", async () => {
  await assert.rejects(
    () => terraformStateImporter.load(fileImportInput(state("invalid/invalid_version.tfstate"))),
    (e: unknown) =>
      e instanceof ImportError && /terraform_version "invalid"/.test(e.message) &&
      /not a valid/.test(e.message),
  );
  await assert.rejects(
    () =>
      terraformStateImporter.load(fileImportInput(state("invalid/unsupported_version.tfstate"))),
    (e: unknown) =>
      e instanceof ImportError && /"0\.10\.26"/.test(e.message) && /not supported/.test(e.message),
  );
});

Deno.test("terraformStateImporter: security groups open to the internet become rule edges and findings", async () => {
  // jq '.resources[].instances[].attributes | {id, ingress: [.ingress[] | {cidr_blocks, protocol, self}]}'
  //   aws_vpc_security_group.tfstate → test-sg ingress -1 from 0.0.0.0/0; default SG ingress self only.
  const r =
    (await terraformStateImporter.load(fileImportInput(state("aws_vpc_security_group.tfstate"))))
      .records;
  assert.equal(r.assets.length, 2);
  const sg = r.assets.find((a) => a.id === "aws_security_group.test-sg")!;
  assert.equal(sg.arn, "arn:aws:ec2:eu-west-3:047081014315:security-group/sg-0254c038e32f25530");
  assert.equal(sg.asset_type, "SECURITY_GROUP");
  assert.equal(sg.region, "eu-west-3");
  assert.equal(sg.account_id, "047081014315");
  assert.equal(sg.name, "foo");
  assert.equal(sg.is_internet_exposed, true);
  const open = r.edges.find((e) => e.source_id === "0.0.0.0/0" && e.target_id === sg.id)!;
  assert.equal(open.edge_type, "SECURITY_GROUP_RULE");
  assert.equal(open.protocol, "ALL");
  assert.equal(open.port_range, "*");
  assert.equal(open.description, "Foo");
  assert.deepEqual(
    r.findings.map((f) => f.id).sort(),
    [
      "f-all-ports-open:aws_security_group.test-sg",
      "f-default-sg-traffic:aws_default_security_group.test-default-sg",
      "f-rdp-open:aws_security_group.test-sg",
      "f-ssh-open:aws_security_group.test-sg",
    ],
  );
  const def = r.assets.find((a) => a.id === "aws_default_security_group.test-default-sg")!;
  assert.equal(def.is_internet_exposed, false);
});

Deno.test("terraformStateImporter: IPv6 ::/0 ingress of a rule resource marks its (stub) group", async () => {
  // jq '.resources[] | select(.name=="bla-ingress") | .instances[0].attributes | {security_group_id, ipv6_cidr_blocks}'
  //   aws_vpc_security_group_rule.tfstate → sg-0d290f68e48de546b, ["::/0"]
  const r = (await terraformStateImporter.load(
    fileImportInput(state("aws_vpc_security_group_rule.tfstate")),
  )).records;
  const v6 = r.edges.filter((e) => e.source_id === "::/0" && e.direction === "ingress");
  assert.ok(v6.some((e) => e.target_id === "sg-0d290f68e48de546b"));
  assert.equal(r.assets.find((a) => a.id === "sg-0254c038e32f25530")?.metadata.stub, true);
  assert.ok(r.unresolved_references.length > 0);
});

Deno.test("terraformStateImporter: count instances, depends_on and inline policies", async () => {
  // jq '.resources[0].instances | length' aws_iam_role_multiple.tfstate → 3 (index_key 0,1,2)
  const roles =
    (await terraformStateImporter.load(fileImportInput(state("aws_iam_role_multiple.tfstate"))))
      .records;
  assert.deepEqual(roles.assets.map((a) => a.id), [
    "aws_iam_role.test_role[0]",
    "aws_iam_role.test_role[1]",
    "aws_iam_role.test_role[2]",
  ]);
  assert.equal(roles.assets[0]!.asset_type, "IAM_ROLE");
  assert.ok(roles.assets[0]!.metadata.trust_policy !== undefined);
  // aws_lb_listener.tfstate: the listener depends_on the LB and target group; subnets sit in aws_vpc.main (not in the file).
  const lb =
    (await terraformStateImporter.load(fileImportInput(state("aws_lb_listener.tfstate")))).records;
  assert.equal(lb.assets.length, 6);
  assert.ok(
    lb.edges.some((e) =>
      e.source_id === "aws_lb.test" && e.target_id === "aws_lb_listener.front_end" &&
      e.edge_type === "CONTAINS"
    ),
  );
  assert.ok(
    lb.edges.some((e) =>
      e.source_id === "aws_lb_listener.front_end" && e.target_id === "aws_lb_target_group.test" &&
      e.edge_type === "LOAD_BALANCER_TARGET"
    ),
  );
  assert.ok(
    lb.edges.some((e) =>
      e.source_id === "aws_lb.test" && e.target_id === "aws_security_group.lb_sg" &&
      e.edge_type === "ATTACHED_TO"
    ),
  );
  assert.ok(lb.providers.includes("AWS"));
});

Deno.test("terraformStateImporter: Azure NSG open to * and Google bucket bindings", async () => {
  // jq '.resources[] | select(.type=="azurerm_network_security_group") | .instances[0].attributes.security_rule'
  const az = (await terraformStateImporter.load(
    fileImportInput(state("azurerm_network_security_group.tfstate")),
  )).records;
  const nsg = az.assets.find((a) => a.id === "azurerm_network_security_group.example")!;
  assert.equal(nsg.asset_type, "NSG");
  assert.equal(nsg.provider, "AZURE");
  assert.equal(nsg.account_id, "7bfb2c5c-7308-46ed-8ae4-fffa356eb406");
  assert.equal(nsg.region, "westeurope");
  const e = az.edges.find((x) => x.target_id === nsg.id && x.edge_type === "SECURITY_GROUP_RULE")!;
  assert.equal(e.source_id, "0.0.0.0/0");
  assert.equal(e.cidr, "*");
  assert.equal(e.protocol, "TCP");
  assert.ok(az.findings.some((f) => f.id === "f-ssh-open:azurerm_network_security_group.example"));
  assert.ok(az.compliance.some((c) => c.id === "CIS-AZURE:7.2" && c.status === "FAIL"));
  assert.ok(!az.findings.some((f) => f.resource_id === "azurerm_network_security_group.example-1"));
  const gcs =
    (await terraformStateImporter.load(fileImportInput(state("google_bucket_iam_binding.tfstate"))))
      .records;
  assert.deepEqual(gcs.assets.map((a) => a.name).sort(), [
    "dctlgstoragebucketiambinding-1",
    "dctlgstoragebucketiambinding-2",
  ]);
  assert.equal((gcs.assets[0]!.metadata.iam_bindings as unknown[]).length, 2);
});

Deno.test("terraformPlanImporter: TerraGoat plan assets, reference edges and rule findings", async () => {
  // jq '[.planned_values.root_module.resources[] | select(.type != "null_resource")] | length' → 54
  // of which 13 are link types folded into edges (jq for security_group_rule, route, *_attachment, …)
  const result = await terraformPlanImporter.load(fileImportInput(PLAN));
  const r = result.records;
  assert.equal(r.assets.length, 41);
  assert.equal(result.notes.skipped["folded into edges or parent"], 13);
  assert.equal(result.notes.skipped["not a cloud resource"], 1);
  assert.equal(result.notes.unknown_asset_types["aws_db_option_group"], 1);
  const web = r.assets.find((a) => a.id === "aws_instance.web_host")!;
  assert.equal(web.asset_type, "EC2");
  assert.deepEqual(web.metadata.plan_actions, ["create"]);
  // web_host: vpc_security_group_ids = [aws_security_group.web-node.id] (configuration reference)
  assert.ok(
    r.edges.some((e) =>
      e.source_id === web.id && e.target_id === "aws_security_group.web-node" &&
      e.edge_type === "ATTACHED_TO"
    ),
  );
  assert.ok(
    r.edges.some((e) =>
      e.source_id === "aws_lambda_function.analysis_lambda" &&
      e.target_id === "aws_iam_role.iam_for_lambda" && e.edge_type === "ASSUMES_ROLE"
    ),
  );
  // web-node ingress: 22 and 80 from 0.0.0.0/0 (jq '.planned_values.root_module.resources[] | select(.name=="web-node") | .values.ingress')
  assert.ok(r.findings.some((f) => f.id === "f-ssh-open:aws_security_group.web-node"));
  assert.ok(r.findings.some((f) => f.id === "f-db-public:aws_db_instance.default"));
  assert.equal(web.is_internet_exposed, true);
  // Trust policies of the three roles (jq '… | select(.type=="aws_iam_role") | .values.assume_role_policy')
  assert.deepEqual(
    r.edges.filter((e) => e.edge_type === "IAM_TRUST").map((e) => `${e.source_id}>${e.target_id}`)
      .sort(),
    [
      "ec2.amazonaws.com>aws_iam_role.ec2role",
      "eks.amazonaws.com>aws_iam_role.iam_for_eks",
      "lambda.amazonaws.com>aws_iam_role.iam_for_lambda",
    ],
  );
  // aws_iam_user_policy.userpolicy allows ec2:*, s3:*, lambda:* on * → PassRole-free methods such
  // as EditExistingLambdaFunctionWithRole (lambda:UpdateFunctionCode).
  const esc = r.findings.find((f) => f.id === "f-iam-privilege-escalation:aws_iam_user.user")!;
  assert.match(esc.evidence, /EditExistingLambdaFunctionWithRole/);
  assert.ok(r.findings.some((f) => f.id === "f-iam-user-direct-policy:aws_iam_user.user"));
  assert.ok(r.edges.some((e) => e.edge_type === "INTERNET_EXPOSED" && e.target_id === web.id));
});

Deno.test("terraformPlanImporter: an instance exposed through an open group is exposed on the group's open ports only", async () => {
  // The plan's own word: web-node's ingress blocks open to 0.0.0.0/0, as from_port-to_port.
  const plan = JSON.parse(await Deno.readTextFile(PLAN));
  const group = plan.planned_values.root_module.resources.find((
    r: { type: string; name: string },
  ) => r.type === "aws_security_group" && r.name === "web-node");
  const open = (group.values.ingress as Record<string, unknown>[]).filter((i) =>
    (i.cidr_blocks as string[] | null ?? []).includes("0.0.0.0/0")
  );
  const expected = open.map((i) =>
    i.from_port === i.to_port ? String(i.from_port) : `${i.from_port}-${i.to_port}`
  ).sort();
  assert.ok(expected.length > 0 && !expected.includes("0-0"), "the group opens some ports only");
  const r = (await terraformPlanImporter.load(fileImportInput(PLAN))).records;
  const exposed = r.edges.filter((e) =>
    e.edge_type === "INTERNET_EXPOSED" && e.target_id === "aws_instance.web_host"
  );
  assert.equal(exposed.length, 1);
  assert.deepEqual(exposed[0]!.port_range!.split(",").sort(), expected);
  assert.deepEqual(
    exposed[0]!.ports,
    expected.filter((p) => !p.includes("-")).map(Number).sort((a, b) => a - b),
  );
});

Deno.test("a plan and the state it changes share asset keys", async () => {
  const text = await Deno.readTextFile(state("aws_vpc.tfstate"));
  const st = JSON.parse(text);
  const plan = {
    format_version: "1.2",
    terraform_version: "1.5.7",
    planned_values: {
      root_module: {
        resources: st.resources.map((
          r: { type: string; name: string; mode: string; instances: { attributes: unknown }[] },
        ) => ({
          address: `${r.type}.${r.name}`,
          mode: r.mode,
          type: r.type,
          name: r.name,
          values: r.instances[0]!.attributes,
        })),
      },
    },
    resource_changes: [],
  };
  const a = await terraformStateImporter.load(fileImportInput(state("aws_vpc.tfstate")));
  const b = await terraformPlanImporter.load({ ...fileImportInput("plan.json"), json: plan });
  assert.deepEqual(
    b.records.assets.map((x) => [x.id, x.arn]),
    a.records.assets.map((x) => [x.id, x.arn]),
  );
});

Deno.test("terraformPlanImporter: network ids a resource names that are not in the plan are unresolved references", async () => {
  const inPlan = { subnet: "subnet-0a1b2c3d4e5f60718", group: "sg-0123456789abcdef0" };
  const missing = { subnet: "subnet-08d97c958ab1effaf", group: "sg-0dd5a3c9ad93769cd" };
  const plan = planOf([
    plannedResource("aws_subnet", "known", { id: inPlan.subnet, cidr_block: "10.0.1.0/24" }),
    plannedResource("aws_security_group", "known", { id: inPlan.group, name: "known" }),
    plannedResource("aws_instance", "inside", {
      subnet_id: inPlan.subnet,
      vpc_security_group_ids: [inPlan.group],
    }),
    plannedResource("aws_instance", "outside", {
      subnet_id: missing.subnet,
      vpc_security_group_ids: [inPlan.group, missing.group],
      ami: "ami-0123456789abcdef0",
    }),
  ]);
  const r = (await terraformPlanImporter.load({ ...fileImportInput("plan.json"), json: plan }))
    .records;
  assert.deepEqual(
    (r.unresolved_references as Record<string, unknown>[])
      .map((u) => [u.from, u.attribute, u.value]).sort(),
    [
      ["aws_instance.outside", "subnet_id", missing.subnet],
      ["aws_instance.outside", "vpc_security_group_ids", missing.group],
    ],
  );
  // What is in the plan still links.
  assert.ok(
    r.edges.some((e) =>
      e.edge_type === "ATTACHED_TO" && e.source_id === "aws_instance.outside" &&
      e.target_id === "aws_security_group.known"
    ),
  );
});

Deno.test("terraformPlanImporter: AWS resources that name no region take the plan's one AWS provider region; IAM stays global", async () => {
  // jq '.configuration.provider_config.aws.expressions.region.constant_value' → "us-west-2"
  const r = (await terraformPlanImporter.load(fileImportInput(PLAN))).records;
  const regionOf = (id: string) => r.assets.find((a) => a.id === id)?.region;
  assert.equal(regionOf("aws_instance.web_host"), "us-west-2");
  assert.equal(regionOf("aws_s3_bucket.data"), "us-west-2");
  assert.equal(regionOf("aws_lambda_function.analysis_lambda"), "us-west-2");
  // IAM is a global service, whatever region the provider sets.
  const global = r.assets.filter((a) => a.region === "global").map((a) => a.id).sort();
  assert.deepEqual(global, [
    "aws_iam_access_key.user",
    "aws_iam_instance_profile.ec2profile",
    "aws_iam_role.ec2role",
    "aws_iam_role.iam_for_eks",
    "aws_iam_role.iam_for_lambda",
    "aws_iam_user.user",
  ]);
  assert.equal(r.assets.filter((a) => a.region === "us-west-2").length, r.assets.length - 6);

  // An aliased second AWS provider (or a region that is not a constant) may place resources
  // elsewhere: no region is guessed.
  const planWith = (providerConfig: Record<string, unknown>) =>
    planOf([plannedResource("aws_instance", "app", { ami: "ami-0123456789abcdef0" })], {
      configuration: { provider_config: providerConfig },
    });
  const regionIn = async (providerConfig: Record<string, unknown>) =>
    (await terraformPlanImporter.load({
      ...fileImportInput("plan.json"),
      json: planWith(providerConfig),
    })).records.assets.find((a) => a.id === "aws_instance.app")!.region;
  const constant = (region: string) => ({ expressions: { region: { constant_value: region } } });
  assert.equal(await regionIn({ aws: { name: "aws", ...constant("eu-west-1") } }), "eu-west-1");
  assert.equal(
    await regionIn({
      aws: { name: "aws", ...constant("eu-west-1") },
      "aws.west": { name: "aws", alias: "west", ...constant("us-west-2") },
    }),
    "global",
  );
  assert.equal(
    await regionIn({
      aws: { name: "aws", expressions: { region: { references: ["var.region"] } } },
    }),
    "global",
  );
  // A region given through a root variable the plan holds a value for.
  const viaVariable = (await terraformPlanImporter.load({
    ...fileImportInput("plan.json"),
    json: {
      ...planWith({
        aws: { name: "aws", expressions: { region: { references: ["var.region"] } } },
      }),
      variables: { region: { value: "eu-west-1" } },
    },
  })).records.assets.find((a) => a.id === "aws_instance.app")!;
  assert.equal(viaVariable.region, "eu-west-1");
});

Deno.test("terraform importers: resources of a sole AWS provider share the region and account the others name; aliases or disagreement fill nothing", async () => {
  const subnetArn = "arn:aws:ec2:us-west-1:176723687943:subnet/subnet-0a9bd94d1c3cca834";
  const stateWith = (providers: [string, string]) => ({
    version: 4,
    terraform_version: "1.5.7",
    lineage: "l",
    serial: 1,
    resources: [
      {
        mode: "managed",
        type: "aws_subnet",
        name: "pub",
        provider: providers[0],
        instances: [{ attributes: { id: "subnet-0a9bd94d1c3cca834", arn: subnetArn } }],
      },
      {
        // An Elastic IP and a NAT gateway carry no ARN, zone or account of their own.
        mode: "managed",
        type: "aws_eip",
        name: "ip",
        provider: providers[1],
        instances: [{ attributes: { id: "eipalloc-0123", network_border_group: "us-west-1" } }],
      },
      {
        mode: "managed",
        type: "aws_nat_gateway",
        name: "ngw",
        provider: providers[1],
        instances: [{ attributes: { id: "nat-0123", subnet_id: "subnet-0a9bd94d1c3cca834" } }],
      },
      {
        mode: "managed",
        type: "aws_iam_role",
        name: "r",
        provider: providers[1],
        instances: [{ attributes: { id: "r", name: "r", assume_role_policy: "{}" } }],
      },
    ],
  });
  const placed = async (providers: [string, string]) =>
    Object.fromEntries(
      (await terraformStateImporter.load({
        ...fileImportInput("terraform.tfstate"),
        json: stateWith(providers),
      })).records.assets.map((a) => [a.id, [a.region, a.account_id]]),
    );
  const root = 'provider["registry.terraform.io/hashicorp/aws"]';
  assert.deepEqual(await placed([root, root]), {
    "aws_subnet.pub": ["us-west-1", "176723687943"],
    "aws_eip.ip": ["us-west-1", "176723687943"],
    "aws_nat_gateway.ngw": ["us-west-1", "176723687943"],
    // IAM is global; the role still belongs to the provider's account.
    "aws_iam_role.r": ["global", "176723687943"],
  });
  // An aliased configuration may be another region and account.
  assert.deepEqual(await placed([root, `${root}.west`]), {
    "aws_subnet.pub": ["us-west-1", "176723687943"],
    "aws_eip.ip": ["global", null],
    "aws_nat_gateway.ngw": ["global", null],
    "aws_iam_role.r": ["global", null],
  });

  // A plan: regional resources that name two regions (a resource-level override) fill nothing.
  const plan = (regions: string[]) =>
    planOf([
      ...regions.map((r, i) =>
        plannedResource("aws_subnet", `s${i}`, { availability_zone: `${r}a` })
      ),
      plannedResource("aws_instance", "app", { ami: "ami-0123456789abcdef0" }),
    ], { configuration: { provider_config: { aws: { name: "aws" } } } });
  const appRegion = async (regions: string[]) =>
    (await terraformPlanImporter.load({ ...fileImportInput("plan.json"), json: plan(regions) }))
      .records.assets.find((a) => a.id === "aws_instance.app")!.region;
  assert.equal(await appRegion(["eu-central-1"]), "eu-central-1");
  assert.equal(await appRegion(["eu-central-1", "eu-central-1"]), "eu-central-1");
  assert.equal(await appRegion(["eu-central-1", "us-east-1"]), "global");
});

Deno.test("terraformPlanImporter: a role with AWS's AdministratorAccess attached is flagged though the policy is not in the plan", async () => {
  const plan = planOf([
    plannedResource("aws_iam_role", "ops", { name: "ops", assume_role_policy: "{}" }),
    plannedResource("aws_iam_role", "eks", { name: "eks", assume_role_policy: "{}" }),
    plannedResource("aws_iam_role_policy_attachment", "ops_admin", {
      policy_arn: "arn:aws:iam::aws:policy/AdministratorAccess",
    }),
    plannedResource("aws_iam_role_policy_attachment", "eks_cluster", {
      policy_arn: "arn:aws:iam::aws:policy/AmazonEKSClusterPolicy",
    }),
  ], {
    configuration: {
      root_module: {
        resources: [
          {
            address: "aws_iam_role_policy_attachment.ops_admin",
            expressions: { role: { references: ["aws_iam_role.ops.name", "aws_iam_role.ops"] } },
          },
          {
            address: "aws_iam_role_policy_attachment.eks_cluster",
            expressions: { role: { references: ["aws_iam_role.eks.name", "aws_iam_role.eks"] } },
          },
        ],
      },
    },
  });
  const r = (await terraformPlanImporter.load({ ...fileImportInput("plan.json"), json: plan }))
    .records;
  const flagged = r.findings.filter((f) => f.id.startsWith("f-iam-administrator-access-attached:"));
  assert.deepEqual(flagged.map((f) => f.resource_id), ["aws_iam_role.ops"]);
  assert.match(flagged[0]!.evidence, /arn:aws:iam::aws:policy\/AdministratorAccess attached/);
});

Deno.test("terraform importers: bad input is refused with file and position", async () => {
  await withTempDir(async (dir) => {
    const full = await Deno.readTextFile(state("aws_vpc.tfstate"));
    await Deno.writeTextFile(`${dir}/cut.tfstate`, full.slice(0, 500));
    await assert.rejects(
      () => terraformStateImporter.load(fileImportInput(`${dir}/cut.tfstate`)),
      (e: unknown) =>
        e instanceof ImportError && /cut\.tfstate is not valid JSON/.test(e.message) &&
        /line \d+, column \d+/.test(e.message) && /truncated/.test(e.message),
    );
    await Deno.writeTextFile(
      `${dir}/bad.tfstate`,
      '{"version": 4, "terraform_version": "1.0.0", "resources": [,]}',
    );
    await assert.rejects(
      () => terraformStateImporter.load(fileImportInput(`${dir}/bad.tfstate`)),
      (e: unknown) =>
        e instanceof ImportError && /line 1, column \d+/.test(e.message) &&
        !/truncated/.test(e.message),
    );
    await Deno.writeTextFile(
      `${dir}/v3.tfstate`,
      '{"version": 3, "terraform_version": "0.11.14", "modules": []}',
    );
    await assert.rejects(
      () => terraformStateImporter.load(fileImportInput(`${dir}/v3.tfstate`)),
      (e: unknown) => e instanceof ImportError && /state of version 3/.test(e.message),
    );
    // A plan forced as a state, and a state forced as a plan.
    await assert.rejects(
      () => terraformStateImporter.load(fileImportInput(PLAN)),
      (e: unknown) => e instanceof ImportError && /not a Terraform state/.test(e.message),
    );
    await assert.rejects(
      () => terraformPlanImporter.load(fileImportInput(state("aws_vpc.tfstate"))),
      (e: unknown) => e instanceof ImportError && /not a Terraform plan/.test(e.message),
    );
    // Size limit: refused before reading, the limit in the message.
    await assert.rejects(
      () =>
        terraformStateImporter.load(fileImportInput(state("aws_vpc.tfstate"), { maxBytes: 100 })),
      (e: unknown) =>
        e instanceof ImportError && /over the import limit of 100 bytes/.test(e.message),
    );
    assert.equal(MAX_IMPORT_BYTES, 256 * 1024 * 1024);
    // A 1 GB file (sparse: no disk used) is refused before any byte is read.
    const big = await Deno.open(`${dir}/huge.tfstate`, { create: true, write: true });
    await big.truncate(1024 * 1024 * 1024);
    big.close();
    await assert.rejects(
      () => terraformStateImporter.load(fileImportInput(`${dir}/huge.tfstate`)),
      (e: unknown) =>
        e instanceof ImportError &&
        /1073741824 bytes, over the import limit of 268435456 bytes \(256 MiB\)/.test(e.message),
    );
  });
});

Deno.test("terraformStateImporter: unknown types counted, unusual names and for_each keys kept", async () => {
  const weird = {
    version: 4,
    terraform_version: "1.6.0",
    resources: [
      {
        mode: "managed",
        type: "aws_shiny_new_thing",
        name: "x",
        provider: 'provider["registry.terraform.io/hashicorp/aws"]',
        instances: [{ index_key: 0, attributes: { id: "a" } }, {
          index_key: 1,
          attributes: { id: "b" },
        }],
      },
      {
        module: 'module.net["eu west"]',
        mode: "managed",
        type: "aws_s3_bucket",
        name: "b",
        each: "map",
        instances: [{
          index_key: 'naïve "quoted" / ключ',
          attributes: {
            id: "bucket with spaces",
            bucket: "bucket with spaces",
            arn: "arn:aws:s3:::bucket with spaces",
          },
        }],
      },
    ],
  };
  const r = await terraformStateImporter.load({
    ...fileImportInput("weird.tfstate"),
    json: weird,
  });
  assert.deepEqual(r.notes.unknown_asset_types, { aws_shiny_new_thing: 2 });
  assert.equal(r.records.assets.filter((a) => a.asset_type === "OTHER").length, 2);
  const bucket = r.records.assets.find((a) => a.asset_type === "S3_BUCKET")!;
  assert.equal(bucket.id, 'module.net["eu west"].aws_s3_bucket.b["naïve \\"quoted\\" / ключ"]');
  assert.equal(bucket.metadata.terraform_module, 'module.net["eu west"]');
  assert.equal(bucket.name, "bucket with spaces");
});

Deno.test("terraformPlanImporter: child modules, for_each keys and module-local references", async () => {
  const plan = {
    format_version: "1.2",
    terraform_version: "1.6.0",
    planned_values: {
      root_module: {
        child_modules: [{
          address: "module.net",
          resources: [
            {
              address: "module.net.aws_vpc.main",
              mode: "managed",
              type: "aws_vpc",
              name: "main",
              values: { cidr_block: "10.0.0.0/16" },
            },
            {
              address: 'module.net.aws_subnet.s["a"]',
              mode: "managed",
              type: "aws_subnet",
              name: "s",
              index: "a",
              values: { cidr_block: "10.0.1.0/24" },
            },
            {
              address: 'module.net.aws_subnet.s["b"]',
              mode: "managed",
              type: "aws_subnet",
              name: "s",
              index: "b",
              values: { cidr_block: "10.0.2.0/24" },
            },
          ],
        }],
      },
    },
    resource_changes: [
      {
        address: "module.net.aws_vpc.main",
        type: "aws_vpc",
        name: "main",
        change: { actions: ["create"] },
      },
      {
        address: "aws_instance.gone",
        type: "aws_instance",
        name: "gone",
        change: { actions: ["delete"], before: { id: "i-1" } },
      },
    ],
    configuration: {
      root_module: {
        module_calls: {
          net: {
            module: {
              resources: [
                { address: "aws_vpc.main", type: "aws_vpc", expressions: {} },
                {
                  address: "aws_subnet.s",
                  type: "aws_subnet",
                  expressions: { vpc_id: { references: ["aws_vpc.main.id", "aws_vpc.main"] } },
                },
              ],
            },
          },
        },
      },
    },
  };
  const r = await terraformPlanImporter.load({ ...fileImportInput("plan.json"), json: plan });
  assert.deepEqual(r.records.assets.map((a) => a.id), [
    "module.net.aws_vpc.main",
    'module.net.aws_subnet.s["a"]',
    'module.net.aws_subnet.s["b"]',
  ]);
  assert.equal(r.records.assets[1]!.metadata.terraform_module, "module.net");
  assert.deepEqual(
    r.records.edges.filter((e) => e.edge_type === "CONTAINS").map((e) =>
      `${e.source_id}>${e.target_id}`
    ),
    [
      'module.net.aws_vpc.main>module.net.aws_subnet.s["a"]',
      'module.net.aws_vpc.main>module.net.aws_subnet.s["b"]',
    ],
  );
  assert.equal(r.notes.skipped["planned for deletion"], 1);
});

Deno.test("terraformStateImporter: a Google firewall open to the internet exposes public instances of its network", async () => {
  const text = await Deno.readTextFile(state("google_compute_instance.tfstate"));
  const instance = JSON.parse(text).resources[0];
  const net = instance.instances[0].attributes.network_interface[0].network;
  instance.instances[0].attributes.network_interface[0].access_config = [{ nat_ip: "203.0.113.7" }];
  instance.instances[0].attributes.tags = ["web"];
  const firewall = (tags: string[] | null) => ({
    mode: "managed",
    type: "google_compute_firewall",
    name: "open",
    instances: [{
      attributes: {
        id: "projects/p/global/firewalls/open",
        name: "open",
        network: net,
        direction: "INGRESS",
        source_ranges: ["0.0.0.0/0"],
        target_tags: tags,
        allow: [{ protocol: "tcp", ports: ["22"] }],
      },
    }],
  });
  const load = (tags: string[] | null) =>
    terraformStateImporter.load({
      ...fileImportInput("gcp.tfstate"),
      json: { version: 4, terraform_version: "1.5.0", resources: [instance, firewall(tags)] },
    });
  const open = (await load(["web"])).records;
  const vm = open.assets.find((a) => a.asset_type === "GCE_INSTANCE")!;
  assert.equal(vm.is_internet_exposed, true);
  assert.ok(open.findings.some((f) => f.id === "f-ssh-open:google_compute_firewall.open"));
  assert.ok(open.compliance.some((c) => c.id === "CIS-GCP:3.6" && c.status === "FAIL"));
  const other = (await load(["db"])).records;
  assert.equal(
    other.assets.find((a) => a.asset_type === "GCE_INSTANCE")!.is_internet_exposed,
    false,
  );
});

Deno.test("terraformStateImporter: KMS keys, their policies and the rotation rule", async () => {
  // jq '.resources[].instances[0].attributes | {id, customer_master_key_spec, is_enabled, enable_key_rotation}'
  //   aws_kms_key.tfstate → bar RSA_2048, baz symmetric but disabled, foo RSA_4096: rotation off on all,
  //   and none is an enabled symmetric key, so f-kms-rotation-disabled does not apply.
  const r =
    (await terraformStateImporter.load(fileImportInput(state("aws_kms_key.tfstate")))).records;
  assert.deepEqual(r.assets.map((a) => a.asset_type), ["KMS_KEY", "KMS_KEY", "KMS_KEY"]);
  assert.ok(!r.findings.some((f) => f.source_finding_id === "f-kms-rotation-disabled"));
  assert.ok(!r.compliance.some((c) => c.id === "CIS-AWS:3.6"));
  // Key policy "bar": Principal arn:aws:iam::047081014315:user/admin may use the key.
  assert.ok(
    r.edges.some((e) =>
      e.edge_type === "GRANTS_ACCESS" && e.source_id === "arn:aws:iam::047081014315:user/admin" &&
      e.target_id === "aws_kms_key.bar"
    ),
  );
});

Deno.test("terraformStateImporter: routes written inline in a route table become ROUTE edges", async () => {
  const resource = (type: string, name: string, attributes: Record<string, unknown>) => ({
    mode: "managed",
    type,
    name,
    provider: 'provider["registry.terraform.io/hashicorp/aws"]',
    instances: [{ attributes }],
  });
  const routes = {
    "aws_route_table.edge": [{ cidr_block: "0.0.0.0/0", gateway_id: "igw-11aa" }],
    "aws_default_route_table.main": [
      { cidr_block: "0.0.0.0/0", nat_gateway_id: "nat-22bb", gateway_id: "" },
    ],
  };
  const net = {
    version: 4,
    terraform_version: "1.7.5",
    resources: [
      resource("aws_vpc", "v", { id: "vpc-77", cidr_block: "10.9.0.0/16" }),
      resource("aws_internet_gateway", "gw", { id: "igw-11aa", vpc_id: "vpc-77" }),
      resource("aws_nat_gateway", "nat", { id: "nat-22bb" }),
      resource("aws_route_table", "edge", {
        id: "rtb-33",
        vpc_id: "vpc-77",
        route: routes["aws_route_table.edge"],
      }),
      resource("aws_default_route_table", "main", {
        id: "rtb-44",
        vpc_id: "vpc-77",
        route: routes["aws_default_route_table.main"],
      }),
    ],
  };
  const byCloudId = new Map(net.resources.map((r) => [
    String(r.instances[0]!.attributes.id),
    `${r.type}.${r.name}`,
  ]));
  const expected = Object.entries(routes).flatMap(([table, blocks]) =>
    blocks.flatMap((block) =>
      Object.entries(block)
        .filter(([key, value]) => key !== "cidr_block" && byCloudId.has(String(value)))
        .map(([, value]) => [table, byCloudId.get(String(value))])
    )
  );
  const r = await terraformStateImporter.load({ ...fileImportInput("net.tfstate"), json: net });
  const got = r.records.edges.filter((e) => e.edge_type === "ROUTE")
    .map((e) => [e.source_id, e.target_id]);
  assert.deepEqual(got.sort(), expected.sort());
});

Deno.test("terraformPlanImporter: references inside a for_each module instance link that instance's resources", async () => {
  // The shape of `terraform show -json` for module "parent" (for_each) calling module "child":
  // planned addresses carry the module keys, the configuration's references do not.
  const module = 'module.parent["prod"].module.child';
  const resource = (type: string, name: string, values: Record<string, unknown>) => ({
    address: `${module}.${type}.${name}["app"]`,
    mode: "managed",
    type,
    name,
    index: "app",
    values,
  });
  const plan = {
    format_version: "1.2",
    planned_values: {
      root_module: {
        child_modules: [{
          address: 'module.parent["prod"]',
          child_modules: [{
            address: module,
            resources: [
              resource("azurerm_network_security_group", "main", { name: "nsg-app" }),
              resource("azurerm_subnet", "subnet", { name: "snet-app" }),
              resource("azurerm_subnet_network_security_group_association", "assoc", {}),
            ],
          }],
        }],
      },
    },
    configuration: {
      root_module: {
        module_calls: {
          parent: {
            module: {
              module_calls: {
                child: {
                  module: {
                    resources: [{
                      address: "azurerm_subnet_network_security_group_association.assoc",
                      expressions: {
                        network_security_group_id: {
                          references: ["azurerm_network_security_group.main", "each.key"],
                        },
                        subnet_id: { references: ["azurerm_subnet.subnet", "each.key"] },
                      },
                    }],
                  },
                },
              },
            },
          },
        },
      },
    },
  };
  const r = await terraformPlanImporter.load({ ...fileImportInput("plan.json"), json: plan });
  assert.deepEqual(r.records.edges.map((e) => `${e.edge_type} ${e.source_id} > ${e.target_id}`), [
    `ATTACHED_TO ${module}.azurerm_subnet.subnet["app"] > ` +
    `${module}.azurerm_network_security_group.main["app"]`,
  ]);
});

Deno.test("terraformStateImporter: dependencies inside a count module instance link that instance's resources", async () => {
  // A state names dependencies by configuration address (no module keys), the resources by
  // module instance: each instance's dependency is its own instance's VPC, not the other's.
  const vpc = (index: number) => ({
    module: `module.net[${index}]`,
    mode: "managed",
    type: "aws_vpc",
    name: "main",
    instances: [{ attributes: { id: `vpc-${index}` } }],
  });
  const state = {
    version: 4,
    terraform_version: "1.6.0",
    resources: [
      vpc(0),
      vpc(1),
      ...[0, 1].map((index) => ({
        module: `module.net[${index}]`,
        mode: "managed",
        type: "aws_s3_bucket",
        name: "logs",
        instances: [{
          attributes: { id: `logs-${index}` },
          dependencies: ["module.net.aws_vpc.main"],
        }],
      })),
    ],
  };
  const r = await terraformStateImporter.load({ ...fileImportInput("s.tfstate"), json: state });
  assert.deepEqual(r.records.edges.map((e) => `${e.source_id} > ${e.target_id}`), [
    "module.net[0].aws_s3_bucket.logs > module.net[0].aws_vpc.main",
    "module.net[1].aws_s3_bucket.logs > module.net[1].aws_vpc.main",
  ]);
});
