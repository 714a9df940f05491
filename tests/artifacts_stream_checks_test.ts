/**
 * A compressed stream whose own check fails (the gzip trailer's CRC-32 or
 * length, bzip2's CRC, zstd's content checksum) is an integrity
 * contradiction, as a zip entry's CRC-32 is: under the default
 * integrity_policy the inventory fails with artifact_integrity_mismatch,
 * under record-and-continue the contradiction is listed and a comparison
 * reports `contradiction`. Which streams fail is the peers' verdict (`gzip
 * -t`, `bzip2 -t`, `zstd -t`), taken at test time on the same bytes.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connect, fails, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { inventoryAll } from "./helpers/inventory.ts";
import { runProgram } from "./helpers/programs.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const MISSING = ["tar", "gzip", "bzip2", "zstd"].find((p) => !hasProgram(p));
const IGNORE = MISSING ? `needs ${MISSING} (--allow-run=${MISSING})` : false;
if (IGNORE) console.log(`ignored: ${IGNORE}`);

/** A copy of `bytes` with the byte at `at` (from the end when negative) inverted. */
function flipped(bytes: Uint8Array, at: number): Uint8Array {
  const copy = bytes.slice();
  const index = at < 0 ? copy.length + at : at;
  copy[index] = copy[index]! ^ 0xff;
  return copy;
}

/** Writes `bytes` to `path` and returns what `program -t` says of it. */
async function peerTest(
  program: string,
  path: string,
  bytes: Uint8Array,
): Promise<{ code: number; stderr: string }> {
  await Deno.writeFile(path, bytes);
  return await runProgram(program, ["-t", path]);
}

Deno.test({
  name:
    "inventory_artifact makes a failed gzip, bzip2 or zstd check an integrity contradiction, as gzip -t, bzip2 -t and zstd -t fail it",
  ignore: IGNORE !== false,
  fn: () =>
    withTempDir(async (dir) => {
      const src = join(dir, "src");
      const roots = join(dir, "roots");
      await Deno.mkdir(src);
      await Deno.mkdir(roots);
      const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`).join("");
      await Deno.writeTextFile(join(src, "a.txt"), lines);
      await Deno.writeTextFile(join(src, "b.txt"), "second member\n");
      const tar = join(dir, "pkg.tar");
      await run("tar", ["-cf", tar, "-C", src, "a.txt", "b.txt"]);
      const gz = (await new Deno.Command("gzip", { args: ["-c", tar], stdout: "piped" }).output())
        .stdout;
      const bz2 = (await new Deno.Command("bzip2", { args: ["-c", tar], stdout: "piped" })
        .output()).stdout;
      const zst = (await new Deno.Command("zstd", {
        args: ["-q", "--check", "-c", tar],
        stdout: "piped",
      }).output()).stdout;
      const intact = join(roots, "pkg.tar.gz");
      assert.equal((await peerTest("gzip", intact, gz)).code, 0);

      // Each damaged stream, the peer's verdict on it, and the check it must fail.
      const cases = [
        {
          name: "crc.tar.gz",
          program: "gzip",
          bytes: flipped(gz, -8),
          peer: /crc error/,
          check: "gzip-crc32",
        },
        {
          name: "len.tar.gz",
          program: "gzip",
          bytes: flipped(gz, -2),
          peer: /length error/,
          check: "gzip-isize",
        },
        // The first block's CRC-32 follows "BZh9" and the block magic.
        {
          name: "crc.tar.bz2",
          program: "bzip2",
          bytes: flipped(bz2, 10),
          peer: /CRC/,
          check: "bzip2-crc32",
        },
        {
          name: "sum.tar.zst",
          program: "zstd",
          bytes: flipped(zst, -1),
          peer: /checksum/,
          check: "zstd-checksum",
        },
      ];
      const { client, close } = await connect({ roots: [roots] });
      try {
        await ok(client, "open_binary", { path: intact });
        const good = await inventoryAll(client);
        assert.equal(good.manifest.complete, true);
        assert.deepEqual(good.first.integrity_contradictions, []);
        for (const c of cases) {
          const path = join(roots, c.name);
          const peer = await peerTest(c.program, path, c.bytes);
          assert.notEqual(peer.code, 0, `${c.program} -t ${c.name}`);
          assert.match(peer.stderr, c.peer);
          await ok(client, "open_binary", { path });
          // The default policy fails the call, as a zip entry's CRC-32 failure does.
          const refused = await fails(client, "inventory_artifact", {});
          assert.equal(refused.code, "artifact_integrity_mismatch", JSON.stringify(refused));
          assert.equal(refused.details.contradiction.check, c.check, c.name);
          assert.match(refused.remediation.action, /record-and-continue/);
          // Recorded and continued: listed, the manifest incomplete, the comparison a contradiction.
          const recorded = await inventoryAll(client, {
            integrity_policy: "record-and-continue",
            integrity_continue_approved: true,
          });
          const listed = recorded.first.integrity_contradictions as Loose[];
          assert.deepEqual(listed.map((x) => x.check), [c.check], c.name);
          assert.equal(listed[0].logical_path, c.name.replace(/\.(gz|bz2|zst)$/, ""));
          assert.equal(recorded.manifest.complete, false);
          const compared = (await ok(client, "compare_artifacts", {
            left_evidence_ids: good.ids,
            right_evidence_ids: recorded.ids,
          })).result;
          assert.equal(compared.status, "contradiction", c.name);
        }
      } finally {
        await close();
      }
    }),
});
