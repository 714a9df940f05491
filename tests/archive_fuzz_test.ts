/**
 * Hostile and damaged input for the archive readers: archives written by the
 * real tools cut at every header boundary and at seeded random offsets, with
 * seeded random byte flips, and crafted attacks (bad checksums, huge declared
 * sizes, lying zip entries, overlapping zip entries, zip and gzip bombs,
 * stalled and failing input, cancellation). Every case must end within a
 * bounded time in a complete result or a typed error
 * ({@linkcode ArchiveFormatError} / {@linkcode ArchiveLimitError}); any other
 * exception or a hang fails.
 *
 * Run with `deno test --no-prompt -A tests/archive_fuzz_test.ts`; set
 * `ARCHIVE_FUZZ_SEED` to replay a seed (the seed in use is printed).
 */

import assert from "node:assert/strict";
import { deflateRawSync, gzipSync } from "node:zlib";
import { hasProgram } from "./helpers/programs.ts";
import { mulberry32 } from "./helpers/random.ts";
import {
  bytesStream,
  collect,
  concat,
  latin1Bytes,
  paxPayload,
  runBytes,
  runText,
  TAR_END,
  tarData,
  tarHeader,
  within,
  zipArchive,
} from "./helpers/archives.ts";
import { ArchiveFormatError, ArchiveLimitError } from "../src/apps/artifacts/errors.ts";
import { memorySource } from "../src/apps/artifacts/byte_source.ts";
import { type Codec, decompress } from "../src/apps/artifacts/compression.ts";
import { readTar, type TarEntry } from "../src/apps/artifacts/tar.ts";
import { type ArEntry, readAr } from "../src/apps/artifacts/ar.ts";
import { readZipDirectory, zipEntryBody } from "../src/apps/artifacts/zip.ts";
import { isFile } from "./helpers/system_files.ts";

const SEED = (() => {
  try {
    return Number(Deno.env.get("ARCHIVE_FUZZ_SEED") ?? "20261202");
  } catch {
    return 20261202;
  }
})();
console.log(`archive fuzz seed: ${SEED} (set ARCHIVE_FUZZ_SEED to replay)`);

const LIMITS = { maxEntries: 10_000, maxPathBytes: 4096 };
const DECOMPRESS = { maxOutputBytes: 256 * 2 ** 20, maxRatio: 10_000 };
const CASE_MS = 10_000;

const DEB_FIXTURE = new URL(
  "../../shared/fixtures/apps/jq_1.6-2.1+deb12u3_amd64.deb",
  import.meta.url,
);

const has = {
  tar: hasProgram("tar"),
  gzip: hasProgram("gzip"),
  xz: hasProgram("xz"),
  zstd: hasProgram("zstd"),
  zip: hasProgram("zip"),
  debFixture: isFile(DEB_FIXTURE),
};

function testWith(needs: (keyof typeof has)[], name: string, fn: () => Promise<void>): void {
  const missing = needs.filter((program) => !has[program]);
  if (missing.length > 0) {
    console.log(`skip: ${name}: ${missing.join(", ")} not available (or not allowed)`);
  }
  Deno.test({ name, ignore: missing.length > 0, fn });
}

function isTyped(error: unknown): error is ArchiveFormatError | ArchiveLimitError {
  return error instanceof ArchiveFormatError || error instanceof ArchiveLimitError;
}

type Outcome<T> = { ok: true; value: T } | {
  ok: false;
  error: ArchiveFormatError | ArchiveLimitError;
};

/** Runs one case within the time bound; any untyped error fails with the label and seed. */
async function outcome<T>(label: string, run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await within(CASE_MS, label, run()) };
  } catch (error) {
    if (isTyped(error)) return { ok: false, error };
    throw new Error(
      `${label} (seed ${SEED}) ended in an untyped error: ${
        error instanceof Error ? error.stack : error
      }`,
    );
  }
}

async function listTar(
  input: ReadableStream<Uint8Array>,
): Promise<{ entries: TarEntry[]; warnings: string[] }> {
  const entries: TarEntry[] = [];
  const generator = readTar(input, LIMITS);
  while (true) {
    const step = await generator.next();
    if (step.done) return { entries, warnings: step.value.warnings };
    entries.push(step.value.entry);
    await collect(step.value.body());
  }
}

async function listAr(input: ReadableStream<Uint8Array>): Promise<ArEntry[]> {
  const entries: ArEntry[] = [];
  for await (const { entry, body } of readAr(input, LIMITS)) {
    entries.push(entry);
    await collect(body());
  }
  return entries;
}

function flip(bytes: Uint8Array, random: () => number): Uint8Array {
  const copy = bytes.slice();
  const count = 1 + Math.floor(random() * 3);
  for (let i = 0; i < count; i++) {
    const at = Math.floor(random() * copy.byteLength);
    copy[at] = copy[at]! ^ (1 + Math.floor(random() * 255));
  }
  return copy;
}

// ---------------------------------------------------------------------------
// Archives from the real tools

let built:
  | Promise<{ dir: string; tars: Record<string, Uint8Array>; zip: Uint8Array | null }>
  | null = null;

function toolArchives(): Promise<
  { dir: string; tars: Record<string, Uint8Array>; zip: Uint8Array | null }
> {
  built ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "casefile-archive-fuzz-" });
    const tree = `${dir}/tree`;
    await Deno.mkdir(`${tree}/dir/sub`, { recursive: true });
    const random = mulberry32(7);
    await Deno.writeFile(
      `${tree}/dir/sub/data.bin`,
      Uint8Array.from({ length: 40_000 }, () => Math.floor(random() * 256)),
    );
    await Deno.writeTextFile(`${tree}/dir/a.txt`, "hello\n");
    await Deno.writeTextFile(`${tree}/dir/${"long".repeat(40)}`, "long name\n");
    await Deno.symlink("dir/a.txt", `${tree}/link`);
    await Deno.link(`${tree}/dir/a.txt`, `${tree}/hard`);
    await Deno.writeFile(`${tree}/empty`, new Uint8Array(0));
    const tars: Record<string, Uint8Array> = {};
    for (const format of ["gnu", "pax"]) {
      await runText("tar", [
        `--format=${format}`,
        "--sort=name",
        "-cf",
        `${dir}/${format}.tar`,
        "-C",
        tree,
        ".",
      ]);
      tars[format] = Deno.readFileSync(`${dir}/${format}.tar`);
    }
    let zip: Uint8Array | null = null;
    if (has.zip) {
      await runText("zip", ["-q", "-r", "-y", `${dir}/t.zip`, "."], { cwd: tree });
      zip = Deno.readFileSync(`${dir}/t.zip`);
    }
    return { dir, tars, zip };
  })();
  return built;
}

globalThis.addEventListener("unload", () => {
  built?.then((b) => Deno.removeSync(b.dir, { recursive: true })).catch(() => {});
});

for (const format of ["gnu", "pax"]) {
  testWith(
    ["tar"],
    `readTar() on a ${format} tar cut at every header boundary lists a prefix, and cut elsewhere fails as truncated`,
    async () => {
      const { tars } = await toolArchives();
      const bytes = tars[format]!;
      const full = await listTar(bytesStream(bytes));
      const names = full.entries.map((e) => e.name.text);
      const endOffset = full.entries.at(-1)!.dataOffset +
        Math.ceil(full.entries.at(-1)!.size / 512) * 512;
      const boundaries = new Map(full.entries.map((e, i) => [e.firstHeaderOffset, i]));
      boundaries.set(endOffset, full.entries.length);
      const random = mulberry32(SEED);
      const cuts = new Set<number>([...boundaries.keys()]);
      for (const e of full.entries) {
        cuts.add(e.headerOffset).add(e.dataOffset + 1).add(e.headerOffset + 100);
      }
      for (let i = 0; i < 60; i++) cuts.add(Math.floor(random() * bytes.byteLength));
      for (const cut of [...cuts].sort((a, b) => a - b)) {
        const result = await outcome(
          `${format} tar cut at ${cut}`,
          () => listTar(bytesStream(bytes.subarray(0, cut), 4096)),
        );
        if (cut === 0) {
          assert.ok(!result.ok && /empty input/.test(result.error.message), `cut at 0`);
        } else if (boundaries.has(cut)) {
          assert.ok(result.ok, `cut at boundary ${cut}: ${result.ok ? "" : result.error.message}`);
          assert.deepEqual(
            result.value.entries.map((e) => e.name.text),
            names.slice(0, boundaries.get(cut)),
          );
          assert.match(result.value.warnings.join("\n"), /without its two end-of-archive blocks/);
        } else if (cut < endOffset) {
          assert.ok(!result.ok, `cut at ${cut} inside the archive must fail`);
          assert.ok(
            result.error instanceof ArchiveFormatError &&
              (/truncated/.test(result.error.message) ||
                (cut < 512 && /not a tar archive/.test(result.error.message))),
            result.error.message,
          );
        } else {
          assert.ok(result.ok, `cut at ${cut} after the last entry`);
          assert.deepEqual(
            result.value.entries.map((e) => e.name.text),
            names,
          );
        }
      }
    },
  );

  testWith(
    ["tar"],
    `readTar() on a ${format} tar with random byte flips ends in a result or a typed error`,
    async () => {
      const { tars } = await toolArchives();
      const random = mulberry32(SEED + 1);
      let failures = 0;
      for (let i = 0; i < 300; i++) {
        const damaged = flip(tars[format]!, random);
        const result = await outcome(
          `${format} tar flip #${i}`,
          () => listTar(bytesStream(damaged, 1000)),
        );
        if (!result.ok) {
          failures++;
        }
      }
      assert.ok(failures > 0, "some flips hit headers and are caught by the checksum");
    },
  );
}

testWith(
  ["tar", "gzip", "xz", "zstd"],
  "decompress() with readTar() fails with ArchiveFormatError on gzip, xz and zstd tars cut anywhere",
  async () => {
    const { dir, tars } = await toolArchives();
    await Deno.writeFile(`${dir}/c.tar`, tars.gnu!);
    const random = mulberry32(SEED + 2);
    for (
      const [codec, program, args] of [
        ["gzip", "gzip", ["-c"]],
        ["xz", "xz", ["-c"]],
        ["zstd", "zstd", ["-q", "-c"]],
      ] as [Codec, string, string[]][]
    ) {
      const compressed = await runBytes(program, [...args, `${dir}/c.tar`]);
      const cuts = new Set([1, 5, 12, compressed.byteLength - 1, compressed.byteLength - 4]);
      for (let i = 0; i < 40; i++) cuts.add(1 + Math.floor(random() * (compressed.byteLength - 1)));
      for (const cut of cuts) {
        const result = await outcome(
          `${codec} cut at ${cut}`,
          () =>
            listTar(decompress(codec, bytesStream(compressed.subarray(0, cut), 999), DECOMPRESS)),
        );
        assert.ok(!result.ok, `${codec} cut at ${cut} of ${compressed.byteLength} must fail`);
        assert.ok(result.error instanceof ArchiveFormatError, result.error.message);
      }
      for (let i = 0; i < 60; i++) {
        const damaged = flip(compressed, random);
        await outcome(
          `${codec} flip #${i}`,
          () => listTar(decompress(codec, bytesStream(damaged, 999), DECOMPRESS)),
        );
      }
      // Output accounting sees the whole tar.
      const whole = await collect(decompress(codec, bytesStream(compressed), DECOMPRESS));
      assert.equal(whole.byteLength, tars.gnu!.byteLength);
    }
  },
);

testWith(
  ["debFixture"],
  "readAr() on a Debian package cut at every header boundary lists a prefix, and cut elsewhere fails",
  async () => {
    const bytes = Deno.readFileSync(DEB_FIXTURE);
    const full = await listAr(bytesStream(bytes));
    const boundaries = new Map<number, number>([[8, 0]]);
    full.forEach((e, i) => boundaries.set(e.headerOffset, i));
    boundaries.set(bytes.byteLength, full.length);
    const random = mulberry32(SEED + 3);
    const cuts = new Set<number>([0, 4, ...boundaries.keys()]);
    for (const e of full) {
      cuts.add(e.headerOffset + 30).add(e.dataOffset).add(
        e.dataOffset + e.size - 1,
      );
    }
    for (let i = 0; i < 60; i++) cuts.add(Math.floor(random() * bytes.byteLength));
    const padding = new Set(full.filter((e) => e.size % 2 === 1).map((e) => e.dataOffset + e.size));
    for (const cut of cuts) {
      const result = await outcome(
        `deb cut at ${cut}`,
        () => listAr(bytesStream(bytes.subarray(0, cut), 512)),
      );
      if (cut < 8) {
        assert.ok(!result.ok && /not an ar archive/.test(result.error.message));
      } else if (boundaries.has(cut)) {
        assert.ok(result.ok, `cut at boundary ${cut}`);
        assert.equal(
          result.value.length,
          cut === bytes.byteLength ? full.length : boundaries.get(cut),
        );
      } else if (padding.has(cut)) {
        assert.ok(result.ok, `cut at the padding byte ${cut}`);
      } else {
        assert.ok(
          !result.ok && /truncated/.test(result.error.message),
          `cut at ${cut} must fail as truncated`,
        );
      }
    }
    for (let i = 0; i < 200; i++) {
      const damaged = flip(bytes, random);
      await outcome(`deb flip #${i}`, async () => {
        for await (const { entry, body } of readAr(bytesStream(damaged, 4096), LIMITS)) {
          if (entry.name.text.endsWith(".xz")) {
            await listTar(decompress("xz", body(), DECOMPRESS));
          }
        }
      });
    }
  },
);

testWith(
  ["zip"],
  "readZipDirectory() and zipEntryBody() on a zip cut or flipped end in a result or a typed error",
  async () => {
    const { zip } = await toolArchives();
    const bytes = zip!;
    const random = mulberry32(SEED + 4);
    const readAll = async (data: Uint8Array): Promise<number> => {
      const source = memorySource(data);
      const directory = await readZipDirectory(source, LIMITS);
      let read = 0;
      for (const entry of directory.entries) {
        if (entry.type === "directory") continue;
        read += (await collect(zipEntryBody(source, entry, DECOMPRESS))).byteLength;
      }
      return read;
    };
    assert.ok((await readAll(bytes)) > 40_000);
    for (let i = 0; i < 80; i++) {
      const cut = Math.floor(random() * bytes.byteLength);
      const result = await outcome(`zip cut at ${cut}`, () => readAll(bytes.subarray(0, cut)));
      assert.ok(!result.ok, `zip cut at ${cut} loses its end record`);
    }
    let failures = 0;
    for (let i = 0; i < 300; i++) {
      const result = await outcome(`zip flip #${i}`, () => readAll(flip(bytes, random)));
      if (!result.ok) failures++;
    }
    assert.ok(failures > 0);
  },
);

// ---------------------------------------------------------------------------
// Crafted attacks

Deno.test("readTar() reports a header checksum mismatch with its offset", async () => {
  const second = tarHeader({ name: "second", size: 0 });
  second[0] = 0x53; // changes the name after the checksum was computed
  const archive = concat([
    tarHeader({ name: "first", size: 3 }),
    tarData(latin1Bytes("abc")),
    second,
    TAR_END,
  ]);
  await assert.rejects(
    listTar(bytesStream(archive)),
    (error: unknown) =>
      error instanceof ArchiveFormatError &&
      error.message === "Cannot read tar: header checksum mismatch at offset 1024" &&
      error.offset === 1024,
  );
});

Deno.test("readTar() stops a pax or GNU long-name header declaring a huge size at the limit", async () => {
  const pax = concat([
    tarHeader({ name: "PaxHeaders/x", typeflag: "x", size: 2 ** 33 - 1 }),
    new Uint8Array(512),
  ]);
  await assert.rejects(
    within(2000, "huge pax", listTar(bytesStream(pax))),
    (error: unknown) => error instanceof ArchiveLimitError && error.limit === "max_header_bytes",
  );
  const longName = concat([
    tarHeader({ name: "././@LongLink", typeflag: "L", size: 100_000, format: "gnu" }),
    new Uint8Array(512),
  ]);
  await assert.rejects(
    listTar(bytesStream(longName)),
    (error: unknown) => error instanceof ArchiveLimitError && error.limit === "max_path_bytes",
  );
  const payload = paxPayload([["path", "x".repeat(5000)]]);
  const longPax = concat([
    tarHeader({ name: "p", typeflag: "x", size: payload.byteLength }),
    tarData(payload),
    tarHeader({ name: "f" }),
    TAR_END,
  ]);
  await assert.rejects(
    listTar(bytesStream(longPax)),
    (error: unknown) =>
      error instanceof ArchiveLimitError && error.limit === "max_path_bytes" &&
      error.observed === 5000,
  );
});

Deno.test("readTar() fails as truncated, quickly, on an 8 GiB size field in a tiny file", async () => {
  const sizeField = new Uint8Array(12);
  sizeField[0] = 0x80;
  new DataView(sizeField.buffer).setBigUint64(4, 8n * 2n ** 30n);
  const archive = concat([
    tarHeader({ name: "huge", sizeField }),
    latin1Bytes("only a little data"),
  ]);
  const started = performance.now();
  const generator = readTar(bytesStream(archive), LIMITS);
  const first = await generator.next();
  assert.ok(!first.done);
  assert.equal(first.value.entry.size, 8 * 2 ** 30);
  await assert.rejects(
    collect(first.value.body()),
    /truncated input \(entry "huge" declares 8589934592 bytes of data but the input ends after 18\)/,
  );
  await assert.rejects(generator.next(), /truncated/);
  assert.ok(performance.now() - started < 2000);
});

Deno.test("readTar() and readAr() stop at maxEntries", async () => {
  const blocks = Array.from({ length: 6 }, (_, i) => tarHeader({ name: `f${i}` }));
  await assert.rejects(
    (async () => {
      for await (
        const _ of readTar(bytesStream(concat([...blocks, TAR_END])), {
          maxEntries: 5,
          maxPathBytes: 100,
        })
      ) {
        // consume
      }
    })(),
    (error: unknown) =>
      error instanceof ArchiveLimitError && error.limit === "max_entries" && error.allowed === 5,
  );
  const header = (name: string): Uint8Array =>
    latin1Bytes(
      name.padEnd(16) + "0".padEnd(12) + "0".padEnd(6) + "0".padEnd(6) + "644".padEnd(8) +
        "0".padEnd(10) + "`\n",
    );
  await assert.rejects(
    listArWith(concat([latin1Bytes("!<arch>\n"), header("a/"), header("b/"), header("c/")]), {
      maxEntries: 2,
      maxPathBytes: 100,
    }),
    (error: unknown) => error instanceof ArchiveLimitError && error.limit === "max_entries",
  );
});

async function listArWith(
  bytes: Uint8Array,
  options: { maxEntries: number; maxPathBytes: number; maxHeaderBytes?: number },
): Promise<ArEntry[]> {
  const out: ArEntry[] = [];
  for await (const { entry } of readAr(bytesStream(bytes), options)) out.push(entry);
  return out;
}

Deno.test("readAr() rejects damaged GNU and BSD names and an oversized name table", async () => {
  const header = (name: string, size: number): Uint8Array =>
    latin1Bytes(
      name.padEnd(16) + "0".padEnd(12) + "0".padEnd(6) + "0".padEnd(6) + "644".padEnd(8) +
        String(size).padEnd(10) + "`\n",
    );
  const magic = latin1Bytes("!<arch>\n");
  await assert.rejects(
    listArWith(concat([magic, header("/40", 0)]), LIMITS),
    /outside the long-name table/,
  );
  await assert.rejects(
    listArWith(concat([magic, header("#1/50", 4), latin1Bytes("abcd")]), LIMITS),
    /BSD name is longer than the member/,
  );
  await assert.rejects(
    listArWith(concat([magic, header("//", 5_000_000)]), { ...LIMITS, maxHeaderBytes: 1 << 20 }),
    (error: unknown) => error instanceof ArchiveLimitError && error.limit === "max_header_bytes",
  );
  const bad = header("x", 3);
  bad[58] = 0x20;
  await assert.rejects(
    listArWith(concat([magic, bad, latin1Bytes("abc")]), LIMITS),
    /lacks its terminator at offset 66/,
  );
  await assert.rejects(listArWith(latin1Bytes("!<thin>\n"), LIMITS), /thin archive/);
});

Deno.test("readZipDirectory() rejects a 200-byte zip whose end record claims 65535 entries", async () => {
  const archive = zipArchive([{ name: "a", data: latin1Bytes("x".repeat(60)) }], {
    declaredEntries: 65535,
  });
  assert.ok(archive.byteLength < 200);
  await assert.rejects(
    within(
      1000,
      "65535 entries",
      readZipDirectory(memorySource(archive), { maxEntries: 100_000, maxPathBytes: 4096 }),
    ),
    (error: unknown) =>
      error instanceof ArchiveFormatError && /claims 65535 entries/.test(error.message),
  );
  await assert.rejects(
    readZipDirectory(memorySource(archive), { maxEntries: 1000, maxPathBytes: 4096 }),
    (error: unknown) =>
      error instanceof ArchiveLimitError && error.limit === "max_entries" &&
      error.observed === 65535,
  );
  await assert.rejects(readZipDirectory(memorySource(new Uint8Array(10)), LIMITS), /only 10 bytes/);
  await assert.rejects(
    readZipDirectory(memorySource(new Uint8Array(5000)), LIMITS),
    /no end-of-central-directory record/,
  );
});

Deno.test("readZipDirectory() reports entries whose local ranges overlap (two central entries, one local header)", async () => {
  const archive = zipArchive([
    { name: "real.txt", data: latin1Bytes("shared data"), method: 8 },
    { name: "real.txt", data: latin1Bytes("shared data"), method: 8, shareLocalWith: 0 },
    { name: "other.txt", data: latin1Bytes("separate") },
  ]);
  const source = memorySource(archive);
  const directory = await readZipDirectory(source, LIMITS);
  assert.deepEqual(directory.overlapping, [0, 1]);
  for (const entry of directory.entries.slice(0, 2)) {
    assert.equal(
      new TextDecoder().decode(await collect(zipEntryBody(source, entry, DECOMPRESS))),
      "shared data",
    );
  }
});

Deno.test("zipEntryBody() fails an entry that lies about its size or CRC, and marks a local header that disagrees", async () => {
  const data = latin1Bytes("the real content, 36 bytes long.....");
  const archive = zipArchive([
    { name: "smaller", data, method: 8, declaredUncompressed: 10 },
    { name: "larger", data, method: 8, declaredUncompressed: 1000 },
    { name: "stored-larger", data, declaredUncompressed: data.byteLength + 1 },
    { name: "crc", data, method: 8, declaredCrc: 0x12345678 },
    { name: "renamed", data, localName: "something-else" },
  ]);
  const source = memorySource(archive);
  const [smaller, larger, storedLarger, crc, renamed] =
    (await readZipDirectory(source, LIMITS)).entries;
  await assert.rejects(
    collect(zipEntryBody(source, smaller!, DECOMPRESS)),
    /lies about its size: it holds more than the 10 bytes declared/,
  );
  await assert.rejects(
    collect(zipEntryBody(source, larger!, DECOMPRESS)),
    /lies about its size: 1000 bytes declared, 36 found/,
  );
  await assert.rejects(
    collect(zipEntryBody(source, storedLarger!, DECOMPRESS)),
    /lies about its size/,
  );
  await assert.rejects(
    collect(zipEntryBody(source, crc!, DECOMPRESS)),
    /fails its CRC-32 check \(stored 0x12345678/,
  );
  assert.equal(renamed!.inconsistent, true);
  assert.match(renamed!.warnings.join("\n"), /local header names "something-else"/);
});

Deno.test("zipEntryBody() stops a 200 MB zip bomb by ratio and by output size", async () => {
  const zeros = new Uint8Array(200 * 2 ** 20);
  const archive = zipArchive([{ name: "bomb.bin", data: zeros, method: 8 }]);
  assert.ok(archive.byteLength < 300_000);
  const source = memorySource(archive);
  const [entry] = (await readZipDirectory(source, LIMITS)).entries;
  const consume = async (
    options: { maxOutputBytes: number; maxRatio: number },
  ): Promise<number> => {
    let seen = 0;
    for await (const chunk of zipEntryBody(source, entry!, options)) seen += chunk.byteLength;
    return seen;
  };
  const started = performance.now();
  await assert.rejects(
    consume({ maxOutputBytes: 2 ** 40, maxRatio: 100 }),
    (error: unknown) =>
      error instanceof ArchiveLimitError && error.limit === "max_compression_ratio" &&
      error.observed > 100,
  );
  await assert.rejects(
    consume({ maxOutputBytes: 10 * 2 ** 20, maxRatio: 1e9 }),
    (error: unknown) =>
      error instanceof ArchiveLimitError && error.limit === "max_entry_bytes" &&
      error.allowed === 10 * 2 ** 20,
  );
  assert.ok(performance.now() - started < 5000, "stopped early, not after inflating 200 MB");
  const bomb = gzipSync(zeros);
  await assert.rejects(
    collect(decompress("gzip", bytesStream(bomb), { maxOutputBytes: 2 ** 40, maxRatio: 50 })),
    (error: unknown) =>
      error instanceof ArchiveLimitError && error.limit === "max_compression_ratio",
  );
  await assert.rejects(
    collect(
      decompress("deflate-raw", bytesStream(deflateRawSync(zeros.subarray(0, 20 * 2 ** 20))), {
        maxOutputBytes: 5 * 2 ** 20,
        maxRatio: 1e9,
      }),
    ),
    (error: unknown) => error instanceof ArchiveLimitError && error.limit === "max_total_bytes",
  );
});

Deno.test("decompress() fails a gzip with a corrupt CRC and empty or foreign input with ArchiveFormatError", async () => {
  const good = gzipSync(latin1Bytes("some content\n".repeat(100)));
  const badCrc = good.slice();
  badCrc[badCrc.byteLength - 8] = badCrc[badCrc.byteLength - 8]! ^ 0xff;
  await assert.rejects(
    collect(decompress("gzip", bytesStream(badCrc), DECOMPRESS)),
    /Cannot read gzip: incorrect data check/,
  );
  for (const codec of ["gzip", "xz", "zstd"] as const) {
    await assert.rejects(
      collect(decompress(codec, bytesStream(new Uint8Array(0)), DECOMPRESS)),
      (error: unknown) =>
        error instanceof ArchiveFormatError && error.format === codec &&
        /empty input/.test(error.message),
    );
    await assert.rejects(
      collect(
        decompress(
          codec,
          bytesStream(latin1Bytes("plain text, not compressed at all")),
          DECOMPRESS,
        ),
      ),
      (error: unknown) => error instanceof ArchiveFormatError && error.format === codec,
    );
  }
});

function stalled(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => {}) });
}

Deno.test("decompress() and readTar() stop promptly with the signal's reason when aborted on stalled input", async () => {
  for (const codec of ["gzip", "xz", "zstd", "deflate-raw"] as Codec[]) {
    const controller = new AbortController();
    const reason = new Error(`stop ${codec}`);
    setTimeout(() => controller.abort(reason), 30);
    await assert.rejects(
      within(
        1000,
        codec,
        collect(decompress(codec, stalled(), { ...DECOMPRESS, signal: controller.signal })),
      ),
      (e) => e === reason,
    );
  }
  const controller = new AbortController();
  const reason = new Error("stop tar");
  setTimeout(() => controller.abort(reason), 30);
  await assert.rejects(
    within(1000, "tar", listTarWith(stalled(), controller.signal)),
    (e) => e === reason,
  );
  const arController = new AbortController();
  arController.abort(reason);
  await assert.rejects(
    within(
      1000,
      "ar",
      (async () => {
        for await (const _ of readAr(stalled(), { ...LIMITS, signal: arController.signal })) {
          // nothing
        }
      })(),
    ),
    (e) => e === reason,
  );
});

async function listTarWith(input: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<void> {
  for await (const { body } of readTar(input, { ...LIMITS, signal })) await collect(body());
}

Deno.test("readTar() over decompress() aborted mid-archive stops with the reason and cancels the input", async () => {
  const random = mulberry32(SEED + 5);
  const noise = Uint8Array.from({ length: 100_000 }, () => Math.floor(random() * 256));
  const files = Array.from(
    { length: 50 },
    (_, i) => [tarHeader({ name: `f${i}`, size: 100_000 }), tarData(noise)],
  ).flat();
  const compressed = gzipSync(concat([...files, TAR_END]));
  let cancelled = false;
  let at = 0;
  const input = new ReadableStream<Uint8Array>({
    pull(c): void {
      if (at >= compressed.byteLength) return c.close();
      c.enqueue(compressed.subarray(at, at + 1000));
      at += 1000;
    },
    cancel(): void {
      cancelled = true;
    },
  });
  const controller = new AbortController();
  const reason = new Error("enough");
  let seen = 0;
  await assert.rejects(
    within(
      3000,
      "abort mid-archive",
      (async () => {
        for await (
          const { body } of readTar(
            decompress("gzip", input, { ...DECOMPRESS, signal: controller.signal }),
            { ...LIMITS, signal: controller.signal },
          )
        ) {
          seen++;
          if (seen === 3) controller.abort(reason);
          await collect(body());
        }
      })(),
    ),
    (e) => e === reason,
  );
  assert.equal(seen, 3);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(cancelled, "the compressed input was cancelled");
  assert.ok(at < compressed.byteLength);
});

Deno.test("decompress() and readTar() pass an input stream's own error through unchanged", async () => {
  const failure = new ArchiveFormatError("outer", "the outer archive broke", 7);
  const failing = (): ReadableStream<Uint8Array> => {
    let sent = false;
    return new ReadableStream<Uint8Array>({
      pull(c): void {
        if (!sent) {
          sent = true;
          c.enqueue(gzipSync(new Uint8Array(100_000)).subarray(0, 100));
          return;
        }
        c.error(failure);
      },
    });
  };
  for (const codec of ["gzip", "xz", "zstd"] as const) {
    await assert.rejects(
      collect(decompress(codec, failing(), DECOMPRESS)),
      (e) => e === failure || isTyped(e),
    );
  }
  await assert.rejects(collect(decompress("gzip", failing(), DECOMPRESS)), (e) => e === failure);
  await assert.rejects(listTar(failing()), (e) => e === failure);
});
