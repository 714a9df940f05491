/**
 * Opening a directory is lean: only its identity is computed (nothing is
 * recorded per entry), and that identity is the one a full inventory
 * computes. A spawned server opens a directory of 100,000 empty files built
 * at run time and its peak resident memory must grow by less than 2 KiB per
 * entry (it grew by about 6 KiB per entry when opening built a whole snapshot).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { canonicalJson, sha256Hex } from "../src/core/canonical_json.ts";
import { listingEntry, listingSha256 } from "../src/apps/artifacts/archive_directories.ts";
import { DEFAULT_CEILINGS } from "../src/apps/artifacts/ceilings.ts";
import { scanArtifact } from "../src/apps/artifacts/scan.ts";
import { openArtifact } from "../src/apps/artifacts/target.ts";
import { BenchServer, structured } from "./client_bench/harness.ts";
import { sh } from "./helpers/archives.ts";

Deno.test("listingSha256() is the SHA-256 of the listing's canonical JSON", () => {
  const listing = [
    listingEntry('b\u00e9\u{1F600}\n"q"\\', "art_" + "1".repeat(64), "file"),
    listingEntry("link", null, "symlink", "../t\u0000arget"),
    listingEntry("dir", "art_" + "2".repeat(64), "directory"),
    listingEntry("fifo", null, "special"),
    listingEntry("\u2028\ud800", null, "symlink", ""),
  ];
  // The same entries with their keys in another order: canonicalJson sorts them.
  const plain = listing.map((entry) => ({
    name: entry.name,
    entry_kind: entry.entry_kind,
    ...(entry.link_target === undefined ? {} : { link_target: entry.link_target }),
    artifact_id: entry.artifact_id,
  }));
  assert.equal(listingSha256(listing), sha256Hex(canonicalJson(plain)));
  assert.equal(listingSha256([]), sha256Hex("[]"));
});

Deno.test("openArtifact() on a directory computes, without recording entries, the identity a full scan computes", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const dir = join(root, "tree");
    await Deno.mkdir(join(dir, "sub", "deeper"), { recursive: true });
    await Deno.writeTextFile(join(dir, "a.txt"), "alpha");
    await Deno.writeFile(join(dir, "empty"), new Uint8Array());
    await Deno.writeFile(join(dir, "sub", "big"), new Uint8Array(600 * 1024).fill(7));
    await Deno.writeFile(join(dir, "sub", "deeper", "empty2"), new Uint8Array());
    await Deno.symlink("a.txt", join(dir, "link"));
    await sh("mkfifo tree/fifo", root);
    const opened = await openArtifact({ kind: "directory", requestedPath: dir, realPath: dir }, {
      limits: DEFAULT_CEILINGS,
    });
    const full = await scanArtifact({ kind: "directory", realPath: dir, name: "tree" }, {
      limits: DEFAULT_CEILINGS,
    });
    assert.equal(full.manifest.complete, true, JSON.stringify(full.limitations));
    assert.equal(opened.sha256, full.manifest.root_sha256);
    assert.equal(opened.size, full.bytes_read);
    // And the inventory after opening re-verifies it: no root-digest contradiction.
    const verified = await scanArtifact({ kind: "directory", realPath: dir, name: "tree" }, {
      limits: DEFAULT_CEILINGS,
      expectedRootSha256: opened.sha256,
    });
    assert.deepEqual(verified.integrity_contradictions, []);
    assert.equal(verified.manifest.occurrence_count, full.manifest.occurrence_count);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("open_binary on a directory of 100,000 empty files grows the server's peak memory by under 2 KiB per entry", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const count = 100_000;
    await Deno.mkdir(join(root, "many"));
    await sh(`seq -f 'f%06g' 1 ${count} | xargs touch`, join(root, "many"));
    await using server = await BenchServer.start({ roots: [root] });
    const idle = (await server.memory()).rss;
    await server.resetPeak();
    const opened = structured(await server.call("open_binary", { path: join(root, "many") }));
    const peak = (await server.memory()).peak;
    const target = (opened.result as { artifact_target: { kind: string; sha256: string } })
      .artifact_target;
    assert.equal(target.kind, "directory");
    const perEntry = (peak - idle) / count;
    assert.ok(perEntry < 2048, `${perEntry.toFixed(0)} bytes per entry over the idle server`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
