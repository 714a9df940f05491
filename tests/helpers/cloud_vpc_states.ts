/**
 * Small Terraform states of one VPC written by the tests that need them:
 * subnets, route tables, security groups and the resources behind them,
 * in the attribute shapes `terraform show -json` writes.
 */

const ACCOUNT = "111111111111";
const REGION = "us-east-1";

/** One resource of a state: its type, name and attributes. */
export interface StateResource {
  type: string;
  name: string;
  attributes: Record<string, unknown>;
}

/** A Terraform state (format 4) holding the resources. */
export function stateOf(resources: readonly StateResource[]): Record<string, unknown> {
  return {
    version: 4,
    terraform_version: "1.5.7",
    serial: 1,
    lineage: "test",
    outputs: {},
    resources: resources.map((r) => ({
      mode: "managed",
      type: r.type,
      name: r.name,
      provider: 'provider["registry.terraform.io/hashicorp/aws"]',
      instances: [{ schema_version: 0, attributes: r.attributes }],
    })),
  };
}

function arn(service: string, path: string): string {
  return `arn:aws:${service}:${REGION}:${ACCOUNT}:${path}`;
}

/** The VPC `vpc-1` (10.0.0.0/16), its main route table given or left out. */
export function vpc(mainRouteTable?: string): StateResource {
  return {
    type: "aws_vpc",
    name: "main",
    attributes: {
      id: "vpc-1",
      arn: arn("ec2", "vpc/vpc-1"),
      cidr_block: "10.0.0.0/16",
      owner_id: ACCOUNT,
      ...(mainRouteTable ? { main_route_table_id: mainRouteTable } : {}),
    },
  };
}

/** The internet gateway `igw-1` of the VPC. */
export function internetGateway(): StateResource {
  return {
    type: "aws_internet_gateway",
    name: "igw",
    attributes: { id: "igw-1", arn: arn("ec2", "internet-gateway/igw-1"), vpc_id: "vpc-1" },
  };
}

/** A subnet of the VPC that maps public IPv4 addresses on launch. */
export function subnet(name: string, cidr: string): StateResource {
  return {
    type: "aws_subnet",
    name,
    attributes: {
      id: `subnet-${name}`,
      arn: arn("ec2", `subnet/subnet-${name}`),
      vpc_id: "vpc-1",
      cidr_block: cidr,
      map_public_ip_on_launch: true,
      owner_id: ACCOUNT,
    },
  };
}

/** A route table with inline routes `[destination, target]`. */
export function routeTable(name: string, routes: [string, string][]): StateResource {
  return {
    type: "aws_route_table",
    name,
    attributes: {
      id: `rtb-${name}`,
      arn: arn("ec2", `route-table/rtb-${name}`),
      vpc_id: "vpc-1",
      owner_id: ACCOUNT,
      route: routes.map(([destination, target]) => ({
        cidr_block: destination.includes(":") ? "" : destination,
        ipv6_cidr_block: destination.includes(":") ? destination : "",
        gateway_id: target,
        nat_gateway_id: "",
      })),
    },
  };
}

/** The association of a subnet with a route table. */
export function association(subnetName: string, tableName: string): StateResource {
  return {
    type: "aws_route_table_association",
    name: subnetName,
    attributes: {
      id: `rtbassoc-${subnetName}`,
      subnet_id: `subnet-${subnetName}`,
      route_table_id: `rtb-${tableName}`,
    },
  };
}

/** One ingress rule: ports, protocol, IPv4 CIDRs, IPv6 CIDRs, peer group ids. */
export type Ingress = [number, number, string, string[], string[]?, string[]?];

/** A security group `sg-<name>` of the VPC with ingress rules and egress to anywhere. */
export function securityGroup(name: string, ingress: Ingress[]): StateResource {
  const rule = ([from, to, protocol, v4, v6 = [], groups = []]: Ingress) => ({
    from_port: from,
    to_port: to,
    protocol,
    cidr_blocks: v4,
    ipv6_cidr_blocks: v6,
    security_groups: groups,
    prefix_list_ids: [],
    self: false,
    description: "",
  });
  return {
    type: "aws_security_group",
    name,
    attributes: {
      id: `sg-${name}`,
      arn: arn("ec2", `security-group/sg-${name}`),
      name,
      vpc_id: "vpc-1",
      owner_id: ACCOUNT,
      ingress: ingress.map(rule),
      egress: [rule([0, 0, "-1", ["0.0.0.0/0"]])],
    },
  };
}

/** An instance in a subnet behind groups, with a public IPv4 address and IPv6 addresses as given. */
export function instance(
  name: string,
  options: { subnet: string; groups: string[]; publicIp?: string; ipv6?: string[] },
): StateResource {
  return {
    type: "aws_instance",
    name,
    attributes: {
      id: `i-${name}`,
      arn: arn("ec2", `instance/i-${name}`),
      ami: "ami-1",
      instance_type: "t3.micro",
      subnet_id: `subnet-${options.subnet}`,
      vpc_security_group_ids: options.groups.map((g) => `sg-${g}`),
      public_ip: options.publicIp ?? "",
      associate_public_ip_address: options.publicIp !== undefined,
      ipv6_addresses: options.ipv6 ?? [],
      ipv6_address_count: (options.ipv6 ?? []).length,
      private_ip: "10.0.1.10",
      tags: { Name: name },
    },
  };
}

/** A publicly accessible RDS instance behind groups (engine and, when given, its port). */
export function database(
  name: string,
  options: {
    engine: string;
    groups: string[];
    port?: number;
    publicly?: boolean;
    /** The name of its `aws_db_subnet_group`. */
    subnetGroup?: string;
  },
): StateResource {
  return {
    type: "aws_db_instance",
    name,
    attributes: {
      id: `db-${name}`,
      arn: arn("rds", `db:${name}`),
      identifier: name,
      engine: options.engine,
      publicly_accessible: options.publicly ?? true,
      storage_encrypted: true,
      vpc_security_group_ids: options.groups.map((g) => `sg-${g}`),
      ...(options.port ? { port: options.port } : {}),
      ...(options.subnetGroup ? { db_subnet_group_name: options.subnetGroup } : {}),
    },
  };
}

/** An RDS subnet group over the named subnets (its id is its name, as AWS's provider sets it). */
export function dbSubnetGroup(name: string, subnetNames: string[]): StateResource {
  return {
    type: "aws_db_subnet_group",
    name,
    attributes: {
      id: name,
      name,
      arn: arn("rds", `subgrp:${name}`),
      subnet_ids: subnetNames.map((s) => `subnet-${s}`),
    },
  };
}
