/**
 * The inventory scan: walks a directory or an archive (tar, ar, zip family,
 * gzip/xz/zstd streams, nested to a depth), hashes every member as it streams
 * past, classifies it, and builds the content graph. Memory stays bounded by
 * chunk sizes, except that a zip nested inside a stream is held in memory
 * (at most `max_entry_bytes`) because zip needs random access.
 *
 * @module
 */

import { createHash, type Hash } from "node:crypto";
import { join } from "node:path";
import { canonicalJson, sha256Hex } from "../../core/canonical_json.ts";
import { compareCodePoints } from "../../core/completion.ts";
import { readAr } from "./ar.ts";
import { type ByteSource, memorySource, verifiedSource } from "./byte_source.ts";
import { ToolFailure } from "../../core/errors.ts";
import {
  confirmPath,
  type FileIdentity,
  identityMismatch,
  isWithin,
  openVerified,
  outsideRoots,
  type RootDirectory,
  sameIdentity,
} from "../../core/roots.ts";
import { type Compression, decompress, type DecompressOptions } from "./compression.ts";
import { ArchiveFormatError, ArchiveLimitError } from "./errors.ts";
import {
  artifactId,
  contradictionId,
  edgeId,
  manifestId,
  occurrenceId,
  rootOccurrenceId,
} from "./ids.ts";
import type {
  ArtifactEdge,
  ArtifactNode,
  ArtifactOccurrence,
  ArtifactSnapshot,
  IntegrityContradiction,
  TraversalLimits,
} from "./model.ts";
import { sniff, type Sniffed } from "./sniff.ts";
import { type ArchiveEntryName, readTar } from "./tar.ts";
import { readZipDirectory, zipEntryBody } from "./zip.ts";

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
}

/** A checksum failure under the `fail` integrity policy. */
export class IntegrityFailure extends Error {
  constructor(readonly contradiction: IntegrityContradiction) {
    super(
      `${contradiction.logical_path}: ${contradiction.check} check failed (declared ${contradiction.declared}, observed ${contradiction.observed})`,
    );
    this.name = "IntegrityFailure";
  }
}

const HEAD_BYTES = 4096;
const PROGRESS_EVERY = 16 * 1024 * 1024;
const MAX_LIMITATIONS = 200;

interface PendingChild {
  artifact_id: string | null;
  relation: "contains" | "extracts";
  occurrence_id: string;
  logical_path: string;
}

/** What a directory's digest is computed from. */
interface ArchiveMember {
  logicalPath: string;
  artifact_id: string | null;
  entry_kind: string;
  link_target?: string;
}

interface MemberMeta {
  declared_size: number | null;
  compressed_size: number | null;
  mode: number | null;
  source_location: { offset: number; length: number } | null;
  original_name_hex: string | null;
  limitations: string[];
}

const NO_META: MemberMeta = {
  declared_size: null,
  compressed_size: null,
  mode: null,
  source_location: null,
  original_name_hex: null,
  limitations: [],
};

/** The traversal stopped at a limit; the graph so far is kept and marked incomplete. */
class StopScan extends Error {}

/** The captured member was read: nothing more is needed. */
class CaptureDone extends Error {}

/** The capture's own consumer failed (a write, a check): it ends the scan with that error. */
class SinkFailure extends Error {
  constructor(readonly error: unknown) {
    super(error instanceof Error ? error.message : String(error));
  }
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
}

/**
 * Reads the member at `logicalPath` (nested archives included) into memory,
 * up to `maxBytes`; null when the root holds no such member.
 *
 * Requires `--allow-read` for the root.
 */
export async function readMember(
  root: ScanRoot,
  logicalPath: string,
  options: Omit<ScanOptions, "capture"> & { maxBytes: number },
): Promise<CapturedMember | null> {
  let found: CapturedMember | null = null;
  await captureMembers(root, {
    ...options,
    capture: {
      paths: new Set([logicalPath]),
      maxBytes: options.maxBytes,
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
  const scanner = new Scanner(root, options);
  return (await scanner.run())!;
}

class Scanner {
  readonly #root: ScanRoot;
  readonly #options: ScanOptions;
  readonly #limits: TraversalLimits;
  #rootArtifactId = "";
  #nodes = new Map<string, ArtifactNode>();
  #occurrences: ArtifactOccurrence[] = [];
  #occurrenceByPath = new Map<string, ArtifactOccurrence>();
  #edges = new Map<string, ArtifactEdge>();
  #contradictions: IntegrityContradiction[] = [];
  #limitations: string[] = [];
  #complete = true;
  /** Whether every directory entry's identity was computed as an unlimited scan would (so the root digest can be re-verified). */
  #identityExact = true;
  #bytesRead = 0;
  #reported = 0;
  /** The paths captured so far. */
  readonly capturedPaths = new Set<string>();
  /** Files opened ahead of the walk and not yet taken, scan-wide. */
  readonly #opensAhead = { open: 0 };

  constructor(root: ScanRoot, options: ScanOptions) {
    this.#root = root;
    this.#options = options;
    this.#limits = options.limits;
  }

  async run(): Promise<ArtifactSnapshot | null> {
    try {
      return await this.#run();
    } catch (error) {
      if (error instanceof CaptureDone) return null;
      // Never mistaken for a damaged member: what the consumer threw is the scan's error.
      if (error instanceof SinkFailure) throw error.error;
      throw error;
    }
  }

  async #run(): Promise<ArtifactSnapshot> {
    const root = this.#root;
    const expected = this.#options.expectedRootSha256;
    let rootSha256: string;
    let rootFormat: ArtifactNode["format"];
    if (root.kind === "directory") {
      // A directory's identity is its children, so the root id is only known at the end;
      // children are keyed under a provisional root and re-keyed once it is.
      this.#rootArtifactId = PROVISIONAL_ROOT;
      let observed: string | null = null;
      try {
        observed = (await this.#walkDirectory(root.realPath, ".", null, null)).sha256;
      } catch (error) {
        if (!(error instanceof StopScan)) throw error;
        this.#identityExact = false;
        this.#incomplete(error.message);
      }
      rootFormat = "directory";
      if (this.#identityExact && observed !== null) {
        rootSha256 = observed;
        if (expected && observed !== expected) {
          this.#rekeyRoot(artifactId(expected));
          this.#integrity({
            logical_path: ".",
            check: "root-digest",
            declared: expected,
            observed,
          });
        }
      } else {
        // A partial walk cannot recompute the directory's identity: keep the one taken at open.
        rootSha256 = expected ?? observed ?? sha256Hex("");
        this.#note(
          "The root directory's digest could not be re-verified: the walk did not cover every entry.",
        );
      }
      this.#rekeyRoot(artifactId(rootSha256));
    } else {
      const source = await openDiskFile(root.realPath, root, null, { whole: false });
      try {
        rootSha256 = expected ?? await hashSource(source, this.#options.signal);
        this.#rootArtifactId = artifactId(rootSha256);
        let visited: { sha256: string | null; format: ArtifactNode["format"] } = {
          sha256: null,
          format: "file",
        };
        try {
          visited = await this.#visitFile({
            logicalPath: ".",
            name: root.name,
            stream: source.stream(0, source.size, this.#options.signal),
            size: source.size,
            depth: 0,
            parentOccurrenceId: null,
            contentState: "materialized",
            meta: NO_META,
            source,
            isRoot: true,
          });
        } catch (error) {
          if (!(error instanceof StopScan)) throw error;
          this.#incomplete(error.message);
          visited.format = formatOf(
            sniff(await source.read(0, Math.min(HEAD_BYTES, source.size)), root.name),
          );
        }
        rootFormat = visited.format;
        if (visited.sha256 !== null && visited.sha256 !== rootSha256) {
          this.#integrity({
            logical_path: ".",
            check: "root-digest",
            declared: rootSha256,
            observed: visited.sha256,
          });
        }
      } finally {
        source.close();
      }
    }
    return this.#snapshot(rootSha256, rootFormat);
  }

  // --- directories -------------------------------------------------------

  async #walkDirectory(
    path: string,
    logicalPath: string,
    parentOccurrenceId: string | null,
    expected: FileIdentity | null,
  ): Promise<{ sha256: string; artifactId: string }> {
    const occurrenceIdHere = logicalPath === "."
      ? rootOccurrenceId(this.#rootArtifactId)
      : occurrenceId(this.#rootArtifactId, logicalPath, "directory");
    const children: PendingChild[] = [];
    const listing: Array<
      { name: string; artifact_id: string | null; entry_kind: string; link_target?: string }
    > = [];
    const limitations: string[] = [];
    let names: string[] = [];
    let truncatedListing = false;
    try {
      // The listing must be that of the directory the walk reached under the root: the same
      // device and inode before and after reading it, and a path that still has no symlink.
      const before = await directoryIdentity(path, this.#root);
      if (expected !== null && !sameIdentity(expected, before)) {
        throw identityMismatch(path, "the directory listed is not the one the walk looked at");
      }
      for await (const entry of Deno.readDir(path)) {
        // A walk stops at max_entries anyway: never hold more names than it could visit.
        if (names.length >= this.#limits.max_entries) {
          truncatedListing = true;
          break;
        }
        names.push(entry.name);
      }
      confirmPath({ requestedPath: path, realPath: path }, before, {
        admits: (real) => isWithin(real, this.#root.realPath),
        roots: rootsOf(this.#root),
      });
    } catch (error) {
      if (isFatal(error)) throw error;
      limitations.push(`Cannot list ${logicalPath}: ${message(error)}`);
      this.#identityExact = false;
      this.#incomplete(`directory ${logicalPath} could not be listed: ${message(error)}`);
      names = [];
    }
    if (truncatedListing) {
      limitations.push(
        `${logicalPath} holds more than max_entries (${this.#limits.max_entries}) names; only that many were listed.`,
      );
      this.#identityExact = false;
      this.#incomplete(`directory ${logicalPath}: more than max_entries names`);
    }
    names.sort(compareCodePoints);
    // Reserve the directory's own slot before its children, so limits stop inside it cleanly.
    if (logicalPath !== ".") this.#countEntry();
    let stopped: unknown = null;
    const ahead = new LookAhead(path, names, this.#opensAhead, this.#root);
    try {
      for (const [index, name] of names.entries()) {
        if (stopped) break;
        const childPath = join(path, name);
        const childLogical = childLogicalPath(logicalPath, name);
        try {
          this.#checkPath(childLogical);
          const { info, source } = await ahead.take(index);
          if (info.isDirectory) {
            const sub = await this.#walkDirectory(
              childPath,
              childLogical,
              occurrenceIdHere,
              { dev: info.dev, ino: info.ino ?? -1 },
            );
            listing.push({ name, artifact_id: sub.artifactId, entry_kind: "directory" });
            children.push({
              artifact_id: sub.artifactId,
              relation: "contains",
              occurrence_id: occurrenceId(this.#rootArtifactId, childLogical, "directory"),
              logical_path: childLogical,
            });
          } else if (info.isSymlink) {
            const target = await Deno.readLink(childPath).catch(() => null);
            this.#addContentless(
              childLogical,
              "symlink",
              occurrenceIdHere,
              { ...NO_META, mode: info.mode ?? null },
              target,
              target === null ? ["The link target could not be read."] : [],
            );
            listing.push({
              name,
              artifact_id: null,
              entry_kind: "symlink",
              link_target: target ?? "",
            });
          } else if (info.isFile) {
            const visited = await this.#visitDiskFile(
              childPath,
              childLogical,
              name,
              occurrenceIdHere,
              info,
              source,
            );
            listing.push({ name, artifact_id: visited.artifactId, entry_kind: "file" });
            children.push({
              artifact_id: visited.artifactId,
              relation: "contains",
              occurrence_id: visited.occurrenceId,
              logical_path: childLogical,
            });
          } else {
            this.#addContentless(
              childLogical,
              "special",
              occurrenceIdHere,
              { ...NO_META, mode: info.mode ?? null },
              null,
              ["A device, socket or FIFO: its content is not read."],
            );
            listing.push({ name, artifact_id: null, entry_kind: "special" });
          }
        } catch (error) {
          if (isFatal(error)) {
            stopped = error;
            break;
          }
          this.#incomplete(`${childLogical}: ${message(error)}`);
        }
      }
    } finally {
      ahead.release();
    }
    const sha256 = sha256Hex(canonicalJson(listing));
    const id = artifactId(sha256);
    this.#addNode({
      artifact_id: id,
      kind: "container",
      format: "directory",
      content_kind: "directory",
      sha256,
      size: 0,
      media_type: "inode/directory",
      architecture: null,
      executable: false,
      content_state: "virtual",
      limitations,
    });
    this.#addEdges(id, children);
    if (logicalPath !== ".") {
      this.#addOccurrence({
        logicalPath,
        entryKind: "directory",
        parentOccurrenceId,
        artifactId: id,
        contentKind: "directory",
        sha256,
        size: null,
        meta: NO_META,
        linkTarget: null,
        hashStatus: "verified",
        limitations,
      });
    }
    if (stopped) throw stopped;
    return { sha256, artifactId: id };
  }

  async #visitDiskFile(
    path: string,
    logicalPath: string,
    name: string,
    parentOccurrenceId: string,
    info: Deno.FileInfo,
    openedAhead: Promise<ByteSource> | null,
  ): Promise<{ artifactId: string | null; occurrenceId: string }> {
    let source: ByteSource;
    try {
      source = await (openedAhead ??
        (info.isFile && info.size === 0 ? EMPTY_SOURCE() : openDiskFile(path, this.#root, info)));
    } catch (error) {
      this.#countEntry();
      const occ = this.#addOccurrence({
        logicalPath,
        entryKind: "file",
        parentOccurrenceId,
        artifactId: null,
        contentKind: null,
        sha256: null,
        size: info.size,
        meta: { ...NO_META, mode: info.mode ?? null },
        linkTarget: null,
        hashStatus: "unavailable",
        limitations: [`Cannot read: ${message(error)}`],
      });
      this.#identityExact = false;
      this.#incomplete(`${logicalPath} could not be read: ${message(error)}`);
      return { artifactId: null, occurrenceId: occ.occurrence_id };
    }
    try {
      const visited = await this.#visitFile({
        logicalPath,
        name,
        // A file read whole is handed over as it is, without a stream.
        ...(source.bytes
          ? { bytes: source.bytes }
          : { stream: source.stream(0, source.size, this.#options.signal) }),
        size: source.size,
        depth: 0,
        parentOccurrenceId,
        contentState: "materialized",
        meta: { ...NO_META, mode: info.mode ?? null },
        source,
        isRoot: false,
      });
      if (visited.artifactId === null) this.#identityExact = false;
      return { artifactId: visited.artifactId, occurrenceId: visited.occurrenceId };
    } finally {
      source.close();
    }
  }

  // --- one file's content --------------------------------------------------

  async #visitFile(input: {
    logicalPath: string;
    name: string;
    /** The content as a stream, or (`bytes`) whole. */
    stream?: ReadableStream<Uint8Array>;
    bytes?: Uint8Array;
    size: number | null;
    depth: number;
    parentOccurrenceId: string | null;
    contentState: ArtifactNode["content_state"];
    meta: MemberMeta;
    source: ByteSource | null;
    isRoot: boolean;
    entryKind?: "file";
  }): Promise<{
    artifactId: string | null;
    occurrenceId: string;
    sha256: string | null;
    format: ArtifactNode["format"];
  }> {
    const { logicalPath } = input;
    if (!input.isRoot) this.#countEntry();
    const occId = input.isRoot
      ? rootOccurrenceId(this.#rootArtifactId)
      : occurrenceId(this.#rootArtifactId, logicalPath, "file");
    const limitations = [...input.meta.limitations];
    const reader = input.bytes ? null : input.stream!.getReader();
    const hash = createHash("sha256");
    let size = 0;
    let overEntryLimit = false;
    const capturing = this.#options.capture?.paths.has(logicalPath) ? this.#options.capture : null;
    const kept: Uint8Array[] = [];
    const count = (chunk: Uint8Array): void => {
      size += chunk.length;
      if (capturing) {
        if (size > capturing.maxBytes) {
          throw new ArchiveLimitError(
            "max_entry_bytes",
            size,
            capturing.maxBytes,
            `${logicalPath} is larger than ${capturing.maxBytes} bytes`,
          );
        }
        kept.push(chunk);
      }
      this.#bytesRead += chunk.length;
      if (size > this.#limits.max_entry_bytes) overEntryLimit = true;
      if (!overEntryLimit) hash.update(chunk);
      if (this.#bytesRead > this.#limits.max_total_bytes) {
        throw new StopScan(
          `max_total_bytes (${this.#limits.max_total_bytes}) reached while reading ${logicalPath}`,
        );
      }
      if (this.#bytesRead - this.#reported >= PROGRESS_EVERY) {
        this.#reported = this.#bytesRead;
        void this.#options.onProgress?.(this.#bytesRead, this.#occurrences.length);
      }
    };
    // The head decides the kind; it is replayed in front of the rest.
    const headParts: Uint8Array[] = [];
    let headLength = 0;
    let ended = false;
    let readError: unknown = null;
    if (input.bytes) {
      headParts.push(input.bytes);
      ended = true;
    } else {
      try {
        while (headLength < HEAD_BYTES) {
          const { value, done } = await reader!.read();
          if (done) {
            ended = true;
            break;
          }
          headParts.push(value);
          headLength += value.length;
        }
      } catch (error) {
        readError = error;
      }
    }
    const head = concat(headParts).subarray(0, HEAD_BYTES);
    const sniffed = sniff(head, input.name);
    const children: PendingChild[] = [];
    let format = formatOf(sniffed);
    let stopped: unknown = null;

    const content = replay(headParts, ended || readError !== null ? null : reader, count);
    const descend = readError === null && sniffed.container !== null &&
      input.depth < this.#limits.max_depth;
    try {
      if (readError) throw readError;
      if (descend && sniffed.container !== null) {
        try {
          await this.#descend(sniffed, parserView(content), input, occId, children);
        } catch (error) {
          if (isFatal(error)) {
            stopped = error;
          } else if (error instanceof ArchiveLimitError) {
            limitations.push(`Not fully traversed: ${error.message}`);
            this.#incomplete(`${logicalPath}: ${error.message}`);
          } else if (error instanceof ArchiveFormatError) {
            limitations.push(`Damaged ${error.format}: ${error.message}`);
            this.#incomplete(`${logicalPath}: ${error.message}`);
            if (/crc/i.test(error.message) && sniffed.container === "gzip") {
              this.#integrity({
                logical_path: logicalPath,
                check: "gzip-crc32",
                declared: "gzip trailer",
                observed: error.message,
              });
            }
          } else throw error;
        }
      } else if (sniffed.container !== null && input.depth >= this.#limits.max_depth) {
        limitations.push(
          `A ${sniffed.container} archive at nesting depth ${input.depth}: max_depth (${this.#limits.max_depth}) stops descent.`,
        );
        this.#incomplete(`${logicalPath}: max_depth reached`);
      }
      if (!stopped) await drainSource(content);
    } catch (error) {
      if (isFatal(error)) {
        stopped ??= error;
      } else if (error instanceof ArchiveFormatError || error instanceof ArchiveLimitError) {
        // The member's own bytes could not be read to the end (a damaged enclosing stream).
        readError = error;
      } else {
        readError = error;
      }
    }
    if (readError && !stopped) {
      if (readError instanceof ArchiveFormatError && /crc|checksum|size/i.test(readError.message)) {
        // The enclosing zip entry failed its check after every byte was read.
        this.#integrity({
          logical_path: logicalPath,
          check: "crc32",
          declared: "zip central directory",
          observed: readError.message,
        });
      }
      limitations.push(`Content not fully read: ${message(readError)}`);
      this.#incomplete(`${logicalPath}: ${message(readError)}`);
    }
    reader?.releaseLock();
    const complete = !readError && !stopped && !overEntryLimit;
    const sha256 = complete ? hash.digest("hex") : null;
    if (!complete) hash.destroy?.();
    if (overEntryLimit) {
      limitations.push(
        `Not hashed: larger than max_entry_bytes (${this.#limits.max_entry_bytes}).`,
      );
      this.#incomplete(`${logicalPath}: larger than max_entry_bytes`);
    }
    if (capturing && sha256 !== null && !this.capturedPaths.has(logicalPath)) {
      this.capturedPaths.add(logicalPath);
      try {
        await capturing.onMember(logicalPath, { bytes: concat(kept), sha256 });
      } catch (error) {
        throw new SinkFailure(error);
      }
      kept.length = 0;
      if (this.capturedPaths.size === capturing.paths.size) throw new CaptureDone();
    } else if (capturing && sha256 === null) {
      throw readError ?? stopped ?? new Error(`${logicalPath} could not be read`);
    }
    const id = sha256 ? artifactId(sha256) : null;
    if (id && sha256) {
      const details = describeBinary(head, sniffed);
      this.#addNode({
        artifact_id: id,
        kind: details.kind,
        format,
        content_kind: sniffed.kind,
        sha256,
        size,
        media_type: mediaType(sniffed),
        architecture: details.architecture,
        executable: details.kind === "executable",
        content_state: input.contentState,
        limitations: [],
      });
      this.#addEdges(id, children);
    } else if (children.length > 0) {
      limitations.push(
        `${children.length} member(s) were read, but this content has no id, so no edges to them are recorded.`,
      );
    }
    if (input.isRoot) format = format === "file" && sniffed.kind === "data" ? "file" : format;
    const mode = input.meta.mode;
    this.#addOccurrence({
      logicalPath,
      entryKind: "file",
      parentOccurrenceId: input.parentOccurrenceId,
      artifactId: id,
      contentKind: sniffed.kind,
      sha256,
      size: readError || stopped ? null : size,
      meta: input.meta,
      linkTarget: null,
      hashStatus: sha256 ? "verified" : overEntryLimit ? "not-hashed-limit" : "unavailable",
      limitations,
      executable: mode !== null && (mode & 0o111) !== 0,
      rootOccurrence: input.isRoot,
    });
    if (stopped) throw stopped;
    return { artifactId: id, occurrenceId: occId, sha256, format };
  }

  async #descend(
    sniffed: Sniffed,
    body: ReadableStream<Uint8Array>,
    input: { logicalPath: string; name: string; depth: number; source: ByteSource | null },
    parentOccurrenceId: string,
    children: PendingChild[],
  ): Promise<void> {
    const container = sniffed.container!;
    const depth = input.depth + 1;
    const readOptions = {
      maxEntries: this.#limits.max_entries,
      maxPathBytes: this.#limits.max_path_bytes,
      signal: this.#options.signal,
    };
    if (
      container === "gzip" || container === "xz" || container === "zstd" || container === "bzip2"
    ) {
      const inner = decompressedName(input.name, container);
      const logicalPath = childLogicalPath(input.logicalPath, inner);
      const stream = decompress(container as Compression, body, {
        maxOutputBytes: this.#limits.max_entry_bytes,
        outputLimit: "max_entry_bytes",
        maxRatio: this.#limits.max_compression_ratio,
        signal: this.#options.signal,
      });
      const visited = await this.#visitFile({
        logicalPath,
        name: inner,
        stream,
        size: null,
        depth,
        parentOccurrenceId,
        contentState: "embedded",
        meta: NO_META,
        source: null,
        isRoot: false,
      });
      children.push({
        artifact_id: visited.artifactId,
        relation: "extracts",
        occurrence_id: visited.occurrenceId,
        logical_path: logicalPath,
      });
      return;
    }
    if (container === "tar" || container === "ar") {
      const entries = container === "tar" ? readTar(body, readOptions) : readAr(body, readOptions);
      const directories: Array<{ logicalPath: string; occurrence: ArtifactOccurrence }> = [];
      const members: ArchiveMember[] = [];
      for await (const { entry, body: entryBody } of entries) {
        if ("isSymbolTable" in entry && entry.isSymbolTable) continue;
        const named = this.#memberPath(input.logicalPath, entry.name);
        if (named === null) continue;
        const type = "type" in entry ? entry.type : "file";
        const meta: MemberMeta = {
          declared_size: entry.size,
          compressed_size: null,
          mode: entry.mode,
          source_location: { offset: entry.dataOffset, length: entry.size },
          original_name_hex: named.originalHex,
          limitations: [...named.limitations, ...entry.warnings],
        };
        const linkTarget = "linkTarget" in entry && entry.linkTarget ? entry.linkTarget.text : null;
        if (type === "file") {
          await this.#visitMember(
            named.path,
            entry.name,
            entryBody(),
            entry.size,
            {
              depth,
              parentOccurrenceId,
              meta,
            },
            children,
            members,
          );
        } else if (type === "directory") {
          directories.push(this.#archiveDirectory(named.path, parentOccurrenceId, meta));
        } else if (type === "hardlink") {
          this.#countEntry();
          const targetPath = linkTarget === null ? null : this.#memberPath(input.logicalPath, {
            text: linkTarget,
            bytes: new TextEncoder().encode(linkTarget),
            validUtf8: true,
          })?.path ?? null;
          const target = targetPath ? this.#occurrenceByPath.get(targetPath) : undefined;
          this.#addOccurrence({
            logicalPath: named.path,
            entryKind: "hardlink",
            parentOccurrenceId,
            artifactId: target?.artifact_id ?? null,
            contentKind: target?.content_kind ?? null,
            sha256: target?.sha256 ?? null,
            size: target?.size ?? null,
            meta,
            linkTarget,
            hashStatus: target?.artifact_id ? "verified" : "unavailable",
            limitations: [
              ...meta.limitations,
              target?.artifact_id
                ? `A hard link: its content is that of ${targetPath}.`
                : `A hard link to ${
                  JSON.stringify(linkTarget)
                }, which is not an earlier member of this archive.`,
            ],
          });
          members.push({
            logicalPath: named.path,
            artifact_id: target?.artifact_id ?? null,
            entry_kind: "hardlink",
          });
        } else if (type === "symlink") {
          this.#addContentless(
            named.path,
            "symlink",
            parentOccurrenceId,
            meta,
            linkTarget,
            meta.limitations,
          );
          members.push({
            logicalPath: named.path,
            artifact_id: null,
            entry_kind: "symlink",
            link_target: linkTarget ?? "",
          });
        } else {
          this.#addContentless(named.path, "special", parentOccurrenceId, meta, linkTarget, [
            ...meta.limitations,
            `A ${type} entry: it has no content to read.`,
          ]);
          members.push({ logicalPath: named.path, artifact_id: null, entry_kind: "special" });
        }
      }
      this.#closeArchiveDirectories(directories, members, children);
      return;
    }
    if (container === "zip") {
      let source = input.source;
      let owned = false;
      if (!source) {
        source = memorySource(await collect(body, this.#limits.max_entry_bytes, input.logicalPath));
        owned = true;
      }
      try {
        await this.#zipMembers(source, input.logicalPath, depth, parentOccurrenceId, children);
      } finally {
        if (owned) source.close();
      }
      return;
    }
  }

  async #zipMembers(
    source: ByteSource,
    parentLogical: string,
    depth: number,
    parentOccurrenceId: string,
    children: PendingChild[],
  ): Promise<void> {
    const directory = await readZipDirectory(source, {
      maxEntries: this.#limits.max_entries,
      maxPathBytes: this.#limits.max_path_bytes,
    });
    for (const warning of directory.warnings.slice(0, 20)) {
      this.#note(`${parentLogical}: ${warning}`);
    }
    const overlapping = new Set(directory.overlapping);
    const directories: Array<{ logicalPath: string; occurrence: ArtifactOccurrence }> = [];
    const members: ArchiveMember[] = [];
    for (const [index, entry] of directory.entries.entries()) {
      const named = this.#memberPath(parentLogical, entry.name);
      if (named === null) continue;
      const meta: MemberMeta = {
        declared_size: entry.uncompressedSize,
        compressed_size: entry.compressedSize,
        mode: entry.mode,
        source_location: { offset: entry.dataOffset, length: entry.compressedSize },
        original_name_hex: named.originalHex,
        limitations: [...named.limitations, ...entry.warnings],
      };
      if (entry.type === "directory") {
        directories.push(this.#archiveDirectory(named.path, parentOccurrenceId, meta));
        continue;
      }
      const unreadable = entry.encrypted
        ? "Encrypted: the content cannot be read."
        : overlapping.has(index)
        ? "Its data overlaps another entry's (a zip-bomb technique): not read."
        : null;
      if (unreadable || entry.type === "symlink") {
        let linkTarget: string | null = null;
        if (!unreadable && entry.type === "symlink" && entry.uncompressedSize <= 4096) {
          try {
            linkTarget = new TextDecoder().decode(
              await collect(
                zipEntryBody(source, entry, this.#decompressLimits()),
                4096,
                named.path,
              ),
            );
          } catch (error) {
            meta.limitations.push(`Link target unreadable: ${message(error)}`);
          }
        }
        if (unreadable) this.#incomplete(`${named.path}: ${unreadable}`);
        this.#addContentless(
          named.path,
          entry.type === "symlink" ? "symlink" : "file",
          parentOccurrenceId,
          meta,
          linkTarget,
          unreadable ? [...meta.limitations, unreadable] : meta.limitations,
          entry.encrypted,
        );
        members.push({
          logicalPath: named.path,
          artifact_id: null,
          entry_kind: entry.type === "symlink" ? "symlink" : "file",
          link_target: linkTarget ?? "",
        });
        continue;
      }
      await this.#visitMember(
        named.path,
        entry.name,
        zipEntryBody(source, entry, this.#decompressLimits()),
        entry.uncompressedSize,
        { depth, parentOccurrenceId, meta },
        children,
        members,
      );
    }
    this.#closeArchiveDirectories(directories, members, children);
  }

  /** An archive member with content: visited, then listed as a child and a directory member. */
  async #visitMember(
    logicalPath: string,
    name: ArchiveEntryName,
    stream: ReadableStream<Uint8Array>,
    size: number,
    at: { depth: number; parentOccurrenceId: string; meta: MemberMeta },
    children: PendingChild[],
    members: ArchiveMember[],
  ): Promise<void> {
    const visited = await this.#visitFile({
      logicalPath,
      name: lastSegment(name.text),
      stream,
      size,
      depth: at.depth,
      parentOccurrenceId: at.parentOccurrenceId,
      contentState: "embedded",
      meta: at.meta,
      source: null,
      isRoot: false,
    });
    children.push({
      artifact_id: visited.artifactId,
      relation: "contains",
      occurrence_id: visited.occurrenceId,
      logical_path: logicalPath,
    });
    members.push({ logicalPath, artifact_id: visited.artifactId, entry_kind: "file" });
  }

  /** A directory entry of an archive; its digest is filled in by #closeArchiveDirectories. */
  #archiveDirectory(
    logicalPath: string,
    parentOccurrenceId: string,
    meta: MemberMeta,
  ): { logicalPath: string; occurrence: ArtifactOccurrence } {
    this.#countEntry();
    const occurrence = this.#addOccurrence({
      logicalPath,
      entryKind: "directory",
      parentOccurrenceId,
      artifactId: null,
      contentKind: "directory",
      sha256: null,
      size: null,
      meta,
      linkTarget: null,
      hashStatus: "verified",
      limitations: meta.limitations,
    });
    return { logicalPath, occurrence };
  }

  #decompressLimits(): DecompressOptions {
    return {
      maxOutputBytes: this.#limits.max_entry_bytes,
      outputLimit: "max_entry_bytes",
      maxRatio: this.#limits.max_compression_ratio,
      signal: this.#options.signal,
    };
  }

  /** Gives directory entries inside an archive the digest of their direct members. */
  #closeArchiveDirectories(
    directories: Array<{ logicalPath: string; occurrence: ArtifactOccurrence }>,
    members: ArchiveMember[],
    children: PendingChild[],
  ): void {
    // Deepest first, so a directory's digest can include its subdirectories'.
    directories.sort((a, b) => depthOf(b.logicalPath) - depthOf(a.logicalPath));
    const all = [...members];
    for (const directory of directories) {
      const prefix = directory.logicalPath + "/";
      const direct = all
        .filter((m) =>
          m.logicalPath.startsWith(prefix) && !m.logicalPath.slice(prefix.length).includes("/")
        )
        .map((m) => ({
          name: m.logicalPath.slice(prefix.length),
          artifact_id: m.artifact_id,
          entry_kind: m.entry_kind,
          ...(m.link_target === undefined ? {} : { link_target: m.link_target }),
        }))
        .sort((a, b) => compareCodePoints(a.name, b.name));
      const sha256 = sha256Hex(canonicalJson(direct));
      const id = artifactId(sha256);
      this.#addNode({
        artifact_id: id,
        kind: "container",
        format: "directory",
        content_kind: "directory",
        sha256,
        size: 0,
        media_type: "inode/directory",
        architecture: null,
        executable: false,
        content_state: "virtual",
        limitations: [],
      });
      directory.occurrence.artifact_id = id;
      directory.occurrence.sha256 = sha256;
      all.push({ logicalPath: directory.logicalPath, artifact_id: id, entry_kind: "directory" });
      children.push({
        artifact_id: id,
        relation: "contains",
        occurrence_id: directory.occurrence.occurrence_id,
        logical_path: directory.logicalPath,
      });
    }
  }

  // --- names ---------------------------------------------------------------

  /**
   * The logical path of an archive member: hostile names (absolute, `..`,
   * NUL, backslashes, invalid UTF-8) are escaped into a safe path and the
   * original bytes kept; null when the name is empty.
   */
  #memberPath(
    parentLogical: string,
    name: ArchiveEntryName,
  ): { path: string; originalHex: string | null; limitations: string[] } | null {
    const escaped = escapeMemberName(name);
    if (escaped.segments.length === 0) return null;
    const path = childLogicalPath(parentLogical, escaped.segments.join("/"));
    this.#checkPath(path);
    return {
      path,
      originalHex: escaped.hostile ? hexOf(name.bytes) : null,
      limitations: escaped.hostile ? [`Hostile member name escaped: ${escaped.reason}.`] : [],
    };
  }

  #checkPath(path: string): void {
    if (new TextEncoder().encode(path).length > this.#limits.max_path_bytes) {
      throw new StopScan(
        `max_path_bytes (${this.#limits.max_path_bytes}) exceeded by ${path.slice(0, 200)}…`,
      );
    }
  }

  // --- bookkeeping ---------------------------------------------------------

  #countEntry(): void {
    this.#options.signal?.throwIfAborted();
    // The root occurrence is not an entry; everything else counts.
    if (this.#entries >= this.#limits.max_entries) {
      throw new StopScan(`max_entries (${this.#limits.max_entries}) reached`);
    }
    this.#entries++;
  }
  #entries = 0;

  /**
   * Counts and records an entry whose content is not read: a symbolic link, a
   * special file, or a member that cannot be read (encrypted, overlapping).
   */
  #addContentless(
    logicalPath: string,
    entryKind: "symlink" | "special" | "file",
    parentOccurrenceId: string | null,
    meta: MemberMeta,
    linkTarget: string | null,
    limitations: string[],
    encrypted?: boolean,
  ): void {
    this.#countEntry();
    this.#addOccurrence({
      logicalPath,
      entryKind,
      parentOccurrenceId,
      artifactId: null,
      contentKind: null,
      sha256: null,
      size: null,
      meta,
      linkTarget,
      hashStatus: "unavailable",
      limitations,
      ...(encrypted === undefined ? {} : { encrypted }),
    });
  }

  #addOccurrence(input: {
    logicalPath: string;
    entryKind: ArtifactOccurrence["entry_kind"];
    parentOccurrenceId: string | null;
    artifactId: string | null;
    contentKind: ArtifactOccurrence["content_kind"];
    sha256: string | null;
    size: number | null;
    meta: MemberMeta;
    linkTarget: string | null;
    hashStatus: ArtifactOccurrence["hash_status"];
    limitations: string[];
    executable?: boolean;
    encrypted?: boolean;
    rootOccurrence?: boolean;
  }): ArtifactOccurrence {
    const occurrence: ArtifactOccurrence = {
      occurrence_id: input.rootOccurrence ? rootOccurrenceId(this.#rootArtifactId) : occurrenceId(
        this.#rootArtifactId,
        input.logicalPath,
        input.entryKind === "hardlink" ? "hardlink" : input.entryKind,
      ),
      artifact_id: input.artifactId,
      parent_occurrence_id: input.parentOccurrenceId,
      logical_path: input.logicalPath,
      entry_kind: input.entryKind,
      content_kind: input.contentKind,
      sha256: input.sha256,
      size: input.size,
      declared_size: input.meta.declared_size,
      compressed_size: input.meta.compressed_size,
      mode: input.meta.mode,
      link_target: input.linkTarget,
      executable: input.executable ??
        (input.meta.mode !== null && input.entryKind === "file" && (input.meta.mode & 0o111) !== 0),
      encrypted: input.encrypted ?? false,
      hash_status: input.hashStatus,
      source_location: input.meta.source_location,
      original_name_hex: input.meta.original_name_hex,
      limitations: input.limitations.slice(0, 20),
    };
    const existing = this.#occurrenceByPath.get(input.logicalPath);
    if (existing) {
      // A second member with the same path (tar appends, duplicate zip names): the later wins, as on extraction.
      existing.limitations.push(
        "A later member with the same path replaced this one in the listing.",
      );
      const index = this.#occurrences.indexOf(existing);
      occurrence.limitations.push("Another member with the same path came earlier in the archive.");
      this.#occurrences[index] = occurrence;
    } else {
      this.#occurrences.push(occurrence);
    }
    this.#occurrenceByPath.set(input.logicalPath, occurrence);
    return occurrence;
  }

  #addNode(node: ArtifactNode): void {
    if (!this.#nodes.has(node.artifact_id)) this.#nodes.set(node.artifact_id, node);
  }

  #addEdges(parentArtifactId: string, children: PendingChild[]): void {
    let ordinal = 0;
    for (const child of children) {
      if (child.artifact_id === null) continue;
      const edge: ArtifactEdge = {
        edge_id: "",
        ordinal: ordinal++,
        parent_artifact_id: parentArtifactId,
        child_artifact_id: child.artifact_id,
        relation: child.relation,
        occurrence_id: child.occurrence_id,
        logical_path: child.logical_path,
        producer: null,
      };
      edge.edge_id = edgeId(edge);
      if (!this.#edges.has(edge.edge_id)) this.#edges.set(edge.edge_id, edge);
    }
  }

  #integrity(value: Omit<IntegrityContradiction, "contradiction_id">): void {
    const contradiction: IntegrityContradiction = {
      contradiction_id: contradictionId({
        root_artifact_id: this.#rootArtifactId,
        logical_path: value.logical_path,
        declared: value.declared,
        observed: value.observed,
      }),
      ...value,
    };
    const allowance = this.#options.continueOnIntegrity;
    if (!allowance) throw new IntegrityFailure(contradiction);
    if (this.#contradictions.length >= Math.min(100, allowance.maxMismatches)) {
      throw new IntegrityFailure(contradiction);
    }
    this.#contradictions.push(contradiction);
    this.#incomplete(`${value.logical_path}: integrity check failed`);
  }

  #incomplete(reason: string): void {
    this.#complete = false;
    this.#note(`Incomplete: ${reason}`);
  }

  #note(text: string): void {
    if (this.#limitations.length < MAX_LIMITATIONS) this.#limitations.push(text);
    else if (this.#limitations.length === MAX_LIMITATIONS) {
      this.#limitations.push("Further limitations were omitted.");
    }
  }

  /** Replaces the provisional root id of a directory scan in every id that embeds it. */
  #rekeyRoot(rootArtifactIdFinal: string): void {
    const remap = new Map<string, string>();
    for (const occurrence of this.#occurrences) {
      const next = occurrenceId(
        rootArtifactIdFinal,
        occurrence.logical_path,
        occurrence.entry_kind,
      );
      remap.set(occurrence.occurrence_id, next);
      occurrence.occurrence_id = next;
    }
    remap.set(rootOccurrenceId(PROVISIONAL_ROOT), rootOccurrenceId(rootArtifactIdFinal));
    for (const occurrence of this.#occurrences) {
      if (occurrence.parent_occurrence_id) {
        occurrence.parent_occurrence_id = remap.get(occurrence.parent_occurrence_id) ??
          occurrence.parent_occurrence_id;
      }
    }
    const edges = [...this.#edges.values()];
    this.#edges.clear();
    for (const edge of edges) {
      edge.occurrence_id = remap.get(edge.occurrence_id) ?? edge.occurrence_id;
      edge.edge_id = edgeId(edge);
      this.#edges.set(edge.edge_id, edge);
    }
    for (const contradiction of this.#contradictions) {
      contradiction.contradiction_id = contradictionId({
        root_artifact_id: rootArtifactIdFinal,
        logical_path: contradiction.logical_path,
        declared: contradiction.declared,
        observed: contradiction.observed,
      });
    }
    this.#rootArtifactId = rootArtifactIdFinal;
  }

  #snapshot(rootSha256: string, rootFormat: ArtifactNode["format"]): ArtifactSnapshot {
    const rootId = artifactId(rootSha256);
    if (this.#root.kind === "directory") {
      this.#occurrences.push({
        occurrence_id: rootOccurrenceId(rootId),
        artifact_id: rootId,
        parent_occurrence_id: null,
        logical_path: ".",
        entry_kind: "directory",
        content_kind: "directory",
        sha256: rootSha256,
        size: null,
        declared_size: null,
        compressed_size: null,
        mode: null,
        link_target: null,
        executable: false,
        encrypted: false,
        hash_status: "verified",
        source_location: null,
        original_name_hex: null,
        limitations: [],
      });
    }
    if (!this.#nodes.has(rootId) && this.#root.kind === "directory") {
      this.#nodes.set(rootId, {
        artifact_id: rootId,
        kind: "container",
        format: "directory",
        content_kind: "directory",
        sha256: rootSha256,
        size: 0,
        media_type: "inode/directory",
        architecture: null,
        executable: false,
        content_state: "virtual",
        limitations: [
          "The identity recorded when the directory was opened; this walk did not cover every entry.",
        ],
      });
    }
    if (!this.#nodes.has(rootId)) {
      // The root's own content could not be hashed to the end: keep a node for its opened identity.
      this.#nodes.set(rootId, {
        artifact_id: rootId,
        kind: "unknown",
        format: rootFormat,
        content_kind: "data",
        sha256: rootSha256,
        size: 0,
        media_type: null,
        architecture: null,
        executable: false,
        content_state: "materialized",
        limitations: ["The content could not be read to the end during this scan."],
      });
    }
    const nodes = [...this.#nodes.values()].sort((a, b) =>
      compareCodePoints(a.artifact_id, b.artifact_id)
    );
    const occurrences = [...this.#occurrences].sort((a, b) =>
      compareCodePoints(a.logical_path, b.logical_path)
    );
    const edges = [...this.#edges.values()].sort((a, b) => compareCodePoints(a.edge_id, b.edge_id));
    const contradictions = [...this.#contradictions].sort((a, b) =>
      compareCodePoints(a.contradiction_id, b.contradiction_id)
    );
    const graphSha256 = sha256Hex(canonicalJson({
      nodes,
      occurrences,
      edges,
      integrity_contradictions: contradictions,
    }));
    return {
      manifest: {
        schema_version: 1,
        manifest_id: manifestId(rootId, graphSha256),
        root_artifact_id: rootId,
        root_sha256: rootSha256,
        root_format: rootFormat,
        graph_sha256: graphSha256,
        node_count: nodes.length,
        occurrence_count: occurrences.length,
        edge_count: edges.length,
        complete: this.#complete,
      },
      nodes,
      occurrences,
      edges,
      integrity_contradictions: contradictions,
      limits: { ...this.#limits },
      limitations: [...this.#limitations],
      bytes_read: this.#bytesRead,
    };
  }
}

const PROVISIONAL_ROOT = "art_" + "0".repeat(64);

// --- looking ahead in a directory ------------------------------------------

/** How many entries of a directory are looked at (lstat) ahead of the walk. */
const LOOK_AHEAD_ENTRIES = 8;
/** Most files held open ahead of the walk, scan-wide: each holds at most one 1 MiB chunk. */
const OPEN_AHEAD_FILES = 16;

/** One child of a directory, looked at ahead of the walk. */
interface ChildProbe {
  info: Deno.FileInfo;
  /** A regular file, opened ahead with its first chunk being read; null: open it when visited. */
  source: Promise<ByteSource> | null;
}

/**
 * The children of one directory, looked at (lstat) a few entries ahead of
 * the walk, regular files opened with their first chunk already being read,
 * so the waits for the file system overlap each other and the hashing of
 * earlier files. The walk takes each result in order, as it would have asked
 * for it; what it does not take is closed by {@linkcode LookAhead.release}.
 */
class LookAhead {
  readonly #path: string;
  readonly #names: readonly string[];
  readonly #budget: { open: number };
  readonly #root: ScanRoot;
  readonly #pending = new Map<number, Promise<ChildProbe & { counted: boolean }>>();
  #started = 0;

  constructor(
    path: string,
    names: readonly string[],
    budget: { open: number },
    root: ScanRoot,
  ) {
    this.#root = root;
    this.#path = path;
    this.#names = names;
    this.#budget = budget;
  }

  /** The child at `index`; rejects as `Deno.lstat` would have. */
  async take(index: number): Promise<ChildProbe> {
    const end = Math.min(this.#names.length, index + LOOK_AHEAD_ENTRIES);
    while (this.#started < end) this.#start(this.#started++);
    const pending = this.#pending.get(index) ?? this.#probe(index);
    this.#pending.delete(index);
    const probe = await pending;
    if (probe.counted) this.#budget.open--;
    return { info: probe.info, source: probe.source };
  }

  /** Closes whatever was opened ahead and not taken. */
  release(): void {
    for (const pending of this.#pending.values()) {
      pending.then((probe) => {
        if (probe.counted) this.#budget.open--;
        probe.source?.then((source) => source.close(), () => {});
      }, () => {});
    }
    this.#pending.clear();
  }

  #start(index: number): void {
    const pending = this.#probe(index);
    pending.catch(() => {}); // reported when taken
    this.#pending.set(index, pending);
  }

  async #probe(index: number): Promise<ChildProbe & { counted: boolean }> {
    const path = join(this.#path, this.#names[index]!);
    const info = await Deno.lstat(path);
    // An empty file needs no open: there is nothing in it to read, so nothing can be read
    // from elsewhere either.
    if (info.isFile && info.size === 0) {
      return { info, source: Promise.resolve(EMPTY_SOURCE()), counted: false };
    }
    if (!info.isFile || this.#budget.open >= OPEN_AHEAD_FILES) {
      return { info, source: null, counted: false };
    }
    this.#budget.open++;
    const source = openDiskFile(path, this.#root, info);
    source.catch(() => {}); // reported when visited
    return { info, source, counted: true };
  }
}

/** The content of an empty regular file, read without opening it. */
const EMPTY_SOURCE = (): ByteSource => memorySource(new Uint8Array(0));

/** Files up to this size are read whole in one operation rather than opened and streamed. */
const WHOLE_FILE_BYTES = 256 * 1024;

/**
 * A regular file under the scan's root as a byte source, opened through the
 * root fence's verified open: never blocking on a special file, and only if
 * the handle is the file the walk looked at (`info`, its device and inode)
 * and its path still lies under the root without a symlink. A small one (by
 * its size) is read whole at once, a larger one has its first chunk read ahead.
 */
async function openDiskFile(
  path: string,
  root: ScanRoot,
  info: Deno.FileInfo | null,
  options: { whole?: boolean } = {},
): Promise<ByteSource> {
  const file = await openVerified({ requestedPath: path, realPath: path }, {
    admits: (real) => root.kind === "directory" ? isWithin(real, root.realPath) : real === path,
    roots: rootsOf(root),
    expect: info === null ? undefined : { dev: info.dev, ino: info.ino ?? -1 },
  });
  const source = verifiedSource(file, { readFirstChunk: options.whole !== false });
  if (options.whole === false || file.size > WHOLE_FILE_BYTES) return source;
  try {
    return memorySource(await source.read(0, file.size));
  } finally {
    source.close();
  }
}

/** The scan's root as a fence root, for messages. */
function rootsOf(root: ScanRoot): RootDirectory[] {
  return [{ path: root.realPath, realPath: root.realPath }];
}

/** A directory's identity, refusing one whose path no longer resolves to itself under the root. */
async function directoryIdentity(path: string, root: ScanRoot): Promise<FileIdentity> {
  const real = await Deno.realPath(path);
  if (real !== path || !isWithin(real, root.realPath)) {
    throw outsideRoots(path, rootsOf(root), real);
  }
  const info = await Deno.lstat(path);
  if (!info.isDirectory) throw identityMismatch(path, "it is no longer a directory");
  return { dev: info.dev, ino: info.ino ?? -1 };
}

// --- helpers ---------------------------------------------------------------

/** Hashes a whole source. */
export async function hashSource(source: ByteSource, signal?: AbortSignal): Promise<string> {
  const hash: Hash = createHash("sha256");
  for await (const chunk of source.stream(0, source.size, signal)) hash.update(chunk);
  return hash.digest("hex");
}

function childLogicalPath(parent: string, name: string): string {
  return parent === "." ? name : `${parent}/${name}`;
}

function lastSegment(path: string): string {
  const parts = path.split("/").filter((p) => p !== "");
  return parts[parts.length - 1] ?? path;
}

function depthOf(path: string): number {
  return path.split("/").length;
}

/** Escapes one archive member name into safe path segments. */
export function escapeMemberName(name: ArchiveEntryName): {
  segments: string[];
  hostile: boolean;
  reason: string;
} {
  const reasons: string[] = [];
  let text = name.text;
  if (!name.validUtf8) reasons.push("not valid UTF-8");
  if (text.includes("\0")) reasons.push("contains NUL");
  if (text.includes("\\")) reasons.push("contains a backslash");
  if (text.startsWith("/")) reasons.push("absolute");
  text = text.replace(/^\.\//, "");
  const raw = text.split("/");
  const segments: string[] = [];
  for (const segment of raw) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (!reasons.includes("contains ..")) reasons.push("contains ..");
      segments.push("%2E%2E");
      continue;
    }
    segments.push(
      segment.replace(
        // deno-lint-ignore no-control-regex
        /[%\0\\\u0001-\u001f\u007f\ufffd]/g,
        (c: string) =>
          c === "\ufffd"
            ? "%EF%BF%BD"
            : "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"),
      ),
    );
  }
  const hostile = reasons.length > 0;
  return { segments, hostile, reason: reasons.join(", ") };
}

function hexOf(bytes: Uint8Array): string {
  return [...bytes.subarray(0, 2048)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function decompressedName(name: string, container: string): string {
  const lower = name.toLowerCase();
  if (lower.endsWith(".tgz")) return name.slice(0, -4) + ".tar";
  if (lower.endsWith(".txz")) return name.slice(0, -4) + ".tar";
  for (const ext of [".gz", ".xz", ".zst", ".zstd", ".bz2"]) {
    if (lower.endsWith(ext) && name.length > ext.length) return name.slice(0, -ext.length);
  }
  return `${name}.${container}-payload`;
}

function formatOf(sniffed: Sniffed): ArtifactNode["format"] {
  if (sniffed.container === "ar" && sniffed.flavour === "deb") return "deb";
  if (sniffed.container === "zip") {
    const flavour = sniffed.flavour;
    return flavour === "jar" || flavour === "apk" || flavour === "whl" || flavour === "ipa" ||
        flavour === "nupkg"
      ? flavour
      : "zip";
  }
  if (sniffed.container) return sniffed.container;
  if (sniffed.kind === "script" || sniffed.kind === "text" || sniffed.kind === "data") {
    return "file";
  }
  return sniffed.kind as ArtifactNode["format"];
}

function mediaType(sniffed: Sniffed): string | null {
  switch (sniffed.container ?? sniffed.kind) {
    case "gzip":
      return "application/gzip";
    case "xz":
      return "application/x-xz";
    case "zstd":
      return "application/zstd";
    case "tar":
      return "application/x-tar";
    case "zip":
      return "application/zip";
    case "ar":
      return sniffed.flavour === "deb"
        ? "application/vnd.debian.binary-package"
        : "application/x-archive";
    case "wasm":
      return "application/wasm";
    case "text":
    case "script":
      return "text/plain";
    default:
      return null;
  }
}

const ELF_MACHINES: Record<number, string> = {
  3: "x86",
  62: "x86_64",
  40: "arm",
  183: "arm64",
  243: "riscv",
  8: "mips",
  20: "ppc",
  21: "ppc64",
  22: "s390",
};

/** Executable or library, and the architecture, from the first bytes of a binary. */
function describeBinary(
  head: Uint8Array,
  sniffed: Sniffed,
): { kind: ArtifactNode["kind"]; architecture: string | null } {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  try {
    if (sniffed.kind === "elf" && head.length >= 20) {
      const little = head[5] === 1;
      const is64 = head[4] === 2;
      const type = view.getUint16(16, little);
      const architecture = ELF_MACHINES[view.getUint16(18, little)] ?? null;
      if (type === 2) return { kind: "executable", architecture };
      if (type === 1) return { kind: "object", architecture };
      if (type === 3) {
        // A PIE has a program interpreter; a shared library normally does not.
        const phoff = is64 ? Number(view.getBigUint64(32, little)) : view.getUint32(28, little);
        const phentsize = view.getUint16(is64 ? 54 : 42, little);
        const phnum = view.getUint16(is64 ? 56 : 44, little);
        for (let i = 0; i < phnum; i++) {
          const at = phoff + i * phentsize;
          if (at + 4 > head.length) break;
          if (view.getUint32(at, little) === 3) return { kind: "executable", architecture };
        }
        return { kind: "dynamic-library", architecture };
      }
      return { kind: "unknown", architecture };
    }
    if (sniffed.kind === "pe" && head.length >= 0x40) {
      const pe = view.getUint32(0x3c, true);
      if (pe + 24 <= head.length) {
        const machine = view.getUint16(pe + 4, true);
        const characteristics = view.getUint16(pe + 22, true);
        const architecture = machine === 0x8664
          ? "x86_64"
          : machine === 0x14c
          ? "x86"
          : machine === 0xaa64
          ? "arm64"
          : null;
        return { kind: characteristics & 0x2000 ? "dynamic-library" : "executable", architecture };
      }
      return { kind: "executable", architecture: null };
    }
    if (sniffed.kind === "mach-o" && head.length >= 16) {
      const magic = view.getUint32(0, false);
      const little = magic === 0xcefaedfe || magic === 0xcffaedfe;
      const cpu = view.getUint32(4, little);
      const type = view.getUint32(12, little);
      const architecture = cpu === 0x01000007
        ? "x86_64"
        : cpu === 0x0100000c
        ? "arm64"
        : cpu === 7
        ? "x86"
        : cpu === 12
        ? "arm"
        : null;
      return {
        kind: type === 2
          ? "executable"
          : type === 6 || type === 8
          ? "dynamic-library"
          : type === 1
          ? "object"
          : "unknown",
        architecture,
      };
    }
    if (sniffed.kind === "mach-o-universal") return { kind: "executable", architecture: null };
    if (sniffed.kind === "wasm") return { kind: "object", architecture: "wasm32" };
  } catch {
    // A head too short for the fields: fall through.
  }
  if (sniffed.container) return { kind: "container", architecture: null };
  if (sniffed.kind === "script") return { kind: "script", architecture: null };
  return { kind: "resource", architecture: null };
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * The content of one member as a chunk source: the head chunks, then the rest
 * of the reader, each chunk counted (and hashed) as it passes. Parsers read it
 * through {@linkcode parserView}, whose cancellation does not stop the
 * source, so whatever a parser leaves unread is still hashed by
 * {@linkcode drainSource}.
 */
interface ChunkSource {
  next(): Promise<Uint8Array | null>;
}

function replay(
  head: Uint8Array[],
  rest: ReadableStreamDefaultReader<Uint8Array> | null,
  count: (chunk: Uint8Array) => void,
): ChunkSource {
  let index = 0;
  let finished = false;
  return {
    async next(): Promise<Uint8Array | null> {
      if (index < head.length) {
        const chunk = head[index++]!;
        count(chunk);
        return chunk;
      }
      if (!rest || finished) return null;
      const { value, done } = await rest.read();
      if (done) {
        finished = true;
        return null;
      }
      count(value);
      return value;
    },
  };
}

function parserView(source: ChunkSource): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller): Promise<void> {
      const chunk = await source.next();
      if (chunk === null) controller.close();
      else controller.enqueue(chunk);
    },
  }, { highWaterMark: 0 });
}

async function drainSource(source: ChunkSource): Promise<void> {
  while ((await source.next()) !== null) { /* counted and hashed on the way */ }
}

async function collect(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  what: string,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total > limit) {
      throw new ArchiveLimitError(
        "max_entry_bytes",
        total,
        limit,
        `${what} is larger than max_entry_bytes (${limit}); a nested zip must fit in memory to be read`,
      );
    }
    parts.push(chunk);
  }
  return concat(parts);
}

/** Errors that end the whole scan rather than one member. */
function isFatal(error: unknown): boolean {
  return error instanceof StopScan || error instanceof CaptureDone ||
    error instanceof SinkFailure || isAbort(error) ||
    error instanceof IntegrityFailure ||
    (error instanceof ToolFailure && error.code === "outside_approved_root");
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError" ||
    (error instanceof Error && error.name === "AbortError");
}

function message(error: unknown): string {
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  return error instanceof Error ? error.message : String(error);
}
