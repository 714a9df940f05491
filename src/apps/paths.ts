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
}

/** Bytes read between two progress reports. */
export const READ_CHUNK_BYTES = 16 * 1024 * 1024;

/** Bytes per read: small enough that hashing one piece overlaps reading the next. */
const HASH_PIECE_BYTES = 2 * 1024 * 1024;

/** A regular file under an allowed root, read whole. */
export interface TargetFile {
  /** The path as the caller gave it (normalised). */
  requestedPath: string;
  /** The resolved real path. */
  realPath: string;
  bytes: Uint8Array;
  /** The SHA-256 of `bytes` (lowercase hex), when the reader computed it while reading. */
  sha256?: string;
}

/**
 * Checks a requested path and reads the file it names. Refuses relative
 * paths, paths outside every root (lexically, and again after resolving
 * symlinks), directories, devices and oversized files, each with a clear error.
 * The SHA-256 of the bytes is computed as they are read.
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
    // Each piece is hashed while the next one is being read.
    const hash = createHash("sha256");
    const readPiece = (at: number): Promise<number> =>
      at < bytes.length
        ? file.read(bytes.subarray(at, Math.min(bytes.length, at + HASH_PIECE_BYTES)), at)
        : Promise.resolve(0);
    let filled = 0;
    let reported = 0;
    let next = readPiece(0);
    for (;;) {
      const n = await next;
      if (n === 0) break;
      const start = filled;
      filled += n;
      next = readPiece(filled);
      if (options.signal?.aborted) {
        await next.catch(() => 0);
        throw new ToolFailure("cancelled", `Opening ${requestedPath} was cancelled.`, {
          retryable: true,
          action: "Call open_binary again when you need this target.",
        });
      }
      hash.update(bytes.subarray(start, filled));
      if (
        options.onProgress && (filled - reported >= READ_CHUNK_BYTES || filled === bytes.length)
      ) {
        reported = filled;
        await options.onProgress(filled, bytes.length);
      }
    }
    return {
      requestedPath,
      realPath,
      bytes: filled === bytes.length ? bytes : bytes.slice(0, filled),
      sha256: hash.digest("hex"),
    };
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
