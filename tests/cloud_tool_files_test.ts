/**
 * The layout of the cloud tools: one file per tool under `src/cloud/tools/`,
 * named after it, declaring its toolset, and importing no other tool file;
 * every toolset the tools name is one the workbench declares.
 */

import assert from "node:assert/strict";
import { CLOUD_TOOLSETS, cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { connect } from "./helpers/in_memory.ts";

const TOOLS = new URL("../src/cloud/tools/", import.meta.url);

Deno.test("every cloud tool lives in src/cloud/tools/<tool_name>.ts, declares its toolset and imports no other tool file", async () => {
  const { casefile, close } = await connect({ workbenches: [cloudWorkbenchWith()] });
  let tools: { name: string; toolset?: string }[];
  try {
    tools = casefile.catalog.list();
  } finally {
    await close();
  }
  const files = [...Deno.readDirSync(TOOLS)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".ts"))
    .map((entry) => entry.name.slice(0, -".ts".length))
    .sort();
  assert.deepEqual(files, tools.map((tool) => tool.name).sort(), "one file per tool, no other");
  const toolsets = new Set(CLOUD_TOOLSETS.map((toolset) => toolset.name as string));
  for (const tool of tools) {
    assert.ok(toolsets.has(tool.toolset ?? ""), `${tool.name}: toolset ${tool.toolset}`);
    const text = await Deno.readTextFile(new URL(`${tool.name}.ts`, TOOLS));
    const imports = [...text.matchAll(/from "([^"]+)"/g)].map((found) => found[1] ?? "");
    const sibling = imports.find((path) => path.startsWith("./") || path.includes("/tools/"));
    assert.equal(sibling, undefined, `${tool.name}.ts imports another tool file`);
  }
});
