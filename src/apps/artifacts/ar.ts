/**
 * A streaming reader of `ar` archives (`!<arch>\n`): Debian packages, static
 * libraries. GNU names (`name/`, the `//` long-name table and `/N`
 * references, the `/` and `/SYM64/` symbol tables) and BSD names (`#1/len`,
 * the name stored before the data; `__.SYMDEF` symbol tables). Members are
 * padded to even offsets. Input that ends inside a header or a member is an
 * {@linkcode ArchiveFormatError}.
 *
 * @module
 */

import { ByteStreamReader, EntryBody } from "./byte_source.ts";
import { ArchiveFormatError, ArchiveLimitError } from "./errors.ts";
import {
  type ArchiveEntryName,
  type ArchiveEntryType,
  entryName,
  type TarReadOptions,
} from "./tar.ts";

/** One ar member's metadata. */
export interface ArEntry {
  /** Member name as stored (after long-name resolution, without the GNU `/` terminator). */
  name: ArchiveEntryName;
  /** `"other"` for symbol tables, else `"file"`. */
  type: ArchiveEntryType;
  /** Bytes of member data (for BSD long names, without the stored name). */
  size: number;
  /** Permission bits and file type as stored (octal field). */
  mode: number;
  /** Owner id. */
  uid: number;
  /** Group id. */
  gid: number;
  /** Modification time, seconds since the epoch. */
  mtime: number;
  /** Offset of the member's 60-byte header. */
  headerOffset: number;
  /** Offset of the member's data. */
  dataOffset: number;
  /** Whether this is an archive symbol table (`/`, `/SYM64/`, `__.SYMDEF…`). */
  isSymbolTable: boolean;
  /** Oddities that did not stop reading. */
  warnings: string[];
}

/** One member and its data. */
export interface ArItem {
  /** The member. */
  entry: ArEntry;
  /** The member's data; may be called once; unread data is skipped when the next member is requested. */
  body(): ReadableStream<Uint8Array>;
  /**
   * The data read whole instead (for small entries), with the error the
   * stream would have failed with when the input ends first; may be called
   * once, instead of `body()`.
   */
  whole(): Promise<{ bytes: Uint8Array; error: Error | null }>;
}

/** What {@linkcode readAr} returns when it has read the whole archive. */
export interface ArSummary {
  /** Members yielded (symbol tables included). */
  entries: number;
  /** Archive-level warnings. */
  warnings: string[];
}

const MAGIC = "!<arch>\n";
const THIN_MAGIC = "!<thin>\n";
const HEADER = 60;
const DEFAULT_MAX_HEADER_BYTES = 1 << 20;
const latin1 = new TextDecoder("latin1");

function fieldText(bytes: Uint8Array): string {
  return latin1.decode(bytes).trimEnd();
}

function decimalField(bytes: Uint8Array): number | null {
  const text = fieldText(bytes).trimStart();
  if (text === "") return 0;
  if (!/^[0-9]+$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

function octalField(bytes: Uint8Array): number | null {
  const text = fieldText(bytes).trimStart();
  if (text === "") return 0;
  return /^[0-7]+$/.test(text) ? parseInt(text, 8) : null;
}

function trimTrailing(bytes: Uint8Array, byte: number): Uint8Array {
  let end = bytes.byteLength;
  while (end > 0 && bytes[end - 1] === byte) end--;
  return bytes.subarray(0, end);
}

/**
 * Reads an ar archive member by member.
 *
 * The GNU long-name table (`//`) is read into memory (at most
 * `maxHeaderBytes`) and not yielded; symbol tables are yielded with
 * `isSymbolTable` set. The generator returns an {@linkcode ArSummary}.
 * Errors: {@linkcode ArchiveFormatError} (bad magic, malformed header,
 * truncated input), {@linkcode ArchiveLimitError}, or the signal's reason.
 *
 * @param input The archive bytes.
 * @param options Limits, cancellation and a warning sink.
 * @returns The members, then the summary.
 */
export async function* readAr(
  input: ReadableStream<Uint8Array>,
  options: TarReadOptions,
): AsyncGenerator<ArItem, ArSummary, undefined> {
  const reader = new ByteStreamReader(input, options.signal);
  const maxHeaderBytes = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
  const warnings: string[] = [];
  const warn = (message: string): void => {
    warnings.push(message);
    options.onWarning?.(message);
  };
  const truncated = (what: string, offset: number): ArchiveFormatError =>
    new ArchiveFormatError("ar", `truncated input (${what})`, offset);
  let nameTable: Uint8Array | null = null;
  let entries = 0;
  try {
    const magic = latin1.decode(await reader.read(8));
    if (magic === THIN_MAGIC) {
      throw new ArchiveFormatError(
        "ar",
        "a thin archive (!<thin>) stores only references to files outside it; not supported",
        0,
      );
    }
    if (magic !== MAGIC) {
      throw new ArchiveFormatError(
        "ar",
        magic.length < 8
          ? `not an ar archive (only ${magic.length} bytes)`
          : "not an ar archive (bad magic)",
        0,
      );
    }
    while (true) {
      const headerOffset = reader.position;
      const header = await reader.read(HEADER);
      if (header.byteLength === 0) break;
      if (header.byteLength < HEADER) throw truncated("inside a member header", headerOffset);
      if (header[58] !== 0x60 || header[59] !== 0x0a) {
        throw new ArchiveFormatError("ar", "member header lacks its terminator", headerOffset + 58);
      }
      const stored = decimalField(header.subarray(48, 58));
      if (stored === null) {
        throw new ArchiveFormatError("ar", "invalid size field", headerOffset + 48);
      }
      const rawName = header.subarray(0, 16);
      const nameField = fieldText(rawName);
      const entryWarnings: string[] = [];
      let size = stored;
      let dataOffset = headerOffset + HEADER;
      let nameBytes: Uint8Array;
      let isSymbolTable = false;

      if (nameField === "//") {
        if (stored > maxHeaderBytes) {
          throw new ArchiveLimitError(
            "max_header_bytes",
            stored,
            maxHeaderBytes,
            "the ar long-name table",
          );
        }
        const table = (await reader.read(stored)).slice();
        if (table.byteLength < stored) throw truncated("inside the long-name table", dataOffset);
        if (nameTable) {
          warn(`a second long-name table at offset ${headerOffset} replaces the first`);
        }
        nameTable = table;
        if (stored % 2 === 1 && (await reader.skip(1)) < 1) {
          warn("the archive ends without the padding byte after the long-name table");
        }
        continue;
      }

      if (nameField === "/" || nameField === "/SYM64/") {
        nameBytes = trimTrailing(rawName, 0x20).slice();
        isSymbolTable = true;
      } else if (/^\/[0-9]+$/.test(nameField)) {
        const at = Number(nameField.slice(1));
        if (!nameTable || at >= nameTable.byteLength) {
          throw new ArchiveFormatError(
            "ar",
            `member name refers to offset ${at} outside the long-name table`,
            headerOffset,
          );
        }
        let end = at;
        while (end < nameTable.byteLength && nameTable[end] !== 0x0a && nameTable[end] !== 0) end++;
        let name = nameTable.subarray(at, end);
        if (name.at(-1) === 0x2f) name = name.subarray(0, name.byteLength - 1);
        nameBytes = name;
      } else if (/^#1\/[0-9]+$/.test(nameField)) {
        const length = Number(nameField.slice(3));
        if (length > stored) {
          throw new ArchiveFormatError("ar", "BSD name is longer than the member", headerOffset);
        }
        if (length > options.maxPathBytes) {
          throw new ArchiveLimitError(
            "max_path_bytes",
            length,
            options.maxPathBytes,
            "an ar member name",
          );
        }
        const bytes = (await reader.read(length)).slice();
        if (bytes.byteLength < length) throw truncated("inside a BSD member name", dataOffset);
        nameBytes = trimTrailing(bytes, 0);
        size = stored - length;
        dataOffset += length;
      } else {
        let name = trimTrailing(rawName, 0x20);
        if (name.at(-1) === 0x2f) name = name.subarray(0, name.byteLength - 1);
        nameBytes = name.slice();
      }
      if (nameBytes.byteLength > options.maxPathBytes) {
        throw new ArchiveLimitError(
          "max_path_bytes",
          nameBytes.byteLength,
          options.maxPathBytes,
          "an ar member name",
        );
      }
      const text = latin1.decode(nameBytes);
      if (text.startsWith("__.SYMDEF")) isSymbolTable = true;

      const number = (value: number | null, what: string): number => {
        if (value === null) {
          entryWarnings.push(`invalid ${what} field`);
          return 0;
        }
        return value;
      };
      entries++;
      if (entries > options.maxEntries) {
        throw new ArchiveLimitError("max_entries", entries, options.maxEntries);
      }
      const entry: ArEntry = {
        name: entryName(nameBytes),
        type: isSymbolTable ? "other" : "file",
        size,
        mode: number(octalField(header.subarray(40, 48)), "mode"),
        uid: number(decimalField(header.subarray(28, 34)), "uid"),
        gid: number(decimalField(header.subarray(34, 40)), "gid"),
        mtime: number(decimalField(header.subarray(16, 28)), "mtime"),
        headerOffset,
        dataOffset,
        isSymbolTable,
        warnings: entryWarnings,
      };
      const data = new EntryBody(
        reader,
        size,
        JSON.stringify(entry.name.text),
        (got) =>
          truncated(
            `member ${
              JSON.stringify(entry.name.text)
            } declares ${size} bytes but the input ends after ${got}`,
            dataOffset + got,
          ),
      );
      yield { entry, body: () => data.stream(), whole: () => data.whole() };
      await data.finish();
      if (stored % 2 === 1) {
        const padOffset = reader.position;
        if ((await reader.skip(1)) < 1) {
          warn(
            `the archive ends at offset ${padOffset} without the padding byte after the last member`,
          );
          break;
        }
      }
    }
    return { entries, warnings };
  } finally {
    await reader.close();
  }
}
