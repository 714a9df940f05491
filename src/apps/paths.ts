/**
 * Target paths: every path is checked against the allowed roots before any
 * I/O, then again after symlinks are resolved.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { ToolFailure } from "../core/errors.ts";
import { ioFailure, type RootDirectory, RootFence, type VerifiedFile } from "../core/roots.ts";

/** Largest file opened as a binary target. */
export const MAX_TARGET_BYTES = 2 * 1024 * 1024 * 1024 - 1;

/** Progress and cancellation for reading a target. */
export interface ReadOptions {
  /** Aborts the read; the call then fails with `cancelled`. */
  signal?: AbortSignal;
  /** Called after each chunk with the bytes read so far and the file size. */
  onProgress?: (read: number, size: number) => void | Promise<void>;
  /**
   * For a large file: given a buffer of the file's size holding what was read
   * so far (its start first, then each answer), the byte ranges that identify
   * the file, or null to read it whole. When it names ranges, only they are
   * read into `bytes` (the whole file is still hashed, as a stream) and the
   * result's `readRest` reads the rest on first need.
   */
  identifyingRanges?: (bytes: Uint8Array) => readonly ByteRange[] | null;
}

/** A half-open byte range `[start, end)` of a file. */
export type ByteRange = readonly [start: number, end: number];

/** Bytes read between two progress reports. */
export const READ_CHUNK_BYTES = 16 * 1024 * 1024;

/** Bytes per read: small enough that hashing one piece overlaps reading the next. */
const HASH_PIECE_BYTES = 2 * 1024 * 1024;

/** Files from this size on may be read by their identifying ranges only. */
export const PARTIAL_READ_MIN_BYTES = 8 * 1024 * 1024;

/** Bytes read first from a file read by ranges. */
const FIRST_BYTES = 64 * 1024;

/** Rounds of identifying ranges (each names what the previous ones point at). */
const RANGE_ROUNDS = 4;

/** A regular file under an allowed root, read whole. */
export interface TargetFile {
  /** The path as the caller gave it (normalised). */
  requestedPath: string;
  /** The resolved real path. */
  realPath: string;
  /** The bytes; when `readRest` is present, only the identifying ranges are filled in. */
  bytes: Uint8Array;
  /** The SHA-256 of the file (lowercase hex), when the reader computed it while reading. */
  sha256?: string;
  /**
   * Reads the rest of `bytes` (the file again, checked to hash as it did);
   * present only when the file was read by its identifying ranges.
   */
  readRest?: (options?: { signal?: AbortSignal }) => Promise<void>;
}

/**
 * Checks a requested path and reads the file it names. Refuses relative
 * paths, paths outside every root (lexically, and again after resolving
 * symlinks), directories, devices and oversized files, each with a clear error.
 * The SHA-256 of the file is computed as it is read. With
 * `options.identifyingRanges`, a large file is read only by the ranges it
 * names (hashed whole all the same), and `readRest` reads the rest later.
 *
 * Requires `--allow-read` for the roots.
 */
export async function readTargetFile(
  requested: string,
  roots: readonly RootDirectory[],
  options: ReadOptions = {},
): Promise<TargetFile> {
  const fence = new RootFence(roots);
  let file: VerifiedFile;
  try {
    file = await fence.openFile(requested);
  } catch (error) {
    if (error instanceof ToolFailure && error.code === "invalid_request") {
      throw invalid(
        error.message.replace(
          ", not a file.",
          "; open_binary opens a single file (an ELF binary).",
        ),
      );
    }
    throw error;
  }
  const { requestedPath, realPath } = file;
  try {
    const info = { size: file.size };
    if (info.size > MAX_TARGET_BYTES) {
      throw new ToolFailure(
        "limit_exceeded",
        `${requestedPath} is ${info.size} bytes; targets are limited to ${MAX_TARGET_BYTES} bytes.`,
      );
    }
    const bytes = new Uint8Array(info.size);
    const what = `Opening ${requestedPath}`;
    if (options.identifyingRanges && bytes.length >= PARTIAL_READ_MIN_BYTES) {
      if (await readIdentifyingRanges(file, bytes, options.identifyingRanges)) {
        const { sha256, read } = await hashPieces(file, bytes.length, what, options);
        if (read === bytes.length) {
          return {
            requestedPath,
            realPath,
            bytes,
            sha256,
            readRest: (rest = {}) =>
              readRest({ requestedPath, realPath, roots, bytes, sha256 }, rest.signal),
          };
        }
      }
    }
    const { sha256, read } = await hashPieces(file, bytes.length, what, {
      ...options,
      into: bytes,
    });
    return {
      requestedPath,
      realPath,
      bytes: read === bytes.length ? bytes : bytes.slice(0, read),
      sha256,
    };
  } catch (error) {
    if (error instanceof ToolFailure) throw error;
    throw ioFailure(error, requestedPath, roots);
  } finally {
    await file.close();
  }
}

/**
 * Reads the ranges `identify` names into `bytes`, round after round; false
 * when it answers null (the file is then read whole).
 */
async function readIdentifyingRanges(
  file: VerifiedFile,
  bytes: Uint8Array,
  identify: (bytes: Uint8Array) => readonly ByteRange[] | null,
): Promise<boolean> {
  const done: ByteRange[] = [];
  let wanted: readonly ByteRange[] | null = [[0, Math.min(bytes.length, FIRST_BYTES)]];
  for (let round = 0; round <= RANGE_ROUNDS; round++) {
    const missing = wanted.filter(([start, end]) =>
      !done.some(([from, to]) => from <= start && end <= to)
    );
    if (missing.length === 0) return true;
    if (round === RANGE_ROUNDS) return false;
    for (const range of missing) {
      const [start, end] = range;
      for (let at = start; at < end;) {
        const n = await file.read(bytes.subarray(at, end), at);
        if (n === 0) return false;
        at += n;
      }
      done.push(range);
    }
    wanted = identify(bytes);
    if (wanted === null) return false;
  }
  return false;
}

/**
 * Reads the file from its start in pieces, hashing each while the next is
 * read: into `into` when given, else through two small buffers (the bytes
 * are then not kept). Returns the digest and the bytes read.
 */
async function hashPieces(
  file: VerifiedFile,
  size: number,
  what: string,
  options: { signal?: AbortSignal; onProgress?: ReadOptions["onProgress"]; into?: Uint8Array },
): Promise<{ sha256: string; read: number }> {
  const hash = createHash("sha256");
  const { into } = options;
  const spare = into ? [] : [new Uint8Array(HASH_PIECE_BYTES), new Uint8Array(HASH_PIECE_BYTES)];
  let turn = 0;
  const readPiece = async (at: number): Promise<Uint8Array> => {
    if (at >= size) return new Uint8Array();
    const length = Math.min(size - at, HASH_PIECE_BYTES);
    const piece = into ? into.subarray(at, at + length) : spare[turn++ % 2]!.subarray(0, length);
    return piece.subarray(0, await file.read(piece, at));
  };
  let read = 0;
  let reported = 0;
  let next = readPiece(0);
  for (;;) {
    const piece = await next;
    if (piece.length === 0) break;
    read += piece.length;
    next = readPiece(read);
    if (options.signal?.aborted) {
      await next.catch(() => null);
      throw new ToolFailure("cancelled", `${what} was cancelled.`, {
        retryable: true,
        action: "Call the tool again when you need this target.",
      });
    }
    hash.update(piece);
    if (options.onProgress && (read - reported >= READ_CHUNK_BYTES || read === size)) {
      reported = read;
      await options.onProgress(read, size);
    }
  }
  return { sha256: hash.digest("hex"), read };
}

/** Reads the whole file into `bytes` again, checking it still hashes to `sha256`. */
async function readRest(
  opened: {
    requestedPath: string;
    realPath: string;
    roots: readonly RootDirectory[];
    bytes: Uint8Array;
    sha256: string;
  },
  signal: AbortSignal | undefined,
): Promise<void> {
  const { requestedPath, realPath, roots, bytes, sha256 } = opened;
  const changed = (how: string): ToolFailure =>
    new ToolFailure(
      "artifact_integrity_mismatch",
      `${requestedPath} changed since it was opened (${how}); its analysis needs the bytes that were opened.`,
      { action: "Call open_binary again to open the file as it is now." },
    );
  const file = await new RootFence(roots).openFile(realPath);
  try {
    if (file.size !== bytes.length) throw changed(`${file.size} bytes, opened as ${bytes.length}`);
    const now = await hashPieces(file, bytes.length, `Reading ${requestedPath}`, {
      signal,
      into: bytes,
    });
    if (now.read !== bytes.length || now.sha256 !== sha256) {
      throw changed(`sha256 ${now.sha256}, opened as ${sha256}`);
    }
  } catch (error) {
    if (error instanceof ToolFailure) throw error;
    throw ioFailure(error, requestedPath, roots);
  } finally {
    await file.close();
  }
}

function invalid(message: string): ToolFailure {
  return new ToolFailure("invalid_request", message, {
    action: "Pass the absolute path of a regular file under an allowed root.",
  });
}
