/**
 * The layout of the apps tools: one file per tool under `src/apps/tools/`,
 * each a single factory that declares its toolset and imports no other tool
 * file; and every tool's published result schema names its fields with
 * standard JSON Schema only.
 */

import assert from "node:assert/strict";
import { APPS_TOOLSETS } from "../src/apps/workbench.ts";
import { connect, withClient } from "./helpers/in_memory.ts";

const TOOLS = new URL("../src/apps/tools/", import.meta.url);
const APPS_TOOLSET_NAMES = new Set(APPS_TOOLSETS.map((toolset) => toolset.name));
/** The `format` values JSON Schema validators know. */
const STANDARD_FORMATS = new Set(["date-time", "date", "time", "email", "uri", "uuid"]);

function toolFiles(): string[] {
  return [...Deno.readDirSync(TOOLS)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".ts"))
    .map((entry) => entry.name.slice(0, -".ts".length))
    .sort();
}

Deno.test("every apps tool lives in src/apps/tools/<tool_name>.ts as one factory that imports no other tool file", async () => {
  const { casefile, close } = await connect();
  let apps: { name: string; toolset?: string }[];
  try {
    apps = casefile.catalog.list().filter((tool) => APPS_TOOLSET_NAMES.has(tool.toolset ?? ""));
  } finally {
    await close();
  }
  assert.deepEqual(toolFiles(), apps.map((tool) => tool.name).sort());
  for (const tool of apps) {
    const text = await Deno.readTextFile(new URL(`${tool.name}.ts`, TOOLS));
    const imports = [...text.matchAll(/from "([^"]+)"/g)].map((found) => found[1] ?? "");
    const sibling = imports.find((path) => path.startsWith("./") || path.includes("/tools/"));
    assert.equal(sibling, undefined, `${tool.name}.ts imports another tool file`);
    assert.equal(
      text.match(/^export function \w+Tool\(context: AppsContext\): ToolDefinition/gm)?.length,
      1,
      `${tool.name}.ts exports one factory`,
    );
    assert.ok(
      text.includes(`toolset: ${JSON.stringify(tool.toolset)}`),
      `${tool.name}.ts declares its toolset ${tool.toolset}`,
    );
  }
});

/** Every `format` value anywhere in a JSON Schema. */
function formatsIn(schema: unknown, found: string[] = []): string[] {
  if (Array.isArray(schema)) {
    for (const item of schema) formatsIn(item, found);
  } else if (schema !== null && typeof schema === "object") {
    for (const [key, value] of Object.entries(schema)) {
      if (key === "format" && typeof value === "string") found.push(value);
      else formatsIn(value, found);
    }
  }
  return found;
}

Deno.test("every apps tool's result schema is an object with named fields, in standard JSON Schema", async () => {
  await withClient({}, async (client) => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const success = (tool.outputSchema?.anyOf as Record<string, unknown>[] | undefined)?.[0];
      const result = (success?.properties as Record<string, Record<string, unknown>>)?.result;
      assert.equal(result?.type, "object", `${tool.name}: the result is an object`);
      const properties = Object.keys((result?.properties ?? {}) as Record<string, unknown>);
      assert.ok(properties.length > 0, `${tool.name}: the result schema names its fields`);
      const odd = formatsIn(tool.outputSchema).filter((format) => !STANDARD_FORMATS.has(format));
      assert.deepEqual(odd, [], `${tool.name}: output schema formats`);
    }
  });
});
