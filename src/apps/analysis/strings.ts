/**
 * The strings of a document, found the way `strings -a` finds them (runs of
 * printable ASCII, and of UTF-16LE code units that are printable ASCII, at
 * least four long) anywhere in its bytes, kept compactly and searched by
 * literal or regular expression.
 *
 * @module
 */

import { type BinaryImage, offsetToAddress } from "../formats/binary_image.ts";
import { compileLinearRegex } from "../../core/linear_regex.ts";

/** Shortest run reported. */
export const MIN_STRING_LENGTH = 4;
/** Longest value returned for one string (longer ones are cut, and say so). */
export const MAX_STRING_VALUE = 1024;

/**
 * The strings of one document: where each starts, in the order found (ASCII
 * runs, then UTF-16LE runs at even, then at odd offsets). A string's encoding
 * and length are read back from the bytes (see {@linkcode stringEncoding}
 * and {@linkcode stringLength}), which keeps the table at 4 bytes a string.
 */
export interface StringTable {
  /** Offsets into `image.bytes`. */
  offsets: Uint32Array;
  count: number;
}

function printable(byte: number): boolean {
  return (byte >= 0x20 && byte <= 0x7e) || byte === 0x09;
}

/** 1 for the bytes {@linkcode printable} accepts, by byte value. */
const PRINTABLE = Uint8Array.from({ length: 256 }, (_, byte) => (printable(byte) ? 1 : 0));

/** Offsets per block while scanning. */
const BLOCK = 1 << 16;

/** The encodings a string table can hold. */
export type StringEncodingName = "ascii" | "utf-16le";

/** Progress and cancellation of a scan. */
export interface ScanControl {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => Promise<void> | void;
}

/**
 * Scans the bytes for both encodings: ASCII runs, then UTF-16LE runs at even,
 * then at odd offsets. Calls `onProgress` every 16 MiB and stops when
 * `signal` aborts.
 */
export async function scanStrings(
  bytes: Uint8Array,
  options: ScanControl = {},
): Promise<StringTable> {
  return (await scanBothEncodings(
    bytes.length,
    options,
    (encoding, control) => scanStringRuns(bytes, encoding, control),
  )).table;
}

/**
 * Both encodings' tables from `scan` (ASCII, then UTF-16LE), joined; each
 * scan reports its progress over half of `total` bytes. Also answers how
 * many of the joined strings are ASCII.
 */
export async function scanBothEncodings(
  total: number,
  options: ScanControl,
  scan: (encoding: StringEncodingName, options: ScanControl) => Promise<StringTable>,
): Promise<{ table: StringTable; asciiCount: number }> {
  const half = (base: number) =>
    options.onProgress &&
    ((done: number, all: number) => options.onProgress!(base + Math.floor(done / 2), all));
  const ascii = await scan("ascii", { signal: options.signal, onProgress: half(0) });
  const utf16 = await scan("utf-16le", {
    signal: options.signal,
    onProgress: half(Math.floor(total / 2)),
  });
  return { table: joinStringTables(ascii, utf16), asciiCount: ascii.count };
}

/**
 * The strings of one encoding, in the order {@linkcode scanStrings} lists
 * them: one pass over the bytes for ASCII, two (even, then odd offsets) for
 * UTF-16LE. Progress goes from 0 to the byte count.
 */
export async function scanStringRuns(
  bytes: Uint8Array,
  encoding: StringEncodingName,
  options: ScanControl = {},
): Promise<StringTable> {
  // Fixed-size blocks, copied once into an exact-size table at the end.
  const blocks: Uint32Array[] = [];
  let block = new Uint32Array(0);
  let used = 0;
  const push = (offset: number): void => {
    if (used === block.length) {
      block = new Uint32Array(BLOCK);
      blocks.push(block);
      used = 0;
    }
    block[used++] = offset;
  };
  const chunk = 16 * 1024 * 1024;
  const n = bytes.length;
  let start = -1;
  if (encoding === "ascii") {
    for (let base = 0; base < n; base += chunk) {
      if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
      const end = Math.min(n, base + chunk);
      for (let i = base; i < end; i++) {
        if (PRINTABLE[bytes[i]!] === 1) {
          if (start < 0) start = i;
        } else if (start >= 0) {
          if (i - start >= MIN_STRING_LENGTH) push(start);
          start = -1;
        }
      }
      await options.onProgress?.(end, n);
    }
    if (start >= 0 && n - start >= MIN_STRING_LENGTH) push(start);
  } else {
    // Both byte alignments, one after the other.
    for (let phase = 0; phase < 2; phase++) {
      start = -1;
      for (let i = phase; i + 1 < n; i += 2) {
        // Most units of machine code have a high byte that is not 0: test it first.
        if (bytes[i + 1] === 0 && PRINTABLE[bytes[i]!] === 1) {
          if (start < 0) start = i;
        } else if (start >= 0) {
          if ((i - start) / 2 >= MIN_STRING_LENGTH) push(start);
          start = -1;
        }
        if ((i & 0xffffff) === phase && options.signal?.aborted) {
          throw options.signal.reason ?? new Error("aborted");
        }
      }
      if (start >= 0) {
        const length = Math.floor((n - start) / 2);
        if (length >= MIN_STRING_LENGTH) push(start);
      }
      await options.onProgress?.(Math.floor((phase + 1) * n / 2), n);
    }
  }
  const count = blocks.length === 0 ? 0 : (blocks.length - 1) * BLOCK + used;
  const offsets = new Uint32Array(count);
  for (let b = 0; b < blocks.length; b++) {
    offsets.set(b === blocks.length - 1 ? blocks[b]!.subarray(0, used) : blocks[b]!, b * BLOCK);
    blocks[b] = new Uint32Array(0);
  }
  return { offsets, count };
}

/** Strings `start` to `end` (exclusive) of `table`, sharing its offsets. */
export function stringTableSlice(table: StringTable, start: number, end: number): StringTable {
  return { offsets: table.offsets.subarray(start, end), count: end - start };
}

/** One table of `first`'s strings followed by `second`'s. */
export function joinStringTables(first: StringTable, second: StringTable): StringTable {
  const offsets = new Uint32Array(first.count + second.count);
  offsets.set(first.offsets.subarray(0, first.count), 0);
  offsets.set(second.offsets.subarray(0, second.count), first.count);
  return { offsets, count: offsets.length };
}

/**
 * The encoding of string `index`: 0 = ASCII, 1 = UTF-16LE. An ASCII run's
 * second byte is printable, a UTF-16LE run's is 0, so the bytes tell.
 */
export function stringEncoding(bytes: Uint8Array, table: StringTable, index: number): 0 | 1 {
  return bytes[table.offsets[index]! + 1] === 0 ? 1 : 0;
}

/** The length of string `index` in characters, read back from the bytes as the scan found it. */
export function stringLength(bytes: Uint8Array, table: StringTable, index: number): number {
  const offset = table.offsets[index]!;
  const n = bytes.length;
  let i = offset;
  if (bytes[offset + 1] !== 0) {
    while (i < n && printable(bytes[i]!)) i++;
    return i - offset;
  }
  while (i + 1 < n && printable(bytes[i]!) && bytes[i + 1] === 0) i += 2;
  return (i - offset) / 2;
}

const ascii = new TextDecoder("latin1");

/** The text of string `index` (cut at `max` characters). */
export function stringValue(
  bytes: Uint8Array,
  table: StringTable,
  index: number,
  max = MAX_STRING_VALUE,
): string {
  const offset = table.offsets[index]!;
  const length = Math.min(stringLength(bytes, table, index), max);
  if (stringEncoding(bytes, table, index) === 0) {
    // Printable ASCII is Latin-1: the code units are the bytes. fromCharCode over the
    // bytes (at most `max` of them) is several times faster than a TextDecoder call.
    return length <= 8192
      ? String.fromCharCode.apply(
        null,
        bytes.subarray(offset, offset + length) as unknown as number[],
      )
      : ascii.decode(bytes.subarray(offset, offset + length));
  }
  let text = "";
  for (let i = 0; i < length; i++) text += String.fromCharCode(bytes[offset + i * 2]!);
  return text;
}

/** One string, as tools report it. */
export interface StringHit {
  /** Virtual address when a section maps it, else null. */
  address: string | null;
  /** Offset in the opened file. */
  file_offset: number;
  encoding: "ascii" | "utf-16le";
  length: number;
  value: string;
  truncated: boolean;
}

/** Describes string `index` of a table. */
export function describeString(image: BinaryImage, table: StringTable, index: number): StringHit {
  const offset = table.offsets[index]!;
  const address = offsetToAddress(image, offset);
  const length = stringLength(image.bytes, table, index);
  return {
    address: address === null ? null : `0x${address.toString(16)}`,
    file_offset: image.fileBase + offset,
    encoding: stringEncoding(image.bytes, table, index) === 0 ? "ascii" : "utf-16le",
    length,
    value: stringValue(image.bytes, table, index),
    truncated: length > MAX_STRING_VALUE,
  };
}

/** A compiled string query. */
export type StringMatcher = (value: string) => boolean;

/**
 * Literal (substring) or regular-expression matcher; case-insensitive unless
 * asked. A regular expression runs on the linear-time RE2 engine; one it
 * cannot run (backreferences, lookaround) or an invalid one throws
 * `PatternError` with a message saying why.
 */
export function stringMatcher(
  query: string,
  mode: "literal" | "regex",
  caseSensitive: boolean,
): StringMatcher {
  if (mode === "regex") {
    const regex = compileLinearRegex(query, { ignoreCase: !caseSensitive });
    return (value) => regex.test(value);
  }
  if (caseSensitive) return (value) => value.includes(query);
  const needle = query.toLowerCase();
  return (value) => value.toLowerCase().includes(needle);
}

/**
 * The string at a file offset, read directly from the bytes: a run of
 * printable ASCII (with the line ends `\n` and `\r` a C string holds, as in
 * `"%s\n"`), or of UTF-16LE, with at least four printable characters, that
 * ends with a NUL (`terminated`), else a printable ASCII run of that length that ends
 * without one, as the length-delimited strings of Rust, Go or Swift are
 * stored (packed one after another: the run may hold the strings after
 * it); null otherwise.
 */
export function readStringAt(
  image: BinaryImage,
  offset: number,
): { value: string; encoding: "ascii" | "utf-16le"; terminated: boolean } | null {
  const bytes = image.bytes;
  let end = offset;
  // A C string runs to its NUL through line ends too ("…%u\n"): they are part of its value.
  let shown = 0;
  while (end < bytes.length && end - offset < MAX_STRING_VALUE) {
    const byte = bytes[end]!;
    if (printable(byte)) shown++;
    else if (byte !== 0x0a && byte !== 0x0d) break;
    end++;
  }
  // Line ends after the last printable byte belong to the value only when a NUL follows them.
  let asciiEnd = end;
  if (end < bytes.length && bytes[end] !== 0 && end - offset < MAX_STRING_VALUE) {
    while (asciiEnd > offset && !printable(bytes[asciiEnd - 1]!)) asciiEnd--;
  }
  if (
    shown >= MIN_STRING_LENGTH &&
    (end >= bytes.length || bytes[end] === 0 || end - offset === MAX_STRING_VALUE)
  ) {
    return {
      value: ascii.decode(bytes.subarray(offset, end)),
      encoding: "ascii",
      terminated: true,
    };
  }
  let chars = 0;
  end = offset;
  while (
    end + 1 < bytes.length && chars < MAX_STRING_VALUE && printable(bytes[end]!) &&
    bytes[end + 1] === 0
  ) {
    end += 2;
    chars++;
  }
  if (
    chars >= MIN_STRING_LENGTH &&
    (end + 1 >= bytes.length || (bytes[end] === 0 && bytes[end + 1] === 0))
  ) {
    let value = "";
    for (let i = offset; i < end; i += 2) value += String.fromCharCode(bytes[i]!);
    return { value, encoding: "utf-16le", terminated: true };
  }
  if (shown >= MIN_STRING_LENGTH) {
    return {
      value: ascii.decode(bytes.subarray(offset, asciiEnd)),
      encoding: "ascii",
      terminated: false,
    };
  }
  return null;
}
