/**
 * An empty tar (`tar -cf x.tar -T /dev/null`: only the end-of-archive zero
 * blocks) is a valid archive: GNU tar lists nothing and succeeds, so the
 * inventory is complete and holds no members.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";

const NO_TAR = hasProgram("tar") ? false : "needs GNU tar (--allow-run=tar)";
if (NO_TAR) console.log(`ignored: ${NO_TAR}`);

Deno.test({
  name: "inventory_artifact reads an empty tar as a complete archive with no members, as tar does",
  ignore: NO_TAR !== false,
  fn: () =>
    withTempRoot("casefile-empty-tar-", async ({ client, dir }) => {
      const archive = join(dir, "empty.tar");
      await run("tar", ["-cf", archive, "-T", "/dev/null"]);
      const bytes = await Deno.readFile(archive);
      assert.ok(bytes.byteLength >= 1024 && bytes.every((b) => b === 0), "tar wrote only zeros");
      // The peer: tar lists no member and exits 0 (run() throws otherwise).
      const listed = (await run("tar", ["-tvf", archive])).split("\n").filter(Boolean);

      const opened = (await ok(client, "open_binary", { path: archive })).result;
      assert.equal(opened.artifact_target.format, "tar");
      const page = (await ok(client, "inventory_artifact", {})).result;
      const members = page.occurrences.items.filter((o: Loose) => o.logical_path !== ".");
      assert.equal(members.length, listed.length);
      assert.equal(page.manifest.complete, true, JSON.stringify(page.limitations));
      assert.equal(page.occurrences.next_offset, null);
    }),
});
