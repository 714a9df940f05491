/**
 * What the Mach-O reader yields: {@linkcode MachOFile}, its slices and
 * their parts, and the error thrown for bytes that are not a usable Mach-O
 * file. `parse.ts` is the entry point.
 *
 * @module
 */

import type { Architecture } from "../binary_image.ts";
import { FormatParseError } from "../format_error.ts";

/** Thrown by {@linkcode parseMachO} when the bytes are not a usable Mach-O file. */
export class MachOParseError extends FormatParseError {}

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
   * A universal file: where its header and every architecture its header lists (read or not)
   * end, within the file; what follows is none of them.
   */
  extent?: number;
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
