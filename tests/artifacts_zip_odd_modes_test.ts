/**
 * Zip entries whose Unix mode carries no valid file type (Maven writes
 * directory entries with mode 0177777): unzip goes by the trailing slash
 * and makes directories, so the inventory must list them as directories,
 * and extracting every file of the archive must then succeed.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { zipArchive } from "./helpers/archives.ts";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const NO_UNZIP = hasProgram("unzip") ? false : "needs unzip (--allow-run=unzip)";
if (NO_UNZIP) console.log(`ignored: ${NO_UNZIP}`);

const enc = new TextEncoder();

Deno.test({
  name:
    "inventory_artifact lists slash-named zip entries with type-less modes as directories, as unzip does",
  ignore: NO_UNZIP !== false,
  fn: () =>
    withTempDir(async (dir) => {
      const archive = join(dir, "lib.jar");
      await Deno.writeFile(
        archive,
        zipArchive([
          { name: "META-INF/", data: new Uint8Array(0), unixMode: 0o177777 },
          { name: "META-INF/maven/", data: new Uint8Array(0), unixMode: 0o177777 },
          { name: "META-INF/maven/pom.xml", data: enc.encode("<project/>\n"), unixMode: 0o100644 },
        ]),
      );
      // The peer: what unzip makes of each entry.
      const peerDir = join(dir, "peer");
      await run("unzip", ["-qq", archive, "-d", peerDir]);
      const peerKinds = new Map<string, string>();
      for (const path of ["META-INF", "META-INF/maven", "META-INF/maven/pom.xml"]) {
        const info = await Deno.lstat(join(peerDir, path));
        peerKinds.set(path, info.isDirectory ? "directory" : info.isFile ? "file" : "other");
      }
      assert.equal(peerKinds.get("META-INF/maven"), "directory");

      const { client, close } = await connect({ roots: [dir], allowFileWrites: true });
      try {
        await ok(client, "open_binary", { path: archive });
        const items = (await ok(client, "inventory_artifact", {})).result.occurrences.items;
        const ours = new Map<string, string>(
          items.filter((o: Loose) => o.logical_path !== ".")
            .map((o: Loose) => [o.logical_path, o.entry_kind]),
        );
        assert.deepEqual(ours, peerKinds);
        const files = items.filter((o: Loose) => o.logical_path !== "." && o.entry_kind === "file");
        const out = join(dir, "out");
        await ok(client, "extract_artifact", {
          approved: true,
          output_root: out,
          occurrence_ids: files.map((o: Loose) => o.occurrence_id),
        });
        assert.deepEqual(
          await Deno.readFile(join(out, "META-INF/maven/pom.xml")),
          await Deno.readFile(join(peerDir, "META-INF/maven/pom.xml")),
        );
      } finally {
        await close();
      }
    }),
});
