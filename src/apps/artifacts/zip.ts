/**
 * A zip reader over random access ({@linkcode ByteSource}): the end of
 * central directory record (searched in the last 65,557 bytes), ZIP64
 * records and extra fields, central directory entries cross-checked against
 * their local headers, UTF-8 (flag bit 11), Info-ZIP Unicode path fields and
 * CP437 names, Unix modes from the external attributes, and detection of
 * entries whose data ranges overlap (the "overlapping files" zip bomb).
 * Member data streams through {@linkcode zipEntryBody}: stored, deflate,
 * zstd (93) and xz (95), with CRC-32 and size verification.
 *
 * Only the central directory is held in memory (bounded by `maxEntries` and
 * `maxPathBytes`); member data is streamed.
 *
 * @module
 */

import { crc32 } from "node:zlib";
import type { ByteSource } from "./byte_source.ts";
import { type Codec, decompress, type DecompressOptions } from "./compression.ts";
import { ArchiveFormatError, ArchiveLimitError } from "./errors.ts";
import { type ArchiveEntryName, type ArchiveEntryType, entryName } from "./tar.ts";

/** One zip entry, from its central directory record (checked against the local header). */
export interface ZipEntry {
  /** Name as stored in the central directory. */
  name: ArchiveEntryName;
  /** How `name.text` was decoded: flag bit 11, an Info-ZIP Unicode path field, or CP437. */
  nameEncoding: "utf-8" | "unicode-extra" | "cp437";
  /** What the entry is (Unix mode when stored, else a trailing `/` or the DOS directory bit). */
  type: ArchiveEntryType;
  /** Bytes of stored (compressed) data. */
  compressedSize: number;
  /** Declared size once decompressed. */
  uncompressedSize: number;
  /** Compression method number. */
  method: number;
  /** Its name: `"stored"`, `"deflate"`, `"bzip2"`, … or `"method N"`. */
  methodName: string;
  /** Declared CRC-32 of the content. */
  crc32: number;
  /** Unix mode including the file-type bits (`S_IFLNK` for symlinks), or `null` when not stored. */
  mode: number | null;
  /** Whether the entry is encrypted (its content cannot be read). */
  encrypted: boolean;
  /** General purpose flags. */
  flags: number;
  /** `version made by` (high byte: host system, 3 = Unix). */
  versionMadeBy: number;
  /** Offset of the local header (adjusted for data prepended to the archive). */
  localHeaderOffset: number;
  /** Offset of the entry's data, or -1 when the local header is unusable. */
  dataOffset: number;
  /** Modification time, seconds since the epoch (extended timestamp, else DOS time read as UTC), or `null`. */
  mtime: number | null;
  /** Whether the local header disagrees with the central directory (see `warnings`). */
  inconsistent: boolean;
  /** Position in the central directory. */
  index: number;
  /** Oddities of this entry. */
  warnings: string[];
}

/** The central directory of a zip archive. */
export interface ZipDirectory {
  /** Entries in central directory order. */
  entries: ZipEntry[];
  /** The archive comment. */
  comment: string;
  /** Whether ZIP64 end records were used. */
  zip64: boolean;
  /** Archive-level oddities. */
  warnings: string[];
  /** Indices of entries whose local data ranges overlap another entry's (the "overlapping files" zip bomb). */
  overlapping: number[];
  /** Bytes before the archive proper (a self-extractor stub), 0 normally. */
  prefixBytes: number;
}

/** Limits for {@linkcode readZipDirectory}. */
export interface ZipDirectoryOptions {
  /** Most entries allowed; more raises {@linkcode ArchiveLimitError} `max_entries`. */
  maxEntries: number;
  /** Longest entry name in bytes; longer raises `max_path_bytes`. */
  maxPathBytes: number;
}

/** The signature (first four bytes, little-endian) of each record the reader looks for. */
const SIGNATURE = {
  endOfCentralDirectory: 0x06054b50,
  zip64Locator: 0x07064b50,
  zip64EndOfCentralDirectory: 0x06064b50,
  centralHeader: 0x02014b50,
  localHeader: 0x04034b50,
} as const;
const EOCD_SEARCH = 65557;
const CENTRAL_FIXED = 46;
const LOCAL_FIXED = 30;
const WINDOW = 1 << 20;

const METHOD_NAMES: Record<number, string> = {
  0: "stored",
  1: "shrunk",
  2: "reduced-1",
  3: "reduced-2",
  4: "reduced-3",
  5: "reduced-4",
  6: "imploded",
  8: "deflate",
  9: "deflate64",
  10: "pkware-implode",
  12: "bzip2",
  14: "lzma",
  18: "ibm-terse",
  19: "ibm-lz77",
  93: "zstd",
  94: "mp3",
  95: "xz",
  96: "jpeg",
  97: "wavpack",
  98: "ppmd",
  99: "aes",
};

const CP437_HIGH = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐" +
  "└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0";

/** Decodes CP437 (the zip default when flag bit 11 is clear). */
function decodeCp437(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) {
    text += byte < 0x80 ? String.fromCharCode(byte) : CP437_HIGH[byte - 0x80];
  }
  return text;
}

const u16 = (b: Uint8Array, i: number): number => b[i]! | b[i + 1]! << 8;
const u32 = (b: Uint8Array, i: number): number =>
  (b[i]! | b[i + 1]! << 8 | b[i + 2]! << 16 | b[i + 3]! << 24) >>> 0;
/** Little-endian 64-bit value; `null` when not exactly representable. */
function u64(b: Uint8Array, i: number): number | null {
  const value = u32(b, i + 4) * 2 ** 32 + u32(b, i);
  return Number.isSafeInteger(value) ? value : null;
}

/** Reads a byte range in 1 MiB windows (the central directory). */
class WindowedReader {
  #start = 0;
  #bytes: Uint8Array = new Uint8Array(0);
  constructor(readonly source: ByteSource, readonly end: number) {}

  async get(offset: number, length: number): Promise<Uint8Array | null> {
    if (offset + length > this.end) return null;
    if (offset < this.#start || offset + length > this.#start + this.#bytes.byteLength) {
      const take = Math.max(length, Math.min(WINDOW, this.end - offset));
      this.#bytes = await this.source.read(offset, take);
      this.#start = offset;
    }
    return this.#bytes.subarray(offset - this.#start, offset - this.#start + length);
  }
}

function decodeName(
  bytes: Uint8Array,
  flags: number,
  unicodeExtra: Uint8Array | null,
): { name: ArchiveEntryName; encoding: ZipEntry["nameEncoding"] } {
  const utf8 = entryName(bytes);
  if (flags & 0x800) return { name: utf8, encoding: "utf-8" };
  if (unicodeExtra) {
    const unicode = entryName(unicodeExtra);
    if (unicode.validUtf8) {
      return {
        name: { text: unicode.text, bytes, validUtf8: utf8.validUtf8, exact: true },
        encoding: "unicode-extra",
      };
    }
  }
  let ascii = true;
  for (const byte of bytes) if (byte >= 0x80) ascii = false;
  if (ascii) return { name: utf8, encoding: "utf-8" };
  return {
    name: { text: decodeCp437(bytes), bytes, validUtf8: utf8.validUtf8, exact: true },
    encoding: "cp437",
  };
}

function dosTime(date: number, time: number): number | null {
  const year = 1980 + (date >> 9);
  const month = (date >> 5) & 15;
  const day = date & 31;
  const hour = time >> 11;
  const minute = (time >> 5) & 63;
  const second = (time & 31) * 2;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second) / 1000;
}

function typeFromMode(mode: number): ArchiveEntryType {
  switch (mode & 0o170000) {
    case 0o100000:
      return "file";
    case 0o040000:
      return "directory";
    case 0o120000:
      return "symlink";
    case 0o020000:
      return "character-device";
    case 0o060000:
      return "block-device";
    case 0o010000:
      return "fifo";
    default:
      return "other";
  }
}

interface EndRecord {
  entries: number;
  centralSize: number;
  centralOffset: number;
  /** Where the central directory should end (the first end record). */
  recordOffset: number;
  comment: string;
  zip64: boolean;
}

/**
 * Whether a file whose first bytes name no format is a zip after a prefix (a
 * self-extractor stub, a shell script): its last bytes end exactly with an
 * end-of-central-directory record (its comment running to the end of the
 * file), whose central directory lies inside the file. Reads at most the
 * last 65,557 bytes. With `size`, the same for the file's first `size` bytes
 * (what precedes a signed PE's certificate table).
 */
export async function endsWithZipDirectory(
  source: ByteSource,
  size: number = source.size,
): Promise<boolean> {
  if (size < 22 || size > source.size) return false;
  const tailStart = size - Math.min(size, EOCD_SEARCH);
  const tail = await source.read(tailStart, size - tailStart);
  const { exact } = endRecordIn(tail);
  // The directory (its stored size) must fit before the record, prefix or not.
  return exact >= 0 && u32(tail, exact + 12) <= tailStart + exact;
}

/**
 * Where the end-of-central-directory record lies in the last bytes of a
 * file: `exact`, the last one whose comment runs to the end; else `loose`,
 * the last one that ends before it (bytes follow it); -1 for none.
 */
function endRecordIn(tail: Uint8Array): { exact: number; loose: number } {
  let loose = -1;
  for (let i = tail.byteLength - 22; i >= 0; i--) {
    if (u32(tail, i) !== SIGNATURE.endOfCentralDirectory) continue;
    const end = i + 22 + u16(tail, i + 20);
    if (end === tail.byteLength) return { exact: i, loose };
    if (end < tail.byteLength && loose < 0) loose = i;
  }
  return { exact: -1, loose };
}

async function findEnd(source: ByteSource, warnings: string[]): Promise<EndRecord> {
  const size = source.size;
  if (size < 22) throw new ArchiveFormatError("zip", `not a zip archive (only ${size} bytes)`, 0);
  const tailStart = size - Math.min(size, EOCD_SEARCH);
  const tail = await source.read(tailStart, size - tailStart);
  const located = endRecordIn(tail);
  let found = located.exact;
  const loose = located.loose;
  if (found < 0 && loose >= 0) {
    found = loose;
    const extra = tail.byteLength - (loose + 22 + u16(tail, loose + 20));
    warnings.push(`${extra} bytes follow the end-of-central-directory record`);
  }
  if (found < 0) {
    throw new ArchiveFormatError(
      "zip",
      "no end-of-central-directory record (not a zip archive, or truncated)",
      null,
    );
  }
  const eocd = tail.subarray(found);
  const eocdOffset = tailStart + found;
  const disk = u16(eocd, 4);
  const centralDisk = u16(eocd, 6);
  const commentBytes = eocd.subarray(22, 22 + u16(eocd, 20));
  const commentName = entryName(commentBytes);
  const comment = commentName.validUtf8 ? commentName.text : decodeCp437(commentBytes);
  const record: EndRecord = {
    entries: u16(eocd, 10),
    centralSize: u32(eocd, 12),
    centralOffset: u32(eocd, 16),
    recordOffset: eocdOffset,
    comment,
    zip64: false,
  };
  if (u16(eocd, 8) !== record.entries) {
    warnings.push("the end record's entry counts for this disk and in total differ");
  }
  // ZIP64: a locator 20 bytes before the end record points at the ZIP64 end record.
  if (eocdOffset >= 20) {
    const locator = await source.read(eocdOffset - 20, 20);
    if (u32(locator, 0) === SIGNATURE.zip64Locator) {
      const declared = u64(locator, 8);
      const candidates = declared === null ? [] : [declared];
      // With data prepended, the record sits just before the locator.
      if (eocdOffset - 20 - 56 >= 0) candidates.push(eocdOffset - 20 - 56);
      let zip64: Uint8Array | null = null;
      let zip64Offset = -1;
      for (const at of candidates) {
        if (at < 0 || at + 56 > size) continue;
        const bytes = await source.read(at, 56);
        if (u32(bytes, 0) === SIGNATURE.zip64EndOfCentralDirectory) {
          zip64 = bytes;
          zip64Offset = at;
          break;
        }
      }
      if (zip64) {
        const entries = u64(zip64, 32);
        const centralSize = u64(zip64, 40);
        const centralOffset = u64(zip64, 48);
        if (entries === null || centralSize === null || centralOffset === null) {
          throw new ArchiveFormatError(
            "zip",
            "ZIP64 end record holds impossible sizes",
            zip64Offset,
          );
        }
        if (u32(zip64, 16) !== 0 || u32(zip64, 20) !== 0) {
          throw new ArchiveFormatError(
            "zip",
            "multi-disk (split) archives are not supported",
            zip64Offset,
          );
        }
        return {
          ...record,
          entries,
          centralSize,
          centralOffset,
          recordOffset: zip64Offset,
          zip64: true,
        };
      }
      warnings.push("a ZIP64 locator points at no ZIP64 end record");
    }
  }
  if (disk !== 0 || centralDisk !== 0) {
    throw new ArchiveFormatError(
      "zip",
      "multi-disk (split) archives are not supported",
      eocdOffset,
    );
  }
  if (
    record.entries === 0xffff || record.centralSize === 0xffffffff ||
    record.centralOffset === 0xffffffff
  ) {
    warnings.push("the end record holds ZIP64 placeholders but no ZIP64 record was found");
  }
  return record;
}

interface ExtraFields {
  zip64: Uint8Array | null;
  unicodePath: Uint8Array | null;
  unixMtime: number | null;
  aes: boolean;
}

function parseExtra(extra: Uint8Array, warnings: string[]): ExtraFields {
  const fields: ExtraFields = { zip64: null, unicodePath: null, unixMtime: null, aes: false };
  let pos = 0;
  while (pos + 4 <= extra.byteLength) {
    const id = u16(extra, pos);
    const length = u16(extra, pos + 2);
    const data = extra.subarray(pos + 4, pos + 4 + length);
    if (data.byteLength < length) {
      warnings.push(`extra field 0x${id.toString(16).padStart(4, "0")} overruns the extra data`);
      break;
    }
    if (id === 0x0001) fields.zip64 = data;
    else if (id === 0x7075 && length >= 5 && data[0] === 1) fields.unicodePath = data;
    else if (id === 0x5455 && length >= 5 && (data[0]! & 1)) {
      fields.unixMtime = data[1]! | data[2]! << 8 | data[3]! << 16 | data[4]! << 24;
    } else if (id === 0x9901) fields.aes = true;
    pos += 4 + length;
  }
  return fields;
}

/**
 * Reads the central directory of a zip archive and checks every entry
 * against its local header.
 *
 * Errors: {@linkcode ArchiveFormatError} when there is no end record, the
 * central directory does not fit the file or its count, or a record lacks its
 * signature; {@linkcode ArchiveLimitError} for `max_entries` /
 * `max_path_bytes`. Entries whose local header disagrees (name or method),
 * is missing, or whose data runs past the end are kept, marked
 * `inconsistent`, with a warning.
 *
 * @param source The archive.
 * @param options Limits.
 * @returns The directory.
 */
export async function readZipDirectory(
  source: ByteSource,
  options: ZipDirectoryOptions,
): Promise<ZipDirectory> {
  const warnings: string[] = [];
  const end = await findEnd(source, warnings);
  if (end.entries > options.maxEntries) {
    throw new ArchiveLimitError(
      "max_entries",
      end.entries,
      options.maxEntries,
      "the zip central directory",
    );
  }
  // Data prepended to the archive (self-extractors) shifts every offset.
  let prefix = end.recordOffset - (end.centralOffset + end.centralSize);
  if (prefix < 0) {
    throw new ArchiveFormatError(
      "zip",
      `the central directory (${end.centralSize} bytes at offset ${end.centralOffset}) extends past its end record`,
      end.recordOffset,
    );
  }
  if (end.entries * CENTRAL_FIXED > end.centralSize) {
    throw new ArchiveFormatError(
      "zip",
      `the central directory claims ${end.entries} entries but holds only ${end.centralSize} bytes`,
      end.recordOffset,
    );
  }
  const centralStart = end.centralOffset + prefix;
  if (prefix > 0) {
    const at = await source.read(end.centralOffset, 4).catch(() => null);
    if (at && u32(at, 0) === SIGNATURE.centralHeader && end.entries > 0) {
      // The offsets were right after all; the gap is unexplained data before the end record.
      warnings.push(`${prefix} bytes lie between the central directory and its end record`);
      prefix = 0;
    } else {
      warnings.push(`${prefix} bytes precede the archive (a self-extractor stub or other data)`);
    }
  }
  const cdStart = prefix === 0 ? end.centralOffset : centralStart;
  const cdEnd = cdStart + end.centralSize;
  const window = new WindowedReader(source, cdEnd);
  const entries: ZipEntry[] = [];
  let pos = cdStart;
  for (let index = 0; index < end.entries; index++) {
    const fixed = await window.get(pos, CENTRAL_FIXED);
    if (!fixed || u32(fixed, 0) !== SIGNATURE.centralHeader) {
      throw new ArchiveFormatError(
        "zip",
        fixed
          ? `central directory entry ${index} lacks its signature`
          : `central directory ends inside entry ${index}`,
        pos,
      );
    }
    const versionMadeBy = u16(fixed, 4);
    const flags = u16(fixed, 8);
    const method = u16(fixed, 10);
    const time = u16(fixed, 12);
    const date = u16(fixed, 14);
    const crc = u32(fixed, 16);
    let compressedSize = u32(fixed, 20);
    let uncompressedSize = u32(fixed, 24);
    const nameLength = u16(fixed, 28);
    const extraLength = u16(fixed, 30);
    const commentLength = u16(fixed, 32);
    const external = u32(fixed, 38);
    let localOffset = u32(fixed, 42);
    if (nameLength > options.maxPathBytes) {
      throw new ArchiveLimitError(
        "max_path_bytes",
        nameLength,
        options.maxPathBytes,
        "a zip entry name",
      );
    }
    const variable = await window.get(
      pos + CENTRAL_FIXED,
      nameLength + extraLength + commentLength,
    );
    if (!variable) {
      throw new ArchiveFormatError("zip", `central directory ends inside entry ${index}`, pos);
    }
    const nameBytes = variable.slice(0, nameLength);
    const entryWarnings: string[] = [];
    const extra = parseExtra(
      variable.subarray(nameLength, nameLength + extraLength),
      entryWarnings,
    );
    if (extra.zip64) {
      let at = 0;
      const next = (what: string): number | null => {
        const value = at + 8 <= extra.zip64!.byteLength ? u64(extra.zip64!, at) : null;
        at += 8;
        if (value === null) entryWarnings.push(`ZIP64 extra field lacks a usable ${what}`);
        return value;
      };
      if (uncompressedSize === 0xffffffff) {
        uncompressedSize = next("uncompressed size") ?? uncompressedSize;
      }
      if (compressedSize === 0xffffffff) compressedSize = next("compressed size") ?? compressedSize;
      if (localOffset === 0xffffffff) localOffset = next("local header offset") ?? localOffset;
    }
    const { name, encoding } = decodeName(
      nameBytes,
      flags,
      extra.unicodePath && u32(extra.unicodePath, 1) === (crc32(nameBytes) >>> 0)
        ? extra.unicodePath.subarray(5)
        : null,
    );
    const host = versionMadeBy >> 8;
    const unixMode = external >>> 16;
    const mode = (host === 3 || host === 19) && unixMode !== 0 ? unixMode : null;
    let type: ArchiveEntryType;
    const slash = nameBytes.at(-1) === 0x2f || nameBytes.at(-1) === 0x5c;
    // Type bits that name no file type (Maven writes 0177777) say nothing: unzip then goes by the
    // name and the DOS attributes, as for an entry without a Unix mode.
    if (mode !== null && (mode & 0o170000) !== 0 && typeFromMode(mode) !== "other") {
      type = typeFromMode(mode);
      if (slash && type !== "directory") {
        entryWarnings.push(`name ends with a slash but the mode says ${type}`);
      }
    } else {
      type = slash || (external & 0x10) ? "directory" : "file";
    }
    const encrypted = (flags & 1) !== 0 || method === 99 || extra.aes;
    entries.push({
      name,
      nameEncoding: encoding,
      type,
      compressedSize,
      uncompressedSize,
      method,
      methodName: METHOD_NAMES[method] ?? `method ${method}`,
      crc32: crc,
      mode,
      encrypted,
      flags,
      versionMadeBy,
      localHeaderOffset: localOffset + prefix,
      dataOffset: -1,
      mtime: extra.unixMtime ?? dosTime(date, time),
      inconsistent: false,
      index,
      warnings: entryWarnings,
    });
    pos += CENTRAL_FIXED + nameLength + extraLength + commentLength;
  }
  if (pos < cdEnd) {
    warnings.push(`${cdEnd - pos} bytes of the central directory follow its last entry`);
  }

  for (const entry of entries) {
    await checkLocalHeader(source, entry, Math.min(cdStart, source.size));
  }
  return {
    entries,
    comment: end.comment,
    zip64: end.zip64,
    warnings,
    overlapping: findOverlaps(entries),
    prefixBytes: prefix,
  };
}

async function checkLocalHeader(
  source: ByteSource,
  entry: ZipEntry,
  dataLimit: number,
): Promise<void> {
  const mark = (warning: string): void => {
    entry.inconsistent = true;
    entry.warnings.push(warning);
  };
  const at = entry.localHeaderOffset;
  if (at + LOCAL_FIXED > source.size) {
    mark(`local header offset ${at} lies outside the file`);
    return;
  }
  const want = Math.min(LOCAL_FIXED + entry.name.bytes.byteLength, source.size - at);
  const head = await source.read(at, want);
  if (u32(head, 0) !== SIGNATURE.localHeader) {
    mark(`no local header at offset ${at}`);
    return;
  }
  const method = u16(head, 8);
  const nameLength = u16(head, 26);
  const extraLength = u16(head, 28);
  const localName = nameLength === entry.name.bytes.byteLength && want >= LOCAL_FIXED + nameLength
    ? head.subarray(LOCAL_FIXED, LOCAL_FIXED + nameLength)
    : at + LOCAL_FIXED + nameLength <= source.size
    ? await source.read(at + LOCAL_FIXED, nameLength)
    : null;
  if (localName === null) {
    mark("the local header's name runs past the end of the file");
    return;
  }
  if (!sameBytes(localName, entry.name.bytes)) {
    mark(
      `the local header names ${
        JSON.stringify(entryName(localName).text)
      }, not the central directory's name`,
    );
  }
  if (method !== entry.method) {
    mark(
      `the local header says compression method ${method}, the central directory ${entry.method}`,
    );
  }
  if ((u16(head, 6) & 1) !== (entry.flags & 1)) {
    mark("the local header and central directory disagree on encryption");
  }
  const dataOffset = at + LOCAL_FIXED + nameLength + extraLength;
  if (dataOffset + entry.compressedSize > source.size) {
    mark(`its ${entry.compressedSize} bytes of data run past the end of the file`);
    return;
  }
  if (dataOffset + entry.compressedSize > dataLimit) {
    entry.warnings.push("its data runs into the central directory");
  }
  entry.dataOffset = dataOffset;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

function findOverlaps(entries: ZipEntry[]): number[] {
  const ranges = entries
    .filter((e) => e.dataOffset >= 0)
    .map((e) => ({
      index: e.index,
      start: e.localHeaderOffset,
      end: e.dataOffset + e.compressedSize,
    }))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const overlapping = new Set<number>();
  let reach = -1;
  let reachIndex = -1;
  for (const range of ranges) {
    if (range.start < reach) {
      overlapping.add(range.index);
      overlapping.add(reachIndex);
    }
    if (range.end > reach) {
      reach = range.end;
      reachIndex = range.index;
    }
  }
  return [...overlapping].sort((a, b) => a - b);
}

const BODY_CODECS: Record<number, Codec> = { 8: "deflate-raw", 12: "bzip2", 93: "zstd", 95: "xz" };

/**
 * Streams one entry's content, verifying it: stored (0), deflate (8), bzip2 (12), zstd
 * (93) and xz (95) are decoded; the output must match the declared
 * uncompressed size (more or fewer bytes: {@linkcode ArchiveFormatError}
 * "entry lies about its size") and CRC-32. `maxOutputBytes` (reported as
 * `max_entry_bytes` unless `outputLimit` says otherwise) and `maxRatio` stop
 * bombs as in {@linkcode decompress}.
 *
 * Throws {@linkcode ArchiveFormatError} at once when the entry is encrypted,
 * uses another method, or has no usable local header; other errors surface
 * from the stream.
 *
 * @param source The archive.
 * @param entry An entry of {@linkcode readZipDirectory}'s result for `source`.
 * @param options Limits and cancellation.
 * @returns The content.
 */
export function zipEntryBody(
  source: ByteSource,
  entry: ZipEntry,
  options: DecompressOptions,
): ReadableStream<Uint8Array> {
  const label = JSON.stringify(entry.name.text);
  if (entry.encrypted) {
    throw new ArchiveFormatError(
      "zip",
      `entry ${label} is encrypted; its content cannot be read`,
      entry.localHeaderOffset,
    );
  }
  if (entry.method !== 0 && !(entry.method in BODY_CODECS)) {
    throw new ArchiveFormatError(
      "zip",
      `entry ${label} uses compression method ${entry.method} (${entry.methodName}), which is not supported`,
      entry.localHeaderOffset,
    );
  }
  if (entry.dataOffset < 0 || entry.dataOffset + entry.compressedSize > source.size) {
    throw new ArchiveFormatError(
      "zip",
      `entry ${label} has no readable data (${entry.warnings.join("; ") || "no local header"})`,
      entry.localHeaderOffset,
    );
  }
  const limits: DecompressOptions = {
    ...options,
    outputLimit: options.outputLimit ?? "max_entry_bytes",
  };
  const raw = source.stream(entry.dataOffset, entry.compressedSize, options.signal);
  const content = entry.method === 0
    ? raw
    : entry.compressedSize === 0
    ? (raw.cancel().catch(() => {}), new ReadableStream<Uint8Array>({ start: (c) => c.close() }))
    : decompress(BODY_CODECS[entry.method]!, raw, limits);
  const declared = entry.uncompressedSize;
  let produced = 0;
  let crc = 0;
  const lies = (detail: string): ArchiveFormatError =>
    new ArchiveFormatError(
      "zip",
      `entry ${label} lies about its size: ${detail}`,
      entry.dataOffset,
    );
  return content.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller): void {
        produced += chunk.byteLength;
        if (produced > declared) throw lies(`it holds more than the ${declared} bytes declared`);
        if (produced > limits.maxOutputBytes) {
          throw new ArchiveLimitError(
            limits.outputLimit!,
            produced,
            limits.maxOutputBytes,
            `zip entry ${label}`,
          );
        }
        crc = crc32(chunk, crc);
        controller.enqueue(chunk);
      },
      flush(): void {
        if (produced !== declared) throw lies(`${declared} bytes declared, ${produced} found`);
        if ((crc >>> 0) !== entry.crc32) {
          throw new ArchiveFormatError(
            "zip",
            `entry ${label} fails its CRC-32 check (stored ${hex(entry.crc32)}, computed ${
              hex(crc >>> 0)
            })`,
            entry.dataOffset,
          );
        }
      },
    }),
  );
}

function hex(value: number): string {
  return `0x${value.toString(16).padStart(8, "0")}`;
}
