/**
 * compare_artifacts on archives whose names carry their version: two real
 * npm packages (`ms-2.1.2.tgz`, `ms-2.1.3.tgz`, whose gzip streams are named
 * after the outer file) compare by the path inside the archive, and a member
 * renamed with its version reports as moved with its change. Inventory modes
 * are octal strings, checked against `tar -tv`. The peers are tar and
 * sha256sum; nothing expected is pasted here.
 */

import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { inventoryAll, inventoryTarballCopy } from "./helpers/inventory.ts";
import { npmTarball } from "./helpers/npm_fixtures.ts";
import { haveJqFixtures, NEW, OLD } from "./helpers/jq_fixtures.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const tools = ["tar", "sha256sum", "npm"].every((p) => hasProgram(p));

/** Each regular file of a tgz by its path inside, with its SHA-256, from tar and sha256sum. */
async function tarDigests(tgz: string): Promise<Map<string, string>> {
  return await withTempDir(async (dir) => {
    await run("tar", ["-xzf", tgz, "-C", dir]);
    const listing = (await run("tar", ["-tzf", tgz])).split("\n").filter((l) =>
      l !== "" && !l.endsWith("/")
    );
    const digests = new Map<string, string>();
    for (const name of listing) {
      digests.set(name, (await run("sha256sum", [join(dir, name)])).split(" ")[0]!);
    }
    return digests;
  });
}

/** Inventories every page of one file under a fresh target. */
async function inventoryOf(client: Loose, path: string): Promise<string[]> {
  await ok(client, "open_binary", { path });
  return (await inventoryAll(client)).ids;
}

Deno.test({
  name:
    "compare_artifacts compares two npm package versions by the path inside the archive, not the stream name",
  ignore: !tools,
  fn: async () => {
    const older = await npmTarball("ms@2.1.2");
    const newer = await npmTarball("ms@2.1.3");
    assert.ok(older && newer, "npm pack fetched both versions");
    await withTempRoot("casefile-test-", async ({ client, dir }) => {
      const left = join(dir, basename(older));
      const right = join(dir, basename(newer));
      await Deno.copyFile(older, left);
      await Deno.copyFile(newer, right);
      const compared = await ok(client, "compare_artifacts", {
        left_evidence_ids: await inventoryOf(client, left),
        right_evidence_ids: await inventoryOf(client, right),
        include_unchanged: true,
        limit: 500,
      });
      const leftStream = basename(left).replace(/\.tgz$/, ".tar");
      const rightStream = basename(right).replace(/\.tgz$/, ".tar");
      const byPath = new Map<string, Loose>(
        compared.result.changes.items.map((c: Loose) => [c.logical_path, c]),
      );
      // The decompressed stream was renamed with the package and its content changed.
      const stream = byPath.get(rightStream);
      assert.equal(stream?.status, "moved");
      assert.equal(stream.moved_from, leftStream);
      assert.ok(stream.dimensions.includes("path") && stream.dimensions.includes("content"));
      // Every file inside compares by its path in the archive, as tar and sha256sum see it.
      const before = await tarDigests(older);
      const after = await tarDigests(newer);
      for (const [name, digest] of after) {
        const change = byPath.get(`${rightStream}/${name}`);
        assert.ok(change, name);
        const expected = !before.has(name)
          ? "added"
          : before.get(name) === digest
          ? "unchanged"
          : "changed";
        assert.equal(change.status, expected, name);
        if (expected !== "added") assert.equal(change.left.logical_path, `${leftStream}/${name}`);
      }
      for (const name of before.keys()) {
        if (!after.has(name)) assert.equal(byPath.get(`${leftStream}/${name}`)?.status, "removed");
      }
      assert.equal(
        compared.result.summary.removed,
        [...before.keys()].filter((n) => !after.has(n)).length,
      );
      assert.equal(
        compared.result.summary.added,
        [...after.keys()].filter((n) => !before.has(n)).length,
      );
    });
  },
});

Deno.test({
  name:
    "compare_artifacts reports a member renamed with its version and changed as moved, with its change",
  ignore: !tools,
  fn: async () => {
    const source = await npmTarball("ms@2.1.3");
    assert.ok(source, "npm pack fetched the package");
    await withTempRoot("casefile-test-", async ({ client, dir }) => {
      // Two builds of one package from the real files: the library file carries the version.
      const build = async (version: string, extra: string): Promise<string> => {
        const work = join(dir, `work-${version}`);
        await Deno.mkdir(work);
        await run("tar", ["-xzf", source, "-C", work]);
        const index = await Deno.readTextFile(join(work, "package/index.js"));
        await Deno.writeTextFile(join(work, `package/ms-${version}.js`), index + extra);
        const out = join(dir, `pkg-${version}.tgz`);
        await run("tar", ["-czf", out, "-C", work, "package"]);
        return out;
      };
      const left = await build("1.0.8", "");
      const right = await build("1.0.9", "\n// patched\n");
      const compared = await ok(client, "compare_artifacts", {
        left_evidence_ids: await inventoryOf(client, left),
        right_evidence_ids: await inventoryOf(client, right),
        limit: 500,
      });
      const byPath = new Map<string, Loose>(
        compared.result.changes.items.map((c: Loose) => [c.logical_path, c]),
      );
      const renamed = byPath.get("pkg-1.0.9.tar/package/ms-1.0.9.js");
      assert.equal(renamed?.status, "moved");
      assert.equal(renamed.moved_from, "pkg-1.0.8.tar/package/ms-1.0.8.js");
      assert.deepEqual(renamed.dimensions, ["path", "content", "size"]);
      assert.equal(compared.result.summary.added, 0);
      assert.equal(compared.result.summary.removed, 0);
      // The files that did not change are not listed.
      assert.equal(byPath.get("pkg-1.0.9.tar/package/index.js"), undefined);
      assert.ok(compared.result.summary.unchanged > 0);
    });
  },
});

/** `-rw-r--r--` as `0644` (set-id and sticky bits included). */
function octalOf(permissions: string): string {
  let special = 0;
  const digits = ([[1, 4], [4, 2], [7, 1]] as const).map(([at, setid]) => {
    const x = permissions[at + 2]!;
    if (/[sStT]/.test(x)) special += setid;
    return (permissions[at] === "r" ? 4 : 0) + (permissions[at + 1] === "w" ? 2 : 0) +
      (/[xst]/.test(x) ? 1 : 0);
  });
  return `${special}${digits.join("")}`;
}

Deno.test({
  name: "inventory_artifact gives modes as octal strings, as tar -tv shows them",
  ignore: !tools,
  fn: async () => {
    const source = await npmTarball("ms@2.1.3");
    assert.ok(source, "npm pack fetched the package");
    await withTempRoot("casefile-test-", async ({ client, dir }) => {
      const { path, stream, inventory } = await inventoryTarballCopy({ client, dir }, source);
      const listing = (await run("tar", ["-tvzf", path])).split("\n").filter((l) => l !== "");
      assert.ok(listing.length > 0);
      for (const line of listing) {
        const parts = line.trim().split(/\s+/);
        const name = parts[parts.length - 1]!.replace(/\/$/, "");
        const occurrence = inventory.occurrences.find((o: Loose) =>
          o.logical_path === `${stream}/${name}`
        );
        assert.ok(occurrence, name);
        assert.equal(occurrence.mode, octalOf(parts[0]!), name);
      }
    });
  },
});

const haveJq = haveJqFixtures("artifacts_compare_test");

Deno.test({
  name:
    "compare_artifacts compares the procedures of a library renamed with its version (moved and changed)",
  ignore: !haveJq || !["ar", "xz", "tar"].every((p) => hasProgram(p)),
  fn: async () => {
    await withTempRoot("casefile-test-", async ({ client, dir }) => {
      // The two real libjq builds, packed as a library named with its version.
      const pack = async (deb: string, version: string): Promise<string> => {
        const work = join(dir, `work-${version}`);
        await Deno.mkdir(work);
        await run("sh", ["-c", `ar p "${deb}" data.tar.xz | xz -d | tar -x -C "${work}"`]);
        await Deno.rename(
          join(work, "usr/lib/x86_64-linux-gnu/libjq.so.1.0.4"),
          join(work, `libjq.so.${version}`),
        );
        const out = join(dir, `libjq-${version}.tar.gz`);
        await run("tar", ["-czf", out, "-C", work, `libjq.so.${version}`]);
        return out;
      };
      const left = await pack(OLD, "1.0.4");
      const right = await pack(NEW, "1.0.5");
      const compared = await ok(client, "compare_artifacts", {
        left_evidence_ids: await inventoryOf(client, left),
        right_evidence_ids: await inventoryOf(client, right),
      });
      const lib = compared.result.changes.items.find((c: Loose) =>
        c.logical_path === "libjq-1.0.5.tar/libjq.so.1.0.5"
      );
      assert.equal(lib?.status, "moved");
      assert.equal(lib.moved_from, "libjq-1.0.4.tar/libjq.so.1.0.4");
      assert.ok(lib.dimensions.includes("content"));
      assert.ok(lib.procedures?.unnamed, JSON.stringify(lib.procedures));
      assert.ok(lib.procedures.unnamed.changed.some((c: Loose) => c.left_address === "0xc7e0"));
    });
  },
});
