/**
 * Test helper: writes, at run time and without holding them in memory,
 * gzipped inputs whose content is a large stored (uncompressed) zip of
 * zeros: a `.tar.gz` holding the zip as a member (its size declared by the
 * tar header) or a `.zip.gz` (its size known only once it has all streamed).
 * The bytes are generated chunk by chunk and gzipped on the way to the file,
 * so a few hundred MB of zip become a few hundred KB on disk.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { tarHeader } from "./archives.ts";

const CHUNK = 1 << 20;

/** A large stored zip, as pieces generated on demand. */
export interface StoredZip {
  /** Total bytes of the zip. */
  size: number;
  /** SHA-256 of the zip, hex. */
  sha256: string;
  /** The zip's bytes, piece by piece (the zeros piece is reused: do not modify it). */
  pieces(): Generator<Uint8Array>;
}

function u16(view: DataView, at: number, value: number): void {
  view.setUint16(at, value, true);
}

function u32(view: DataView, at: number, value: number): void {
  view.setUint32(at, value >>> 0, true);
}

/** A stored zip whose one entry, `zeros.bin`, is `dataBytes` zeros (under 4 GiB: no zip64). */
export function storedZipOfZeros(dataBytes: number): StoredZip {
  const name = new TextEncoder().encode("zeros.bin");
  const zeros = new Uint8Array(CHUNK);
  let crc = 0;
  for (let left = dataBytes; left > 0; left -= CHUNK) {
    crc = crc32(left >= CHUNK ? zeros : zeros.subarray(0, left), crc);
  }
  const local = new Uint8Array(30 + name.length);
  const l = new DataView(local.buffer);
  u32(l, 0, 0x04034b50);
  u16(l, 4, 20);
  u32(l, 14, crc);
  u32(l, 18, dataBytes);
  u32(l, 22, dataBytes);
  u16(l, 26, name.length);
  local.set(name, 30);
  const central = new Uint8Array(46 + name.length);
  const c = new DataView(central.buffer);
  u32(c, 0, 0x02014b50);
  u16(c, 4, 20);
  u16(c, 6, 20);
  u32(c, 16, crc);
  u32(c, 20, dataBytes);
  u32(c, 24, dataBytes);
  u16(c, 28, name.length);
  central.set(name, 46);
  const end = new Uint8Array(22);
  const e = new DataView(end.buffer);
  u32(e, 0, 0x06054b50);
  u16(e, 8, 1);
  u16(e, 10, 1);
  u32(e, 12, central.length);
  u32(e, 16, local.length + dataBytes);
  const pieces = function* (): Generator<Uint8Array> {
    yield local;
    for (let left = dataBytes; left > 0; left -= CHUNK) {
      yield left >= CHUNK ? zeros : zeros.subarray(0, left);
    }
    yield central;
    yield end;
  };
  const hash = createHash("sha256");
  for (const piece of pieces()) hash.update(piece);
  return {
    size: local.length + dataBytes + central.length + end.length,
    sha256: hash.digest("hex"),
    pieces,
  };
}

async function writeGzipped(path: string, pieces: Iterable<Uint8Array>): Promise<void> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const gzip = new CompressionStream("gzip");
  const input = ReadableStream.from(pieces) as ReadableStream<BufferSource>;
  await input.pipeThrough(gzip).pipeTo(file.writable);
}

/** Writes `path`: a gzipped tar whose one member, `big.zip`, is `zip`. */
export async function writeTarGzOf(path: string, zip: StoredZip): Promise<void> {
  await writeGzipped(
    path,
    (function* (): Generator<Uint8Array> {
      yield tarHeader({ name: "big.zip", size: zip.size });
      yield* zip.pieces();
      yield new Uint8Array((512 - (zip.size % 512)) % 512 + 1024);
    })(),
  );
}

/** Writes `path`: `zip` gzipped (a `.zip.gz`). */
export async function writeZipGzOf(path: string, zip: StoredZip): Promise<void> {
  await writeGzipped(path, zip.pieces());
}
