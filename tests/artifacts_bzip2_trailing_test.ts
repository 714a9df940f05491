/**
 * bzip2 input that is more than one stream: concatenated streams (what
 * `cat a.bz2 b.bz2` or pbzip2 write) decode whole, as `bzip2 -dc` decodes
 * them, wherever the input's chunks break; bytes after the last stream that
 * open no other are ignored with a warning, as `bzip2 -t` warns "trailing
 * garbage after EOF ignored", and input that ends inside a stream header is
 * refused as `bzip2 -t` refuses it. The warning reaches the inventory of a
 * .tar.bz2 and of a zip's bzip2 member (method 12). Every verdict and
 * digest is the peer's, taken at test time.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ArchiveFormatError } from "../src/apps/artifacts/errors.ts";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { inventoryAll } from "./helpers/inventory.ts";
import { runProgram } from "./helpers/programs.ts";
import { withTempDir } from "./helpers/temp_dir.ts";
import { concat } from "../src/apps/artifacts/chunk_source.ts";
import { decodeParts, peerSha, shellBytes } from "./helpers/stream_tails.ts";

const MISSING = ["bzip2", "bash", "sha256sum", "tar"].find((p) => !hasProgram(p));
const IGNORE = MISSING ? `needs ${MISSING} (--allow-run=${MISSING})` : false;
if (IGNORE) console.log(`ignored: ${IGNORE}`);

/** Real bzip2 streams, concatenated: text, an empty stream, a 3-block binary, one byte. */
async function concatenated(dir: string): Promise<{ path: string; boundaries: number[] }> {
  const blob = join(dir, "blob.bin");
  const bytes = new Uint8Array(250_000);
  let x = 7;
  for (let i = 0; i < bytes.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = i % 5 === 0 ? x >>> 24 : 0x61 + (i % 11);
  }
  await Deno.writeFile(blob, bytes);
  const streams = [
    await shellBytes("printf 'first stream\\n' | bzip2 -c"),
    await shellBytes("bzip2 -c < /dev/null"),
    await shellBytes(`bzip2 -1 -c '${blob}'`),
    await shellBytes("printf 'z' | bzip2 -c"),
  ];
  const path = join(dir, "joined.bz2");
  const boundaries: number[] = [];
  let at = 0;
  for (const stream of streams) {
    at += stream.length;
    boundaries.push(at);
  }
  await Deno.writeFile(path, concat(streams));
  return { path, boundaries };
}

Deno.test({
  name:
    "decompress() decodes every concatenated bzip2 stream as bzip2 -dc does, wherever the chunks break",
  ignore: IGNORE !== false,
  fn: () =>
    withTempDir(async (dir) => {
      const { path, boundaries } = await concatenated(dir);
      const bytes = await Deno.readFile(path);
      const expected = await peerSha("bzip2", path);
      // Splits just inside the first header and around every stream boundary.
      const splits = new Set<number>([1, 2, 3, 4, 5]);
      for (const boundary of boundaries.slice(0, -1)) {
        for (let d = -2; d <= 5; d++) splits.add(boundary + d);
      }
      const whole = await decodeParts("bzip2", [bytes]);
      assert.deepEqual(whole, { sha256: expected, warnings: [] });
      for (const split of splits) {
        const result = await decodeParts("bzip2", [
          bytes.subarray(0, split),
          bytes.subarray(split),
        ]);
        assert.deepEqual(result, { sha256: expected, warnings: [] }, `split at ${split}`);
      }
    }, { prefix: "casefile-bzip2-concat-" }),
});

Deno.test({
  name:
    "decompress() warns about bytes after the last bzip2 stream as bzip2 -t does, and refuses input ending inside a header as bzip2 -t does",
  ignore: IGNORE !== false,
  fn: () =>
    withTempDir(async (dir) => {
      const { path } = await concatenated(dir);
      const bytes = await Deno.readFile(path);
      const expected = await peerSha("bzip2", path);
      const tails: Record<string, Uint8Array> = {
        zeros: new Uint8Array(1000),
        text: new TextEncoder().encode("not a bzip2 stream\n"),
        "BZ and no h": new TextEncoder().encode("BZx"),
        "block size 0": new TextEncoder().encode("BZh0abcd"),
        "B only": new TextEncoder().encode("B"),
        "BZh only": new TextEncoder().encode("BZh"),
        "a header alone": new TextEncoder().encode("BZh9"),
        "a header and junk": new TextEncoder().encode("BZh9junkjunkjunkjunk"),
      };
      for (const [label, tail] of Object.entries(tails)) {
        const file = join(dir, "tailed.bz2");
        await Deno.writeFile(file, concat([bytes, tail]));
        const peer = await runProgram("bzip2", ["-t", file]);
        const result = await decodeParts("bzip2", [bytes, tail]);
        if (peer.code === 0) {
          assert.match(peer.stderr, /trailing garbage after EOF ignored/, label);
          assert.ok("sha256" in result, `${label}: ${"error" in result ? result.error : ""}`);
          assert.equal(result.sha256, expected, label);
          assert.equal(result.sha256, await peerSha("bzip2", file), label);
          assert.equal(result.warnings.length, 1, label);
          assert.match(result.warnings[0]!, new RegExp(`^${tail.length} byte\\(s\\) after`), label);
        } else {
          assert.ok("error" in result, `${label}: bzip2 -t refuses it (${peer.stderr.trim()})`);
          assert.ok(result.error instanceof ArchiveFormatError, `${label}: ${result.error}`);
        }
      }
    }, { prefix: "casefile-bzip2-trailing-" }),
});

Deno.test({
  name: "inventory_artifact notes trailing bytes after a .tar.bz2's stream that tar -xjf ignores",
  ignore: IGNORE !== false,
  fn: () =>
    withTempRoot("casefile-bzip2-tar-trailing-", async ({ client, dir }) => {
      await Deno.mkdir(join(dir, "tree"));
      await Deno.writeTextFile(join(dir, "tree", "a.txt"), "alpha\n");
      await Deno.writeTextFile(join(dir, "tree", "b.txt"), "beta\n");
      const archive = join(dir, "tree.tar.bz2");
      await run("tar", ["-cjf", archive, "-C", dir, "tree"]);
      const junk = "garbage appended after the stream\n";
      await Deno.writeTextFile(archive, junk, { append: true });
      // The peers: bzip2 -t warns and passes; tar lists every member.
      const tested = await runProgram("bzip2", ["-t", archive]);
      assert.equal(tested.code, 0, tested.stderr);
      assert.match(tested.stderr, /trailing garbage after EOF ignored/);
      const listed = await runProgram("tar", ["-tjf", archive]);
      assert.equal(listed.code, 0, listed.stderr);
      const members = listed.stdout.split("\n").filter(Boolean)
        .map((m) => `tree.tar/${m.replace(/\/$/, "")}`).sort();

      await ok(client, "open_binary", { path: archive });
      const inventory = await inventoryAll(client);
      assert.equal(inventory.manifest.complete, true, JSON.stringify(inventory.first.limitations));
      const paths = inventory.occurrences.map((o: Loose) => o.logical_path as string);
      assert.deepEqual(paths.filter((p) => p.startsWith("tree.tar/")).sort(), members);
      const stream = inventory.occurrences.find((o: Loose) => o.logical_path === "tree.tar");
      assert.equal(stream.sha256, await peerSha("bzip2", archive));
      const root = inventory.occurrences.find((o: Loose) => o.logical_path === ".");
      const note = new RegExp(`^${junk.length} byte\\(s\\) after the end of the last bzip2 stream`);
      assert.ok(root.limitations.some((l: string) => note.test(l)), root.limitations.join(" | "));
      assert.ok(
        inventory.first.limitations.some((l: string) =>
          l.startsWith(".: ") && note.test(l.slice(3))
        ),
        JSON.stringify(inventory.first.limitations),
      );
    }),
});

/**
 * Rewrites a one-member zip so its member's compressed data ends with
 * `tail`: the local header's and the central directory's compressed sizes
 * and the central directory's offset are moved to match.
 */
function withMemberTail(zip: Uint8Array, tail: Uint8Array): { zip: Uint8Array; data: Uint8Array } {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  assert.equal(view.getUint32(0, true), 0x04034b50);
  const compressed = view.getUint32(18, true);
  const start = 30 + view.getUint16(26, true) + view.getUint16(28, true);
  const end = start + compressed;
  assert.equal(view.getUint16(6, true) & 0x08, 0, "no data descriptor");
  const central = zip.slice(end);
  const out = concat([zip.slice(0, end), tail, central]);
  const o = new DataView(out.buffer);
  o.setUint32(18, compressed + tail.length, true);
  const cd = end + tail.length;
  assert.equal(o.getUint32(cd, true), 0x02014b50);
  o.setUint32(cd + 20, compressed + tail.length, true);
  const eocd = out.length - 22;
  assert.equal(o.getUint32(eocd, true), 0x06054b50, "no zip comment");
  o.setUint32(eocd + 16, cd, true);
  return { zip: out, data: out.slice(start, end + tail.length) };
}

Deno.test({
  name:
    "inventory_artifact notes trailing bytes in a zip's bzip2 member (method 12) that bzip2 -t warns about",
  ignore: IGNORE !== false || !hasProgram("zip") || !hasProgram("unzip"),
  fn: () =>
    withTempRoot("casefile-bzip2-zip-trailing-", async ({ client, dir }) => {
      const text = Array.from({ length: 400 }, (_, i) => `line ${i} of the member\n`).join("");
      await Deno.writeTextFile(join(dir, "member.txt"), text);
      const built = join(dir, "built.zip");
      await run("bash", ["-c", `cd '${dir}' && zip -q -X -Z bzip2 '${built}' member.txt`]);
      assert.match(await run("unzip", ["-v", built]), /BZip2/);
      const tail = new TextEncoder().encode("trailing bytes in the member\n");
      const { zip, data } = withMemberTail(await Deno.readFile(built), tail);
      const archive = join(dir, "tailed.zip");
      await Deno.writeFile(archive, zip);
      // The peers: the member's own bzip2 data draws bzip2 -t's warning; unzip -p gives its bytes.
      const raw = join(dir, "member.bz2");
      await Deno.writeFile(raw, data);
      const tested = await runProgram("bzip2", ["-t", raw]);
      assert.equal(tested.code, 0, tested.stderr);
      assert.match(tested.stderr, /trailing garbage after EOF ignored/);
      const peer = await runProgram("bash", [
        "-c",
        `unzip -p '${archive}' member.txt | sha256sum`,
      ]);

      await ok(client, "open_binary", { path: archive });
      const inventory = await inventoryAll(client);
      const member = inventory.occurrences.find((o: Loose) => o.logical_path === "member.txt");
      assert.equal(member.sha256, peer.stdout.split(" ")[0]);
      const note = new RegExp(`^${tail.length} byte\\(s\\) after the end of the last bzip2 stream`);
      assert.ok(
        member.limitations.some((l: string) => note.test(l)),
        member.limitations.join(" | "),
      );
      assert.ok(
        inventory.first.limitations.some((l: string) =>
          l.startsWith("member.txt: ") && note.test(l.slice("member.txt: ".length))
        ),
        JSON.stringify(inventory.first.limitations),
      );
    }),
});
