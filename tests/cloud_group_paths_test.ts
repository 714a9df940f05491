/**
 * Flow-mode path searches through security groups, on a small Terraform
 * state written here, against AWS VPC semantics: traffic from the internet
 * reaches a group's member only when the member has a public address and a
 * route to an internet gateway, and a group admitting another admits that
 * group's members, so a group with nobody in it passes nothing on.
 */

import assert from "node:assert/strict";
import { result, withInlineDataset } from "./helpers/cloud_client.ts";
import type { Loose } from "./helpers/in_memory.ts";
import {
  association,
  database,
  instance,
  internetGateway,
  routeTable,
  securityGroup,
  stateOf,
  type StateResource,
  subnet,
  vpc,
} from "./helpers/cloud_vpc_states.ts";

const SSH: StateResource = securityGroup("ssh", [[22, 22, "tcp", ["0.0.0.0/0"]]]);

/**
 * A VPC whose groups test the path steps: `ssh` (22 from the internet) holds
 * `web` (public address, routed subnet) and `app` (no public address);
 * `web_open` (443 from the internet) holds nobody; `closed` admits
 * `web_open` and guards `orders`; `db2` admits `ssh` and guards `orders2`.
 */
const GROUP_PATHS: StateResource[] = [
  vpc(),
  internetGateway(),
  subnet("pub", "10.0.1.0/24"),
  subnet("priv", "10.0.2.0/24"),
  routeTable("pub", [["0.0.0.0/0", "igw-1"]]),
  routeTable("priv", []),
  association("pub", "pub"),
  association("priv", "priv"),
  SSH,
  securityGroup("web_open", [[443, 443, "tcp", ["0.0.0.0/0"]]]),
  securityGroup("closed", [[5432, 5432, "tcp", [], [], ["sg-web_open"]]]),
  securityGroup("db2", [[5432, 5432, "tcp", [], [], ["sg-ssh"]]]),
  instance("web", { subnet: "pub", groups: ["ssh"], publicIp: "54.1.1.1" }),
  instance("app", { subnet: "priv", groups: ["ssh"] }),
  database("orders", { engine: "postgres", groups: ["closed"], publicly: false }),
  database("orders2", { engine: "postgres", groups: ["db2"], publicly: false }),
];

Deno.test("find_paths and attack_paths step through a group only to exposed members and out of groups with members", async () => {
  await withInlineDataset(stateOf(GROUP_PATHS) as Record<string, unknown>, async (client) => {
    const paths = async (source: string, target: string): Promise<string[]> =>
      (await result(client, "find_paths", { source, target, max_paths: 10 })).paths.map((
        p: Loose,
      ) => `${p.summary} [${p.edge_types.join(",")}]`);
    // app has no public address: the ssh group's internet rule does not reach it.
    assert.deepEqual(await paths("internet", "app"), []);
    assert.deepEqual(await paths("internet", "web"), [
      "0.0.0.0/0 -> web [INTERNET_EXPOSED]",
      "0.0.0.0/0 -> ssh -> web [SECURITY_GROUP_RULE,SG_ADMITS]",
    ]);
    // Nobody is in web_open, so nothing it holds can reach what closed admits from it.
    assert.deepEqual(await paths("internet", "orders"), []);
    assert.deepEqual(await paths("aws_security_group.web_open", "orders"), []);
    // ssh holds web, which the internet reaches: db2 admits it.
    assert.deepEqual(await paths("internet", "orders2"), [
      "0.0.0.0/0 -> ssh -> db2 -> orders2 [SECURITY_GROUP_RULE,SECURITY_GROUP_RULE,SG_ADMITS]",
    ]);
    assert.deepEqual(await paths("aws_security_group.ssh", "app"), ["ssh -> app [SG_ADMITS]"]);
    // The internet reaches the group itself.
    assert.deepEqual(await paths("internet", "aws_security_group.ssh"), [
      "0.0.0.0/0 -> ssh [SECURITY_GROUP_RULE]",
    ]);
    const attack = await result(client, "attack_paths", { max_paths: 50 });
    const summaries = attack.paths.map((p: Loose) => p.summary);
    // The exposed group is an entry itself (spec: exposed assets start attack paths).
    assert.ok(summaries.includes("ssh -> db2 -> orders2"), summaries.join("; "));
    assert.ok(!summaries.some((s: string) => s.endsWith("-> orders")), summaries.join("; "));
    const reach = await result(client, "internet_exposure", { include_reachable: true });
    const names = reach.graph_reachable.items.map((i: Loose) => i.name);
    assert.ok(names.includes("web") && names.includes("orders2"), names.join(","));
    assert.ok(!names.includes("app") && !names.includes("orders"), names.join(","));
    // The edges keep the attachment the coarse flow graph walks as ssh admitting app.
    const hops = await result(client, "get_edges", { source: "aws_instance.app" });
    assert.ok(hops.items.some((e: Loose) => e.target === "aws_security_group.ssh"));
  });
});
