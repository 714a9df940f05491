/**
 * Tests for the streaming archive readers (`src/apps/artifacts/`): tar, ar,
 * zip, gzip / xz / zstd decompression and content sniffing, each compared
 * with the real tool reading the same bytes (GNU tar, binutils ar, Info-ZIP
 * zipinfo / unzip, gzip, xz, zstd, dpkg-deb, sha256sum), on archives those
 * tools write in a temporary directory and on the real Debian packages in
 * `../shared/fixtures/apps/`.
 *
 * Run with `deno test --no-prompt -A tests/archive_readers_test.ts`. Tests
 * whose tool is missing are ignored with the reason printed.
 */

import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { hasProgram } from "./helpers/programs.ts";
import { mulberry32 } from "./helpers/random.ts";
import { npmPackage } from "./helpers/npm_fixtures.ts";
import {
  bytesStream,
  collect,
  concat,
  latin1,
  latin1Bytes,
  parseArListing,
  parseTarListing,
  parseZipinfo,
  paxPayload,
  runBytes,
  runText,
  sh,
  sha256,
  sha256Stream,
  sha256sumTree,
  TAR_END,
  tarData,
  tarHeader,
  within,
  zipArchive,
} from "./helpers/archives.ts";
import { ArchiveFormatError } from "../src/apps/artifacts/errors.ts";
import { fileSource, memorySource } from "../src/apps/artifacts/byte_source.ts";
import { type Codec, decompress, detectCompression } from "../src/apps/artifacts/compression.ts";
import { type ArchiveEntryType, readTar, type TarEntry } from "../src/apps/artifacts/tar.ts";
import { type ArEntry, readAr } from "../src/apps/artifacts/ar.ts";
import { readZipDirectory, zipEntryBody } from "../src/apps/artifacts/zip.ts";
import { sniff } from "../src/apps/artifacts/sniff.ts";
import { isFile } from "./helpers/system_files.ts";

// ---------------------------------------------------------------------------
// Environment

const CRT1 = "/usr/lib/x86_64-linux-gnu/crt1.o";
/** A small jar of an installed JDK, or null. */
const JAR: string | null = (() => {
  try {
    const out = new Deno.Command("sh", {
      args: ["-c", "find /usr/lib/jvm -name '*.jar' -size -2M 2>/dev/null | head -1"],
    }).outputSync();
    return new TextDecoder().decode(out.stdout).trim() || null;
  } catch {
    return null;
  }
})();

const has = {
  tar: hasProgram("tar"),
  gzip: hasProgram("gzip"),
  xz: hasProgram("xz"),
  zstd: hasProgram("zstd"),
  bzip2: hasProgram("bzip2"),
  zip: hasProgram("zip"),
  unzip: hasProgram("unzip"),
  zipinfo: hasProgram("zipinfo"),
  ar: hasProgram("ar"),
  dpkgDeb: hasProgram("dpkg-deb"),
  sh: hasProgram("sh"),
  sha256sum: hasProgram("sha256sum"),
  mkfifo: hasProgram("mkfifo"),
  crt1: isFile(CRT1),
  jar: JAR !== null,
};

/** Registers a test that needs `needs`, printing why when it is ignored. */
function testWith(needs: (keyof typeof has)[], name: string, fn: () => Promise<void>): void {
  const missing = needs.filter((program) => !has[program]);
  if (missing.length > 0) {
    console.log(`skip: ${name}: ${missing.join(", ")} not available (or not allowed)`);
  }
  Deno.test({ name, ignore: missing.length > 0, fn });
}

const LIMITS = { maxEntries: 100_000, maxPathBytes: 4096 };
const DECOMPRESS = { maxOutputBytes: 4 * 2 ** 30, maxRatio: 10_000 };
const FIXTURES = new URL("../../shared/fixtures/apps/", import.meta.url);

function fixturePath(name: string): string {
  return new URL(name, FIXTURES).pathname;
}

function debFixtures(): string[] {
  try {
    return [...Deno.readDirSync(FIXTURES)].filter((e) => e.name.endsWith(".deb")).map((e) =>
      fixturePath(e.name)
    ).sort();
  } catch {
    return [];
  }
}

function fileStream(path: string): Promise<ReadableStream<Uint8Array>> {
  return fileSource(path).then((source) => {
    const stream = source.stream(0, source.size);
    return stream.pipeThrough(
      new TransformStream({
        flush(): void {
          source.close();
        },
      }),
    );
  });
}

// ---------------------------------------------------------------------------
// Trees archived by the real tools

const random = mulberry32(0x5eed);
const BIG = Uint8Array.from({ length: 300_000 }, () => Math.floor(random() * 256));
const LONG = "n".repeat(120);
const PREFIXED = `dir/${"p".repeat(90)}/${"q".repeat(90)}`;

interface TreeOptions {
  fifo: boolean;
  longNames: boolean;
  prefixed: boolean;
}

async function buildTree(root: string, options: TreeOptions): Promise<void> {
  await Deno.mkdir(`${root}/dir/sub`, { recursive: true });
  await Deno.writeTextFile(`${root}/dir/a.txt`, "hello\n");
  await Deno.writeFile(`${root}/dir/sub/big.bin`, BIG);
  await Deno.writeFile(`${root}/empty`, new Uint8Array(0));
  await Deno.writeTextFile(`${root}/run.sh`, "#!/bin/sh\necho hi\n");
  await Deno.chmod(`${root}/run.sh`, 0o755);
  await Deno.symlink("dir/a.txt", `${root}/link`);
  await Deno.link(`${root}/dir/a.txt`, `${root}/hard`);
  await sh("touch \"$(printf 'bad\\377name')\"", root);
  if (options.fifo) await runText("mkfifo", [`${root}/fifo`]);
  if (options.longNames) {
    await Deno.writeTextFile(`${root}/dir/${LONG}`, "long\n");
    await Deno.symlink(`dir/${LONG}`, `${root}/longlink`);
  }
  if (options.prefixed) {
    await Deno.mkdir(`${root}/${PREFIXED.slice(0, PREFIXED.lastIndexOf("/"))}`, {
      recursive: true,
    });
    await Deno.writeTextFile(`${root}/${PREFIXED}`, "split name\n");
  }
}

interface Workspace {
  dir: string;
  tars: Record<"ustar" | "pax" | "gnu" | "v7", string>;
  trees: Record<"full" | "ustar" | "v7", string>;
}

let workspace: Promise<Workspace> | null = null;

/** Builds (once) the trees and their tar archives in every format. */
function tarWorkspace(): Promise<Workspace> {
  workspace ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "casefile-archives-" });
    const trees = { full: `${dir}/full`, ustar: `${dir}/ustar`, v7: `${dir}/v7` };
    await buildTree(trees.full, { fifo: has.mkfifo, longNames: true, prefixed: true });
    await buildTree(trees.ustar, { fifo: has.mkfifo, longNames: false, prefixed: true });
    await buildTree(trees.v7, { fifo: false, longNames: false, prefixed: false });
    const tars = {
      ustar: `${dir}/t_ustar.tar`,
      pax: `${dir}/t_pax.tar`,
      gnu: `${dir}/t_gnu.tar`,
      v7: `${dir}/t_v7.tar`,
    };
    const source = { ustar: trees.ustar, pax: trees.full, gnu: trees.full, v7: trees.v7 };
    for (const format of ["ustar", "pax", "gnu", "v7"] as const) {
      await runText("tar", [
        `--format=${format}`,
        "--sort=name",
        "-cf",
        tars[format],
        "-C",
        source[format],
        ".",
      ]);
    }
    return { dir, tars, trees };
  })();
  return workspace;
}

globalThis.addEventListener("unload", () => {
  workspace?.then((w) => Deno.removeSync(w.dir, { recursive: true })).catch(() => {});
});

const TYPE_CHARS: Record<ArchiveEntryType, string> = {
  file: "-",
  directory: "d",
  symlink: "l",
  hardlink: "h",
  "character-device": "c",
  "block-device": "b",
  fifo: "p",
  other: "?",
};

interface ReadEntry {
  entry: TarEntry;
  sha256: string | null;
  length: number;
}

async function readAllTar(
  input: ReadableStream<Uint8Array>,
  options: { hash?: boolean } = {},
): Promise<{ entries: ReadEntry[]; warnings: string[] }> {
  const entries: ReadEntry[] = [];
  const generator = readTar(input, LIMITS);
  while (true) {
    const step = await generator.next();
    if (step.done) return { entries, warnings: step.value.warnings };
    const { entry, body } = step.value;
    if (options.hash !== false && entry.type === "file") {
      const { sha256, length } = await sha256Stream(body());
      entries.push({ entry, sha256, length });
    } else {
      entries.push({ entry, sha256: null, length: 0 });
    }
  }
}

function tarView(entry: TarEntry): {
  typeChar: string;
  mode: number;
  size: number | null;
  device: string | null;
  name: string;
  link: string | null;
} {
  const device = entry.device ? `${entry.device.major},${entry.device.minor}` : null;
  return {
    typeChar: TYPE_CHARS[entry.type],
    mode: entry.mode,
    size: device ? null : entry.size,
    device,
    name: latin1(entry.name.bytes),
    link: entry.linkTarget ? latin1(entry.linkTarget.bytes) : null,
  };
}

async function tarListing(
  archive: string,
  extra: string[] = [],
): Promise<ReturnType<typeof tarView>[]> {
  const text = await runText("tar", [
    "--list",
    "--verbose",
    "--numeric-owner",
    "--quoting-style=escape",
    ...extra,
    "-f",
    archive,
  ]);
  return parseTarListing(text).map(({ typeChar, mode, size, device, name, link }) => ({
    typeChar,
    mode,
    size,
    device,
    name,
    link,
  }));
}

/** Checks every regular file's content against the tool's extraction, hashed by sha256sum. */
async function assertContentMatchesExtraction(
  entries: ReadEntry[],
  extracted: string,
): Promise<void> {
  const theirs = await sha256sumTree(extracted);
  let files = 0;
  for (const { entry, sha256: ours } of entries) {
    if (entry.type !== "file") continue;
    const path = latin1(entry.name.bytes).replace(/^\.\//, "");
    assert.equal(ours, theirs.get(path), `content of ${path}`);
    files++;
  }
  const known = new Set(entries.map((e) => latin1(e.entry.name.bytes).replace(/^\.\//, "")));
  for (const path of theirs.keys()) {
    assert.ok(known.has(path), `${path} was extracted but not listed`);
  }
  assert.ok(files > 0);
}

// ---------------------------------------------------------------------------
// tar

for (const format of ["ustar", "pax", "gnu", "v7"] as const) {
  testWith(
    ["tar", "sh", "sha256sum"],
    `readTar() lists a ${format} tar exactly as tar -tv does and its content matches tar -x`,
    async () => {
      const { tars, dir } = await tarWorkspace();
      const { entries, warnings } = await readAllTar(await fileStream(tars[format]));
      assert.deepEqual(warnings, []);
      assert.deepEqual(entries.map((e) => tarView(e.entry)), await tarListing(tars[format]));
      for (const { entry } of entries) {
        assert.ok(entry.format.startsWith(format === "pax" ? "ustar" : format), entry.format);
      }
      const out = await Deno.makeTempDir({ dir, prefix: `x_${format}_` });
      await runText("tar", ["-xf", tars[format], "-C", out]);
      await assertContentMatchesExtraction(entries, out);
      // The features each format was built with are really there.
      const names = entries.map((e) => latin1(e.entry.name.bytes));
      assert.ok(names.includes("./bad\xffname"));
      const bad = entries.find((e) => latin1(e.entry.name.bytes) === "./bad\xffname")!;
      assert.equal(bad.entry.name.validUtf8, false);
      assert.equal(bad.entry.name.text, "./bad\ufffdname");
      assert.equal(
        entries.find((e) => e.entry.type === "hardlink")?.entry.linkTarget?.text,
        "./dir/a.txt",
      );
      assert.equal(entries.find((e) => e.entry.name.text === "./run.sh")?.entry.mode, 0o755);
      assert.equal(
        entries.find((e) => e.entry.name.text === "./dir/sub/big.bin")?.length,
        BIG.byteLength,
      );
      if (format !== "v7" && has.mkfifo) assert.ok(entries.some((e) => e.entry.type === "fifo"));
      if (format === "pax" || format === "gnu") {
        assert.ok(names.includes(`./dir/${LONG}`));
        assert.equal(
          entries.find((e) => e.entry.name.text === "./longlink")?.entry.linkTarget?.text,
          `dir/${LONG}`,
        );
      }
      if (format !== "v7") assert.ok(names.includes(`./${PREFIXED}`));
    },
  );
}

testWith(["tar"], "readTar() reports device nodes with their numbers as tar -tv does", async () => {
  const archive = concat([
    tarHeader({ name: "dev/null", typeflag: "3", devmajor: 1, devminor: 3, mode: 0o666 }),
    tarHeader({ name: "dev/sda", typeflag: "4", devmajor: 8, devminor: 0, mode: 0o660 }),
    tarHeader({ name: "dev/pipe", typeflag: "6" }),
    TAR_END,
  ]);
  const { dir } = await tarWorkspace();
  const path = `${dir}/devices.tar`;
  await Deno.writeFile(path, archive);
  const { entries } = await readAllTar(bytesStream(archive));
  assert.deepEqual(entries.map((e) => e.entry.type), ["character-device", "block-device", "fifo"]);
  assert.deepEqual(entries.map((e) => tarView(e.entry)), await tarListing(path));
});

for (
  const [codec, program, args] of [
    ["gzip", "gzip", ["-c"]],
    ["xz", "xz", ["-c", "-T1"]],
    ["zstd", "zstd", ["-q", "-c"]],
  ] as const
) {
  testWith(
    ["tar", program],
    `decompress() decodes a ${codec}-compressed tar to the same bytes as ${program} -dc, and readTar() reads it`,
    async () => {
      const { tars, dir } = await tarWorkspace();
      const compressed = `${dir}/t_gnu.tar.${codec}`;
      await Deno.writeFile(compressed, await runBytes(program, [...args, tars.gnu]));
      assert.equal(detectCompression(Deno.readFileSync(compressed).subarray(0, 8)), codec);
      const peer = await runBytes(program, ["-dc", compressed]);
      const ours = await collect(decompress(codec, await fileStream(compressed), DECOMPRESS));
      assert.equal(sha256(ours), sha256(peer));
      const viaStream = await readAllTar(
        decompress(codec, await fileStream(compressed), DECOMPRESS),
      );
      const direct = await readAllTar(await fileStream(tars.gnu));
      assert.deepEqual(
        viaStream.entries.map((e) => [e.entry.name.text, e.sha256]),
        direct.entries.map((e) => [e.entry.name.text, e.sha256]),
      );
      assert.deepEqual(
        viaStream.entries.map((e) => tarView(e.entry)),
        await tarListing(compressed, ["--auto-compress"]),
      );
    },
  );
}

testWith(
  ["gzip", "xz", "zstd"],
  "decompress() decodes multi-member gzip and concatenated xz and zstd streams like the tools",
  async () => {
    const { dir } = await tarWorkspace();
    const partA = BIG.subarray(0, 200_000);
    const partB = new TextEncoder().encode("second member\n".repeat(5000));
    await Deno.writeFile(`${dir}/partA`, partA);
    await Deno.writeFile(`${dir}/partB`, partB);
    // A skippable frame (magic 0x184D2A5E, 6 bytes) between the zstd frames; zstd skips it too.
    const skippable = Uint8Array.from([0x5e, 0x2a, 0x4d, 0x18, 6, 0, 0, 0, 1, 2, 3, 4, 5, 6]);
    const cases: [Codec, string, Uint8Array][] = [
      [
        "gzip",
        "gzip",
        concat([
          await runBytes("gzip", ["-c", `${dir}/partA`]),
          await runBytes("gzip", ["-c", `${dir}/partB`]),
        ]),
      ],
      [
        "xz",
        "xz",
        concat([
          await runBytes("xz", ["-c", `${dir}/partA`]),
          new Uint8Array(8), // stream padding
          await runBytes("xz", ["-c", "--block-size=4096", `${dir}/partB`]),
        ]),
      ],
      [
        "zstd",
        "zstd",
        concat([
          await runBytes("zstd", ["-q", "-c", `${dir}/partA`]),
          skippable,
          await runBytes("zstd", ["-q", "-c", "--no-check", `${dir}/partB`]),
        ]),
      ],
    ];
    for (const [codec, program, bytes] of cases) {
      const path = `${dir}/concatenated.${codec}`;
      await Deno.writeFile(path, bytes);
      const peer = await runBytes(program, ["-dc", path]);
      assert.equal(
        peer.byteLength,
        partA.byteLength + partB.byteLength,
        `${program} decodes every member`,
      );
      for (const chunk of [1, 7, 4096, 1 << 20]) {
        const ours = await collect(decompress(codec, bytesStream(bytes, chunk), DECOMPRESS));
        assert.equal(sha256(ours), sha256(peer), `${codec} in chunks of ${chunk}`);
      }
    }
  },
);

testWith(
  ["xz", "tar"],
  "decompress() decodes an xz inside an xz while the outer stream is still open",
  async () => {
    const { dir, tars } = await tarWorkspace();
    const inner = await runBytes("xz", ["-c", tars.gnu]);
    const outerTar = concat([
      tarHeader({ name: "inner.tar.xz", size: inner.byteLength }),
      tarData(inner),
      TAR_END,
    ]);
    await Deno.writeFile(`${dir}/outer.tar`, outerTar);
    const outer = await runBytes("xz", ["-c", `${dir}/outer.tar`]);
    const direct = await readAllTar(await fileStream(tars.gnu));
    const seen: string[] = [];
    await within(
      20_000,
      "nested xz",
      (async () => {
        for await (
          const { entry, body } of readTar(
            decompress("xz", bytesStream(outer, 1000), DECOMPRESS),
            LIMITS,
          )
        ) {
          seen.push(entry.name.text);
          const nested = await readAllTar(decompress("xz", body(), DECOMPRESS));
          assert.deepEqual(
            nested.entries.map((e) => [e.entry.name.text, e.sha256]),
            direct.entries.map((e) => [e.entry.name.text, e.sha256]),
          );
        }
      })(),
    );
    assert.deepEqual(seen, ["inner.tar.xz"]);
  },
);

/** The npm pack tarball of a pinned package, from the fixture cache (null: reason printed). */
const NPM_TARBALL = await (async (): Promise<
  { root: string; directory: string; name: string } | null
> => {
  const root = await npmPackage("gecko-profiler-demangle@0.4.0");
  if (root === null) return null;
  const directory = root.slice(0, root.lastIndexOf("/"));
  const tgz = [...Deno.readDirSync(directory)].find((e) => e.name.endsWith(".tgz"));
  if (!tgz) console.log("skip: the npm fixture cache holds no .tgz");
  return tgz ? { root, directory, name: tgz.name } : null;
})();

Deno.test({
  name: "readTar() reads a real npm pack tarball as tar -tzv does, and sniff() names it",
  ignore: !has.tar || !has.gzip || NPM_TARBALL === null,
  fn: async () => {
    const { root, directory, name } = NPM_TARBALL!;
    const tgz = { name };
    const path = `${directory}/${tgz.name}`;
    const head = Deno.readFileSync(path).subarray(0, 4096);
    assert.deepEqual(sniff(head, tgz.name), {
      kind: "data",
      container: "gzip",
      flavour: null,
      executableFormat: false,
    });
    const tarHead = (await collect(decompress("gzip", await fileStream(path), DECOMPRESS)))
      .subarray(0, 4096);
    assert.equal(sniff(tarHead, "package.tar").flavour, "npm");
    const { entries } = await readAllTar(decompress("gzip", await fileStream(path), DECOMPRESS));
    assert.deepEqual(entries.map((e) => tarView(e.entry)), await tarListing(path, ["-z"]));
    const wasm = entries.find((e) => e.entry.name.text === "package/index_bg.wasm");
    assert.ok(wasm);
    assert.equal(wasm.sha256, sha256(Deno.readFileSync(`${root}/index_bg.wasm`)));
  },
});

testWith(
  [],
  "readTar() reports pax paths with NUL, non-UTF-8 names and pax overrides exactly",
  async () => {
    const nulPath = Uint8Array.from([
      ...new TextEncoder().encode("a"),
      0,
      ...new TextEncoder().encode("b/c"),
    ]);
    const payload = paxPayload([
      ["path", nulPath],
      ["mtime", "1700000000.25"],
      ["uid", "4242"],
      ["uname", "someone"],
    ]);
    const globalPayload = paxPayload([["gid", "77"]]);
    const archive = concat([
      tarHeader({ name: "pax_global_header", typeflag: "g", size: globalPayload.byteLength }),
      tarData(globalPayload),
      tarHeader({ name: "PaxHeaders/x", typeflag: "x", size: payload.byteLength }),
      tarData(payload),
      tarHeader({ name: "short", size: 3 }),
      tarData(new TextEncoder().encode("abc")),
      tarHeader({ name: Uint8Array.from([0x66, 0xff, 0xfe]), size: 0 }),
      tarHeader({ name: "../../etc/passwd", size: 0 }),
      tarHeader({ name: "/abs/path", typeflag: "2", linkname: "../../../outside" }),
      TAR_END,
    ]);
    const { entries } = await readAllTar(bytesStream(archive, 100));
    const [first, second, third, fourth] = entries.map((e) => e.entry);
    assert.deepEqual([...first!.name.bytes], [...nulPath]);
    assert.equal(first!.name.validUtf8, true);
    assert.equal(first!.name.text, "a\0b/c");
    assert.equal(first!.mtime, 1700000000.25);
    assert.equal(first!.uid, 4242);
    assert.equal(first!.gid, 77);
    assert.equal(first!.uname, "someone");
    assert.equal(first!.format, "ustar+pax");
    assert.equal(first!.firstHeaderOffset, 1024);
    assert.equal(first!.headerOffset, 2048);
    assert.equal(first!.dataOffset, 2560);
    assert.deepEqual([...second!.name.bytes], [0x66, 0xff, 0xfe]);
    assert.equal(second!.name.validUtf8, false);
    assert.equal(second!.name.text, "f\ufffd\ufffd");
    assert.equal(second!.gid, 77, "global pax headers apply to every later entry");
    assert.equal(third!.name.text, "../../etc/passwd");
    assert.equal(fourth!.name.text, "/abs/path");
    assert.equal(fourth!.linkTarget?.text, "../../../outside");
  },
);

testWith(
  [],
  "readTar() skips unread bodies, rejects a second body() and fails a body read after moving on",
  async () => {
    const archive = concat([
      tarHeader({ name: "one", size: 1000 }),
      tarData(new Uint8Array(1000).fill(1)),
      tarHeader({ name: "two", size: 5 }),
      tarData(new TextEncoder().encode("hello")),
      TAR_END,
    ]);
    const generator = readTar(bytesStream(archive, 77), LIMITS);
    const first = (await generator.next()).value as {
      entry: TarEntry;
      body(): ReadableStream<Uint8Array>;
    };
    const stale = first.body();
    assert.throws(() => first.body(), /twice/);
    const second = await generator.next();
    assert.ok(!second.done);
    assert.equal(second.value.entry.name.text, "two");
    await assert.rejects(collect(stale), /moved past/);
    assert.equal(new TextDecoder().decode(await collect(second.value.body())), "hello");
    const end = await generator.next();
    assert.ok(end.done);
    assert.equal(end.value.entries, 2);
  },
);

// ---------------------------------------------------------------------------
// ar and Debian packages

function arView(
  entry: ArEntry,
): { mode: number; uid: number; gid: number; size: number; name: string } {
  return {
    mode: entry.mode & 0o7777,
    uid: entry.uid,
    gid: entry.gid,
    size: entry.size,
    name: entry.name.text,
  };
}

async function readAllAr(
  input: ReadableStream<Uint8Array>,
): Promise<{ entry: ArEntry; bytes: Uint8Array }[]> {
  const out: { entry: ArEntry; bytes: Uint8Array }[] = [];
  for await (const { entry, body } of readAr(input, LIMITS)) {
    out.push({ entry, bytes: await collect(body()) });
  }
  return out;
}

testWith(
  ["ar"],
  "readAr() lists a GNU ar with long member names exactly as ar tv does",
  async () => {
    const { dir } = await tarWorkspace();
    const work = await Deno.makeTempDir({ dir, prefix: "ar_" });
    const names = [
      "short.txt",
      "a_member_name_longer_than_15.txt",
      "another_very_long_member_name.bin",
      "odd",
    ];
    for (const [i, name] of names.entries()) {
      await Deno.writeFile(
        `${work}/${name}`,
        i === 2 ? BIG.subarray(0, 12345) : new TextEncoder().encode(`member ${i}\n`.repeat(i + 1)),
      );
    }
    await Deno.writeTextFile(`${work}/odd`, "odd size!");
    await runText("ar", ["rc", "lib.a", ...names], { cwd: work });
    const members = await readAllAr(await fileStream(`${work}/lib.a`));
    assert.deepEqual(
      members.map((m) => arView(m.entry)),
      parseArListing(await runText("ar", ["tv", `${work}/lib.a`])),
    );
    for (const { entry, bytes } of members) {
      assert.equal(entry.isSymbolTable, false);
      assert.equal(
        sha256(bytes),
        sha256(await runBytes("ar", ["p", `${work}/lib.a`, entry.name.text])),
      );
    }
  },
);

testWith(
  ["ar", "crt1"],
  "readAr() reports the symbol table of ar rcs as type other, and the members as ar tv does",
  async () => {
    const object = CRT1;
    const { dir } = await tarWorkspace();
    const work = await Deno.makeTempDir({ dir, prefix: "arsym_" });
    await Deno.copyFile(object, `${work}/startup_object_file.o`);
    await runText("ar", ["rcs", "libsym.a", "startup_object_file.o"], { cwd: work });
    const members = await readAllAr(await fileStream(`${work}/libsym.a`));
    assert.equal(members[0]!.entry.isSymbolTable, true);
    assert.equal(members[0]!.entry.type, "other");
    assert.equal(members[0]!.entry.name.text, "/");
    const regular = members.filter((m) => !m.entry.isSymbolTable);
    assert.deepEqual(
      regular.map((m) => arView(m.entry)),
      parseArListing(await runText("ar", ["tv", `${work}/libsym.a`])),
    );
    assert.equal(sha256(regular[0]!.bytes), sha256(Deno.readFileSync(object)));
    assert.deepEqual(
      sniff(Deno.readFileSync(`${work}/libsym.a`).subarray(0, 4096), "libsym.a").flavour,
      "static-library",
    );
  },
);

testWith(["ar"], "readAr() reads BSD #1/ long names as ar tv does", async () => {
  const header = (name: string, size: number): Uint8Array =>
    latin1Bytes(
      name.padEnd(16) + "0".padEnd(12) + "0".padEnd(6) + "0".padEnd(6) + "100644".padEnd(8) +
        String(size).padEnd(10) + "`\n",
    );
  const longName = "a_bsd_style_long_name.txt";
  const data = new TextEncoder().encode("bsd data\n");
  const archive = concat([
    latin1Bytes("!<arch>\n"),
    header(`#1/${longName.length}`, longName.length + data.byteLength),
    latin1Bytes(longName),
    data,
    header("plain", 3),
    latin1Bytes("xyz\n"),
  ]);
  const { dir } = await tarWorkspace();
  await Deno.writeFile(`${dir}/bsd.a`, archive);
  const members = await readAllAr(bytesStream(archive, 5));
  assert.deepEqual(
    members.map((m) => arView(m.entry)),
    parseArListing(await runText("ar", ["tv", `${dir}/bsd.a`])),
  );
  assert.equal(new TextDecoder().decode(members[0]!.bytes), "bsd data\n");
  assert.equal(members[0]!.entry.dataOffset, 8 + 60 + longName.length);
});

const debs = debFixtures();
if (debs.length === 0) console.log(`skip: no Debian packages in ${FIXTURES.pathname}`);

for (const deb of debs) {
  const base = deb.slice(deb.lastIndexOf("/") + 1);
  testWith(
    ["ar", "tar", "xz", "sha256sum", "sh"],
    `readAr() and readTar() list the Debian package ${base} as ar tv and dpkg-deb -c do, with the same content`,
    async () => {
      const members = await readAllAr(await fileStream(deb));
      assert.deepEqual(
        members.map((m) => arView(m.entry)),
        parseArListing(await runText("ar", ["tv", deb])),
      );
      assert.deepEqual(members.map((m) => m.entry.name.text).slice(0, 1), ["debian-binary"]);
      assert.deepEqual(sniff(Deno.readFileSync(deb).subarray(0, 4096), base), {
        kind: "data",
        container: "ar",
        flavour: "deb",
        executableFormat: false,
      });
      const { dir } = await tarWorkspace();
      for (const part of ["control.tar.xz", "data.tar.xz"]) {
        const member = members.find((m) => m.entry.name.text === part);
        assert.ok(member, `${base} has ${part}`);
        const { entries } = await readAllTar(
          decompress("xz", bytesStream(member.bytes), DECOMPRESS),
        );
        const listing = part === "data.tar.xz" && has.dpkgDeb
          ? parseTarListing(await runText("dpkg-deb", ["-c", deb]))
          : parseTarListing(
            await sh(
              `ar p '${deb}' ${part} | tar -tvJ --numeric-owner --quoting-style=escape`,
              dir,
            ),
          );
        assert.deepEqual(
          entries.map((
            e,
          ) => [
            TYPE_CHARS[e.entry.type],
            e.entry.mode,
            e.entry.size,
            e.entry.name.text,
            e.entry.linkTarget?.text ?? null,
          ]),
          listing.map((l) => [l.typeChar, l.mode, l.size, l.name, l.link]),
        );
        const out = await Deno.makeTempDir({ dir, prefix: "deb_" });
        await sh(`ar p '${deb}' ${part} | tar -xJ -C '${out}'`, dir);
        await assertContentMatchesExtraction(entries, out);
      }
    },
  );
}

// ---------------------------------------------------------------------------
// zip

const ZIPINFO_METHODS: Record<string, number> = { stor: 0, defN: 8, defX: 8, defF: 8, defS: 8 };

type ZipKind = "mixed" | "stored" | "zip64" | "encrypted";

async function zipWorkspace(): Promise<
  { dir: string; tree: string; zips: Record<ZipKind, string> }
> {
  const { dir, trees } = await tarWorkspace();
  const tree = trees.full;
  const zips: Record<ZipKind, string> = {
    mixed: `${dir}/z.zip`,
    stored: `${dir}/z0.zip`,
    zip64: `${dir}/z64.zip`,
    encrypted: `${dir}/zenc.zip`,
  };
  try {
    Deno.statSync(zips.encrypted);
  } catch {
    await runText("zip", ["-q", "-r", "-y", zips.mixed, ".", "-x", "fifo"], { cwd: tree });
    await runText("zip", ["-q", "-r", "-y", "-0", zips.stored, "dir", "link", "empty"], {
      cwd: tree,
    });
    await runText("zip", ["-q", "-fz", zips.zip64, "dir/a.txt", "dir/sub/big.bin"], { cwd: tree });
    await runText("zip", ["-q", "-P", "secret", zips.encrypted, "dir/a.txt"], { cwd: tree });
  }
  return { dir, tree, zips };
}

for (const kind of ["mixed", "stored", "zip64"] as const) {
  testWith(
    ["zip", "zipinfo", "unzip", "sha256sum", "sh"],
    `readZipDirectory() lists a ${kind} zip exactly as zipinfo -l does and zipEntryBody() matches unzip`,
    async () => {
      const { dir, tree, zips } = await zipWorkspace();
      const source = await fileSource(zips[kind]);
      try {
        const directory = await readZipDirectory(source, LIMITS);
        assert.deepEqual(directory.warnings, []);
        assert.deepEqual(directory.overlapping, []);
        assert.equal(directory.zip64, kind === "zip64");
        const listing = parseZipinfo(await runText("zipinfo", ["-l", zips[kind]]));
        assert.deepEqual(
          directory.entries.map((e) => [
            e.type === "directory" ? "d" : e.type === "symlink" ? "l" : "-",
            (e.mode ?? 0) & 0o7777,
            e.uncompressedSize,
            e.compressedSize,
            e.method,
          ]),
          listing.map((
            l,
          ) => [l.typeChar, l.mode, l.uncompressed, l.compressed, ZIPINFO_METHODS[l.method]]),
        );
        for (const [i, entry] of directory.entries.entries()) {
          if (entry.name.validUtf8) assert.equal(entry.name.text, listing[i]!.name);
          assert.equal(entry.inconsistent, false, entry.warnings.join("; "));
          assert.equal(entry.encrypted, false);
        }
        const out = await Deno.makeTempDir({ dir, prefix: `unzip_${kind}_` });
        await runText("unzip", ["-q", zips[kind], "-d", out]);
        const theirs = await sha256sumTree(out);
        for (const entry of directory.entries) {
          if (entry.type === "directory") continue;
          const bytes = await collect(zipEntryBody(source, entry, DECOMPRESS));
          const path = latin1(entry.name.bytes);
          if (entry.type === "symlink") {
            assert.equal(entry.mode! & 0o170000, 0o120000);
            assert.equal(
              new TextDecoder().decode(bytes),
              await Deno.readLink(`${tree}/${entry.name.text}`),
            );
          } else if (entry.name.validUtf8) {
            assert.equal(sha256(bytes), theirs.get(path), `content of ${entry.name.text}`);
          } else {
            // unzip rewrites non-UTF-8 names on extraction (it drops the 0xff), so only the length is checked.
            assert.equal(bytes.byteLength, entry.uncompressedSize);
          }
        }
        if (kind === "mixed") {
          const bad = directory.entries.find((e) => latin1(e.name.bytes) === "bad\xffname");
          assert.ok(bad, "the non-UTF-8 name is kept byte for byte");
          assert.equal(bad.name.validUtf8, false);
          assert.ok(
            directory.entries.some((e) => e.type === "symlink" && e.name.text === "longlink"),
          );
          assert.ok(directory.entries.some((e) => e.method === 8));
        }
      } finally {
        source.close();
      }
    },
  );
}

testWith(
  ["zip", "zipinfo"],
  "zipEntryBody() refuses an entry encrypted by zip -P with ArchiveFormatError",
  async () => {
    const { zips } = await zipWorkspace();
    const source = await fileSource(zips.encrypted);
    try {
      const directory = await readZipDirectory(source, LIMITS);
      const listing = parseZipinfo(await runText("zipinfo", ["-l", zips.encrypted]));
      assert.equal(listing[0]!.textFlags, "TX", "zipinfo marks it encrypted (upper case)");
      assert.equal(directory.entries[0]!.encrypted, true);
      assert.throws(
        () => zipEntryBody(source, directory.entries[0]!, DECOMPRESS),
        (error: unknown) => error instanceof ArchiveFormatError && /encrypted/.test(error.message),
      );
    } finally {
      source.close();
    }
  },
);

testWith(
  ["zipinfo", "unzip", "jar"],
  "readZipDirectory() reads a real jar as zipinfo does and sniff() tells class files from universal Mach-O",
  async () => {
    const jar = JAR!;
    const bytes = Deno.readFileSync(jar);
    assert.deepEqual(sniff(bytes.subarray(0, 4096), jar), {
      kind: "data",
      container: "zip",
      flavour: "jar",
      executableFormat: false,
    });
    const source = memorySource(bytes);
    const directory = await readZipDirectory(source, LIMITS);
    const listing = parseZipinfo(await runText("zipinfo", ["-l", jar]));
    assert.deepEqual(
      directory.entries.map((e) => [e.name.text, e.uncompressedSize, e.compressedSize, e.method]),
      listing.map((l) => [l.name, l.uncompressed, l.compressed, ZIPINFO_METHODS[l.method]]),
    );
    const classEntry = directory.entries.find((e) => e.name.text.endsWith(".class"));
    assert.ok(classEntry);
    const classBytes = await collect(zipEntryBody(source, classEntry, DECOMPRESS));
    assert.equal(
      sha256(classBytes),
      sha256(await runBytes("unzip", ["-p", jar, classEntry.name.text])),
    );
    assert.deepEqual(sniff(classBytes.subarray(0, 4096), classEntry.name.text), {
      kind: "data",
      container: null,
      flavour: "java-class",
      executableFormat: false,
    });
  },
);

testWith(
  [],
  "readZipDirectory() decodes CP437 names without the UTF-8 flag and UTF-8 names with it",
  async () => {
    const archive = zipArchive([
      {
        name: Uint8Array.from([0x63, 0x61, 0x66, 0x82, 0x2e, 0x74, 0x78, 0x74]),
        data: new TextEncoder().encode("cp437"),
      },
      { name: "café.txt", data: new TextEncoder().encode("utf8"), flags: 0x800 },
      { name: "dir/", data: new Uint8Array(0), unixMode: 0o40755 },
      { name: "link", data: new TextEncoder().encode("café.txt"), unixMode: 0o120777, method: 8 },
    ], { comment: "a comment" });
    const directory = await readZipDirectory(memorySource(archive), LIMITS);
    const [cp437, utf8, folder, link] = directory.entries;
    assert.equal(cp437!.name.text, "café.txt");
    assert.equal(cp437!.nameEncoding, "cp437");
    assert.deepEqual([...cp437!.name.bytes], [0x63, 0x61, 0x66, 0x82, 0x2e, 0x74, 0x78, 0x74]);
    assert.equal(cp437!.mode, null);
    assert.equal(utf8!.name.text, "café.txt");
    assert.equal(utf8!.nameEncoding, "utf-8");
    assert.equal(folder!.type, "directory");
    assert.equal(link!.type, "symlink");
    assert.equal(link!.mode, 0o120777);
    assert.equal(
      new TextDecoder().decode(
        await collect(zipEntryBody(memorySource(archive), link!, DECOMPRESS)),
      ),
      "café.txt",
    );
    assert.equal(directory.comment, "a comment");
  },
);

testWith(
  [],
  "readZipDirectory() finds an archive behind a prepended stub and reports the prefix",
  async () => {
    const archive = zipArchive([{
      name: "a.txt",
      data: new TextEncoder().encode("behind a stub"),
    }]);
    const stub = new Uint8Array(1000).fill(0x90);
    const source = memorySource(concat([stub, archive]));
    const directory = await readZipDirectory(source, LIMITS);
    assert.equal(directory.prefixBytes, 1000);
    assert.match(directory.warnings.join("\n"), /1000 bytes precede the archive/);
    assert.equal(
      new TextDecoder().decode(
        await collect(zipEntryBody(source, directory.entries[0]!, DECOMPRESS)),
      ),
      "behind a stub",
    );
  },
);

// ---------------------------------------------------------------------------
// sniff

testWith(
  [],
  "sniff() classifies executables, scripts, text and data from their first bytes",
  async () => {
    const head = (path: string): Uint8Array => {
      const file = Deno.openSync(path);
      const buffer = new Uint8Array(4096);
      const n = file.readSync(buffer) ?? 0;
      file.close();
      return buffer.subarray(0, n);
    };
    assert.deepEqual(sniff(head(Deno.execPath()), "deno"), {
      kind: "elf",
      container: null,
      flavour: null,
      executableFormat: true,
    });
    const pe = new Uint8Array(512);
    pe.set([0x4d, 0x5a]);
    new DataView(pe.buffer).setUint32(0x3c, 0x80, true);
    pe.set([0x50, 0x45, 0, 0], 0x80);
    assert.equal(sniff(pe, "a.exe").kind, "pe");
    const dosOnly = pe.slice();
    dosOnly.fill(0, 0x80, 0x84);
    assert.equal(
      sniff(dosOnly, "a.exe").kind,
      "data",
      "MZ without the PE signature where it points is not PE",
    );
    assert.equal(sniff(Uint8Array.from([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1]), "a").kind, "mach-o");
    assert.equal(
      sniff(Uint8Array.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2]), "a").kind,
      "mach-o-universal",
    );
    assert.deepEqual(sniff(Uint8Array.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52]), "A.class"), {
      kind: "data",
      container: null,
      flavour: "java-class",
      executableFormat: false,
    });
    assert.equal(sniff(Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), "m.wasm").kind, "wasm");
    assert.equal(sniff(new TextEncoder().encode("#!/bin/sh\necho\n"), "run").kind, "script");
    assert.equal(sniff(new TextEncoder().encode("plain text\n"), "a.txt").kind, "text");
    const cut = new TextEncoder().encode("é".repeat(3000)).subarray(0, 4095);
    assert.equal(
      sniff(cut, "utf8.txt").kind,
      "text",
      "a UTF-8 sequence cut by the head's end is still text",
    );
    assert.equal(sniff(Uint8Array.from([0x68, 0x69, 0, 0x68]), "nul").kind, "data");
    assert.equal(sniff(BIG.subarray(0, 4096), "random").kind, "data");
    for (
      const [spec, file, kind] of [
        ["7zip-bin@5.2.0", "win/x64/7za.exe", "pe"],
        ["7zip-bin@5.2.0", "mac/arm64/7za", "mach-o"],
        ["gecko-profiler-demangle@0.4.0", "index_bg.wasm", "wasm"],
      ] as const
    ) {
      const root = await npmPackage(spec);
      if (root === null) continue;
      assert.equal(sniff(head(`${root}/${file}`), file).kind, kind, `${spec} ${file}`);
    }
  },
);

testWith(
  ["tar", "zip", "ar", "gzip", "xz", "zstd", "bzip2"],
  "sniff() recognises every container the tools write, with flavours; bzip2 decodes",
  async () => {
    const { dir, tars } = await tarWorkspace();
    const { zips } = await zipWorkspace();
    const head = (bytes: Uint8Array): Uint8Array => bytes.subarray(0, 4096);
    for (const format of ["ustar", "pax", "gnu", "v7"] as const) {
      assert.equal(sniff(head(Deno.readFileSync(tars[format])), "x.tar").container, "tar", format);
    }
    assert.deepEqual(sniff(head(Deno.readFileSync(zips.mixed)), "z.zip"), {
      kind: "data",
      container: "zip",
      flavour: null,
      executableFormat: false,
    });
    for (
      const [name, flavour] of [["pkg.whl", "whl"], ["app.apk", "apk"], ["App.ipa", "ipa"], [
        "lib.nupkg",
        "nupkg",
      ], ["x.jar", "jar"]] as const
    ) {
      assert.equal(sniff(head(Deno.readFileSync(zips.mixed)), name).flavour, flavour);
    }
    const small = `${dir}/sniff.txt`;
    await Deno.writeTextFile(small, "compress me\n".repeat(100));
    for (
      const [program, args, container] of [
        ["gzip", ["-c"], "gzip"],
        ["xz", ["-c"], "xz"],
        ["zstd", ["-q", "-c"], "zstd"],
        ["bzip2", ["-c"], "bzip2"],
      ] as const
    ) {
      const bytes = await runBytes(program, [...args, small]);
      assert.equal(sniff(head(bytes), "f").container, container);
    }
    // bzip2 decodes back to what bzip2 compressed.
    assert.deepEqual(
      await collect(
        decompress("bzip2", bytesStream(await runBytes("bzip2", ["-c", small])), DECOMPRESS),
      ),
      await Deno.readFile(small),
    );
    await runText("ar", ["rc", `${dir}/sniff.a`, small]);
    assert.equal(sniff(head(Deno.readFileSync(`${dir}/sniff.a`)), "sniff.a").container, "ar");
  },
);

testWith([], "sniff() and readTar() agree that a PNG or an ELF is not a tar", async () => {
  const png = concat([
    Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    BIG.subarray(0, 5000),
  ]);
  const elf = Deno.readFileSync(Deno.execPath()).subarray(0, 100_000);
  for (const [label, bytes] of [["png", png], ["elf", elf]] as const) {
    assert.notEqual(sniff(bytes.subarray(0, 4096), `fake.tar`).container, "tar");
    await assert.rejects(
      within(5000, label, readAllTar(bytesStream(bytes))),
      (error: unknown) =>
        error instanceof ArchiveFormatError && error.format === "tar" &&
        /not a tar archive/.test(error.message),
    );
  }
  await assert.rejects(readAllTar(bytesStream(gzipSync(new Uint8Array(10)))), /not a tar archive/);
});
