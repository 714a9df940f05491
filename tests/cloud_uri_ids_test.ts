/**
 * Asset ids and names with `/`, `:`, spaces and non-ASCII characters in every
 * URI position of the asset templates, raw and percent-encoded, through a
 * real MCP client; and the link a tool returns for such an asset reads back.
 */

import assert from "node:assert/strict";
import { connect, ok } from "./helpers/in_memory.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";

const ODD_ID = "vm/prod east:01 café";
const ODD_ARN = "arn:aws:ec2:eu-west-1:123456789012:instance/i-0abc def";

Deno.test("odd ids read through every asset template, raw and percent-encoded, and tool links read back", async () => {
  const dir = await Deno.makeTempDir({ prefix: "casefile-uri-ids-" });
  const path = `${dir}/odd.json`;
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      assets: [
        {
          id: ODD_ID,
          arn: null,
          name: "Zürich web",
          asset_type: "EC2",
          provider: "AWS",
          region: "eu-west-1",
          account_id: "123456789012",
        },
        {
          id: "sg 1",
          arn: ODD_ARN,
          name: "guard:1",
          asset_type: "SECURITY_GROUP",
          provider: "AWS",
          region: "eu-west-1",
          account_id: "123456789012",
        },
      ],
      edges: [{ id: "e1", source_id: ODD_ID, target_id: "sg 1", edge_type: "ATTACHED_TO" }],
      findings: [{
        id: "f/1 é",
        resource_id: ODD_ID,
        severity: "HIGH",
        title: "odd",
        source_tool: "test",
      }],
    }),
  );
  const { client, close } = await connect({ roots: [dir], workbenches: [cloudWorkbenchWith()] });
  try {
    await ok(client, "load_dataset", { path, name: "odd" });
    const read = async (uri: string): Promise<Record<string, unknown>> =>
      JSON.parse(
        ((await client.readResource({ uri })).contents[0] as { text: string }).text,
      );
    for (const ref of [ODD_ID, "Zürich web", ODD_ARN, "guard:1"]) {
      for (const form of [ref, encodeURIComponent(ref)]) {
        const detail = await read(`cloudg://assets/${form}`);
        assert.ok(detail.id === ODD_ID || detail.id === "sg 1", `${form}: ${detail.id}`);
        const neighbors = await read(`cloudg://assets/${form}/neighbors`);
        assert.equal((neighbors.edges as unknown[]).length, 1, form);
        const findings = await read(`cloudg://assets/${form}/findings`);
        assert.ok(Array.isArray(findings.findings), form);
      }
    }
    const finding = await read(`cloudg://findings/${encodeURIComponent("f/1 é")}`);
    assert.equal(finding.id, "f/1 é");
    const asset = await ok(client, "get_asset", { ref: ODD_ID });
    assert.equal(asset.result.id, ODD_ID);
    const uri = asset.result.uri as string;
    assert.equal((await read(uri)).id, ODD_ID, "the asset's own uri reads back");
  } finally {
    await close();
    await Deno.remove(dir, { recursive: true });
  }
});
