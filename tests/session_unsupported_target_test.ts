/**
 * open_binary's refusal of a file it cannot read lists what a path may name:
 * binaries and the artifact formats (a GNU thin ar archive, whose members
 * live outside it, is one it does not read, though `ar t` lists it).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connect, fails, hasProgram, run } from "./helpers/in_memory.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const NO_AR = hasProgram("ar") ? false : "needs GNU ar (--allow-run=ar)";
if (NO_AR) console.log(`ignored: ${NO_AR}`);

Deno.test({
  name: "open_binary refusing a path names the archive formats too, not only binaries",
  ignore: NO_AR !== false,
  fn: () =>
    withTempDir(async (dir) => {
      await Deno.writeTextFile(join(dir, "member.txt"), "a member kept outside the archive\n");
      const thin = join(dir, "thin.a");
      await run("ar", ["rcT", thin, join(dir, "member.txt")]);
      // The peer reads it as an archive with one member.
      assert.equal((await run("ar", ["t", thin])).trim().split("\n").length, 1);

      const { client, close } = await connect({ roots: [dir] });
      try {
        const refused = await fails(client, "open_binary", { path: thin });
        assert.equal(refused.code, "invalid_request");
        assert.match(refused.message, /not a supported binary/);
        assert.match(refused.message, /ELF/);
        assert.match(refused.message, /tar, \.deb\/ar, zip family, gzip\/xz\/zstd/);
        assert.match(refused.remediation.action, /archive/);
      } finally {
        await close();
      }
    }),
});
