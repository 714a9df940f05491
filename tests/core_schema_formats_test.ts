/**
 * Every tool of every built-in workbench publishes input and output schemas
 * in standard JSON Schema: an SDK client validating against them warns on
 * (and ignores) a `format` it does not know, such as the `starts_with` zod
 * emits for `.startsWith()`.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { withClient } from "./helpers/in_memory.ts";

/** The `format` values of JSON Schema 2020-12 (the validation vocabulary's format annotations). */
const STANDARD_FORMATS = new Set([
  "date-time",
  "date",
  "time",
  "duration",
  "email",
  "idn-email",
  "hostname",
  "idn-hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uuid",
  "uri-template",
  "json-pointer",
  "relative-json-pointer",
  "regex",
]);

/** Every `format` keyword value anywhere in a JSON Schema, with its JSON path. */
function formatsIn(schema: unknown, path = "$", found: string[] = []): string[] {
  if (Array.isArray(schema)) {
    schema.forEach((item, index) => formatsIn(item, `${path}[${index}]`, found));
  } else if (schema !== null && typeof schema === "object") {
    for (const [key, value] of Object.entries(schema)) {
      // `properties` names fields, so a field called "format" is not the keyword.
      if (key === "format" && typeof value === "string") found.push(`${path}: ${value}`);
      else if (key === "properties" && value !== null && typeof value === "object") {
        for (const [field, sub] of Object.entries(value)) {
          formatsIn(sub, `${path}.properties.${field}`, found);
        }
      } else formatsIn(value, `${path}.${key}`, found);
    }
  }
  return found;
}

function nonStandard(schema: unknown): string[] {
  return formatsIn(schema).filter((entry) => !STANDARD_FORMATS.has(entry.split(": ").pop() ?? ""));
}

Deno.test("formatsIn() finds zod's starts_with format and skips fields named format", () => {
  const schema = z.toJSONSchema(z.object({
    path: z.string().startsWith("/"),
    format: z.enum(["a", "b"]),
  }));
  assert.deepEqual(nonStandard(schema), ["$.properties.path: starts_with"]);
});

Deno.test("every tool of every workbench publishes only standard JSON Schema formats", async () => {
  await withClient({}, async (client) => {
    const { tools } = await client.listTools();
    assert.ok(tools.length > 50, "all workbenches are listed");
    const odd = tools.flatMap((tool) => [
      ...nonStandard(tool.inputSchema).map((entry) => `${tool.name} input ${entry}`),
      ...nonStandard(tool.outputSchema ?? {}).map((entry) => `${tool.name} output ${entry}`),
    ]);
    assert.deepEqual(odd, []);
  });
});
