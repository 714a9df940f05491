/**
 * Unresolved references of Terraform states: what a resource names that the
 * state does not hold, whether it names it by an AWS id whose body is not
 * hex or by name (a user's inline policy naming a user of another state).
 * Expected references are computed from the inputs, not written out.
 */

import assert from "node:assert/strict";
import { terraformStateImporter } from "../src/cloud/importers/terraform_state.ts";
import { fileImportInput } from "../src/cloud/importers/import_input.ts";
import type { DatasetRecords } from "../src/cloud/model/records.ts";
import { sharedFixture } from "./helpers/shared_fixtures.ts";
import { instance, securityGroup, stateOf, subnet, vpc } from "./helpers/cloud_vpc_states.ts";
import { result, withInlineDataset } from "./helpers/cloud_client.ts";
import type { Loose } from "./helpers/in_memory.ts";

const LINKED_STATES = [
  ["aws_iam_user_policy_multiple", "aws_iam_user_policy", "user", "aws_iam_user"],
  ["aws_iam_role_policy_multiple", "aws_iam_role_policy", "role", "aws_iam_role"],
] as const;

function refs(records: DatasetRecords): string[] {
  return records.unresolved_references.map((r) => {
    const { from, attribute, value } = r as Record<string, string>;
    return `${from} ${attribute} ${value}`;
  }).sort();
}

Deno.test("terraformStateImporter lists the users and roles inline policies name that the state does not hold", async () => {
  for (const [file, type, attribute, parentType] of LINKED_STATES) {
    const path = sharedFixture(`cloud/driftctl/state/${file}.tfstate`);
    const state = JSON.parse(await Deno.readTextFile(path));
    const held = new Set<string>();
    const expected: string[] = [];
    for (const r of state.resources) {
      for (const [i, inst] of r.instances.entries()) {
        if (r.type === parentType) held.add(inst.attributes.name);
        if (r.type !== type) continue;
        const address = `${r.type}.${r.name}${r.instances.length > 1 ? `[${i}]` : ""}`;
        expected.push(`${address} ${attribute} ${inst.attributes[attribute]}`);
      }
    }
    const missing = expected.filter((e) => !held.has(e.split(" ")[2]!)).sort();
    assert.ok(missing.length > 0, file);
    const records = (await terraformStateImporter.load(fileImportInput(path))).records;
    assert.deepEqual(refs(records), missing, file);
  }
});

Deno.test("terraformStateImporter lists network ids a resource names that the state does not hold, hex or not", async () => {
  const resources = [
    vpc(),
    subnet("a", "10.0.1.0/24"),
    securityGroup("ssh", [[22, 22, "tcp", ["0.0.0.0/0"]]]),
    instance("held", { subnet: "a", groups: ["ssh"] }),
    instance("dangling", { subnet: "missing", groups: ["missing", "ssh"] }),
    instance("dangling_hex", { subnet: "0deadbeef1234567", groups: ["0deadbeef1234567"] }),
  ];
  const records = (await terraformStateImporter.load({
    ...fileImportInput("dangling.tfstate"),
    json: stateOf(resources),
  })).records;
  assert.deepEqual(refs(records), [
    "aws_instance.dangling subnet_id subnet-missing",
    "aws_instance.dangling vpc_security_group_ids sg-missing",
    "aws_instance.dangling_hex subnet_id subnet-0deadbeef1234567",
    "aws_instance.dangling_hex vpc_security_group_ids sg-0deadbeef1234567",
  ]);
  await withInlineDataset(stateOf(resources) as Record<string, unknown>, async (client) => {
    const out = await result(client, "unresolved_references", {});
    assert.deepEqual(out.items.map((r: Loose) => r.value).sort(), [
      "sg-0deadbeef1234567",
      "sg-missing",
      "subnet-0deadbeef1234567",
      "subnet-missing",
    ]);
  });
});
