/**
 * Boundary cases of the root fence that a weakened check would let through:
 * a sibling directory whose name starts with the root's, and a symbolic link
 * inside a directory target that points outside every root.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { isWithin, resolveRoots, RootFence } from "../src/core/roots.ts";
import { ToolFailure } from "../src/core/errors.ts";
import { call, connect, fails, ok, withClient } from "./helpers/in_memory.ts";

/** A root, a sibling named like it plus a suffix, and an outside file with a marker. */
async function layout(): Promise<
  { base: string; root: string; sibling: string; marker: string; outsideHash: string }
> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "casefile-bounds-" }));
  const root = join(base, "root");
  const sibling = join(base, "rootX");
  await Deno.mkdir(join(root, "dir"), { recursive: true });
  await Deno.mkdir(sibling);
  const marker = `OUTSIDE-MARKER-${crypto.randomUUID()}`;
  const outsideBytes = new TextEncoder().encode(`secret ${marker}\n`);
  await Deno.writeFile(join(sibling, "secret.txt"), outsideBytes);
  await Deno.copyFile("/bin/true", join(sibling, "prog"));
  await Deno.copyFile("/bin/true", join(root, "prog"));
  await Deno.writeTextFile(join(root, "dir", "inside.txt"), "inside\n");
  await Deno.symlink(join(sibling, "secret.txt"), join(root, "dir", "escape"));
  const outsideHash = createHash("sha256").update(outsideBytes).digest("hex");
  return { base, root, sibling, marker, outsideHash };
}

Deno.test("isWithin() admits the root and what lies below it, never a sibling sharing its prefix", () => {
  assert.equal(isWithin("/srv/root", "/srv/root"), true);
  assert.equal(isWithin("/srv/root/a/b", "/srv/root"), true);
  assert.equal(isWithin("/srv/rootX", "/srv/root"), false);
  assert.equal(isWithin("/srv/rootX/prog", "/srv/root"), false);
  assert.equal(isWithin("/srv/root-old/prog", "/srv/root/"), false);
});

Deno.test("RootFence.check() and open_binary refuse a file in a sibling directory such as /rootX next to /root", async () => {
  const l = await layout();
  try {
    const fence = new RootFence(resolveRoots([l.root]));
    await assert.rejects(fence.check(join(l.sibling, "prog")), (error: unknown) => {
      assert.ok(error instanceof ToolFailure);
      assert.equal(error.code, "outside_approved_root");
      return true;
    });
    assert.equal((await fence.check(join(l.root, "prog"))).realPath, join(l.root, "prog"));
    await withClient({ roots: [l.root] }, async (client) => {
      for (const path of [join(l.sibling, "prog"), join(l.sibling, "secret.txt"), l.sibling]) {
        const error = await fails(client, "open_binary", { path });
        assert.equal(error.code, "outside_approved_root", path);
      }
      // Through a symlink inside the root, the sibling is refused as well.
      const error = await fails(client, "open_binary", { path: join(l.root, "dir", "escape") });
      assert.equal(error.code, "outside_approved_root");
    });
  } finally {
    await Deno.remove(l.base, { recursive: true });
  }
});

Deno.test("inventory_artifact lists a symlink pointing outside as a link and never follows or hashes its target", async () => {
  const l = await layout();
  const { client, close } = await connect({ roots: [l.root] });
  try {
    await ok(client, "open_binary", { path: join(l.root, "dir") });
    const page = await call(client, "inventory_artifact", { occurrence_limit: 500 });
    assert.equal(page.isError, false, JSON.stringify(page.structured));
    const text = JSON.stringify(page.raw);
    assert.ok(!text.includes(l.outsideHash), "the outside file was hashed");
    assert.ok(!text.includes(l.marker), "the outside file was read");
    const occurrences = page.structured.result.occurrences.items as Array<
      { logical_path: string; entry_kind: string; sha256: string | null }
    >;
    const escape = occurrences.find((o) => o.logical_path.endsWith("escape"));
    assert.ok(escape, JSON.stringify(occurrences.map((o) => o.logical_path)));
    assert.equal(escape.entry_kind, "symlink");
    assert.equal(escape.sha256 ?? null, null);
    const inside = occurrences.find((o) => o.logical_path.endsWith("inside.txt"));
    assert.equal(inside?.entry_kind, "file");
    const evidence = await call(client, "list_evidence", {});
    assert.ok(!JSON.stringify(evidence.raw).includes(l.outsideHash));
  } finally {
    await close();
    await Deno.remove(l.base, { recursive: true });
  }
});
