/**
 * Network facts an outside review found lost or wrong on public inputs:
 * security-group rules whose source is the group itself (AWS CLI's own
 * describe-security-groups example; a public Terraform state's
 * `aws_security_group_rule` resources), and Azure virtual machines behind
 * an open network security group with a public IP, whose subnets carry no
 * location (a public Terraform plan's resources, as a plan and as a state).
 * Expected edges are computed from the inputs, not written out.
 */

import assert from "node:assert/strict";
import { awsApiImporter } from "../src/cloud/importers/aws_api_dump.ts";
import { fileImportInput } from "../src/cloud/importers/import_input.ts";
import { terraformPlanImporter } from "../src/cloud/importers/terraform_plan.ts";
import { terraformStateImporter } from "../src/cloud/importers/terraform_state.ts";
import type { DatasetRecords, Edge } from "../src/cloud/model/records.ts";
import { plannedResource, planOf } from "./helpers/terraform_plans.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

/** The EC2-VPC example output of `aws ec2 describe-security-groups` (aws-cli's examples). */
const DESCRIBE_SECURITY_GROUPS = {
  SecurityGroups: [{
    IpPermissionsEgress: [{
      IpProtocol: "-1",
      IpRanges: [{ CidrIp: "0.0.0.0/0" }],
      UserIdGroupPairs: [],
      PrefixListIds: [],
    }],
    Description: "My security group",
    Tags: [{ Value: "SG1", Key: "Name" }],
    IpPermissions: [
      {
        IpProtocol: "-1",
        IpRanges: [],
        UserIdGroupPairs: [{ UserId: "123456789012", GroupId: "sg-903004f8" }],
        PrefixListIds: [],
      },
      {
        PrefixListIds: [],
        FromPort: 22,
        IpRanges: [{ CidrIp: "203.0.113.0/24" }],
        ToPort: 22,
        IpProtocol: "tcp",
        UserIdGroupPairs: [],
      },
    ],
    GroupName: "MySecurityGroup",
    VpcId: "vpc-1a2b3c4d",
    OwnerId: "123456789012",
    GroupId: "sg-903004f8",
  }],
};

function ruleEdges(records: DatasetRecords, group: string, direction: string): Edge[] {
  return records.edges.filter((e) =>
    e.edge_type === "SECURITY_GROUP_RULE" && e.direction === direction &&
    (direction === "ingress" ? e.target_id === group : e.source_id === group)
  );
}

Deno.test("awsApiImporter keeps a security group's rule admitting its own members", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/us-east-1`);
    await Deno.writeTextFile(
      `${dir}/us-east-1/ec2-describe-security-groups.json`,
      JSON.stringify(DESCRIBE_SECURITY_GROUPS),
    );
    const r = (await awsApiImporter.load(fileImportInput(dir))).records;
    const group = r.assets.find((a) => a.asset_type === "SECURITY_GROUP")!;
    const sg = DESCRIBE_SECURITY_GROUPS.SecurityGroups[0]!;
    // One edge per CIDR and per peer group of every ingress permission.
    const peers = sg.IpPermissions.flatMap((p) => [
      ...p.IpRanges.map((range) => range.CidrIp),
      ...p.UserIdGroupPairs.map((pair) => pair.GroupId === sg.GroupId ? group.id : pair.GroupId),
    ]);
    const ingress = ruleEdges(r, group.id, "ingress");
    assert.deepEqual(ingress.map((e) => e.source_id).sort(), peers.sort());
    const self = ingress.find((e) => e.source_id === group.id)!;
    assert.deepEqual([self.protocol, self.port_range], ["ALL", "*"]);
    assert.equal(group.is_internet_exposed, false);
    assert.equal(ruleEdges(r, group.id, "egress").length, sg.IpPermissionsEgress.length);
  });
});

Deno.test("terraformStateImporter keeps aws_security_group_rule resources whose source is their own group", async () => {
  // As a public state (module.vpc of an "ebs-lab" project) lists them: two rules from the group
  // itself (80 and MySQL's 3306), two from the internet.
  const sg = "sg-0c087152bef9b6cbd";
  const rule = (name: string, port: number, source: Record<string, unknown>) => ({
    module: "module.vpc",
    mode: "managed",
    type: "aws_security_group_rule",
    name,
    instances: [{
      attributes: {
        id: `sgrule-${port}`,
        security_group_id: sg,
        type: "ingress",
        from_port: port,
        to_port: port,
        protocol: "tcp",
        self: false,
        cidr_blocks: null,
        source_security_group_id: null,
        ...source,
      },
    }],
  });
  const rules = [
    rule("ebslab_security_group_rule_80", 80, { source_security_group_id: sg }),
    rule("internal_mysql_communication", 3306, { source_security_group_id: sg }),
    rule("ebslab_security_group_rule_ssh", 22, { cidr_blocks: ["0.0.0.0/0"] }),
    rule("ebslab_security_group_rule_ssl", 443, { cidr_blocks: ["0.0.0.0/0"] }),
  ];
  const state = {
    version: 4,
    terraform_version: "1.2.9",
    resources: [
      {
        module: "module.vpc",
        mode: "managed",
        type: "aws_security_group",
        name: "ebslab_security_group",
        instances: [{
          attributes: {
            id: sg,
            arn: `arn:aws:ec2:eu-west-1:884878220922:security-group/${sg}`,
            name: "ebslab",
            vpc_id: "vpc-0a1b2c3d4e5f60718",
            ingress: [],
            egress: [],
          },
        }],
      },
      ...rules,
    ],
  };
  const r = (await terraformStateImporter.load({
    ...fileImportInput("ebslab.tfstate"),
    json: state,
  })).records;
  const group = "module.vpc.aws_security_group.ebslab_security_group";
  const ingress = ruleEdges(r, group, "ingress");
  const fromItself = rules.filter((x) => x.instances[0]!.attributes.source_security_group_id);
  assert.deepEqual(
    ingress.filter((e) => e.source_id === group).map((e) => e.port_range).sort(),
    fromItself.map((x) => String(x.instances[0]!.attributes.from_port)).sort(),
  );
  assert.equal(ingress.length, rules.length);
});

const AZURE_TYPES = {
  rg: "azurerm_resource_group",
  vnet: "azurerm_virtual_network",
  subnet: "azurerm_subnet",
  nsg: "azurerm_network_security_group",
  assoc: "azurerm_subnet_network_security_group_association",
  ip: "azurerm_public_ip",
  nic: "azurerm_network_interface",
  vm: "azurerm_linux_virtual_machine",
} as const;

/**
 * The network of a public Azure plan (a Linux VM whose interface has a public IP, in a subnet
 * whose NSG admits SSH and HTTP from `*`): `nsgOnSubnet` false leaves the subnet unfiltered and
 * puts the group on nothing; `open` false makes its rules admit the virtual network only.
 */
function azureResources(
  options: { nsgOnSubnet: boolean; open: boolean; publicIp: boolean },
): Record<keyof typeof AZURE_TYPES, Record<string, unknown> | null> & {
  nsg: { security_rule: { destination_port_range: string }[] };
} {
  const sub = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/lcRG";
  const net = `${sub}/providers/Microsoft.Network`;
  const rule = (name: string, priority: number, port: string) => ({
    name,
    priority,
    direction: "Inbound",
    access: "Allow",
    protocol: "Tcp",
    source_port_range: "*",
    destination_port_range: port,
    source_address_prefix: options.open ? "*" : "VirtualNetwork",
    destination_address_prefix: "*",
  });
  return {
    rg: { id: sub, name: "lcRG", location: "francecentral" },
    vnet: {
      id: `${net}/virtualNetworks/lcVnet`,
      name: "lcVnet",
      location: "francecentral",
      resource_group_name: "lcRG",
      address_space: ["10.0.0.0/16"],
    },
    subnet: {
      id: `${net}/virtualNetworks/lcVnet/subnets/lcSubnet`,
      name: "lcSubnet",
      resource_group_name: "lcRG",
      virtual_network_name: "lcVnet",
      address_prefixes: ["10.0.1.0/24"],
    },
    nsg: {
      id: `${net}/networkSecurityGroups/lcNSG`,
      name: "lcNSG",
      location: "francecentral",
      resource_group_name: "lcRG",
      security_rule: [rule("SSH", 1001, "22"), rule("HTTP", 1002, "80")],
    },
    assoc: options.nsgOnSubnet
      ? {
        id: `${net}/virtualNetworks/lcVnet/subnets/lcSubnet`,
        subnet_id: `${net}/virtualNetworks/lcVnet/subnets/lcSubnet`,
        network_security_group_id: `${net}/networkSecurityGroups/lcNSG`,
      }
      : null,
    ip: {
      id: `${net}/publicIPAddresses/lcPublicIP`,
      name: "lcPublicIP",
      location: "francecentral",
      resource_group_name: "lcRG",
      allocation_method: "Dynamic",
    },
    nic: {
      id: `${net}/networkInterfaces/lcNIC`,
      name: "lcNIC",
      location: "francecentral",
      resource_group_name: "lcRG",
      ip_configuration: [{
        name: "lcNicConfiguration",
        subnet_id: `${net}/virtualNetworks/lcVnet/subnets/lcSubnet`,
        private_ip_address_allocation: "Dynamic",
        public_ip_address_id: options.publicIp ? `${net}/publicIPAddresses/lcPublicIP` : null,
      }],
    },
    vm: {
      id: `${sub}/providers/Microsoft.Compute/virtualMachines/webVM`,
      name: "webVM",
      location: "francecentral",
      resource_group_name: "lcRG",
      size: "Standard_DS1_v2",
      network_interface_ids: [`${net}/networkInterfaces/lcNIC`],
    },
  };
}

type AzureOptions = Parameters<typeof azureResources>[0];

/** The resources as a state: references only by the ids in their attributes. */
async function azureState(options: AzureOptions): Promise<DatasetRecords> {
  const values = azureResources(options);
  const resources = Object.entries(AZURE_TYPES).flatMap(([key, type]) => {
    const attributes = values[key as keyof typeof values];
    return attributes === null
      ? []
      : [{ mode: "managed", type, name: key, instances: [{ attributes }] }];
  });
  return (await terraformStateImporter.load({
    ...fileImportInput("azure.tfstate"),
    json: { version: 4, terraform_version: "1.9.4", resources },
  })).records;
}

/** The resources as a plan: references from the configuration's expressions, as Terraform writes them. */
async function azurePlan(options: AzureOptions): Promise<DatasetRecords> {
  const values = azureResources(options);
  const planned = Object.entries(AZURE_TYPES).flatMap(([key, type]) => {
    const v = values[key as keyof typeof values];
    return v === null ? [] : [plannedResource(type, key, v)];
  });
  const ref = (key: keyof typeof AZURE_TYPES, attribute = "id") => ({
    references: [`${AZURE_TYPES[key]}.${key}.${attribute}`, `${AZURE_TYPES[key]}.${key}`],
  });
  const expressions: Record<string, Record<string, unknown>> = {
    subnet: { virtual_network_name: ref("vnet", "name"), resource_group_name: ref("rg", "name") },
    assoc: { subnet_id: ref("subnet"), network_security_group_id: ref("nsg") },
    nic: {
      ip_configuration: [{
        subnet_id: ref("subnet"),
        ...(options.publicIp ? { public_ip_address_id: ref("ip") } : {}),
      }],
    },
    vm: { network_interface_ids: ref("nic") },
  };
  const configured = Object.entries(AZURE_TYPES).flatMap(([key, type]) =>
    values[key as keyof typeof values] === null ? [] : [{
      address: `${type}.${key}`,
      mode: "managed",
      type,
      name: key,
      expressions: expressions[key] ?? {},
    }]
  );
  return (await terraformPlanImporter.load({
    ...fileImportInput("azure.plan.json"),
    json: planOf(planned, { configuration: { root_module: { resources: configured } } }),
  })).records;
}

for (const [form, load] of [["state", azureState], ["plan", azurePlan]] as const) {
  Deno.test(`terraform ${form}: an Azure VM with a public IP behind an NSG open to * is exposed on the NSG's ports; its subnet lies in its network's region`, async () => {
    const r = await load({ nsgOnSubnet: true, open: true, publicIp: true });
    const byType = (type: string) => r.assets.find((a) => a.metadata.terraform_type === type)!;
    const vm = byType("azurerm_linux_virtual_machine");
    const nic = byType("azurerm_network_interface");
    assert.equal(vm.is_internet_exposed, true);
    assert.equal(nic.is_internet_exposed, true);
    const nsg = azureResources({ nsgOnSubnet: true, open: true, publicIp: true }).nsg;
    const exposure = r.edges.find((e) =>
      e.edge_type === "INTERNET_EXPOSED" && e.target_id === vm.id
    )!;
    assert.equal(
      exposure.port_range,
      nsg.security_rule.map((x) => x.destination_port_range).join(","),
    );
    assert.equal(byType("azurerm_subnet").region, byType("azurerm_virtual_network").region);
    assert.equal(byType("azurerm_public_ip").is_internet_exposed, false);
    // Closed rules, no public IP, or no group at all: nothing is exposed.
    for (
      const options of [
        { nsgOnSubnet: true, open: false, publicIp: true },
        { nsgOnSubnet: true, open: true, publicIp: false },
        { nsgOnSubnet: false, open: true, publicIp: true },
      ]
    ) {
      const other = await load(options);
      const exposed = other.assets.filter((a) => a.is_internet_exposed && a.asset_type !== "NSG")
        .map((a) => a.id);
      assert.deepEqual(exposed, [], JSON.stringify(options));
    }
  });
}

Deno.test("terraformStateImporter says when a state's resources have no instances", async () => {
  // As a public assignment's state lists them: five resources, each with "instances": [].
  const types = ["aws_vpc", "aws_subnet", "aws_security_group", "aws_instance", "aws_eip"];
  const resources = types.map((type) => ({ mode: "managed", type, name: "main", instances: [] }));
  const load = (extra: unknown[]) =>
    terraformStateImporter.load({
      ...fileImportInput("empty.tfstate"),
      json: { version: 4, terraform_version: "1.6.0", resources: [...resources, ...extra] },
    });
  const empty = await load([]);
  assert.equal(empty.records.assets.length, 0);
  assert.equal(empty.notes.skipped["resource without instances"], resources.length);
  assert.match(empty.notes.warnings.join("\n"), /None of the state's 5 resources has an instance/);
  const vpc = {
    mode: "managed",
    type: "aws_vpc",
    name: "live",
    instances: [{ attributes: { id: "vpc-0123456789abcdef0", cidr_block: "10.0.0.0/16" } }],
  };
  const partly = await load([vpc]);
  assert.equal(partly.records.assets.length, 1);
  assert.equal(partly.notes.skipped["resource without instances"], resources.length);
  assert.deepEqual(partly.notes.warnings, []);
});

Deno.test("CIS AWS 5.2 fails on SSH open to 0.0.0.0/0 and 5.3 on ::/0, each only for its family", async () => {
  const group = (ingress: { cidr_blocks: string[]; ipv6_cidr_blocks: string[] }) => ({
    mode: "managed",
    type: "aws_security_group",
    name: "web",
    instances: [{
      attributes: {
        id: "sg-0123456789abcdef0",
        arn: "arn:aws:ec2:eu-west-1:111122223333:security-group/sg-0123456789abcdef0",
        name: "web",
        ingress: [{ from_port: 22, to_port: 22, protocol: "tcp", ...ingress }],
        egress: [],
      },
    }],
  });
  const status = async (ingress: { cidr_blocks: string[]; ipv6_cidr_blocks: string[] }) => {
    const r = (await terraformStateImporter.load({
      ...fileImportInput("sg.tfstate"),
      json: { version: 4, terraform_version: "1.5.0", resources: [group(ingress)] },
    })).records;
    const of = (control: string) => r.compliance.find((c) => c.id === `CIS-AWS:${control}`)?.status;
    return [of("5.2"), of("5.3")];
  };
  assert.deepEqual(await status({ cidr_blocks: ["0.0.0.0/0"], ipv6_cidr_blocks: [] }), [
    "FAIL",
    "PASS",
  ]);
  assert.deepEqual(await status({ cidr_blocks: [], ipv6_cidr_blocks: ["::/0"] }), ["PASS", "FAIL"]);
  assert.deepEqual(await status({ cidr_blocks: ["0.0.0.0/0"], ipv6_cidr_blocks: ["::/0"] }), [
    "FAIL",
    "FAIL",
  ]);
  assert.deepEqual(await status({ cidr_blocks: ["10.0.0.0/8"], ipv6_cidr_blocks: [] }), [
    "PASS",
    "PASS",
  ]);
});

Deno.test("terraformStateImporter: a dependency on a count resource links the instances its values name", async () => {
  // As a public state writes it: four count subnets (two public), a DB subnet group of two of
  // them, and a database depending on the subnet group, on the subnets resource as a whole and
  // on the VPC.
  const ids = ["subnet-01ec084b93589b74c", "subnet-0055821a14ba6426e", "subnet-0ea4e1fd7570b534d"];
  ids.push("subnet-0014540d42edbfbd7");
  const subnets = {
    module: "module.vpc",
    mode: "managed",
    type: "aws_subnet",
    name: "ebslab_subnets",
    instances: ids.map((id, i) => ({
      index_key: i,
      attributes: { id, vpc_id: "vpc-0a1b2c3d4e5f60718", map_public_ip_on_launch: i < 2 },
    })),
  };
  const group = {
    module: "module.rds",
    mode: "managed",
    type: "aws_db_subnet_group",
    name: "db_subnet_group",
    instances: [{
      attributes: { id: "terraform-2024", name: "terraform-2024", subnet_ids: [ids[3], ids[2]] },
      dependencies: ["module.vpc.aws_subnet.ebslab_subnets"],
    }],
  };
  const db = (dependencies: string[]) => ({
    module: "module.rds",
    mode: "managed",
    type: "aws_db_instance",
    name: "mysql_db",
    instances: [{
      attributes: {
        id: "db-1",
        db_subnet_group_name: "terraform-2024",
        publicly_accessible: false,
      },
      dependencies,
    }],
  });
  const linked = async (dependencies: string[]) => {
    const r = (await terraformStateImporter.load({
      ...fileImportInput("rds.tfstate"),
      json: {
        version: 4,
        terraform_version: "1.2.9",
        resources: [subnets, group, db(dependencies)],
      },
    })).records;
    return r.edges.filter((e) =>
      e.source_id === "module.rds.aws_db_instance.mysql_db" && e.properties.depends_on === true
    ).map((e) => e.target_id).sort();
  };
  const subnetAddress = (id: string) => `module.vpc.aws_subnet.ebslab_subnets[${ids.indexOf(id)}]`;
  assert.deepEqual(
    await linked([
      "module.rds.aws_db_subnet_group.db_subnet_group",
      subnets.module + ".aws_subnet.ebslab_subnets",
    ]),
    group.instances[0]!.attributes.subnet_ids.map((id) => subnetAddress(id!)).sort(),
  );
  // Nothing names an instance: the dependency stays on every one.
  assert.deepEqual(
    await linked(["module.vpc.aws_subnet.ebslab_subnets"]),
    ids.map(subnetAddress).sort(),
  );
});
