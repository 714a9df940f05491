import assert from "node:assert/strict";
import { goldenTools, readGoldenTools, spliceTable, toolTable } from "./generate_docs.ts";

Deno.test("README.md's tool table matches the registered catalog (run `deno task docs` to refresh)", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  // deno fmt pads table cells; compare the cells, not the padding.
  const cells = (text: string) =>
    text.split("\n").map((line) => line.replace(/\s*\|\s*/g, "|").replace(/-{3,}/g, "---"));
  assert.deepEqual(cells(spliceTable(readme, await toolTable())), cells(readme));
});

Deno.test("tools/list matches the golden schemas in tests/golden/tools/ (one file per tool)", async () => {
  const golden = await readGoldenTools();
  const listed = await goldenTools();
  assert.deepEqual(
    [...golden.keys()].sort(),
    [...listed.keys()].sort(),
    "one golden file per tool",
  );
  for (const [name, text] of listed) {
    assert.equal(text, golden.get(name), `tests/golden/tools/${name}.json`);
  }
});

Deno.test("VERSION equals deno.json's version", async () => {
  const { VERSION } = await import("../src/version.ts");
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.equal(VERSION, config.version);
});

Deno.test("README's Run it section quotes exactly what deno task start runs", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.ok(readme.includes(`\`${config.tasks.start}\``), config.tasks.start);
});
