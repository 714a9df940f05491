/**
 * A streaming tar reader: POSIX ustar, pax (per-entry and global extended
 * headers: path, linkpath, size, mtime, uid, gid, uname, gname), GNU (long
 * names and link names in `L` / `K` entries, base-256 numbers) and old v7
 * archives. Every header's checksum is verified. Two zero blocks or the end
 * of input end the archive; input that ends inside a header or a body is an
 * {@linkcode ArchiveFormatError}.
 *
 * Names are reported exactly as stored (raw bytes kept, nothing normalised
 * or rejected): `../`, absolute paths and odd bytes are the caller's to judge.
 * Memory stays bounded by the input's chunk size, the largest extended header
 * (`maxHeaderBytes`) and `maxPathBytes`.
 *
 * @module
 */

import { ByteStreamReader, EntryBody } from "./byte_source.ts";
import { ArchiveFormatError, ArchiveLimitError } from "./errors.ts";

/** What an archive entry is. */
export type ArchiveEntryType =
  | "file"
  | "directory"
  | "symlink"
  | "hardlink"
  | "character-device"
  | "block-device"
  | "fifo"
  | "other";

/** An entry name (or link target) as stored, with its best text rendering. */
export interface ArchiveEntryName {
  /** The name as text; invalid UTF-8 bytes appear as U+FFFD. */
  text: string;
  /** The stored bytes. */
  bytes: Uint8Array;
  /** Whether `bytes` is valid UTF-8 (so `text` renders it exactly). */
  validUtf8: boolean;
  /**
   * Whether `text` renders `bytes` without loss: false only when `text` is
   * the UTF-8 decoding of bytes that are not valid UTF-8 (a code page such as
   * CP437 renders every byte, and is exact).
   */
  exact: boolean;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const lenientUtf8 = new TextDecoder("utf-8");

/**
 * Wraps stored name bytes as an {@linkcode ArchiveEntryName} (UTF-8 decoding).
 *
 * @param bytes The stored bytes (kept, not copied).
 * @returns The name.
 */
export function entryName(bytes: Uint8Array): ArchiveEntryName {
  let ascii = true;
  for (let i = 0; i < bytes.byteLength; i++) {
    if (bytes[i]! >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return { text: String.fromCharCode(...bytes), bytes, validUtf8: true, exact: true };
  try {
    return { text: strictUtf8.decode(bytes), bytes, validUtf8: true, exact: true };
  } catch {
    return { text: lenientUtf8.decode(bytes), bytes, validUtf8: false, exact: false };
  }
}

/** One tar entry's metadata. */
export interface TarEntry {
  /** Path as stored (after pax `path` / GNU long name / ustar prefix). */
  name: ArchiveEntryName;
  /** What the entry is. */
  type: ArchiveEntryType;
  /** Bytes of data that follow the header (the body's length). */
  size: number;
  /** Permission bits (`mode & 0o7777`). */
  mode: number;
  /** Owner id. */
  uid: number;
  /** Group id. */
  gid: number;
  /** Owner name (`""` when not stored). */
  uname: string;
  /** Group name (`""` when not stored). */
  gname: string;
  /** Modification time, seconds since the epoch (pax may give a fraction). */
  mtime: number;
  /** Link target of symlinks and hard links, else `null`. */
  linkTarget: ArchiveEntryName | null;
  /** Device numbers of character and block devices, else `null`. */
  device: { major: number; minor: number } | null;
  /** Offset of the entry's own (ustar) header block. */
  headerOffset: number;
  /** Offset of the first header block belonging to the entry (pax / GNU long-name blocks). */
  firstHeaderOffset: number;
  /** Offset of the entry's data. */
  dataOffset: number;
  /** The raw type flag character (`"0"`, `"5"`, `"\0"`, …). */
  typeFlag: string;
  /** Header format: `"ustar"`, `"gnu"`, `"v7"`, with `"+pax"` when extended headers applied. */
  format: string;
  /** Oddities of this entry that did not stop reading. */
  warnings: string[];
  /**
   * A GNU sparse file (type `S`, or pax `GNU.sparse.*` records): a regular
   * file whose body holds only its stored fragments and their map; `type`
   * is `"other"`, since the body is not the file's content.
   */
  sparse: boolean;
}

/** Limits and cancellation for {@linkcode readTar} and `readAr`. */
export interface TarReadOptions {
  /** Most entries allowed; one more raises {@linkcode ArchiveLimitError} `max_entries`. */
  maxEntries: number;
  /** Longest name or link target in bytes; longer raises `max_path_bytes`. */
  maxPathBytes: number;
  /** Stops reading with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Largest pax extended header (or ar name table) held in memory; larger raises `max_header_bytes`.
   * @default {1048576}
   */
  maxHeaderBytes?: number;
  /** Receives archive-level warnings (they are also in the generator's return value). */
  onWarning?: (warning: string) => void;
}

/** One entry and its data. */
export interface TarItem {
  /** The entry. */
  entry: TarEntry;
  /**
   * The entry's data (`entry.size` bytes). May be called once; data not read
   * before the next entry is requested is skipped, and the stream then fails.
   */
  body(): ReadableStream<Uint8Array>;
  /**
   * The data read whole instead (for small entries), with the error the
   * stream would have failed with when the input ends first; may be called
   * once, instead of `body()`.
   */
  whole(): Promise<{ bytes: Uint8Array; error: Error | null }>;
}

/** What {@linkcode readTar} returns when it has read the whole archive. */
export interface TarSummary {
  /** Entries yielded. */
  entries: number;
  /** Archive-level warnings (missing end blocks, data after the end, …). */
  warnings: string[];
  /** Offset of the end-of-archive marker (or of the end of input). */
  endOffset: number;
  /** Bytes read after the end-of-archive marker. */
  trailingBytes: number;
  /** How many of those are not zero (data hidden after the end shows here). */
  trailingNonZeroBytes: number;
}

const BLOCK = 512;
const DRAIN_CHUNK = 1 << 20;
const DEFAULT_MAX_HEADER_BYTES = 1 << 20;

function isZeroBlock(block: Uint8Array): boolean {
  for (let i = 0; i < BLOCK; i++) if (block[i] !== 0) return false;
  return true;
}

/** Bytes of `field` up to its first NUL. */
function cString(field: Uint8Array): Uint8Array {
  const end = field.indexOf(0);
  return end < 0 ? field : field.subarray(0, end);
}

function asciiText(field: Uint8Array): string {
  return lenientUtf8.decode(cString(field));
}

/**
 * A numeric header field: octal ASCII (spaces / NULs around it) or GNU
 * base-256 (high bit of the first byte set). `null` when malformed or not
 * exactly representable.
 */
function parseNumber(field: Uint8Array): number | null {
  const first = field[0] ?? 0;
  if (first & 0x80) {
    const negative = first === 0xff;
    let value = 0;
    for (let i = 0; i < field.byteLength; i++) {
      let byte = i === 0 ? (negative ? 0xff : first & 0x7f) : field[i]!;
      if (negative) byte = ~byte & 0xff;
      value = value * 256 + byte;
      if (value > Number.MAX_SAFE_INTEGER) return null;
    }
    return negative ? -(value + 1) : value;
  }
  let i = 0;
  while (i < field.byteLength && (field[i] === 0x20 || field[i] === 0)) i++;
  let value = 0;
  let digits = 0;
  for (; i < field.byteLength; i++) {
    const c = field[i]!;
    if (c >= 0x30 && c <= 0x37) {
      value = value * 8 + (c - 0x30);
      digits++;
      continue;
    }
    if (c === 0x20 || c === 0) break;
    return null;
  }
  for (; i < field.byteLength; i++) if (field[i] !== 0x20 && field[i] !== 0) return null;
  if (value > Number.MAX_SAFE_INTEGER) return null;
  return digits === 0 ? 0 : value;
}

function checksumMatches(block: Uint8Array): boolean {
  const stored = parseNumber(block.subarray(148, 156));
  if (stored === null) return false;
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const byte = i >= 148 && i < 156 ? 0x20 : block[i]!;
    unsigned += byte;
    signed += byte >= 0x80 ? byte - 256 : byte;
  }
  return stored === unsigned || stored === signed;
}

/**
 * Whether `block` (at least 512 bytes) is a plausible tar header: not all
 * zeros, with a checksum that matches.
 *
 * @param block The first 512 bytes (or more) of a candidate.
 * @returns Whether it reads as a tar header.
 */
export function isTarHeader(block: Uint8Array): boolean {
  return block.byteLength >= BLOCK && !isZeroBlock(block) && checksumMatches(block);
}

type PaxRecords = Map<string, Uint8Array>;

const decimal = (bytes: Uint8Array): string => lenientUtf8.decode(bytes);

/** Parses `"<len> <key>=<value>\n"` records; malformed input stops with a warning. */
function parsePax(payload: Uint8Array, warnings: string[], offset: number): PaxRecords {
  const records: PaxRecords = new Map();
  let pos = 0;
  while (pos < payload.byteLength) {
    if (payload[pos] === 0) break; // NUL padding some writers leave
    const space = payload.indexOf(0x20, pos);
    const lengthText = space < 0 ? "" : decimal(payload.subarray(pos, space));
    const length = /^[0-9]{1,12}$/.test(lengthText) ? Number(lengthText) : NaN;
    if (!Number.isFinite(length) || length <= space - pos || pos + length > payload.byteLength) {
      warnings.push(
        `malformed pax record at offset ${offset + pos}; the rest of that header is ignored`,
      );
      break;
    }
    const record = payload.subarray(space + 1, pos + length);
    if (record[record.byteLength - 1] !== 0x0a) {
      warnings.push(`pax record at offset ${offset + pos} lacks its newline; ignored`);
      pos += length;
      continue;
    }
    const equals = record.indexOf(0x3d);
    if (equals <= 0) {
      warnings.push(`pax record at offset ${offset + pos} has no keyword; ignored`);
      pos += length;
      continue;
    }
    records.set(
      decimal(record.subarray(0, equals)),
      record.subarray(equals + 1, record.byteLength - 1),
    );
    pos += length;
  }
  return records;
}

function paxInteger(value: Uint8Array | undefined): number | null {
  if (value === undefined) return null;
  const text = decimal(value);
  if (!/^[0-9]{1,16}$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

function paxTime(value: Uint8Array | undefined): number | null {
  if (value === undefined) return null;
  const text = decimal(value);
  if (!/^-?[0-9]{1,16}(\.[0-9]{1,12})?$/.test(text)) return null;
  return Number(text);
}

interface PendingMeta {
  firstOffset: number;
  pax: PaxRecords | null;
  longName: Uint8Array | null;
  longLink: Uint8Array | null;
  warnings: string[];
}

function typeOf(flag: string): ArchiveEntryType {
  switch (flag) {
    case "0":
    case "\0":
    case "7":
      return "file";
    case "1":
      return "hardlink";
    case "2":
      return "symlink";
    case "3":
      return "character-device";
    case "4":
      return "block-device";
    case "5":
    case "D":
      return "directory";
    case "6":
      return "fifo";
    default:
      return "other";
  }
}

/**
 * Reads a tar archive entry by entry.
 *
 * Each yielded item's `body()` streams that entry's data; a body not read
 * before the next entry is requested is skipped. The generator returns a
 * {@linkcode TarSummary}. Errors: {@linkcode ArchiveFormatError} (bad
 * checksum, malformed header, truncated input; for input that is not tar at
 * all the message says so), {@linkcode ArchiveLimitError} (`max_entries`,
 * `max_path_bytes`, `max_header_bytes`), or the signal's reason. Breaking out
 * of the loop cancels `input`.
 *
 * @param input The uncompressed tar bytes.
 * @param options Limits, cancellation and a warning sink.
 * @returns The entries, then the summary.
 */
export async function* readTar(
  input: ReadableStream<Uint8Array>,
  options: TarReadOptions,
): AsyncGenerator<TarItem, TarSummary, undefined> {
  const reader = new ByteStreamReader(input, options.signal);
  const maxHeaderBytes = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
  const warnings: string[] = [];
  const warn = (message: string): void => {
    warnings.push(message);
    options.onWarning?.(message);
  };
  const global: PaxRecords = new Map();
  let meta: PendingMeta | null = null;
  let entries = 0;
  let endOffset = 0;
  let trailingBytes = 0;
  let trailingNonZeroBytes = 0;

  const truncated = (what: string, offset: number): ArchiveFormatError =>
    new ArchiveFormatError("tar", `truncated input (${what})`, offset);

  const checkPath = (bytes: Uint8Array, what: string): void => {
    if (bytes.byteLength > options.maxPathBytes) {
      throw new ArchiveLimitError("max_path_bytes", bytes.byteLength, options.maxPathBytes, what);
    }
  };

  /** Reads an extension entry's data (bounded), then its padding. */
  const readExtension = async (size: number, offset: number, kind: string): Promise<Uint8Array> => {
    const limit = kind === "pax" ? maxHeaderBytes : options.maxPathBytes + 1;
    if (size > limit) {
      if (kind === "pax") {
        throw new ArchiveLimitError("max_header_bytes", size, limit, "a pax header");
      }
      throw new ArchiveLimitError("max_path_bytes", size, limit, `a GNU long ${kind}`);
    }
    const bytes = (await reader.read(size)).slice();
    if (bytes.byteLength < size) {
      throw truncated(`inside a ${kind} extension header's data`, offset);
    }
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if ((await reader.skip(pad)) < pad) {
      throw truncated(`inside a ${kind} extension header's padding`, offset);
    }
    return bytes;
  };

  try {
    while (true) {
      const headerOffset = reader.position;
      const block = await reader.read(BLOCK);
      if (block.byteLength === 0) {
        if (meta) {
          throw truncated(
            "the input ends after an extended header, before its entry",
            headerOffset,
          );
        }
        if (headerOffset === 0) throw new ArchiveFormatError("tar", "empty input", 0);
        warn(`the archive ends at offset ${headerOffset} without its two end-of-archive blocks`);
        endOffset = headerOffset;
        break;
      }
      if (block.byteLength < BLOCK) {
        if (headerOffset > 0 && block.every((byte) => byte === 0)) {
          warn(`the archive ends inside its end-of-archive blocks at offset ${headerOffset}`);
          endOffset = headerOffset;
          break;
        }
        if (headerOffset === 0) {
          throw new ArchiveFormatError(
            "tar",
            `not a tar archive (only ${block.byteLength} bytes)`,
            0,
          );
        }
        throw truncated("inside a header", headerOffset);
      }
      if (isZeroBlock(block)) {
        endOffset = headerOffset;
        if (meta) {
          warn(
            `an extended header at offset ${meta.firstOffset} is followed by the end of the archive`,
          );
        }
        const second = await reader.read(BLOCK);
        if (second.byteLength < BLOCK) {
          warn(`the archive ends after a single end-of-archive block at offset ${headerOffset}`);
        }
        if (second.byteLength > 0 && !isZeroBlock(second)) {
          warn(`a lone zero block at offset ${headerOffset} ends the archive (as tar reads it)`);
          trailingBytes += second.byteLength;
          for (const byte of second) if (byte !== 0) trailingNonZeroBytes++;
        }
        break;
      }
      if (!checksumMatches(block)) {
        if (headerOffset === 0) {
          throw new ArchiveFormatError(
            "tar",
            "not a tar archive (the first header's checksum does not match)",
            0,
          );
        }
        throw new ArchiveFormatError("tar", "header checksum mismatch", headerOffset);
      }

      const magic = asciiText(block.subarray(257, 263));
      const version = block.subarray(263, 265);
      const isGnu = magic === "ustar " && version[0] === 0x20 && version[1] === 0;
      const isUstar = !isGnu && magic === "ustar";
      const flag = String.fromCharCode(block[156]!);
      const declaredSize = parseNumber(block.subarray(124, 136));
      if (declaredSize === null || declaredSize < 0) {
        throw new ArchiveFormatError("tar", "invalid size field", headerOffset + 124);
      }

      if (flag === "x" || flag === "g" || flag === "L" || flag === "K") {
        meta ??= {
          firstOffset: headerOffset,
          pax: null,
          longName: null,
          longLink: null,
          warnings: [],
        };
        if (flag === "x" || flag === "g") {
          const payload = await readExtension(declaredSize, headerOffset, "pax");
          const records = parsePax(
            payload,
            flag === "g" ? warnings : meta.warnings,
            headerOffset + BLOCK,
          );
          if (flag === "g") {
            for (const [key, value] of records) {
              if (value.byteLength === 0) global.delete(key);
              else global.set(key, value);
            }
            // A global header alone does not start an entry.
            if (!meta.pax && !meta.longName && !meta.longLink && meta.warnings.length === 0) {
              meta = null;
            }
          } else {
            meta.pax ??= new Map();
            for (const [key, value] of records) meta.pax.set(key, value);
          }
        } else {
          const payload = cString(
            await readExtension(declaredSize, headerOffset, flag === "L" ? "name" : "link name"),
          );
          if (flag === "L") meta.longName = payload;
          else meta.longLink = payload;
        }
        continue;
      }

      const entryWarnings = meta?.warnings ?? [];
      const pax: PaxRecords = new Map(global);
      for (const [key, value] of meta?.pax ?? []) if (value.byteLength > 0) pax.set(key, value);
      const usedPax = pax.size > 0;

      // Name: pax path > GNU long name > ustar prefix + name > name.
      let nameBytes: Uint8Array;
      const paxPath = pax.get("path");
      if (paxPath !== undefined) nameBytes = paxPath;
      else if (meta?.longName) nameBytes = meta.longName;
      else {
        const base = cString(block.subarray(0, 100));
        const prefix = isUstar ? cString(block.subarray(345, 500)) : new Uint8Array(0);
        if (prefix.byteLength > 0) {
          nameBytes = new Uint8Array(prefix.byteLength + 1 + base.byteLength);
          nameBytes.set(prefix, 0);
          nameBytes[prefix.byteLength] = 0x2f;
          nameBytes.set(base, prefix.byteLength + 1);
        } else nameBytes = base.slice();
      }
      if (pax.has("GNU.sparse.name")) nameBytes = pax.get("GNU.sparse.name")!;
      checkPath(nameBytes, "an entry name");

      let type = typeOf(flag);
      if ((flag === "\0" || (flag === "0" && !isUstar && !isGnu)) && nameBytes.at(-1) === 0x2f) {
        type = "directory";
      }
      const sparse = flag === "S" || pax.has("GNU.sparse.major") || pax.has("GNU.sparse.size") ||
        pax.has("GNU.sparse.map");
      if (sparse) {
        type = "other";
        entryWarnings.push(
          "GNU sparse file: the data holds only the stored fragments and a map, not the file",
        );
      } else if (type === "other") {
        entryWarnings.push(`unrecognised type flag ${JSON.stringify(flag)}`);
      }

      let linkTarget: ArchiveEntryName | null = null;
      if (type === "symlink" || type === "hardlink") {
        const bytes = pax.get("linkpath") ?? meta?.longLink ??
          cString(block.subarray(157, 257)).slice();
        checkPath(bytes, "a link target");
        linkTarget = entryName(bytes);
      }

      let size = declaredSize;
      const paxSize = pax.get("size");
      if (paxSize !== undefined) {
        const parsed = paxInteger(paxSize);
        if (parsed === null) {
          entryWarnings.push("pax size is not a whole number; the header's size is used");
        } else size = parsed;
      }
      // As GNU tar reads them: directories and hard links carry no data.
      if ((flag === "5" || flag === "1" || type === "directory" && flag !== "D") && size > 0) {
        entryWarnings.push(`size field ${size} ignored: a ${type} carries no data`);
        size = 0;
      } else if (size > 0 && type !== "file" && type !== "other" && flag !== "D") {
        entryWarnings.push(`a ${type} declares ${size} bytes of data`);
      }

      const headerNumber = (start: number, end: number, what: string): number => {
        const value = parseNumber(block.subarray(start, end));
        if (value === null) {
          entryWarnings.push(`invalid ${what} field`);
          return 0;
        }
        return value;
      };
      const mode = headerNumber(100, 108, "mode") & 0o7777;
      const uid = paxInteger(pax.get("uid")) ?? headerNumber(108, 116, "uid");
      const gid = paxInteger(pax.get("gid")) ?? headerNumber(116, 124, "gid");
      const mtime = paxTime(pax.get("mtime")) ?? headerNumber(136, 148, "mtime");
      const uname = pax.has("uname")
        ? decimal(pax.get("uname")!)
        : isUstar || isGnu
        ? asciiText(block.subarray(265, 297))
        : "";
      const gname = pax.has("gname")
        ? decimal(pax.get("gname")!)
        : isUstar || isGnu
        ? asciiText(block.subarray(297, 329))
        : "";
      const device = type === "character-device" || type === "block-device"
        ? { major: headerNumber(329, 337, "devmajor"), minor: headerNumber(337, 345, "devminor") }
        : null;

      entries++;
      if (entries > options.maxEntries) {
        throw new ArchiveLimitError("max_entries", entries, options.maxEntries);
      }

      const entry: TarEntry = {
        name: entryName(nameBytes),
        type,
        size,
        mode,
        uid,
        gid,
        uname,
        gname,
        mtime,
        linkTarget,
        device,
        headerOffset,
        firstHeaderOffset: meta?.firstOffset ?? headerOffset,
        dataOffset: headerOffset + BLOCK,
        typeFlag: flag,
        format: (isGnu ? "gnu" : isUstar ? "ustar" : "v7") + (usedPax ? "+pax" : ""),
        warnings: entryWarnings,
        sparse,
      };
      meta = null;

      const data = new EntryBody(
        reader,
        size,
        JSON.stringify(entry.name.text),
        (got) =>
          truncated(
            `entry ${
              JSON.stringify(entry.name.text)
            } declares ${size} bytes of data but the input ends after ${got}`,
            entry.dataOffset + got,
          ),
      );
      yield { entry, body: () => data.stream(), whole: () => data.whole() };
      await data.finish();
      const pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (pad > 0 && (await reader.skip(pad)) < pad) {
        throw truncated(
          `inside the padding after ${JSON.stringify(entry.name.text)}`,
          entry.dataOffset + size,
        );
      }
    }

    // Read what follows the end marker: its size is reported, and a
    // compressed stream underneath gets to check its own trailer.
    while (true) {
      const chunk = await reader.readChunk(DRAIN_CHUNK);
      if (chunk === null) break;
      trailingBytes += chunk.byteLength;
      for (let i = 0; i < chunk.byteLength; i++) if (chunk[i] !== 0) trailingNonZeroBytes++;
    }
    if (trailingNonZeroBytes > 0) {
      warn(
        `${trailingNonZeroBytes} non-zero bytes follow the end of the archive at offset ${endOffset}`,
      );
    }
    return { entries, warnings, endOffset, trailingBytes, trailingNonZeroBytes };
  } finally {
    await reader.close();
  }
}
