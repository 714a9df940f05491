/**
 * A directory target's inventory gives every entry its permission bits,
 * subdirectories included, as find(1) prints them (`%m`) for the same tree.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const NO_FIND = hasProgram("find") ? false : "needs find (--allow-run=find)";
if (NO_FIND) console.log(`ignored: ${NO_FIND}`);

Deno.test({
  name: "inventory_artifact of a directory reports each subdirectory's mode as find does",
  ignore: NO_FIND !== false,
  fn: () =>
    withTempDir(async (dir) => {
      const tree = join(dir, "tree");
      await Deno.mkdir(join(tree, "open", "deep"), { recursive: true });
      await Deno.mkdir(join(tree, "private"));
      await Deno.writeTextFile(join(tree, "open", "a.txt"), "a\n");
      await Deno.writeTextFile(join(tree, "private", "b.txt"), "b\n");
      await Deno.chmod(join(tree, "open", "deep"), 0o751);
      await Deno.chmod(join(tree, "private"), 0o700);
      await Deno.chmod(join(tree, "private", "b.txt"), 0o600);
      await Deno.symlink("open/a.txt", join(tree, "link"));
      // The peer: find's octal permission bits of every entry under the tree.
      const expected = new Map(
        (await run("find", [tree, "-mindepth", "1", "-printf", "%P\\t%m\\n"])).trim().split("\n")
          .map((line) => line.split("\t") as [string, string])
          .map(([path, mode]) => [path, mode.padStart(4, "0")]),
      );
      assert.equal(expected.get("private"), "0700");

      const { client, close } = await connect({ roots: [dir] });
      try {
        await ok(client, "open_binary", { path: tree });
        const page = (await ok(client, "inventory_artifact", {})).result;
        const modes = new Map<string, string | null>(
          page.occurrences.items.filter((o: Loose) => o.logical_path !== ".")
            .map((o: Loose) => [o.logical_path, o.mode]),
        );
        assert.deepEqual(modes, expected);
      } finally {
        await close();
      }
    }),
});
