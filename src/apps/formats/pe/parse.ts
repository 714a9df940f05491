/**
 * A dependency-free reader for Windows PE images (PE32 and PE32+): the DOS,
 * COFF and optional headers, the section table (with long names from the
 * COFF string table), the data directories, the export table, the import
 * and delay-load import tables, the x64 / ARM64 / ARM `.pdata` function
 * table (with the chain of each chained x64 entry), the CodeView record of
 * the debug directory, and COFF symbols when a file still carries them.
 *
 * It takes bytes and never touches the file system. Damage in optional parts
 * of a file is reported in {@linkcode PeFile.warnings}; only bytes that
 * cannot be a PE image at all make {@linkcode parsePe} throw
 * {@linkcode PeParseError}. Every table walk is bounded by the bytes of the
 * section that holds it, by {@linkcode ParsePeOptions.maxEntries}, and by a
 * budget for string bytes proportional to the file size, and nothing is
 * allocated in proportion to a count read from the file before that count
 * has been checked against the file size.
 *
 * `model.ts` holds what a parse yields; `peImage` in `image.ts` translates it
 * into the format-neutral `BinaryImage`.
 *
 * @module
 */

import type { Architecture } from "../binary_image.ts";
import {
  type ParsePeOptions,
  type PeChainedFunction,
  type PeCodeView,
  type PeDataDirectory,
  type PeDebugEntry,
  type PeExport,
  type PeFile,
  type PeImportedSymbol,
  type PeImportLibrary,
  PeParseError,
  type PeRuntimeFunction,
  type PeSection,
  type PeSymbol,
} from "./model.ts";

const DOS_HEADER_SIZE = 64;

const E_LFANEW = 0x3c;

const COFF_HEADER_SIZE = 20;

const SECTION_HEADER_SIZE = 40;

const SYMBOL_SIZE = 18;

const PE32_MAGIC = 0x10b;

const PE32_PLUS_MAGIC = 0x20b;

/** Optional header bytes up to and including NumberOfRvaAndSizes. */
const PE32_FIXED = 96;

const PE32_PLUS_FIXED = 112;

const MAX_DIRECTORIES = 16;

const IMAGE_FILE_DLL = 0x2000;

/** Section characteristics: code, executable, readable, writable. */
export const IMAGE_SCN_CNT_CODE = 0x20;
export const IMAGE_SCN_MEM_EXECUTE = 0x20000000;
export const IMAGE_SCN_MEM_READ = 0x40000000;
export const IMAGE_SCN_MEM_WRITE = 0x80000000;

const DIR_EXPORT = 0;

const DIR_IMPORT = 1;

const DIR_EXCEPTION = 3;

const DIR_DEBUG = 6;

const DIR_DELAY_IMPORT = 13;

const IMAGE_DEBUG_TYPE_CODEVIEW = 2;

/** UNWIND_INFO flag: the unwind data ends with a chained RUNTIME_FUNCTION. */
const UNW_FLAG_CHAININFO = 0x4;

const IMPORT_DESCRIPTOR_SIZE = 20;

const DELAY_DESCRIPTOR_SIZE = 32;

const EXPORT_DIRECTORY_SIZE = 40;

const DEBUG_ENTRY_SIZE = 28;

const MACHINE_I386 = 0x14c;

const MACHINE_AMD64 = 0x8664;

const MACHINE_ARM64 = 0xaa64;

const MACHINE_ARM64EC = 0xa641;

const MACHINE_ARM64X = 0xa64e;

/** IMAGE_FILE_MACHINE_ARMNT: 32-bit ARM code, which Windows runs as Thumb-2. */
export const MACHINE_ARMNT = 0x1c4;

/** IMAGE_FILE_MACHINE_THUMB. */
export const MACHINE_THUMB = 0x1c2;

/** Longest string read (names, forwarders, PDB paths), in bytes; longer ones are cut with a warning. */
const MAX_STRING_BYTES = 4096;

/** Most warnings kept; the rest are counted in a final warning. */
const MAX_WARNINGS = 100;

const DEFAULT_MAX_ENTRIES = 1_000_000;

/** String bytes scanned per parse, at most this many times the file size (plus 1 MiB). */
const STRING_BUDGET_FACTOR = 4;

const MACHINE_NAMES: ReadonlyMap<number, string> = new Map([
  [0x0, "UNKNOWN"],
  [0x14c, "i386"],
  [0x162, "R3000"],
  [0x166, "R4000"],
  [0x168, "R10000"],
  [0x169, "WCEMIPSV2"],
  [0x184, "ALPHA"],
  [0x1a2, "SH3"],
  [0x1a3, "SH3DSP"],
  [0x1a6, "SH4"],
  [0x1a8, "SH5"],
  [0x1c0, "ARM"],
  [MACHINE_THUMB, "THUMB"],
  [0x1c4, "ARMNT"],
  [0x1d3, "AM33"],
  [0x1f0, "POWERPC"],
  [0x1f1, "POWERPCFP"],
  [0x200, "IA64"],
  [0x266, "MIPS16"],
  [0x284, "ALPHA64"],
  [0x366, "MIPSFPU"],
  [0x466, "MIPSFPU16"],
  [0xebc, "EBC"],
  [0x5032, "RISCV32"],
  [0x5064, "RISCV64"],
  [0x5128, "RISCV128"],
  [0x6232, "LOONGARCH32"],
  [0x6264, "LOONGARCH64"],
  [0x8664, "AMD64"],
  [0x9041, "M32R"],
  [0xa641, "ARM64EC"],
  [0xa64e, "ARM64X"],
  [0xaa64, "ARM64"],
]);

const ARCHITECTURES: ReadonlyMap<number, Architecture> = new Map([
  [MACHINE_I386, "x86"],
  [MACHINE_AMD64, "x86_64"],
  [MACHINE_ARM64, "arm64"],
  [MACHINE_ARM64EC, "arm64"],
  [MACHINE_ARM64X, "arm64"],
  [MACHINE_ARMNT, "arm"],
  [0x1c0, "arm"],
  [MACHINE_THUMB, "arm"],
]);

const SUBSYSTEM_NAMES: ReadonlyMap<number, string> = new Map([
  [0, "UNKNOWN"],
  [1, "NATIVE"],
  [2, "WINDOWS_GUI"],
  [3, "WINDOWS_CUI"],
  [5, "OS2_CUI"],
  [7, "POSIX_CUI"],
  [8, "NATIVE_WINDOWS"],
  [9, "WINDOWS_CE_GUI"],
  [10, "EFI_APPLICATION"],
  [11, "EFI_BOOT_SERVICE_DRIVER"],
  [12, "EFI_RUNTIME_DRIVER"],
  [13, "EFI_ROM"],
  [14, "XBOX"],
  [16, "WINDOWS_BOOT_APPLICATION"],
]);

const DIRECTORY_NAMES: readonly string[] = [
  "export",
  "import",
  "resource",
  "exception",
  "certificate",
  "base-relocation",
  "debug",
  "architecture",
  "global-pointer",
  "tls",
  "load-config",
  "bound-import",
  "iat",
  "delay-import",
  "clr-runtime",
  "reserved",
];

const DEBUG_TYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [0, "UNKNOWN"],
  [1, "COFF"],
  [2, "CODEVIEW"],
  [3, "FPO"],
  [4, "MISC"],
  [5, "EXCEPTION"],
  [6, "FIXUP"],
  [7, "OMAP_TO_SRC"],
  [8, "OMAP_FROM_SRC"],
  [9, "BORLAND"],
  [10, "RESERVED10"],
  [11, "CLSID"],
  [12, "VC_FEATURE"],
  [13, "POGO"],
  [14, "ILTCG"],
  [15, "MPX"],
  [16, "REPRO"],
  [17, "EMBEDDED_PORTABLE_PDB"],
  [19, "PDBCHECKSUM"],
  [20, "EX_DLLCHARACTERISTICS"],
]);

const BASE64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * Tells whether `bytes` hold the start of a PE image: the `MZ` magic number,
 * an `e_lfanew` inside the file, and the `PE\0\0` signature there. Checks
 * nothing else; {@linkcode parsePe} validates the rest.
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
 *
 * @param bytes The whole file.
 * @param options Limits.
 * @returns The parsed image; damage in optional parts is listed in `warnings`.
 * @throws {PeParseError} When the bytes are not a PE image: no `MZ`, a DOS
 *   header or `e_lfanew` outside the file, no `PE\0\0` signature, or a COFF
 *   or optional header that is truncated or of an unknown kind.
 */
export function parsePe(bytes: Uint8Array, options: ParsePeOptions = {}): PeFile {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 0) {
    throw new RangeError(`maxEntries must be a non-negative integer, got ${maxEntries}`);
  }
  return new Parser(bytes, maxEntries).parse();
}

/** A section with its extent in memory and in the file. */
interface SectionInfo {
  header: PeSection;
  /** Bytes mapped in memory (`VirtualSize`, or `SizeOfRawData` when that is 0). */
  memorySize: number;
  /** Bytes backed by the file: `min(SizeOfRawData, memorySize)` clamped to the file end. */
  fileBytes: number;
  /** Bytes the header claims from the file: `min(SizeOfRawData, memorySize)`. */
  claimedBytes: number;
}

/** Where an RVA lands in the file. */
interface Span {
  /** File offset. */
  offset: number;
  /** Bytes from `offset` that belong to the same mapped region. */
  available: number;
  /** Whether the region continues in memory as zeros past `available`. */
  zeroFilled: boolean;
}

/** A string read from the image. */
interface ReadString {
  text: string;
  /** `cut` when no NUL was found within the limit or the available bytes. */
  status: "ok" | "cut";
}

/**
 * Counts of per-entry problems inside one kind of table, reported as one
 * warning per problem, naming up to five of the places (e.g. DLLs) it was seen in.
 */
class Tally {
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

class Parser {
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
  /** Import thunks that may still be read, over all descriptors. */
  thunkBudget: number;
  thunkBudgetReported = false;
  /** Problems inside import lookup tables, over all descriptors. */
  importTally: Tally = new Tally();
  /** Hint/name entries already read, by RVA (tables often share them). */
  hintNames: Map<number, { hint: number; read: ReadString } | null> = new Map();

  constructor(bytes: Uint8Array, maxEntries: number) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.length;
    this.maxEntries = maxEntries;
    this.thunkBudget = maxEntries;
    this.stringBudget = STRING_BUDGET_FACTOR * bytes.length + (1 << 20);
  }

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

  u8(offset: number): number {
    return this.bytes[offset]!;
  }

  u16(offset: number): number {
    return this.view.getUint16(offset, true);
  }

  u32(offset: number): number {
    return this.view.getUint32(offset, true);
  }

  parse(): PeFile {
    const bytes = this.bytes;
    const length = this.length;
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
    const lfanew = this.u32(E_LFANEW);
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
    this.machine = this.u16(coff);
    const sectionCount = this.u16(coff + 2);
    const timeDateStamp = this.u32(coff + 4);
    const symbolTable = this.u32(coff + 8);
    const symbolCount = this.u32(coff + 12);
    const optionalSize = this.u16(coff + 16);
    const characteristics = this.u16(coff + 18);
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
    const magic = this.u16(opt);
    if (magic !== PE32_MAGIC && magic !== PE32_PLUS_MAGIC) {
      throw new PeParseError(
        `Cannot parse PE optional header: magic is ${hex(magic)}, expected 0x10b (PE32) or ` +
          `0x20b (PE32+)`,
        opt,
      );
    }
    const is64 = this.is64 = magic === PE32_PLUS_MAGIC;
    const fixed = is64 ? PE32_PLUS_FIXED : PE32_FIXED;
    if (opt + fixed > length) {
      throw new PeParseError(
        `Cannot parse PE optional header: the ${is64 ? "PE32+" : "PE32"} optional header needs ` +
          `${fixed} bytes at offset ${hex(opt)}, but the file is ${length} bytes`,
        opt,
      );
    }
    if (optionalSize < fixed) {
      this.warn(
        `SizeOfOptionalHeader is ${optionalSize}, less than the ${fixed} bytes of the fixed ` +
          `${is64 ? "PE32+" : "PE32"} fields; the section table overlaps them and there are no ` +
          `data directories`,
      );
    }
    const entryRva = this.u32(opt + 16);
    this.imageBase = is64 ? this.view.getBigUint64(opt + 24, true) : BigInt(this.u32(opt + 28));
    const sectionAlignment = this.u32(opt + 32);
    const fileAlignment = this.u32(opt + 36);
    const sizeOfImage = this.u32(opt + 56);
    this.sizeOfHeaders = this.u32(opt + 60);
    const subsystem = this.u16(opt + 68);
    const dllCharacteristics = this.u16(opt + 70);
    const rvaCount = this.u32(opt + fixed - 4);
    const dataDirectories = this.readDirectories(opt + fixed, rvaCount, optionalSize - fixed);
    // ----- String table, sections, symbols
    this.strings = this.readStringTable(symbolTable, symbolCount);
    const sections = this.readSections(opt + optionalSize, sectionCount);
    const symbols = this.readSymbols(symbolTable, symbolCount);
    // ----- Directories
    const directory = (index: number): PeDataDirectory | null => {
      const d = dataDirectories[index];
      return d !== undefined && d.rva !== 0 ? d : null;
    };
    const exportDirectory = directory(DIR_EXPORT);
    const exported = exportDirectory === null
      ? { name: null, exports: [] }
      : this.readExports(exportDirectory);
    const imports: PeImportLibrary[] = [];
    const importDirectory = directory(DIR_IMPORT);
    if (importDirectory !== null) this.readImports(importDirectory, imports);
    const delayDirectory = directory(DIR_DELAY_IMPORT);
    if (delayDirectory !== null) this.readDelayImports(delayDirectory, imports);
    this.report(this.importTally, "The import lookup tables");
    const exceptionDirectory = directory(DIR_EXCEPTION);
    const runtimeFunctions = exceptionDirectory === null
      ? []
      : this.readRuntimeFunctions(exceptionDirectory);
    const debugDirectory = directory(DIR_DEBUG);
    const debug = debugDirectory === null ? null : this.readDebug(debugDirectory);

    if (this.budgetExhausted) {
      this.warn(
        `Stopped reading strings: the names of this file add up to more than ` +
          `${STRING_BUDGET_FACTOR} times its size; later names are empty`,
      );
    }
    if (this.droppedWarnings > 0) {
      this.warnings.push(`${this.droppedWarnings} more warnings were omitted`);
    }
    return {
      format: is64 ? "PE32+" : "PE32",
      bits: is64 ? 64 : 32,
      machine: this.machine,
      machineName: MACHINE_NAMES.get(this.machine) ?? hex(this.machine),
      architecture: ARCHITECTURES.get(this.machine) ?? "other",
      characteristics,
      isDll: (characteristics & IMAGE_FILE_DLL) !== 0,
      timeDateStamp,
      subsystem,
      subsystemName: SUBSYSTEM_NAMES.get(subsystem) ?? hex(subsystem),
      dllCharacteristics,
      imageBase: this.imageBase,
      entryRva,
      sectionAlignment,
      fileAlignment,
      sizeOfImage,
      sizeOfHeaders: this.sizeOfHeaders,
      sections,
      dataDirectories,
      exportName: exported.name,
      exports: exported.exports,
      imports,
      runtimeFunctions,
      debug: debug?.entries ?? [],
      codeView: debug?.codeView ?? null,
      buildId: debug?.codeView ? buildIdOf(debug.codeView) : null,
      symbols,
      warnings: this.warnings,
    };
  }

  // ----- Headers

  readDirectories(offset: number, declared: number, room: number): PeDataDirectory[] {
    let count = declared;
    if (count > MAX_DIRECTORIES) {
      this.warn(
        `NumberOfRvaAndSizes is ${declared}, more than the ${MAX_DIRECTORIES} defined; reading ` +
          `the first ${MAX_DIRECTORIES}`,
      );
      count = MAX_DIRECTORIES;
    }
    const fit = Math.max(0, Math.floor(room / 8));
    if (count > fit) {
      if (room >= 0) {
        this.warn(
          `NumberOfRvaAndSizes is ${count}, but SizeOfOptionalHeader leaves room for ${fit} ` +
            `data directories; reading ${fit}`,
        );
      }
      count = fit;
    }
    const inFile = Math.max(0, Math.floor((this.length - offset) / 8));
    if (count > inFile) {
      this.warn(
        `The data directories at offset ${hex(offset)} run past the end of the ` +
          `${this.length}-byte file; reading the ${inFile} that fit`,
      );
      count = inFile;
    }
    const directories: PeDataDirectory[] = [];
    for (let i = 0; i < count; i++) {
      directories.push({
        index: i,
        name: DIRECTORY_NAMES[i]!,
        rva: this.u32(offset + i * 8),
        size: this.u32(offset + i * 8 + 4),
      });
    }
    return directories;
  }

  readStringTable(pointer: number, symbolCount: number): { offset: number; size: number } | null {
    if (pointer === 0) return null;
    const offset = pointer + symbolCount * SYMBOL_SIZE;
    if (offset + 4 > this.length) {
      this.warn(
        `Cannot read the COFF string table: PointerToSymbolTable ${hex(pointer)} and ` +
          `NumberOfSymbols ${symbolCount} put it at offset ${hex(offset)}, past the end of the ` +
          `${this.length}-byte file`,
      );
      return null;
    }
    let size = this.u32(offset);
    if (size < 4) return { offset, size: 4 };
    if (offset + size > this.length) {
      this.warn(
        `The COFF string table (${size} bytes at offset ${hex(offset)}) runs past the end of the ` +
          `${this.length}-byte file; reading the ${this.length - offset} bytes that fit`,
      );
      size = this.length - offset;
    }
    return { offset, size };
  }

  readSections(offset: number, declared: number): PeSection[] {
    let count = declared;
    const fit = offset >= this.length
      ? 0
      : Math.floor((this.length - offset) / SECTION_HEADER_SIZE);
    if (count > fit) {
      this.warn(
        `Cannot read all ${declared} section headers: the table at offset ${hex(offset)} runs ` +
          `past the end of the ${this.length}-byte file; reading the ${fit} that fit`,
      );
      count = fit;
    }
    const sections: PeSection[] = [];
    const pastEnd: string[] = [];
    const badNames: string[] = [];
    for (let i = 0; i < count; i++) {
      const o = offset + i * SECTION_HEADER_SIZE;
      const raw = this.bytes.subarray(o, o + 8);
      let end = raw.indexOf(0);
      if (end < 0) end = 8;
      let name = decoder.decode(raw.subarray(0, end));
      if (name.startsWith("/")) {
        const long = this.longSectionName(name);
        if (long === null) badNames.push(name);
        else name = long;
      }
      const section: PeSection = {
        number: i + 1,
        name,
        virtualSize: this.u32(o + 8),
        virtualAddress: this.u32(o + 12),
        rawDataSize: this.u32(o + 16),
        rawDataPointer: this.u32(o + 20),
        characteristics: this.u32(o + 36),
      };
      sections.push(section);
      const memorySize = section.virtualSize !== 0 ? section.virtualSize : section.rawDataSize;
      const claimed = Math.min(section.rawDataSize, memorySize);
      const fileBytes = claimed === 0 || section.rawDataPointer >= this.length
        ? 0
        : Math.min(claimed, this.length - section.rawDataPointer);
      // (Raw data past the end is damage even where only alignment padding is cut.)
      if (section.rawDataSize > 0 && section.rawDataPointer + section.rawDataSize > this.length) {
        pastEnd.push(name === "" ? `(section ${i + 1})` : name);
      }
      this.infos.push({ header: section, memorySize, fileBytes, claimedBytes: claimed });
    }
    if (badNames.length > 0) {
      const n = badNames.length;
      this.warn(
        `${n} section name${n === 1 ? "" : "s"} (${list(badNames)}) ${
          n === 1 ? "refers" : "refer"
        } to the COFF string table, which does not hold ${n === 1 ? "it" : "them"}; kept as stored`,
      );
    }
    if (pastEnd.length > 0) {
      const n = pastEnd.length;
      this.warn(
        `${n} section${n === 1 ? "'s raw data extends" : "s' raw data extend"} past the end of ` +
          `the ${this.length}-byte file: ${list(pastEnd)}`,
      );
    }
    this.buildPieces();
    return sections;
  }

  /** The string-table name for a `/123` or `//BASE64` section name, or null. */
  longSectionName(field: string): string | null {
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
    const strings = this.strings;
    if (strings === null || offset < 4 || offset >= strings.size) return null;
    return this.cString(strings.offset + offset, strings.offset + strings.size).text;
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

  // ----- COFF symbols

  readSymbols(pointer: number, declared: number): PeSymbol[] {
    if (pointer === 0 || declared === 0) return [];
    const symbols: PeSymbol[] = [];
    let count = declared;
    const fit = pointer >= this.length ? 0 : Math.floor((this.length - pointer) / SYMBOL_SIZE);
    if (count > fit) {
      this.warn(
        `Cannot read all ${declared} COFF symbols: the table at offset ${hex(pointer)} runs past ` +
          `the end of the ${this.length}-byte file; reading the ${fit} records that fit`,
      );
      count = fit;
    }
    if (count > this.maxEntries) {
      this.warn(`The COFF symbol table has ${count} records; reading ${this.maxEntries}`);
      count = this.maxEntries;
    }
    const strings = this.strings;
    let badNames = 0;
    for (let i = 0; i < count;) {
      const o = pointer + i * SYMBOL_SIZE;
      let name: string;
      if (this.u32(o) === 0) {
        const at = this.u32(o + 4);
        if (strings === null || at < 4 || at >= strings.size) {
          badNames++;
          name = "";
        } else name = this.cString(strings.offset + at, strings.offset + strings.size).text;
      } else {
        const raw = this.bytes.subarray(o, o + 8);
        const end = raw.indexOf(0);
        name = decodeName(end < 0 ? raw : raw.subarray(0, end));
      }
      const auxCount = this.u8(o + 17);
      symbols.push({
        index: i,
        name,
        value: this.u32(o + 8),
        sectionNumber: this.view.getInt16(o + 12, true),
        type: this.u16(o + 14),
        storageClass: this.u8(o + 16),
        auxCount,
      });
      i += 1 + auxCount;
    }
    if (badNames > 0) {
      this.warn(
        `${badNames} COFF symbol${badNames === 1 ? " has a name offset" : "s have name offsets"} ` +
          `outside the string table; ${badNames === 1 ? "its name is" : "their names are"} empty`,
      );
    }
    return symbols;
  }

  // ----- Exports

  readExports(directory: PeDataDirectory): { name: string | null; exports: PeExport[] } {
    const none = { name: null, exports: [] };
    const span = this.locate(directory.rva, EXPORT_DIRECTORY_SIZE, "the export directory");
    if (span === null) return none;
    const o = span.offset;
    const nameRva = this.u32(o + 12);
    const base = this.u32(o + 16);
    const functionCount = this.u32(o + 20);
    const nameCount = this.u32(o + 24);
    const functionsRva = this.u32(o + 28);
    const namesRva = this.u32(o + 32);
    const ordinalsRva = this.u32(o + 36);
    let name: string | null = null;
    if (nameRva !== 0) {
      const read = this.stringAt(nameRva);
      if (read === null) {
        this.warn(`Cannot read the DLL name of the export directory: ${this.whyUnmapped(nameRva)}`);
      } else {
        if (read.status === "cut") {
          this.warn(
            `The DLL name of the export directory at RVA ${hex(nameRva)} has no NUL within ` +
              `${MAX_STRING_BYTES} bytes or the file data; it was cut`,
          );
        }
        name = read.text;
      }
    }
    const functions = this.table(
      functionsRva,
      functionCount,
      4,
      "the export address table",
    );
    if (functions === null) return { name, exports: [] };
    const functionsAt = functions.offset;
    const eatCount = functions.count;

    // Names per export address table index.
    const namesOf = new Map<number, string[]>();
    const tally = new Tally();
    if (nameCount > 0) {
      const names = this.table(namesRva, nameCount, 4, "the export name pointer table");
      const ordinals = this.table(ordinalsRva, nameCount, 2, "the export ordinal table");
      const count = names === null || ordinals === null ? 0 : Math.min(names.count, ordinals.count);
      for (let i = 0; i < count; i++) {
        const index = this.u16(ordinals!.offset + i * 2);
        if (index >= eatCount) {
          tally.add(
            index >= functionCount
              ? `name table entry pointing past the ${functionCount} entries of the export ` +
                `address table, skipped`
              : "name table entry pointing at an export address table entry that was not read, " +
                "skipped",
          );
          continue;
        }
        const at = this.u32(names!.offset + i * 4);
        const read = this.stringAt(at);
        if (read === null) {
          tally.add("export name RVA with no file data, skipped");
          continue;
        }
        if (read.status === "cut") tally.add("export name without a NUL, cut");
        let list = namesOf.get(index);
        if (list === undefined) namesOf.set(index, list = []);
        list.push(read.text);
      }
    }

    const exports: PeExport[] = [];
    const forwarderStart = directory.rva;
    const forwarderEnd = directory.rva + directory.size;
    for (let i = 0; i < eatCount; i++) {
      const rva = this.u32(functionsAt + i * 4);
      const names = namesOf.get(i);
      if (rva === 0) {
        if (names !== undefined) tally.add("named export with RVA 0, skipped");
        continue;
      }
      let forwarder: string | null = null;
      if (rva >= forwarderStart && rva < forwarderEnd) {
        const read = this.stringAt(rva);
        if (read === null) {
          tally.add("forwarder string with no file data, left empty");
          forwarder = "";
        } else {
          if (read.status === "cut") {
            tally.add(
              `forwarder string without a NUL within ${MAX_STRING_BYTES} bytes or the file data, ` +
                "cut",
            );
          }
          forwarder = read.text;
        }
      }
      const ordinal = base + i;
      if (names === undefined) exports.push({ ordinal, name: null, rva, forwarder });
      else for (const n of names) exports.push({ ordinal, name: n, rva, forwarder });
    }
    this.report(tally, "The export table");
    return { name, exports };
  }

  // ----- Imports

  readImports(directory: PeDataDirectory, out: PeImportLibrary[]): void {
    const span = this.locate(directory.rva, IMPORT_DESCRIPTOR_SIZE, "the import directory");
    if (span === null) return;
    const fit = Math.floor(span.available / IMPORT_DESCRIPTOR_SIZE);
    let terminated = false;
    let skipped = 0;
    let read = 0;
    let i = 0;
    for (; i < fit; i++) {
      const o = span.offset + i * IMPORT_DESCRIPTOR_SIZE;
      const lookupRva = this.u32(o);
      const nameRva = this.u32(o + 12);
      const addressRva = this.u32(o + 16);
      if (nameRva === 0 && addressRva === 0) {
        terminated = true;
        break;
      }
      if (read >= this.maxEntries) {
        this.warn(
          `The import directory has more than ${this.maxEntries} descriptors; reading the first ${this.maxEntries}`,
        );
        terminated = true;
        break;
      }
      read++;
      if (nameRva === 0 || addressRva === 0) {
        skipped++;
        continue;
      }
      const name = this.libraryName(nameRva, `import descriptor ${i}`);
      const symbols = this.readThunks(
        lookupRva !== 0 ? lookupRva : addressRva,
        addressRva,
        name,
        false,
        false,
      );
      out.push({
        name,
        delayLoad: false,
        lookupTableRva: lookupRva !== 0 ? lookupRva : addressRva,
        addressTableRva: addressRva,
        symbols,
      });
    }
    if (skipped > 0) {
      this.warn(
        `${skipped} import descriptor${skipped === 1 ? " has" : "s have"} a zero Name or ` +
          `FirstThunk; skipped`,
      );
    }
    if (!terminated) {
      this.warn(
        `The import directory at RVA ${hex(directory.rva)} has no null descriptor before the end ` +
          `of its file data; read ${i} descriptors`,
      );
    }
  }

  readDelayImports(directory: PeDataDirectory, out: PeImportLibrary[]): void {
    const span = this.locate(
      directory.rva,
      DELAY_DESCRIPTOR_SIZE,
      "the delay-load import directory",
    );
    if (span === null) return;
    const fit = Math.floor(span.available / DELAY_DESCRIPTOR_SIZE);
    let terminated = false;
    let skipped = 0;
    let i = 0;
    const base = this.imageBase;
    for (; i < fit; i++) {
      const o = span.offset + i * DELAY_DESCRIPTOR_SIZE;
      const attributes = this.u32(o);
      let nameRva = this.u32(o + 4);
      let addressRva = this.u32(o + 12);
      let namesRva = this.u32(o + 16);
      if (nameRva === 0 && addressRva === 0 && namesRva === 0) {
        terminated = true;
        break;
      }
      if (i >= this.maxEntries) {
        this.warn(
          `The delay-load import directory has more than ${this.maxEntries} descriptors; ` +
            `reading the first ${this.maxEntries}`,
        );
        terminated = true;
        break;
      }
      // Attribute bit 0 clear: an old (Visual C++ 6) table of virtual addresses.
      const vaBased = (attributes & 1) === 0;
      if (vaBased) {
        const toRva = (value: number): number => {
          const rva = BigInt(value) - base;
          return value === 0 || rva < 0n || rva > 0xffffffffn ? 0 : Number(rva);
        };
        nameRva = toRva(nameRva);
        addressRva = toRva(addressRva);
        namesRva = toRva(namesRva);
      }
      if (nameRva === 0 || addressRva === 0 || namesRva === 0) {
        skipped++;
        continue;
      }
      const name = this.libraryName(nameRva, `delay-load import descriptor ${i}`);
      const symbols = this.readThunks(namesRva, addressRva, name, true, vaBased);
      out.push({
        name,
        delayLoad: true,
        lookupTableRva: namesRva,
        addressTableRva: addressRva,
        symbols,
      });
    }
    if (skipped > 0) {
      this.warn(
        `${skipped} delay-load import descriptor${skipped === 1 ? " has" : "s have"} a zero or ` +
          `unusable DLL name, address table or name table; skipped`,
      );
    }
    if (!terminated) {
      this.warn(
        `The delay-load import directory at RVA ${hex(directory.rva)} has no null descriptor ` +
          `before the end of its file data; read ${i} descriptors`,
      );
    }
  }

  libraryName(rva: number, what: string): string {
    const read = this.stringAt(rva);
    if (read === null) {
      this.warn(`Cannot read the DLL name of ${what}: ${this.whyUnmapped(rva)}; it is empty`);
      return "";
    }
    if (read.status === "cut") {
      this.warn(
        `The DLL name of ${what} at RVA ${hex(rva)} has no NUL within ${MAX_STRING_BYTES} bytes ` +
          `or the file data; it was cut`,
      );
    }
    return read.text;
  }

  /**
   * Reads an import lookup (or name) table up to its null entry, within the
   * file data of its section and the shared thunk budget.
   */
  readThunks(
    lookupRva: number,
    slotRva: number,
    library: string,
    delayLoad: boolean,
    vaBased: boolean,
  ): PeImportedSymbol[] {
    const label = `the ${delayLoad ? "delay-load import name table" : "import lookup table"} of ` +
      `${library === "" ? "an unnamed DLL" : library}`;
    const symbols: PeImportedSymbol[] = [];
    const span = this.spanAt(lookupRva);
    if (span === null) {
      this.warn(`Cannot read ${label}: ${this.whyUnmapped(lookupRva)}`);
      return symbols;
    }
    const is64 = this.is64;
    const entrySize = is64 ? 8 : 4;
    const fit = Math.floor(span.available / entrySize);
    const base = this.imageBase;
    const tally = this.importTally;
    const place = library === "" ? "an unnamed DLL" : library;
    let terminated = false;
    let k = 0;
    for (; k < fit; k++) {
      if (this.thunkBudget === 0) {
        if (!this.thunkBudgetReported) {
          this.thunkBudgetReported = true;
          this.warn(
            `Stopped reading imports at ${label}: the import tables add up to more than ` +
              `${this.maxEntries} entries (maxEntries); later imports are missing`,
          );
        }
        terminated = true;
        break;
      }
      this.thunkBudget--;
      const o = span.offset + k * entrySize;
      const low = this.u32(o);
      const high = is64 ? this.u32(o + 4) : 0;
      if (low === 0 && high === 0) {
        terminated = true;
        break;
      }
      const slot = slotRva + k * entrySize;
      const byOrdinal = is64 ? (high & 0x80000000) !== 0 : (low & 0x80000000) !== 0;
      if (byOrdinal) {
        symbols.push({ name: null, hint: null, ordinal: low & 0xffff, slotRva: slot });
        continue;
      }
      let hintRva = low;
      if (is64 && high !== 0) hintRva = -1;
      else if (vaBased) {
        const rva = BigInt(low) - base;
        hintRva = rva < 0n || rva > 0xffffffffn ? -1 : Number(rva);
      }
      const entry = hintRva < 0 ? null : this.hintName(hintRva);
      if (entry === null) {
        tally.add("hint/name RVA with no file data, name unknown", place);
        symbols.push({ name: null, hint: null, ordinal: null, slotRva: slot });
        continue;
      }
      if (entry.read.status === "cut") tally.add("import name without a NUL, cut", place);
      symbols.push({ name: entry.read.text, hint: entry.hint, ordinal: null, slotRva: slot });
    }
    if (!terminated) {
      this.warn(
        `${label[0]!.toUpperCase()}${label.slice(1)} at RVA ${hex(lookupRva)} has no null entry ` +
          `before the end of its file data; read ${k} entries`,
      );
    }
    return symbols;
  }

  /** The hint and name at `rva` (cached), or null when no file data backs them. */
  hintName(rva: number): { hint: number; read: ReadString } | null {
    const cached = this.hintNames.get(rva);
    if (cached !== undefined) return cached;
    const span = this.spanAt(rva);
    const entry = span === null || span.available < 2 ? null : {
      hint: this.u16(span.offset),
      read: this.cString(span.offset + 2, span.offset + span.available, span.zeroFilled),
    };
    this.hintNames.set(rva, entry);
    return entry;
  }

  // ----- Exception table

  readRuntimeFunctions(directory: PeDataDirectory): PeRuntimeFunction[] {
    const machine = this.machine;
    const kind = machine === MACHINE_AMD64
      ? "x64"
      : machine === MACHINE_ARM64 || machine === MACHINE_ARM64EC || machine === MACHINE_ARM64X
      ? "arm64"
      : machine === MACHINE_ARMNT
      ? "arm"
      : null;
    const functions: PeRuntimeFunction[] = [];
    if (kind === null) {
      this.warn(
        `The exception table of a ${MACHINE_NAMES.get(machine) ?? hex(machine)} image is not ` +
          `read (only x64, ARM64 and ARM function tables are)`,
      );
      return functions;
    }
    const entrySize = kind === "x64" ? 12 : 8;
    if (directory.size % entrySize !== 0) {
      this.warn(
        `The exception table is ${directory.size} bytes, not a multiple of its ${entrySize}-byte ` +
          `entries; ignoring the last ${directory.size % entrySize} bytes`,
      );
    }
    const table = this.table(
      directory.rva,
      Math.floor(directory.size / entrySize),
      entrySize,
      "the exception table (.pdata)",
    );
    if (table === null) return functions;
    const tally = new Tally();
    let padding = 0;
    for (let i = 0; i < table.count; i++) {
      const o = table.offset + i * entrySize;
      const begin = this.u32(o);
      const second = this.u32(o + 4);
      if (kind === "x64") {
        const unwind = this.u32(o + 8);
        if (begin === 0 && second === 0 && unwind === 0) {
          padding++;
          continue;
        }
        if (second <= begin) tally.add("function that ends at or before it begins");
        const chain = this.chainOf(unwind, tally);
        functions.push({
          begin,
          end: second,
          unwindData: unwind,
          packed: false,
          ...(chain === null ? {} : { chain }),
        });
        continue;
      }
      if (begin === 0 && second === 0) {
        padding++;
        continue;
      }
      const flag = second & 3;
      const unit = kind === "arm64" ? 4 : 2;
      const start = kind === "arm" ? (begin & ~1) >>> 0 : begin;
      let length: number | null = null;
      if (flag === 0) {
        const xdata = this.spanAt(second);
        if (xdata === null || xdata.available < 4) {
          tally.add(".xdata RVA with no file data, length unknown");
        } else length = (this.u32(xdata.offset) & 0x3ffff) * unit;
      } else if (flag === 3) {
        tally.add("reserved unwind flag 3, length unknown");
      } else length = ((second >>> 2) & 0x7ff) * unit;
      functions.push({
        begin: start,
        end: length === null ? null : start + length,
        unwindData: second,
        packed: flag !== 0,
      });
    }
    if (padding > 0) {
      this.warn(`The exception table has ${padding} all-zero entries; skipped`);
    }
    this.report(tally, "The exception table");
    const chained = functions.reduce((n, f) => n + (f.chain === undefined ? 0 : 1), 0);
    const unresolved = chained - chainOwners(functions).size;
    if (unresolved > 0) {
      this.warn(
        `The exception table has ${unresolved} chained ${
          unresolved === 1 ? "entry" : "entries"
        } whose chain leads to no unchained entry (a parent missing from the table, a loop, or ` +
          `more than ${MAX_CHAIN} links); each is read as a function of its own`,
      );
    }
    return functions;
  }

  /**
   * The RUNTIME_FUNCTION an x64 entry's unwind data chains to, or null when
   * it is not chained: bit 0 of `unwind` set makes it the RVA of that entry
   * (an older form); otherwise the UNWIND_INFO there has UNW_FLAG_CHAININFO
   * and the entry follows its unwind codes (padded to an even count).
   */
  chainOf(unwind: number, tally: Tally): PeChainedFunction | null {
    let at = unwind - 1;
    if ((unwind & 1) === 0) {
      const info = this.spanAt(unwind);
      // Unreadable unwind information: the entry is taken as it stands, unchained.
      if (info === null || info.available < 4) return null;
      if (((this.u8(info.offset) >> 3) & UNW_FLAG_CHAININFO) === 0) return null;
      const codes = this.u8(info.offset + 2);
      at = unwind + 4 + 2 * ((codes + 1) & ~1);
    }
    const entry = this.spanAt(at);
    if (entry === null || entry.available < 12) {
      tally.add("chained unwind information whose RUNTIME_FUNCTION has no file data");
      return null;
    }
    return {
      begin: this.u32(entry.offset),
      end: this.u32(entry.offset + 4),
      unwindData: this.u32(entry.offset + 8),
    };
  }

  // ----- Debug directory

  readDebug(directory: PeDataDirectory): { entries: PeDebugEntry[]; codeView: PeCodeView | null } {
    const entries: PeDebugEntry[] = [];
    let codeView: PeCodeView | null = null;
    const table = this.table(
      directory.rva,
      Math.floor(directory.size / DEBUG_ENTRY_SIZE),
      DEBUG_ENTRY_SIZE,
      "the debug directory",
    );
    if (table === null) return { entries, codeView };
    for (let i = 0; i < table.count; i++) {
      const o = table.offset + i * DEBUG_ENTRY_SIZE;
      const type = this.u32(o + 12);
      const entry: PeDebugEntry = {
        type,
        typeName: DEBUG_TYPE_NAMES.get(type) ?? hex(type),
        sizeOfData: this.u32(o + 16),
        addressOfRawData: this.u32(o + 20),
        pointerToRawData: this.u32(o + 24),
      };
      entries.push(entry);
      if (type === IMAGE_DEBUG_TYPE_CODEVIEW && codeView === null) {
        codeView = this.readCodeView(entry);
      }
    }
    return { entries, codeView };
  }

  readCodeView(entry: PeDebugEntry): PeCodeView | null {
    let offset = entry.pointerToRawData;
    let end = offset + entry.sizeOfData;
    if (offset === 0 && entry.addressOfRawData !== 0) {
      const span = this.spanAt(entry.addressOfRawData);
      if (span !== null) {
        offset = span.offset;
        end = offset + Math.min(entry.sizeOfData, span.available);
      }
    }
    end = Math.min(end, this.length);
    const at = hex(offset);
    if (offset === 0 || offset + 4 > end) {
      this.warn(
        `Cannot read the CodeView record: ${entry.sizeOfData} bytes at offset ${at} are not in ` +
          `the ${this.length}-byte file`,
      );
      return null;
    }
    const signature = String.fromCharCode(...this.bytes.subarray(offset, offset + 4));
    if (signature === "RSDS" || signature === "NB10") {
      // RSDS: GUID, age, path; NB10: offset, timestamp, age, path.
      const rsds = signature === "RSDS";
      const pathAt = offset + (rsds ? 24 : 16);
      if (pathAt > end) {
        this.warn(`Cannot read the ${signature} CodeView record at offset ${at}: it is truncated`);
        return null;
      }
      const path = this.cString(pathAt, end);
      if (path.status === "cut") this.warn(`The PDB path at offset ${hex(pathAt)} was cut`);
      return {
        signature,
        guid: rsds ? formatGuid(this.bytes.subarray(offset + 4, offset + 20)) : null,
        timestamp: rsds ? null : this.u32(offset + 8),
        age: this.u32(pathAt - 4),
        pdbPath: path.text,
      };
    }
    const seen = Array.from(this.bytes.subarray(offset, offset + 4), hex2).join(" ");
    this.warn(
      `The CodeView record at offset ${at} has signature ${seen}, neither RSDS nor NB10; ignored`,
    );
    return null;
  }
}

/** Most links followed from a chained `.pdata` entry to the unchained one it belongs to. */
const MAX_CHAIN = 32;

/**
 * For each chained x64 `.pdata` entry (one with a `chain`), the `begin` RVA
 * of the unchained entry its chain leads to: the function it is a piece of.
 * Chained entries whose chain leads nowhere (a parent missing from the table,
 * a loop, more than 32 links) are left out.
 *
 * @param table The exception table, as {@linkcode parsePe} reads it.
 * @returns Owner RVAs by entry.
 */
export function chainOwners(table: readonly PeRuntimeFunction[]): Map<PeRuntimeFunction, number> {
  const owners = new Map<PeRuntimeFunction, number>();
  if (!table.some((f) => f.chain !== undefined)) return owners;
  const byBegin = new Map<number, PeRuntimeFunction>();
  for (const f of table) if (!byBegin.has(f.begin)) byBegin.set(f.begin, f);
  for (const f of table) {
    if (f.chain === undefined) continue;
    let at: PeRuntimeFunction | undefined = f;
    for (let links = 0; at?.chain !== undefined && links < MAX_CHAIN; links++) {
      at = at.chain.begin === at.begin ? undefined : byBegin.get(at.chain.begin);
    }
    if (at !== undefined && at.chain === undefined && at.begin !== f.begin) owners.set(f, at.begin);
  }
  return owners;
}

/** The symbol-server key of a CodeView record. */
function buildIdOf(codeView: PeCodeView): string {
  const age = codeView.age.toString(16).toUpperCase();
  if (codeView.guid !== null) return `${codeView.guid.replaceAll("-", "")}${age}`;
  return `${(codeView.timestamp ?? 0).toString(16).toUpperCase().padStart(8, "0")}${age}`;
}

/** A GUID's 16 bytes (three little-endian fields, then eight bytes) as usually printed. */
function formatGuid(b: Uint8Array): string {
  const h = (i: number): string => hex2(b[i]!).toUpperCase();
  return `${h(3)}${h(2)}${h(1)}${h(0)}-${h(5)}${h(4)}-${h(7)}${h(6)}-${h(8)}${h(9)}-` +
    `${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}

/** ASCII bytes as a string directly; anything else through UTF-8 (with U+FFFD for bad bytes). */
function decodeName(bytes: Uint8Array): string {
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

function sectionLabel(section: PeSection): string {
  return section.name === "" ? `(section ${section.number})` : section.name;
}

/** The first five items, comma-separated, with `…` when there are more. */
function list(items: string[]): string {
  return items.slice(0, 5).join(", ") + (items.length > 5 ? ", …" : "");
}

function hex(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}

function hex2(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}
