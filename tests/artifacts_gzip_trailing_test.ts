/**
 * gzip input with more than one member, or with bytes after its last member:
 * concatenated members decode whole as `gzip -dc` decodes them, wherever the
 * input's chunks break; bytes after a complete member that do not open with
 * the gzip magic (zero padding, random junk) are ignored with a warning, as
 * `gzip -t` ignores them (silently for zeros; for other junk it says
 * "decompression OK, trailing garbage ignored" and exits 2); a second
 * member that opens with the magic but is cut short or damaged is refused as
 * `gzip -t` refuses it. The warning reaches the inventory of a .tar.gz.
 * Every verdict and digest is the peer's, taken at test time.
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

const MISSING = ["gzip", "bash", "sha256sum", "tar"].find((p) => !hasProgram(p));
const IGNORE = MISSING ? `needs ${MISSING} (--allow-run=${MISSING})` : false;
if (IGNORE) console.log(`ignored: ${IGNORE}`);

/** Pseudo-random bytes from a fixed seed. */
function noise(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

/** Real gzip members, concatenated: text with a name, an empty member, a 300 KB binary, one byte. */
async function concatenated(dir: string): Promise<{ path: string; boundaries: number[] }> {
  const blob = join(dir, "blob.bin");
  const bytes = noise(300_000, 7).map((b, i) => i % 5 === 0 ? b : 0x61 + (i % 11));
  await Deno.writeFile(blob, bytes);
  await Deno.writeTextFile(join(dir, "named.txt"), "first member\n");
  const members = [
    await shellBytes(`gzip -c '${join(dir, "named.txt")}'`),
    await shellBytes("gzip -c < /dev/null"),
    await shellBytes(`gzip -1 -c '${blob}'`),
    await shellBytes("printf 'z' | gzip -n -c"),
  ];
  const path = join(dir, "joined.gz");
  const boundaries: number[] = [];
  let at = 0;
  for (const member of members) {
    at += member.length;
    boundaries.push(at);
  }
  await Deno.writeFile(path, concat(members));
  return { path, boundaries };
}

Deno.test({
  name:
    "decompress() decodes every concatenated gzip member and the junk after them as gzip -dc does, wherever the chunks break",
  ignore: IGNORE !== false,
  fn: () =>
    withTempDir(async (dir) => {
      const { path, boundaries } = await concatenated(dir);
      const members = await Deno.readFile(path);
      const expected = await peerSha("gzip", path);
      assert.equal((await runProgram("gzip", ["-t", path])).code, 0);
      const junk = new TextEncoder().encode("junk after the members\n");
      const tailed = join(dir, "tailed.gz");
      const bytes = concat([members, junk]);
      await Deno.writeFile(tailed, bytes);
      const tested = await runProgram("gzip", ["-t", tailed]);
      assert.equal(tested.code, 2, tested.stderr);
      assert.match(tested.stderr, /trailing garbage ignored/);
      assert.equal(await peerSha("gzip", tailed), expected);
      const splits = new Set<number>([1, 2, 3, 9, 10, 11, 12]);
      for (const boundary of boundaries) {
        for (let d = -9; d <= 12; d++) splits.add(boundary + d);
      }
      assert.deepEqual(await decodeParts("gzip", [members]), { sha256: expected, warnings: [] });
      for (const split of [0, ...splits]) {
        const parts = split === 0 ? [bytes] : [bytes.subarray(0, split), bytes.subarray(split)];
        const result = await decodeParts("gzip", parts);
        assert.ok("sha256" in result, `split at ${split}: ${"error" in result && result.error}`);
        assert.equal(result.sha256, expected, `split at ${split}`);
        assert.deepEqual(result.warnings, [
          `${junk.length} byte(s) after the last gzip member (of 4) start no other member: ignored, as gzip -d does.`,
        ], `split at ${split}`);
      }
    }, { prefix: "casefile-gzip-concat-" }),
});

Deno.test({
  name:
    "decompress() ignores and reports bytes after the last gzip member as gzip -t does, and refuses a damaged or cut member as gzip -t does",
  ignore: IGNORE !== false,
  fn: () =>
    withTempDir(async (dir) => {
      const { path } = await concatenated(dir);
      const bytes = await Deno.readFile(path);
      const expected = await peerSha("gzip", path);
      const second = await shellBytes("printf 'second member\\n' | gzip -c");
      const damaged = second.slice();
      damaged[damaged.length - 6]! ^= 0xff; // inside the stored CRC-32
      const tails: Record<string, Uint8Array> = {
        "zero padding": new Uint8Array(10_240),
        "random bytes": noise(777, 99).map((b, i) => i === 0 && b === 0x1f ? 0 : b),
        "1f and not 8b": new Uint8Array([0x1f, 0x00, 0x41]),
        "a truncated second member": second.subarray(0, second.length - 5),
        "a second member cut in its header": second.subarray(0, 6),
        "the magic alone": second.subarray(0, 2),
        "a damaged second member": damaged,
      };
      const verdicts = new Set<number>();
      for (const [label, tail] of Object.entries(tails)) {
        const file = join(dir, "tailed.gz");
        await Deno.writeFile(file, concat([bytes, tail]));
        const peer = await runProgram("gzip", ["-t", file]);
        verdicts.add(peer.code);
        for (const parts of [[bytes, tail], [concat([bytes, tail])]]) {
          const result = await decodeParts("gzip", parts);
          // gzip -t: exit 0 (zero padding, silently), 2 (a warning), 1 (an error).
          if (peer.code !== 1) {
            if (peer.code === 2) assert.match(peer.stderr, /trailing garbage ignored/, label);
            assert.ok("sha256" in result, `${label}: ${"error" in result ? result.error : ""}`);
            assert.equal(result.sha256, expected, label);
            assert.equal(result.sha256, await peerSha("gzip", file), label);
            assert.equal(result.warnings.length, 1, label);
            assert.match(
              result.warnings[0]!,
              new RegExp(`^${tail.length} byte\\(s\\) after the last gzip member`),
              label,
            );
          } else {
            assert.ok("error" in result, `${label}: gzip -t refuses it (${peer.stderr.trim()})`);
            assert.ok(result.error instanceof ArchiveFormatError, `${label}: ${result.error}`);
          }
        }
      }
      // Every verdict of gzip -t was met: passed silently, passed with a warning, refused.
      assert.deepEqual([...verdicts].sort(), [0, 1, 2]);
    }, { prefix: "casefile-gzip-trailing-" }),
});

for (
  const [label, tail] of [
    ["zero padding", new Uint8Array(20 * 512)],
    ["random bytes", noise(1000, 5).map((b, i) => i === 0 && b === 0x1f ? 0 : b)],
  ] as const
) {
  Deno.test({
    name: `inventory_artifact reads a .tar.gz followed by ${label} as tar -tzf does and notes it`,
    ignore: IGNORE !== false,
    fn: () =>
      withTempRoot("casefile-gzip-tar-trailing-", async ({ client, dir }) => {
        await Deno.mkdir(join(dir, "tree"));
        await Deno.writeTextFile(join(dir, "tree", "a.txt"), "alpha\n");
        await Deno.writeTextFile(join(dir, "tree", "b.txt"), "beta\n");
        const archive = join(dir, "tree.tar.gz");
        await run("tar", ["-czf", archive, "-C", dir, "tree"]);
        const file = await Deno.open(archive, { append: true });
        await file.write(tail);
        file.close();
        // The peers: gzip -t passes (silently for zeros, with a warning, exit 2, for junk);
        // tar lists every member (and passes gzip's warning on as its exit code 2).
        const tested = await runProgram("gzip", ["-t", archive]);
        assert.ok(tested.code === 0 || tested.code === 2, tested.stderr);
        if (tested.code === 2) assert.match(tested.stderr, /trailing garbage ignored/);
        const listed = await runProgram("tar", ["-tzf", archive]);
        assert.equal(listed.code, tested.code, listed.stderr);
        const members = listed.stdout.split("\n").filter(Boolean)
          .map((m) => `tree.tar/${m.replace(/\/$/, "")}`).sort();

        await ok(client, "open_binary", { path: archive });
        const inventory = await inventoryAll(client);
        assert.equal(
          inventory.manifest.complete,
          true,
          JSON.stringify(inventory.first.limitations),
        );
        const paths = inventory.occurrences.map((o: Loose) => o.logical_path as string);
        assert.deepEqual(paths.filter((p) => p.startsWith("tree.tar/")).sort(), members);
        const stream = inventory.occurrences.find((o: Loose) => o.logical_path === "tree.tar");
        assert.equal(stream.sha256, await peerSha("gzip", archive));
        const root = inventory.occurrences.find((o: Loose) => o.logical_path === ".");
        const note = new RegExp(`^${tail.length} byte\\(s\\) after the last gzip member`);
        assert.ok(root.limitations.some((l: string) => note.test(l)), root.limitations.join(" | "));
        assert.ok(
          inventory.first.limitations.some((l: string) =>
            l.startsWith(".: ") && note.test(l.slice(3))
          ),
          JSON.stringify(inventory.first.limitations),
        );
      }),
  });
}
