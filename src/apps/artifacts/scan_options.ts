/**
 * What a scan is given: the root to walk, its limits and policies, and the
 * members to capture on the way.
 *
 * @module
 */

import type { TraversalLimits } from "./model.ts";

/** What is being scanned. */
export interface ScanRoot {
  kind: "directory" | "file";
  /** The resolved real path. */
  realPath: string;
  /** The base name. */
  name: string;
}

/** Options of {@linkcode scanArtifact}. */
export interface ScanOptions {
  limits: TraversalLimits;
  /** Record checksum failures and go on (approved by the caller) instead of failing. */
  continueOnIntegrity?: { maxMismatches: number };
  signal?: AbortSignal;
  /** Called every few MiB with the bytes read so far. */
  onProgress?: (bytesRead: number, entries: number) => void | Promise<void>;
  /**
   * The root content digest recorded when the target was opened: the scan
   * fails with an integrity error when the content no longer matches.
   */
  expectedRootSha256?: string;
  /**
   * Hand the bytes of the members at these logical paths to `onMember` as
   * each is read whole, and stop once all are.
   */
  capture?: MemberCapture;
  /**
   * Only the root's identity is wanted (opening a directory): nothing is
   * recorded per entry, so the snapshot lists no nodes, occurrences or
   * edges; its manifest has the root digest, completeness and limitations.
   */
  identityOnly?: boolean;
  /**
   * Hashing on worker threads, for a root file of at least `minBytes`
   * (default `OFF_THREAD_HASH_MIN_BYTES`); `url` replaces the worker's module
   * (tests). False: every digest on the scan's own thread.
   */
  hashWorkers?: false | { minBytes?: number; url?: URL };
}

/** One member's bytes, read from a root without extracting anything to disk. */
export interface CapturedMember {
  bytes: Uint8Array;
  sha256: string;
}

/** Members to capture during a scan. */
export interface MemberCapture {
  paths: ReadonlySet<string>;
  /** Largest member kept in memory. */
  maxBytes: number;
  onMember(logicalPath: string, member: CapturedMember): void | Promise<void>;
  /**
   * Whether the member read whole at `logicalPath`, with this SHA-256, is
   * the one wanted; a member refused is passed over and a later member with
   * the same path is offered instead (an archive may hold several under one
   * path, and the inventory lists the last). Omitted: the first is taken.
   */
  accept?(logicalPath: string, sha256: string): boolean;
}
