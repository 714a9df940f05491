/**
 * Target paths: every path is checked against the allowed roots before any
 * I/O, then again after symlinks are resolved.
 *
 * @module
 */

import { isAbsolute, normalize, sep } from "node:path";
import { ToolFailure } from "../core/errors.ts";
import { flagFor, permissionFailure } from "../core/permissions.ts";
import type { RootDirectory } from "../core/workbench.ts";

/** Largest file opened as a binary target. */
export const MAX_TARGET_BYTES = 2 * 1024 * 1024 * 1024 - 1;

/** Progress and cancellation for reading a target. */
export interface ReadOptions {
  /** Aborts the read; the call then fails with `cancelled`. */
  signal?: AbortSignal;
  /** Called after each chunk with the bytes read so far and the file size. */
  onProgress?: (read: number, size: number) => void | Promise<void>;
}

/** Bytes read per chunk (and per progress report). */
export const READ_CHUNK_BYTES = 16 * 1024 * 1024;

/** A regular file under an allowed root, read whole. */
export interface TargetFile {
  /** The path as the caller gave it (normalised). */
  requestedPath: string;
  /** The resolved real path. */
  realPath: string;
  bytes: Uint8Array;
}

/** Whether `path` is `root` or lies below it. */
export function isWithin(path: string, root: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

/**
 * Checks a requested path and reads the file it names. Refuses relative
 * paths, paths outside every root (lexically, and again after resolving
 * symlinks), directories, devices and oversized files, each with a clear error.
 *
 * Requires `--allow-read` for the roots.
 */
export async function readTargetFile(
  requested: string,
  roots: readonly RootDirectory[],
  options: ReadOptions = {},
): Promise<TargetFile> {
  if (requested.includes("\0")) throw invalid("The path contains a NUL character.");
  if (!isAbsolute(requested)) {
    throw invalid(`The path must be absolute; got ${JSON.stringify(requested)}.`);
  }
  if (roots.length === 0) {
    throw new ToolFailure(
      "outside_approved_root",
      "No root is configured, so no target can be opened.",
      {
        action:
          "Restart the server with --root DIR (and --allow-read=DIR) for the directories to investigate.",
        restartRequired: true,
      },
    );
  }
  const requestedPath = normalize(requested);
  const lexical = (root: RootDirectory): boolean =>
    isWithin(requestedPath, root.path) ||
    (root.realPath !== null && isWithin(requestedPath, root.realPath));
  if (!roots.some(lexical)) throw outsideRoots(requestedPath, roots);
  let realPath: string;
  try {
    realPath = await Deno.realPath(requestedPath);
  } catch (error) {
    throw ioFailure(error, requestedPath, roots);
  }
  if (!roots.some((root) => root.realPath !== null && isWithin(realPath, root.realPath))) {
    throw outsideRoots(requestedPath, roots, realPath);
  }
  let file: Deno.FsFile;
  try {
    file = await Deno.open(realPath, { read: true });
  } catch (error) {
    throw ioFailure(error, requestedPath, roots);
  }
  try {
    const info = await file.stat();
    if (info.isDirectory) {
      throw invalid(
        `${requestedPath} is a directory; open_binary opens a single file (an ELF binary).`,
      );
    }
    if (!info.isFile) {
      throw invalid(`${requestedPath} is not a regular file (device, socket or FIFO).`);
    }
    if (info.size > MAX_TARGET_BYTES) {
      throw new ToolFailure(
        "limit_exceeded",
        `${requestedPath} is ${info.size} bytes; targets are limited to ${MAX_TARGET_BYTES} bytes.`,
      );
    }
    const bytes = new Uint8Array(info.size);
    let filled = 0;
    let reported = 0;
    while (filled < bytes.length) {
      if (options.signal?.aborted) {
        throw new ToolFailure("cancelled", `Opening ${requestedPath} was cancelled.`, {
          retryable: true,
          action: "Call open_binary again when you need this target.",
        });
      }
      const n = await file.read(
        bytes.subarray(filled, Math.min(bytes.length, filled + READ_CHUNK_BYTES)),
      );
      if (n === null) break;
      filled += n;
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
    };
  } catch (error) {
    if (error instanceof ToolFailure) throw error;
    throw ioFailure(error, requestedPath, roots);
  } finally {
    file.close();
  }
}

function invalid(message: string): ToolFailure {
  return new ToolFailure("invalid_request", message, {
    action: "Pass the absolute path of a regular file under an allowed root.",
  });
}

/** The refusal for a path outside every root (naming what it resolves to, if that differs). */
export function outsideRoots(
  path: string,
  roots: readonly RootDirectory[],
  realPath?: string,
): ToolFailure {
  const via = realPath && realPath !== path ? ` (it resolves to ${realPath})` : "";
  const names = roots.map((root) => root.path);
  return new ToolFailure(
    "outside_approved_root",
    `${path}${via} is outside the allowed roots: ${names.join(", ")}.`,
    {
      action:
        "Open a file under an allowed root, or restart the server with another --root (and matching --allow-read).",
      details: { roots: names },
    },
  );
}

/** A failed read of a target path as a tool failure, naming the root's grant when permission is missing. */
export function ioFailure(
  error: unknown,
  path: string,
  roots: readonly RootDirectory[],
): ToolFailure {
  // Name the root's grant, which covers every target under it, rather than the one file.
  const root = roots.find((r) => isWithin(path, r.path));
  const permission = permissionFailure(error, root ? flagFor("read", root.path) : undefined);
  if (permission) return permission;
  if (error instanceof Deno.errors.NotFound) {
    return new ToolFailure("target_unavailable", `No such file: ${path}.`, {
      action: "Check the path (binary_session lists the allowed roots).",
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolFailure("target_unavailable", `Cannot read ${path}: ${message}.`);
}
