/**
 * A push-driven bzip2 decoder over the block decoder of the
 * `unbzip2-stream` package (its `lib/bzip2.js` and `lib/bit_iterator.js`;
 * version pinned in `deno.json`). Like that package's own stream, it
 * decodes a block only once enough input is buffered for a whole block (and
 * a header once all four of its bytes are), so the bit reader never runs
 * dry before the input ends; concatenated streams (pbzip2, `cat a.bz2
 * b.bz2`) are decoded one after another and every block and stream CRC is
 * checked. After a complete stream, as `bzip2 -d` does: bytes that do not
 * open a stream header are ignored and reported once through `onWarning` at
 * the end of input (`bzip2 -t` warns "trailing garbage after EOF ignored"),
 * and input that ends inside a header is truncated. Output comes in pieces
 * of at most 256 KiB, and the output and ratio limits are checked while a
 * block is written, so one block (which run-length coding lets grow to tens
 * of MiB) never outgrows them.
 *
 * @module
 */

import bzip2Module from "unbzip2-stream/lib/bzip2.js";
import bitIteratorModule from "unbzip2-stream/lib/bit_iterator.js";
import { ArchiveFormatError, type ArchiveLimit, ArchiveLimitError } from "./errors.ts";

/** What the bzip2 decoder needs from the decompression options. */
export interface Bzip2Limits {
  maxOutputBytes: number;
  maxRatio: number;
  /** Output below this is never judged by ratio. */
  ratioFloorBytes: number;
  outputLimit: ArchiveLimit;
  /** Told once, at the end of input, about bytes after the last stream that were ignored. */
  onWarning?: (warning: string) => void;
}

/** The warning for `count` bytes after the last of `streams` bzip2 streams. */
export function trailingBytesWarning(count: number, streams: number): string {
  return `${count} byte(s) after the end of the last bzip2 stream (of ${streams}) start no other stream: ignored, as bzip2 -d ignores trailing garbage after EOF.`;
}

/** The decoder `decompress` drives: input pushed in, output pieces out. */
export interface Bzip2Decoder {
  /** Consumes all of `chunk`, yielding the blocks it completes. */
  push(chunk: Uint8Array): Iterator<Uint8Array>;
  /** Ends the input; yields the rest or throws when the input was incomplete. */
  finish(): Iterator<Uint8Array>;
  dispose(): void;
}

const PIECE = 256 * 1024;
/** A stream header byte by byte: `BZh` and a block size digit 1–9. */
const HEADER: ReadonlyArray<(byte: number) => boolean> = [
  (b) => b === 0x42,
  (b) => b === 0x5a,
  (b) => b === 0x68,
  (b) => b >= 0x31 && b <= 0x39,
];
/** Compressed bytes a block may need beyond its block size (the package's own margin). */
const BLOCK_MARGIN = 25000;

/** Reads `n` bits (or aligns to a byte on `null`); counts the bytes it started. */
interface BitReader {
  (n: number | null): number;
  bytesRead: number;
}

/** The package's block decoder (untyped CommonJS). */
const bzip2 = bzip2Module as unknown as {
  /** Reads a stream header; returns the block size (1–9, in 100 kB). */
  header(bits: BitReader): number;
  /** Decodes one block into `stream`; the running stream CRC, or null at a stream's end. */
  decompress(
    bits: BitReader,
    stream: (byte: number) => void,
    buf: Int32Array,
    bufsize: number,
    streamCrc: number | null,
  ): number | null;
};
/** The package's bit reader over a supply of buffers (untyped CommonJS). */
const bitIterator = bitIteratorModule as unknown as (
  next: () => Uint8Array | undefined,
) => BitReader;

/** Creates a decoder bounded by `limits`. */
export function createBzip2Decoder(limits: Bzip2Limits): Bzip2Decoder {
  const queue: Uint8Array[] = [];
  let buffered = 0;
  let bits: BitReader | null = null;
  let blockSize = 0;
  let streamCrc: number | null = null;
  let work: Int32Array | null = null;
  let output = 0;
  /** Streams decoded to their end marker. */
  let streams = 0;
  /** Bytes after the last stream that start no other stream. */
  let trailing = false;
  /** Input bytes up to the end of the last complete stream. */
  let streamsEnd = 0;
  /** The chunk the bit reader reads from, its input offset, and the bytes handed to it. */
  let current: Uint8Array | undefined;
  let currentStart = 0;
  let supplied = 0;
  const supply = (): Uint8Array | undefined => {
    const next = queue.shift();
    if (next !== undefined) {
      current = next;
      currentStart = supplied;
      supplied += next.byteLength;
    }
    return next;
  };
  /** Up to `count` input bytes from `offset` (not yet consumed), from the reader's chunk on. */
  const peek = (offset: number, count: number): number[] => {
    const bytes: number[] = [];
    let start = currentStart;
    for (const chunk of current === undefined ? queue : [current, ...queue]) {
      for (let i = Math.max(0, offset - start); i < chunk.byteLength; i++) {
        if (bytes.length === count) return bytes;
        bytes.push(chunk[i]!);
      }
      start += chunk.byteLength;
    }
    return bytes;
  };

  const consumed = (): number => bits?.bytesRead ?? 0;
  const fail = (error: unknown): never => {
    if (error instanceof ArchiveLimitError || error instanceof ArchiveFormatError) throw error;
    const reason = error instanceof TypeError
      ? "truncated input"
      : error instanceof Error
      ? error.message
      : String(error);
    throw new ArchiveFormatError("bzip2", reason, consumed());
  };

  /** Decodes one header or block; returns its output pieces. */
  function step(): Uint8Array[] {
    bits ??= bitIterator(supply);
    if (blockSize === 0) {
      if (streams > 0) {
        // After a complete stream, as bzip2 -d: bytes that do not open a stream header are
        // trailing garbage (ignored); input that ends inside one is a truncated stream.
        const head = peek(streamsEnd, HEADER.length);
        if (!head.every((byte, i) => HEADER[i]!(byte))) {
          trailing = true;
          return [];
        }
        if (head.length < HEADER.length) {
          throw new ArchiveFormatError(
            "bzip2",
            "truncated input (it ends inside a stream header)",
            streamsEnd,
          );
        }
      }
      blockSize = bzip2.header(bits);
      streamCrc = 0;
      return [];
    }
    const size = 100000 * blockSize;
    if (work === null || work.length !== size) work = new Int32Array(size);
    const pieces: Uint8Array[] = [];
    let piece = new Uint8Array(PIECE);
    let at = 0;
    const flush = (): void => {
      pieces.push(piece.subarray(0, at));
      output += at;
      if (output > limits.maxOutputBytes) {
        throw new ArchiveLimitError(
          limits.outputLimit,
          output,
          limits.maxOutputBytes,
          "bzip2 output",
        );
      }
      const input = Math.max(1, consumed());
      if (output > limits.ratioFloorBytes && output > limits.maxRatio * input) {
        throw new ArchiveLimitError(
          "max_compression_ratio",
          output / input,
          limits.maxRatio,
          "bzip2 output",
        );
      }
      piece = new Uint8Array(PIECE);
      at = 0;
    };
    const crc = bzip2.decompress(
      bits,
      (byte: number) => {
        piece[at++] = byte;
        if (at === PIECE) flush();
      },
      work,
      size,
      streamCrc,
    );
    if (at > 0) flush();
    if (crc === null) {
      // The stream's end marker: another stream (or the end of input) follows.
      blockSize = 0;
      streamCrc = null;
      streams++;
      streamsEnd = consumed();
    } else streamCrc = crc;
    return pieces;
  }

  /** One step, its errors turned into the archive errors callers expect. */
  const checkedStep = (): Uint8Array[] => {
    try {
      return step();
    } catch (error) {
      return fail(error);
    }
  };

  /** Whether enough input is buffered for the next step (a whole header, or a whole block). */
  const ready = (): boolean =>
    blockSize === 0
      ? buffered - consumed() >= HEADER.length
      : buffered - consumed() + 1 >= BLOCK_MARGIN + 100000 * blockSize;

  return {
    *push(chunk: Uint8Array): Generator<Uint8Array> {
      if (chunk.byteLength === 0) return;
      buffered += chunk.byteLength;
      if (trailing) return;
      queue.push(chunk);
      while (!trailing && ready()) yield* checkedStep();
    },
    *finish(): Generator<Uint8Array> {
      if (buffered === 0) throw new ArchiveFormatError("bzip2", "empty input", 0);
      while (!trailing && buffered > consumed()) yield* checkedStep();
      if (streamCrc !== null || blockSize !== 0) {
        throw new ArchiveFormatError("bzip2", "truncated input", consumed());
      }
      if (trailing) limits.onWarning?.(trailingBytesWarning(buffered - streamsEnd, streams));
    },
    dispose(): void {
      queue.length = 0;
      work = null;
    },
  };
}
