/**
 * The inventory traversal: walks a directory or an archive (tar, ar, zip
 * family, gzip/xz/zstd/bzip2 streams, nested to a depth), hashes every member as it
 * streams past, classifies it, and records the content graph.
 *
 * @module
 */

import {
  damagedNote,
  failedCheckNote,
  failedStreamCheck,
  isFailedCheck,
  maxDepthNote,
  notFullyReadNote,
  notFullyTraversedNote,
  truncatedListingNote,
  unlistedNote,
} from "./member_notes.ts";
import { join } from "node:path";
import { inlineHash, OffThreadHasher, type StreamingHash } from "./off_thread_hash.ts";
import { sha256Hex } from "../../core/canonical_json.ts";
import { compareCodePoints } from "../../core/completion.ts";
import { readAr } from "./ar.ts";
import { type ByteSource, SOURCE_CHUNK_BYTES } from "./byte_source.ts";
import {
  confirmPath,
  type FileIdentity,
  identityMismatch,
  isWithin,
  sameIdentity,
} from "../../core/roots.ts";
import { type Compression, decompress, type DecompressOptions } from "./compression.ts";
import { ArchiveFormatError, ArchiveLimitError } from "./errors.ts";
import { artifactId } from "./ids.ts";
import type {
  ArtifactNode,
  ArtifactOccurrence,
  ArtifactSnapshot,
  TraversalLimits,
} from "./model.ts";
import { sniff, type Sniffed, sniffSource } from "./sniff.ts";
import { UniversalSliceProbe } from "./universal_slice.ts";
import { type ArchiveEntryName, entryName, readTar } from "./tar.ts";
import { readZipDirectory, zipEntryBody } from "./zip.ts";
import {
  collect,
  concat,
  drainSource,
  hashSource,
  MemberBytes,
  parserView,
  replay,
} from "./chunk_source.ts";
import { collectBlocks, TooLargeToHold } from "./block_source.ts";
import {
  closeArchiveDirectories,
  type ListingEntry,
  listingEntry,
  listingSha256,
} from "./archive_directories.ts";
import { describeBinary, formatOf, mediaType } from "./content_kind.ts";
import { directoryIdentity, EMPTY_SOURCE, LookAhead, openDiskFile, rootsOf } from "./look_ahead.ts";
import {
  arInstanceNote,
  arInstancePath,
  childLogicalPath,
  decompressedName,
  ESCAPED_TARGET_NOTE,
  escapeMemberName,
  hexOf,
  HOSTILE_NOTE,
  lastSegment,
  linkTargetText,
} from "./member_names.ts";
import { CaptureDone, isFatal, message, SinkFailure, StopScan } from "./scan_errors.ts";
import type { ScanOptions, ScanRoot } from "./scan_options.ts";
import {
  type ArchiveMember,
  type MemberMeta,
  NO_META,
  type PendingChild,
  PROVISIONAL_ROOT,
  ScanRecord,
} from "./scan_record.ts";

const HEAD_BYTES = 4096;
/** The SHA-256 of no bytes, and its artifact id. */
const EMPTY_SHA256 = sha256Hex("");
const EMPTY_ARTIFACT_ID = artifactId(EMPTY_SHA256);
/**
 * Most bytes of a zip held in memory when the zip is itself a member or a
 * decompressed stream (random access is needed for its central directory):
 * 64 MiB. A zip on disk is read in place, whatever its size.
 */
export const ZIP_IN_MEMORY_BYTES = 64 * 1024 * 1024;
/** Archive members up to this size are read whole, not streamed (one chunk of the source). */
const SMALL_MEMBER_BYTES = SOURCE_CHUNK_BYTES;
const PROGRESS_EVERY = 16 * 1024 * 1024;
/**
 * A root file at least this large is hashed on a worker thread while the
 * walk parses it (starting the worker costs more than it saves on small ones).
 */
export const OFF_THREAD_HASH_MIN_BYTES = 16 * 1024 * 1024;

/** One scan of one root: the traversal, recording into a {@linkcode ScanRecord}. */
export class Scanner {
  readonly #root: ScanRoot;
  readonly #options: ScanOptions;
  readonly #limits: TraversalLimits;
  readonly #record: ScanRecord;
  /** Whether every directory entry's identity was computed as an unlimited scan would (so the root digest can be re-verified). */
  #identityExact = true;
  /** The paths captured so far. */
  readonly capturedPaths = new Set<string>();
  /** Files opened ahead of the walk and not yet taken, scan-wide. */
  readonly #opensAhead = { open: 0 };
  /** The worker hashing the root file's bytes as they pass (large roots only). */
  #rootHasher: OffThreadHasher | null = null;

  constructor(root: ScanRoot, options: ScanOptions) {
    this.#root = root;
    this.#options = options;
    this.#limits = options.limits;
    this.#record = new ScanRecord(root, options);
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
      this.#record.rootArtifactId = PROVISIONAL_ROOT;
      let observed: string | null = null;
      try {
        observed = (await this.#walkDirectory(root.realPath, ".", null, null)).sha256;
      } catch (error) {
        if (!(error instanceof StopScan)) throw error;
        this.#identityExact = false;
        this.#record.incomplete(error.message);
      }
      rootFormat = "directory";
      if (this.#identityExact && observed !== null) {
        rootSha256 = observed;
        if (expected && observed !== expected) {
          this.#record.rekeyRoot(artifactId(expected));
          this.#record.integrity({
            logical_path: ".",
            check: "root-digest",
            declared: expected,
            observed,
          });
        }
      } else {
        // A partial walk cannot recompute the directory's identity: keep the one taken at open.
        rootSha256 = expected ?? observed ?? sha256Hex("");
        this.#record.note(
          "The root directory's digest could not be re-verified: the walk did not cover every entry.",
        );
      }
      this.#record.rekeyRoot(artifactId(rootSha256));
    } else {
      const source = await openDiskFile(root.realPath, root, null, { whole: false });
      const workers = this.#options.hashWorkers;
      if (
        workers !== false && !this.#options.capture &&
        source.size >= (workers?.minBytes ?? OFF_THREAD_HASH_MIN_BYTES)
      ) {
        this.#rootHasher = OffThreadHasher.start(workers?.url);
      }
      try {
        rootSha256 = expected ?? await hashSource(source, this.#options.signal);
        this.#record.rootArtifactId = artifactId(rootSha256);
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
          this.#record.incomplete(error.message);
          visited.format = formatOf(
            sniff(await source.read(0, Math.min(HEAD_BYTES, source.size)), root.name),
          );
        }
        rootFormat = visited.format;
        if (visited.sha256 !== null && visited.sha256 !== rootSha256) {
          this.#record.integrity({
            logical_path: ".",
            check: "root-digest",
            declared: rootSha256,
            observed: visited.sha256,
          });
        }
      } finally {
        source.close();
        this.#rootHasher?.close();
        this.#rootHasher = null;
      }
    }
    return this.#record.snapshot(rootSha256, rootFormat);
  }

  // --- directories -------------------------------------------------------

  async #walkDirectory(
    path: string,
    logicalPath: string,
    parentOccurrenceId: string | null,
    expected: (FileIdentity & { mode: number | null }) | null,
  ): Promise<{ sha256: string; artifactId: string }> {
    const occurrenceIdHere = logicalPath === "."
      ? this.#record.rootOccurrenceIdOf()
      : this.#record.occurrenceIdOf(logicalPath, "directory");
    const children: PendingChild[] = [];
    const listing: ListingEntry[] = [];
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
      limitations.push(unlistedNote(logicalPath, message(error)));
      this.#identityExact = false;
      this.#record.incomplete(`directory ${logicalPath} could not be listed: ${message(error)}`);
      names = [];
    }
    if (truncatedListing) {
      limitations.push(truncatedListingNote(logicalPath, this.#limits.max_entries));
      this.#identityExact = false;
      this.#record.incomplete(`directory ${logicalPath}: more than max_entries names`);
    }
    names.sort(compareCodePoints);
    // Reserve the directory's own slot before its children, so limits stop inside it cleanly.
    if (logicalPath !== ".") this.#record.countEntry();
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
              { dev: info.dev, ino: info.ino ?? -1, mode: info.mode ?? null },
            );
            listing.push(listingEntry(name, sub.artifactId, "directory"));
            children.push({
              artifact_id: sub.artifactId,
              relation: "contains",
              occurrence_id: this.#record.occurrenceIdOf(childLogical, "directory"),
              logical_path: childLogical,
            });
          } else if (info.isSymlink) {
            const target = await Deno.readLink(childPath).catch(() => null);
            this.#record.addContentless(
              childLogical,
              "symlink",
              occurrenceIdHere,
              { ...NO_META, mode: info.mode ?? null },
              target,
              target === null ? ["The link target could not be read."] : [],
            );
            listing.push(listingEntry(name, null, "symlink", target ?? ""));
          } else if (info.isFile) {
            const visited = await this.#visitDiskFile(
              childPath,
              childLogical,
              name,
              occurrenceIdHere,
              info,
              source,
            );
            listing.push(listingEntry(name, visited.artifactId, "file"));
            children.push({
              artifact_id: visited.artifactId,
              relation: "contains",
              occurrence_id: visited.occurrenceId,
              logical_path: childLogical,
            });
          } else {
            this.#record.addContentless(
              childLogical,
              "special",
              occurrenceIdHere,
              { ...NO_META, mode: info.mode ?? null },
              null,
              ["A device, socket or FIFO: its content is not read."],
            );
            listing.push(listingEntry(name, null, "special"));
          }
        } catch (error) {
          if (isFatal(error)) {
            stopped = error;
            break;
          }
          this.#record.incomplete(`${childLogical}: ${message(error)}`);
        }
      }
    } finally {
      ahead.release();
    }
    // A limit stopped the walk inside this directory: names after the cut were not visited.
    if (stopped instanceof StopScan) limitations.push(notFullyTraversedNote(stopped.message));
    if (logicalPath === ".") this.#record.rootLimitations.push(...limitations);
    const sha256 = listingSha256(listing);
    const id = artifactId(sha256);
    this.#record.addNode(directoryNode(id, sha256, limitations));
    this.#record.addEdges(id, children);
    if (logicalPath !== ".") {
      this.#record.addOccurrence({
        logicalPath,
        entryKind: "directory",
        parentOccurrenceId,
        artifactId: id,
        contentKind: "directory",
        sha256,
        size: null,
        meta: { ...NO_META, mode: expected?.mode ?? null },
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
      this.#record.countEntry();
      const occ = this.#record.addOccurrence({
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
      this.#record.incomplete(`${logicalPath} could not be read: ${message(error)}`);
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
    /** Filled while the content is read (a decoder's warnings); added to the occurrence's notes. */
    lateNotes?: readonly string[];
  }): Promise<{
    artifactId: string | null;
    occurrenceId: string;
    sha256: string | null;
    format: ArtifactNode["format"];
  }> {
    const { logicalPath } = input;
    if (!input.isRoot) this.#record.countEntry();
    const occId = input.isRoot
      ? this.#record.rootOccurrenceIdOf()
      : this.#record.occurrenceIdOf(logicalPath, "file");
    const limitations = [...input.meta.limitations];
    const reader = input.bytes ? null : input.stream!.getReader();
    // Empty content (an empty file, read without opening it) has a known digest. A large root
    // is hashed by a worker while this thread parses it: the same bytes, in the same order.
    const hasher = input.isRoot ? this.#rootHasher : null;
    const hash: StreamingHash | null = input.bytes?.length === 0
      ? null
      : hasher?.job() ?? inlineHash();
    let size = 0;
    let overEntryLimit = false;
    const capturing = this.#options.capture?.paths.has(logicalPath) ? this.#options.capture : null;
    const kept = capturing ? new MemberBytes(input.size, capturing.maxBytes) : null;
    let slice: UniversalSliceProbe | null = null;
    const count = (chunk: Uint8Array): void | Promise<void> => {
      size += chunk.length;
      slice?.feed(chunk, size - chunk.length);
      if (capturing) {
        if (size > capturing.maxBytes) {
          throw new ArchiveLimitError(
            "max_entry_bytes",
            size,
            capturing.maxBytes,
            `${logicalPath} is larger than ${capturing.maxBytes} bytes`,
          );
        }
        kept?.push(chunk);
      }
      this.#record.bytesRead += chunk.length;
      if (size > this.#limits.max_entry_bytes) overEntryLimit = true;
      if (!overEntryLimit) hash?.update(chunk);
      if (this.#record.bytesRead > this.#limits.max_total_bytes) {
        throw new StopScan(
          `max_total_bytes (${this.#limits.max_total_bytes}) reached while reading ${logicalPath}`,
        );
      }
      if (this.#record.bytesRead - this.#record.reported >= PROGRESS_EVERY) {
        this.#record.reported = this.#record.bytesRead;
        void this.#options.onProgress?.(this.#record.bytesRead, this.#record.occurrenceCount);
      }
      // The worker is far behind: wait for it rather than queue more copies.
      if (hasher?.congested) return hasher.drained();
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
    // A root file is read in place: a zip after a prefix is found by its end record.
    const sniffed = input.isRoot && input.source
      ? await sniffSource(head, input.name, input.source)
      : sniff(head, input.name);
    if (sniffed.kind === "mach-o-universal") slice = UniversalSliceProbe.from(head);
    const children: PendingChild[] = [];
    let format = formatOf(sniffed);
    let stopped: unknown = null;
    /** A failed stream check was recorded as an integrity contradiction while descending. */
    let checkFailed = false;

    const content = replay(headParts, ended || readError !== null ? null : reader, count);
    const descend = readError === null && sniffed.container !== null &&
      input.depth < this.#limits.max_depth;
    try {
      if (readError) throw readError;
      if (descend && sniffed.container !== null) {
        try {
          await this.#descend(
            sniffed,
            parserView(content),
            { ...input, notes: limitations },
            occId,
            children,
          );
        } catch (error) {
          if (isFatal(error)) {
            stopped = error;
          } else if (error instanceof ArchiveLimitError) {
            limitations.push(notFullyTraversedNote(error.message));
            this.#record.incomplete(`${logicalPath}: ${error.message}`);
          } else if (error instanceof ArchiveFormatError) {
            limitations.push(damagedNote(error.format, error.message));
            this.#record.incomplete(`${logicalPath}: ${error.message}`);
            if (isFailedCheck(error)) {
              const marked = this.#record.distrustUnder(
                logicalPath,
                failedCheckNote(logicalPath, error.message),
              );
              if (marked > 0) {
                limitations.push(
                  `${marked} member(s) read before the failed check are marked mismatched: their bytes are not confirmed.`,
                );
              }
            }
            const failed = failedStreamCheck(error);
            if (failed !== null) {
              // The stream this content was decoded from failed its own check: a contradiction,
              // under integrity_policy as a zip entry's CRC-32 is.
              checkFailed = true;
              this.#record.integrity({
                logical_path: logicalPath,
                check: failed.check,
                declared: failed.declared,
                observed: error.message,
              });
            }
          } else throw error;
        }
      } else if (sniffed.container !== null && input.depth >= this.#limits.max_depth) {
        limitations.push(maxDepthNote(sniffed.container, input.depth, this.#limits.max_depth));
        this.#record.incomplete(`${logicalPath}: max_depth reached`);
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
    if (stopped instanceof StopScan && descend) {
      // A limit stopped the scan inside this container: members after the cut were not reached.
      limitations.push(notFullyTraversedNote(stopped.message));
    }
    if (readError && !stopped) {
      const failed = readError instanceof ArchiveFormatError ? failedStreamCheck(readError) : null;
      if (failed !== null) {
        // The stream this content was decoded from failed its check after every byte was read.
        if (!checkFailed) {
          this.#record.integrity({
            logical_path: logicalPath,
            check: failed.check,
            declared: failed.declared,
            observed: message(readError),
          });
        }
      } else if (
        readError instanceof ArchiveFormatError && /crc|checksum|size/i.test(readError.message)
      ) {
        // The enclosing zip entry failed its check after every byte was read.
        this.#record.integrity({
          logical_path: logicalPath,
          check: "crc32",
          declared: "zip central directory",
          observed: readError.message,
        });
      }
      limitations.push(notFullyReadNote(message(readError)));
      this.#record.incomplete(`${logicalPath}: ${message(readError)}`);
    }
    // A stream read to its end needs no release (releasing one makes an error object, which
    // is costly per member); one left part-read is released.
    if (readError || stopped) reader?.releaseLock();
    const complete = !readError && !stopped && !overEntryLimit;
    const sha256 = complete ? (hash ? await hash.digest() : EMPTY_SHA256) : null;
    if (!complete) hash?.destroy();
    if (overEntryLimit) {
      limitations.push(
        `Not hashed: larger than max_entry_bytes (${this.#limits.max_entry_bytes}).`,
      );
      this.#record.incomplete(`${logicalPath}: larger than max_entry_bytes`);
    }
    if (
      capturing && sha256 !== null && !this.capturedPaths.has(logicalPath) &&
      (capturing.accept?.(logicalPath, sha256) ?? true)
    ) {
      this.capturedPaths.add(logicalPath);
      try {
        await capturing.onMember(logicalPath, { bytes: kept!.bytes(), sha256 });
      } catch (error) {
        throw new SinkFailure(error);
      }
      kept?.clear();
      if (this.capturedPaths.size === capturing.paths.size) throw new CaptureDone();
    } else if (capturing && sha256 === null) {
      throw readError ?? stopped ?? new Error(`${logicalPath} could not be read`);
    }
    const id = sha256 ? (sha256 === EMPTY_SHA256 ? EMPTY_ARTIFACT_ID : artifactId(sha256)) : null;
    if (this.#record.lean) {
      // Only the root's identity is wanted: no node or edges to record.
    } else if (id && sha256) {
      const details = describeBinary(head, sniffed, slice?.kind() ?? null);
      this.#record.addNode({
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
      this.#record.addEdges(id, children);
    } else if (children.length > 0) {
      limitations.push(
        `${children.length} member(s) were read, but this content has no id, so no edges to them are recorded.`,
      );
    }
    if (input.lateNotes) limitations.push(...input.lateNotes);
    if (input.isRoot) format = format === "file" && sniffed.kind === "data" ? "file" : format;
    const mode = input.meta.mode;
    this.#record.addOccurrence({
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
    input: {
      logicalPath: string;
      name: string;
      depth: number;
      source: ByteSource | null;
      size: number | null;
      /** The container's own notes (a decoder's warnings go there). */
      notes: string[];
    },
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
        onWarning: (warning) => {
          input.notes.push(warning);
          this.#record.note(`${input.logicalPath}: ${warning}`);
        },
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
      // ar keeps every member of a name (a static library may hold two util.o, and the linker
      // reads both): each is its own occurrence. tar extraction leaves the last (see addOccurrence).
      const arInstances = container === "ar" ? new Map<string, number>() : null;
      for await (const { entry, body: entryBody, whole } of entries) {
        if ("isSymbolTable" in entry && entry.isSymbolTable) continue;
        const named = this.#memberPath(input.logicalPath, entry.name);
        if (named === null) continue;
        if (arInstances !== null) {
          const instance = (arInstances.get(named.path) ?? 0) + 1;
          arInstances.set(named.path, instance);
          if (instance > 1) {
            named.limitations.push(arInstanceNote(lastSegment(named.path), instance));
            named.path = arInstancePath(named.path, instance);
            this.#checkPath(named.path);
          }
        }
        const type = "type" in entry ? entry.type : "file";
        const meta: MemberMeta = {
          declared_size: entry.size,
          compressed_size: null,
          mode: entry.mode,
          source_location: { offset: entry.dataOffset, length: entry.size },
          original_name_hex: named.originalHex,
          limitations: [...named.limitations, ...entry.warnings],
        };
        const target = "linkTarget" in entry && entry.linkTarget
          ? linkTargetText(entry.linkTarget)
          : null;
        const linkTarget = target?.text ?? null;
        if (target?.escaped) meta.limitations.push(ESCAPED_TARGET_NOTE);
        if (type === "file") {
          // A small member is read whole: no stream, reader or promise chain per member.
          const content = entry.size <= SMALL_MEMBER_BYTES
            ? wholeContent(await whole())
            : entryBody();
          await this.#visitMember(
            named.path,
            entry.name,
            content,
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
          this.#record.countEntry();
          const linkName = "linkTarget" in entry ? entry.linkTarget : null;
          const targetPath = linkName
            ? this.#memberPath(input.logicalPath, linkName)?.path ?? null
            : null;
          const target = targetPath ? this.#record.occurrenceByPath.get(targetPath) : undefined;
          this.#record.addOccurrence({
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
          this.#record.addContentless(
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
        } else if ("sparse" in entry && entry.sparse) {
          // A regular file whose content (holes included) is not rebuilt here: listed, unhashed.
          this.#record.addContentless(named.path, "file", parentOccurrenceId, meta, null, [
            ...meta.limitations,
            "Not hashed: a GNU sparse file is not reassembled, so its content is unknown.",
          ]);
          this.#record.incomplete(`${named.path}: a GNU sparse file is not reassembled`);
          members.push({ logicalPath: named.path, artifact_id: null, entry_kind: "file" });
        } else {
          this.#record.addContentless(named.path, "special", parentOccurrenceId, meta, linkTarget, [
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
        source = await this.#holdZip(body, input);
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

  /**
   * A zip that is itself a member (or a decompressed stream), held in memory
   * for the random access its central directory needs: at most
   * {@linkcode ZIP_IN_MEMORY_BYTES} (or max_entry_bytes when lower). A larger
   * one is refused before anything is held when its size is declared, or as
   * soon as it passes the bound; its content is still hashed as it streams.
   */
  async #holdZip(
    body: ReadableStream<Uint8Array>,
    input: { logicalPath: string; size: number | null },
  ): Promise<ByteSource> {
    const entryBound = this.#limits.max_entry_bytes < ZIP_IN_MEMORY_BYTES;
    const bound = entryBound ? this.#limits.max_entry_bytes : ZIP_IN_MEMORY_BYTES;
    const refuse = (observed: number): ArchiveLimitError =>
      new ArchiveLimitError(
        entryBound ? "max_entry_bytes" : "zip_in_memory_bytes",
        observed,
        bound,
        `${input.logicalPath} as a zip (a zip inside an archive or compressed stream is held in memory to read its central directory, up to ${bound} bytes; its content is still hashed; extract it and open the file to list its members)`,
      );
    if (input.size !== null && input.size > bound) throw refuse(input.size);
    try {
      return await collectBlocks(body, bound);
    } catch (error) {
      if (error instanceof TooLargeToHold) throw refuse(error.observed);
      throw error;
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
      this.#record.note(`${parentLogical}: ${warning}`);
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
            const bytes = await collect(
              zipEntryBody(source, entry, this.#decompressLimits()),
              4096,
              named.path,
            );
            const target = linkTargetText(entryName(bytes));
            linkTarget = target.text;
            if (target.escaped) meta.limitations.push(ESCAPED_TARGET_NOTE);
          } catch (error) {
            meta.limitations.push(`Link target unreadable: ${message(error)}`);
          }
        }
        if (unreadable) this.#record.incomplete(`${named.path}: ${unreadable}`);
        this.#record.addContentless(
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
      const lateNotes: string[] = [];
      const onWarning = (warning: string): void => {
        lateNotes.push(warning);
        this.#record.note(`${named.path}: ${warning}`);
      };
      await this.#visitMember(
        named.path,
        entry.name,
        zipEntryBody(source, entry, { ...this.#decompressLimits(), onWarning }),
        entry.uncompressedSize,
        { depth, parentOccurrenceId, meta, lateNotes },
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
    content: ReadableStream<Uint8Array> | Uint8Array,
    size: number,
    at: {
      depth: number;
      parentOccurrenceId: string;
      meta: MemberMeta;
      lateNotes?: readonly string[];
    },
    children: PendingChild[],
    members: ArchiveMember[],
  ): Promise<void> {
    const visited = await this.#visitFile({
      logicalPath,
      name: lastSegment(name.text),
      ...(content instanceof Uint8Array ? { bytes: content } : { stream: content }),
      size,
      depth: at.depth,
      parentOccurrenceId: at.parentOccurrenceId,
      contentState: "embedded",
      meta: at.meta,
      source: null,
      isRoot: false,
      lateNotes: at.lateNotes,
    });
    children.push({
      artifact_id: visited.artifactId,
      relation: "contains",
      occurrence_id: visited.occurrenceId,
      logical_path: logicalPath,
    });
    members.push({ logicalPath, artifact_id: visited.artifactId, entry_kind: "file" });
  }

  /**
   * A directory entry of an archive; its digest is filled in (and verified)
   * by #closeArchiveDirectories, which a limit that stops the walk first skips.
   */
  #archiveDirectory(
    logicalPath: string,
    parentOccurrenceId: string,
    meta: MemberMeta,
  ): { logicalPath: string; occurrence: ArtifactOccurrence } {
    this.#record.countEntry();
    const occurrence = this.#record.addOccurrence({
      logicalPath,
      entryKind: "directory",
      parentOccurrenceId,
      artifactId: null,
      contentKind: "directory",
      sha256: null,
      size: null,
      meta,
      linkTarget: null,
      hashStatus: "unavailable",
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
    const closed = closeArchiveDirectories(directories.map((d) => d.logicalPath), members);
    for (const { index, sha256, artifactId: id } of closed) {
      const directory = directories[index]!;
      this.#record.addNode(directoryNode(id, sha256, []));
      directory.occurrence.artifact_id = id;
      directory.occurrence.sha256 = sha256;
      directory.occurrence.hash_status = "verified";
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
   * NUL, backslashes, control or invisible characters, invalid UTF-8) are
   * escaped into a safe path and the original bytes kept; null when the name
   * is empty.
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
      limitations: escaped.hostile ? [`${HOSTILE_NOTE}${escaped.reason}.`] : [],
    };
  }

  #checkPath(path: string): void {
    if (new TextEncoder().encode(path).length > this.#limits.max_path_bytes) {
      throw new StopScan(
        `max_path_bytes (${this.#limits.max_path_bytes}) exceeded by ${path.slice(0, 200)}…`,
      );
    }
  }
}

/** The node of a directory: a virtual container identified by the digest of its listing. */
function directoryNode(artifactId: string, sha256: string, limitations: string[]): ArtifactNode {
  return {
    artifact_id: artifactId,
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
  };
}

/**
 * A small member's content: its bytes, or when the archive ended inside it, a
 * stream of what was there that then fails as the member's stream would have.
 */
function wholeContent(
  read: { bytes: Uint8Array; error: Error | null },
): Uint8Array | ReadableStream<Uint8Array> {
  if (read.error === null) return read.bytes;
  const { bytes, error } = read;
  return new ReadableStream<Uint8Array>({
    start(controller): void {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.error(error);
    },
  });
}
