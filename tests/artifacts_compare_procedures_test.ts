/**
 * compare_artifacts' procedure comparison of one library built twice (C
 * compiled here: procedures kept, grown, removed and added), with `nm` as the
 * oracle for every list and count: the added, removed and resized names,
 * their counts, the sizes on each side, and each side's procedure total
 * against `list_procedures` on that side.
 */

import assert from "node:assert/strict";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { compareOpened } from "./helpers/inventory.ts";

const READY = ["cc", "nm"].every((program) => hasProgram(program));
if (!READY) console.log("artifacts_compare_procedures_test: needs cc and nm: skipped");

const LEFT = `
int kept_as_is(int x) { return x + 1; }
int grows(int x) { return x * 2; }
int dropped_first(int x) { return x - 3; }
int dropped_second(int x) { return x ^ 5; }
`;
const RIGHT = `
int kept_as_is(int x) { return x + 1; }
int grows(int x) { int y = x * 2; for (int i = 0; i < x; i++) y += i * i ^ (y >> 3); return y; }
int arrived_first(int x) { return x + 7; }
int arrived_second(int x) { return x * 11; }
int arrived_third(int x) { return x / 3; }
`;

/** Function symbols of the symbol table, name → size, as `nm --defined-only -S` lists them. */
async function nmFunctions(path: string): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const line of (await run("nm", ["--defined-only", "-S", path])).split("\n")) {
    const parts = line.trim().split(/\s+/);
    if (parts.length === 4 && /^[TtWi]$/.test(parts[2]!)) {
      sizes.set(parts[3]!, parseInt(parts[1]!, 16));
    }
  }
  return sizes;
}

/**
 * Builds `left` and `right` as `DIR/left/libx.so` and `DIR/right/libx.so`,
 * then inventories both directories and compares them.
 */
async function compareBuilds(
  client: Loose,
  dir: string,
  left: string,
  right: string,
): Promise<Loose> {
  for (const [side, source] of [["left", left], ["right", right]]) {
    await Deno.mkdir(`${dir}/${side}`);
    await Deno.writeTextFile(`${dir}/${side}.c`, source!);
    await run("cc", [
      "-O1",
      "-shared",
      "-fPIC",
      "-o",
      `${dir}/${side}/libx.so`,
      `${dir}/${side}.c`,
    ]);
  }
  return (await compareOpened(client, { left: `${dir}/left`, right: `${dir}/right` })).compared;
}

/** Every procedure `list_procedures` lists for the target at `path`. */
async function procedureTotal(client: Loose, path: string): Promise<number> {
  await ok(client, "open_binary", { path });
  return (await ok(client, "list_procedures", { limit: 1 })).result.total;
}

Deno.test({
  name:
    "compare_artifacts lists and counts the procedures added, removed and resized as nm reads them",
  ignore: !READY,
  fn: async () => {
    await withTempRoot("casefile-compare-procedures-", async ({ client, dir }) => {
      const compared = await compareBuilds(client, dir, LEFT, RIGHT);
      const change = compared.result.changes.items.find((c: Loose) => c.logical_path === "libx.so");
      assert.ok(change, JSON.stringify(compared.result.changes.items));
      assert.equal(change.status, "changed");
      const procedures = change.procedures;

      const left = await nmFunctions(`${dir}/left/libx.so`);
      const right = await nmFunctions(`${dir}/right/libx.so`);
      const added = [...right.keys()].filter((name) => !left.has(name)).sort();
      const removed = [...left.keys()].filter((name) => !right.has(name)).sort();
      const resized = [...left.keys()]
        .filter((name) => right.has(name) && right.get(name) !== left.get(name)).sort();
      assert.deepEqual(added, ["arrived_first", "arrived_second", "arrived_third"]);
      assert.deepEqual(removed, ["dropped_first", "dropped_second"]);
      assert.ok(resized.includes("grows") && !resized.includes("kept_as_is"));

      assert.deepEqual([...procedures.added].sort(), added);
      assert.equal(procedures.added_count, added.length);
      assert.deepEqual([...procedures.removed].sort(), removed);
      assert.equal(procedures.removed_count, removed.length);
      assert.deepEqual(
        [...procedures.resized].sort((a: Loose, b: Loose) => a.name < b.name ? -1 : 1),
        resized.map((name) => ({ name, left_size: left.get(name), right_size: right.get(name) })),
      );
      assert.equal(procedures.resized_count, resized.length);
      assert.equal(procedures.truncated, false);
      assert.equal(procedures.left_procedures, await procedureTotal(client, `${dir}/left/libx.so`));
      assert.equal(
        procedures.right_procedures,
        await procedureTotal(client, `${dir}/right/libx.so`),
      );
      assert.notEqual(procedures.left_procedures, procedures.right_procedures);
    });
  },
});

Deno.test({
  name: "compare_artifacts caps each procedure list at 100 names and keeps the full counts",
  ignore: !READY,
  fn: async () => {
    await withTempRoot("casefile-compare-procedures-cap-", async ({ client, dir }) => {
      const many = Array.from(
        { length: 150 },
        (_, i) => `int made_${i}(int x) { return x + ${i}; }`,
      );
      const compared = await compareBuilds(client, dir, LEFT, `${LEFT}\n${many.join("\n")}`);
      const procedures = compared.result.changes.items
        .find((c: Loose) => c.logical_path === "libx.so").procedures;
      const left = await nmFunctions(`${dir}/left/libx.so`);
      const added = [...(await nmFunctions(`${dir}/right/libx.so`)).keys()]
        .filter((name) => !left.has(name));
      assert.equal(added.length, 150);
      assert.equal(procedures.added_count, 150);
      assert.equal(procedures.added.length, 100);
      assert.ok(procedures.added.every((name: string) => added.includes(name)));
      assert.equal(procedures.truncated, true);
      assert.equal(procedures.removed_count, 0);
    });
  },
});
