/**
 * What the ELF reader yields: {@linkcode ElfImage} and its parts, and the
 * error thrown for bytes that are not a usable ELF image. The reading code is
 * in the other files of this folder; `parse.ts` is the entry point.
 *
 * @module
 */

import { FormatParseError } from "../format_error.ts";
import type { ElfSymbolVersions } from "./symbol_versions.ts";

/** Thrown by `parseElf` when the bytes are not a usable ELF image. */
export class ElfParseError extends FormatParseError {}

/**
 * One section header. File offsets and sizes are numbers: exact below 2^53,
 * and values that large only occur in damaged files (they are then approximate).
 */
export interface ElfSection {
  /** Position in the section header table (0 is the null section). */
  index: number;
  /** Name from the section header string table (`""` when unavailable). */
  name: string;
  /** `sh_type`. */
  type: number;
  /** Readable `sh_type`, such as `SHT_PROGBITS`, or `0x…` when unknown. */
  typeName: string;
  /** `sh_flags`. */
  flags: bigint;
  /** `sh_addr`. */
  address: bigint;
  /** `sh_offset`. */
  offset: number;
  /** `sh_size` (for SHT_NOBITS this may exceed the file size). */
  size: number;
  /** `sh_link`. */
  link: number;
  /** `sh_info`. */
  info: number;
  /** `sh_entsize`. */
  entrySize: number;
}

/** One program header (offsets and sizes are numbers, as in {@linkcode ElfSection}). */
export interface ElfSegment {
  /** `p_type`. */
  type: number;
  /** Readable `p_type`, such as `PT_LOAD`, or `0x…` when unknown. */
  typeName: string;
  /** `p_flags` (PF_X = 1, PF_W = 2, PF_R = 4). */
  flags: number;
  /** `p_offset`. */
  offset: number;
  /** `p_vaddr`. */
  virtualAddress: bigint;
  /** `p_filesz`. */
  fileSize: number;
  /** `p_memsz`. */
  memorySize: number;
}

/**
 * Where the chosen name of an {@linkcode ElfFunction} came from: the static
 * symbol table, the dynamic symbol section, the dynamic symbol table found via
 * PT_DYNAMIC (no usable section headers), or the ELF header's entry point.
 */
export type ElfSymbolSource = "symtab" | "dynsym" | "dynamic" | "entry";

/** One function start address with the symbols that name it. */
export interface ElfFunction {
  /**
   * Start address (`st_value`; for ARM, bit 0, the Thumb bit, is cleared); in
   * a relocatable file laid out ({@linkcode ParseElfOptions.layoutRelocatable}),
   * its section's layout address plus `st_value`.
   */
  address: bigint;
  /**
   * `st_size` of the symbol that gave the chosen name; when that is 0, the
   * largest `st_size` among the other symbols at this address.
   */
  size: bigint;
  /**
   * Chosen name, without any `@VERSION` / `@@VERSION` suffix; `""` for a
   * synthetic entry point that no symbol names.
   */
  name: string;
  /** Every distinct non-empty name seen at this address, sorted by code unit. */
  names: string[];
  /** Where the chosen name came from. */
  source: ElfSymbolSource;
  /** Binding of the symbol that gave the chosen name. */
  binding: "local" | "global" | "weak" | "other";
  /** STT_FUNC, STT_GNU_IFUNC, or the synthetic entry point. */
  kind: "function" | "ifunc" | "entry";
  /** ARM only: the chosen symbol's value had bit 0 set, so the code is Thumb. */
  thumb?: true;
}

/**
 * An ARM or AArch64 mapping symbol of `.symtab`: from its address up to the
 * next one in its section, the bytes are ARM (`$a`), Thumb (`$t`) or A64
 * (`$x`) instructions, or data (`$d`).
 */
export interface ElfMappingSymbol {
  /** `st_value` (in a laid-out relocatable file, plus its section's layout address). */
  address: bigint;
  /** `a`, `t`, `x` or `d`: the letter after the `$`. */
  kind: "a" | "t" | "x" | "d";
}

/** The parsed view of an ELF file. */
export interface ElfImage {
  /** ELF class. */
  bits: 32 | 64;
  /** Byte order. */
  endianness: "little" | "big";
  /** `e_type` (position-independent executables are `"shared-object"`). */
  type: "relocatable" | "executable" | "shared-object" | "core" | "unknown";
  /** `e_machine`. */
  machine: number;
  /** Readable `e_machine`, such as `"x86-64"`, or `machine-${n}` when unknown. */
  machineName: string;
  /** The architectures this project disassembles, or `null` for others. */
  architecture: "x86" | "x86_64" | "arm" | "arm64" | null;
  /** `e_entry`. */
  entry: bigint;
  /** Section headers, in table order (empty when there are none or they are unusable). */
  sections: ElfSection[];
  /**
   * For a relocatable file parsed with `layoutRelocatable`: the address given
   * to each section by index, as a linker would place the allocated sections
   * (one after another from {@linkcode RELOCATABLE_BASE}, each aligned to its
   * `sh_addralign`); null for a section that takes no address. The function
   * addresses are then these plus `st_value`. Absent otherwise.
   */
  layout?: (bigint | null)[];
  /** Program headers, in table order. */
  segments: ElfSegment[];
  /** One per distinct function start address, sorted by address ascending. */
  functions: ElfFunction[];
  /**
   * The mapping symbols of `.symtab` (32-bit ARM and AArch64 only), sorted by
   * address, one per address (the last in table order wins). Empty when there
   * are none.
   */
  mappingSymbols: ElfMappingSymbol[];
  /** Whether there is a SHT_SYMTAB section; `false` means the file is stripped. */
  hasSymtab: boolean;
  /** What the dynamic section says (empty lists and nulls when there is none). */
  dynamic: ElfDynamic;
  /** The NT_GNU_BUILD_ID note as lowercase hex, or null when there is none. */
  buildId: string | null;
  /**
   * One function start per FDE of `.eh_frame` (pc_begin and pc_range), sorted
   * by address, then size. Empty for relocatable files, whose `.eh_frame`
   * addresses are not yet relocated, and for ARM32, which unwinds through
   * `.ARM.exidx` instead. Built on first read ({@linkcode ehFrameRanges}
   * reads the same ranges without an object each).
   */
  ehFrameFunctions: ElfAddressRange[];
  /**
   * The symbols of the dynamic symbol table, in table order (without the null
   * symbol). Built on first read ({@linkcode dynamicSymbolTable} reads them
   * without an object each).
   */
  dynamicSymbols: ElfDynamicSymbol[];
  /**
   * The version each dynamic symbol carries (GNU symbol versioning), indexed as the dynamic
   * symbols are; null when the file has no `.gnu.version`.
   */
  symbolVersions: ElfSymbolVersions | null;
  /**
   * For a relocatable file parsed with `layoutRelocatable`: its static symbol
   * table (`.symtab`, without the null symbol), whose undefined symbols are
   * what it imports and which its relocations refer to (symbol `n` of a
   * relocation is entry `n - 1`). Absent otherwise.
   */
  objectSymbols?: ElfSymbolTable;
  /**
   * PLT stubs (`.plt`, `.plt.sec`, `.plt.got`) whose GOT slot is relocated,
   * for x86-64, i386, AArch64 and ARM32, sorted by address.
   */
  pltStubs: ElfPltStub[];
  /**
   * JUMP_SLOT and GLOB_DAT relocations against undefined dynamic symbols, with
   * the PLT stub that jumps through the slot when there is one; sorted by GOT
   * address.
   */
  imports: ElfImport[];
  /**
   * JUMP_SLOT and GLOB_DAT relocations against function (or untyped) dynamic
   * symbols this object defines itself, with the PLT stub that jumps through
   * the slot when there is one, and RELATIVE relocations of `.got` /
   * `.got.plt` slots to addresses in its code; sorted by GOT address. Calls
   * through such a stub or slot reach the defined function.
   */
  localBindings: ElfLocalBinding[];
  /**
   * What RELA RELATIVE relocations put in the slots of the start-up arrays (init, fini and
   * preinit), which AArch64 linkers leave 0 in the file; in relocation order.
   */
  startupTargets: bigint[];
  /** Human-readable notes about what was skipped or bounded; empty for a sound file. */
  warnings: string[];
}

/** An address range: a function start and its size in bytes. */
export interface ElfAddressRange {
  /** First address. */
  address: bigint;
  /** Size in bytes. */
  size: bigint;
}

/** One entry of the dynamic section. */
export interface ElfDynamicEntry {
  /** `d_tag` (exact below 2^53; only damaged files have larger tags). */
  tag: number;
  /** Readable tag, such as `DT_NEEDED`, or `0x…` when unknown. */
  tagName: string;
  /** `d_val` / `d_ptr`. */
  value: bigint;
}

/** The dynamic section, read through PT_DYNAMIC (or the SHT_DYNAMIC section). */
export interface ElfDynamic {
  /** DT_NEEDED libraries, in order. */
  needed: string[];
  /** DT_SONAME. */
  soname: string | null;
  /** DT_RUNPATH. */
  runpath: string | null;
  /** DT_RPATH. */
  rpath: string | null;
  /** DT_FLAGS. */
  flags: bigint | null;
  /** DT_FLAGS_1. */
  flags1: bigint | null;
  /** DT_INIT. */
  init: bigint | null;
  /** DT_FINI. */
  fini: bigint | null;
  /** DT_INIT_ARRAY and DT_INIT_ARRAYSZ (size 0 when DT_INIT_ARRAYSZ is missing). */
  initArray: ElfAddressRange | null;
  /** DT_FINI_ARRAY and DT_FINI_ARRAYSZ. */
  finiArray: ElfAddressRange | null;
  /** DT_PREINIT_ARRAY and DT_PREINIT_ARRAYSZ (an executable's, run before any initialiser). */
  preinitArray: ElfAddressRange | null;
  /** Every entry before the first DT_NULL, in order. */
  entries: ElfDynamicEntry[];
}

/** One symbol of the dynamic symbol table. */
export interface ElfDynamicSymbol {
  /** Position in the table (the null symbol is 0, so the first listed is 1). */
  index: number;
  /** Name without any `@VERSION` suffix (`""` when unnamed or unreadable). */
  name: string;
  /** `st_value` as stored (for ARM functions, bit 0 is the Thumb bit). */
  value: bigint;
  /** `st_size`. */
  size: bigint;
  /** `ELF_ST_TYPE`. */
  type:
    | "notype"
    | "object"
    | "function"
    | "section"
    | "file"
    | "common"
    | "tls"
    | "ifunc"
    | "other";
  /** `ELF_ST_BIND` (`unique`: STB_GNU_UNIQUE, one definition per process; nm's `u`). */
  binding: "local" | "global" | "weak" | "unique" | "other";
  /** `st_shndx`. */
  sectionIndex: number;
  /** Whether `st_shndx` is not SHN_UNDEF. */
  defined: boolean;
}

/** A PLT stub and the symbol whose GOT slot it jumps through. */
export interface ElfPltStub {
  /** Address of the stub's first instruction. */
  address: bigint;
  /**
   * Symbol of the slot's relocation. For an IRELATIVE slot, the name of the
   * function symbol at the resolver address, or `""`.
   */
  name: string;
  /** The GOT slot the stub jumps through. */
  gotAddress: bigint;
  /** The section holding the stub (`.plt`, `.plt.sec` or `.plt.got`). */
  section: string;
  /** For an IRELATIVE slot, the resolver address (the relocation's addend); else null. */
  irelative: bigint | null;
}

/** An imported symbol: a GOT slot the dynamic loader fills from another object. */
export interface ElfImport {
  /** Symbol name, without any `@VERSION` suffix. */
  name: string;
  /** The GOT slot. */
  gotAddress: bigint;
  /** The PLT stub that jumps through the slot, or null when none does. */
  stubAddress: bigint | null;
  /** JUMP_SLOT (called through the PLT) or GLOB_DAT (address taken or data). */
  kind: "jump-slot" | "glob-dat";
}

/** A GOT slot the dynamic loader fills with a function this object defines. */
export interface ElfLocalBinding {
  /**
   * Symbol name, without any `@VERSION` suffix; for a RELATIVE slot, the name
   * of the function symbol at its address, or `""`.
   */
  name: string;
  /** The symbol's value: the function's address (Thumb bit cleared). */
  address: bigint;
  /** The GOT slot. */
  gotAddress: bigint;
  /** The PLT stub that jumps through the slot, or null when none does. */
  stubAddress: bigint | null;
  /**
   * JUMP_SLOT (called through the PLT), GLOB_DAT (address loaded from the
   * GOT), or RELATIVE (the slot holds the address plus the load base).
   */
  kind: "jump-slot" | "glob-dat" | "relative";
}

/** Options for {@linkcode parseElf}. */
/**
 * What the ELF header, the program and section headers and the build id note
 * tell without reading any symbol table, `.eh_frame` or relocation: enough to
 * identify a file (see {@linkcode ElfImage} for each field).
 */
export type ElfHeaders = Pick<
  ElfImage,
  | "bits"
  | "endianness"
  | "type"
  | "machine"
  | "machineName"
  | "architecture"
  | "entry"
  | "sections"
  | "layout"
  | "segments"
  | "buildId"
  | "warnings"
>;

export interface ParseElfOptions {
  /**
   * Most symbol table entries to examine, over all symbol tables together;
   * the rest are skipped with a warning.
   *
   * @default {4_000_000}
   */
  maxSymbols?: number;
  /**
   * Most `.eh_frame` FDEs to read; the rest are skipped with a warning.
   *
   * @default {2_000_000}
   */
  maxFdes?: number;
  /**
   * For a relocatable file (ET_REL), whose sections all have address 0: give
   * each allocated section its own address (see {@linkcode ElfImage.layout})
   * and place the function symbols at their section's address plus
   * `st_value`, so that functions in different sections get distinct
   * addresses. Without it, function addresses are the bare `st_value`s.
   *
   * @default {false}
   */
  layoutRelocatable?: boolean;
}

/** The address where the reading layout of a relocatable file places its first allocated section. */
export const RELOCATABLE_BASE = 0x1000n;

/**
 * The dynamic symbols of a parse by position (0 is the table's symbol 1),
 * as {@linkcode ElfImage.dynamicSymbols} lists them, without an object per
 * symbol.
 */
export interface ElfSymbolTable {
  /** Symbols (without the null symbol). */
  readonly count: number;
  /** Name without any `@VERSION` suffix. */
  name(i: number): string;
  /** `st_value` as stored. */
  value(i: number): bigint;
  /** `ELF_ST_TYPE`. */
  type(i: number): ElfDynamicSymbol["type"];
  /** `ELF_ST_BIND`. */
  binding(i: number): ElfDynamicSymbol["binding"];
  /** Whether `st_shndx` is not SHN_UNDEF. */
  defined(i: number): boolean;
  /** `st_shndx`. */
  sectionIndex(i: number): number;
}

/**
 * Address ranges by position, sorted by address then size, without an
 * object per range.
 */
export interface ElfRangeTable {
  /** Ranges in the table. */
  readonly count: number;
  /** Start of range `k`. */
  address(k: number): bigint;
  /** Size of range `k`. */
  size(k: number): bigint;
}
