/**
 * diff_datasets over two Terraform states written here, one instance
 * resized between them (t3.micro → m5.24xlarge, what `terraform apply`
 * does to aws_instance.instance_type in place), one attribute no import
 * keeps changed: the diff names the kept attribute and says what it
 * compares.
 */

import assert from "node:assert/strict";
import { terraformStateImporter } from "../src/cloud/importers/terraform_state.ts";
import { fileImportInput } from "../src/cloud/importers/import_input.ts";
import { diffDatasets } from "../src/cloud/workspace/diff.ts";
import { KEPT_ATTRIBUTES } from "../src/cloud/model/kept_attributes.ts";
import type { DatasetView } from "../src/cloud/model/view.ts";
import { makeView } from "./helpers/cloud_estate.ts";
import { instance, stateOf, type StateResource, subnet, vpc } from "./helpers/cloud_vpc_states.ts";

/** The dataset view of a state holding `resources`. */
async function view(name: string, resources: StateResource[]): Promise<DatasetView> {
  const records = (await terraformStateImporter.load({
    ...fileImportInput(`${name}.tfstate`),
    json: stateOf(resources),
  })).records;
  return makeView(records, { name });
}

function withAttributes(
  resource: StateResource,
  attributes: Record<string, unknown>,
): StateResource {
  return { ...resource, attributes: { ...resource.attributes, ...attributes } };
}

Deno.test("diffDatasets names a changed instance_type and says which attributes it compares", async () => {
  const web = instance("web", { subnet: "a", groups: [] });
  const base = [vpc(), subnet("a", "10.0.1.0/24"), web];
  const before = await view("before", base);
  const resized = await view("resized", [
    ...base.slice(0, 2),
    withAttributes(web, { instance_type: "m5.24xlarge" }),
  ]);
  const diff = diffDatasets(before, resized);
  assert.equal(diff.assets.unchanged, 2);
  assert.deepEqual(diff.assets.changed.items.map((c) => [c.name, c.changed_fields]), [
    ["web", ["metadata_hash", "metadata.instance_type"]],
  ]);
  assert.ok(diff.assets.compared.includes("instance_type"), diff.assets.compared);
  for (const key of KEPT_ATTRIBUTES) assert.ok(diff.assets.compared.includes(key), key);
  // An attribute no import keeps (the private IP) is not compared, and the result says so.
  const moved = await view("moved", [
    ...base.slice(0, 2),
    withAttributes(web, { private_ip: "10.0.1.99" }),
  ]);
  assert.equal(diffDatasets(before, moved).assets.changed.count, 0);
  assert.match(diff.assets.compared, /not compared/);
});
