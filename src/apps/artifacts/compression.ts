/**
 * Streaming decompression for the artifact readers: gzip (multi-member,
 * trailing garbage ignored as `gzip -d` ignores it) through its own member
 * walker over `node:zlib`'s raw inflate, raw deflate through `node:zlib`, zstd (concatenated and skippable frames)
 * through `node:zlib`'s zstd decoder driven frame by frame, and xz
 * (concatenated streams, stream padding) through the xz-embedded WebAssembly
 * build of the `xz-decompress` package, and bzip2 (concatenated streams)
 * through the block decoder of the `unbzip2-stream` package.
 *
 * Every decoder is bounded: output is produced in pieces of at most 256 KiB,
 * `maxOutputBytes` and `maxRatio` stop archive bombs with
 * {@linkcode ArchiveLimitError}, damaged or truncated input ends the stream
 * with {@linkcode ArchiveFormatError} (never a wait), and aborting the signal
 * stops reading with the signal's reason.
 *
 * @module
 */

import { constants as zlibConstants, createInflateRaw, createZstdDecompress } from "node:zlib";
import xzModule from "xz-decompress";
import { ArchiveFormatError, type ArchiveLimit, ArchiveLimitError } from "./errors.ts";
import { createBzip2Decoder } from "./bzip2_decoder.ts";
import { createGzipDecoder } from "./gzip_decoder.ts";
import { syncZlibOf } from "./zlib_handle.ts";

/** The compressed-stream formats that {@linkcode detectCompression} recognises. */
export type Compression = "gzip" | "xz" | "zstd" | "bzip2";

/** What {@linkcode decompress} decodes: the stream formats plus raw deflate (zip members). */
export type Codec = Compression | "deflate-raw";

/**
 * The stream format named by the first bytes, or `null`.
 *
 * @param head The first bytes (6 are enough).
 * @returns The format, or `null` when none matches.
 */
export function detectCompression(head: Uint8Array): Compression | null {
  const b = (i: number): number => head[i] ?? -1;
  if (b(0) === 0x1f && b(1) === 0x8b) return "gzip";
  if (
    b(0) === 0xfd && b(1) === 0x37 && b(2) === 0x7a && b(3) === 0x58 && b(4) === 0x5a &&
    b(5) === 0x00
  ) return "xz";
  if (b(0) === 0x28 && b(1) === 0xb5 && b(2) === 0x2f && b(3) === 0xfd) return "zstd";
  // A zstd stream may open with a skippable frame (magic 0x184D2A50..5F).
  if ((b(0) & 0xf0) === 0x50 && b(1) === 0x2a && b(2) === 0x4d && b(3) === 0x18) return "zstd";
  if (b(0) === 0x42 && b(1) === 0x5a && b(2) === 0x68 && b(3) >= 0x31 && b(3) <= 0x39) {
    return "bzip2";
  }
  return null;
}

/** Limits and cancellation for {@linkcode decompress}. */
export interface DecompressOptions {
  /** Most decompressed bytes allowed; more raises {@linkcode ArchiveLimitError}. */
  maxOutputBytes: number;
  /**
   * Largest allowed ratio of output to input consumed so far, checked once
   * output passes 1 MiB.
   */
  maxRatio: number;
  /** Stops decoding with the signal's reason. */
  signal?: AbortSignal;
  /**
   * The limit name reported when `maxOutputBytes` is exceeded.
   * @default {"max_total_bytes"}
   */
  outputLimit?: "max_entry_bytes" | "max_total_bytes";
  /**
   * Told about an oddity that does not stop decoding (bytes after the last
   * bzip2 stream or gzip member that start no other, which are ignored),
   * once, at the end.
   */
  onWarning?: (warning: string) => void;
}

/** Output below this is never judged by ratio (small files compress very well). */
export const RATIO_FLOOR_BYTES = 1 << 20;
const OUT_CHUNK = 256 * 1024;
const ZLIB_CHUNK = 64 * 1024;

/**
 * Streams the decompressed bytes of `input`.
 *
 * Errors surface from the returned stream: {@linkcode ArchiveFormatError} on
 * corrupt or truncated input,
 * {@linkcode ArchiveLimitError} when output exceeds `maxOutputBytes` or,
 * past 1 MiB of output, output / input consumed exceeds `maxRatio`.
 * Multi-member gzip and concatenated xz / zstd / bzip2 streams are decoded fully.
 * Cancelling the returned stream cancels `input`.
 *
 * @param kind The format of `input`.
 * @param input Compressed bytes.
 * @param options Limits and cancellation.
 * @returns The decompressed bytes.
 */
export function decompress(
  kind: Codec,
  input: ReadableStream<Uint8Array>,
  options: DecompressOptions,
): ReadableStream<Uint8Array> {
  switch (kind) {
    case "gzip":
      return syncDecoderStream(
        "gzip",
        () => createGzipDecoder({ onWarning: options.onWarning }),
        input,
        options,
      );
    case "deflate-raw":
      return zlibStream(
        "deflate",
        () => createInflateRaw({ chunkSize: ZLIB_CHUNK }),
        input,
        options,
      );
    case "xz":
      return syncDecoderStream("xz", createXzDecoder, input, options);
    case "zstd":
      return syncDecoderStream("zstd", createZstdDecoder, input, options);
    case "bzip2":
      return syncDecoderStream(
        "bzip2",
        () =>
          createBzip2Decoder({
            maxOutputBytes: options.maxOutputBytes,
            maxRatio: options.maxRatio,
            ratioFloorBytes: RATIO_FLOOR_BYTES,
            outputLimit: options.outputLimit ?? "max_total_bytes",
            onWarning: options.onWarning,
          }),
        input,
        options,
      );
  }
}

// ---------------------------------------------------------------------------
// Limits, cancellation and error mapping shared by every decoder

function isZlibError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === "string" && code.startsWith("Z_");
}

function toFormatError(format: string, error: unknown, offset: number | null): unknown {
  if (error instanceof ArchiveFormatError || error instanceof ArchiveLimitError) return error;
  if (isZlibError(error)) {
    const reason = error.code === "Z_BUF_ERROR"
      ? `truncated input (${error.message})`
      : error.message;
    return new ArchiveFormatError(format, reason, offset, { cause: error });
  }
  return error;
}

interface Pump {
  /** The next output piece, or `null` at the end. */
  next(): Promise<Uint8Array | null>;
  /** Compressed bytes consumed so far. */
  inputBytes(): number;
  /** Releases the decoder and cancels the input. Idempotent. */
  dispose(reason: unknown): void;
  /** Maps a decoder error to the reported one. */
  mapError(error: unknown): unknown;
}

const finalizer = new FinalizationRegistry<(reason: unknown) => void>((dispose) => {
  dispose(new Error("decompressed stream was dropped unread"));
});

function guardedStream(
  format: string,
  pump: Pump,
  options: DecompressOptions,
): ReadableStream<Uint8Array> {
  const limitName: ArchiveLimit = options.outputLimit ?? "max_total_bytes";
  const signal = options.signal;
  let output = 0;
  let done = false;
  let onAbort: (() => void) | null = null;
  const token = {};
  const finish = (reason: unknown): void => {
    if (done) return;
    done = true;
    finalizer.unregister(token);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    pump.dispose(reason);
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller): void {
      if (!signal) return;
      onAbort = () => {
        try {
          controller.error(signal.reason);
        } catch {
          // already closed
        }
        finish(signal.reason);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    },
    async pull(controller): Promise<void> {
      try {
        signal?.throwIfAborted();
        while (true) {
          const chunk = await pump.next();
          signal?.throwIfAborted();
          if (chunk === null) {
            finish(undefined);
            controller.close();
            return;
          }
          if (chunk.byteLength === 0) continue;
          output += chunk.byteLength;
          if (output > options.maxOutputBytes) {
            throw new ArchiveLimitError(
              limitName,
              output,
              options.maxOutputBytes,
              `${format} output`,
            );
          }
          const consumed = Math.max(1, pump.inputBytes());
          if (output > RATIO_FLOOR_BYTES && output > options.maxRatio * consumed) {
            throw new ArchiveLimitError(
              "max_compression_ratio",
              output / consumed,
              options.maxRatio,
              `${format} output`,
            );
          }
          controller.enqueue(chunk);
          return;
        }
      } catch (error) {
        const reported = signal?.aborted ? signal.reason : pump.mapError(error);
        finish(reported);
        throw reported;
      }
    },
    cancel(reason): void {
      finish(reason);
    },
  }, { highWaterMark: 0 });
  finalizer.register(stream, (reason) => pump.dispose(reason), token);
  return stream;
}

// ---------------------------------------------------------------------------
// node:zlib streams (gzip, raw deflate)

/** The parts of a node:zlib transform this reader uses. */
interface ZlibTransform {
  write(chunk: Uint8Array): boolean;
  end(): void;
  pause(): void;
  resume(): void;
  destroy(error?: Error): void;
  on(event: "data", listener: (chunk: Uint8Array) => void): void;
  on(event: "end" | "drain" | "close", listener: () => void): void;
  on(event: "error", listener: (error: Error) => void): void;
  off(event: string, listener: (...args: never[]) => void): void;
}

/** Most decoded pieces queued before the decoder is paused. */
const QUEUED_PIECES = 4;

function zlibStream(
  format: string,
  create: () => unknown,
  input: ReadableStream<Uint8Array>,
  options: DecompressOptions,
): ReadableStream<Uint8Array> {
  let z: ZlibTransform | null = null;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  const queue: Uint8Array[] = [];
  let ended = false;
  let failure: unknown = null;
  let inputError: unknown = null;
  let inputBytes = 0;
  let disposed = false;
  let wake: (() => void) | null = null;
  const notify = (): void => {
    const resume = wake;
    wake = null;
    resume?.();
  };
  const waitFor = (events: ("drain" | "close" | "error")[]): Promise<void> =>
    new Promise<void>((resolve) => {
      const done = (): void => {
        for (const event of events) z!.off(event, done);
        resolve();
      };
      for (const event of events) z!.on(event as "drain", done);
    });
  const feed = async (): Promise<void> => {
    try {
      while (!disposed) {
        const { done, value } = await reader!.read();
        if (disposed || failure !== null) return;
        if (done) {
          if (inputBytes === 0) {
            failure ??= new ArchiveFormatError(format, "empty input", 0);
            notify();
            return;
          }
          z!.end();
          return;
        }
        inputBytes += value.byteLength;
        if (!z!.write(value)) await waitFor(["drain", "close", "error"]);
      }
    } catch (error) {
      if (disposed) return;
      inputError = error;
      failure ??= error;
      z?.destroy();
      notify();
    }
  };
  const start = (): void => {
    z = create() as ZlibTransform;
    reader = input.getReader();
    z.on("data", (chunk) => {
      if (disposed) return;
      queue.push(chunk);
      if (queue.length >= QUEUED_PIECES) z!.pause();
      notify();
    });
    z.on("end", () => {
      ended = true;
      notify();
    });
    z.on("error", (error) => {
      failure ??= error;
      notify();
    });
    feed();
  };
  return guardedStream(format, {
    async next(): Promise<Uint8Array | null> {
      if (z === null) start();
      while (true) {
        const piece = queue.shift();
        if (piece !== undefined) {
          if (queue.length < QUEUED_PIECES) z!.resume();
          return piece;
        }
        if (failure !== null) throw failure;
        if (ended) {
          if (inputBytes === 0) throw new ArchiveFormatError(format, "empty input", 0);
          return null;
        }
        z!.resume();
        await new Promise<void>((resolve) => wake = resolve);
      }
    },
    inputBytes: () => inputBytes,
    dispose(reason): void {
      if (disposed) return;
      disposed = true;
      queue.length = 0;
      notify();
      try {
        z?.destroy();
      } catch {
        // already destroyed
      }
      if (reader) reader.cancel(reason).catch(() => {});
      else input.cancel(reason).catch(() => {});
    },
    mapError(error): unknown {
      // An error of the input itself (a nested reader's, an abort) passes through unchanged.
      if (inputError !== null && error === inputError) return error;
      const mapped = toFormatError(format, error, inputBytes);
      if (mapped instanceof ArchiveFormatError || mapped instanceof ArchiveLimitError) {
        return mapped;
      }
      // Whatever else the decoder raised is still a failure to read this input.
      const reason = error instanceof Error ? error.message : String(error);
      return new ArchiveFormatError(format, reason, inputBytes, { cause: error });
    },
  }, options);
}

// ---------------------------------------------------------------------------
// Synchronous decoders (xz, zstd) pumped by input chunks

interface SyncDecoder {
  /** Consumes all of `chunk`, yielding output pieces (fresh buffers). */
  push(chunk: Uint8Array): Iterator<Uint8Array>;
  /** Ends the input; yields the rest or throws when the input was incomplete. */
  finish(): Iterator<Uint8Array>;
  dispose(): void;
}

function syncDecoderStream(
  format: string,
  create: () => SyncDecoder | Promise<SyncDecoder>,
  input: ReadableStream<Uint8Array>,
  options: DecompressOptions,
): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let decoder: SyncDecoder | null = null;
  let pieces: Iterator<Uint8Array> | null = null;
  let ended = false;
  let inputBytes = 0;
  let disposed = false;
  return guardedStream(format, {
    async next(): Promise<Uint8Array | null> {
      reader ??= input.getReader();
      decoder ??= await create();
      while (true) {
        if (pieces) {
          const step = pieces.next();
          if (!step.done) return step.value;
          pieces = null;
          if (ended) return null;
        }
        const { done, value } = await reader.read();
        if (disposed) throw new Error(`${format} stream was closed`);
        if (done) {
          ended = true;
          pieces = decoder.finish();
        } else {
          inputBytes += value.byteLength;
          pieces = decoder.push(value);
        }
      }
    },
    inputBytes: () => inputBytes,
    dispose(reason): void {
      if (disposed) return;
      disposed = true;
      try {
        decoder?.dispose();
      } catch {
        // released already
      }
      if (reader) reader.cancel(reason).catch(() => {});
      else input.cancel(reason).catch(() => {});
    },
    mapError: (error) => toFormatError(format, error, inputBytes),
  }, options);
}

// ---------------------------------------------------------------------------
// xz: xz-embedded compiled to WebAssembly (package xz-decompress)

interface XzExports {
  memory: WebAssembly.Memory;
  create_context(): number;
  destroy_context(context: number): void;
  supply_input(context: number, length: number): void;
  get_next_output(context: number): number;
}

interface XzPackageInternals {
  _getModuleInstance(): Promise<void>;
  _moduleInstance?: WebAssembly.Instance;
}

let xzExports: Promise<XzExports> | null = null;

/**
 * The xz-embedded module of `xz-decompress`. Its own `XzReadableStream`
 * serialises every stream through one global lock held for the stream's whole
 * life (a nested xz inside xz would wait forever) and cannot tell where a
 * stream ended, so this reader drives the module's exports directly; the
 * package version is pinned in `deno.json`.
 */
function loadXz(): Promise<XzExports> {
  xzExports ??= (async () => {
    const internals = (xzModule as unknown as { XzReadableStream: XzPackageInternals })
      .XzReadableStream;
    if (typeof internals?._getModuleInstance !== "function") {
      throw new Error("xz decoding is unavailable: the xz-decompress package changed shape");
    }
    if (!internals._moduleInstance) await internals._getModuleInstance();
    const exports = internals._moduleInstance?.exports as unknown as XzExports | undefined;
    if (!exports || typeof exports.create_context !== "function") {
      throw new Error("xz decoding is unavailable: the xz-decompress module has no decoder");
    }
    return exports;
  })();
  xzExports.catch(() => {
    xzExports = null;
  });
  return xzExports;
}

// xz-embedded return codes
const XZ_OK = 0;
const XZ_STREAM_END = 1;

function xzFailure(code: number, atEnd: boolean): string {
  switch (code) {
    case 2:
      return "unsupported integrity check";
    case 3:
      return "out of memory";
    case 4:
      return "the stream needs a dictionary larger than 64 MiB";
    case 5:
      return "not xz data (bad magic bytes)";
    case 6:
      return "the stream uses options this decoder lacks (a BCJ filter or a SHA-256 check)";
    case 7:
      return "corrupt data";
    case 8:
      return atEnd ? "truncated input" : "corrupt data (decoder made no progress)";
    default:
      return `decoder failed with code ${code}`;
  }
}

async function createXzDecoder(): Promise<SyncDecoder> {
  const x = await loadXz();
  const context = x.create_context();
  if (!context) throw new Error("Cannot decode xz: the decoder could not allocate its state");
  // Layout of the context: [0] buffer size, then struct xz_buf:
  // [1] in, [2] in_pos, [3] in_size, [4] out, [5] out_pos, [6] out_size.
  const words = (): Uint32Array => new Uint32Array(x.memory.buffer, context, 7);
  const layout = words();
  const bufferSize = layout[0]!;
  const inPointer = layout[1]!;
  const outPointer = layout[4]!;
  let fed = 0;
  let alive = true;
  const consumed = (): number => {
    const w = words();
    return fed - (w[3]! - w[2]!);
  };
  function* run(final: boolean): Generator<Uint8Array> {
    while (true) {
      const code = x.get_next_output(context);
      const w = words();
      const produced = w[5]!;
      const full = produced === bufferSize;
      if (produced > 0) {
        const out = new Uint8Array(x.memory.buffer, outPointer, produced).slice();
        words()[5] = 0;
        yield out;
      }
      if (code === XZ_STREAM_END) return;
      if (code !== XZ_OK) throw new ArchiveFormatError("xz", xzFailure(code, final), consumed());
      const w2 = words();
      if (!full && w2[2] === w2[3]) {
        if (!final) return;
        // More output may still be pending after a final supply; stop when none came.
        if (produced === 0) throw new ArchiveFormatError("xz", "truncated input", consumed());
      }
    }
  }
  return {
    *push(chunk: Uint8Array): Generator<Uint8Array> {
      for (let offset = 0; offset < chunk.byteLength; offset += bufferSize) {
        const piece = chunk.subarray(offset, Math.min(chunk.byteLength, offset + bufferSize));
        new Uint8Array(x.memory.buffer, inPointer, piece.byteLength).set(piece);
        x.supply_input(context, piece.byteLength);
        fed += piece.byteLength;
        yield* run(false);
      }
    },
    *finish(): Generator<Uint8Array> {
      if (fed === 0) throw new ArchiveFormatError("xz", "empty input", 0);
      // Supplying no input tells the decoder the input has ended.
      x.supply_input(context, 0);
      yield* run(true);
    },
    dispose(): void {
      if (!alive) return;
      alive = false;
      x.destroy_context(context);
    },
  };
}

// ---------------------------------------------------------------------------
// zstd: node:zlib's decoder, fed one frame at a time

const ZSTD_MAGIC = 0xfd2fb528;
const ZSTD_MAX_BLOCK = 128 * 1024;

const enum FrameState {
  Magic,
  SkipSize,
  SkipData,
  Descriptor,
  HeaderRest,
  BlockHeader,
  BlockData,
  Checksum,
}

/** One run of frame bytes to decode; `frameEnd` when it completes a frame. */
interface FrameSegment {
  bytes: Uint8Array;
  frameEnd: boolean;
}

/**
 * Walks zstd frame structure (headers and block sizes, never the content) to
 * know where each frame ends: the decoder itself accepts truncated input
 * silently and stops at a frame's end.
 */
class ZstdFrameWalker {
  #state = FrameState.Magic;
  #collected = new Uint8Array(4);
  #collectedLength = 0;
  #remaining = 0;
  #checksum = false;
  #lastBlock = false;
  #offset = 0;
  frames = 0;
  skippable = 0;

  #collect(chunk: Uint8Array, i: number, want: number): number {
    const take = Math.min(want - this.#collectedLength, chunk.byteLength - i);
    this.#collected.set(chunk.subarray(i, i + take), this.#collectedLength);
    this.#collectedLength += take;
    return take;
  }

  #fail(reason: string, at: number): never {
    throw new ArchiveFormatError("zstd", reason, at);
  }

  split(chunk: Uint8Array): FrameSegment[] {
    const segments: FrameSegment[] = [];
    let i = 0;
    let feedStart = -1;
    const endFeed = (frameEnd: boolean): void => {
      if (feedStart >= 0 && (i > feedStart || frameEnd)) {
        segments.push({ bytes: chunk.subarray(feedStart, i), frameEnd });
      }
      feedStart = -1;
    };
    const base = this.#offset;
    while (i < chunk.byteLength) {
      switch (this.#state) {
        case FrameState.Magic: {
          i += this.#collect(chunk, i, 4);
          if (this.#collectedLength < 4) break;
          const c = this.#collected;
          const magic = (c[0]! | c[1]! << 8 | c[2]! << 16 | c[3]! << 24) >>> 0;
          this.#collectedLength = 0;
          if (magic === ZSTD_MAGIC) {
            segments.push({ bytes: c.slice(0, 4), frameEnd: false });
            this.#state = FrameState.Descriptor;
            feedStart = i;
          } else if ((magic & 0xfffffff0) === 0x184d2a50) {
            this.#state = FrameState.SkipSize;
          } else if (this.frames + this.skippable === 0) {
            this.#fail("not zstd data (bad magic bytes)", base + i - 4);
          } else {
            this.#fail("data after the last frame is not another zstd frame", base + i - 4);
          }
          break;
        }
        case FrameState.SkipSize: {
          i += this.#collect(chunk, i, 4);
          if (this.#collectedLength < 4) break;
          const c = this.#collected;
          this.#remaining = (c[0]! | c[1]! << 8 | c[2]! << 16 | c[3]! << 24) >>> 0;
          this.#collectedLength = 0;
          this.#state = FrameState.SkipData;
          if (this.#remaining === 0) {
            this.skippable++;
            this.#state = FrameState.Magic;
          }
          break;
        }
        case FrameState.SkipData: {
          const take = Math.min(this.#remaining, chunk.byteLength - i);
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) {
            this.skippable++;
            this.#state = FrameState.Magic;
          }
          break;
        }
        case FrameState.Descriptor: {
          if (feedStart < 0) feedStart = i;
          const fhd = chunk[i]!;
          i++;
          if (fhd & 0x08) this.#fail("reserved bit set in a frame header", base + i - 1);
          const dictionaryBytes = [0, 1, 2, 4][fhd & 3]!;
          if (dictionaryBytes > 0) {
            this.#fail(
              "the frame needs a dictionary, which this reader does not have",
              base + i - 1,
            );
          }
          const singleSegment = (fhd & 0x20) !== 0;
          const fcsFlag = fhd >> 6;
          const contentSizeBytes = fcsFlag === 0 ? (singleSegment ? 1 : 0) : [0, 2, 4, 8][fcsFlag]!;
          this.#checksum = (fhd & 0x04) !== 0;
          this.#remaining = (singleSegment ? 0 : 1) + contentSizeBytes;
          this.#state = this.#remaining > 0 ? FrameState.HeaderRest : FrameState.BlockHeader;
          break;
        }
        case FrameState.HeaderRest: {
          if (feedStart < 0) feedStart = i;
          const take = Math.min(this.#remaining, chunk.byteLength - i);
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) this.#state = FrameState.BlockHeader;
          break;
        }
        case FrameState.BlockHeader: {
          if (feedStart < 0) feedStart = i;
          i += this.#collect(chunk, i, 3);
          if (this.#collectedLength < 3) break;
          const c = this.#collected;
          const header = c[0]! | c[1]! << 8 | c[2]! << 16;
          this.#collectedLength = 0;
          this.#lastBlock = (header & 1) !== 0;
          const type = (header >> 1) & 3;
          const size = header >>> 3;
          if (type === 3) this.#fail("reserved block type", base + i - 3);
          if (size > ZSTD_MAX_BLOCK) {
            this.#fail(`block of ${size} bytes exceeds 128 KiB`, base + i - 3);
          }
          this.#remaining = type === 1 ? 1 : size;
          this.#state = FrameState.BlockData;
          if (this.#remaining === 0) this.#afterBlock();
          break;
        }
        case FrameState.BlockData: {
          if (feedStart < 0) feedStart = i;
          const take = Math.min(this.#remaining, chunk.byteLength - i);
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) this.#afterBlock();
          break;
        }
        case FrameState.Checksum: {
          if (feedStart < 0) feedStart = i;
          const take = Math.min(this.#remaining, chunk.byteLength - i);
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) this.#state = FrameState.Magic;
          break;
        }
      }
      if (this.#state === FrameState.Magic && feedStart >= 0) {
        this.frames++;
        endFeed(true);
      }
    }
    endFeed(false);
    this.#offset += chunk.byteLength;
    return segments;
  }

  #afterBlock(): void {
    if (!this.#lastBlock) {
      this.#state = FrameState.BlockHeader;
    } else if (this.#checksum) {
      this.#state = FrameState.Checksum;
      this.#remaining = 4;
    } else {
      this.#state = FrameState.Magic;
    }
  }

  /** Throws unless the input ended between frames, after at least one. */
  end(): void {
    if (this.#offset === 0) this.#fail("empty input", 0);
    if (this.#state !== FrameState.Magic || this.#collectedLength !== 0) {
      this.#fail(
        this.#state === FrameState.SkipData || this.#state === FrameState.SkipSize
          ? "truncated input (inside a skippable frame)"
          : "truncated input (inside a frame)",
        this.#offset,
      );
    }
    if (this.frames === 0) this.#fail("no zstd frame in the input", 0);
  }
}

function zstdReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const text = message.replace(/^Zstd decompress(ion)? error:\s*/i, "");
  return text.length > 0 ? text.charAt(0).toLowerCase() + text.slice(1) : "corrupt data";
}

function createZstdDecoder(): SyncDecoder {
  const stream = syncZlibOf(createZstdDecompress(), "zstd");
  const { handle, writeState: state } = stream;
  const walker = new ZstdFrameWalker();
  let alive = true;
  let decodedInput = 0;
  let out = new Uint8Array(OUT_CHUNK);
  function* feed(bytes: Uint8Array): Generator<Uint8Array> {
    let offset = 0;
    let length = bytes.byteLength;
    while (true) {
      try {
        handle.writeSync(
          zlibConstants.ZSTD_e_continue,
          bytes,
          offset,
          length,
          out,
          0,
          out.byteLength,
        );
      } catch (error) {
        throw new ArchiveFormatError("zstd", zstdReason(error), decodedInput + offset, {
          cause: error,
        });
      }
      const availableOut = state![0]!;
      const availableIn = state![1]!;
      const produced = out.byteLength - availableOut;
      offset += length - availableIn;
      length = availableIn;
      if (produced > 0) {
        // A small piece is copied so that it does not hold on to the whole buffer.
        if (produced < OUT_CHUNK / 2) {
          yield out.slice(0, produced);
        } else {
          const piece = out.subarray(0, produced);
          out = new Uint8Array(OUT_CHUNK);
          yield piece;
        }
      }
      if (availableOut === 0) continue;
      if (length === 0) break;
      throw new ArchiveFormatError(
        "zstd",
        "corrupt frame (the decoder stopped inside it)",
        decodedInput + offset,
      );
    }
    decodedInput += bytes.byteLength;
  }
  return {
    *push(chunk: Uint8Array): Generator<Uint8Array> {
      for (const segment of walker.split(chunk)) {
        yield* feed(segment.bytes);
        if (segment.frameEnd) {
          yield* feed(new Uint8Array(0));
          handle.reset();
        }
      }
    },
    finish(): Iterator<Uint8Array> {
      walker.end();
      return ([] as Uint8Array[])[Symbol.iterator]();
    },
    dispose(): void {
      if (!alive) return;
      alive = false;
      stream.close();
    },
  };
}
