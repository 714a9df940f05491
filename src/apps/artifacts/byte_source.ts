/**
 * Byte access for the archive readers: {@linkcode ByteSource} gives random
 * access over a file or memory (zip reads its central directory from the end
 * and its members by offset), and {@linkcode ByteStreamReader} reads a
 * `ReadableStream` sequentially in exact amounts (tar and ar headers, bodies)
 * without ever waiting for bytes that cannot come.
 *
 * @module
 */

import type { VerifiedFile } from "../../core/roots.ts";
import { ArchiveFormatError } from "./errors.ts";

/** Largest chunk a {@linkcode ByteSource.stream} yields: 1 MiB. */
export const SOURCE_CHUNK_BYTES = 1 << 20;

/** Random access over a file or memory, used by zip and for sniffing. */
export interface ByteSource {
  /** Total size in bytes. */
  readonly size: number;
  /**
   * Reads `length` bytes at `offset`. The range must lie inside the source
   * (a `RangeError` otherwise). The returned bytes must not be modified.
   */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** Streaming read of a range, in chunks of at most 1 MiB. */
  stream(offset: number, length: number, signal?: AbortSignal): ReadableStream<Uint8Array>;
  /** Releases the source (closes the file). Further reads fail. Idempotent. */
  close(): void;
  /** The whole content, when the source holds it in memory. */
  readonly bytes?: Uint8Array;
}

function checkRange(size: number, offset: number, length: number): void {
  if (
    !Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 ||
    offset + length > size
  ) {
    throw new RangeError(
      `Cannot read bytes ${offset}..${offset + length}: the source holds ${size} bytes`,
    );
  }
}

/**
 * A stream over `length` bytes of `source` at `offset`, in chunks of at most
 * 1 MiB, reading one chunk ahead of the consumer. Throws a `RangeError` at
 * once for a range outside the source.
 */
export function rangeStream(
  source: ByteSource,
  offset: number,
  length: number,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  checkRange(source.size, offset, length);
  let position = offset;
  const end = offset + length;
  // One chunk is read ahead, so the next read overlaps whatever the consumer does with this one
  // (hashing, parsing) instead of following it.
  let ahead: Promise<Uint8Array> | null = null;
  const readNext = (): Promise<Uint8Array> | null => {
    if (position >= end) return null;
    const take = Math.min(SOURCE_CHUNK_BYTES, end - position);
    const pending = source.read(position, take);
    // A failure is reported when its chunk is pulled, not as an unhandled rejection before.
    pending.catch(() => {});
    position += take;
    return pending;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller): Promise<void> {
      signal?.throwIfAborted();
      const current = ahead ?? readNext();
      ahead = null;
      if (current === null) {
        controller.close();
        return;
      }
      const bytes = await current;
      signal?.throwIfAborted();
      ahead = readNext();
      controller.enqueue(bytes);
      if (ahead === null) controller.close();
    },
  }, { highWaterMark: 0 });
}

/**
 * A {@linkcode ByteSource} over bytes in memory. Reads return views of
 * `bytes` (no copy).
 *
 * @param bytes The whole content.
 * @returns The source.
 */
export function memorySource(bytes: Uint8Array): ByteSource {
  let closed = false;
  const source: ByteSource = {
    size: bytes.byteLength,
    bytes,
    read(offset: number, length: number): Promise<Uint8Array> {
      if (closed) return Promise.reject(new Error("Cannot read: the byte source is closed"));
      try {
        checkRange(bytes.byteLength, offset, length);
      } catch (error) {
        return Promise.reject(error);
      }
      return Promise.resolve(bytes.subarray(offset, offset + length));
    },
    stream(offset: number, length: number, signal?: AbortSignal): ReadableStream<Uint8Array> {
      return rangeStream(source, offset, length, signal);
    },
    close(): void {
      closed = true;
    },
  };
  return source;
}

/** Options of {@linkcode fileSource}. */
export interface FileSourceOptions {
  /**
   * Start reading the first chunk (up to 1 MiB) as soon as the file is open,
   * for a caller that opens files ahead of reading them; the first read, if
   * it asks for exactly that chunk, takes it.
   *
   * @default false
   */
  readFirstChunk?: boolean;
}

/**
 * A {@linkcode ByteSource} over a file, read with seek + read (the seek is
 * skipped when a read continues the previous one); concurrent reads are
 * serialised. The size is taken when the file is opened; a file
 * that shrinks afterwards makes reads fail with {@linkcode ArchiveFormatError}.
 *
 * Requires `--allow-read`.
 *
 * @param path The file to open.
 * @param options Whether to start reading at once.
 * @returns The source; call `close()` when done.
 */
export async function fileSource(
  path: string,
  options: FileSourceOptions = {},
): Promise<ByteSource> {
  const file = await Deno.open(path, { read: true });
  let size: number;
  try {
    size = (await file.stat()).size;
  } catch (error) {
    file.close();
    throw error;
  }
  // The file position after the last read (-1: unknown), so sequential reads skip the seek.
  let filePosition = 0;
  const readNow = async (offset: number, length: number): Promise<Uint8Array> => {
    const out = new Uint8Array(length);
    if (filePosition !== offset) {
      filePosition = -1;
      await file.seek(offset, Deno.SeekMode.Start);
      filePosition = offset;
    }
    let got = 0;
    while (got < length) {
      let n: number | null;
      try {
        n = await file.read(out.subarray(got));
      } catch (error) {
        filePosition = -1;
        throw error;
      }
      if (n === null) {
        filePosition = -1;
        throw new ArchiveFormatError(
          "file",
          `${path} ended early (it changed while being read)`,
          offset + got,
        );
      }
      got += n;
      filePosition += n;
    }
    return out;
  };
  return queuedSource(path, size, readNow, () => {
    try {
      file.close();
    } catch {
      // already closed
    }
  }, options);
}

/**
 * A {@linkcode ByteSource} over a file opened and verified by the root fence
 * (`RootFence.openFile`, `openVerified`): positional reads on the open
 * handle, so the bytes are those of the file that was verified, whatever
 * happens to its path afterwards. Closing the source closes the file.
 *
 * @param file The verified open file.
 * @param options Whether to start reading at once.
 * @returns The source.
 */
export function verifiedSource(file: VerifiedFile, options: FileSourceOptions = {}): ByteSource {
  const size = file.size;
  const readNow = async (offset: number, length: number): Promise<Uint8Array> => {
    const out = new Uint8Array(length);
    let got = 0;
    while (got < length) {
      const n = await file.read(out.subarray(got), offset + got);
      if (n === 0) {
        throw new ArchiveFormatError(
          "file",
          `${file.requestedPath} ended early (it changed while being read)`,
          offset + got,
        );
      }
      got += n;
    }
    return out;
  };
  return queuedSource(file.requestedPath, size, readNow, () => file.close(), options);
}

/**
 * A source over `readNow` (which reads exactly `length` bytes at `offset`):
 * reads run one at a time in call order, the first chunk may be read ahead,
 * and `close` runs once, after the reads already queued.
 */
function queuedSource(
  name: string,
  size: number,
  readNow: (offset: number, length: number) => Promise<Uint8Array>,
  close: () => void,
  options: FileSourceOptions,
): ByteSource {
  let queue: Promise<unknown> = Promise.resolve();
  let closing = false;
  let first: { length: number; bytes: Promise<Uint8Array> } | null = null;
  const source: ByteSource = {
    size,
    read(offset: number, length: number): Promise<Uint8Array> {
      try {
        checkRange(size, offset, length);
      } catch (error) {
        return Promise.reject(error);
      }
      if (first !== null) {
        const early = first;
        first = null;
        if (offset === 0 && length === early.length) return early.bytes;
      }
      const result = queue.then(() => {
        if (closing) throw new Error(`Cannot read ${name}: the byte source is closed`);
        return readNow(offset, length);
      });
      queue = result.catch(() => {});
      return result;
    },
    stream(offset: number, length: number, signal?: AbortSignal): ReadableStream<Uint8Array> {
      return rangeStream(source, offset, length, signal);
    },
    close(): void {
      if (closing) return;
      closing = true;
      queue.finally(close);
    },
  };
  if (options.readFirstChunk && size > 0) {
    const length = Math.min(size, SOURCE_CHUNK_BYTES);
    const bytes = source.read(0, length);
    // A failure is reported to the reader that takes the chunk.
    bytes.catch(() => {});
    first = { length, bytes };
  }
  return source;
}

/**
 * Sequential reads of exact amounts from a `ReadableStream`. End of input
 * never blocks: every method returns what was there. Views of the stream's
 * own chunks are returned where possible (no copy), so the stream must not
 * reuse its buffers. Aborting `signal` cancels the stream; pending and later
 * calls then reject with the signal's reason.
 */
export class ByteStreamReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #signal: AbortSignal | undefined;
  #chunk: Uint8Array = new Uint8Array(0);
  #chunkOffset = 0;
  #done = false;
  #position = 0;
  readonly #onAbort: () => void;

  /**
   * Takes the stream's reader (locks it).
   *
   * @param stream The bytes to read.
   * @param signal Cancels reading.
   */
  constructor(stream: ReadableStream<Uint8Array>, signal?: AbortSignal) {
    this.#reader = stream.getReader();
    this.#signal = signal;
    this.#onAbort = () => {
      this.#reader.cancel(signal?.reason).catch(() => {});
    };
    signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (signal?.aborted) this.#onAbort();
  }

  /** Bytes consumed so far (the offset of the next byte). */
  get position(): number {
    return this.#position;
  }

  async #fill(): Promise<boolean> {
    while (this.#chunkOffset >= this.#chunk.byteLength) {
      if (this.#done) return false;
      this.#signal?.throwIfAborted();
      const { done, value } = await this.#reader.read();
      this.#signal?.throwIfAborted();
      if (done) {
        this.#done = true;
        return false;
      }
      this.#chunk = value;
      this.#chunkOffset = 0;
    }
    return true;
  }

  /**
   * Reads up to `length` bytes; fewer only at end of input.
   *
   * @param length How many bytes.
   * @returns The bytes.
   */
  async read(length: number): Promise<Uint8Array> {
    if (!(await this.#fill())) return new Uint8Array(0);
    const available = this.#chunk.byteLength - this.#chunkOffset;
    if (available >= length) {
      const view = this.#chunk.subarray(this.#chunkOffset, this.#chunkOffset + length);
      this.#chunkOffset += length;
      this.#position += length;
      return view;
    }
    const out = new Uint8Array(length);
    let got = 0;
    while (got < length && (await this.#fill())) {
      const take = Math.min(length - got, this.#chunk.byteLength - this.#chunkOffset);
      out.set(this.#chunk.subarray(this.#chunkOffset, this.#chunkOffset + take), got);
      this.#chunkOffset += take;
      this.#position += take;
      got += take;
    }
    return got === length ? out : out.subarray(0, got);
  }

  /**
   * The next piece of input, at most `maxLength` bytes (a view, no copy), or
   * `null` at end of input.
   *
   * @param maxLength Largest piece wanted.
   * @returns The piece or `null`.
   */
  async readChunk(maxLength: number): Promise<Uint8Array | null> {
    if (maxLength <= 0) return new Uint8Array(0);
    if (!(await this.#fill())) return null;
    const take = Math.min(maxLength, this.#chunk.byteLength - this.#chunkOffset);
    const view = this.#chunk.subarray(this.#chunkOffset, this.#chunkOffset + take);
    this.#chunkOffset += take;
    this.#position += take;
    return view;
  }

  /**
   * Skips up to `length` bytes; fewer only at end of input.
   *
   * @param length How many bytes.
   * @returns How many were skipped.
   */
  async skip(length: number): Promise<number> {
    let skipped = 0;
    while (skipped < length && (await this.#fill())) {
      const take = Math.min(length - skipped, this.#chunk.byteLength - this.#chunkOffset);
      this.#chunkOffset += take;
      this.#position += take;
      skipped += take;
    }
    return skipped;
  }

  /**
   * Releases the stream: cancels it (when not yet at its end) and unlocks it.
   *
   * @param reason Passed to the stream's cancel.
   */
  async close(reason?: unknown): Promise<void> {
    this.#signal?.removeEventListener("abort", this.#onAbort);
    if (!this.#done) {
      this.#done = true;
      await this.#reader.cancel(reason).catch(() => {});
    }
    this.#chunk = new Uint8Array(0);
    this.#chunkOffset = 0;
    try {
      this.#reader.releaseLock();
    } catch {
      // a pending read keeps the lock; cancel already settled it
    }
  }
}

/**
 * The data of one sequential archive entry (tar, ar): `size` bytes read from
 * a {@linkcode ByteStreamReader} on demand, or skipped when the reader moves
 * on. Used by the entry readers; one instance per entry.
 */
export class EntryBody {
  readonly #reader: ByteStreamReader;
  readonly #size: number;
  readonly #name: string;
  readonly #truncated: (got: number) => Error;
  #remaining: number;
  #taken = false;
  #detached = false;
  #pending: Promise<void> = Promise.resolve();

  /**
   * Describes the data; nothing is read until {@linkcode EntryBody.stream} is pulled.
   *
   * @param reader The archive's reader, positioned at the data.
   * @param size Bytes of data.
   * @param name The entry's name, for messages.
   * @param truncated Makes the error for input that ends after `got` bytes of data.
   */
  constructor(
    reader: ByteStreamReader,
    size: number,
    name: string,
    truncated: (got: number) => Error,
  ) {
    this.#reader = reader;
    this.#size = size;
    this.#remaining = size;
    this.#name = name;
    this.#truncated = truncated;
  }

  /** The data as a stream (chunks of at most 1 MiB); may be called once. */
  stream(): ReadableStream<Uint8Array> {
    if (this.#taken) throw new Error(`Cannot read the data of ${this.#name} twice`);
    this.#taken = true;
    return new ReadableStream<Uint8Array>({
      pull: (controller): Promise<void> => {
        const step = (async () => {
          if (this.#detached) {
            throw new Error(`Cannot read ${this.#name}: the archive reader has moved past it`);
          }
          if (this.#remaining === 0) {
            controller.close();
            return;
          }
          const chunk = await this.#reader.readChunk(Math.min(this.#remaining, SOURCE_CHUNK_BYTES));
          if (chunk === null) throw this.#truncated(this.#size - this.#remaining);
          this.#remaining -= chunk.byteLength;
          controller.enqueue(chunk);
          if (this.#remaining === 0) controller.close();
        })();
        this.#pending = step.catch(() => {});
        return step;
      },
    }, { highWaterMark: 0 });
  }

  /**
   * The whole data at once, for a small entry: one read, no stream (a view of
   * the reader's chunk when the data lies in one). Returns what was there and,
   * when the input ended first, the error the stream would have failed with.
   * May be called once, instead of {@linkcode EntryBody.stream}.
   */
  async whole(): Promise<{ bytes: Uint8Array; error: Error | null }> {
    if (this.#taken) throw new Error(`Cannot read the data of ${this.#name} twice`);
    this.#taken = true;
    const read = this.#reader.read(this.#remaining);
    this.#pending = read.then(() => {}, () => {});
    let bytes: Uint8Array;
    try {
      bytes = await read;
    } catch (error) {
      // The input itself failed (a damaged compressed stream, a cancelled scan): as a stream
      // would have, the entry reports it; nothing of it counts as read.
      return { bytes: new Uint8Array(0), error: error as Error };
    }
    this.#remaining -= bytes.byteLength;
    return {
      bytes,
      error: this.#remaining === 0 ? null : this.#truncated(this.#size - this.#remaining),
    };
  }

  /** Waits for a read in progress, then skips the unread rest (throws when the input ends first). */
  async finish(): Promise<void> {
    await this.#pending;
    this.#detached = true;
    if (this.#remaining === 0) return;
    const want = this.#remaining;
    const skipped = await this.#reader.skip(want);
    this.#remaining -= skipped;
    if (skipped < want) throw this.#truncated(this.#size - this.#remaining);
  }
}
