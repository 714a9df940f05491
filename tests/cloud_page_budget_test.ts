/**
 * Pages of the cloud list tools stop below the output policies' size cap,
 * so a policy never shortens a page behind its cursor's back: walking every
 * page under `standard` yields every item exactly once, as under `open`.
 */

import assert from "node:assert/strict";
import { compilePolicy, gateOptions } from "../src/core/policy/compile.ts";
import { loadPolicy } from "../src/core/policy/document.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";
import { connect, type Loose } from "./helpers/in_memory.ts";

Deno.test("under standard, find_assets, list_findings and get_edges pages of 500 lose nothing", async () => {
  const { records } = generateEstate(3000);
  const dir = await Deno.makeTempDir();
  const path = `${dir}/estate.json`;
  await Deno.writeTextFile(
    path,
    JSON.stringify({ assets: records.assets, edges: records.edges, findings: records.findings }),
  );
  const walk = async (profile: string, tool: string): Promise<string[]> => {
    const { client, close } = await connect({
      ...gateOptions(compilePolicy(loadPolicy(profile))),
      workbenches: [cloudWorkbenchWith({ datasets: [{ name: "gen", path }] })],
    });
    const ids: string[] = [];
    try {
      let cursor = "";
      for (let pages = 0; pages < 100; pages++) {
        const answer = await client.callTool({
          name: tool,
          arguments: { limit: 500, cursor, dataset: "gen" },
        }) as Loose;
        assert.ok(!answer.isError, JSON.stringify(answer).slice(0, 300));
        const page = JSON.parse(answer.content[0].text).result;
        assert.equal(
          page.items.length,
          page.returned,
          `${tool} under ${profile}: items as returned`,
        );
        ids.push(
          ...page.items.map((item: Loose) => JSON.stringify([item.id, item.source, item.target])),
        );
        if (!page.next_cursor) break;
        cursor = page.next_cursor;
      }
    } finally {
      await close();
    }
    return ids;
  };
  try {
    for (const tool of ["find_assets", "list_findings", "get_edges"]) {
      const open = await walk("open", tool);
      const standard = await walk("standard", tool);
      assert.ok(open.length >= 300, `${tool}: ${open.length} items`);
      assert.equal(new Set(open).size, open.length);
      assert.deepEqual(standard, open, tool);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
