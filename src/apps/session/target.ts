/**
 * A loaded target: the bytes of an opened file, its content identity, its
 * analysis documents (one per ELF/PE/WebAssembly file, one per Mach-O slice)
 * and the analysis state of each.
 *
 * @module
 */

import { basename, posix } from "node:path";
import { sha256Hex } from "../../core/canonical_json.ts";
import { ToolFailure } from "../../core/errors.ts";
import type { BinarySubject as EvidenceSubject } from "../evidence.ts";
import { ProgramAnalysis } from "../analysis/program.ts";
import { FORMAT_READERS, readerFor } from "../formats/readers.ts";
import type { BinaryImage } from "../formats/binary_image.ts";
import { completeImage, holdImage, releaseImage } from "../formats/deferred_image.ts";
import { truncatedUniversal } from "../formats/macho/parse.ts";
import type { ByteRange, TargetFile } from "../paths.ts";

/** Where a target's bytes came from. */
export type TargetOrigin =
  | { kind: "file" }
  | {
    /** A member of an artifact, read into memory without extracting it. */
    kind: "occurrence";
    /** The artifact's real path. */
    artifactPath: string;
    /** The artifact's content digest when it was inventoried. */
    artifactSha256: string;
    occurrenceId: string;
    logicalPath: string;
    /** The retained inventory page that lists the occurrence. */
    inventoryEvidenceId: string;
  };

/** An opened binary. */
export interface LoadedTarget {
  requestedPath: string;
  realPath: string;
  name: string;
  size: number;
  sha256: string;
  /** The format: elf, pe, mach-o or wasm. */
  format: BinaryImage["format"];
  /** The reader's name for messages: ELF, PE, Mach-O, WebAssembly. */
  formatName: string;
  documents: BinaryImage[];
  subject: EvidenceSubject;
  /** Analysis state per document name. */
  programs: Map<string, ProgramAnalysis>;
  /** A file on disk, or an artifact member held in memory. */
  origin: TargetOrigin;
  /**
   * The bytes the open did not read (a large file is read by its identifying
   * ranges and hashed as a stream), or null when `documents` hold them all.
   */
  unread: UnreadBytes | null;
}

/** The rest of a target's bytes, read on first need ({@linkcode readUnread}). */
export interface UnreadBytes {
  /** Reads them (checking the file still hashes as it did at open). */
  read: NonNullable<TargetFile["readRest"]>;
  /** Whether they are read. */
  done: boolean;
  /** The read in progress, shared by its waiters. */
  running: Promise<void> | null;
}

/** Most bytes of identifying ranges an open reads before it reads the file whole instead. */
const IDENTIFYING_BUDGET = 16 * 1024 * 1024;

/**
 * The identifying ranges of a file whose reader defers the rest of its
 * documents (see `paths.ts` `identifyingRanges`), or null to read it whole.
 */
export function identifyingRanges(bytes: Uint8Array): readonly ByteRange[] | null {
  const reader = readerFor(bytes);
  if (!reader?.readDeferred || !reader.headerRanges) return null;
  return reader.headerRanges(bytes, IDENTIFYING_BUDGET);
}

/** Reads the bytes the open left unread, once; the documents may then be read in full. */
export async function readUnread(target: LoadedTarget, signal?: AbortSignal): Promise<void> {
  const unread = target.unread;
  if (unread === null || unread.done) return;
  unread.running ??= unread.read({ signal }).then(() => {
    unread.done = true;
    for (const image of target.documents) releaseImage(image);
  }).finally(() => {
    unread.running = null;
  });
  await unread.running;
}

const SUBJECT_ARCHITECTURES = new Set(["x86", "x86_64", "arm", "arm64"]);

/** What a path may name besides a binary (the artifact targets `open_binary` inventories). */
const ARTIFACT_KINDS = "a directory or an archive (tar, .deb/ar, zip family, gzip/xz/zstd/bzip2)";

/**
 * Identifies a file and reads what identifies its documents (the rest of each
 * document is read on first use: see `formats/deferred_image.ts`); refuses
 * formats no reader knows and headers no reader can use, with a clear message.
 */
export function loadTarget(
  file: TargetFile,
  origin: TargetOrigin = { kind: "file" },
): LoadedTarget {
  const { bytes } = file;
  const name = origin.kind === "occurrence"
    ? posix.basename(origin.logicalPath)
    : basename(file.requestedPath);
  const reader = readerFor(bytes);
  if (!reader) {
    const head = [...bytes.subarray(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join(" ");
    const known = FORMAT_READERS.map((r) => r.name).join(", ");
    // A path may also name an artifact; an occurrence is opened as a binary only.
    const artifacts = origin.kind === "file" ? ARTIFACT_KINDS : null;
    const cut = truncatedUniversal(bytes);
    throw new ToolFailure(
      "invalid_request",
      bytes.length === 0
        ? `Cannot open ${file.requestedPath}: the file is empty.`
        : cut
        ? `Cannot open ${file.requestedPath}: a universal Mach-O header lists ${cut.slices} slices, but the file (${bytes.length} bytes) ends before the slice at offset ${cut.offset}: it looks truncated.`
        : artifacts
        ? `Cannot open ${file.requestedPath}: not a supported binary or archive (first bytes: ${head}). Binaries: ${known}; artifacts: ${artifacts}.`
        : `Cannot open ${file.requestedPath}: not a supported binary (first bytes: ${head}). Supported formats: ${known}.`,
      { action: `Open an ${known} file${artifacts ? `, or ${artifacts}` : ""}.` },
    );
  }
  let documents: BinaryImage[];
  try {
    // Only what identifies the file is read now; the rest on first use (BinarySession.prepare).
    documents = reader.readDeferred?.(bytes, name) ?? reader.read(bytes, name);
  } catch (error) {
    throw readFailure(`Cannot open ${file.requestedPath}`, reader.name, error);
  }
  const unread = file.readRest ? { read: file.readRest, done: false, running: null } : null;
  if (unread) {
    for (const image of documents) {
      // Nothing may parse the bytes the open skipped before readUnread() reads them.
      holdImage(
        image,
        `${image.document} is not read in full yet: call BinarySession.prepared() first.`,
      );
    }
  }
  if (documents.length === 0) {
    throw new ToolFailure(
      "invalid_request",
      `Cannot open ${file.requestedPath}: the ${reader.name} file holds no document.`,
    );
  }
  const sha256 = file.sha256 ?? sha256Hex(bytes);
  const first = documents[0]!;
  return {
    requestedPath: file.requestedPath,
    realPath: file.realPath,
    name,
    size: bytes.length,
    sha256,
    format: first.format,
    formatName: reader.name,
    documents,
    subject: {
      name,
      digest: { sha256 },
      format: reader.subjectFormat(documents),
      architecture: documents.length === 1 && SUBJECT_ARCHITECTURES.has(first.architecture)
        ? first.architecture as EvidenceSubject["architecture"]
        : null,
      local_path: file.realPath,
    },
    programs: new Map(documents.map((d) => [d.document, new ProgramAnalysis(d)])),
    origin,
    unread,
  };
}

/**
 * Reads now what the open left unread of one document (see
 * `formats/deferred_image.ts`); nothing when it is read already. A reader's
 * parse error becomes a clear failure naming the file and the offset.
 */
export function completeDocument(target: LoadedTarget, image: BinaryImage): void {
  try {
    completeImage(image);
  } catch (error) {
    throw readFailure(
      `Cannot analyse ${image.document} of ${target.requestedPath}`,
      target.formatName,
      error,
    );
  }
}

/** A reader's parse error as a failure that says what was wrong and where; others unchanged. */
function readFailure(what: string, format: string, error: unknown): unknown {
  if (!(error instanceof Error && error.name.endsWith("ParseError"))) return error;
  const offset = (error as Error & { offset?: number | null }).offset;
  return new ToolFailure("invalid_request", `${what}: ${error.message}`, {
    action: "The file is truncated or corrupted; open an intact copy.",
    details: offset === null || offset === undefined ? { format } : { format, offset },
  });
}

/** `0x` + lowercase hex. */
export function formatAddress(address: bigint): string {
  return `0x${address.toString(16)}`;
}
