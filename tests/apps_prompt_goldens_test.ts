/**
 * The full rendered text of every apps prompt against its golden file in
 * `tests/golden/prompts/` (refresh with `deno task docs`): a rule of the
 * evidence discipline, a workflow step or a tool name that changes or goes
 * missing fails here, not only a token search.
 */

import assert from "node:assert/strict";
import { APPS_PROMPTS } from "../src/apps/prompts.ts";
import { goldenPrompts, readGoldenPrompts } from "./generate_docs.ts";

Deno.test("every apps prompt renders exactly its golden text (tests/golden/prompts/)", async () => {
  const golden = await readGoldenPrompts();
  const rendered = await goldenPrompts();
  assert.deepEqual(
    [...rendered.keys()].sort(),
    APPS_PROMPTS.map((prompt) => prompt.name).sort(),
    "every apps prompt is rendered",
  );
  assert.deepEqual([...golden.keys()].sort(), [...rendered.keys()].sort(), "one golden per prompt");
  for (const [name, text] of rendered) {
    assert.equal(text, golden.get(name), `tests/golden/prompts/${name}.txt`);
  }
});

Deno.test("every golden prompt carries the numbered evidence discipline", async () => {
  for (const [name, text] of await readGoldenPrompts()) {
    const section = text.slice(text.indexOf("## Evidence discipline"));
    assert.ok(section.length > 0, `${name} has an evidence discipline`);
    assert.deepEqual(
      [...section.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1])),
      [1, 2, 3, 4],
      `${name}: four numbered rules`,
    );
  }
});
