/**
 * Paging an inventory whose collections end on different pages: the tool's
 * description says what to pass for a collection whose next_offset is null,
 * and a client doing so reads every item once, in as many pages as the
 * longest collection needs. The members come from `tar -tf`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";

const NO_TAR = hasProgram("tar") ? false : "needs GNU tar (--allow-run=tar)";
if (NO_TAR) console.log(`ignored: ${NO_TAR}`);

const LIMITS = { node: 40, occurrence: 7, edge: 40 } as const;
type Collection = keyof typeof LIMITS;
const PLURAL: Record<Collection, string> = {
  node: "nodes",
  occurrence: "occurrences",
  edge: "edges",
};

Deno.test({
  name:
    "inventory_artifact's description says to pass a finished collection's total as its offset, which pages every item once",
  ignore: NO_TAR !== false,
  fn: () =>
    withTempRoot("casefile-inventory-paging-", async ({ client, dir }) => {
      const tool = (await client.listTools()).tools.find((t) => t.name === "inventory_artifact");
      assert.match(tool?.description ?? "", /next_offset is null pass its total as its offset/);

      const tree = join(dir, "tree");
      await Deno.mkdir(tree);
      for (let i = 0; i < 30; i++) await Deno.writeTextFile(join(tree, `f${i}.txt`), `${i}\n`);
      const archive = join(dir, "tree.tar");
      await run("tar", ["-cf", archive, "-C", dir, "tree"]);
      const members = (await run("tar", ["-tf", archive])).split("\n").filter(Boolean);

      await ok(client, "open_binary", { path: archive });
      const offsets: Record<Collection, number> = { node: 0, occurrence: 0, edge: 0 };
      const seen: Record<Collection, Loose[]> = { node: [], occurrence: [], edge: [] };
      const totals: Record<Collection, number> = { node: 0, occurrence: 0, edge: 0 };
      let pages = 0;
      for (;;) {
        const args: Record<string, number> = {};
        for (const c of Object.keys(LIMITS) as Collection[]) {
          args[`${c}_offset`] = offsets[c];
          args[`${c}_limit`] = LIMITS[c];
        }
        const page = (await ok(client, "inventory_artifact", args)).result;
        pages++;
        let done = true;
        for (const c of Object.keys(LIMITS) as Collection[]) {
          const part = page[PLURAL[c]];
          seen[c].push(...part.items);
          totals[c] = part.total;
          // As the description says: a finished collection is asked for at its total.
          offsets[c] = part.next_offset ?? part.total;
          if (part.next_offset !== null) done = false;
        }
        if (done) break;
      }
      const byPath = seen.occurrence.map((o: Loose) => o.logical_path);
      assert.equal(new Set(byPath).size, byPath.length, "no occurrence twice");
      assert.deepEqual(
        byPath.filter((p: string) => p !== ".").sort(),
        members.map((m) => m.replace(/\/$/, "")).sort(),
      );
      for (const c of Object.keys(LIMITS) as Collection[]) {
        assert.equal(seen[c].length, totals[c], `every ${c} once`);
      }
      const longest = Math.max(
        ...(Object.keys(LIMITS) as Collection[]).map((c) => Math.ceil(totals[c] / LIMITS[c])),
      );
      assert.equal(pages, longest);
    }),
});
