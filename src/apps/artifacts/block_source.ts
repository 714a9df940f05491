/**
 * A stream held in memory as fixed 1 MiB blocks, for the one reader that
 * needs random access to a member it can only stream: a zip inside another
 * archive or a compressed stream (its central directory is at the end). The
 * blocks are filled by copying, so the memory held is the member's size
 * rounded up to a block, never twice it (no joining copy) and never the
 * larger buffers a chunk may be a view of.
 *
 * @module
 */

import { type ByteSource, rangeStream, SOURCE_CHUNK_BYTES } from "./byte_source.ts";

const BLOCK_BYTES = SOURCE_CHUNK_BYTES;

/** Thrown by {@linkcode collectBlocks} when the stream holds more than its limit. */
export class TooLargeToHold extends Error {
  /** Bytes seen when collecting stopped (more than the limit). */
  readonly observed: number;

  constructor(observed: number, limit: number) {
    super(`more than ${limit} bytes`);
    this.name = "TooLargeToHold";
    this.observed = observed;
  }
}

/**
 * Reads `stream` into 1 MiB blocks and returns a random-access source over
 * them. Throws {@linkcode TooLargeToHold} as soon as more than `limit` bytes
 * have arrived (the blocks collected so far are dropped); the stream is left
 * where it stopped, for the caller to drain or cancel.
 */
export async function collectBlocks(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<ByteSource> {
  const blocks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (size + value.length > limit) {
        blocks.length = 0;
        throw new TooLargeToHold(size + value.length, limit);
      }
      let at = 0;
      while (at < value.length) {
        const inBlock = size % BLOCK_BYTES;
        if (inBlock === 0) blocks.push(new Uint8Array(Math.min(BLOCK_BYTES, limit - size)));
        const take = Math.min(value.length - at, BLOCK_BYTES - inBlock);
        blocks[blocks.length - 1]!.set(value.subarray(at, at + take), inBlock);
        at += take;
        size += take;
      }
    }
  } finally {
    reader.releaseLock();
  }
  return blocksSource(blocks, size);
}

/** A source over `size` bytes laid out in full 1 MiB blocks (the last one partly used). */
function blocksSource(blocks: Uint8Array[], size: number): ByteSource {
  let closed = false;
  const read = (offset: number, length: number): Promise<Uint8Array> => {
    if (closed) return Promise.reject(new Error("Cannot read: the byte source is closed"));
    if (
      !Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 ||
      length < 0 || offset + length > size
    ) {
      return Promise.reject(
        new RangeError(
          `Cannot read bytes ${offset}..${offset + length}: the source holds ${size} bytes`,
        ),
      );
    }
    const first = Math.floor(offset / BLOCK_BYTES);
    const inFirst = offset % BLOCK_BYTES;
    if (inFirst + length <= BLOCK_BYTES) {
      return Promise.resolve(
        blocks[first]?.subarray(inFirst, inFirst + length) ?? new Uint8Array(),
      );
    }
    const out = new Uint8Array(length);
    let got = 0;
    while (got < length) {
      const at = offset + got;
      const block = blocks[Math.floor(at / BLOCK_BYTES)]!;
      const inBlock = at % BLOCK_BYTES;
      const take = Math.min(length - got, BLOCK_BYTES - inBlock);
      out.set(block.subarray(inBlock, inBlock + take), got);
      got += take;
    }
    return Promise.resolve(out);
  };
  const source: ByteSource = {
    size,
    read,
    stream(offset: number, length: number, signal?: AbortSignal): ReadableStream<Uint8Array> {
      return rangeStream(source, offset, length, signal);
    },
    close(): void {
      closed = true;
      blocks.length = 0;
    },
  };
  return source;
}
