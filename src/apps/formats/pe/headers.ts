/**
 * The headers of a PE image: the DOS header and signature, the COFF file
 * header, the optional header with its data directories, the COFF string
 * table and the section table (long section names resolved through it).
 * Bytes that cannot be a PE image throw {@linkcode PeParseError}; damage
 * past that is a warning.
 *
 * @module
 */

import {
  COFF_HEADER_SIZE,
  DIRECTORY_NAMES,
  DOS_HEADER_SIZE,
  E_LFANEW,
  MAX_DIRECTORIES,
  PE32_FIXED,
  PE32_MAGIC,
  PE32_PLUS_FIXED,
  PE32_PLUS_MAGIC,
  SECTION_HEADER_SIZE,
  SYMBOL_SIZE,
} from "./constants.ts";
import { type PeDataDirectory, PeParseError, type PeSection } from "./model.ts";
import { decodeName, hex, hex2, list, type PeReader } from "./reader.ts";

/** The digits of a `//BASE64` long section name. */
const BASE64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Tells whether `bytes` hold the start of a PE image: the `MZ` magic number,
 * an `e_lfanew` inside the file, and the `PE\0\0` signature there. Checks
 * nothing else; `parsePe` validates the rest.
 */
export function isPe(bytes: Uint8Array): boolean {
  if (bytes.length < DOS_HEADER_SIZE || bytes[0] !== 0x4d || bytes[1] !== 0x5a) return false;
  const lfanew = (bytes[E_LFANEW]! | (bytes[E_LFANEW + 1]! << 8) | (bytes[E_LFANEW + 2]! << 16) |
    (bytes[E_LFANEW + 3]! << 24)) >>> 0;
  if (lfanew + 4 > bytes.length) return false;
  return bytes[lfanew] === 0x50 && bytes[lfanew + 1] === 0x45 && bytes[lfanew + 2] === 0 &&
    bytes[lfanew + 3] === 0;
}

/**
 * Parses a PE image held in memory.

/** The fields of the COFF file header and the optional header a parse keeps. */
export interface PeHeaders {
  sectionCount: number;
  timeDateStamp: number;
  symbolTable: number;
  symbolCount: number;
  /** Where the section table starts: right after the optional header. */
  sectionTable: number;
  characteristics: number;
  entryRva: number;
  sectionAlignment: number;
  fileAlignment: number;
  sizeOfImage: number;
  subsystem: number;
  dllCharacteristics: number;
  dataDirectories: PeDataDirectory[];
}

/**
 * Reads the DOS header, the signature, the COFF file header and the optional
 * header (setting the reader's machine, width, image base and header size).
 *
 * @throws {PeParseError} When the bytes are not a PE image.
 */
export function readHeaders(r: PeReader): PeHeaders {
  const bytes = r.bytes;
  const length = r.length;
  // ----- DOS header and signature
  if (length === 0) throw new PeParseError("Cannot parse PE header: file is empty", 0);
  if (bytes[0] !== 0x4d || (length > 1 && bytes[1] !== 0x5a)) {
    const seen = Array.from(bytes.subarray(0, 2), hex2).join(" ");
    throw new PeParseError(
      `Cannot parse PE header: bad DOS magic number ${seen}, expected 4d 5a ("MZ")`,
      0,
    );
  }
  if (length < DOS_HEADER_SIZE) {
    throw new PeParseError(
      `Cannot parse PE header: file is ${length} bytes, the DOS header needs ${DOS_HEADER_SIZE}`,
      length,
    );
  }
  const lfanew = r.u32(E_LFANEW);
  if (lfanew + 4 > length) {
    throw new PeParseError(
      `Cannot parse PE header: e_lfanew ${hex(lfanew)} is past the end of the ${length}-byte ` +
        `file`,
      E_LFANEW,
    );
  }
  if (
    bytes[lfanew] !== 0x50 || bytes[lfanew + 1] !== 0x45 || bytes[lfanew + 2] !== 0 ||
    bytes[lfanew + 3] !== 0
  ) {
    const seen = Array.from(bytes.subarray(lfanew, lfanew + 4), hex2).join(" ");
    throw new PeParseError(
      `Cannot parse PE header: bad signature ${seen} at e_lfanew ${hex(lfanew)}, expected ` +
        `50 45 00 00 ("PE\\0\\0")`,
      lfanew,
    );
  }
  // ----- COFF file header
  const coff = lfanew + 4;
  if (coff + COFF_HEADER_SIZE > length) {
    throw new PeParseError(
      `Cannot parse PE header: the COFF file header at offset ${hex(coff)} runs past the end ` +
        `of the ${length}-byte file`,
      coff,
    );
  }
  r.machine = r.u16(coff);
  const sectionCount = r.u16(coff + 2);
  const timeDateStamp = r.u32(coff + 4);
  const symbolTable = r.u32(coff + 8);
  const symbolCount = r.u32(coff + 12);
  const optionalSize = r.u16(coff + 16);
  const characteristics = r.u16(coff + 18);
  // ----- Optional header
  const opt = coff + COFF_HEADER_SIZE;
  if (optionalSize === 0) {
    throw new PeParseError(
      "Cannot parse PE optional header: SizeOfOptionalHeader is 0, so this is not an image " +
        "(a COFF object file has no optional header)",
      coff + 16,
    );
  }
  if (opt + 2 > length) {
    throw new PeParseError(
      `Cannot parse PE optional header: it starts at offset ${hex(opt)}, past the end of the ` +
        `${length}-byte file`,
      opt,
    );
  }
  const magic = r.u16(opt);
  if (magic !== PE32_MAGIC && magic !== PE32_PLUS_MAGIC) {
    throw new PeParseError(
      `Cannot parse PE optional header: magic is ${hex(magic)}, expected 0x10b (PE32) or ` +
        `0x20b (PE32+)`,
      opt,
    );
  }
  const is64 = r.is64 = magic === PE32_PLUS_MAGIC;
  const fixed = is64 ? PE32_PLUS_FIXED : PE32_FIXED;
  if (opt + fixed > length) {
    throw new PeParseError(
      `Cannot parse PE optional header: the ${is64 ? "PE32+" : "PE32"} optional header needs ` +
        `${fixed} bytes at offset ${hex(opt)}, but the file is ${length} bytes`,
      opt,
    );
  }
  if (optionalSize < fixed) {
    r.warn(
      `SizeOfOptionalHeader is ${optionalSize}, less than the ${fixed} bytes of the fixed ` +
        `${is64 ? "PE32+" : "PE32"} fields; the section table overlaps them and there are no ` +
        `data directories`,
    );
  }
  const entryRva = r.u32(opt + 16);
  r.imageBase = is64 ? r.view.getBigUint64(opt + 24, true) : BigInt(r.u32(opt + 28));
  const sectionAlignment = r.u32(opt + 32);
  const fileAlignment = r.u32(opt + 36);
  const sizeOfImage = r.u32(opt + 56);
  r.sizeOfHeaders = r.u32(opt + 60);
  const subsystem = r.u16(opt + 68);
  const dllCharacteristics = r.u16(opt + 70);
  const rvaCount = r.u32(opt + fixed - 4);
  const dataDirectories = readDirectories(r, opt + fixed, rvaCount, optionalSize - fixed);
  return {
    sectionCount,
    timeDateStamp,
    symbolTable,
    symbolCount,
    sectionTable: opt + optionalSize,
    characteristics,
    entryRva,
    sectionAlignment,
    fileAlignment,
    sizeOfImage,
    subsystem,
    dllCharacteristics,
    dataDirectories,
  };
}

/** The data directories: as many as declared, the format defines, the header and the file hold. */
function readDirectories(
  r: PeReader,
  offset: number,
  declared: number,
  room: number,
): PeDataDirectory[] {
  let count = declared;
  if (count > MAX_DIRECTORIES) {
    r.warn(
      `NumberOfRvaAndSizes is ${declared}, more than the ${MAX_DIRECTORIES} defined; reading ` +
        `the first ${MAX_DIRECTORIES}`,
    );
    count = MAX_DIRECTORIES;
  }
  const fit = Math.max(0, Math.floor(room / 8));
  if (count > fit) {
    if (room >= 0) {
      r.warn(
        `NumberOfRvaAndSizes is ${count}, but SizeOfOptionalHeader leaves room for ${fit} ` +
          `data directories; reading ${fit}`,
      );
    }
    count = fit;
  }
  const inFile = Math.max(0, Math.floor((r.length - offset) / 8));
  if (count > inFile) {
    r.warn(
      `The data directories at offset ${hex(offset)} run past the end of the ` +
        `${r.length}-byte file; reading the ${inFile} that fit`,
    );
    count = inFile;
  }
  const directories: PeDataDirectory[] = [];
  for (let i = 0; i < count; i++) {
    directories.push({
      index: i,
      name: DIRECTORY_NAMES[i]!,
      rva: r.u32(offset + i * 8),
      size: r.u32(offset + i * 8 + 4),
    });
  }
  return directories;
}

/** Where the COFF string table is (it follows the symbol records), or null when there is none. */
export function readStringTable(
  r: PeReader,
  pointer: number,
  symbolCount: number,
): { offset: number; size: number } | null {
  if (pointer === 0) return null;
  const offset = pointer + symbolCount * SYMBOL_SIZE;
  if (offset + 4 > r.length) {
    r.warn(
      `Cannot read the COFF string table: PointerToSymbolTable ${hex(pointer)} and ` +
        `NumberOfSymbols ${symbolCount} put it at offset ${hex(offset)}, past the end of the ` +
        `${r.length}-byte file`,
    );
    return null;
  }
  let size = r.u32(offset);
  if (size < 4) return { offset, size: 4 };
  if (offset + size > r.length) {
    r.warn(
      `The COFF string table (${size} bytes at offset ${hex(offset)}) runs past the end of the ` +
        `${r.length}-byte file; reading the ${r.length - offset} bytes that fit`,
    );
    size = r.length - offset;
  }
  return { offset, size };
}

/** The section table, and the reader's map from RVAs to the file bytes behind them. */
export function readSections(r: PeReader, offset: number, declared: number): PeSection[] {
  let count = declared;
  const fit = offset >= r.length ? 0 : Math.floor((r.length - offset) / SECTION_HEADER_SIZE);
  if (count > fit) {
    r.warn(
      `Cannot read all ${declared} section headers: the table at offset ${hex(offset)} runs ` +
        `past the end of the ${r.length}-byte file; reading the ${fit} that fit`,
    );
    count = fit;
  }
  const sections: PeSection[] = [];
  const pastEnd: string[] = [];
  const badNames: string[] = [];
  for (let i = 0; i < count; i++) {
    const o = offset + i * SECTION_HEADER_SIZE;
    const raw = r.bytes.subarray(o, o + 8);
    let end = raw.indexOf(0);
    if (end < 0) end = 8;
    let name = decodeName(raw.subarray(0, end));
    if (name.startsWith("/")) {
      const long = longSectionName(r, name);
      if (long === null) badNames.push(name);
      else name = long;
    }
    const section: PeSection = {
      number: i + 1,
      name,
      virtualSize: r.u32(o + 8),
      virtualAddress: r.u32(o + 12),
      rawDataSize: r.u32(o + 16),
      rawDataPointer: r.u32(o + 20),
      characteristics: r.u32(o + 36),
    };
    sections.push(section);
    const memorySize = section.virtualSize !== 0 ? section.virtualSize : section.rawDataSize;
    const claimed = Math.min(section.rawDataSize, memorySize);
    const fileBytes = claimed === 0 || section.rawDataPointer >= r.length
      ? 0
      : Math.min(claimed, r.length - section.rawDataPointer);
    // (Raw data past the end is damage even where only alignment padding is cut.)
    if (section.rawDataSize > 0 && section.rawDataPointer + section.rawDataSize > r.length) {
      pastEnd.push(name === "" ? `(section ${i + 1})` : name);
    }
    r.infos.push({ header: section, memorySize, fileBytes, claimedBytes: claimed });
  }
  if (badNames.length > 0) {
    const n = badNames.length;
    r.warn(
      `${n} section name${n === 1 ? "" : "s"} (${list(badNames)}) ${
        n === 1 ? "refers" : "refer"
      } to the COFF string table, which does not hold ${n === 1 ? "it" : "them"}; kept as stored`,
    );
  }
  if (pastEnd.length > 0) {
    const n = pastEnd.length;
    r.warn(
      `${n} section${n === 1 ? "'s raw data extends" : "s' raw data extend"} past the end of ` +
        `the ${r.length}-byte file: ${list(pastEnd)}`,
    );
  }
  r.buildPieces();
  return sections;
}

/** The string-table name for a `/123` or `//BASE64` section name, or null. */
function longSectionName(r: PeReader, field: string): string | null {
  let offset: number;
  if (field.startsWith("//")) {
    offset = 0;
    const digits = field.slice(2);
    if (digits.length === 0) return null;
    for (const c of digits) {
      const v = BASE64_DIGITS.indexOf(c);
      if (v < 0) return null;
      offset = offset * 64 + v;
    }
  } else {
    const digits = field.slice(1);
    if (!/^[0-9]{1,7}$/.test(digits)) return null;
    offset = Number(digits);
  }
  const strings = r.strings;
  if (strings === null || offset < 4 || offset >= strings.size) return null;
  return r.cString(strings.offset + offset, strings.offset + strings.size).text;
}
