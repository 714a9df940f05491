/**
 * Artifact work through a real MCP client: inventories of the real Debian jq
 * packages, their comparison down to the procedures of libjq, approved
 * extraction, bundles and reconstruction verification, and hostile archives.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import {
  call,
  connect,
  fails,
  hasProgram,
  type Loose,
  ok,
  run,
  withClient,
} from "./helpers/in_memory.ts";
import { compareOpened, inventoryAll } from "./helpers/inventory.ts";
import { FIXTURES, haveJqFixtures, LIBJQ, NEW, OLD } from "./helpers/jq_fixtures.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const haveFixtures = haveJqFixtures("artifacts_test");

/** Exported defined functions and their sizes, as nm sees them. */
async function nmFunctions(path: string): Promise<Map<string, number>> {
  const text = await run("nm", ["-D", "--defined-only", "-S", path]);
  const map = new Map<string, number>();
  for (const line of text.split("\n")) {
    const parts = line.trim().split(/\s+/);
    if (parts.length === 4 && /^[TtWi]$/.test(parts[2]!)) {
      map.set(parts[3]!, parseInt(parts[1]!, 16));
    }
  }
  return map;
}

async function extractWithTools(deb: string, dir: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const script = `ar p "${deb}" data.tar.xz | xz -d | tar -x -C "${dir}"`;
  await run("sh", ["-c", script]);
  return join(dir, "usr/lib/x86_64-linux-gnu/libjq.so.1.0.4");
}

Deno.test({
  name:
    "inventory_artifact lists a real .deb exactly as ar, xz and tar do, with hashes sha256sum agrees with",
  ignore: !haveFixtures || !hasProgram("tar") || !hasProgram("xz"),
  fn: async () => {
    await withClient({ roots: [FIXTURES] }, async (client) => {
      const opened = await ok(client, "open_binary", { path: NEW });
      assert.equal(opened.result.artifact_target.format, "deb");
      assert.equal(opened.result.target, null);
      const inventory = await inventoryAll(client);
      assert.equal(inventory.manifest.complete, true);
      assert.match(inventory.manifest.manifest_id, /^agm_[0-9a-f]{64}$/);
      const paths = new Set(inventory.occurrences.map((o: Loose) => o.logical_path));
      for (const member of ["debian-binary", "control.tar.xz", "data.tar.xz"]) {
        assert.ok(paths.has(member), member);
      }
      const tarList = (await run("sh", ["-c", `ar p "${NEW}" data.tar.xz | xz -d | tar -t`]))
        .split("\n").filter((l) => l !== "" && l !== "./").map((l) =>
          l.replace(/^\.\//, "").replace(/\/$/, "")
        );
      for (const name of tarList) assert.ok(paths.has(`data.tar.xz/data.tar/${name}`), name);
      const lib = inventory.occurrences.find((o: Loose) => o.logical_path === LIBJQ);
      assert.equal(lib.content_kind, "elf");
      await withTempDir(async (dir) => {
        const extracted = await extractWithTools(NEW, dir);
        const sum = (await run("sha256sum", [extracted])).split(" ")[0];
        assert.equal(lib.sha256, sum);
        const node = inventory.nodes.find((n: Loose) => n.artifact_id === lib.artifact_id);
        assert.equal(node.kind, "dynamic-library");
        assert.equal(node.architecture, "x86_64");
        const link = inventory.occurrences.find((o: Loose) =>
          o.logical_path === "data.tar.xz/data.tar/usr/lib/x86_64-linux-gnu/libjq.so.1"
        );
        assert.equal(link.entry_kind, "symlink");
        assert.equal(link.link_target, "libjq.so.1.0.4");
      });
      // The same limits give the same snapshot: the manifest is stable across calls and servers.
      const again = await ok(client, "inventory_artifact", {});
      assert.equal(again.result.manifest.manifest_id, inventory.manifest.manifest_id);
      // Completion offers the manifest and the occurrences of retained pages.
      const manifests = await client.complete({
        ref: { type: "ref/resource", uri: "rea://artifact/{manifestId}/{collection}" },
        argument: { name: "manifestId", value: "agm_" },
      });
      assert.deepEqual(manifests.completion.values, [inventory.manifest.manifest_id]);
      const resource = await client.readResource({
        uri: `rea://artifact/${inventory.manifest.manifest_id}/occurrences`,
      });
      const body = JSON.parse((resource.contents[0] as Loose).text);
      assert.equal(body.collection, "occurrences");
    });
  },
});

Deno.test({
  name:
    "compare_artifacts finds what changed between the two libjq1 builds, down to procedures nm agrees with",
  ignore: !haveFixtures || !hasProgram("nm") || !hasProgram("xz") || !hasProgram("tar"),
  fn: async () => {
    const { client, close } = await connect({ roots: [FIXTURES] });
    const dir = await Deno.makeTempDir();
    try {
      const { left, right, compared } = await compareOpened(client, { left: OLD, right: NEW });
      const result = compared.result;
      assert.equal(result.status, "changed");
      const byPath = new Map<string, Loose>(
        result.changes.items.map((c: Loose) => [c.logical_path, c]),
      );
      const lib: Loose = byPath.get(LIBJQ);
      assert.equal(lib.status, "changed");
      assert.ok(lib.dimensions.includes("content"));
      // The peer: nm on the libraries ar, xz and tar extract.
      const oldLib = await nmFunctions(await extractWithTools(OLD, join(dir, "old")));
      const newLib = await nmFunctions(await extractWithTools(NEW, join(dir, "new")));
      const added = [...newLib.keys()].filter((n) => !oldLib.has(n)).sort();
      const removed = [...oldLib.keys()].filter((n) => !newLib.has(n)).sort();
      const resized = [...oldLib.keys()].filter((n) =>
        newLib.has(n) && newLib.get(n) !== oldLib.get(n)
      ).sort();
      assert.deepEqual(lib.procedures.added, added);
      assert.deepEqual(lib.procedures.removed, removed);
      assert.deepEqual(lib.procedures.resized.map((r: Loose) => r.name), resized);
      console.log(
        `libjq ${LIBJQ}: ${resized.length} exported procedures resized (${
          resized.slice(0, 8).join(", ")
        }…), ${added.length} added, ${removed.length} removed`,
      );
      // The changelog changed too; unchanged files are not listed but are counted.
      assert.equal(
        byPath.get("data.tar.xz/data.tar/usr/share/doc/libjq1/changelog.Debian.gz")?.status ??
          "changed",
        "changed",
      );
      assert.ok(result.summary.unchanged > 0);
      // The comparison is Evidence linking every input page.
      const record = JSON.parse(
        ((await client.readResource({ uri: compared.evidence_uri })).contents[0] as Loose).text,
      );
      assert.deepEqual(record.evidence_links.sort(), [...left.ids, ...right.ids].sort());
      assert.equal(record.predicate_type, "rea.artifact-comparison/v1");

      // Dropping pages is never "unchanged".
      if (left.ids.length === 1) {
        const partial = await ok(client, "inventory_artifact", { occurrence_limit: 5 });
        const truncated = await ok(client, "compare_artifacts", {
          left_evidence_ids: left.ids,
          right_evidence_ids: [partial.evidence_id],
        });
        assert.equal(truncated.result.status, "truncated");
      }
      // A finite reconstruction spec against the retained comparison: the artifact changed, so the claim fails.
      const verdict = await ok(client, "verify_reconstruction", {
        specification: {
          schema_version: 1,
          name: "libjq1 u3 equals u2",
          claims: [{
            claim_id: "same-package",
            title: "The two builds ship the same files",
            comparison_evidence_id: compared.evidence_id,
            kind: "structural-artifact",
            dimension: "overall",
          }],
        },
      });
      assert.equal(verdict.result.status, "fail");
      assert.equal(verdict.result.claims.items[0].observed_status, "changed");
      // A wrong kind for the record fails the whole call.
      const wrong = await fails(client, "verify_reconstruction", {
        specification: {
          schema_version: 1,
          name: "wrong kind",
          claims: [{
            claim_id: "c1",
            title: "x",
            comparison_evidence_id: compared.evidence_id,
            kind: "structural-function",
            dimension: "overall",
          }],
        },
      });
      assert.match(wrong.message, /compare_functions/);
      // Bundles: snapshot, read back byte for byte, unchanged snapshot gives the same digest.
      const bundle = await ok(client, "snapshot_evidence_bundle");
      const text =
        ((await client.readResource({ uri: bundle.result.bundle_uri })).contents[0] as Loose).text;
      const digest = Array.from(
        new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))),
      ).map((b) => b.toString(16).padStart(2, "0")).join("");
      assert.equal(digest, bundle.result.bundle_digest);
      const parsed = JSON.parse(text);
      assert.equal(parsed.bundle_version, 2);
      assert.ok(parsed.artifacts.some((a: Loose) => a.format === "deb"));
    } finally {
      await Deno.remove(dir, { recursive: true });
      await close();
    }
  },
});

/** Writes a zip with one stored entry named `name`, built by hand so hostile names survive. */
function zipWith(entries: Array<{ name: string; data: Uint8Array; method?: 0 | 8 }>): Uint8Array {
  const enc = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = enc.encode(entry.name);
    const method = entry.method ?? 0;
    const body = method === 8 ? deflateRawSync(entry.data) : entry.data;
    const crc = crc32(entry.data);
    const local = new Uint8Array(30 + name.length + body.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(8, method, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, body.length, true);
    lv.setUint32(22, entry.data.length, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    local.set(body, 30 + name.length);
    const central = new Uint8Array(46 + name.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 0x0314, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(10, method, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, body.length, true);
    cv.setUint32(24, entry.data.length, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(38, (0o100644 << 16) >>> 0, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local);
    centrals.push(central);
    offset += local.length;
  }
  const centralSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  const parts = [...locals, ...centrals, end];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

Deno.test("extract_artifact writes only approved, safe members into a new directory and refuses the rest", async () => {
  const root = await Deno.makeTempDir();
  const outParent = await Deno.makeTempDir();
  const enc = new TextEncoder();
  await Deno.writeFile(
    join(root, "hostile.zip"),
    zipWith([
      { name: "good/readme.txt", data: enc.encode("hello\n") },
      { name: "../escape.txt", data: enc.encode("escaped\n") },
      { name: "/abs.txt", data: enc.encode("absolute\n") },
      { name: "big.bin", data: new Uint8Array(4 << 20), method: 8 },
    ]),
  );
  const { client, close } = await connect({ roots: [root], allowFileWrites: true });
  try {
    await ok(client, "open_binary", { path: join(root, "hostile.zip") });
    const page = (await ok(client, "inventory_artifact", { occurrence_limit: 500 })).result;
    const byPath = new Map<string, Loose>(
      page.occurrences.items.map((o: Loose) => [o.logical_path, o]),
    );
    const good: Loose = byPath.get("good/readme.txt");
    const escape: Loose = byPath.get("%2E%2E/escape.txt");
    assert.ok(escape, `escaped name listed: ${[...byPath.keys()].join(", ")}`);
    assert.notEqual(escape.original_name_hex, null);
    assert.ok(byPath.get("abs.txt"));
    // Not approved: the schema refuses the call.
    const unapproved = await fails(client, "extract_artifact", {
      output_root: join(outParent, "a"),
      occurrence_ids: [good.occurrence_id],
    });
    assert.equal(unapproved.code, "invalid_request");
    // A hostile member is refused and nothing is written.
    const hostile = await fails(client, "extract_artifact", {
      approved: true,
      output_root: join(outParent, "b"),
      occurrence_ids: [good.occurrence_id, escape.occurrence_id],
    });
    assert.match(hostile.message, /hostile/);
    await assert.rejects(Deno.lstat(join(outParent, "b")));
    await assert.rejects(Deno.lstat(join(outParent, "escape.txt")));
    // A bomb limit: a 4 MiB member of zeros compresses far past a ratio of 10.
    const bomb = await fails(client, "extract_artifact", {
      approved: true,
      output_root: join(outParent, "c"),
      occurrence_ids: [
        byPath.get("big.bin") ? (byPath.get("big.bin") as Loose).occurrence_id : good.occurrence_id,
      ],
      max_compression_ratio: 10,
    });
    assert.ok(
      ["invalid_request", "artifact_operation_failed", "limit_exceeded"].includes(bomb.code),
      JSON.stringify(bomb),
    );
    await assert.rejects(Deno.lstat(join(outParent, "c")));
    // The good member is written, and an existing output root is refused.
    const done = await ok(client, "extract_artifact", {
      approved: true,
      output_root: join(outParent, "d"),
      occurrence_ids: [good.occurrence_id],
    });
    assert.equal(done.result.containment_verified, true);
    assert.equal(await Deno.readTextFile(join(outParent, "d", "good/readme.txt")), "hello\n");
    const exists = await fails(client, "extract_artifact", {
      approved: true,
      output_root: join(outParent, "d"),
      occurrence_ids: [good.occurrence_id],
    });
    assert.match(exists.message, /already exists/);
  } finally {
    await close();
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outParent, { recursive: true });
  }
});

Deno.test("extract_artifact is refused by policy when file writes are not allowed", async () => {
  const root = await Deno.makeTempDir();
  await Deno.writeFile(join(root, "a.zip"), zipWith([{ name: "x", data: new Uint8Array([1]) }]));
  const { client, close } = await connect({ roots: [root] });
  try {
    await ok(client, "open_binary", { path: join(root, "a.zip") });
    const page = (await ok(client, "inventory_artifact", {})).result;
    const refused = await fails(client, "extract_artifact", {
      approved: true,
      output_root: join(root, "out"),
      occurrence_ids: [page.occurrences.items[1].occurrence_id],
    });
    assert.equal(refused.code, "permission_required");
    await assert.rejects(Deno.lstat(join(root, "out")));
  } finally {
    await close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("inventory_artifact marks truncated and disguised archives incomplete and keeps the session usable", async () => {
  const root = await Deno.makeTempDir();
  const good = zipWith([{ name: "a.txt", data: new TextEncoder().encode("a") }]);
  await Deno.mkdir(join(root, "tree"));
  await Deno.writeFile(join(root, "tree", "ok.zip"), good);
  await Deno.writeFile(join(root, "tree", "cut.zip"), good.subarray(0, good.length - 10));
  await Deno.writeFile(
    join(root, "tree", "fake.tar.gz"),
    new TextEncoder().encode("not gzip at all\n"),
  );
  const { client, close } = await connect({ roots: [root] });
  try {
    const opened = await ok(client, "open_binary", { path: join(root, "tree") });
    assert.equal(opened.result.artifact_target.kind, "directory");
    const page = (await ok(client, "inventory_artifact", {})).result;
    const paths = page.occurrences.items.map((o: Loose) => o.logical_path);
    assert.ok(paths.includes("ok.zip/a.txt"));
    assert.ok(paths.includes("cut.zip"));
    assert.ok(!paths.some((p: string) => p.startsWith("cut.zip/")));
    assert.equal(page.manifest.complete, false);
    const fake = page.occurrences.items.find((o: Loose) => o.logical_path === "fake.tar.gz");
    assert.equal(fake.content_kind, "text");
    // The directory's identity is stable: a second server gets the same manifest.
    const second = await connect({ roots: [root] });
    try {
      await ok(second.client, "open_binary", { path: join(root, "tree") });
      const again = (await ok(second.client, "inventory_artifact", {})).result;
      assert.equal(again.manifest.manifest_id, page.manifest.manifest_id);
    } finally {
      await second.close();
    }
    // A change after opening is an integrity failure, not a silent new answer.
    await Deno.writeFile(join(root, "tree", "new.txt"), new TextEncoder().encode("late"));
    const changed = await fails(client, "inventory_artifact", { max_entries: 9_999 });
    assert.equal(changed.code, "artifact_integrity_mismatch");
    // Binary tools on an artifact target say what to do; the session still works.
    const overview = await call(client, "binary_overview", {});
    assert.equal(overview.isError, true);
    const status = await ok(client, "binary_session");
    assert.equal(status.result.artifact_target.kind, "directory");
  } finally {
    await close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("inventory_artifact on a hostile tar: devices, hard links, 25 nested archives and a zip bomb are listed, bounded and never extracted", async () => {
  const { concat, tarData, tarHeader, TAR_END, zipArchive } = await import(
    "./helpers/archives.ts"
  );
  const { gzipSync } = await import("node:zlib");
  const enc = new TextEncoder();
  const tar = (members: Array<[string, Uint8Array]>): Uint8Array =>
    concat([
      ...members.flatMap(([name, data]) => [tarHeader({ name, size: data.length }), tarData(data)]),
      TAR_END,
    ]);
  let nested = tar([["leaf.txt", enc.encode("deepest\n")]]);
  for (let level = 25; level >= 1; level--) {
    nested = tar([[`level${level}.tar.gz`, gzipSync(nested)]]);
  }
  const bomb = zipArchive([{ name: "zeros.bin", data: new Uint8Array(64 << 20), method: 8 }]);
  const tool = enc.encode("#!/bin/sh\necho tool\n");
  const hostile = concat([
    tarHeader({ name: "bin/tool", size: tool.length, mode: 0o755 }),
    tarData(tool),
    tarHeader({ name: "bin/alias", typeflag: "1", linkname: "bin/tool" }),
    tarHeader({ name: "bin/outside", typeflag: "1", linkname: "../../etc/passwd" }),
    tarHeader({ name: "dev/null", typeflag: "3", devmajor: 1, devminor: 3, mode: 0o666 }),
    tarHeader({ name: "dev/sda", typeflag: "4", devmajor: 8, devminor: 0 }),
    tarHeader({ name: "dev/pipe", typeflag: "6" }),
    tarHeader({ name: "nested.tar", size: nested.length }),
    tarData(nested),
    tarHeader({ name: "bomb.zip", size: bomb.length }),
    tarData(bomb),
    TAR_END,
  ]);
  const root = await Deno.makeTempDir();
  const outParent = await Deno.makeTempDir();
  await Deno.writeFile(join(root, "hostile.tar"), hostile);
  const { client, close } = await connect({ roots: [root], allowFileWrites: true });
  try {
    await ok(client, "open_binary", { path: join(root, "hostile.tar") });
    const page = (await ok(client, "inventory_artifact", { occurrence_limit: 500 })).result;
    assert.equal(page.manifest.complete, false);
    const byPath = new Map<string, Loose>(
      page.occurrences.items.map((o: Loose) => [o.logical_path, o]),
    );
    // Hard links: one to an earlier member shares its content, one leading out has none.
    const alias = byPath.get("bin/alias");
    assert.equal(alias.entry_kind, "hardlink");
    assert.equal(alias.sha256, byPath.get("bin/tool").sha256);
    const outside = byPath.get("bin/outside");
    assert.equal(outside.artifact_id, null);
    assert.ok(outside.limitations.some((l: string) => /not an earlier member/.test(l)));
    // Devices and FIFOs are listed with no content.
    for (const path of ["dev/null", "dev/sda", "dev/pipe"]) {
      assert.equal(byPath.get(path).entry_kind, "special", path);
      assert.equal(byPath.get(path).artifact_id, null, path);
    }
    // Nesting stops at max_depth (20) and says so.
    const deepest = [...byPath.keys()].filter((p) => p.startsWith("nested.tar/"))
      .sort((a, b) => b.length - a.length)[0]!;
    assert.ok(!deepest.includes("leaf.txt"), deepest);
    assert.ok(
      page.occurrences.items.some((o: Loose) =>
        o.limitations.some((l: string) => /max_depth \(20\) stops descent/.test(l))
      ),
    );
    // The bomb is stopped by its compression ratio, not inflated.
    const zeros = byPath.get("bomb.zip/zeros.bin");
    assert.notEqual(zeros?.hash_status, "verified");
    assert.ok(
      [...byPath.values()].some((o: Loose) =>
        o.logical_path.startsWith("bomb.zip") &&
        o.limitations.some((l: string) => /ratio/i.test(l))
      ),
    );
    // Links and devices are never extracted or opened as binaries; the safe file is.
    for (const path of ["bin/alias", "bin/outside", "dev/null"]) {
      const refused = await fails(client, "extract_artifact", {
        approved: true,
        output_root: join(outParent, `out-${path.replace("/", "-")}`),
        occurrence_ids: [byPath.get(path).occurrence_id],
      });
      assert.equal(refused.code, "invalid_request", path);
      const notBinary = await fails(client, "open_binary", {
        occurrence_id: byPath.get(path).occurrence_id,
      });
      assert.equal(notBinary.code, "invalid_request", path);
    }
    assert.deepEqual([...Deno.readDirSync(outParent)], []);
    const extracted = await ok(client, "extract_artifact", {
      approved: true,
      output_root: join(outParent, "out"),
      occurrence_ids: [byPath.get("bin/tool").occurrence_id],
    });
    assert.equal(extracted.result.containment_verified, true);
    assert.deepEqual(await Deno.readFile(join(outParent, "out", "bin", "tool")), tool);
    const status = await ok(client, "binary_session");
    assert.equal(status.result.artifact_target.format, "tar");
  } finally {
    await close();
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outParent, { recursive: true });
  }
});
