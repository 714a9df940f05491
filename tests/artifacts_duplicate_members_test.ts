/**
 * Archives that hold two members under one path (a tar appended to with
 * `tar -r`): the inventory lists the later member, as extraction by GNU tar
 * leaves it, so extract_artifact must write that member's bytes and not
 * call the artifact changed because an earlier member had the same name.
 * The expected bytes come from GNU tar extracting the same archive. An ar
 * archive keeps every member of a name (a static library with two util.o,
 * both linked): each is listed, as GNU ar lists and extracts them.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { withTempDir } from "./helpers/temp_dir.ts";
import { inventoryAll } from "./helpers/inventory.ts";

const NO_TAR = hasProgram("tar") ? false : "needs GNU tar (--allow-run=tar)";
if (NO_TAR) console.log(`ignored: ${NO_TAR}`);

/** One version of the shared member: how to write it, and the name to append it under. */
interface Version {
  write: (path: string) => Promise<void>;
  /** The member name given to tar (default: the file's own name). */
  as?: string;
}

/**
 * A tar in `DIR/root/ARCHIVE` holding every version of `SOURCE/NAME` in turn
 * (the first created, the rest appended, as `tar -rf` does).
 */
async function appendedTar(
  dir: string,
  archiveName: string,
  name: string,
  versions: Version[],
): Promise<{ src: string; roots: string; archive: string }> {
  const src = join(dir, "src");
  const roots = join(dir, "root");
  await Deno.mkdir(src);
  await Deno.mkdir(roots);
  const archive = join(roots, archiveName);
  for (const [k, version] of versions.entries()) {
    await version.write(join(src, name));
    await run("tar", [k === 0 ? "-cf" : "-rf", archive, "-C", src, version.as ?? name]);
  }
  return { src, roots, archive };
}

/** A version that writes `text`. */
const text = (content: string): Version => ({
  write: (path) => Deno.writeTextFile(path, content),
});

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test({
  name: "extract_artifact writes the later of two same-path tar members, as GNU tar does",
  ignore: NO_TAR !== false,
  fn: () =>
    withTempDir(async (dir) => {
      const { roots, archive } = await appendedTar(dir, "dupes.tar", "same.txt", [
        text("first\n"),
        text("second, and longer\n"),
      ]);
      // The peer: GNU tar lists both members and leaves the later one on disk.
      assert.equal((await run("tar", ["-tf", archive])).trim().split("\n").length, 2);
      const peerDir = join(dir, "peer");
      await Deno.mkdir(peerDir);
      await run("tar", ["-xf", archive, "-C", peerDir]);
      const expected = await Deno.readFile(join(peerDir, "same.txt"));

      const { client, close } = await connect({ roots: [roots, dir], allowFileWrites: true });
      try {
        await ok(client, "open_binary", { path: archive });
        const page = (await ok(client, "inventory_artifact", {})).result;
        const same = page.occurrences.items.find((o: Loose) => o.logical_path === "same.txt");
        assert.ok(same, JSON.stringify(page.occurrences.items));
        assert.equal(same.sha256, await sha256Hex(expected));
        const out = join(dir, "out");
        const done = (await ok(client, "extract_artifact", {
          approved: true,
          output_root: out,
          occurrence_ids: [same.occurrence_id],
        })).result;
        assert.equal(done.files.total, 1);
        assert.deepEqual(await Deno.readFile(join(out, "same.txt")), expected);
      } finally {
        await close();
      }
    }),
});

Deno.test({
  name:
    "open_binary by occurrence_id reads the later of two same-path ELF members, as GNU tar does",
  ignore: NO_TAR !== false,
  fn: () =>
    withTempDir(async (dir) => {
      const { roots, archive } = await appendedTar(dir, "tools.tar", "tool", [
        { write: (path) => Deno.copyFile("/usr/bin/true", path) },
        { write: (path) => Deno.copyFile("/usr/bin/false", path) },
      ]);
      const peerDir = join(dir, "peer");
      await Deno.mkdir(peerDir);
      await run("tar", ["-xf", archive, "-C", peerDir]);
      const expected = await sha256Hex(await Deno.readFile(join(peerDir, "tool")));
      assert.notEqual(expected, await sha256Hex(await Deno.readFile("/usr/bin/true")));

      const { client, close } = await connect({ roots: [roots] });
      try {
        await ok(client, "open_binary", { path: archive });
        const page = (await ok(client, "inventory_artifact", {})).result;
        const tool = page.occurrences.items.find((o: Loose) => o.logical_path === "tool");
        assert.equal(tool.sha256, expected);
        const opened = (await ok(client, "open_binary", { occurrence_id: tool.occurrence_id }))
          .result;
        assert.equal(opened.target.sha256, expected);
      } finally {
        await close();
      }
    }),
});

Deno.test({
  name:
    "inventory_artifact's graph holds one occurrence, edge and node for a path three tar members share, as GNU tar extracts it",
  ignore: NO_TAR !== false || !hasProgram("sha256sum"),
  fn: () =>
    withTempDir(async (dir) => {
      const { src, roots, archive } = await appendedTar(dir, "dupes.tar", "same.txt", [
        text("first\n"),
        text("second version\n"),
        { ...text("third\n"), as: "./same.txt" },
      ]);
      const only = join(roots, "only.tar");
      await run("tar", ["-cf", only, "-C", src, "same.txt"]);
      // The peer: tar lists three members; extraction leaves the last one's bytes.
      const peerList = (await run("tar", ["-tf", archive])).trim().split("\n");
      assert.equal(peerList.length, 3);
      const peerDir = join(dir, "peer");
      await Deno.mkdir(peerDir);
      await run("tar", ["-xf", archive, "-C", peerDir]);
      const expected = (await run("sha256sum", [join(peerDir, "same.txt")])).split(" ")[0];

      const { client, close } = await connect({ roots: [roots] });
      try {
        await ok(client, "open_binary", { path: archive });
        const full = await inventoryAll(client);
        const edges = full.first.edges.items as Loose[];
        const members = full.occurrences.filter((o: Loose) => o.logical_path !== ".");
        assert.equal(members.length, 1, JSON.stringify(members));
        const same = members[0];
        assert.equal(same.sha256, expected);
        const its = edges.filter((e: Loose) => e.occurrence_id === same.occurrence_id);
        assert.equal(its.length, 1, JSON.stringify(edges));
        assert.equal(its[0].child_artifact_id, same.artifact_id);
        // No dangling content: every node but the root is the child of a listed edge.
        const root = full.manifest.root_artifact_id;
        assert.deepEqual(
          full.nodes.map((n: Loose) => n.artifact_id).filter((id: string) => id !== root).sort(),
          [...new Set(edges.map((e: Loose) => e.child_artifact_id))].sort(),
        );
        assert.equal(full.manifest.node_count, full.nodes.length);
        assert.equal(full.manifest.edge_count, edges.length);
        assert.equal(full.manifest.complete, true);
        // The shadowed members are counted, not dropped silently.
        assert.ok(
          full.first.limitations.some((l: string) =>
            l.startsWith(`${peerList.length - 1} members were shadowed`)
          ),
          JSON.stringify(full.first.limitations),
        );
        // Path by path it is the archive holding only the last member.
        await ok(client, "open_binary", { path: only });
        const alone = await inventoryAll(client);
        const compared = (await ok(client, "compare_artifacts", {
          left_evidence_ids: full.ids,
          right_evidence_ids: alone.ids,
          include_unchanged: true,
        })).result;
        assert.equal(compared.status, "unchanged", JSON.stringify(compared));
        // ...and the comparison says the earlier members' content was not compared.
        assert.ok(
          compared.limitations.some((l: string) =>
            l.startsWith(`In the left inventory, ${peerList.length - 1} members were shadowed`) &&
            l.endsWith("neither listed nor compared.")
          ),
          JSON.stringify(compared.limitations),
        );
        assert.ok(!compared.limitations.some((l: string) => l.startsWith("In the right")));
      } finally {
        await close();
      }
    }),
});

/** Runs GNU ar in `cwd`; returns its stdout. */
async function ar(cwd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command("ar", { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`ar ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

Deno.test({
  name:
    "inventory_artifact lists every member of an ar archive that shares a name, as GNU ar lists and extracts them",
  ignore: !hasProgram("ar"),
  fn: () =>
    withTempDir(async (dir) => {
      const roots = join(dir, "root");
      await Deno.mkdir(roots);
      // Two libraries, each with two members named util.o; the second's second util.o differs.
      const libraries: string[] = [];
      for (const [k, second] of ["second util\n", "second util, changed\n"].entries()) {
        const src = join(dir, `src${k}`);
        await Deno.mkdir(join(src, "a"), { recursive: true });
        await Deno.mkdir(join(src, "b"));
        await Deno.writeTextFile(join(src, "a", "util.o"), "first util\n");
        await Deno.writeTextFile(join(src, "b", "util.o"), second);
        await Deno.writeTextFile(join(src, "main.o"), "main\n");
        const library = join(roots, `libdup${k}.a`);
        await ar(src, ["qc", library, "a/util.o", "b/util.o", "main.o"]);
        libraries.push(library);
      }
      const [library, changed] = libraries as [string, string];
      // The peer: ar lists both util.o, and extracts each by its instance number.
      assert.deepEqual((await ar(dir, ["t", library])).trim().split("\n"), [
        "util.o",
        "util.o",
        "main.o",
      ]);
      const instance = async (n: number): Promise<Uint8Array> => {
        const at = join(dir, `peer${n}`);
        await Deno.mkdir(at);
        await ar(at, ["xN", String(n), library, "util.o"]);
        return await Deno.readFile(join(at, "util.o"));
      };
      const first = await instance(1);
      const second = await instance(2);
      assert.notDeepEqual(first, second);

      const { client, close } = await connect({ roots: [roots, dir], allowFileWrites: true });
      try {
        await ok(client, "open_binary", { path: library });
        const full = await inventoryAll(client);
        assert.equal(full.manifest.complete, true);
        assert.deepEqual(full.first.limitations, [], "nothing is shadowed in an ar archive");
        const members = full.occurrences.filter((o: Loose) => o.logical_path !== ".");
        const byPath = new Map<string, Loose>(members.map((o: Loose) => [o.logical_path, o]));
        assert.deepEqual([...byPath.keys()].sort(), ["main.o", "util.o", "util.o%%2"]);
        assert.equal(byPath.get("util.o").sha256, await sha256Hex(first));
        assert.equal(byPath.get("util.o%%2").sha256, await sha256Hex(second));
        assert.deepEqual(byPath.get("util.o").limitations, []);
        assert.match(byPath.get("util.o%%2").limitations[0], /^Member 2 named util\.o /);
        // Both are extracted, each with its own bytes.
        const out = join(dir, "out");
        const done = (await ok(client, "extract_artifact", {
          approved: true,
          output_root: out,
          occurrence_ids: [
            byPath.get("util.o").occurrence_id,
            byPath.get("util.o%%2").occurrence_id,
          ],
        })).result;
        assert.equal(done.files.total, 2);
        assert.deepEqual(await Deno.readFile(join(out, "util.o")), first);
        assert.deepEqual(await Deno.readFile(join(out, "util.o%%2")), second);
        // A change to the second util.o is a change, not hidden behind the first.
        await ok(client, "open_binary", { path: changed });
        const other = await inventoryAll(client);
        const compared = (await ok(client, "compare_artifacts", {
          left_evidence_ids: full.ids,
          right_evidence_ids: other.ids,
          limit: 500,
        })).result;
        assert.equal(compared.status, "changed");
        assert.deepEqual(
          compared.changes.items.map((c: Loose) => [c.status, c.logical_path]),
          [["changed", "util.o%%2"]],
        );
      } finally {
        await close();
      }
    }),
});
