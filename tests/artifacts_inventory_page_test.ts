import assert from "node:assert/strict";
import { join } from "node:path";
import { hasProgram } from "./helpers/programs.ts";
import { scanArtifact } from "../src/apps/artifacts/scan.ts";
import { DEFAULT_LIMITS, inventoryPageSchema } from "../src/apps/artifacts/model.ts";
import { INVENTORY_PAGE_CHARS, inventoryPage } from "../src/apps/artifacts/inventory_page.ts";
import type { ArtifactSnapshot, InventoryPage } from "../src/apps/artifacts/model.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

/** A tar of 40 directories of 20 small files each, made with tar, scanned. */
async function scannedTar(): Promise<ArtifactSnapshot> {
  return await withTempDir(async (dir) => {
    for (let d = 0; d < 40; d++) {
      const sub = join(dir, "tree", `directory-${d}`);
      await Deno.mkdir(sub, { recursive: true });
      for (let f = 0; f < 20; f++) {
        await Deno.writeTextFile(join(sub, `file-${f}.txt`), `directory ${d}, file ${f}\n`);
      }
    }
    const path = join(dir, "tree.tar");
    const made = await new Deno.Command("tar", { args: ["-cf", path, "-C", dir, "tree"] }).output();
    assert.ok(made.success, "tar could not write the input");
    return await scanArtifact({ kind: "file", realPath: path, name: "tree.tar" }, {
      limits: DEFAULT_LIMITS,
    });
  }, { prefix: "casefile-inventory-page-" });
}

/** Follows every collection's next_offset from 0, asking for `limit` of each per page. */
function allPages(
  snapshot: ArtifactSnapshot,
  limit: number,
  maxChars?: number,
): InventoryPage[] {
  const pages: InventoryPage[] = [];
  const at = { node: 0, occurrence: 0, edge: 0 };
  for (let guard = 0; guard < 10_000; guard++) {
    const page = inventoryPage(snapshot, {
      node_offset: at.node,
      node_limit: limit,
      occurrence_offset: at.occurrence,
      occurrence_limit: limit,
      edge_offset: at.edge,
      edge_limit: limit,
    }, maxChars === undefined ? {} : { maxChars });
    pages.push(page);
    const { nodes, occurrences, edges } = page;
    if (
      nodes.next_offset === null && occurrences.next_offset === null && edges.next_offset === null
    ) {
      return pages;
    }
    at.node = nodes.next_offset ?? nodes.total;
    at.occurrence = occurrences.next_offset ?? occurrences.total;
    at.edge = edges.next_offset ?? edges.total;
  }
  throw new Error("the pages never ended");
}

const haveTar = hasProgram("tar");

Deno.test({
  name: "inventoryPage() stops a page at its character budget and the cursors continue exactly",
  ignore: !haveTar,
  fn: async () => {
    const snapshot = await scannedTar();
    assert.ok(snapshot.occurrences.length > 800, `${snapshot.occurrences.length} occurrences`);
    const budget = 30_000;
    const pages = allPages(snapshot, 500, budget);
    assert.ok(pages.length > 3, `${pages.length} pages`);
    let cut = 0;
    for (const page of pages) {
      assert.ok(JSON.stringify(page).length <= budget, `a page of ${JSON.stringify(page).length}`);
      assert.ok(inventoryPageSchema.safeParse(page).success, "every page passes its schema");
      if (page.occurrences.items.length > 0 && page.occurrences.limit < 500) cut++;
    }
    assert.ok(cut > 0, "some pages were cut short by the budget, not the item limit");
    // Followed page by page, each collection is the snapshot's, in order, once.
    assert.deepEqual(pages.flatMap((p) => p.occurrences.items), snapshot.occurrences);
    assert.deepEqual(pages.flatMap((p) => p.nodes.items), snapshot.nodes);
    assert.deepEqual(pages.flatMap((p) => p.edges.items), snapshot.edges);
  },
});

Deno.test({
  name: "inventoryPage() keeps the default page within INVENTORY_PAGE_CHARS and the item limit",
  ignore: !haveTar,
  fn: async () => {
    const snapshot = await scannedTar();
    for (const limit of [1, 7, 500]) {
      const pages = allPages(snapshot, limit);
      for (const page of pages) {
        assert.ok(JSON.stringify(page).length <= INVENTORY_PAGE_CHARS);
        for (const collection of [page.nodes, page.occurrences, page.edges]) {
          assert.ok(collection.items.length <= limit);
        }
      }
      assert.deepEqual(pages.flatMap((p) => p.occurrences.items), snapshot.occurrences);
      assert.deepEqual(pages.flatMap((p) => p.edges.items), snapshot.edges);
    }
  },
});

Deno.test({
  name: "inventoryPage() always makes progress: one item per collection even past a tiny budget",
  ignore: !haveTar,
  fn: async () => {
    const snapshot = await scannedTar();
    const page = inventoryPage(snapshot, {
      node_offset: 0,
      node_limit: 500,
      occurrence_offset: 3,
      occurrence_limit: 500,
      edge_offset: snapshot.edges.length,
      edge_limit: 500,
    }, { maxChars: 10 });
    assert.equal(page.occurrences.items.length, 1);
    assert.equal(page.occurrences.next_offset, 4);
    assert.equal(page.nodes.items.length, 1);
    assert.equal(page.nodes.next_offset, 1);
    assert.equal(page.edges.items.length, 0);
    assert.equal(page.edges.next_offset, null);
    assert.ok(inventoryPageSchema.safeParse(page).success);
  },
});

Deno.test({
  name: "inventoryPage() bounds pages by the sizes the scan measured exactly as by serialising",
  ignore: !haveTar,
  fn: async () => {
    const snapshot = await scannedTar();
    assert.ok(snapshot.item_chars, "a scanned snapshot carries its items' sizes");
    const { item_chars: _sizes, ...unmeasured } = snapshot;
    for (const budget of [5_000, 30_000, INVENTORY_PAGE_CHARS]) {
      assert.deepEqual(allPages(snapshot, 500, budget), allPages(unmeasured, 500, budget));
    }
  },
});
