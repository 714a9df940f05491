/**
 * A push-driven bzip2 decoder over the block decoder of the
 * `unbzip2-stream` package (its `lib/bzip2.js` and `lib/bit_iterator.js`;
 * version pinned in `deno.json`). Like that package's own stream, it
 * decodes a block only once enough input is buffered for a whole block, so
 * the bit reader never runs dry before the input ends; concatenated streams
 * (pbzip2) are decoded one after another and every block and stream CRC is
 * checked; bytes after a complete stream that start no other are ignored,
 * as `bzip2 -d` ignores trailing garbage. Output comes in pieces of at most 256 KiB, and the output and
 * ratio limits are checked while a block is written, so one block (which
 * run-length coding lets grow to tens of MiB) never outgrows them.
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
    bits ??= bitIterator(() => queue.shift());
    if (blockSize === 0) {
      try {
        blockSize = bzip2.header(bits);
      } catch (error) {
        if (streams === 0) throw error;
        // Bytes after a complete stream that start no other: ignored, as bzip2 -d does.
        trailing = true;
        return [];
      }
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

  return {
    *push(chunk: Uint8Array): Generator<Uint8Array> {
      if (chunk.byteLength === 0 || trailing) return;
      queue.push(chunk);
      buffered += chunk.byteLength;
      while (
        !trailing &&
        buffered - consumed() + 1 >= (blockSize ? BLOCK_MARGIN + 100000 * blockSize : 4)
      ) {
        yield* checkedStep();
      }
    },
    *finish(): Generator<Uint8Array> {
      if (buffered === 0) throw new ArchiveFormatError("bzip2", "empty input", 0);
      while (!trailing && buffered > consumed()) yield* checkedStep();
      if (streamCrc !== null || blockSize !== 0) {
        throw new ArchiveFormatError("bzip2", "truncated input", consumed());
      }
    },
    dispose(): void {
      queue.length = 0;
      work = null;
    },
  };
}
