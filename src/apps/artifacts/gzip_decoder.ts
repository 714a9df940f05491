/**
 * A gzip decoder that walks member boundaries itself, as `gzip -d` does:
 * each member's header is parsed here, its deflate data goes through
 * `node:zlib`'s raw inflate (reset between members), and its trailer's CRC-32
 * and length are checked. Every concatenated member is decoded; bytes after a
 * complete member that do not open with the gzip magic (zero padding from
 * tape or some tools, other junk) are ignored and reported once through
 * `onWarning` at the end of input, as `gzip -t` says "decompression OK,
 * trailing garbage ignored". Bytes that open with the magic must be a whole,
 * valid member, or decoding fails as `gzip -t` fails.
 *
 * @module
 */

import { constants as zlibConstants, crc32, createInflateRaw } from "node:zlib";
import { ArchiveFormatError } from "./errors.ts";
import { syncZlibOf } from "./zlib_handle.ts";

/** Options of {@linkcode createGzipDecoder}. */
export interface GzipDecoderOptions {
  /** Told, once at the end of input, about ignored bytes after the last member. */
  onWarning?: (warning: string) => void;
}

/** A gzip decoder pumped by input chunks (the shape the stream driver expects). */
export interface GzipDecoder {
  /** Consumes all of `chunk`, yielding output pieces (fresh buffers). */
  push(chunk: Uint8Array): Iterator<Uint8Array>;
  /** Ends the input; throws when it ended inside a member. */
  finish(): Iterator<Uint8Array>;
  /** Releases the inflater. Idempotent. */
  dispose(): void;
}

/**
 * The warning about ignored bytes after the last member.
 *
 * @param count How many bytes were ignored.
 * @param members How many members were decoded.
 * @returns The warning sentence.
 */
export function gzipTrailingWarning(count: number, members: number): string {
  return `${count} byte(s) after the last gzip member (of ${members}) start no other member: ignored, as gzip -d does.`;
}

const OUT_CHUNK = 64 * 1024;
/** Longest member header accepted (file name and comment included). */
const MAX_HEADER_BYTES = 1 << 20;
const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;

const enum State {
  Header,
  Deflate,
  Trailer,
  Garbage,
}

/**
 * Parses a member header byte by byte; {@linkcode HeaderParser.add} says
 * when the header is complete.
 */
class HeaderParser {
  #bytes: number[] = [];
  #flags = 0;
  /** 0 fixed part, 1 extra length, 2 extra data, 3 name, 4 comment, 5 header CRC, 6 done. */
  #phase = 0;
  #until = 10;

  get length(): number {
    return this.#bytes.length;
  }

  first(): number | undefined {
    return this.#bytes[0];
  }

  /** Adds one byte; `true` when it completed the header. `at` is its input offset. */
  add(byte: number, at: number): boolean {
    const bytes = this.#bytes;
    bytes.push(byte);
    if (bytes.length > MAX_HEADER_BYTES) {
      throw new ArchiveFormatError("gzip", "member header longer than 1 MiB", at);
    }
    switch (this.#phase) {
      case 0:
        if (bytes.length < 10) return false;
        if (bytes[2] !== 8) {
          throw new ArchiveFormatError("gzip", "unknown compression method", at);
        }
        this.#flags = bytes[3]!;
        if (this.#flags & 0xe0) {
          throw new ArchiveFormatError("gzip", "unknown header flags set", at);
        }
        return this.#next(1);
      case 1:
        if (bytes.length < this.#until) return false;
        this.#until += bytes[bytes.length - 2]! | bytes[bytes.length - 1]! << 8;
        return this.#next(2, true);
      case 2:
        return bytes.length < this.#until ? false : this.#next(3);
      case 3:
        return byte === 0 ? this.#next(4) : false;
      case 4:
        return byte === 0 ? this.#next(5) : false;
      default: {
        if (bytes.length < this.#until) return false;
        const stored = bytes[bytes.length - 2]! | bytes[bytes.length - 1]! << 8;
        const computed = crc32(new Uint8Array(bytes.slice(0, -2))) & 0xffff;
        if (stored !== computed) {
          throw new ArchiveFormatError("gzip", "header crc mismatch", at);
        }
        return true;
      }
    }
  }

  /** Moves to the first phase from `phase` on that the flags ask for. */
  #next(phase: number, entered = false): boolean {
    if (entered && this.#bytes.length < this.#until) {
      this.#phase = phase;
      return false;
    }
    const wanted = [0, FEXTRA, FEXTRA, FNAME, FCOMMENT, FHCRC];
    for (let p = entered ? phase + 1 : phase; p <= 5; p++) {
      if (p === 2 || !(this.#flags & wanted[p]!)) continue;
      this.#phase = p;
      this.#until = this.#bytes.length + (p === 1 || p === 5 ? 2 : 0);
      return false;
    }
    return true;
  }
}

/**
 * Creates a gzip decoder.
 *
 * @param options Where to report ignored trailing bytes.
 * @returns The decoder.
 */
export function createGzipDecoder(options: GzipDecoderOptions = {}): GzipDecoder {
  const stream = syncZlibOf(createInflateRaw(), "gzip");
  const { handle, writeState } = stream;
  let zlibError: string | null = null;
  handle.onerror = (message: string): void => {
    zlibError = message;
  };
  let state = State.Header;
  let header = new HeaderParser();
  const trailer: number[] = [];
  let members = 0;
  let garbage = 0;
  let offset = 0; // input bytes consumed before the current chunk
  let crc = 0;
  let size = 0;
  let alive = true;
  let out = new Uint8Array(OUT_CHUNK);

  const fail = (reason: string, at: number): never => {
    throw new ArchiveFormatError("gzip", reason, at);
  };

  /** Inflates from `chunk[start..]`; returns where the deflate data ended, or -1 when it needs more. */
  function* inflate(
    chunk: Uint8Array,
    start: number,
    flush: number,
  ): Generator<Uint8Array, number> {
    let at = start;
    let length = chunk.byteLength - start;
    while (true) {
      zlibError = null;
      handle.writeSync(flush, chunk, at, length, out, 0, out.byteLength);
      if (zlibError !== null) {
        const reason = flush === zlibConstants.Z_FINISH
          ? `truncated input (${zlibError})`
          : zlibError;
        fail(reason, offset + at);
      }
      const availableOut = writeState![0]!;
      const availableIn = writeState![1]!;
      const produced = out.byteLength - availableOut;
      at += length - availableIn;
      length = availableIn;
      if (produced > 0) {
        let piece: Uint8Array;
        if (produced < OUT_CHUNK / 2) {
          piece = out.slice(0, produced);
        } else {
          piece = out.subarray(0, produced);
          out = new Uint8Array(OUT_CHUNK);
        }
        crc = crc32(piece, crc);
        size = (size + produced) >>> 0;
        yield piece;
      }
      if (availableOut === 0) continue;
      // Room for output was left: the inflater either wants more input or has reached
      // the end of the deflate data (then it takes no more).
      if (length > 0 || flush === zlibConstants.Z_FINISH) return at;
      return -1;
    }
  }

  function* push(chunk: Uint8Array): Generator<Uint8Array> {
    let i = 0;
    while (i < chunk.byteLength) {
      switch (state) {
        case State.Header: {
          const byte = chunk[i]!;
          if (header.length === 0 && byte !== 0x1f) {
            if (members === 0) fail("incorrect header check", offset + i);
            state = State.Garbage;
            break;
          }
          if (header.length === 1 && byte !== 0x8b) {
            if (members === 0) fail("incorrect header check", offset + i - 1);
            garbage += 1;
            header = new HeaderParser();
            state = State.Garbage;
            break;
          }
          i++;
          if (header.add(byte, offset + i - 1)) {
            header = new HeaderParser();
            handle.reset();
            crc = 0;
            size = 0;
            state = State.Deflate;
          }
          break;
        }
        case State.Deflate: {
          const end = yield* inflate(chunk, i, zlibConstants.Z_NO_FLUSH);
          if (end < 0) {
            i = chunk.byteLength;
          } else {
            i = end;
            state = State.Trailer;
          }
          break;
        }
        case State.Trailer: {
          trailer.push(chunk[i]!);
          i++;
          if (trailer.length === 8) {
            const [a, b, c, d, e, f, g, h] = trailer as [
              number,
              number,
              number,
              number,
              number,
              number,
              number,
              number,
            ];
            const storedCrc = (a | b << 8 | c << 16 | d << 24) >>> 0;
            const storedSize = (e | f << 8 | g << 16 | h << 24) >>> 0;
            if (storedCrc !== crc >>> 0) fail("incorrect data check", offset + i - 8);
            if (storedSize !== size) fail("incorrect length check", offset + i - 4);
            trailer.length = 0;
            members++;
            state = State.Header;
          }
          break;
        }
        case State.Garbage:
          garbage += chunk.byteLength - i;
          i = chunk.byteLength;
          break;
      }
    }
    offset += chunk.byteLength;
  }

  function* finish(): Generator<Uint8Array> {
    if (offset === 0) fail("empty input", 0);
    if (state === State.Deflate) {
      // Tells the inflater the input has ended: it fails unless the deflate data was complete.
      const end = yield* inflate(new Uint8Array(0), 0, zlibConstants.Z_FINISH);
      if (end >= 0) fail("truncated input (unexpected end of file)", offset);
    }
    if (state === State.Trailer) fail("truncated input (unexpected end of file)", offset);
    if (state === State.Header && header.length > 0) {
      if (members === 0 || header.length >= 2) {
        fail("truncated input (unexpected end of file)", offset);
      }
      // A lone 0x1f after the last member opens no member.
      garbage += header.length;
    }
    if (garbage > 0) options.onWarning?.(gzipTrailingWarning(garbage, members));
  }

  return {
    push,
    finish,
    dispose(): void {
      if (!alive) return;
      alive = false;
      stream.close();
    },
  };
}
