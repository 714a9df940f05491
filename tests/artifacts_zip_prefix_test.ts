/**
 * A zip after a prefix (a self-extractor's stub, a shell script) opens and is
 * inventoried as `unzip` reads it: the first bytes name no format, and the
 * file ends with a zip's end record. Compared with `unzip -Z1` (the names)
 * and `unzip -p` (each member's bytes) on a zip `zip` writes of real files
 * from /usr/share/doc, behind a stub of random bytes and behind a shell
 * script; random bytes without a zip at the end are still refused.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env
 * tests/artifacts_zip_prefix_test.ts`; skipped without zip and unzip.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { fails, hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { inventoryAll } from "./helpers/inventory.ts";
import {
  objdumpMachOImageEnd,
  objdumpUniversalEnd,
  readelfImageEnd,
  readobjPeImageEnd,
} from "./helpers/image_end.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";

const HAVE = hasProgram("zip") && hasProgram("unzip");
/** Real files to zip: a few documentation folders every Debian machine has. */
const SOURCES = ["/usr/share/doc/tar", "/usr/share/doc/gzip", "/usr/share/doc/bash"].filter((p) => {
  try {
    return Deno.statSync(p).isDirectory;
  } catch {
    return false;
  }
});

/** Runs unzip; exit code 1 is its warning about bytes before the archive. */
async function unzip(args: string[]): Promise<Uint8Array> {
  const out = await new Deno.Command("unzip", { args, stdout: "piped", stderr: "piped" }).output();
  if (out.code > 1) {
    throw new Error(`unzip ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return out.stdout;
}

/**
 * Every page of the open artifact's inventory, its root occurrence, and the root's own file
 * members as `[logical path, SHA-256]`, sorted (the .gz among them are opened in turn, one level
 * down, and not counted here).
 */
async function rootMembers(
  client: Parameters<typeof inventoryAll>[0],
): Promise<{ full: Loose; root: Loose; members: [string, string][] }> {
  const full = await inventoryAll(client);
  const root = full.occurrences.find((o: Loose) => o.logical_path === ".");
  const members = full.occurrences.filter((o: Loose) =>
    o.entry_kind === "file" && o.parent_occurrence_id === root.occurrence_id
  ).map((o: Loose) => [o.logical_path, o.sha256] as [string, string]).sort();
  return { full, root, members };
}

/** Each member's bytes as `unzip -p` gives them, by name (`unzip -Z1`), as SHA-256. */
async function peerMembers(path: string): Promise<Map<string, string>> {
  const names = new TextDecoder().decode(await unzip(["-Z1", path])).split("\n")
    .filter((n) => n && !n.endsWith("/"));
  const members = new Map<string, string>();
  for (const name of names) {
    members.set(name, createHash("sha256").update(await unzip(["-p", path, name])).digest("hex"));
  }
  return members;
}

Deno.test({
  name: "a zip behind a stub or a script is inventoried as unzip lists and extracts it",
  ignore: !HAVE || SOURCES.length === 0,
  fn: () =>
    withTempRoot("casefile-zip-prefix-", async ({ client, dir }) => {
      const plain = `${dir}/plain.zip`;
      await run("zip", ["-q", "-r", plain, ...SOURCES]);
      const zipBytes = await Deno.readFile(plain);
      const stub = crypto.getRandomValues(new Uint8Array(3000));
      // Random bytes may begin like a known format by chance: make sure they name none.
      stub.set([0x00, 0x01, 0x02, 0x03]);
      const script = new TextEncoder().encode("#!/bin/sh\necho unpacking\nexit 0\n");
      for (const [label, prefix] of [["stub", stub], ["script", script]] as const) {
        const path = `${dir}/${label}.zip`;
        await Deno.writeFile(path, new Uint8Array([...prefix, ...zipBytes]));
        const peer = await peerMembers(path);
        assert.ok(peer.size > 5, `${label}: ${peer.size} members`);

        await ok(client, "open_binary", { path });
        const { full, root, members } = await rootMembers(client);
        assert.equal(full.manifest.complete, true, label);
        assert.deepEqual(members, [...peer].sort(), label);
        const nodes = new Map(full.nodes.map((n: Loose) => [n.artifact_id, n]));
        assert.equal((nodes.get(root.artifact_id) as Loose).format, "zip", label);
        assert.ok(
          JSON.stringify(full.first).includes(`${prefix.length} bytes precede the archive`),
          `${label}: the prefix is not mentioned`,
        );
      }

      // Random bytes that do not end with a zip's end record are no archive.
      const junk = `${dir}/junk.bin`;
      await Deno.writeFile(junk, new Uint8Array([...stub, ...stub]));
      const refused = await fails(client, "open_binary", { path: junk });
      assert.match(refused.message, /not a supported binary or archive/);
    }),
});

const UNZIPSFX = ["/usr/bin/unzipsfx", "/bin/unzipsfx"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
}) ?? null;
if (UNZIPSFX === null) {
  console.log("artifacts_zip_prefix_test: no unzipsfx: self-extractor test skipped");
}

Deno.test({
  name:
    "a self-extracting executable (unzipsfx and a zip) opens as a binary, and with provider_id rea-artifact-graph as the zip unzip lists and extracts",
  ignore: !HAVE || SOURCES.length === 0 || UNZIPSFX === null,
  fn: () =>
    withTempRoot("casefile-self-extractor-", async ({ client, dir }) => {
      const plain = `${dir}/plain.zip`;
      await run("zip", ["-q", "-r", plain, ...SOURCES]);
      const stub = await Deno.readFile(UNZIPSFX!);
      const raw = `${dir}/raw.sfx`;
      await Deno.writeFile(raw, new Uint8Array([...stub, ...await Deno.readFile(plain)]));
      // As `zip -A` leaves it: the offsets moved past the stub, as unzipsfx's manual says.
      const adjusted = `${dir}/adjusted.sfx`;
      await Deno.copyFile(raw, adjusted);
      await run("zip", ["-q", "-A", adjusted]);
      for (const path of [raw, adjusted]) {
        const peer = await peerMembers(path);
        assert.ok(peer.size > 5, `${path}: ${peer.size} members`);
        // Opened plainly, it is the ELF program it starts with; inventory says how to get in.
        const binary = await ok(client, "open_binary", { path });
        assert.equal((binary.result.target as Loose).format, "elf");
        assert.ok(
          (binary.result.target as Loose).warnings.some((w: string) =>
            w.startsWith("A zip archive follows the executable (a self-extractor)")
          ),
          path,
        );
        const refused = await fails(client, "inventory_artifact", {});
        assert.match(refused.remediation.action, /provider_id rea-artifact-graph/);
        // Its overview names the zip after the image, where readelf says the image ends.
        const overview = await ok(client, "binary_overview", {});
        const end = await readelfImageEnd(path);
        assert.equal(end, stub.length);
        assert.deepEqual((overview.result as Loose).overlay, {
          offset: end,
          size: (await Deno.stat(path)).size - end,
          format: "zip",
        });

        const opened = await ok(client, "open_binary", { path, provider_id: "rea-artifact-graph" });
        assert.equal((opened.result.artifact_target as Loose).format, "zip");
        const { full, root, members } = await rootMembers(client);
        assert.equal(full.manifest.complete, true, path);
        assert.deepEqual(members, [...peer].sort(), path);
        // The root stays the executable it is, carrying the zip.
        const node = full.nodes.find((n: Loose) => n.artifact_id === root.artifact_id);
        assert.deepEqual(
          [node.format, node.content_kind, node.kind],
          ["zip", "elf", "executable"],
        );
        assert.equal(typeof node.architecture, "string");
        assert.ok(
          JSON.stringify(full.first).includes(`${stub.length} bytes precede the archive`) ||
            path === adjusted,
          `${path}: the stub is not mentioned`,
        );
      }
      // The stub alone carries no zip: no such warning, and the artifact provider refuses it.
      const alone = `${dir}/unzipsfx`;
      await Deno.copyFile(UNZIPSFX!, alone);
      const program = await ok(client, "open_binary", { path: alone });
      assert.ok(
        !(program.result.target as Loose).warnings.some((w: string) =>
          w.includes("self-extractor")
        ),
      );
      const none = await fails(client, "open_binary", {
        path: alone,
        provider_id: "rea-artifact-graph",
      });
      assert.equal(
        none.message,
        `provider_id rea-artifact-graph opens a directory or archive, and ${alone} is an executable with no zip after it.`,
      );
    }),
});

/**
 * `stub` (a program's path) copied into `dir` alone, and again with a zip of SOURCES appended:
 * the stub's and the zip's bytes, and both paths.
 */
async function stubAndZip(
  dir: string,
  stub: string,
  name: string,
): Promise<{ stub: Uint8Array; zip: Uint8Array; alone: string; path: string }> {
  const plain = `${dir}/plain.zip`;
  await run("zip", ["-q", "-r", plain, ...SOURCES]);
  const bytes = await Deno.readFile(stub);
  const zip = await Deno.readFile(plain);
  const alone = `${dir}/${name}`;
  await Deno.writeFile(alone, bytes);
  const path = `${dir}/${name}-with-zip`;
  await Deno.writeFile(path, new Uint8Array([...bytes, ...zip]));
  return { stub: bytes, zip, alone, path };
}

const PE_STUB = HAVE && hasProgram("llvm-readobj-14") && hasProgram("objdump")
  ? await npmFixture("7zip-bin@5.2.0", "win/ia32/7za.exe")
  : null;

Deno.test({
  name:
    "a PE followed by a zip (and a signed one, its certificate table after the zip): its overlay starts where llvm-readobj's sections end, and it opens as that zip",
  ignore: PE_STUB === null || SOURCES.length === 0,
  fn: () =>
    withTempRoot("casefile-pe-self-extractor-", async ({ client, dir }) => {
      const { stub, zip, alone, path } = await stubAndZip(dir, PE_STUB!, "7za.exe");
      const end = await readobjPeImageEnd(path);
      assert.equal(end, stub.length);
      const binary = await ok(client, "open_binary", { path });
      assert.equal((binary.result.target as Loose).format, "pe");
      const overview = await ok(client, "binary_overview", {});
      assert.deepEqual((overview.result as Loose).overlay, {
        offset: end,
        size: zip.length,
        format: "zip",
      });
      // The stub alone has nothing after its image.
      await ok(client, "open_binary", { path: alone });
      assert.equal((await ok(client, "binary_overview", {})).result.overlay, null);

      await ok(client, "open_binary", { path, provider_id: "rea-artifact-graph" });
      const { full, members } = await rootMembers(client);
      assert.equal(full.manifest.complete, true);
      assert.deepEqual(members, [...await peerMembers(path)].sort());

      // Signed: an Authenticode certificate table after the zip, to the end of the file, as the
      // security data directory says. The zip's end record no longer closes the file.
      const signed = `${dir}/signed.exe`;
      const certificate = new Uint8Array(2056);
      new DataView(certificate.buffer).setUint32(0, certificate.length, true);
      const bytes = new Uint8Array([...stub, ...zip, ...certificate]);
      const view = new DataView(bytes.buffer);
      const optional = view.getUint32(0x3c, true) + 24;
      const directories = optional + (view.getUint16(optional, true) === 0x20b ? 112 : 96);
      view.setUint32(directories + 4 * 8, stub.length + zip.length, true);
      view.setUint32(directories + 4 * 8 + 4, certificate.length, true);
      await Deno.writeFile(signed, bytes);
      assert.match(
        await run("objdump", ["-p", signed]),
        /Entry 4 [0-9a-f]+ 00000808 Security Directory/,
      );
      const opened = await ok(client, "open_binary", { path: signed });
      assert.ok(
        (opened.result.target as Loose).warnings.some((w: string) => w.includes("self-extractor")),
      );
      assert.deepEqual((await ok(client, "binary_overview", {})).result.overlay, {
        offset: end,
        size: zip.length + certificate.length,
        format: "zip",
      });
      await ok(client, "open_binary", { path: signed, provider_id: "rea-artifact-graph" });
      const read = await rootMembers(client);
      assert.equal(read.full.manifest.complete, true);
      assert.deepEqual(read.members, [...await peerMembers(signed)].sort());
      assert.ok(
        JSON.stringify(read.full.first).includes(
          `${certificate.length} bytes follow the end-of-central-directory record`,
        ),
      );
    }),
});

const MACHO_STUB = HAVE && hasProgram("llvm-objdump-14")
  ? await npmFixture("@esbuild/darwin-arm64@0.28.2", "bin/esbuild")
  : null;

Deno.test({
  name:
    "a Mach-O followed by a zip: its overlay starts where llvm-objdump's segments, tables and code signature end, and it opens as that zip",
  ignore: MACHO_STUB === null || SOURCES.length === 0,
  fn: () =>
    withTempRoot("casefile-macho-self-extractor-", async ({ client, dir }) => {
      const { stub, zip, alone, path } = await stubAndZip(dir, MACHO_STUB!, "esbuild");
      // The stub alone: its code signature closes the file, and nothing follows it.
      assert.equal(await objdumpMachOImageEnd(alone), stub.length);
      await ok(client, "open_binary", { path: alone });
      assert.equal(((await ok(client, "binary_overview", {})).result as Loose).overlay, null);

      assert.equal(await objdumpMachOImageEnd(path), stub.length);
      const binary = await ok(client, "open_binary", { path });
      assert.equal((binary.result.target as Loose).format, "mach-o");
      assert.deepEqual(((await ok(client, "binary_overview", {})).result as Loose).overlay, {
        offset: stub.length,
        size: zip.length,
        format: "zip",
      });
      await ok(client, "open_binary", { path, provider_id: "rea-artifact-graph" });
      const { full, members } = await rootMembers(client);
      assert.equal(full.manifest.complete, true);
      assert.deepEqual(members, [...await peerMembers(path)].sort());
    }),
});

const UNIVERSAL_STUB = HAVE && hasProgram("llvm-objdump-14")
  ? await npmFixture("fsevents@2.3.3", "fsevents.node")
  : null;

Deno.test({
  name:
    "a universal Mach-O followed by a zip: every slice's overview reports what follows the last architecture llvm-objdump lists",
  ignore: UNIVERSAL_STUB === null || SOURCES.length === 0,
  fn: () =>
    withTempRoot("casefile-universal-overlay-", async ({ client, dir }) => {
      const { stub, zip, alone, path } = await stubAndZip(dir, UNIVERSAL_STUB!, "fsevents.node");
      assert.equal(await objdumpUniversalEnd(alone), stub.length);
      assert.equal(await objdumpUniversalEnd(path), stub.length);
      for (const [file, expected] of [[alone, null], [path, stub.length]] as const) {
        await ok(client, "open_binary", { path: file });
        const documents = (await ok(client, "list_documents", {})).result.documents as string[];
        assert.ok(documents.length >= 2, `${file}: a document per slice`);
        for (const name of documents) {
          const overlay = (await ok(client, "binary_overview", { document: name })).result.overlay;
          assert.deepEqual(
            overlay,
            expected === null ? null : { offset: expected, size: zip.length, format: "zip" },
            `${file}: ${name}`,
          );
        }
      }
    }),
});
