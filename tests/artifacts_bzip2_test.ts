/**
 * bzip2 streams decode like gzip, xz and zstd: a .tar.bz2 inventories
 * member by member with the digests `tar -xjf` and sha256sum give, its
 * stream's digest is `bzip2 -dc | sha256sum`'s (concatenated streams
 * included), it compares path by path as unchanged with the same tar as
 * .tar.gz, and a truncated stream is damaged, never complete.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { inventoryAll } from "./helpers/inventory.ts";
import { runProgram } from "./helpers/programs.ts";

const MISSING = ["tar", "bzip2", "gzip", "sha256sum", "bash"].find((p) => !hasProgram(p));
const IGNORE = MISSING ? `needs ${MISSING} (--allow-run=${MISSING})` : false;
if (IGNORE) console.log(`ignored: ${IGNORE}`);

/** `sha256sum` of a shell pipeline's output. */
async function pipelineSha(command: string): Promise<string> {
  const out = await runProgram("bash", ["-o", "pipefail", "-c", `${command} | sha256sum`]);
  assert.equal(out.code, 0, out.stderr);
  return out.stdout.split(" ")[0]!;
}

/** A tree with text, a binary larger than one 100 kB bzip2 block, and a subdirectory. */
async function makeTree(dir: string): Promise<string> {
  const tree = join(dir, "tree");
  await Deno.mkdir(join(tree, "sub"), { recursive: true });
  await Deno.writeTextFile(join(tree, "a.txt"), "hello\n");
  const bytes = new Uint8Array(300_000);
  let x = 12345;
  for (let i = 0; i < bytes.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = i % 3 === 0 ? x >>> 24 : 0x41 + (i % 7);
  }
  await Deno.writeFile(join(tree, "sub", "blob.bin"), bytes);
  return tree;
}

Deno.test({
  name: "inventory_artifact decodes a .tar.bz2 member by member, as tar -xjf and sha256sum do",
  ignore: IGNORE !== false,
  fn: () =>
    withTempRoot("casefile-bzip2-", async ({ client, dir }) => {
      await makeTree(dir);
      const bz2 = join(dir, "tree.tar.bz2");
      const gz = join(dir, "tree.tar.gz");
      await run("tar", ["-cjf", bz2, "-C", dir, "tree"]);
      await run("bash", ["-c", `bzip2 -dc '${bz2}' | gzip -c > '${gz}'`]);
      // The peers: the stream's digest, and each member's once tar extracted it.
      const streamSha = await pipelineSha(`bzip2 -dc '${bz2}'`);
      const peerDir = join(dir, "peer");
      await Deno.mkdir(peerDir);
      await run("tar", ["-xjf", bz2, "-C", peerDir]);
      const files = (await run("tar", ["-tjf", bz2])).split("\n").filter((m) =>
        m && !m.endsWith("/")
      );
      const expected = new Map<string, string>();
      for (const file of files) {
        expected.set(`tree.tar/${file}`, await pipelineSha(`cat '${join(peerDir, file)}'`));
      }

      await ok(client, "open_binary", { path: bz2 });
      const right = await inventoryAll(client);
      assert.equal(right.manifest.complete, true, JSON.stringify(right.first.limitations));
      const byPath = new Map(right.occurrences.map((o: Loose) => [o.logical_path, o]));
      assert.equal((byPath.get("tree.tar") as Loose)?.sha256, streamSha);
      for (const [path, sha] of expected) {
        assert.equal((byPath.get(path) as Loose)?.sha256, sha, path);
      }

      await ok(client, "open_binary", { path: gz });
      const left = await inventoryAll(client);
      const compared = (await ok(client, "compare_artifacts", {
        left_evidence_ids: left.ids,
        right_evidence_ids: right.ids,
        limit: 500,
      })).result;
      assert.equal(compared.status, "unchanged", JSON.stringify(compared.summary));
    }),
});

Deno.test({
  name:
    "inventory_artifact decodes concatenated bzip2 streams as bzip2 -dc does, and calls a truncated one damaged",
  ignore: IGNORE !== false,
  fn: () =>
    withTempRoot("casefile-bzip2-streams-", async ({ client, dir }) => {
      const tree = await makeTree(dir);
      const joined = join(dir, "joined.bin.bz2");
      await run("bash", [
        "-c",
        `bzip2 -c '${join(tree, "a.txt")}' > '${joined}' && bzip2 -c '${
          join(tree, "sub", "blob.bin")
        }' >> '${joined}'`,
      ]);
      const joinedSha = await pipelineSha(`bzip2 -dc '${joined}'`);
      await ok(client, "open_binary", { path: joined });
      const whole = await inventoryAll(client);
      assert.equal(whole.manifest.complete, true, JSON.stringify(whole.first.limitations));
      const stream = whole.occurrences.find((o: Loose) => o.logical_path !== ".");
      assert.equal(stream.sha256, joinedSha);

      const cut = join(dir, "cut.bin.bz2");
      const bytes = await Deno.readFile(joined);
      await Deno.writeFile(cut, bytes.subarray(0, bytes.length - 200));
      // The peer refuses it too.
      assert.notEqual((await runProgram("bzip2", ["-t", cut])).code, 0);
      await ok(client, "open_binary", { path: cut });
      const damaged = await inventoryAll(client);
      assert.equal(damaged.manifest.complete, false);
      const part = damaged.occurrences.find((o: Loose) => o.logical_path !== ".");
      assert.equal(part.sha256, null);
      assert.ok(
        part.limitations.some((l: string) => /bzip2/.test(l)),
        JSON.stringify(part.limitations),
      );
    }),
});

Deno.test({
  name: "inventory_artifact reads bzip2 zip members (method 12) with the digests unzip -p gives",
  ignore: IGNORE !== false || !hasProgram("zip") || !hasProgram("unzip"),
  fn: () =>
    withTempRoot("casefile-bzip2-zip-", async ({ client, dir }) => {
      const tree = await makeTree(dir);
      const archive = join(dir, "tree.zip");
      await run("bash", ["-c", `cd '${tree}' && zip -q -r -Z bzip2 '${archive}' a.txt sub`]);
      const listing = await run("unzip", ["-v", archive]);
      assert.match(listing, /BZip2/, "zip wrote bzip2 members");
      await ok(client, "open_binary", { path: archive });
      const full = await inventoryAll(client);
      assert.equal(full.manifest.complete, true, JSON.stringify(full.first.limitations));
      for (const name of ["a.txt", "sub/blob.bin"]) {
        const occurrence = full.occurrences.find((o: Loose) => o.logical_path === name);
        assert.equal(
          occurrence?.sha256,
          await pipelineSha(`unzip -p '${archive}' '${name}'`),
          name,
        );
      }
    }),
});
