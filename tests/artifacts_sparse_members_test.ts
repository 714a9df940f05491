/**
 * GNU sparse files in tar (old GNU type `S` and pax `GNU.sparse.*`) are
 * regular files to GNU tar, which rebuilds their content on extraction. The
 * inventory does not rebuild them: it must list them as unhashed files and
 * call itself incomplete, so that two archives whose sparse files differ
 * (as `tar -xO` shows) never compare as unchanged.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const NO_TAR = hasProgram("tar") ? false : "needs GNU tar (--allow-run=tar)";
if (NO_TAR) console.log(`ignored: ${NO_TAR}`);

/** A 2 MiB file that is one hole but for `data` at 1,000,000. */
async function sparseFile(path: string, data: string): Promise<void> {
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  await file.seek(1_000_000, Deno.SeekMode.Start);
  await file.write(new TextEncoder().encode(data));
  await file.truncate(2 * 1024 * 1024);
}

for (const format of ["gnu", "pax"]) {
  Deno.test({
    name:
      `inventory_artifact lists a ${format} sparse tar member as an unhashed file and compares it as unknown`,
    ignore: NO_TAR !== false,
    fn: () =>
      withTempDir(async (dir) => {
        const archives: string[] = [];
        for (const [name, data] of [["left", "DATA"], ["right", "OTHER"]] as const) {
          const src = join(dir, name);
          await Deno.mkdir(src);
          await sparseFile(join(src, "sp.bin"), data);
          const archive = join(dir, `${name}.tar`);
          await run("tar", [`--format=${format}`, "--sparse", "-cf", archive, "-C", src, "sp.bin"]);
          archives.push(archive);
        }
        // The peer: GNU tar lists a regular file and extracts different content from each.
        const listed = (await run("tar", ["-tvf", archives[0]!])).trim();
        assert.match(listed, /^-/, listed);
        const contents = await Promise.all(archives.map((a) => run("tar", ["-xOf", a])));
        assert.notEqual(contents[0], contents[1]);
        // The archives really hold sparse entries (not the whole 2 MiB).
        assert.ok((await Deno.stat(archives[0]!)).size < 1024 * 1024);

        const { client, close } = await connect({ roots: [dir] });
        try {
          const evidence: string[] = [];
          for (const archive of archives) {
            await ok(client, "open_binary", { path: archive });
            const inventory = await ok(client, "inventory_artifact", {});
            const { manifest, occurrences } = inventory.result;
            const member = occurrences.items.find((o: Loose) => o.logical_path === "sp.bin");
            assert.equal(member.entry_kind, "file", JSON.stringify(member));
            assert.equal(member.hash_status, "unavailable");
            assert.ok(
              !member.limitations.some((l: string) => /unrecognised type flag/.test(l)),
              JSON.stringify(member.limitations),
            );
            assert.equal(manifest.complete, false);
            evidence.push(inventory.evidence_id);
          }
          const compared = (await ok(client, "compare_artifacts", {
            left_evidence_ids: [evidence[0]],
            right_evidence_ids: [evidence[1]],
          })).result;
          assert.equal(compared.status, "unknown", JSON.stringify(compared.summary));
          assert.equal(compared.summary.unchanged, 0);
        } finally {
          await close();
        }
      }),
  });
}
