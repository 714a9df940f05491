/**
 * compare_artifacts when a traversal limit (max_entries, max_total_bytes)
 * stops one side's walk before the end of its archive: the paths past the
 * cut may exist there, so they are unknown, never removed or added, on
 * either side; a member changed before the cut is still changed. The member
 * order and the paths come from `tar -tvf` and `unzip -l` of the same
 * archives, built at test time from /usr/share/doc copyright files.
 * verify_reconstruction on such a comparison is unknown and says which
 * inventory did not cover its artifact.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { type FullInventory, inventoryAll } from "./helpers/inventory.ts";

const MISSING = ["tar", "gzip", "zip", "unzip"].find((p) => !hasProgram(p));
/** Plain-text copyright files of a few packages every Debian-like system ships. */
const SOURCES = (() => {
  const found: Array<{ name: string; size: number; path: string }> = [];
  try {
    for (const entry of Deno.readDirSync("/usr/share/doc")) {
      const path = `/usr/share/doc/${entry.name}/copyright`;
      try {
        const info = Deno.statSync(path);
        if (info.isFile && info.size > 1500) {
          found.push({ name: entry.name, size: info.size, path });
        }
      } catch {
        // no copyright file
      }
    }
  } catch {
    // no /usr/share/doc
  }
  return found;
})();
const IGNORE = MISSING
  ? `needs ${MISSING} (--allow-run=${MISSING})`
  : SOURCES.length < 8
  ? "needs at least 8 /usr/share/doc/*/copyright files"
  : false;
if (IGNORE) console.log(`ignored: ${IGNORE}`);

/** Member names (directories without their trailing `/`) in `tar -tvf` order. */
async function tarListing(archive: string, gzip: boolean): Promise<string[]> {
  const out = await run("tar", [gzip ? "-tvzf" : "-tvf", archive]);
  return out.split("\n").filter(Boolean).map((line) =>
    line.split(/\s+/).slice(5).join(" ").replace(/\/$/, "")
  );
}

/** Member names (directories without their trailing `/`) in `unzip -l` order. */
async function zipListing(archive: string): Promise<string[]> {
  const lines = (await run("unzip", ["-l", archive])).split("\n");
  const rules = lines.flatMap((line, i) => line.startsWith("---------") ? [i] : []);
  return lines.slice(rules[0]! + 1, rules[1]!).map((line) =>
    line.trim().split(/\s+/).slice(3).join(" ").replace(/\/$/, "")
  );
}

/** The member paths an inventory recorded (the root and, with `stream`, the decompressed stream left out). */
function recorded(inventory: FullInventory, prefix: string): Set<string> {
  return new Set(
    inventory.occurrences.map((o: Loose) => o.logical_path as string)
      .filter((p) => p !== "." && p.startsWith(prefix) && p !== prefix.replace(/\/$/, ""))
      .map((p) => p.slice(prefix.length)),
  );
}

function claimOn(evidenceId: string): Record<string, unknown> {
  return {
    schema_version: 1,
    name: "the cut archives ship the same files",
    claims: [{
      claim_id: "same",
      title: "Every member is unchanged",
      comparison_evidence_id: evidenceId,
      kind: "structural-artifact",
      dimension: "overall",
    }],
  };
}

Deno.test({
  name:
    "compare_artifacts calls paths past a max_entries or max_total_bytes cut unknown, not removed or added, as tar -tvf and unzip -l list them",
  ignore: IGNORE !== false,
  fn: () =>
    withTempRoot("casefile-compare-cut-", async ({ client, dir }) => {
      // Smallest first, so the first member is read whole before any cut and the last is past it.
      const chosen = [...SOURCES].sort((a, b) => a.size - b.size || (a.name < b.name ? -1 : 1))
        .slice(0, 8);
      const names = chosen.map((s, i) => `d/${String(i).padStart(2, "0")}-${s.name}`);
      const first = names[0]!;
      const last = names[names.length - 1]!;
      for (const side of ["a", "b"]) {
        await Deno.mkdir(join(dir, side, "d"), { recursive: true });
        for (const [i, source] of chosen.entries()) {
          const target = join(dir, side, names[i]!);
          await Deno.copyFile(source.path, target);
          // b changes the first member (read before every cut) and the last (past every cut).
          if (side === "b" && (i === 0 || i === chosen.length - 1)) {
            await Deno.writeTextFile(target, "changed\n", { append: true });
          }
        }
        const cwd = join(dir, side);
        const list = ["d", ...names];
        await run("tar", ["--no-recursion", "-C", cwd, "-cf", join(dir, `${side}.tar`), ...list]);
        await run("tar", ["--no-recursion", "-C", cwd, "-czf", join(dir, `${side}.tgz`), ...list]);
        await run("bash", ["-c", `cd '${cwd}' && zip -q -D '../${side}.zip' ${names.join(" ")}`]);
      }
      const sizes = new Map(chosen.map((s, i) => [names[i]!, s.size]));
      const cases = [
        {
          label: "tar, max_entries 4",
          ext: "tar",
          prefix: "",
          listing: await tarListing(join(dir, "a.tar"), false),
          limits: { max_entries: 4 },
        },
        {
          label: "tar.gz, max_entries 4",
          ext: "tgz",
          prefix: "a.tar/",
          listing: await tarListing(join(dir, "a.tgz"), true),
          limits: { max_entries: 4 },
        },
        {
          label: "zip, max_total_bytes",
          ext: "zip",
          prefix: "",
          listing: await zipListing(join(dir, "a.zip")),
          // Past the first three members' bytes, well short of all eight.
          limits: {
            max_total_bytes: names.slice(0, 3).reduce((sum, n) => sum + sizes.get(n)!, 0) + 4096,
          },
        },
      ];
      for (const { label, ext, prefix, listing, limits } of cases) {
        assert.deepEqual([...listing].filter((p) => p !== "d").sort(), [...names].sort(), label);
        for (const cutSide of ["right", "left"] as const) {
          const what = `${label}, ${cutSide} side cut`;
          // The stream inside b.tgz is b.tar: both sides are copied to one name so paths pair.
          const inventories: Record<string, FullInventory> = {};
          for (const side of ["left", "right"] as const) {
            const copy = join(dir, side, `a.${ext}`);
            await Deno.mkdir(join(dir, side), { recursive: true });
            await Deno.copyFile(join(dir, `${side === "left" ? "a" : "b"}.${ext}`), copy);
            await ok(client, "open_binary", { path: copy });
            inventories[side] = await inventoryAll(client, side === cutSide ? limits : {});
          }
          const cut = inventories[cutSide]!;
          assert.equal(cut.manifest.complete, false, what);
          // The cut side holds a proper prefix of the peer's member order, the first member in it.
          const reached = recorded(cut, prefix);
          assert.ok(reached.size > 0 && reached.size < listing.length, `${what}: ${[...reached]}`);
          assert.deepEqual(reached, new Set(listing.slice(0, reached.size)), what);
          assert.ok(reached.has(first) && !reached.has(last), what);

          const compared = await ok(client, "compare_artifacts", {
            left_evidence_ids: inventories.left!.ids,
            right_evidence_ids: inventories.right!.ids,
            include_unchanged: true,
            limit: 500,
          });
          const result = compared.result;
          assert.equal(result.status, "unknown", what);
          assert.equal(result.summary.removed, 0, `${what}: ${JSON.stringify(result.summary)}`);
          assert.equal(result.summary.added, 0, `${what}: ${JSON.stringify(result.summary)}`);
          const status = new Map(
            result.changes.items.map((c: Loose) => [c.logical_path, c.status]),
          );
          for (const path of listing.slice(reached.size)) {
            assert.equal(status.get(`${prefix}${path}`), "unknown", `${what}: ${path}`);
          }
          assert.equal(status.get(`${prefix}${first}`), "changed", what);
          // The directory's listing was cut short on one side: neither unchanged nor changed.
          if (listing.includes("d")) assert.equal(status.get(`${prefix}d`), "unknown", what);
          assert.ok(
            result.limitations.some((l: string) =>
              l.includes(`are not on the ${cutSide}`) && l.includes("Not fully traversed")
            ),
            `${what}: ${JSON.stringify(result.limitations)}`,
          );

          const verified = (await ok(client, "verify_reconstruction", {
            specification: claimOn(compared.evidence_id),
          })).result;
          const claim = verified.claims.items[0];
          assert.equal(claim.status, "unknown", what);
          assert.ok(
            claim.limitations.some((l: string) =>
              l.startsWith(`The ${cutSide} inventory (manifest ${cut.manifest.manifest_id})`)
            ),
            `${what}: ${JSON.stringify(claim.limitations)}`,
          );
        }
      }
    }),
});

Deno.test({
  name:
    "compare_artifacts on a directory walk cut by max_entries: a fully walked subdirectory still shows diff -rq's changes, the cut one is unknown",
  ignore: IGNORE !== false || !hasProgram("diff"),
  fn: () =>
    withTempRoot("casefile-compare-cut-dir-", async ({ client, dir }) => {
      const chosen = SOURCES.slice(0, 4);
      for (const side of ["a", "b"]) {
        for (const sub of ["x", "y"]) {
          await Deno.mkdir(join(dir, side, sub), { recursive: true });
          for (const source of chosen) {
            await Deno.copyFile(source.path, join(dir, side, sub, source.name));
          }
        }
      }
      const sorted = chosen.map((s) => s.name).sort();
      // b: one file of x changed, another removed; y the same on both sides.
      await Deno.writeTextFile(join(dir, "b", "x", sorted[0]!), "changed\n", { append: true });
      await Deno.remove(join(dir, "b", "x", sorted[1]!));
      const diff = (await run("bash", ["-c", `cd '${dir}' && diff -rq a b; true`]))
        .split("\n").filter(Boolean);
      const differ = diff.flatMap((l) => l.match(/^Files a\/(\S+) and b\/\S+ differ$/)?.[1] ?? []);
      const onlyInA = diff.flatMap((l) => {
        const m = l.match(/^Only in a\/(\S+): (\S+)$/);
        return m ? [`${m[1]}/${m[2]}`] : [];
      });
      assert.deepEqual(differ, [`x/${sorted[0]}`]);
      assert.deepEqual(onlyInA, [`x/${sorted[1]}`]);

      await ok(client, "open_binary", { path: join(dir, "a") });
      const left = await inventoryAll(client);
      await ok(client, "open_binary", { path: join(dir, "b") });
      // The walk (names in order) takes x and its 3 files, then y and one of its files.
      const right = await inventoryAll(client, { max_entries: 6 });
      assert.equal(right.manifest.complete, false);
      const reached = new Set(right.occurrences.map((o: Loose) => o.logical_path));
      assert.ok(reached.has("y") && !reached.has(`y/${sorted[3]}`), [...reached].join(" "));

      const result = (await ok(client, "compare_artifacts", {
        left_evidence_ids: left.ids,
        right_evidence_ids: right.ids,
        include_unchanged: true,
        limit: 500,
      })).result;
      const status = new Map(result.changes.items.map((c: Loose) => [c.logical_path, c.status]));
      for (const path of differ) assert.equal(status.get(path), "changed", path);
      for (const path of onlyInA) assert.equal(status.get(path), "removed", path);
      assert.equal(result.summary.removed, onlyInA.length, JSON.stringify(result.summary));
      assert.equal(status.get("x"), "changed");
      // y was listed and walked only in part on the right: it and its unreached files are unknown.
      assert.equal(status.get("y"), "unknown");
      for (const name of sorted) {
        if (!reached.has(`y/${name}`)) assert.equal(status.get(`y/${name}`), "unknown", name);
      }
    }),
});
