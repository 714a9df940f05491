/**
 * compare_artifacts when one side did not read a container the other side
 * lists members of (here max_depth keeps the inner tar of a .tar.gz
 * closed): those paths may exist there, so they are unknown with the
 * reason, never removed or added. The member list comes from `tar -tzf`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { inventoryAll } from "./helpers/inventory.ts";

const MISSING = ["tar", "gzip"].find((p) => !hasProgram(p));
const IGNORE = MISSING ? `needs ${MISSING} (--allow-run=${MISSING})` : false;
if (IGNORE) console.log(`ignored: ${IGNORE}`);

Deno.test({
  name:
    "compare_artifacts calls paths under a container the other side did not read unknown, not removed or added",
  ignore: IGNORE !== false,
  fn: () =>
    withTempRoot("casefile-compare-unread-", async ({ client, dir }) => {
      await Deno.mkdir(join(dir, "tree", "sub"), { recursive: true });
      await Deno.writeTextFile(join(dir, "tree", "a.txt"), "a\n");
      await Deno.writeTextFile(join(dir, "tree", "sub", "b.txt"), "b\n");
      const archive = join(dir, "tree.tar.gz");
      await run("tar", ["-czf", archive, "-C", dir, "tree"]);
      const members = (await run("tar", ["-tzf", archive])).split("\n").filter(Boolean)
        .map((m) => `tree.tar/${m.replace(/\/$/, "")}`).sort();

      await ok(client, "open_binary", { path: archive });
      const read = await inventoryAll(client);
      // The same archive, its inner tar left closed (depth 1 is the decompressed stream).
      const closed = await inventoryAll(client, { max_depth: 1 });
      assert.equal(closed.manifest.complete, false);
      for (const [left, right, absent] of [[read, closed, "removed"], [closed, read, "added"]]) {
        const result = (await ok(client, "compare_artifacts", {
          left_evidence_ids: (left as typeof read).ids,
          right_evidence_ids: (right as typeof read).ids,
          limit: 500,
        })).result;
        assert.equal(result.status, "unknown");
        assert.equal(result.summary[absent as string], 0, JSON.stringify(result.summary));
        const unknown = result.changes.items.filter((c: Loose) => c.status === "unknown")
          .map((c: Loose) => c.logical_path).filter((p: string) => p !== "tree.tar").sort();
        assert.deepEqual(unknown, members);
        assert.ok(
          result.limitations.some((l: string) =>
            l.startsWith(`${members.length} path(s) on the`) && l.includes("max_depth")
          ),
          JSON.stringify(result.limitations),
        );
      }
    }),
});
