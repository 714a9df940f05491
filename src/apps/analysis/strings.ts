/**
 * The strings of a document, found the way `strings -a` finds them (runs of
 * printable ASCII, and of UTF-16LE code units that are printable ASCII, at
 * least four long) anywhere in its bytes, kept compactly and searched by
 * literal or regular expression.
 *
 * @module
 */

import { type BinaryImage, offsetToAddress } from "../image.ts";

/** Shortest run reported. */
export const MIN_STRING_LENGTH = 4;
/** Longest value returned for one string (longer ones are cut, and say so). */
export const MAX_STRING_VALUE = 1024;

/** The strings of one document, as parallel arrays. */
export interface StringTable {
  /** Offsets into `image.bytes`. */
  offsets: Uint32Array;
  /** Lengths in characters. */
  lengths: Uint32Array;
  /** 0 = ASCII, 1 = UTF-16LE. */
  encodings: Uint8Array;
  count: number;
}

function printable(byte: number): boolean {
  return (byte >= 0x20 && byte <= 0x7e) || byte === 0x09;
}

/** Scans the bytes; calls `onProgress` every 16 MiB and stops when `signal` aborts. */
export async function scanStrings(
  bytes: Uint8Array,
  options: {
    signal?: AbortSignal;
    onProgress?: (done: number, total: number) => Promise<void> | void;
  } = {},
): Promise<StringTable> {
  let capacity = 1024;
  let offsets = new Uint32Array(capacity);
  let lengths = new Uint32Array(capacity);
  let encodings = new Uint8Array(capacity);
  let count = 0;
  const push = (offset: number, length: number, encoding: number): void => {
    if (count === capacity) {
      capacity *= 2;
      const o = new Uint32Array(capacity);
      o.set(offsets);
      offsets = o;
      const l = new Uint32Array(capacity);
      l.set(lengths);
      lengths = l;
      const e = new Uint8Array(capacity);
      e.set(encodings);
      encodings = e;
    }
    offsets[count] = offset;
    lengths[count] = length;
    encodings[count] = encoding;
    count++;
  };
  const chunk = 16 * 1024 * 1024;
  const n = bytes.length;
  // ASCII runs.
  let start = -1;
  for (let base = 0; base < n; base += chunk) {
    if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
    const end = Math.min(n, base + chunk);
    for (let i = base; i < end; i++) {
      if (printable(bytes[i]!)) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        if (i - start >= MIN_STRING_LENGTH) push(start, i - start, 0);
        start = -1;
      }
    }
    await options.onProgress?.(Math.floor(end / 2), n);
  }
  if (start >= 0 && n - start >= MIN_STRING_LENGTH) push(start, n - start, 0);
  // UTF-16LE runs, at both byte alignments.
  for (let phase = 0; phase < 2; phase++) {
    start = -1;
    for (let i = phase; i + 1 < n; i += 2) {
      if (printable(bytes[i]!) && bytes[i + 1] === 0) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        if ((i - start) / 2 >= MIN_STRING_LENGTH) push(start, (i - start) / 2, 1);
        start = -1;
      }
      if ((i & 0xffffff) === phase && options.signal?.aborted) {
        throw options.signal.reason ?? new Error("aborted");
      }
    }
    if (start >= 0) {
      const length = Math.floor((n - start) / 2);
      if (length >= MIN_STRING_LENGTH) push(start, length, 1);
    }
    await options.onProgress?.(Math.floor(n / 2 + (phase + 1) * n / 4), n);
  }
  // Give back the growth headroom.
  return {
    offsets: offsets.slice(0, count),
    lengths: lengths.slice(0, count),
    encodings: encodings.slice(0, count),
    count,
  };
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
  const length = Math.min(table.lengths[index]!, max);
  if (table.encodings[index] === 0) return ascii.decode(bytes.subarray(offset, offset + length));
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
  const length = table.lengths[index]!;
  return {
    address: address === null ? null : `0x${address.toString(16)}`,
    file_offset: image.fileBase + offset,
    encoding: table.encodings[index] === 0 ? "ascii" : "utf-16le",
    length,
    value: stringValue(image.bytes, table, index),
    truncated: length > MAX_STRING_VALUE,
  };
}

/** A compiled string query. */
export type StringMatcher = (value: string) => boolean;

/** Literal (substring) or regular-expression matcher; case-insensitive unless asked. */
export function stringMatcher(
  query: string,
  mode: "literal" | "regex",
  caseSensitive: boolean,
): StringMatcher {
  if (mode === "regex") {
    const regex = new RegExp(query, caseSensitive ? "u" : "iu");
    return (value) => regex.test(value);
  }
  if (caseSensitive) return (value) => value.includes(query);
  const needle = query.toLowerCase();
  return (value) => value.toLowerCase().includes(needle);
}

/** Indices of the strings that match, in file order, scanning at most `budget` strings. */
export function searchStrings(
  bytes: Uint8Array,
  table: StringTable,
  matcher: StringMatcher,
): number[] {
  const hits: number[] = [];
  for (let i = 0; i < table.count; i++) {
    if (matcher(stringValue(bytes, table, i, 4096))) hits.push(i);
  }
  return hits;
}

/**
 * The string at a virtual address, read directly from the bytes: a NUL-
 * terminated run of printable ASCII (or UTF-16LE) at least four long; null otherwise.
 */
export function readStringAt(
  image: BinaryImage,
  offset: number,
): { value: string; encoding: "ascii" | "utf-16le" } | null {
  const bytes = image.bytes;
  let end = offset;
  while (end < bytes.length && end - offset < MAX_STRING_VALUE && printable(bytes[end]!)) end++;
  if (
    end - offset >= MIN_STRING_LENGTH &&
    (end >= bytes.length || bytes[end] === 0 || end - offset === MAX_STRING_VALUE)
  ) {
    return { value: ascii.decode(bytes.subarray(offset, end)), encoding: "ascii" };
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
    return { value, encoding: "utf-16le" };
  }
  return null;
}
