/**
 * Typed failures of the archive readers: {@linkcode ArchiveFormatError} when
 * the bytes are not (or no longer) a readable archive or compressed stream,
 * {@linkcode ArchiveLimitError} when reading stopped because a caller's limit
 * was reached.
 *
 * @module
 */

/** Thrown (or raised from a stream) when archive or compressed bytes cannot be read. */
export class ArchiveFormatError extends Error {
  /** The format being read: `"tar"`, `"ar"`, `"zip"`, `"gzip"`, `"xz"`, `"zstd"`, … */
  readonly format: string;
  /** Offset of the offending bytes in the format's own input, or `null` when unknown. */
  readonly offset: number | null;
  /** The reason alone, without the `Cannot read …:` prefix and offset. */
  readonly reason: string;

  /**
   * Creates the error; the message reads
   * `Cannot read tar: header checksum mismatch at offset 1536`.
   *
   * @param format The format being read.
   * @param reason What is wrong, as a lower-case phrase.
   * @param offset Offset of the offending bytes, if known.
   * @param options Standard error options (`cause`).
   */
  constructor(
    format: string,
    reason: string,
    offset: number | null = null,
    options?: ErrorOptions,
  ) {
    super(
      `Cannot read ${format}: ${reason}${offset === null ? "" : ` at offset ${offset}`}`,
      options,
    );
    this.name = "ArchiveFormatError";
    this.format = format;
    this.offset = offset;
    this.reason = reason;
  }
}

/** The caller-set limits the readers enforce. */
export type ArchiveLimit =
  | "max_entry_bytes"
  | "max_total_bytes"
  | "max_compression_ratio"
  | "max_entries"
  | "max_path_bytes"
  | "max_header_bytes"
  | "zip_in_memory_bytes";

/** Raised when reading stops because a limit was reached (archive bombs, hostile counts). */
export class ArchiveLimitError extends Error {
  /** The limit that was reached. */
  readonly limit: ArchiveLimit;
  /** The value observed when reading stopped (bytes, entries or a ratio). */
  readonly observed: number;
  /** The value allowed. */
  readonly allowed: number;

  /**
   * Creates the error; the message reads
   * `Stopped reading: max_compression_ratio exceeded (observed 1030.2, allowed 100)`.
   *
   * @param limit The limit that was reached.
   * @param observed The value observed.
   * @param allowed The value allowed.
   * @param detail Optional words on what was being read.
   */
  constructor(limit: ArchiveLimit, observed: number, allowed: number, detail?: string) {
    const shown = Number.isInteger(observed) ? String(observed) : observed.toFixed(1);
    super(
      `Stopped reading${
        detail ? ` ${detail}` : ""
      }: ${limit} exceeded (observed ${shown}, allowed ${allowed})`,
    );
    this.name = "ArchiveLimitError";
    this.limit = limit;
    this.observed = observed;
    this.allowed = allowed;
  }
}
