/**
 * Internet exposure as AWS VPC semantics decide it, on small Terraform
 * states written here: a public IPv4 address answers only through a
 * default route (0.0.0.0/0) to an internet gateway in the route table of
 * its subnet, or the VPC's main table when the subnet has no association;
 * an IPv6 address only through ::/0 to one; a rule from ::/0 reaches only
 * an IPv6 address; security-group rules are a union, so CIDRs that together
 * cover every address admit the internet; a managed database answers only
 * on the port it listens on.
 */

import assert from "node:assert/strict";
import { terraformStateImporter } from "../src/cloud/importers/terraform_state.ts";
import { fileImportInput } from "../src/cloud/importers/import_input.ts";
import { cidrRange, coversFamily } from "../src/cloud/importers/cidr.ts";
import type { DatasetRecords } from "../src/cloud/model/records.ts";
import { result, withInlineDataset } from "./helpers/cloud_client.ts";
import type { Loose } from "./helpers/in_memory.ts";
import {
  association,
  database,
  dbSubnetGroup,
  instance,
  internetGateway,
  routeTable,
  securityGroup,
  stateOf,
  type StateResource,
  subnet,
  vpc,
} from "./helpers/cloud_vpc_states.ts";

async function load(resources: StateResource[]): Promise<DatasetRecords> {
  return (await terraformStateImporter.load({
    ...fileImportInput("vpc.tfstate"),
    json: stateOf(resources),
  })).records;
}

function exposed(records: DatasetRecords): string[] {
  return records.assets.filter((a) => a.is_internet_exposed && a.asset_type !== "SECURITY_GROUP")
    .map((a) => a.name).sort();
}

function exposureOf(records: DatasetRecords, name: string): { ports: string; route: unknown }[] {
  const id = records.assets.find((a) => a.name === name)!.id;
  return records.edges.filter((e) => e.edge_type === "INTERNET_EXPOSED" && e.target_id === id)
    .map((e) => ({ ports: e.port_range ?? "", route: e.properties.route_checked }));
}

const SSH: StateResource = securityGroup("ssh", [[22, 22, "tcp", ["0.0.0.0/0"]]]);

Deno.test("markExposure: a public IPv4 address is exposed only through a 0.0.0.0/0 route to an internet gateway", async () => {
  const records = await load([
    vpc(),
    internetGateway(),
    subnet("pub", "10.0.1.0/24"),
    subnet("iso", "10.0.2.0/24"),
    subnet("nat", "10.0.3.0/24"),
    routeTable("pub", [["0.0.0.0/0", "igw-1"]]),
    routeTable("iso", []),
    // A narrower route to the gateway does not answer the whole internet.
    routeTable("nat", [["0.0.0.0/0", "nat-1"], ["198.51.100.0/24", "igw-1"]]),
    association("pub", "pub"),
    association("iso", "iso"),
    association("nat", "nat"),
    SSH,
    instance("web", { subnet: "pub", groups: ["ssh"], publicIp: "54.1.1.1" }),
    instance("isolated", { subnet: "iso", groups: ["ssh"], publicIp: "54.2.2.2" }),
    instance("behind_nat", { subnet: "nat", groups: ["ssh"], publicIp: "54.3.3.3" }),
    instance("private", { subnet: "pub", groups: ["ssh"] }),
  ]);
  assert.deepEqual(exposed(records), ["web"]);
  assert.deepEqual(exposureOf(records, "web"), [{ ports: "22", route: true }]);
  const route = (name: string) =>
    records.assets.find((a) => a.name === name)!.metadata.internet_route;
  assert.equal(route("web"), "internet_gateway");
  assert.equal(route("isolated"), "none");
  assert.equal(route("behind_nat"), "none");
});

Deno.test("markExposure: a subnet without an association uses the VPC's main route table, else the route is not checked", async () => {
  const base = [
    internetGateway(),
    subnet("a", "10.0.1.0/24"),
    SSH,
    instance("host", { subnet: "a", groups: ["ssh"], publicIp: "54.1.1.1" }),
  ];
  const mainOpen = await load([
    vpc("rtb-main"),
    routeTable("main", [["0.0.0.0/0", "igw-1"]]),
    ...base,
  ]);
  assert.deepEqual(exposed(mainOpen), ["host"]);
  const mainClosed = await load([vpc("rtb-main"), routeTable("main", []), ...base]);
  assert.deepEqual(exposed(mainClosed), []);
  // No table for the subnet in the input: today's answer, said to be unchecked.
  const unknown = await load([vpc(), routeTable("other", []), ...base]);
  assert.deepEqual(exposed(unknown), ["host"]);
  assert.deepEqual(exposureOf(unknown, "host"), [{ ports: "22", route: false }]);
  await withInlineDataset(
    stateOf([vpc(), routeTable("other", []), ...base]) as Record<string, unknown>,
    async (client) => {
      const out = await result(client, "internet_exposure", { asset_types: ["EC2"] });
      assert.deepEqual(
        out.items.map((i: Loose) => [i.name, i.internet_route, i.sensitive_ports_open]),
        [["host", "not_checked", [22]]],
      );
    },
  );
});

Deno.test("markExposure: a ::/0 rule reaches only an IPv6 address, through a ::/0 route", async () => {
  const records = await load([
    vpc(),
    internetGateway(),
    subnet("dual", "10.0.1.0/24"),
    subnet("v4only", "10.0.2.0/24"),
    routeTable("dual", [["0.0.0.0/0", "igw-1"], ["::/0", "igw-1"]]),
    routeTable("v4only", [["0.0.0.0/0", "igw-1"]]),
    association("dual", "dual"),
    association("v4only", "v4only"),
    securityGroup("v6all", [[0, 0, "-1", [], ["::/0"]]]),
    instance("v4host", { subnet: "dual", groups: ["v6all"], publicIp: "54.4.4.4" }),
    instance("v6host", { subnet: "dual", groups: ["v6all"], ipv6: ["2600:1f18::10"] }),
    instance("v6_no_route", { subnet: "v4only", groups: ["v6all"], ipv6: ["2600:1f18::11"] }),
  ]);
  assert.deepEqual(exposed(records), ["v6host"]);
  assert.deepEqual(exposureOf(records, "v6host"), [{ ports: "*", route: true }]);
  const edge = records.edges.find((e) =>
    e.edge_type === "INTERNET_EXPOSED" && e.target_id === "aws_instance.v6host"
  )!;
  assert.equal(edge.source_id, "::/0");
});

Deno.test("markExposure: ingress CIDRs that together cover every IPv4 address are the internet", async () => {
  const state = [
    vpc(),
    securityGroup("range", [
      [20, 25, "tcp", ["0.0.0.0/0"]],
      [3306, 3306, "tcp", ["0.0.0.0/1", "128.0.0.0/1"]],
    ]),
    // Together on 5432-5433 only: 0.0.0.0/1 opens 5400-5500, 128.0.0.0/1 opens 5432-5433.
    securityGroup("split", [
      [5400, 5500, "tcp", ["0.0.0.0/1"]],
      [5432, 5433, "tcp", ["128.0.0.0/1"]],
      // A gap (192.0.0.0/2 missing) is no internet.
      [6379, 6379, "tcp", ["0.0.0.0/1", "128.0.0.0/2"]],
    ]),
    database("pubdb", { engine: "mysql", groups: ["range"] }),
    database("pg", { engine: "postgres", groups: ["split"] }),
    database("cache_like", { engine: "postgres", port: 6379, groups: ["split"] }),
  ];
  const records = await load(state);
  const rules = (group: string) =>
    records.edges.filter((e) =>
      e.edge_type === "SECURITY_GROUP_RULE" && e.target_id === `aws_security_group.${group}` &&
      e.source_id === "0.0.0.0/0"
    ).map((e) => [e.port_range, e.properties.covered_by]);
  assert.deepEqual(rules("range"), [["20-25", undefined], ["3306", ["0.0.0.0/1", "128.0.0.0/1"]]]);
  assert.deepEqual(rules("split"), [["5432-5433", ["0.0.0.0/1", "128.0.0.0/1"]]]);
  // Each database answers on its own port only: mysql 3306, postgres 5432, the third 6379.
  assert.deepEqual(exposed(records), ["pg", "pubdb"]);
  assert.deepEqual(exposureOf(records, "pubdb"), [{ ports: "3306", route: false }]);
  assert.deepEqual(exposureOf(records, "pg"), [{ ports: "5432", route: false }]);
  await withInlineDataset(stateOf(state) as Record<string, unknown>, async (client) => {
    const out = await result(client, "internet_exposure", { asset_types: ["RDS_INSTANCE"] });
    assert.deepEqual(
      out.items.map((i: Loose) => [
        i.name,
        i.sensitive_ports_open,
        i.internet_rules.map((r: Loose) => r.ports),
      ]),
      [["pg", [5432], ["5432", "5432-5433"]], ["pubdb", [3306], ["3306", "3306"]]],
    );
  });
});

Deno.test("markExposure: a managed database is exposed only on the port it listens on", async () => {
  const records = await load([
    vpc(),
    SSH,
    securityGroup("pg", [[5432, 5432, "tcp", ["0.0.0.0/0"]]]),
    database("behind_ssh", { engine: "postgres", groups: ["ssh"] }),
    database("custom_port", { engine: "postgres", port: 22, groups: ["ssh"] }),
    database("open_pg", { engine: "postgres", groups: ["pg", "ssh"] }),
    database("private_pg", { engine: "postgres", groups: ["pg"], publicly: false }),
  ]);
  assert.deepEqual(exposed(records), ["custom_port", "open_pg"]);
  assert.deepEqual(exposureOf(records, "open_pg"), [{ ports: "5432", route: false }]);
});

Deno.test("markExposure: a database's route is its subnet group's subnets' (one with a route to an internet gateway is enough)", async () => {
  const records = await load([
    vpc(),
    internetGateway(),
    subnet("pub", "10.0.1.0/24"),
    subnet("priv_a", "10.0.2.0/24"),
    subnet("priv_b", "10.0.3.0/24"),
    routeTable("pub", [["0.0.0.0/0", "igw-1"]]),
    routeTable("priv", [["0.0.0.0/0", "nat-1"]]),
    association("pub", "pub"),
    association("priv_a", "priv"),
    association("priv_b", "priv"),
    securityGroup("pg", [[5432, 5432, "tcp", ["0.0.0.0/0"]]]),
    dbSubnetGroup("private", ["priv_a", "priv_b"]),
    dbSubnetGroup("mixed", ["priv_a", "pub"]),
    database("in_private", { engine: "postgres", groups: ["pg"], subnetGroup: "private" }),
    database("in_mixed", { engine: "postgres", groups: ["pg"], subnetGroup: "mixed" }),
    // AWS's default subnet group, not in the state: placed nowhere, and no unresolved reference.
    database("in_default", { engine: "postgres", groups: ["pg"], subnetGroup: "default" }),
  ]);
  assert.deepEqual(
    records.unresolved_references.filter((r) => (r as Loose)?.attribute === "db_subnet_group_name"),
    [],
  );
  const route = (name: string) =>
    records.assets.find((a) => a.name === name)!.metadata.internet_route;
  assert.equal(route("in_private"), "none");
  assert.equal(route("in_mixed"), "internet_gateway");
  assert.equal(route("in_default"), "not_checked");
  assert.deepEqual(exposed(records), ["in_default", "in_mixed"]);
  assert.deepEqual(exposureOf(records, "in_mixed"), [{ ports: "5432", route: true }]);
  // Each subnet of its group contains it, as the API dump's DBSubnetGroup.Subnets say.
  const containers = (name: string) => {
    const id = records.assets.find((a) => a.name === name)!.id;
    return records.edges.filter((e) => e.edge_type === "CONTAINS" && e.target_id === id)
      .map((e) => e.source_id).sort();
  };
  assert.deepEqual(containers("in_private"), ["aws_subnet.priv_a", "aws_subnet.priv_b"]);
});

Deno.test("coversFamily() joins CIDR ranges as AWS unions rules", () => {
  const ranges = (...c: string[]) => c.map((x) => cidrRange(x)!);
  assert.equal(coversFamily(ranges("0.0.0.0/1", "128.0.0.0/1"), 4), true);
  assert.equal(coversFamily(ranges("0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/2"), 4), true);
  assert.equal(coversFamily(ranges("0.0.0.0/1", "128.0.0.0/2"), 4), false);
  assert.equal(coversFamily(ranges("0.0.0.0/1", "128.0.0.0/1"), 6), false);
  assert.equal(coversFamily(ranges("::/1", "8000::/1"), 6), true);
  assert.equal(coversFamily(ranges("::/1", "8000::/2"), 6), false);
  assert.deepEqual(cidrRange("10.1.2.3/8"), {
    family: 4,
    start: 10n << 24n,
    end: (11n << 24n) - 1n,
  });
  assert.equal(cidrRange("10.0.0.0/33"), null);
  assert.equal(cidrRange("Internet"), null);
});
