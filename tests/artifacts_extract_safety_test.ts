/**
 * Extraction safety through a real MCP client: output roots that cross a
 * symbolic link are refused before anything is made, containment and
 * cleanup reports come from re-checking the disk, several members of a
 * nested archive chain are written together, and bomb messages name the
 * limit that stopped them.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { concat, TAR_END, tarData, tarHeader } from "./helpers/archives.ts";
import { connect, fails, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { removeOutput, verifyContainment } from "../src/apps/artifacts/extract.ts";
import { DEFAULT_LIMITS } from "../src/apps/artifacts/model.ts";
import { captureMembers } from "../src/apps/artifacts/scan.ts";
import { DENO_JSON } from "./helpers/spawn.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const enc = new TextEncoder();

function tar(members: Array<[string, Uint8Array]>): Uint8Array {
  return concat([
    ...members.flatMap(([name, data]) => [tarHeader({ name, size: data.length }), tarData(data)]),
    TAR_END,
  ]);
}

async function occurrences(client: Loose): Promise<Map<string, Loose>> {
  const page = (await ok(client, "inventory_artifact", { occurrence_limit: 500 })).result;
  return new Map(page.occurrences.items.map((o: Loose) => [o.logical_path, o]));
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("extract_artifact refuses an output root whose path crosses a symbolic link and writes nothing outside", async () => {
  const root = await Deno.makeTempDir();
  const granted = await Deno.makeTempDir();
  const outside = await Deno.makeTempDir();
  await Deno.writeFile(join(root, "a.tar"), tar([["x.txt", enc.encode("x\n")]]));
  await Deno.symlink(outside, join(granted, "link"));
  const { client, close } = await connect({ roots: [root], allowFileWrites: true });
  try {
    await ok(client, "open_binary", { path: join(root, "a.tar") });
    const x = (await occurrences(client)).get("x.txt");
    // The link as the output root's parent, and as a grandparent.
    await Deno.mkdir(join(outside, "sub"));
    for (const outputRoot of [join(granted, "link", "out"), join(granted, "link", "sub", "out")]) {
      const refused = await fails(client, "extract_artifact", {
        approved: true,
        output_root: outputRoot,
        occurrence_ids: [x.occurrence_id],
      });
      assert.equal(refused.code, "invalid_request", JSON.stringify(refused));
      assert.match(refused.message, /symbolic link/);
      assert.match(refused.message, /link/);
    }
    assert.deepEqual(await listing(outside), ["sub"]);
    assert.deepEqual(await listing(join(outside, "sub")), []);
    // The output root itself a dangling link is refused too (it exists as a name).
    await Deno.symlink(join(outside, "made"), join(granted, "dangling"));
    const dangling = await fails(client, "extract_artifact", {
      approved: true,
      output_root: join(granted, "dangling"),
      occurrence_ids: [x.occurrence_id],
    });
    assert.equal(dangling.code, "invalid_request");
    assert.match(dangling.message, /symbolic link/);
    assert.deepEqual(await listing(outside), ["sub"]);
    // A real directory beside the link still works, and its report is checked.
    const done = await ok(client, "extract_artifact", {
      approved: true,
      output_root: join(granted, "real"),
      occurrence_ids: [x.occurrence_id],
    });
    assert.equal(done.result.containment_verified, true);
    assert.equal(await Deno.readTextFile(join(granted, "real", "x.txt")), "x\n");
  } finally {
    await close();
    for (const dir of [root, granted, outside]) await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("extract_artifact writes many members of a nested tar.gz inside a tar, and refuses an archive chosen with its own members", async () => {
  const root = await Deno.makeTempDir();
  const out = await Deno.makeTempDir();
  const leaves: Array<[string, Uint8Array]> = ["a.txt", "b.txt", "c.txt", "d/e.txt"].map((
    name,
  ) => [name, enc.encode(`${name} content\n`.repeat(3))]);
  const inner = tar(leaves);
  const middle = tar([["inner.tar.gz", gzipSync(inner)], ["note.txt", enc.encode("note\n")]]);
  await Deno.writeFile(join(root, "outer.tar"), tar([["middle.tar", middle]]));
  const { client, close } = await connect({ roots: [root], allowFileWrites: true });
  try {
    await ok(client, "open_binary", { path: join(root, "outer.tar") });
    const byPath = await occurrences(client);
    const prefix = "middle.tar/inner.tar.gz/inner.tar/";
    const wanted = leaves.map(([name]) => byPath.get(prefix + name));
    assert.ok(wanted.every(Boolean), [...byPath.keys()].join(", "));
    const idOf = (path: string): string => byPath.get(path).occurrence_id;
    // The chain: each archive and its decompressed form. Two or three links of it, or an
    // archive with a member, would make one output path a file and a directory at once.
    const chain = ["middle.tar", "middle.tar/inner.tar.gz", "middle.tar/inner.tar.gz/inner.tar"];
    for (
      const selection of [
        chain,
        chain.slice(0, 2),
        ["middle.tar/inner.tar.gz", prefix + "a.txt", prefix + "b.txt"],
      ]
    ) {
      const refused = await fails(client, "extract_artifact", {
        approved: true,
        output_root: join(out, "refused"),
        occurrence_ids: selection.map(idOf),
      });
      assert.equal(refused.code, "invalid_request", JSON.stringify(refused));
      assert.match(refused.message, /holds/);
      await assert.rejects(Deno.lstat(join(out, "refused")));
    }
    // The leaves at the bottom of the chain and a member beside it, all at once.
    const ids = [...wanted.map((o) => o.occurrence_id), idOf("middle.tar/note.txt")];
    const done = await ok(client, "extract_artifact", {
      approved: true,
      output_root: join(out, "x"),
      occurrence_ids: ids,
    });
    assert.equal(done.result.files.total, 5);
    assert.equal(done.result.containment_verified, true);
    for (const [name, data] of leaves) {
      assert.deepEqual(await Deno.readFile(join(out, "x", prefix + name)), data, name);
    }
    assert.equal(await Deno.readTextFile(join(out, "x", "middle.tar/note.txt")), "note\n");
    // And the whole chain in separate calls.
    for (const [i, path] of chain.entries()) {
      const one = await ok(client, "extract_artifact", {
        approved: true,
        output_root: join(out, `chain${i}`),
        occurrence_ids: [idOf(path)],
      });
      assert.equal(one.result.files.total, 1);
    }
    assert.deepEqual(await Deno.readFile(join(out, "chain0", "middle.tar")), middle);
    assert.deepEqual(await Deno.readFile(join(out, "chain2", chain[2]!)), inner);
  } finally {
    await close();
    await Deno.remove(root, { recursive: true });
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("captureMembers() fails with the consumer's own error instead of calling the member unreadable", async () => {
  const root = await Deno.makeTempDir();
  const inner = tar([["a.txt", enc.encode("a\n")]]);
  await Deno.writeFile(
    join(root, "outer.tar"),
    tar([["inner.tar", inner], ["b.txt", enc.encode("b\n")]]),
  );
  class SinkBroke extends Error {}
  const seen: string[] = [];
  try {
    await assert.rejects(
      captureMembers({ kind: "file", realPath: join(root, "outer.tar"), name: "outer.tar" }, {
        limits: DEFAULT_LIMITS,
        capture: {
          paths: new Set(["inner.tar/a.txt", "inner.tar", "b.txt"]),
          maxBytes: 1 << 20,
          onMember: (path) => {
            seen.push(path);
            if (path === "inner.tar/a.txt") throw new SinkBroke("disk full");
          },
        },
      }),
      SinkBroke,
    );
    // The scan stopped at the failure: nothing after it was handed over.
    assert.deepEqual(seen, ["inner.tar/a.txt"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("inventory_artifact names max_entry_bytes, with its own value, when a gzip member inflates past it", async () => {
  const root = await Deno.makeTempDir();
  await Deno.writeFile(
    join(root, "a.tar"),
    tar([["zeros.gz", gzipSync(new Uint8Array(3 << 20))]]),
  );
  const { client, close } = await connect({ roots: [root] });
  try {
    await ok(client, "open_binary", { path: join(root, "a.tar") });
    const page = (await ok(client, "inventory_artifact", {
      occurrence_limit: 500,
      max_entry_bytes: 2 << 20,
      max_total_bytes: 1 << 30,
    })).result;
    const text = JSON.stringify(page);
    assert.match(
      text,
      new RegExp(`max_entry_bytes exceeded \\(observed \\d+, allowed ${2 << 20}\\)`),
    );
    assert.doesNotMatch(text, /max_total_bytes exceeded/);
  } finally {
    await close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("removeOutput() reports residue when it cannot look, never a verified cleanup", async () => {
  await withTempDir(async (dir) => {
    const target = join(dir, "out");
    await Deno.mkdir(join(target, "sub"), { recursive: true });
    await Deno.writeTextFile(join(target, "sub", "f"), "x");
    // A directory outside the server's grants (where a link once carried an extraction):
    // it can be neither removed nor looked at, so nothing can be confirmed gone.
    const script = `import { removeOutput, verifyContainment } from ${
      JSON.stringify(new URL("../src/apps/artifacts/extract.ts", import.meta.url).href)
    };\nconsole.log(JSON.stringify(await removeOutput(${JSON.stringify(join(target, "sub"))})));`;
    const scriptDir = await Deno.makeTempDir();
    const scriptPath = join(scriptDir, "remove.ts");
    await Deno.writeTextFile(scriptPath, script);
    // `deno run`, not `deno eval`: eval would grant everything.
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--config",
        DENO_JSON,
        `--allow-write=${join(dir, "none")}`,
        `--allow-read=${join(dir, "none")}`,
        scriptPath,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    await Deno.remove(scriptDir, { recursive: true });
    const stdout = new TextDecoder().decode(out.stdout);
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const report = JSON.parse(stdout);
    assert.equal(report.verified, false, JSON.stringify(report));
    assert.deepEqual(report.residual_paths, ["$OUTPUT_ROOT"]);
    assert.equal(await Deno.readTextFile(join(target, "sub", "f")), "x");
    // Allowed, the same removal is verified by looking.
    const removed = await removeOutput(join(target, "sub"));
    assert.deepEqual(removed, { attempted: true, verified: true, residual_paths: [] });
    await assert.rejects(Deno.lstat(join(target, "sub")), Deno.errors.NotFound);
  });
});

Deno.test("verifyContainment() finds a swapped file, a planted link, an extra file and a missing one", async () => {
  const dir = await Deno.makeTempDir();
  const outside = await Deno.makeTempDir();
  try {
    const root = join(dir, "out");
    await Deno.mkdir(join(root, "d"), { recursive: true });
    await Deno.writeTextFile(join(root, "d", "a"), "a");
    const identityOf = async (path: string) => {
      const info = await Deno.lstat(path);
      return { dev: info.dev, ino: info.ino ?? -1 };
    };
    const rootId = await identityOf(root);
    const written = new Map([["d/a", await identityOf(join(root, "d", "a"))]]);
    assert.equal(await verifyContainment(root, rootId, written), null);
    // Same name and content, another file (as a racer's rename would leave it).
    await Deno.writeTextFile(join(root, "d", "a.new"), "a");
    await Deno.rename(join(root, "d", "a.new"), join(root, "d", "a"));
    assert.match(String(await verifyContainment(root, rootId, written)), /not the file written/);
    written.set("d/a", await identityOf(join(root, "d", "a")));
    await Deno.symlink(outside, join(root, "d", "l"));
    assert.match(String(await verifyContainment(root, rootId, written)), /symbolic link/);
    await Deno.remove(join(root, "d", "l"));
    await Deno.writeTextFile(join(root, "extra"), "e");
    assert.match(String(await verifyContainment(root, rootId, written)), /not written/);
    await Deno.remove(join(root, "extra"));
    written.set("b", written.get("d/a")!);
    assert.match(String(await verifyContainment(root, rootId, written)), /missing/);
    written.delete("b");
    // The root swapped for a link to a copy elsewhere.
    await Deno.rename(root, join(outside, "moved"));
    await Deno.symlink(join(outside, "moved"), root);
    assert.match(String(await verifyContainment(root, rootId, written)), /no longer/);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test({
  name:
    "extract_artifact writes the whole selection in the first call and says offset and limit page only the report, as GNU tar extracts it",
  ignore: !hasProgram("tar"),
  fn: () =>
    withTempDir(async (dir) => {
      const src = join(dir, "src");
      const roots = join(dir, "root");
      const peer = join(dir, "peer");
      for (const d of [src, roots, peer]) await Deno.mkdir(d);
      const names = ["one.txt", "two.txt", "three.txt"];
      for (const [i, name] of names.entries()) {
        await Deno.writeTextFile(join(src, name), `member ${i}\n`.repeat(i + 1));
      }
      const archive = join(roots, "three.tar");
      await run("tar", ["-cf", archive, "-C", src, ...names]);
      await run("tar", ["-xf", archive, "-C", peer]);

      const { client, close } = await connect({ roots: [roots, dir], allowFileWrites: true });
      try {
        await ok(client, "open_binary", { path: archive });
        const byPath = await occurrences(client);
        const ids = names.map((n) => byPath.get(n).occurrence_id);
        const out = join(dir, "out");
        const first = (await ok(client, "extract_artifact", {
          approved: true,
          output_root: out,
          occurrence_ids: ids,
          limit: 2,
        })).result;
        // The report is paged; the disk holds every member, byte for byte as tar leaves it.
        assert.equal(first.files.items.length, 2);
        assert.equal(first.files.next_offset, 2);
        assert.equal(first.written_files, 3);
        assert.match(first.paging_note, /wrote all 3 selected file\(s\).*page only this report/);
        assert.deepEqual(await listing(out), [...names].sort());
        for (const name of names) {
          assert.deepEqual(
            await Deno.readFile(join(out, name)),
            await Deno.readFile(join(peer, name)),
          );
        }
        // The next page cannot be asked of the same output root: the refusal says why.
        const refused = await fails(client, "extract_artifact", {
          approved: true,
          output_root: out,
          occurrence_ids: ids,
          limit: 2,
          offset: 2,
        });
        assert.equal(refused.code, "invalid_request");
        assert.match(refused.message, /was done by the call with offset 0/);
        assert.match(refused.message, /offset pages only the report/);
        assert.match(refused.remediation.action, /limit: 500/);
        assert.deepEqual(await listing(out), [...names].sort());
        // Without an offset the refusal stays the plain one.
        const again = await fails(client, "extract_artifact", {
          approved: true,
          output_root: out,
          occurrence_ids: ids,
        });
        assert.match(again.message, /already exists; extraction writes only into a new directory/);
        // A report that fits says so.
        const whole = (await ok(client, "extract_artifact", {
          approved: true,
          output_root: join(dir, "out2"),
          occurrence_ids: ids,
          limit: 500,
        })).result;
        assert.equal(whole.files.items.length, 3);
        assert.match(whole.paging_note, /files lists every one/);
      } finally {
        await close();
      }
    }),
});
