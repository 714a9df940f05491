/**
 * A dependency-free Mach-O reader: thin 32- and 64-bit files in either byte
 * order and universal ("fat") files, their load commands, segments and
 * sections, the nlist symbol table, the indirect symbol table (for the stub
 * and pointer of each import), LC_FUNCTION_STARTS, the exports trie, the
 * entry point, the linked dylibs, the UUID and the platform.
 *
 * It takes bytes and never touches the file system. Damage in optional parts
 * of a file is reported in warnings; only bytes that cannot be a Mach-O image
 * at all make {@linkcode parseMachO} throw {@linkcode MachOParseError}. Every
 * walk is bounded by the size of the input: load commands by `sizeofcmds`,
 * tables by the slice that holds them, ULEB128 numbers by 10 bytes, and the
 * exports trie by a depth limit and a set of visited nodes.
 *
 * {@linkcode machOImages} turns each slice into the format-neutral
 * {@linkcode BinaryImage}.
 *
 * @module
 */

import type {
  Architecture,
  BinaryImage,
  FunctionSource,
  ImageExport,
  ImageFunction,
  ImageImport,
  ImageSection,
} from "../binary_image.ts";

/** Thrown by {@linkcode parseMachO} when the bytes are not a usable Mach-O file. */
export class MachOParseError extends Error {
  /** File offset of the offending bytes, or `null` when it concerns the whole file. */
  readonly offset: number | null;

  /**
   * Creates the error.
   *
   * @param message A plain sentence saying what is wrong.
   * @param offset File offset of the offending bytes, if known.
   */
  constructor(message: string, offset: number | null = null) {
    super(message);
    this.name = "MachOParseError";
    this.offset = offset;
  }
}

/** `filetype` of a Mach-O header, in words. */
export type MachOFileType =
  | "object"
  | "execute"
  | "fvmlib"
  | "core"
  | "preload"
  | "dylib"
  | "dylinker"
  | "bundle"
  | "dylib-stub"
  | "dsym"
  | "kext-bundle"
  | "fileset"
  | "unknown";

/** One load command as it sits in the file. */
export interface MachOLoadCommand {
  /** Position among the load commands (0 is the first). */
  index: number;
  /** `cmd`, including the LC_REQ_DYLD bit. */
  cmd: number;
  /** Readable `cmd`, such as `LC_SEGMENT_64`, or `0x…` when unknown. */
  name: string;
  /** `cmdsize`. */
  size: number;
  /** Offset of the command from the start of its slice (its mach header). */
  offset: number;
}

/** One section of an LC_SEGMENT or LC_SEGMENT_64. */
export interface MachOSection {
  /** 1-based ordinal over all sections of the slice, as `n_sect` counts. */
  ordinal: number;
  /** `segname` of the section header. */
  segmentName: string;
  /** `sectname`. */
  name: string;
  /** `addr`. */
  address: bigint;
  /** `size`. */
  size: bigint;
  /** `offset`, from the start of the slice. */
  offset: number;
  /** `align` (a power of two). */
  align: number;
  /** `reloff`. */
  relocationOffset: number;
  /** `nreloc`. */
  relocationCount: number;
  /** `flags`: the section type in the low byte and attributes above. */
  flags: number;
  /** `flags & SECTION_TYPE` (S_REGULAR = 0, S_ZEROFILL = 1, S_SYMBOL_STUBS = 8, …). */
  type: number;
  /** `reserved1` (index into the indirect symbol table for stubs and pointers). */
  reserved1: number;
  /** `reserved2` (the stub size for S_SYMBOL_STUBS). */
  reserved2: number;
  /** Whether the section holds instructions (S_ATTR_PURE_INSTRUCTIONS or S_ATTR_SOME_INSTRUCTIONS). */
  instructions: boolean;
}

/** One LC_SEGMENT or LC_SEGMENT_64. */
export interface MachOSegment {
  /** Index of the load command. */
  command: number;
  /** `segname`. */
  name: string;
  /** `vmaddr`. */
  address: bigint;
  /** `vmsize`. */
  vmSize: bigint;
  /** `fileoff`, from the start of the slice (exact below 2^53). */
  fileOffset: number;
  /** `filesize` (exact below 2^53). */
  fileSize: number;
  /** `maxprot` (VM_PROT_READ = 1, VM_PROT_WRITE = 2, VM_PROT_EXECUTE = 4). */
  maxProtection: number;
  /** `initprot`. */
  initialProtection: number;
  /** `flags`. */
  flags: number;
  /** The sections that follow the command (only those that fit in `cmdsize`). */
  sections: MachOSection[];
}

/** LC_SYMTAB. */
export interface MachOSymtab {
  /** `symoff`, from the start of the slice. */
  symbolOffset: number;
  /** `nsyms`. */
  symbolCount: number;
  /** `stroff`, from the start of the slice. */
  stringOffset: number;
  /** `strsize`. */
  stringSize: number;
}

/** The fields of LC_DYSYMTAB this reader uses. */
export interface MachODysymtab {
  /** `ilocalsym`. */
  localFirst: number;
  /** `nlocalsym`. */
  localCount: number;
  /** `iextdefsym`. */
  externalFirst: number;
  /** `nextdefsym`. */
  externalCount: number;
  /** `iundefsym`. */
  undefinedFirst: number;
  /** `nundefsym`. */
  undefinedCount: number;
  /** `indirectsymoff`, from the start of the slice. */
  indirectSymbolOffset: number;
  /** `nindirectsyms`. */
  indirectSymbolCount: number;
}

/** What an nlist entry is, from `n_type & N_TYPE` (and `n_value` for commons). */
export type MachOSymbolKind =
  | "section"
  | "undefined"
  | "common"
  | "absolute"
  | "indirect"
  | "prebound-undefined"
  | "unknown";

/** One non-debugging nlist entry (N_STAB entries are skipped). */
export interface MachOSymbol {
  /** Index in the symbol table (what the indirect symbol table refers to). */
  index: number;
  /** Name from the string table, as stored (with its leading underscore); `""` when unavailable. */
  name: string;
  /** `n_type`. */
  type: number;
  /** What the entry is (from `n_type & N_TYPE`). */
  kind: MachOSymbolKind;
  /** N_EXT. */
  external: boolean;
  /** N_PEXT. */
  privateExternal: boolean;
  /** `n_sect` (1-based section ordinal, 0 for NO_SECT). */
  sectionOrdinal: number;
  /** `segname,sectname` of `n_sect` for kind `"section"`, else null. */
  section: string | null;
  /** `n_desc`. */
  desc: number;
  /** `n_value`. */
  value: bigint;
  /**
   * For an undefined symbol in a two-level namespace image, `GET_LIBRARY_ORDINAL(n_desc)`:
   * 1-based into {@linkcode MachOSlice.dylibs}, 0 for the image itself, 0xfe for
   * dynamic lookup, 0xff for the main executable. Null otherwise.
   */
  libraryOrdinal: number | null;
}

/** One dylib load command. */
export interface MachODylib {
  /** Which command: LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB, …, LC_ID_DYLIB. */
  command: string;
  /** Install name. */
  name: string;
  /** `timestamp`. */
  timestamp: number;
  /** `current_version` as `X.Y.Z`. */
  currentVersion: string;
  /** `compatibility_version` as `X.Y.Z`. */
  compatibilityVersion: string;
}

/** A re-export target of an exports-trie entry. */
export interface MachOReexport {
  /** Library ordinal (1-based into {@linkcode MachOSlice.dylibs}). */
  ordinal: number;
  /** Install name of that dylib, or null when the ordinal names none. */
  library: string | null;
  /** Name in that library (the export's own name when the trie stores an empty one). */
  name: string;
}

/** One terminal node of the exports trie. */
export interface MachOExport {
  /** Symbol name as stored (with its leading underscore). */
  name: string;
  /** Export flags (EXPORT_SYMBOL_FLAGS_*). */
  flags: number;
  /** `flags & EXPORT_SYMBOL_FLAGS_KIND_MASK`. */
  kind: "regular" | "thread-local" | "absolute" | "unknown";
  /** EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION. */
  weak: boolean;
  /**
   * Virtual address (image base plus the stored offset; the stored value for
   * absolute exports; the stub for a stub-and-resolver export); null for a re-export.
   */
  address: bigint | null;
  /** Re-export target (EXPORT_SYMBOL_FLAGS_REEXPORT), else null. */
  reexport: MachOReexport | null;
  /** Resolver address of a stub-and-resolver export (EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER), else null. */
  resolver: bigint | null;
}

/** One imported symbol: an undefined external nlist entry. */
export interface MachOImport {
  /** Symbol index. */
  symbol: number;
  /** Name as stored (with its leading underscore). */
  name: string;
  /** Library ordinal from `n_desc` in a two-level namespace image, else null. */
  ordinal: number | null;
  /** Install name of the dylib the ordinal names; null for flat namespace and special ordinals. */
  library: string | null;
  /** N_WEAK_REF. */
  weak: boolean;
  /** Address of its first symbol stub (S_SYMBOL_STUBS via the indirect symbol table), else null. */
  stub: bigint | null;
  /** Address of its first lazy or non-lazy symbol pointer, else null. */
  pointer: bigint | null;
}

/** LC_BUILD_VERSION or LC_VERSION_MIN_*. */
export interface MachOPlatform {
  /** The load command's name. */
  command: string;
  /** PLATFORM_* number (for LC_VERSION_MIN_*, the platform the command implies). */
  platform: number;
  /** `macos`, `ios`, `tvos`, `watchos`, `maccatalyst`, `iossimulator`, …, or `platform-N`. */
  platformName: string;
  /** Minimum OS version as `X.Y` or `X.Y.Z` (`.Z` only when not 0). */
  minimumVersion: string;
  /** SDK version, formatted the same way. */
  sdk: string;
}

/** LC_DYLD_INFO or LC_DYLD_INFO_ONLY. */
export interface MachODyldInfo {
  /** `LC_DYLD_INFO` or `LC_DYLD_INFO_ONLY`. */
  command: string;
  /** `rebase_off`. */
  rebaseOffset: number;
  /** `rebase_size`. */
  rebaseSize: number;
  /** `bind_off`. */
  bindOffset: number;
  /** `bind_size`. */
  bindSize: number;
  /** `weak_bind_off`. */
  weakBindOffset: number;
  /** `weak_bind_size`. */
  weakBindSize: number;
  /** `lazy_bind_off`. */
  lazyBindOffset: number;
  /** `lazy_bind_size`. */
  lazyBindSize: number;
  /** `export_off` (the exports trie), from the start of the slice. */
  exportOffset: number;
  /** `export_size`. */
  exportSize: number;
}

/** A `linkedit_data_command` (LC_FUNCTION_STARTS, LC_DYLD_EXPORTS_TRIE, …). */
export interface MachOLinkeditData {
  /** `dataoff`, from the start of the slice. */
  offset: number;
  /** `datasize`. */
  size: number;
}

/** One Mach-O image: a thin file, or one architecture of a universal file. */
export interface MachOSlice {
  /** `cputype`. */
  cputype: number;
  /** `cpusubtype` (with the capability bits). */
  cpusubtype: number;
  /** `x86_64`, `x86_64h`, `arm64`, `arm64e`, `arm64_32`, `i386`, `armv7`, `arm`, `ppc`, … or `cpu-0x…`. */
  cpuName: string;
  /** The processor family, as {@linkcode BinaryImage} names it. */
  architecture: Architecture;
  /** `CPU_TYPE_X86_64`, `CPU_TYPE_ARM64`, …, or `CPU_TYPE_0x…`. */
  machine: string;
  /** 64 for MH_MAGIC_64, 32 for MH_MAGIC. */
  bits: 32 | 64;
  /** Byte order of the slice. */
  endianness: "little" | "big";
  /** `filetype`. */
  filetype: number;
  /** `filetype` in words. */
  fileType: MachOFileType;
  /** `flags`. */
  flags: number;
  /** Names of the set MH_* flags, lowest bit first (`0x…` for unknown bits). */
  flagNames: string[];
  /** Offset of the slice in the file (0 for a thin file). */
  offset: number;
  /** Bytes of the slice. */
  size: number;
  /** `ncmds` from the header. */
  ncmds: number;
  /** `sizeofcmds` from the header. */
  sizeofcmds: number;
  /** The load commands read, in file order. */
  loadCommands: MachOLoadCommand[];
  /** LC_SEGMENT and LC_SEGMENT_64 commands, in file order. */
  segments: MachOSegment[];
  /** All sections in `n_sect` order (ordinal 1 first). */
  sections: MachOSection[];
  /** LC_SYMTAB, or null. */
  symtab: MachOSymtab | null;
  /** LC_DYSYMTAB, or null. */
  dysymtab: MachODysymtab | null;
  /** Non-debugging symbols in table order. */
  symbols: MachOSymbol[];
  /** LC_FUNCTION_STARTS, when present. */
  functionStartsData: MachOLinkeditData | null;
  /** Decoded function starts (virtual addresses, raw: an ARM Thumb bit is kept). */
  functionStarts: bigint[];
  /** LC_DYLD_INFO or LC_DYLD_INFO_ONLY, or null. */
  dyldInfo: MachODyldInfo | null;
  /** LC_DYLD_EXPORTS_TRIE, when present. */
  exportsTrieData: MachOLinkeditData | null;
  /** Terminal nodes of the exports trie, in trie (depth-first) order. */
  exports: MachOExport[];
  /** Entry point virtual address (from LC_MAIN or LC_UNIXTHREAD), or null. */
  entry: bigint | null;
  /** Which command gave the entry point. */
  entryCommand: "LC_MAIN" | "LC_UNIXTHREAD" | null;
  /** LC_MAIN `entryoff` (a file offset), or null. */
  mainEntryOffset: bigint | null;
  /** Dependent dylibs (LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB, LC_LAZY_LOAD_DYLIB, LC_LOAD_UPWARD_DYLIB) in ordinal order. */
  dylibs: MachODylib[];
  /** LC_ID_DYLIB, or null. */
  idDylib: MachODylib | null;
  /** LC_LOAD_DYLINKER name, or null. */
  dylinker: string | null;
  /** LC_RPATH paths. */
  rpaths: string[];
  /** LC_UUID as `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` (upper case), or null. */
  uuid: string | null;
  /** LC_BUILD_VERSION and LC_VERSION_MIN_* commands, in file order. */
  platforms: MachOPlatform[];
  /** Undefined external symbols (imports), in symbol table order. */
  imports: MachOImport[];
  /** What was skipped or bounded in this slice. */
  warnings: string[];
}

/** The parsed view of a Mach-O file. */
export interface MachOFile {
  /** Whether the file has a universal (fat) header. */
  universal: boolean;
  /** The slices read, in the universal header's order (one for a thin file). */
  slices: MachOSlice[];
  /**
   * Every warning: the universal header's, then each slice's (prefixed with
   * `<cpu> slice: ` in a universal file).
   */
  warnings: string[];
}

/** Options for {@linkcode parseMachO}. */
export interface ParseMachOOptions {
  /**
   * Most symbol table entries to read per slice; the rest are skipped with a warning.
   *
   * @default {4_000_000}
   */
  maxSymbols?: number;
}

// ---------------------------------------------------------------------------
// Constants (from <mach-o/loader.h>, <mach-o/nlist.h>, <mach-o/fat.h>, <mach/machine.h>)

const MH_MAGIC = 0xfeedface;
const MH_MAGIC_64 = 0xfeedfacf;
const MH_CIGAM = 0xcefaedfe;
const MH_CIGAM_64 = 0xcffaedfe;
const FAT_MAGIC = 0xcafebabe;
const FAT_MAGIC_64 = 0xcafebabf;

/** More architectures than any universal file has; Java class versions start at 45 (0x2d). */
const MAX_FAT_ARCHES = 44;

const MH_OBJECT = 1;
const MH_TWOLEVEL = 0x80;

const CPU_ARCH_ABI64 = 0x01000000;
const CPU_ARCH_ABI64_32 = 0x02000000;
const CPU_TYPE_X86 = 7;
const CPU_TYPE_X86_64 = CPU_TYPE_X86 | CPU_ARCH_ABI64;
const CPU_TYPE_ARM = 12;
const CPU_TYPE_ARM64 = CPU_TYPE_ARM | CPU_ARCH_ABI64;
const CPU_TYPE_ARM64_32 = CPU_TYPE_ARM | CPU_ARCH_ABI64_32;
const CPU_TYPE_POWERPC = 18;
const CPU_TYPE_POWERPC64 = CPU_TYPE_POWERPC | CPU_ARCH_ABI64;
const CPU_SUBTYPE_MASK = 0xff000000;

const LC_SEGMENT = 0x1;
const LC_SYMTAB = 0x2;
const LC_UNIXTHREAD = 0x5;
const LC_DYSYMTAB = 0xb;
const LC_LOAD_DYLIB = 0xc;
const LC_ID_DYLIB = 0xd;
const LC_LOAD_DYLINKER = 0xe;
const LC_LOAD_WEAK_DYLIB = 0x80000018;
const LC_SEGMENT_64 = 0x19;
const LC_UUID = 0x1b;
const LC_RPATH = 0x8000001c;
const LC_REEXPORT_DYLIB = 0x8000001f;
const LC_LAZY_LOAD_DYLIB = 0x20;
const LC_DYLD_INFO = 0x22;
const LC_DYLD_INFO_ONLY = 0x80000022;
const LC_LOAD_UPWARD_DYLIB = 0x80000023;
const LC_VERSION_MIN_MACOSX = 0x24;
const LC_VERSION_MIN_IPHONEOS = 0x25;
const LC_FUNCTION_STARTS = 0x26;
const LC_MAIN = 0x80000028;
const LC_VERSION_MIN_TVOS = 0x2f;
const LC_VERSION_MIN_WATCHOS = 0x30;
const LC_BUILD_VERSION = 0x32;
const LC_DYLD_EXPORTS_TRIE = 0x80000033;

const LOAD_COMMAND_NAMES: ReadonlyMap<number, string> = new Map([
  [0x1, "LC_SEGMENT"],
  [0x2, "LC_SYMTAB"],
  [0x3, "LC_SYMSEG"],
  [0x4, "LC_THREAD"],
  [0x5, "LC_UNIXTHREAD"],
  [0x6, "LC_LOADFVMLIB"],
  [0x7, "LC_IDFVMLIB"],
  [0x8, "LC_IDENT"],
  [0x9, "LC_FVMFILE"],
  [0xa, "LC_PREPAGE"],
  [0xb, "LC_DYSYMTAB"],
  [0xc, "LC_LOAD_DYLIB"],
  [0xd, "LC_ID_DYLIB"],
  [0xe, "LC_LOAD_DYLINKER"],
  [0xf, "LC_ID_DYLINKER"],
  [0x10, "LC_PREBOUND_DYLIB"],
  [0x11, "LC_ROUTINES"],
  [0x12, "LC_SUB_FRAMEWORK"],
  [0x13, "LC_SUB_UMBRELLA"],
  [0x14, "LC_SUB_CLIENT"],
  [0x15, "LC_SUB_LIBRARY"],
  [0x16, "LC_TWOLEVEL_HINTS"],
  [0x17, "LC_PREBIND_CKSUM"],
  [0x80000018, "LC_LOAD_WEAK_DYLIB"],
  [0x19, "LC_SEGMENT_64"],
  [0x1a, "LC_ROUTINES_64"],
  [0x1b, "LC_UUID"],
  [0x8000001c, "LC_RPATH"],
  [0x1d, "LC_CODE_SIGNATURE"],
  [0x1e, "LC_SEGMENT_SPLIT_INFO"],
  [0x8000001f, "LC_REEXPORT_DYLIB"],
  [0x20, "LC_LAZY_LOAD_DYLIB"],
  [0x21, "LC_ENCRYPTION_INFO"],
  [0x22, "LC_DYLD_INFO"],
  [0x80000022, "LC_DYLD_INFO_ONLY"],
  [0x80000023, "LC_LOAD_UPWARD_DYLIB"],
  [0x24, "LC_VERSION_MIN_MACOSX"],
  [0x25, "LC_VERSION_MIN_IPHONEOS"],
  [0x26, "LC_FUNCTION_STARTS"],
  [0x27, "LC_DYLD_ENVIRONMENT"],
  [0x80000028, "LC_MAIN"],
  [0x29, "LC_DATA_IN_CODE"],
  [0x2a, "LC_SOURCE_VERSION"],
  [0x2b, "LC_DYLIB_CODE_SIGN_DRS"],
  [0x2c, "LC_ENCRYPTION_INFO_64"],
  [0x2d, "LC_LINKER_OPTION"],
  [0x2e, "LC_LINKER_OPTIMIZATION_HINT"],
  [0x2f, "LC_VERSION_MIN_TVOS"],
  [0x30, "LC_VERSION_MIN_WATCHOS"],
  [0x31, "LC_NOTE"],
  [0x32, "LC_BUILD_VERSION"],
  [0x80000033, "LC_DYLD_EXPORTS_TRIE"],
  [0x80000034, "LC_DYLD_CHAINED_FIXUPS"],
  [0x80000035, "LC_FILESET_ENTRY"],
  [0x36, "LC_ATOM_INFO"],
]);

const FILE_TYPES: readonly MachOFileType[] = [
  "unknown",
  "object",
  "execute",
  "fvmlib",
  "core",
  "preload",
  "dylib",
  "dylinker",
  "bundle",
  "dylib-stub",
  "dsym",
  "kext-bundle",
  "fileset",
];

const HEADER_FLAG_NAMES: readonly string[] = [
  "MH_NOUNDEFS",
  "MH_INCRLINK",
  "MH_DYLDLINK",
  "MH_BINDATLOAD",
  "MH_PREBOUND",
  "MH_SPLIT_SEGS",
  "MH_LAZY_INIT",
  "MH_TWOLEVEL",
  "MH_FORCE_FLAT",
  "MH_NOMULTIDEFS",
  "MH_NOFIXPREBINDING",
  "MH_PREBINDABLE",
  "MH_ALLMODSBOUND",
  "MH_SUBSECTIONS_VIA_SYMBOLS",
  "MH_CANONICAL",
  "MH_WEAK_DEFINES",
  "MH_BINDS_TO_WEAK",
  "MH_ALLOW_STACK_EXECUTION",
  "MH_ROOT_SAFE",
  "MH_SETUID_SAFE",
  "MH_NO_REEXPORTED_DYLIBS",
  "MH_PIE",
  "MH_DEAD_STRIPPABLE_DYLIB",
  "MH_HAS_TLV_DESCRIPTORS",
  "MH_NO_HEAP_EXECUTION",
  "MH_APP_EXTENSION_SAFE",
  "MH_NLIST_OUTOFSYNC_WITH_DYLDINFO",
  "MH_SIM_SUPPORT",
];
const MH_DYLIB_IN_CACHE = 0x80000000;

const PLATFORM_NAMES: readonly string[] = [
  "unknown",
  "macos",
  "ios",
  "tvos",
  "watchos",
  "bridgeos",
  "maccatalyst",
  "iossimulator",
  "tvossimulator",
  "watchossimulator",
  "driverkit",
  "visionos",
  "visionossimulator",
];

const ARM_SUBTYPES: ReadonlyMap<number, string> = new Map([
  [5, "armv4t"],
  [6, "armv6"],
  [7, "armv5"],
  [8, "xscale"],
  [9, "armv7"],
  [10, "armv7f"],
  [11, "armv7s"],
  [12, "armv7k"],
  [13, "armv8"],
  [14, "armv6m"],
  [15, "armv7m"],
  [16, "armv7em"],
]);

const VM_PROT_READ = 1;
const VM_PROT_WRITE = 2;
const VM_PROT_EXECUTE = 4;

const SECTION_TYPE = 0xff;
const S_ZEROFILL = 0x1;
const S_NON_LAZY_SYMBOL_POINTERS = 0x6;
const S_LAZY_SYMBOL_POINTERS = 0x7;
const S_SYMBOL_STUBS = 0x8;
const S_GB_ZEROFILL = 0xc;
const S_LAZY_DYLIB_SYMBOL_POINTERS = 0x10;
const S_THREAD_LOCAL_ZEROFILL = 0x12;
const S_ATTR_PURE_INSTRUCTIONS = 0x80000000;
const S_ATTR_SOME_INSTRUCTIONS = 0x400;

const N_STAB = 0xe0;
const N_PEXT = 0x10;
const N_TYPE = 0x0e;
const N_EXT = 0x01;
const N_UNDF = 0x0;
const N_ABS = 0x2;
const N_INDR = 0xa;
const N_PBUD = 0xc;
const N_SECT = 0xe;
const N_WEAK_REF = 0x40;

const INDIRECT_SYMBOL_LOCAL = 0x80000000;
const INDIRECT_SYMBOL_ABS = 0x40000000;

const EXPORT_SYMBOL_FLAGS_KIND_MASK = 0x3;
const EXPORT_SYMBOL_FLAGS_KIND_ABSOLUTE = 0x2;
const EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION = 0x4;
const EXPORT_SYMBOL_FLAGS_REEXPORT = 0x8;
const EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER = 0x10;
const EXPORT_KINDS: readonly MachOExport["kind"][] = [
  "regular",
  "thread-local",
  "absolute",
  "unknown",
];

/** Longest ULEB128 read, in bytes (enough for 64 bits). */
const MAX_ULEB_BYTES = 10;
/** Deepest path through the exports trie that is followed. */
const MAX_TRIE_DEPTH = 512;
/** Longest symbol, edge or path name read, in bytes; longer ones are cut with a warning. */
const MAX_NAME_BYTES = 65536;
/** Most warnings kept per slice; the rest are counted in a final warning. */
const MAX_WARNINGS = 100;
const DEFAULT_MAX_SYMBOLS = 4_000_000;

const TWO_32 = 4294967296;

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

// ---------------------------------------------------------------------------
// Public functions

/**
 * Tells whether `bytes` starts like a Mach-O file: a thin header magic
 * (MH_MAGIC or MH_MAGIC_64, in either byte order), or a universal header
 * (FAT_MAGIC or FAT_MAGIC_64, big-endian) whose architecture count is between
 * 1 and 44 and whose architecture table fits in the bytes, with each entry
 * plausible (a known CPU family, an alignment of at most 2^20, a slice that
 * starts after the table and inside the bytes). A Java class file, which also
 * starts with 0xCAFEBABE, has a class-file version of at least 45 where the
 * architecture count would be, and so is not taken for a universal file.
 */
export function isMachO(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  const magic = readU32BE(bytes, 0);
  if (magic === MH_MAGIC || magic === MH_MAGIC_64) return true; // fe ed fa ce / cf: big-endian
  if (magic === MH_CIGAM || magic === MH_CIGAM_64) return true; // ce / cf fa ed fe: little-endian
  if (magic !== FAT_MAGIC && magic !== FAT_MAGIC_64) return false;
  if (bytes.length < 8) return false;
  const count = readU32BE(bytes, 4);
  if (count === 0 || count > MAX_FAT_ARCHES) return false;
  const entrySize = magic === FAT_MAGIC ? 20 : 32;
  const tableEnd = 8 + count * entrySize;
  if (tableEnd > bytes.length) return false;
  for (let i = 0; i < count; i++) {
    const arch = readFatArch(bytes, 8 + i * entrySize, magic === FAT_MAGIC_64);
    if (!plausibleCpu(arch.cputype) || arch.align > 20) return false;
    if (arch.offset < tableEnd || arch.offset >= bytes.length) return false;
  }
  return true;
}

/**
 * Parses a thin or universal Mach-O file held in memory.
 *
 * For each slice it reads the header and the load commands, and decodes
 * LC_SEGMENT(_64) with their sections, LC_SYMTAB (nlist / nlist_64, N_STAB
 * entries skipped), LC_DYSYMTAB with the indirect symbol table (to find each
 * import's stub and symbol pointer), LC_FUNCTION_STARTS, the exports trie of
 * LC_DYLD_EXPORTS_TRIE or LC_DYLD_INFO(_ONLY), LC_MAIN and LC_UNIXTHREAD,
 * the dylib commands, LC_UUID, LC_LOAD_DYLINKER, LC_RPATH, LC_BUILD_VERSION
 * and LC_VERSION_MIN_*.
 *
 * In a universal file, a slice that is unreadable is skipped with a warning;
 * the file is rejected only when no slice can be read.
 *
 * @param bytes The whole file.
 * @param options Limits.
 * @returns The slices; damage in optional parts is listed in warnings.
 * @throws {MachOParseError} When the bytes are not a Mach-O file, the header
 *   is truncated, the load command area does not fit in the file or cannot
 *   hold `ncmds` commands, or (universal) the architecture table is unusable
 *   or no slice can be read.
 */
export function parseMachO(bytes: Uint8Array, options: ParseMachOOptions = {}): MachOFile {
  const maxSymbols = options.maxSymbols ?? DEFAULT_MAX_SYMBOLS;
  if (!Number.isSafeInteger(maxSymbols) || maxSymbols < 0) {
    throw new RangeError(`maxSymbols must be a non-negative integer, got ${maxSymbols}`);
  }
  const length = bytes.length;
  if (length === 0) throw new MachOParseError("Cannot parse Mach-O header: file is empty", 0);
  if (length < 4) {
    throw new MachOParseError(
      `Cannot parse Mach-O header: file is ${length} bytes, needs at least 4 for the magic number`,
      0,
    );
  }
  const magic = readU32BE(bytes, 0);
  if (magic === FAT_MAGIC || magic === FAT_MAGIC_64) return parseUniversal(bytes, maxSymbols);
  const slice = new SliceReader(bytes, 0, length, maxSymbols, "file").parse();
  return { universal: false, slices: [slice], warnings: [...slice.warnings] };
}

/**
 * One {@linkcode BinaryImage} per slice of a Mach-O file.
 *
 * - `document`: `fileName` for a thin file; `"<fileName> (<cpu>)"` for each
 *   slice of a universal file (such as `fsevents.node (arm64)`), with ` 2`,
 *   ` 3`, … after the CPU name when slices share one, so names are unique.
 * - `fileBase` is the slice's offset in the file and `bytes` the slice's
 *   subarray; section `fileOffset`s are relative to `bytes`.
 * - `sections`: every section, named `segname,sectname` (`__TEXT,__text`),
 *   plus each segment without sections under its own name (`__PAGEZERO`,
 *   `__LINKEDIT`); readable / writable / executable come from the segment's
 *   initial protection. Zero-fill sections have no file offset.
 * - `functions`: the union, unique by address and sorted, of LC_FUNCTION_STARTS
 *   (source `"function-starts"`), N_SECT symbols in executable sections —
 *   sections of an executable segment that hold instructions
 *   (S_ATTR_PURE_INSTRUCTIONS or S_ATTR_SOME_INSTRUCTIONS) — whose value
 *   lies inside their own section (so `__mh_execute_header` is none) (`"symtab"`),
 *   exports-trie entries in such sections (`"export"`) and the entry point
 *   (`"entry"`). The source is the first of symtab, export, entry,
 *   function-starts that knows the address. Names are kept exactly as the
 *   symbol table and the trie store them, leading underscore included
 *   (`_main`); the chosen name prefers an external symbol, then an export,
 *   then a local symbol, then the shorter name. Sizes are 0 (Mach-O records
 *   none). On 32-bit ARM the Thumb bit is cleared.
 * - `imports`: one per undefined external symbol; `library` is the install
 *   name of the dylib its two-level library ordinal names (null in a flat
 *   namespace image and for the self, main-executable and dynamic-lookup
 *   ordinals); `address` is its first symbol stub, else its lazy or non-lazy
 *   symbol pointer, else null.
 * - `exports`: every exports-trie entry; a re-export has a null address and
 *   `forwardedTo` = `<install name of the dylib>.<symbol>`.
 * - `libraries`: install names of the dependent dylibs in ordinal order.
 * - `buildId`: LC_UUID as 32 lower-case hex digits, or null.
 * - `warnings`: the universal header's warnings followed by the slice's.
 *
 * @param bytes The whole file.
 * @param fileName The name to give the documents.
 * @returns The images, in the universal header's order.
 * @throws {MachOParseError} As {@linkcode parseMachO}.
 */
export function machOImages(bytes: Uint8Array, fileName: string): BinaryImage[] {
  const file = parseMachO(bytes);
  const universalWarnings = file.universal ? fileLevelWarnings(file) : [];
  const seen = new Map<string, number>();
  return file.slices.map((slice) => {
    let document = fileName;
    if (file.universal) {
      const n = (seen.get(slice.cpuName) ?? 0) + 1;
      seen.set(slice.cpuName, n);
      document = `${fileName} (${slice.cpuName}${n > 1 ? ` ${n}` : ""})`;
    }
    return sliceImage(
      slice,
      bytes.subarray(slice.offset, slice.offset + slice.size),
      document,
      universalWarnings,
    );
  });
}

// ---------------------------------------------------------------------------
// Universal files

interface FatArch {
  cputype: number;
  cpusubtype: number;
  offset: number;
  size: number;
  align: number;
}

function readFatArch(bytes: Uint8Array, at: number, is64: boolean): FatArch {
  if (is64) {
    return {
      cputype: readU32BE(bytes, at),
      cpusubtype: readU32BE(bytes, at + 4),
      offset: readU32BE(bytes, at + 8) * TWO_32 + readU32BE(bytes, at + 12),
      size: readU32BE(bytes, at + 16) * TWO_32 + readU32BE(bytes, at + 20),
      align: readU32BE(bytes, at + 24),
    };
  }
  return {
    cputype: readU32BE(bytes, at),
    cpusubtype: readU32BE(bytes, at + 4),
    offset: readU32BE(bytes, at + 8),
    size: readU32BE(bytes, at + 12),
    align: readU32BE(bytes, at + 16),
  };
}

function plausibleCpu(cputype: number): boolean {
  const family = cputype & 0x00ffffff;
  const abi = (cputype & CPU_SUBTYPE_MASK) >>> 0;
  return family >= 1 && family <= 24 &&
    (abi === 0 || abi === CPU_ARCH_ABI64 || abi === CPU_ARCH_ABI64_32);
}

/** The warnings of a universal file that belong to no slice (they come first). */
function fileLevelWarnings(file: MachOFile): string[] {
  const sliceCount = file.slices.reduce((n, s) => n + s.warnings.length, 0);
  return file.warnings.slice(0, file.warnings.length - sliceCount);
}

function parseUniversal(bytes: Uint8Array, maxSymbols: number): MachOFile {
  const length = bytes.length;
  const is64 = readU32BE(bytes, 0) === FAT_MAGIC_64;
  const what = is64 ? "FAT_MAGIC_64" : "FAT_MAGIC";
  if (length < 8) {
    throw new MachOParseError(
      `Cannot parse Mach-O universal header: file is ${length} bytes, needs at least 8`,
      0,
    );
  }
  const count = readU32BE(bytes, 4);
  if (count === 0) {
    throw new MachOParseError("Cannot parse Mach-O universal header: nfat_arch is 0", 4);
  }
  if (count > MAX_FAT_ARCHES) {
    const java = is64 ? "" : `; with ${what} this is most likely a Java class file (class file ` +
      `version ${count & 0xffff}.${count >>> 16})`;
    throw new MachOParseError(
      `Cannot parse Mach-O universal header: nfat_arch is ${count} (${hex(count)}), more than ` +
        `the ${MAX_FAT_ARCHES} any universal file has${java}`,
      4,
    );
  }
  const entrySize = is64 ? 32 : 20;
  const tableEnd = 8 + count * entrySize;
  if (tableEnd > length) {
    throw new MachOParseError(
      `Cannot parse Mach-O universal header: its ${count} architecture entries of ${entrySize} ` +
        `bytes run past the end of the ${length}-byte file`,
      8,
    );
  }
  const warnings: string[] = [];
  const kept: { index: number; arch: FatArch; end: number }[] = [];
  for (let i = 0; i < count; i++) {
    const at = 8 + i * entrySize;
    const arch = readFatArch(bytes, at, is64);
    const label = `Universal architecture ${i} (${cpuName(arch.cputype, arch.cpusubtype)})`;
    if (arch.offset < tableEnd) {
      warnings.push(
        `${label} starts at offset ${hex(arch.offset)}, inside the universal header; skipping it`,
      );
      continue;
    }
    if (arch.offset >= length) {
      warnings.push(
        `${label} starts at offset ${hex(arch.offset)}, past the end of the ${length}-byte ` +
          `file; skipping it`,
      );
      continue;
    }
    let end = arch.offset + arch.size;
    if (end > length) {
      warnings.push(
        `${label} (${arch.size} bytes at offset ${hex(arch.offset)}) runs past the end of the ` +
          `${length}-byte file; reading the ${length - arch.offset} bytes that are there`,
      );
      end = length;
    }
    const overlapped = kept.find((k) => arch.offset < k.end && k.arch.offset < end);
    if (overlapped !== undefined) {
      warnings.push(
        `${label} (offset ${hex(arch.offset)}, ${arch.size} bytes) overlaps universal ` +
          `architecture ${overlapped.index} (offset ${hex(overlapped.arch.offset)}, ` +
          `${overlapped.arch.size} bytes); skipping it`,
      );
      continue;
    }
    if (arch.align > 31) {
      warnings.push(`${label} has align ${arch.align}, more than 31`);
    } else if (arch.offset % 2 ** arch.align !== 0) {
      warnings.push(
        `${label} starts at offset ${hex(arch.offset)}, which is not aligned to 2^${arch.align}`,
      );
    }
    kept.push({ index: i, arch, end });
  }
  const slices: MachOSlice[] = [];
  const failures: string[] = [];
  for (const { index, arch, end } of kept) {
    const label = `universal architecture ${index} (${cpuName(arch.cputype, arch.cpusubtype)})`;
    let slice: MachOSlice;
    try {
      slice = new SliceReader(bytes, arch.offset, end, maxSymbols, "slice").parse();
    } catch (error) {
      if (!(error instanceof MachOParseError)) throw error;
      warnings.push(`Skipping ${label}: ${error.message}`);
      failures.push(error.message);
      continue;
    }
    if (slice.cputype !== arch.cputype || slice.cpusubtype !== arch.cpusubtype) {
      slice.warnings.unshift(
        `The universal header says ${cpuName(arch.cputype, arch.cpusubtype)} (cputype ` +
          `${hex(arch.cputype)}, cpusubtype ${hex(arch.cpusubtype)}) but the slice's header ` +
          `says ${slice.cpuName} (cputype ${hex(slice.cputype)}, cpusubtype ` +
          `${hex(slice.cpusubtype)})`,
      );
    }
    slices.push(slice);
  }
  if (slices.length === 0) {
    throw new MachOParseError(
      `Cannot parse Mach-O universal file: none of its ${count} architectures can be read` +
        (failures.length > 0 ? ` (the first: ${failures[0]})` : ""),
      8,
    );
  }
  const all = [...warnings];
  for (const slice of slices) {
    for (const w of slice.warnings) all.push(`${slice.cpuName} slice: ${w}`);
  }
  return { universal: true, slices, warnings: all };
}

// ---------------------------------------------------------------------------
// One slice

/** Reads a ULEB128 number; the position after it is left in `uleb.next`. */
const uleb = { next: 0, big: 0n };

/**
 * The ULEB128 at `pos` (bytes before `end`): a number when below 2^53, NaN
 * when larger (the value, cut to 64 bits, is then in `uleb.big`), or -1 when
 * it does not end before `end` or within {@linkcode MAX_ULEB_BYTES} bytes.
 */
function readUleb(bytes: Uint8Array, pos: number, end: number): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < MAX_ULEB_BYTES; i++) {
    const p = pos + i;
    if (p >= end) {
      uleb.next = end;
      return -1;
    }
    const b = bytes[p]!;
    value += (b & 0x7f) * scale;
    scale *= 128;
    if ((b & 0x80) === 0) {
      uleb.next = p + 1;
      if (value <= Number.MAX_SAFE_INTEGER) return value;
      let big = 0n;
      for (let k = i; k >= 0; k--) big = (big << 7n) | BigInt(bytes[pos + k]! & 0x7f);
      uleb.big = BigInt.asUintN(64, big);
      return NaN;
    }
  }
  uleb.next = pos + MAX_ULEB_BYTES;
  return -1;
}

function readU32BE(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>>
    0;
}

/**
 * The NUL-terminated string at `start`, read no further than `end` and at
 * most {@linkcode MAX_NAME_BYTES} bytes. `cut` in the result says whether it
 * ended for lack of a NUL; `stop` is the offset where it ended (of the NUL, if any).
 */
function cString(
  bytes: Uint8Array,
  start: number,
  end: number,
): { text: string; cut: boolean; stop: number } {
  const limit = Math.min(end, start + MAX_NAME_BYTES);
  let stop = start;
  let ascii = true;
  while (stop < limit) {
    const b = bytes[stop]!;
    if (b === 0) break;
    if (b >= 0x80) ascii = false;
    stop++;
  }
  const cut = stop === limit && !(stop < end && bytes[stop] === 0);
  if (stop === start) return { text: "", cut, stop };
  if (ascii && stop - start <= 1024) {
    return {
      text: String.fromCharCode.apply(null, bytes.subarray(start, stop) as unknown as number[]),
      cut,
      stop,
    };
  }
  return { text: decoder.decode(bytes.subarray(start, stop)), cut, stop };
}

function cpuName(cputype: number, cpusubtype: number): string {
  const sub = cpusubtype & 0x00ffffff;
  switch (cputype) {
    case CPU_TYPE_X86:
      return "i386";
    case CPU_TYPE_X86_64:
      return sub === 8 ? "x86_64h" : "x86_64";
    case CPU_TYPE_ARM:
      return ARM_SUBTYPES.get(sub) ?? "arm";
    case CPU_TYPE_ARM64:
      return sub === 2 ? "arm64e" : "arm64";
    case CPU_TYPE_ARM64_32:
      return "arm64_32";
    case CPU_TYPE_POWERPC:
      return "ppc";
    case CPU_TYPE_POWERPC64:
      return "ppc64";
    default:
      return `cpu-${hex(cputype >>> 0)}`;
  }
}

function machineName(cputype: number): string {
  switch (cputype) {
    case CPU_TYPE_X86:
      return "CPU_TYPE_X86";
    case CPU_TYPE_X86_64:
      return "CPU_TYPE_X86_64";
    case CPU_TYPE_ARM:
      return "CPU_TYPE_ARM";
    case CPU_TYPE_ARM64:
      return "CPU_TYPE_ARM64";
    case CPU_TYPE_ARM64_32:
      return "CPU_TYPE_ARM64_32";
    case CPU_TYPE_POWERPC:
      return "CPU_TYPE_POWERPC";
    case CPU_TYPE_POWERPC64:
      return "CPU_TYPE_POWERPC64";
    default:
      return `CPU_TYPE_${hex(cputype >>> 0)}`;
  }
}

function architectureOf(cputype: number): Architecture {
  switch (cputype) {
    case CPU_TYPE_X86:
      return "x86";
    case CPU_TYPE_X86_64:
      return "x86_64";
    case CPU_TYPE_ARM:
      return "arm";
    case CPU_TYPE_ARM64:
    case CPU_TYPE_ARM64_32:
      return "arm64";
    default:
      return "other";
  }
}

/** `X.Y.Z` from a packed `xxxx.yy.zz` version. */
function dylibVersion(v: number): string {
  return `${v >>> 16}.${(v >>> 8) & 0xff}.${v & 0xff}`;
}

/** `X.Y`, or `X.Y.Z` when Z is not 0, from a packed `xxxx.yy.zz` version. */
function osVersion(v: number): string {
  const z = v & 0xff;
  return `${v >>> 16}.${(v >>> 8) & 0xff}${z === 0 ? "" : `.${z}`}`;
}

function flagNames(flags: number): string[] {
  const names: string[] = [];
  for (let bit = 0; bit < 32; bit++) {
    const mask = 2 ** bit;
    if (Math.floor(flags / mask) % 2 === 0) continue;
    if (mask === MH_DYLIB_IN_CACHE) names.push("MH_DYLIB_IN_CACHE");
    else names.push(HEADER_FLAG_NAMES[bit] ?? hex(mask));
  }
  return names;
}

function hex(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}

function hex2(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Reads one slice: `bytes[start, end)` of the file. Offsets in messages are file offsets. */
class SliceReader {
  readonly file: Uint8Array;
  /** The slice's bytes. */
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /** Offset of the slice in the file. */
  readonly base: number;
  /** Bytes in the slice. */
  readonly length: number;
  readonly maxSymbols: number;
  /** `"file"` or `"slice"`, for messages. */
  readonly unit: string;
  le = true;
  is64 = true;
  cputype = 0;
  warnings: string[] = [];
  dropped = 0;

  loadCommands: MachOLoadCommand[] = [];
  segments: MachOSegment[] = [];
  sections: MachOSection[] = [];
  symtab: MachOSymtab | null = null;
  dysymtab: MachODysymtab | null = null;
  functionStartsData: MachOLinkeditData | null = null;
  dyldInfo: MachODyldInfo | null = null;
  exportsTrieData: MachOLinkeditData | null = null;
  mainEntryOffset: bigint | null = null;
  threadEntry: bigint | null = null;
  dylibs: MachODylib[] = [];
  idDylib: MachODylib | null = null;
  dylinker: string | null = null;
  rpaths: string[] = [];
  uuid: string | null = null;
  platforms: MachOPlatform[] = [];
  /** Commands seen more than once where only one is allowed, by name. */
  repeated: Map<string, number> = new Map();

  constructor(file: Uint8Array, start: number, end: number, maxSymbols: number, unit: string) {
    this.file = file;
    this.bytes = file.subarray(start, end);
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    this.base = start;
    this.length = end - start;
    this.maxSymbols = maxSymbols;
    this.unit = unit;
  }

  warn(message: string): void {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message);
    else this.dropped++;
  }

  u16(at: number): number {
    return this.view.getUint16(at, this.le);
  }

  u32(at: number): number {
    return this.view.getUint32(at, this.le);
  }

  /** A 64-bit field as a number (exact below 2^53). */
  u64n(at: number): number {
    const a = this.view.getUint32(at, this.le);
    const b = this.view.getUint32(at + 4, this.le);
    return this.le ? b * TWO_32 + a : a * TWO_32 + b;
  }

  u64(at: number): bigint {
    return this.view.getBigUint64(at, this.le);
  }

  /** An address-sized field as a bigint. */
  addr(at: number): bigint {
    return this.is64 ? this.u64(at) : BigInt(this.u32(at));
  }

  /** A fixed 16-byte name field (segname, sectname). */
  name16(at: number): string {
    return cString(this.bytes, at, at + 16).text;
  }

  /** Adds an offset to an address, wrapping like the 32- or 64-bit address space. */
  offsetAddress(base: bigint, offset: number | bigint): bigint {
    const sum = base + (typeof offset === "bigint" ? offset : BigInt(offset));
    return BigInt.asUintN(this.is64 ? 64 : 32, sum);
  }

  parse(): MachOSlice {
    const bytes = this.bytes;
    const length = this.length;
    const unit = this.unit;
    if (length === 0) {
      throw new MachOParseError(`Cannot parse Mach-O header: ${unit} is empty`, this.base);
    }
    if (length < 4) {
      throw new MachOParseError(
        `Cannot parse Mach-O header: ${unit} is ${length} bytes, needs at least 4 for the magic ` +
          `number`,
        this.base,
      );
    }
    const magic = readU32BE(bytes, 0);
    // Read big-endian: MH_MAGIC(_64) is a big-endian file, MH_CIGAM(_64) a little-endian one.
    if (magic === MH_MAGIC || magic === MH_MAGIC_64) {
      this.le = false;
      this.is64 = magic === MH_MAGIC_64;
    } else if (magic === MH_CIGAM || magic === MH_CIGAM_64) {
      this.le = true;
      this.is64 = magic === MH_CIGAM_64;
    } else {
      const seen = Array.from(bytes.subarray(0, 4), hex2).join(" ");
      throw new MachOParseError(
        `Cannot parse Mach-O header: bad magic number ${seen}, expected feedface or feedfacf ` +
          `(in either byte order)` + (unit === "file" ? " or a universal cafebabe / cafebabf" : ""),
        this.base,
      );
    }
    const headerSize = this.is64 ? 32 : 28;
    if (length < headerSize) {
      throw new MachOParseError(
        `Cannot parse Mach-O header: ${unit} is ${length} bytes, needs at least ${headerSize} for ` +
          `a ${this.is64 ? 64 : 32}-bit header`,
        this.base,
      );
    }
    this.cputype = this.u32(4);
    const cpusubtype = this.u32(8);
    const filetype = this.u32(12);
    const ncmds = this.u32(16);
    const sizeofcmds = this.u32(20);
    const flags = this.u32(24);
    if (headerSize + sizeofcmds > length) {
      throw new MachOParseError(
        `Cannot parse Mach-O load commands: sizeofcmds ${hex(sizeofcmds)} runs past the end of ` +
          `the ${length}-byte ${unit}`,
        this.base + 20,
      );
    }
    if (ncmds * 8 > sizeofcmds) {
      throw new MachOParseError(
        `Cannot parse Mach-O load commands: ncmds ${ncmds} (${hex(ncmds)}) needs at least ` +
          `${ncmds * 8} bytes (8 per command) but sizeofcmds is ${sizeofcmds}`,
        this.base + 16,
      );
    }
    this.readLoadCommands(headerSize, ncmds, sizeofcmds);

    const twoLevel = (flags & MH_TWOLEVEL) !== 0 && filetype !== MH_OBJECT;
    const symbols = this.readSymbols(twoLevel);
    const imports = this.findImports(symbols);
    const textBase = this.textBase();
    const functionStarts = this.readFunctionStarts(textBase);
    const exports = this.readExports();
    const entry = this.findEntry();
    if (this.dropped > 0) this.warnings.push(`${this.dropped} more warnings were omitted`);
    return {
      cputype: this.cputype,
      cpusubtype,
      cpuName: cpuName(this.cputype, cpusubtype),
      architecture: architectureOf(this.cputype),
      machine: machineName(this.cputype),
      bits: this.is64 ? 64 : 32,
      endianness: this.le ? "little" : "big",
      filetype,
      fileType: FILE_TYPES[filetype] ?? "unknown",
      flags,
      flagNames: flagNames(flags),
      offset: this.base,
      size: length,
      ncmds,
      sizeofcmds,
      loadCommands: this.loadCommands,
      segments: this.segments,
      sections: this.sections,
      symtab: this.symtab,
      dysymtab: this.dysymtab,
      symbols,
      functionStartsData: this.functionStartsData,
      functionStarts,
      dyldInfo: this.dyldInfo,
      exportsTrieData: this.exportsTrieData,
      exports,
      entry: entry.address,
      entryCommand: entry.command,
      mainEntryOffset: this.mainEntryOffset,
      dylibs: this.dylibs,
      idDylib: this.idDylib,
      dylinker: this.dylinker,
      rpaths: this.rpaths,
      uuid: this.uuid,
      platforms: this.platforms,
      imports,
      warnings: this.warnings,
    };
  }

  // ----- Load commands

  readLoadCommands(headerSize: number, ncmds: number, sizeofcmds: number): void {
    const end = headerSize + sizeofcmds;
    let o = headerSize;
    for (let i = 0; i < ncmds; i++) {
      const left = ncmds - i;
      if (o + 8 > end) {
        this.warn(
          `Load command ${i} at offset ${hex(this.base + o)} does not fit in the ` +
            `${sizeofcmds}-byte load command area; ${plural(left, "command")} not read`,
        );
        return;
      }
      const cmd = this.u32(o);
      const size = this.u32(o + 4);
      const name = LOAD_COMMAND_NAMES.get(cmd) ?? hex(cmd);
      if (size < 8) {
        this.warn(
          `Load command ${i} (${name}) at offset ${hex(this.base + o)} has cmdsize ${size}, ` +
            `less than 8; ${plural(left, "command")} not read`,
        );
        return;
      }
      if (o + size > end) {
        this.warn(
          `Load command ${i} (${name}) at offset ${hex(this.base + o)} has cmdsize ${size}, ` +
            `which runs past the end of the ${sizeofcmds}-byte load command area; ` +
            `${plural(left, "command")} not read`,
        );
        return;
      }
      this.loadCommands.push({ index: i, cmd, name, size, offset: o });
      this.decodeCommand(i, cmd, name, o, size);
      o += size;
    }
  }

  /** Whether a command of `size` bytes holds a `need`-byte structure; warns when not. */
  fits(index: number, name: string, size: number, need: number): boolean {
    if (size >= need) return true;
    this.warn(
      `Load command ${index} (${name}) has cmdsize ${size}, less than its ${need}-byte ` +
        `structure; ignoring it`,
    );
    return false;
  }

  /** Whether this is the first command of its kind; warns about later ones. */
  first(index: number, name: string, already: boolean): boolean {
    if (!already) return true;
    this.warn(`Load command ${index} is a second ${name}; ignoring it`);
    return false;
  }

  decodeCommand(index: number, cmd: number, name: string, o: number, size: number): void {
    switch (cmd) {
      case LC_SEGMENT:
      case LC_SEGMENT_64:
        this.readSegment(index, cmd === LC_SEGMENT_64, name, o, size);
        return;
      case LC_SYMTAB:
        if (!this.fits(index, name, size, 24) || !this.first(index, name, this.symtab !== null)) {
          return;
        }
        this.symtab = {
          symbolOffset: this.u32(o + 8),
          symbolCount: this.u32(o + 12),
          stringOffset: this.u32(o + 16),
          stringSize: this.u32(o + 20),
        };
        return;
      case LC_DYSYMTAB:
        if (!this.fits(index, name, size, 80) || !this.first(index, name, this.dysymtab !== null)) {
          return;
        }
        this.dysymtab = {
          localFirst: this.u32(o + 8),
          localCount: this.u32(o + 12),
          externalFirst: this.u32(o + 16),
          externalCount: this.u32(o + 20),
          undefinedFirst: this.u32(o + 24),
          undefinedCount: this.u32(o + 28),
          indirectSymbolOffset: this.u32(o + 56),
          indirectSymbolCount: this.u32(o + 60),
        };
        return;
      case LC_FUNCTION_STARTS:
        if (
          !this.fits(index, name, size, 16) ||
          !this.first(index, name, this.functionStartsData !== null)
        ) return;
        this.functionStartsData = { offset: this.u32(o + 8), size: this.u32(o + 12) };
        return;
      case LC_DYLD_EXPORTS_TRIE:
        if (
          !this.fits(index, name, size, 16) ||
          !this.first(index, name, this.exportsTrieData !== null)
        ) return;
        this.exportsTrieData = { offset: this.u32(o + 8), size: this.u32(o + 12) };
        return;
      case LC_DYLD_INFO:
      case LC_DYLD_INFO_ONLY:
        if (!this.fits(index, name, size, 48) || !this.first(index, name, this.dyldInfo !== null)) {
          return;
        }
        this.dyldInfo = {
          command: name,
          rebaseOffset: this.u32(o + 8),
          rebaseSize: this.u32(o + 12),
          bindOffset: this.u32(o + 16),
          bindSize: this.u32(o + 20),
          weakBindOffset: this.u32(o + 24),
          weakBindSize: this.u32(o + 28),
          lazyBindOffset: this.u32(o + 32),
          lazyBindSize: this.u32(o + 36),
          exportOffset: this.u32(o + 40),
          exportSize: this.u32(o + 44),
        };
        return;
      case LC_MAIN:
        if (
          !this.fits(index, name, size, 24) ||
          !this.first(index, name, this.mainEntryOffset !== null)
        ) return;
        this.mainEntryOffset = this.u64(o + 8);
        return;
      case LC_UNIXTHREAD:
        if (!this.fits(index, name, size, 16)) return;
        if (!this.first(index, name, this.threadEntry !== null)) return;
        this.threadEntry = this.readThreadPc(index, o, size);
        return;
      case LC_LOAD_DYLIB:
      case LC_LOAD_WEAK_DYLIB:
      case LC_REEXPORT_DYLIB:
      case LC_LAZY_LOAD_DYLIB:
      case LC_LOAD_UPWARD_DYLIB: {
        // Ordinals count every dependent-dylib command, so keep even a damaged one.
        const dylib = this.readDylib(index, name, o, size);
        this.dylibs.push(
          dylib ?? {
            command: name,
            name: "",
            timestamp: 0,
            currentVersion: "0.0.0",
            compatibilityVersion: "0.0.0",
          },
        );
        return;
      }
      case LC_ID_DYLIB:
        if (!this.first(index, name, this.idDylib !== null)) return;
        this.idDylib = this.readDylib(index, name, o, size);
        return;
      case LC_LOAD_DYLINKER:
        if (!this.fits(index, name, size, 12)) return;
        this.dylinker = this.lcString(index, name, o, size, 12);
        return;
      case LC_RPATH:
        if (!this.fits(index, name, size, 12)) return;
        this.rpaths.push(this.lcString(index, name, o, size, 12));
        return;
      case LC_UUID: {
        if (!this.fits(index, name, size, 24) || !this.first(index, name, this.uuid !== null)) {
          return;
        }
        const h = Array.from(this.bytes.subarray(o + 8, o + 24), hex2).join("").toUpperCase();
        this.uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-` +
          h.slice(20);
        return;
      }
      case LC_BUILD_VERSION: {
        if (!this.fits(index, name, size, 24)) return;
        const platform = this.u32(o + 8);
        this.platforms.push({
          command: name,
          platform,
          platformName: PLATFORM_NAMES[platform] ?? `platform-${platform}`,
          minimumVersion: osVersion(this.u32(o + 12)),
          sdk: osVersion(this.u32(o + 16)),
        });
        return;
      }
      case LC_VERSION_MIN_MACOSX:
      case LC_VERSION_MIN_IPHONEOS:
      case LC_VERSION_MIN_TVOS:
      case LC_VERSION_MIN_WATCHOS: {
        if (!this.fits(index, name, size, 16)) return;
        const platform = cmd === LC_VERSION_MIN_MACOSX
          ? 1
          : cmd === LC_VERSION_MIN_IPHONEOS
          ? 2
          : cmd === LC_VERSION_MIN_TVOS
          ? 3
          : 4;
        this.platforms.push({
          command: name,
          platform,
          platformName: PLATFORM_NAMES[platform]!,
          minimumVersion: osVersion(this.u32(o + 8)),
          sdk: osVersion(this.u32(o + 12)),
        });
        return;
      }
    }
  }

  /** An `lc_str` whose offset field is at `o + 8`; `""` with a warning when it is out of range. */
  lcString(index: number, name: string, o: number, size: number, structSize: number): string {
    const at = this.u32(o + 8);
    if (at < structSize || at >= size) {
      this.warn(
        `Load command ${index} (${name}) has a name offset of ${at}, outside its ${size} bytes ` +
          `after the ${structSize}-byte structure; its name is empty`,
      );
      return "";
    }
    const { text, cut } = cString(this.bytes, o + at, o + size);
    if (cut) this.warn(`The name in load command ${index} (${name}) is not NUL-terminated`);
    return text;
  }

  readDylib(index: number, name: string, o: number, size: number): MachODylib | null {
    if (!this.fits(index, name, size, 24)) return null;
    return {
      command: name,
      name: this.lcString(index, name, o, size, 24),
      timestamp: this.u32(o + 12),
      currentVersion: dylibVersion(this.u32(o + 16)),
      compatibilityVersion: dylibVersion(this.u32(o + 20)),
    };
  }

  readSegment(index: number, is64: boolean, name: string, o: number, size: number): void {
    const structSize = is64 ? 72 : 56;
    const sectionSize = is64 ? 80 : 68;
    if (!this.fits(index, name, size, structSize)) return;
    const segment: MachOSegment = {
      command: index,
      name: this.name16(o + 8),
      address: is64 ? this.u64(o + 24) : BigInt(this.u32(o + 24)),
      vmSize: is64 ? this.u64(o + 32) : BigInt(this.u32(o + 28)),
      fileOffset: is64 ? this.u64n(o + 40) : this.u32(o + 32),
      fileSize: is64 ? this.u64n(o + 48) : this.u32(o + 36),
      maxProtection: this.u32(o + (is64 ? 56 : 40)),
      initialProtection: this.u32(o + (is64 ? 60 : 44)),
      flags: this.u32(o + (is64 ? 68 : 52)),
      sections: [],
    };
    let nsects = this.u32(o + (is64 ? 64 : 48));
    const fit = Math.floor((size - structSize) / sectionSize);
    if (nsects > fit) {
      this.warn(
        `Segment ${segment.name || "(unnamed)"} (load command ${index}) has nsects ${nsects} ` +
          `but its cmdsize ${size} holds only ${fit}; reading ${fit}`,
      );
      nsects = fit;
    }
    if (segment.fileSize > 0 && segment.fileOffset + segment.fileSize > this.length) {
      this.warn(
        `Segment ${segment.name || "(unnamed)"} (${segment.fileSize} bytes at offset ` +
          `${hex(segment.fileOffset)}) runs past the end of the ${this.length}-byte ${this.unit}`,
      );
    }
    for (let k = 0; k < nsects; k++) {
      const s = o + structSize + k * sectionSize;
      const flags = this.u32(s + (is64 ? 64 : 56));
      const section: MachOSection = {
        ordinal: this.sections.length + 1,
        name: this.name16(s),
        segmentName: this.name16(s + 16),
        address: is64 ? this.u64(s + 32) : BigInt(this.u32(s + 32)),
        size: is64 ? this.u64(s + 40) : BigInt(this.u32(s + 36)),
        offset: this.u32(s + (is64 ? 48 : 40)),
        align: this.u32(s + (is64 ? 52 : 44)),
        relocationOffset: this.u32(s + (is64 ? 56 : 48)),
        relocationCount: this.u32(s + (is64 ? 60 : 52)),
        flags,
        type: flags & SECTION_TYPE,
        reserved1: this.u32(s + (is64 ? 68 : 60)),
        reserved2: this.u32(s + (is64 ? 72 : 64)),
        instructions: (flags & (S_ATTR_PURE_INSTRUCTIONS | S_ATTR_SOME_INSTRUCTIONS)) !== 0,
      };
      segment.sections.push(section);
      this.sections.push(section);
    }
    this.segments.push(segment);
  }

  /** The program counter of the first thread state in an LC_UNIXTHREAD this reader knows. */
  readThreadPc(index: number, o: number, size: number): bigint | null {
    const end = o + size;
    let at = o + 8;
    while (at + 8 <= end) {
      let flavor = this.u32(at);
      const count = this.u32(at + 4);
      let state = at + 8;
      const stateEnd = state + count * 4;
      if (stateEnd > end) {
        this.warn(
          `LC_UNIXTHREAD (load command ${index}) has a thread state of ${count} words that runs ` +
            `past its cmdsize ${size}; no entry point from it`,
        );
        return null;
      }
      // x86_THREAD_STATE (7) wraps a flavor/count header around the real state.
      if (
        flavor === 7 && (this.cputype === CPU_TYPE_X86 || this.cputype === CPU_TYPE_X86_64) &&
        count >= 2
      ) {
        flavor = this.u32(state);
        state += 8;
      }
      const pc = this.threadPc(flavor, state, stateEnd);
      if (pc !== null) return pc;
      at = stateEnd;
    }
    this.warn(
      `LC_UNIXTHREAD (load command ${index}) has no thread state with a program counter this ` +
        `reader knows for ${cpuName(this.cputype, 0)}`,
    );
    return null;
  }

  threadPc(flavor: number, state: number, stateEnd: number): bigint | null {
    const at = (offset: number, width: 4 | 8): bigint | null => {
      if (state + offset + width > stateEnd) return null;
      return width === 8 ? this.u64(state + offset) : BigInt(this.u32(state + offset));
    };
    switch (this.cputype) {
      case CPU_TYPE_X86_64:
        return flavor === 4 ? at(16 * 8, 8) : null; // x86_THREAD_STATE64: rip
      case CPU_TYPE_X86:
        return flavor === 1 ? at(10 * 4, 4) : null; // x86_THREAD_STATE32: eip
      case CPU_TYPE_ARM64:
      case CPU_TYPE_ARM64_32:
        return flavor === 6 ? at(32 * 8, 8) : null; // ARM_THREAD_STATE64: pc
      case CPU_TYPE_ARM:
        return flavor === 1 ? at(15 * 4, 4) : null; // ARM_THREAD_STATE: r15
      case CPU_TYPE_POWERPC:
        return flavor === 1 ? at(0, 4) : null; // PPC_THREAD_STATE: srr0
      case CPU_TYPE_POWERPC64:
        return flavor === 5 ? at(0, 8) : null; // PPC_THREAD_STATE64: srr0
      default:
        return null;
    }
  }

  // ----- Linkedit tables

  /**
   * The part of `[offset, offset + size)` inside the slice, with a warning
   * when it is not all there; null when none of it is.
   */
  fitData(what: string, offset: number, size: number): { start: number; end: number } | null {
    if (size === 0) return null;
    if (offset >= this.length) {
      this.warn(
        `Cannot read ${what}: it starts at offset ${hex(offset)}, past the end of the ` +
          `${this.length}-byte ${this.unit}`,
      );
      return null;
    }
    let end = offset + size;
    if (end > this.length) {
      this.warn(
        `${what} (${size} bytes at offset ${hex(offset)}) runs past the end of the ` +
          `${this.length}-byte ${this.unit}; reading the ${this.length - offset} bytes that fit`,
      );
      end = this.length;
    }
    return { start: offset, end };
  }

  readSymbols(twoLevel: boolean): MachOSymbol[] {
    const symtab = this.symtab;
    const symbols: MachOSymbol[] = [];
    if (symtab === null) return symbols;
    const stride = this.is64 ? 16 : 12;
    let count = symtab.symbolCount;
    if (count === 0) return symbols;
    const area = this.fitData("the symbol table", symtab.symbolOffset, count * stride);
    if (area === null) return symbols;
    const fit = Math.floor((area.end - area.start) / stride);
    if (fit < count) {
      this.warn(`Reading ${fit} of the ${count} nlist entries of the symbol table`);
      count = fit;
    }
    if (count > this.maxSymbols) {
      this.warn(
        `The symbol table has ${count} entries, more than the maxSymbols limit of ` +
          `${this.maxSymbols}; reading the first ${this.maxSymbols}`,
      );
      count = this.maxSymbols;
    }
    let strings = this.fitData("the string table", symtab.stringOffset, symtab.stringSize);
    if (strings === null && symtab.stringSize === 0 && count > 0) {
      strings = { start: symtab.stringOffset, end: symtab.stringOffset };
    }
    const stringStart = strings?.start ?? 0;
    const stringEnd = strings?.end ?? 0;
    const stringSize = stringEnd - stringStart;
    const bytes = this.bytes;
    const sections = this.sections;
    const dylibCount = this.dylibs.length;
    let badNames = 0;
    let cutNames = 0;
    let badSections = 0;
    let badOrdinals = 0;
    for (let i = 0, o = area.start; i < count; i++, o += stride) {
      const type = bytes[o + 4]!;
      if ((type & N_STAB) !== 0) continue;
      const strx = this.u32(o);
      let name = "";
      if (strx !== 0) {
        if (strx >= stringSize) badNames++;
        else {
          const read = cString(bytes, stringStart + strx, stringEnd);
          name = read.text;
          if (read.cut) cutNames++;
        }
      }
      const sectionOrdinal = bytes[o + 5]!;
      const desc = this.u16(o + 6);
      const value = this.is64 ? this.u64(o + 8) : BigInt(this.u32(o + 8));
      const nType = type & N_TYPE;
      let kind: MachOSymbolKind;
      switch (nType) {
        case N_UNDF:
          kind = value !== 0n && (type & N_EXT) !== 0 ? "common" : "undefined";
          break;
        case N_ABS:
          kind = "absolute";
          break;
        case N_SECT:
          kind = "section";
          break;
        case N_PBUD:
          kind = "prebound-undefined";
          break;
        case N_INDR:
          kind = "indirect";
          break;
        default:
          kind = "unknown";
      }
      let section: string | null = null;
      if (kind === "section") {
        const s = sections[sectionOrdinal - 1];
        if (s === undefined) badSections++;
        else section = `${s.segmentName},${s.name}`;
      }
      let libraryOrdinal: number | null = null;
      if (twoLevel && (kind === "undefined" || kind === "prebound-undefined")) {
        libraryOrdinal = (desc >> 8) & 0xff;
        if (libraryOrdinal > dylibCount && libraryOrdinal < 0xfe) badOrdinals++;
      }
      symbols.push({
        index: i,
        name,
        type,
        kind,
        external: (type & N_EXT) !== 0,
        privateExternal: (type & N_PEXT) !== 0,
        sectionOrdinal,
        section,
        desc,
        value,
        libraryOrdinal,
      });
    }
    if (badNames > 0) {
      this.warn(
        `${plural(badNames, "symbol")} ${badNames === 1 ? "has a" : "have"} name ` +
          `offset${badNames === 1 ? "" : "s"} past the end of the ${stringSize}-byte string ` +
          `table; ${badNames === 1 ? "its name is" : "their names are"} empty`,
      );
    }
    if (cutNames > 0) {
      this.warn(
        `${plural(cutNames, "symbol name")} ${cutNames === 1 ? "runs" : "run"} to the end of ` +
          `the string table or past ${MAX_NAME_BYTES} bytes without a NUL; cut`,
      );
    }
    if (badSections > 0) {
      this.warn(
        `${plural(badSections, "N_SECT symbol")} name${badSections === 1 ? "s" : ""} a section ` +
          `ordinal outside 1..${sections.length}`,
      );
    }
    if (badOrdinals > 0) {
      this.warn(
        `${plural(badOrdinals, "undefined symbol")} name${badOrdinals === 1 ? "s" : ""} a ` +
          `library ordinal past the ${plural(dylibCount, "dependent dylib")}`,
      );
    }
    return symbols;
  }

  /** Undefined external symbols, with the stub and pointer the indirect symbol table gives them. */
  findImports(symbols: MachOSymbol[]): MachOImport[] {
    const imports: MachOImport[] = [];
    const byIndex = new Map<number, MachOImport>();
    for (const s of symbols) {
      if (!s.external || (s.kind !== "undefined" && s.kind !== "prebound-undefined")) continue;
      const ordinal = s.libraryOrdinal;
      const library = ordinal !== null && ordinal >= 1 && ordinal <= this.dylibs.length
        ? this.dylibs[ordinal - 1]!.name
        : null;
      const entry: MachOImport = {
        symbol: s.index,
        name: s.name,
        ordinal,
        library,
        weak: (s.desc & N_WEAK_REF) !== 0,
        stub: null,
        pointer: null,
      };
      imports.push(entry);
      byIndex.set(s.index, entry);
    }
    const dysymtab = this.dysymtab;
    if (dysymtab === null || dysymtab.indirectSymbolCount === 0) return imports;
    const area = this.fitData(
      "the indirect symbol table",
      dysymtab.indirectSymbolOffset,
      dysymtab.indirectSymbolCount * 4,
    );
    if (area === null) return imports;
    const indirectCount = Math.floor((area.end - area.start) / 4);
    // In a sound file each entry belongs to one section; this bounds damaged ones.
    let budget = indirectCount + 65536;
    const pointerSize = this.is64 ? 8 : 4;
    let outside = 0;
    for (const section of this.sections) {
      const type = section.type;
      let stride: number;
      if (type === S_SYMBOL_STUBS) {
        stride = section.reserved2;
        if (stride === 0) {
          this.warn(
            `Stub section ${section.segmentName},${section.name} has a stub size (reserved2) of ` +
              `0; its stubs are not matched to imports`,
          );
          continue;
        }
      } else if (
        type === S_NON_LAZY_SYMBOL_POINTERS || type === S_LAZY_SYMBOL_POINTERS ||
        type === S_LAZY_DYLIB_SYMBOL_POINTERS
      ) {
        stride = pointerSize;
      } else continue;
      const entries = section.size / BigInt(stride);
      const first = section.reserved1;
      for (let k = 0n; k < entries; k++) {
        const slot = first + Number(k);
        if (slot >= indirectCount) {
          outside++;
          break;
        }
        if (budget-- <= 0) {
          this.warn(
            "The symbol stub and pointer sections refer to the indirect symbol table more than " +
              "its size allows; the rest are not matched to imports",
          );
          return imports;
        }
        const index = this.u32(area.start + slot * 4);
        if ((index & (INDIRECT_SYMBOL_LOCAL | INDIRECT_SYMBOL_ABS)) !== 0) continue;
        const entry = byIndex.get(index);
        if (entry === undefined) continue;
        const address = this.offsetAddress(section.address, k * BigInt(stride));
        if (type === S_SYMBOL_STUBS) entry.stub ??= address;
        else entry.pointer ??= address;
      }
    }
    if (outside > 0) {
      this.warn(
        `${plural(outside, "stub or pointer section")} ${outside === 1 ? "runs" : "run"} past ` +
          `the end of the ${indirectCount}-entry indirect symbol table`,
      );
    }
    return imports;
  }

  /** The address LC_FUNCTION_STARTS counts from: the __TEXT segment, else the image base. */
  textBase(): bigint {
    const text = this.segments.find((s) => s.name === "__TEXT");
    return text?.address ?? this.imageBase();
  }

  /** The address of the mach header: the segment that maps file offset 0 with bytes. */
  imageBase(): bigint {
    const first = this.segments.find((s) => s.fileOffset === 0 && s.fileSize !== 0);
    return first?.address ?? 0n;
  }

  readFunctionStarts(textBase: bigint): bigint[] {
    const starts: bigint[] = [];
    const data = this.functionStartsData;
    if (data === null) return starts;
    const area = this.fitData("LC_FUNCTION_STARTS data", data.offset, data.size);
    if (area === null) return starts;
    const bytes = this.bytes;
    let address = textBase;
    let pos = area.start;
    while (pos < area.end) {
      if (bytes[pos] === 0) break; // the terminator (and any padding after it)
      const delta = readUleb(bytes, pos, area.end);
      if (delta < 0) {
        this.warn(
          `LC_FUNCTION_STARTS has a malformed ULEB128 at offset ${hex(this.base + pos)}; ` +
            `keeping the ${plural(starts.length, "start")} before it`,
        );
        break;
      }
      pos = uleb.next;
      address = this.offsetAddress(address, Number.isNaN(delta) ? uleb.big : delta);
      starts.push(address);
    }
    return starts;
  }

  readExports(): MachOExport[] {
    const exports: MachOExport[] = [];
    let data: MachOLinkeditData | null = this.exportsTrieData;
    let what = "the LC_DYLD_EXPORTS_TRIE exports trie";
    if (data === null && this.dyldInfo !== null) {
      data = { offset: this.dyldInfo.exportOffset, size: this.dyldInfo.exportSize };
      what = `the ${this.dyldInfo.command} exports trie`;
    }
    if (data === null) return exports;
    const area = this.fitData(what, data.offset, data.size);
    if (area === null) return exports;
    const bytes = this.bytes;
    const start = area.start;
    const end = area.end;
    const base = this.imageBase();
    const visited = new Set<number>();
    const stack: { node: number; prefix: string; depth: number }[] = [
      { node: 0, prefix: "", depth: 0 },
    ];
    let revisits = 0;
    let tooDeep = 0;
    let problems = 0;
    const problem = (message: string): void => {
      if (problems++ < 5) this.warn(`In ${what}: ${message}`);
    };
    while (stack.length > 0) {
      const { node, prefix, depth } = stack.pop()!;
      if (visited.has(node)) {
        revisits++;
        continue;
      }
      visited.add(node);
      let pos = start + node;
      const terminalSize = readUleb(bytes, pos, end);
      if (terminalSize < 0 || Number.isNaN(terminalSize)) {
        problem(`the node at offset ${hex(node)} has a malformed terminal size`);
        continue;
      }
      pos = uleb.next;
      const childrenAt = pos + terminalSize;
      if (childrenAt >= end) {
        problem(`the node at offset ${hex(node)} runs past the end of the trie`);
        continue;
      }
      if (terminalSize > 0) {
        const entry = this.readTerminal(bytes, pos, childrenAt, prefix, base);
        if (typeof entry === "string") {
          problem(`the export ${prefix} at node ${hex(node)} ${entry}`);
        } else exports.push(entry);
      }
      pos = childrenAt;
      const childCount = bytes[pos++]!;
      const children: { node: number; prefix: string; depth: number }[] = [];
      for (let c = 0; c < childCount; c++) {
        const label = cString(bytes, pos, end);
        if (label.cut) {
          problem(`an edge of the node at offset ${hex(node)} has no NUL-terminated label`);
          break;
        }
        pos = label.stop + 1;
        const child = readUleb(bytes, pos, end);
        if (child < 0 || Number.isNaN(child)) {
          problem(`an edge of the node at offset ${hex(node)} has a malformed child offset`);
          break;
        }
        pos = uleb.next;
        if (child >= end - start) {
          problem(
            `the edge "${label.text}" of the node at offset ${hex(node)} points to offset ` +
              `${hex(child)}, past the end of the ${end - start}-byte trie`,
          );
          continue;
        }
        if (depth + 1 > MAX_TRIE_DEPTH) {
          tooDeep++;
          continue;
        }
        const name = prefix + label.text;
        if (name.length > MAX_NAME_BYTES) {
          problem(`a name under the node at offset ${hex(node)} is longer than ${MAX_NAME_BYTES}`);
          continue;
        }
        children.push({ node: child, prefix: name, depth: depth + 1 });
      }
      for (let c = children.length - 1; c >= 0; c--) stack.push(children[c]!);
    }
    if (problems > 5) this.warn(`In ${what}: ${problems - 5} more problems were not listed`);
    if (revisits > 0) {
      this.warn(
        `${what} reaches ${plural(revisits, "node")} a second time (a cycle or a shared node); ` +
          `${revisits === 1 ? "it was" : "they were"} read once`,
      );
    }
    if (tooDeep > 0) {
      this.warn(
        `${what} is deeper than ${MAX_TRIE_DEPTH} edges; ${
          plural(tooDeep, "deeper branch", "deeper branches")
        } not read`,
      );
    }
    return exports;
  }

  /** The export whose terminal information is at `[pos, end)`, or a problem description. */
  readTerminal(
    bytes: Uint8Array,
    pos: number,
    end: number,
    name: string,
    base: bigint,
  ): MachOExport | string {
    const flags = readUleb(bytes, pos, end);
    if (flags < 0 || Number.isNaN(flags)) return "has malformed flags";
    pos = uleb.next;
    const kindBits = flags % 4;
    const entry: MachOExport = {
      name,
      flags,
      kind: EXPORT_KINDS[kindBits]!,
      weak: (flags & EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION) !== 0,
      address: null,
      reexport: null,
      resolver: null,
    };
    if ((flags & EXPORT_SYMBOL_FLAGS_REEXPORT) !== 0) {
      const ordinal = readUleb(bytes, pos, end);
      if (ordinal < 0 || Number.isNaN(ordinal)) return "has a malformed re-export ordinal";
      pos = uleb.next;
      const imported = cString(bytes, pos, end);
      if (imported.cut) return "has a re-export name without a NUL";
      const dylib = ordinal >= 1 ? this.dylibs[ordinal - 1] : undefined;
      entry.reexport = {
        ordinal,
        library: dylib?.name ?? null,
        name: imported.text === "" ? name : imported.text,
      };
      return entry;
    }
    const offset = readUleb(bytes, pos, end);
    if (offset < 0) return "has a malformed address";
    pos = uleb.next;
    const value = Number.isNaN(offset) ? uleb.big : BigInt(offset);
    entry.address = (flags & EXPORT_SYMBOL_FLAGS_KIND_MASK) === EXPORT_SYMBOL_FLAGS_KIND_ABSOLUTE
      ? value
      : this.offsetAddress(base, value);
    if ((flags & EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER) !== 0) {
      const resolver = readUleb(bytes, pos, end);
      if (resolver < 0) return "has a malformed resolver offset";
      entry.resolver = this.offsetAddress(base, Number.isNaN(resolver) ? uleb.big : resolver);
    }
    return entry;
  }

  /** The entry point: LC_MAIN's `entryoff` mapped through the segments, else LC_UNIXTHREAD's pc. */
  findEntry(): { address: bigint | null; command: MachOSlice["entryCommand"] } {
    const entryoff = this.mainEntryOffset;
    if (entryoff !== null) {
      for (const s of this.segments) {
        if (s.fileSize === 0) continue;
        const start = BigInt(s.fileOffset);
        if (entryoff >= start && entryoff < start + BigInt(s.fileSize)) {
          return { address: this.offsetAddress(s.address, entryoff - start), command: "LC_MAIN" };
        }
      }
      this.warn(
        `LC_MAIN entryoff ${hex(entryoff)} is not inside the file bytes of any segment; no entry ` +
          `point`,
      );
      return { address: null, command: null };
    }
    if (this.threadEntry !== null) return { address: this.threadEntry, command: "LC_UNIXTHREAD" };
    return { address: null, command: null };
  }
}

// ---------------------------------------------------------------------------
// BinaryImage

const SOURCE_RANK: Readonly<Partial<Record<FunctionSource, number>>> = {
  symtab: 0,
  export: 1,
  entry: 2,
  "function-starts": 3,
};

interface Candidate {
  address: bigint;
  source: FunctionSource;
  name: string;
  /** 0 external symbol, 1 export, 2 local symbol, 3 unnamed. */
  nameRank: number;
  names: Set<string>;
}

function sliceImage(
  slice: MachOSlice,
  bytes: Uint8Array,
  document: string,
  universalWarnings: string[],
): BinaryImage {
  const thumb = slice.cputype === CPU_TYPE_ARM;
  const clear = (a: bigint): bigint => (thumb ? a & ~1n : a);
  const sections: ImageSection[] = [];
  /** Executable sections that hold instructions, for classifying symbols and exports. */
  const code: { start: bigint; end: bigint }[] = [];
  /** Ranges of those sections by section ordinal. */
  const codeOrdinals = new Map<number, { start: bigint; end: bigint }>();
  for (const segment of slice.segments) {
    const prot = segment.initialProtection;
    const flags = {
      readable: (prot & VM_PROT_READ) !== 0,
      writable: (prot & VM_PROT_WRITE) !== 0,
      executable: (prot & VM_PROT_EXECUTE) !== 0,
    };
    if (segment.sections.length === 0) {
      const inFile = segment.fileSize > 0 && segment.fileOffset < bytes.length;
      sections.push({
        name: segment.name,
        address: segment.address,
        size: segment.vmSize,
        fileOffset: inFile ? segment.fileOffset : null,
        fileSize: inFile ? Math.min(segment.fileSize, bytes.length - segment.fileOffset) : 0,
        ...flags,
      });
      continue;
    }
    for (const s of segment.sections) {
      const zeroFill = s.type === S_ZEROFILL || s.type === S_GB_ZEROFILL ||
        s.type === S_THREAD_LOCAL_ZEROFILL;
      const inFile = !zeroFill && s.size > 0n && s.offset < bytes.length;
      const fileSize = inFile ? Math.min(Number(s.size), bytes.length - s.offset) : 0;
      sections.push({
        name: `${s.segmentName},${s.name}`,
        address: s.address,
        size: s.size,
        fileOffset: inFile ? s.offset : null,
        fileSize,
        ...flags,
      });
      if (flags.executable && s.instructions) {
        const range = { start: s.address, end: s.address + s.size };
        code.push(range);
        codeOrdinals.set(s.ordinal, range);
      }
    }
  }
  const inCode = (a: bigint): boolean => code.some((c) => a >= c.start && a < c.end);

  const candidates = new Map<bigint, Candidate>();
  const add = (address: bigint, source: FunctionSource, name: string, nameRank: number): void => {
    const existing = candidates.get(address);
    if (existing === undefined) {
      candidates.set(address, {
        address,
        source,
        name,
        nameRank: name === "" ? 3 : nameRank,
        names: new Set(name === "" ? [] : [name]),
      });
      return;
    }
    if (SOURCE_RANK[source]! < SOURCE_RANK[existing.source]!) existing.source = source;
    if (name === "") return;
    existing.names.add(name);
    const current = existing.name;
    if (
      nameRank < existing.nameRank ||
      (nameRank === existing.nameRank &&
        (name.length < current.length || (name.length === current.length && name < current)))
    ) {
      existing.name = name;
      existing.nameRank = nameRank;
    }
  };
  for (const s of slice.symbols) {
    if (s.kind !== "section") continue;
    const range = codeOrdinals.get(s.sectionOrdinal);
    // A symbol outside its own section's bytes (__mh_execute_header) is no function.
    if (range === undefined || s.value < range.start || s.value >= range.end) continue;
    add(clear(s.value), "symtab", s.name, s.external ? 0 : 2);
  }
  for (const e of slice.exports) {
    if (e.address === null || e.kind === "absolute" || e.kind === "thread-local") continue;
    if (!inCode(e.address)) continue;
    add(clear(e.address), "export", e.name, 1);
  }
  if (slice.entry !== null) add(clear(slice.entry), "entry", "", 3);
  for (const a of slice.functionStarts) add(clear(a), "function-starts", "", 3);

  const functions: ImageFunction[] = [...candidates.values()]
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))
    .map((c) => ({
      address: c.address,
      size: 0n,
      name: c.name,
      names: [...c.names].sort(),
      source: c.source,
    }));

  const imports: ImageImport[] = slice.imports.map((i) => ({
    library: i.library,
    name: i.name,
    address: i.stub ?? i.pointer,
  }));
  const exports: ImageExport[] = slice.exports.map((e) => {
    if (e.reexport === null) return { name: e.name, address: e.address };
    return {
      name: e.name,
      address: null,
      forwardedTo: `${e.reexport.library ?? `#${e.reexport.ordinal}`}.${e.reexport.name}`,
    };
  });
  return {
    format: "mach-o",
    document,
    architecture: slice.architecture,
    machine: slice.machine,
    bits: slice.bits,
    endianness: slice.endianness,
    entry: slice.entry === null ? null : clear(slice.entry),
    sections,
    functions,
    imports,
    exports,
    libraries: slice.dylibs.map((d) => d.name),
    buildId: slice.uuid === null ? null : slice.uuid.replaceAll("-", "").toLowerCase(),
    warnings: [...universalWarnings, ...slice.warnings],
    fileBase: slice.offset,
    bytes,
  };
}
