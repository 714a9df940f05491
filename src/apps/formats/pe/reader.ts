/**
 * The state a PE parse shares across its table readers: the bytes, the
 * warnings (capped), the budget of string bytes, and the section map that
 * turns an RVA into the file bytes behind it. Each table has its own module
 * (`headers.ts`, `coff_symbols.ts`, `exports.ts`, `imports.ts`,
 * `exceptions.ts`, `debug.ts`); `parse.ts` runs them in order.
 *
 * @module
 */

import type { PeSection } from "./model.ts";

/** Longest string read (names, forwarders, PDB paths), in bytes; longer ones are cut with a warning. */
export const MAX_STRING_BYTES = 4096;

/** Most warnings kept; the rest are counted in a final warning. */
const MAX_WARNINGS = 100;

/** String bytes scanned per parse, at most this many times the file size (plus 1 MiB). */
export const STRING_BUDGET_FACTOR = 4;

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** A section with its extent in memory and in the file. */
export interface SectionInfo {
  header: PeSection;
  /** Bytes mapped in memory (`VirtualSize`, or `SizeOfRawData` when that is 0). */
  memorySize: number;
  /** Bytes backed by the file: `min(SizeOfRawData, memorySize)` clamped to the file end. */
  fileBytes: number;
  /** Bytes the header claims from the file: `min(SizeOfRawData, memorySize)`. */
  claimedBytes: number;
}

/** Where an RVA lands in the file. */
export interface Span {
  /** File offset. */
  offset: number;
  /** Bytes from `offset` that belong to the same mapped region. */
  available: number;
  /** Whether the region continues in memory as zeros past `available`. */
  zeroFilled: boolean;
}

/** A string read from the image. */
export interface ReadString {
  text: string;
  /** `cut` when no NUL was found within the limit or the available bytes. */
  status: "ok" | "cut";
}

/**
 * Counts of per-entry problems inside one kind of table, reported as one
 * warning per problem, naming up to five of the places (e.g. DLLs) it was seen in.
 */
export class Tally {
  readonly counts: Map<string, { count: number; places: string[] }> = new Map();

  add(problem: string, place: string | null = null): void {
    let entry = this.counts.get(problem);
    if (entry === undefined) this.counts.set(problem, entry = { count: 0, places: [] });
    entry.count++;
    if (place !== null && entry.places.length <= 5 && !entry.places.includes(place)) {
      entry.places.push(place);
    }
  }
}

/** The bytes of one PE file being parsed, what has been learned of them, and the warnings so far. */
export class PeReader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly length: number;
  readonly maxEntries: number;
  warnings: string[] = [];
  droppedWarnings = 0;
  stringBudget: number;
  budgetExhausted = false;
  is64 = false;
  machine = 0;
  imageBase = 0n;
  sizeOfHeaders = 0;
  infos: SectionInfo[] = [];
  /** Non-overlapping RVA ranges, sorted by start, each pointing at the section that holds it. */
  pieceStarts: number[] = [];
  pieceEnds: number[] = [];
  pieceInfos: SectionInfo[] = [];
  /** COFF string table: file offset and size (clamped to the file), or null. */
  strings: { offset: number; size: number } | null = null;

  constructor(bytes: Uint8Array, maxEntries: number) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.length;
    this.maxEntries = maxEntries;
    this.stringBudget = STRING_BUDGET_FACTOR * bytes.length + (1 << 20);
  }

  /** Keeps a warning (after the first 100, only counts it). */
  warn(message: string): void {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message);
    else this.droppedWarnings++;
  }

  /** One warning per distinct problem counted in `tally`, as `<count> <problem>`. */
  report(tally: Tally, where: string): void {
    for (const [problem, { count, places }] of tally.counts) {
      const seen = places.length === 0 ? "" : `, in ${list(places)}`;
      this.warn(`${where}: ${problem} (${count} ${count === 1 ? "entry" : "entries"}${seen})`);
    }
  }

  /** The byte at a file offset. */
  u8(offset: number): number {
    return this.bytes[offset]!;
  }

  /** The little-endian 16-bit word at a file offset. */
  u16(offset: number): number {
    return this.view.getUint16(offset, true);
  }

  /** The RVA of a virtual address, or null when it lies below the image base or 4 GiB past it. */
  rvaOf(va: bigint): number | null {
    const rva = va - this.imageBase;
    return rva < 0n || rva > 0xffffffffn ? null : Number(rva);
  }

  /** The little-endian 32-bit word at a file offset. */
  u32(offset: number): number {
    return this.view.getUint32(offset, true);
  }

  /**
   * Splits the sections' memory ranges into non-overlapping pieces so that an
   * RVA is found by binary search. Where sections overlap (only in damaged
   * files), the one that starts first (then the first in the table) wins.
   */
  buildPieces(): void {
    const order = this.infos.filter((s) => s.memorySize > 0).sort((a, b) =>
      (a.header.virtualAddress - b.header.virtualAddress) || (a.header.number - b.header.number)
    );
    let covered = 0;
    let overlaps = 0;
    for (const info of order) {
      const start = info.header.virtualAddress;
      const end = start + info.memorySize;
      const from = Math.max(start, covered);
      if (from > start) overlaps++;
      if (from < end) {
        this.pieceStarts.push(from);
        this.pieceEnds.push(end);
        this.pieceInfos.push(info);
        covered = end;
      }
    }
    if (overlaps > 0) {
      this.warn(
        `${overlaps} section${overlaps === 1 ? " overlaps" : "s overlap"} an earlier one in ` +
          `memory; an address in both is read from the section that starts first`,
      );
    }
  }

  /** The section holding `rva` in memory, or undefined. */
  infoAt(rva: number): SectionInfo | undefined {
    const starts = this.pieceStarts;
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (starts[mid]! <= rva) low = mid + 1;
      else high = mid;
    }
    if (low === 0 || rva >= this.pieceEnds[low - 1]!) return undefined;
    return this.pieceInfos[low - 1];
  }

  /** Where `rva` lands in the file, or null when no file bytes back it. */
  spanAt(rva: number): Span | null {
    const info = this.infoAt(rva);
    if (info !== undefined) {
      const delta = rva - info.header.virtualAddress;
      if (delta >= info.fileBytes) return null;
      return {
        offset: info.header.rawDataPointer + delta,
        available: info.fileBytes - delta,
        zeroFilled: info.fileBytes === info.claimedBytes && info.memorySize > info.fileBytes,
      };
    }
    // The headers are mapped at RVA 0 up to SizeOfHeaders.
    const headerEnd = Math.min(this.sizeOfHeaders, this.length);
    if (rva < headerEnd && (this.pieceStarts.length === 0 || rva < this.pieceStarts[0]!)) {
      const limit = this.pieceStarts.length === 0
        ? headerEnd
        : Math.min(headerEnd, this.pieceStarts[0]!);
      return { offset: rva, available: limit - rva, zeroFilled: false };
    }
    return null;
  }

  /** Why `rva` has no file bytes, as the end of a sentence. */
  whyUnmapped(rva: number): string {
    const info = this.infoAt(rva);
    if (info === undefined) return `RVA ${hex(rva)} is not inside any section`;
    const name = sectionLabel(info.header);
    const delta = rva - info.header.virtualAddress;
    if (delta < info.claimedBytes) {
      return `RVA ${hex(rva)} lies in section ${name}, whose raw data is cut off by the end of ` +
        `the ${this.length}-byte file`;
    }
    return `RVA ${hex(rva)} lies in the uninitialized (zero-filled) part of section ${name}`;
  }

  /** A span for `what` at `rva` with at least `need` bytes, or null with a warning. */
  locate(rva: number, need: number, what: string): Span | null {
    const span = this.spanAt(rva);
    if (span === null) {
      this.warn(`Cannot read ${what}: ${this.whyUnmapped(rva)}`);
      return null;
    }
    if (span.available < need) {
      this.warn(
        `Cannot read ${what}: it needs ${need} bytes at RVA ${hex(rva)}, but only ` +
          `${span.available} are in the file there`,
      );
      return null;
    }
    return span;
  }

  /**
   * How many of `count` entries of `entrySize` bytes at `rva` can be read:
   * those inside the file bytes of the section that holds the start, at most
   * `maxEntries`. Returns the file offset and the count, warning when cut.
   */
  table(
    rva: number,
    count: number,
    entrySize: number,
    what: string,
  ): { offset: number; count: number } | null {
    if (count === 0) return { offset: 0, count: 0 };
    const span = this.locate(rva, entrySize, what);
    if (span === null) return null;
    let usable = count;
    const fit = Math.floor(span.available / entrySize);
    if (usable > fit) {
      this.warn(
        `Cannot read all of ${what}: ${count} entries of ${entrySize} bytes at RVA ${hex(rva)} ` +
          `run past the ${span.available} bytes of file data there; reading the ${fit} that fit`,
      );
      usable = fit;
    }
    if (usable > this.maxEntries) {
      this.warn(
        `${what} has ${usable} entries; reading the first ${this.maxEntries} (maxEntries)`,
      );
      usable = this.maxEntries;
    }
    return { offset: span.offset, count: usable };
  }

  /** The NUL-terminated string at file offset `offset`, read up to `end` and the length cap. */
  cString(offset: number, end: number, zeroFilled = false): ReadString {
    const limit = Math.min(end, this.length, offset + MAX_STRING_BYTES);
    if (offset >= limit) return { text: "", status: zeroFilled ? "ok" : "cut" };
    const window = this.bytes.subarray(offset, limit);
    const nul = window.indexOf(0);
    const scanned = nul < 0 ? window.length : nul + 1;
    if (this.stringBudget < scanned) {
      this.budgetExhausted = true;
      return { text: "", status: "ok" };
    }
    this.stringBudget -= scanned;
    if (nul >= 0) return { text: decodeName(window.subarray(0, nul)), status: "ok" };
    // Memory past the file bytes of a section is zeros: the string ends there.
    const endsInZeros = zeroFilled && limit === Math.min(end, this.length) &&
      limit - offset < MAX_STRING_BYTES;
    return { text: decodeName(window), status: endsInZeros ? "ok" : "cut" };
  }

  /** The string at `rva`, or null when no file bytes back it. */
  stringAt(rva: number): ReadString | null {
    const span = this.spanAt(rva);
    if (span === null) return null;
    return this.cString(span.offset, span.offset + span.available, span.zeroFilled);
  }
}

/** ASCII bytes as a string directly; anything else through UTF-8 (with U+FFFD for bad bytes). */
export function decodeName(bytes: Uint8Array): string {
  if (bytes.length <= 64) {
    let ascii = true;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) return String.fromCharCode(...bytes);
  }
  return decoder.decode(bytes);
}

/** A section's name, or its number when it has none. */
export function sectionLabel(section: PeSection): string {
  return section.name === "" ? `(section ${section.number})` : section.name;
}

/** The first five items, comma-separated, with `…` when there are more. */
export function list(items: string[]): string {
  return items.slice(0, 5).join(", ") + (items.length > 5 ? ", …" : "");
}

/** `0x` and lowercase hex. */
export function hex(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}

/** A byte as two lowercase hex digits. */
export function hex2(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}
