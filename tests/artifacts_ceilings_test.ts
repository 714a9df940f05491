/**
 * The operator's ceilings over client-chosen traversal limits: requests above
 * a ceiling are capped (with a note naming the flag), a bomb beyond a ceiling
 * is stopped whatever the client asked, and opening a huge directory is
 * bounded by the entry ceiling.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import {
  capLimits,
  CeilingError,
  ceilingsFrom,
  DEFAULT_CEILINGS,
} from "../src/apps/artifacts/ceilings.ts";
import { DEFAULT_LIMITS, LIMIT_BOUNDS } from "../src/apps/artifacts/model.ts";
import { type AppsWorkbenchModule, appsWorkbenchWith } from "../src/apps/workbench.ts";
import { parseCli, USAGE, UsageError } from "../src/cli.ts";
import { concat, TAR_END, tarData, tarHeader } from "./helpers/archives.ts";
import { type Loose, ok, withTempRoot } from "./helpers/in_memory.ts";

const MIB = 1024 * 1024;

function tar(members: Array<[string, Uint8Array]>): Uint8Array {
  return concat([
    ...members.flatMap(([name, data]) => [tarHeader({ name, size: data.length }), tarData(data)]),
    TAR_END,
  ]);
}

Deno.test("capLimits() clamps each limit above its ceiling and says which, leaving the rest", () => {
  const { limits, notes } = capLimits(LIMIT_BOUNDS, DEFAULT_CEILINGS);
  assert.deepEqual(limits, DEFAULT_CEILINGS);
  assert.equal(notes.length, 6);
  assert.ok(
    notes.some((n) =>
      /max_entry_bytes 4294967296 .* 536870912 \(--artifact-max-entry-bytes\)/.test(n)
    ),
  );
  const under = capLimits(DEFAULT_LIMITS, DEFAULT_CEILINGS);
  assert.deepEqual(under, { limits: DEFAULT_LIMITS, notes: [] });
  // The default limits all fit under the default ceilings.
  for (const [name, value] of Object.entries(DEFAULT_LIMITS)) {
    assert.ok(value <= DEFAULT_CEILINGS[name as keyof typeof DEFAULT_CEILINGS], name);
  }
});

Deno.test("ceilingsFrom() reads the flags and refuses values outside 1 (0 for depth) to the schema bound", () => {
  assert.deepEqual(ceilingsFrom({}), DEFAULT_CEILINGS);
  const set = ceilingsFrom({ "artifact-max-entry-bytes": "1000", "artifact-max-depth": "0" });
  assert.equal(set.max_entry_bytes, 1000);
  assert.equal(set.max_depth, 0);
  for (
    const [flag, bad] of [
      ["artifact-max-entries", "0"],
      ["artifact-max-entry-bytes", String(LIMIT_BOUNDS.max_entry_bytes + 1)],
      ["artifact-max-compression-ratio", "1e3"],
      ["artifact-max-total-bytes", "-5"],
    ]
  ) {
    assert.throws(() => ceilingsFrom({ [flag!]: bad }), CeilingError, `${flag} ${bad}`);
  }
});

Deno.test("parseCli passes the ceiling flags to the apps workbench and --help lists them", () => {
  const config = parseCli(["--artifact-max-entry-bytes", "2048", "--artifact-max-entries=77"]);
  const apps = config.workbenches.find((m) => m.name === "apps") as AppsWorkbenchModule;
  assert.equal(apps.settings.ceilings.max_entry_bytes, 2048);
  assert.equal(apps.settings.ceilings.max_entries, 77);
  assert.equal(apps.settings.ceilings.max_depth, DEFAULT_CEILINGS.max_depth);
  assert.throws(() => parseCli(["--artifact-max-entries", "none"]), UsageError);
  for (
    const flag of [
      "--artifact-max-entries",
      "--artifact-max-entry-bytes",
      "--artifact-max-compression-ratio",
    ]
  ) {
    assert.match(USAGE, new RegExp(flag));
  }
});

Deno.test("inventory_artifact caps a client's limits at the operator's ceilings and stops a bomb beyond them", async () => {
  const apps = appsWorkbenchWith({ ceilings: { max_entry_bytes: MIB, max_compression_ratio: 50 } });
  await withTempRoot("casefile-ceilings-", async ({ client, dir: root }) => {
    // 3 MiB of zeros gzipped: far past a 1 MiB entry ceiling, though the client allows 4 GiB.
    await Deno.writeFile(
      join(root, "bomb.tar"),
      tar([["zeros.gz", gzipSync(new Uint8Array(3 * MIB))], [
        "ok.txt",
        new TextEncoder().encode("ok"),
      ]]),
    );
    await ok(client, "open_binary", { path: join(root, "bomb.tar") });
    const page = (await ok(client, "inventory_artifact", {
      occurrence_limit: 500,
      max_entry_bytes: LIMIT_BOUNDS.max_entry_bytes,
      max_total_bytes: LIMIT_BOUNDS.max_total_bytes,
      max_compression_ratio: LIMIT_BOUNDS.max_compression_ratio,
    })).result;
    assert.equal(page.limits.max_entry_bytes, MIB);
    assert.equal(page.limits.max_compression_ratio, 50);
    assert.equal(page.limits.max_total_bytes, DEFAULT_CEILINGS.max_total_bytes);
    assert.ok(
      page.limitations.some((l: string) =>
        /max_entry_bytes .* capped .*--artifact-max-entry-bytes/.test(l)
      ),
      JSON.stringify(page.limitations),
    );
    const byPath = new Map<string, Loose>(
      page.occurrences.items.map((o: Loose) => [o.logical_path, o]),
    );
    const zeros = byPath.get("zeros.gz/zeros");
    assert.notEqual(zeros?.hash_status, "verified", JSON.stringify(zeros));
    assert.match(JSON.stringify(page), /max_(entry_bytes|compression_ratio) exceeded/);
    assert.equal(byPath.get("ok.txt").hash_status, "verified");
  }, { workbenches: [apps] });
});

Deno.test("open_binary on a directory with more files than the entry ceiling stops at the ceiling and says so", async () => {
  const apps = appsWorkbenchWith({ ceilings: { max_entries: 100 } });
  await withTempRoot("casefile-ceilings-", async ({ client, dir: root }) => {
    const dir = join(root, "many");
    await Deno.mkdir(dir);
    for (let i = 0; i < 300; i++) await Deno.writeTextFile(join(dir, `f${i}`), "x");
    const opened = await ok(client, "open_binary", { path: dir });
    assert.equal(opened.result.artifact_target.kind, "directory");
    // Opening read (one byte per file) no more files than the ceiling allows.
    assert.ok(opened.result.artifact_target.size <= 100, JSON.stringify(opened.result));
    const page = (await ok(client, "inventory_artifact", {
      occurrence_limit: 500,
      max_entries: LIMIT_BOUNDS.max_entries,
    })).result;
    assert.equal(page.limits.max_entries, 100);
    assert.equal(page.manifest.complete, false);
    assert.ok(page.manifest.occurrence_count <= 101, String(page.manifest.occurrence_count));
    assert.match(JSON.stringify(page.limitations), /max_entries/);
    // The listing itself stopped at the ceiling: no more names were held than could be visited.
    assert.match(JSON.stringify(page), /holds more than max_entries \(100\) names/);
  }, { workbenches: [apps] });
});

Deno.test("open_binary and inventory_artifact identify empty files without opening them, as empty", async () => {
  await withTempRoot("casefile-ceilings-", async ({ client, dir: root }) => {
    const dir = join(root, "d");
    await Deno.mkdir(dir);
    for (const name of ["a", "b", "c"]) await Deno.writeFile(join(dir, name), new Uint8Array());
    await Deno.writeTextFile(join(dir, "full"), "content");
    await ok(client, "open_binary", { path: dir });
    const page = (await ok(client, "inventory_artifact", {})).result;
    assert.equal(page.manifest.complete, true);
    const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    const byPath = new Map<string, Loose>(
      page.occurrences.items.map((o: Loose) => [o.logical_path, o]),
    );
    for (const name of ["a", "b", "c"]) {
      assert.equal(byPath.get(name).sha256, empty, name);
      assert.equal(byPath.get(name).size, 0, name);
      assert.equal(byPath.get(name).hash_status, "verified", name);
    }
    assert.notEqual(byPath.get("full").sha256, empty);
  });
});
