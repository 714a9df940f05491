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
import { tarHeader, zipCentralHeader, zipEndRecord, zipLocalHeader } from "./archives.ts";

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

/** A stored zip whose one entry, `zeros.bin`, is `dataBytes` zeros (under 4 GiB: no zip64). */
export function storedZipOfZeros(dataBytes: number): StoredZip {
  const name = new TextEncoder().encode("zeros.bin");
  const zeros = new Uint8Array(CHUNK);
  let crc = 0;
  for (let left = dataBytes; left > 0; left -= CHUNK) {
    crc = crc32(left >= CHUNK ? zeros : zeros.subarray(0, left), crc);
  }
  const header = { name, crc, compressedSize: dataBytes, uncompressedSize: dataBytes };
  const local = zipLocalHeader(header);
  const central = zipCentralHeader(header);
  const end = zipEndRecord(1, { size: central.length, offset: local.length + dataBytes });
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
