/**
 * The inventory scan: walks a directory or an archive (tar, ar, zip family,
 * gzip/xz/zstd/bzip2 streams, nested to a depth), hashes every member as it streams
 * past, classifies it, and builds the content graph. Memory stays bounded by
 * chunk sizes, except that a zip that is itself a member or a decompressed
 * stream is held in memory for its central directory, at most
 * `ZIP_IN_MEMORY_BYTES` (64 MiB); a larger one is hashed but not listed.
 *
 * @module
 */

import { HashWorkerError } from "./off_thread_hash.ts";
import { Scanner } from "./scanner.ts";
import type { ArtifactSnapshot } from "./model.ts";
import type { CapturedMember, MemberCapture, ScanOptions, ScanRoot } from "./scan_options.ts";

export type { CapturedMember, MemberCapture, ScanOptions, ScanRoot } from "./scan_options.ts";
export { IntegrityFailure } from "./scan_errors.ts";
export { hashSource } from "./chunk_source.ts";
export { escapeMemberName } from "./member_names.ts";

/**
 * Reads the member at `logicalPath` (nested archives included) into memory,
 * up to `maxBytes`; null when the root holds no such member. With `sha256`,
 * only a member with that content counts (of several under one path).
 *
 * Requires `--allow-read` for the root.
 */
export async function readMember(
  root: ScanRoot,
  logicalPath: string,
  options: Omit<ScanOptions, "capture"> & { maxBytes: number; sha256?: string },
): Promise<CapturedMember | null> {
  let found: CapturedMember | null = null;
  const wanted = options.sha256;
  await captureMembers(root, {
    ...options,
    capture: {
      paths: new Set([logicalPath]),
      maxBytes: options.maxBytes,
      accept: wanted === undefined ? undefined : (_path, sha256) => sha256 === wanted,
      onMember: (_path, member) => {
        found = member;
      },
    },
  });
  return found;
}

/**
 * Scans a root only as far as needed to hand every requested member to
 * `capture.onMember`; returns the paths that were not found.
 *
 * Requires `--allow-read` for the root.
 */
export async function captureMembers(
  root: ScanRoot,
  options: ScanOptions & { capture: MemberCapture },
): Promise<string[]> {
  const scanner = new Scanner(root, options);
  await scanner.run();
  return [...options.capture.paths].filter((path) => !scanner.capturedPaths.has(path));
}

/**
 * Scans a root into an immutable snapshot. Per-member damage (a truncated
 * nested archive, an unreadable file) is recorded on the occurrence and marks
 * the snapshot incomplete; reaching a traversal limit stops the walk and marks
 * it incomplete; a checksum failure fails the scan unless the caller approved
 * recording it.
 *
 * Requires `--allow-read` for the root.
 */
export async function scanArtifact(
  root: ScanRoot,
  options: ScanOptions,
): Promise<ArtifactSnapshot> {
  if (options.capture) throw new TypeError("scanArtifact does not capture; use readMember");
  try {
    return (await new Scanner(root, options).run())!;
  } catch (error) {
    // A hashing worker that failed leaves digests unknown: the scan is done again on one thread.
    if (!(error instanceof HashWorkerError) || options.hashWorkers === false) throw error;
    return (await new Scanner(root, { ...options, hashWorkers: false }).run())!;
  }
}
