import assert from "node:assert/strict";
import { join } from "node:path";
import { EntryBody, SOURCE_CHUNK_BYTES } from "../src/apps/artifacts/byte_source.ts";
import { IntegrityFailure, scanArtifact } from "../src/apps/artifacts/scan.ts";
import { type ArtifactSnapshot, DEFAULT_LIMITS } from "../src/apps/artifacts/model.ts";
import { concat, sha256, TAR_END, tarData, tarHeader } from "./helpers/archives.ts";

/** Member data of `size` bytes, different for each `seed`. */
function data(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + seed * 7) & 0xff;
  return out;
}

/** Writes `bytes` as a tar file and scans it. */
async function scanTar(bytes: Uint8Array): Promise<ArtifactSnapshot> {
  const dir = await Deno.makeTempDir({ prefix: "casefile-small-members-" });
  try {
    const path = join(dir, "members.tar");
    await Deno.writeFile(path, bytes);
    return await scanArtifact({ kind: "file", realPath: path, name: "members.tar" }, {
      limits: DEFAULT_LIMITS,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

// Sizes around the source's 1 MiB chunks: the second member straddles a chunk boundary, the
// third is exactly one chunk (still read whole), the fourth one byte more (streamed).
const SIZES = [700 * 1024, 700 * 1024, SOURCE_CHUNK_BYTES, SOURCE_CHUNK_BYTES + 1, 10, 0];

Deno.test("scan: members read whole or streamed get the SHA-256 and size of their data", async () => {
  const members = SIZES.map((size, i) => ({ name: `m${i}.bin`, bytes: data(size, i) }));
  const tar = concat([
    ...members.flatMap((m) => [
      tarHeader({ name: m.name, size: m.bytes.byteLength }),
      tarData(m.bytes),
    ]),
    TAR_END,
  ]);
  const snapshot = await scanTar(tar);
  assert.equal(snapshot.manifest.complete, true);
  for (const member of members) {
    const found = snapshot.occurrences.find((o) => o.logical_path === member.name);
    assert.ok(found, member.name);
    assert.equal(found.sha256, sha256(member.bytes), member.name);
    assert.equal(found.size, member.bytes.byteLength, member.name);
    assert.equal(found.hash_status, "verified");
  }
  assert.equal(snapshot.occurrences.find((o) => o.logical_path === ".")!.sha256, sha256(tar));
});

Deno.test("scan: small archive members are read whole, without a stream per member", async () => {
  const members = Array.from({ length: 40 }, (_, i) => data(100 + i, i));
  const tar = concat([
    ...members.flatMap((bytes, i) => [
      tarHeader({ name: `f${i}.txt`, size: bytes.byteLength }),
      tarData(bytes),
    ]),
    tarHeader({ name: "big.bin", size: SOURCE_CHUNK_BYTES + 1 }),
    tarData(data(SOURCE_CHUNK_BYTES + 1, 99)),
    TAR_END,
  ]);
  const stream = EntryBody.prototype.stream;
  let streams = 0;
  EntryBody.prototype.stream = function (this: EntryBody): ReadableStream<Uint8Array> {
    streams++;
    return stream.call(this);
  };
  try {
    const snapshot = await scanTar(tar);
    assert.equal(snapshot.occurrences.length, 42);
  } finally {
    EntryBody.prototype.stream = stream;
  }
  assert.equal(streams, 1, "only the member larger than a chunk was streamed");
});

Deno.test("scan: an archive cut inside a small member records it as not fully read", async () => {
  const first = data(3000, 1);
  const cut = data(5000, 2);
  const tar = concat([
    tarHeader({ name: "whole.bin", size: first.byteLength }),
    tarData(first),
    tarHeader({ name: "cut.bin", size: cut.byteLength }),
    cut.subarray(0, 1200),
  ]);
  const snapshot = await scanTar(tar);
  assert.equal(snapshot.manifest.complete, false);
  const whole = snapshot.occurrences.find((o) => o.logical_path === "whole.bin")!;
  assert.equal(whole.sha256, sha256(first));
  const partial = snapshot.occurrences.find((o) => o.logical_path === "cut.bin")!;
  assert.equal(partial.sha256, null);
  assert.equal(partial.size, null);
  assert.equal(partial.hash_status, "unavailable");
  assert.ok(
    partial.limitations.some((l) => /not fully read.*truncated input/i.test(l)),
    partial.limitations.join("; "),
  );
  // What was there was still read for its kind: the head of the data, not nothing.
  assert.equal(partial.content_kind, "data");
});

/** A .tar.gz of `members` (gzipped by node:zlib), written to a temporary directory and scanned after `damage`. */
async function scanTarGz(
  members: { name: string; bytes: Uint8Array }[],
  damage: (gz: Uint8Array) => Uint8Array,
  continueOnIntegrity?: { maxMismatches: number },
): Promise<{ snapshot: ArtifactSnapshot; gzipTest: string | null }> {
  const { gzipSync } = await import("node:zlib");
  const tar = concat([
    ...members.flatMap((m) => [
      tarHeader({ name: m.name, size: m.bytes.byteLength }),
      tarData(m.bytes),
    ]),
    TAR_END,
  ]);
  const gz = damage(new Uint8Array(gzipSync(tar)));
  const dir = await Deno.makeTempDir({ prefix: "casefile-small-members-" });
  try {
    const path = join(dir, "members.tar.gz");
    await Deno.writeFile(path, gz);
    // What gzip -t says of the same bytes, when gzip is here.
    let gzipTest: string | null = null;
    try {
      const out = await new Deno.Command("gzip", { args: ["-t", path], stderr: "piped" }).output();
      gzipTest = out.success ? "ok" : new TextDecoder().decode(out.stderr);
    } catch {
      gzipTest = null;
    }
    const snapshot = await scanArtifact({ kind: "file", realPath: path, name: "members.tar.gz" }, {
      limits: DEFAULT_LIMITS,
      ...(continueOnIntegrity ? { continueOnIntegrity } : {}),
    });
    return { snapshot, gzipTest };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** `size` bytes that do not compress, so a member spans its share of the gzip stream. */
function noise(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < out.length; i += 65_536) {
    crypto.getRandomValues(out.subarray(i, Math.min(out.length, i + 65_536)));
  }
  return out;
}

Deno.test("scan: a compressed stream cut inside a small member lists the member as not fully read and keeps the one before", async () => {
  const first = noise(50_000);
  const cut = noise(200_000);
  const { snapshot, gzipTest } = await scanTarGz(
    [{ name: "first.bin", bytes: first }, { name: "cut.bin", bytes: cut }],
    // Cut halfway through the second member's share of the stream.
    (gz) => gz.subarray(0, Math.floor(gz.length * 0.6)),
  );
  if (gzipTest !== null) assert.match(gzipTest, /unexpected end of file/);
  assert.equal(snapshot.manifest.complete, false);
  const whole = snapshot.occurrences.find((o) => o.logical_path === "members.tar/first.bin");
  assert.ok(whole, snapshot.occurrences.map((o) => o.logical_path).join(", "));
  // A cut stream says nothing against the bytes decoded before the cut.
  assert.equal(whole.sha256, sha256(first));
  assert.equal(whole.hash_status, "verified");
  const member = snapshot.occurrences.find((o) => o.logical_path === "members.tar/cut.bin");
  assert.ok(member, snapshot.occurrences.map((o) => o.logical_path).join(", "));
  assert.equal(member.sha256, null);
  assert.equal(member.hash_status, "unavailable");
  assert.ok(
    member.limitations.some((l) => /not fully read/i.test(l)),
    member.limitations.join("; "),
  );
});

for (
  const [what, at, reason] of [
    ["CRC-32", 8, /incorrect data check/],
    ["length", 4, /incorrect length check/],
  ] as const
) {
  Deno.test(`scan: members read before a gzip trailer's ${what} check fails are mismatched, not verified, as gzip -t fails the stream`, async () => {
    const first = noise(50_000);
    const second = noise(200_000);
    const members = [{ name: "first.bin", bytes: first }, { name: "second.bin", bytes: second }];
    // The trailer's check value no longer matches the (intact) data it covers.
    const damage = (gz: Uint8Array): Uint8Array => {
      gz[gz.length - at] = gz[gz.length - at]! ^ 0x01;
      return gz;
    };
    // A failed check is an integrity contradiction: it fails the scan unless recording is allowed.
    await assert.rejects(scanTarGz(members, damage), IntegrityFailure);
    const { snapshot, gzipTest } = await scanTarGz(members, damage, { maxMismatches: 10 });
    if (gzipTest !== null) assert.match(gzipTest, /crc error|length error/);
    assert.equal(snapshot.manifest.complete, false);
    assert.deepEqual(
      snapshot.integrity_contradictions.map((c) => [c.logical_path, c.check]),
      [["members.tar", what === "length" ? "gzip-isize" : "gzip-crc32"]],
    );
    for (const [name, bytes] of [["first.bin", first], ["second.bin", second]] as const) {
      const member = snapshot.occurrences.find((o) => o.logical_path === `members.tar/${name}`);
      assert.ok(member, snapshot.occurrences.map((o) => o.logical_path).join(", "));
      // The digest of the bytes as decoded, but not confirmed by the check that failed.
      assert.equal(member.sha256, sha256(bytes));
      assert.equal(member.hash_status, "mismatched");
      assert.ok(
        member.limitations.some((l) => /failed its integrity check/.test(l) && reason.test(l)),
        member.limitations.join("; "),
      );
    }
    const tar = snapshot.occurrences.find((o) => o.logical_path === "members.tar")!;
    assert.ok(tar.limitations.some((l) => /2 member\(s\) read before the failed check/.test(l)));
  });
}
