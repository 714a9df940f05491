/**
 * What the PE reader yields: {@linkcode PeFile} and its parts, and the error
 * thrown for bytes that are not a usable PE image. `parse.ts` is the entry
 * point.
 *
 * @module
 */

import type { Architecture } from "../binary_image.ts";
import { FormatParseError } from "../format_error.ts";

/** Thrown by {@linkcode parsePe} when the bytes are not a usable PE image. */
export class PeParseError extends FormatParseError {}

/** One section header. All values are the 32-bit fields as stored. */
export interface PeSection {
  /** 1-based section number, as COFF symbols and `llvm-readobj` count them. */
  number: number;
  /**
   * Name: the 8-byte field up to its first NUL, or for `/123` (and `//` base-64)
   * names the string from the COFF string table (the raw field when that
   * cannot be read).
   */
  name: string;
  /** `VirtualAddress` (an RVA). */
  virtualAddress: number;
  /** `VirtualSize`. */
  virtualSize: number;
  /** `PointerToRawData` (a file offset). */
  rawDataPointer: number;
  /** `SizeOfRawData`. */
  rawDataSize: number;
  /** `Characteristics` (IMAGE_SCN_*). */
  characteristics: number;
}

/** One data directory entry of the optional header. */
export interface PeDataDirectory {
  /** Position in the directory array (0 = export table, 1 = import table, …). */
  index: number;
  /** Readable name, such as `export`, `import`, `exception`, `debug`, `delay-import`. */
  name: string;
  /** `VirtualAddress` (an RVA; for the certificate table, index 4, a file offset). */
  rva: number;
  /** `Size`. */
  size: number;
}

/** One exported symbol: one per name, plus one per unnamed entry of the export address table. */
export interface PeExport {
  /** Ordinal: the export directory's `Base` plus the index in the export address table. */
  ordinal: number;
  /** Name from the name pointer table, or `null` for an export by ordinal only. */
  name: string | null;
  /** The exported RVA; for a forwarder, the RVA of its forwarder string. */
  rva: number;
  /** `DLL.Function` (or `DLL.#ordinal`) for a forwarder, else `null`. */
  forwarder: string | null;
}

/** One imported symbol of one library. */
export interface PeImportedSymbol {
  /** Name from the hint/name table, or `null` for an import by ordinal (or an unreadable one). */
  name: string | null;
  /** Hint from the hint/name table, or `null` for an import by ordinal. */
  hint: number | null;
  /** Ordinal for an import by ordinal, else `null`. */
  ordinal: number | null;
  /** RVA of the import address table slot the loader fills for this symbol. */
  slotRva: number;
}

/** The imports from one DLL, from one import (or delay-load import) descriptor. */
export interface PeImportLibrary {
  /** DLL name as stored (`""` when it cannot be read). */
  name: string;
  /** Whether the descriptor is in the delay-load import table. */
  delayLoad: boolean;
  /** RVA of the table that names the symbols (ILT / INT; the IAT when there is none). */
  lookupTableRva: number;
  /** RVA of the import address table (IAT). */
  addressTableRva: number;
  /** Symbols in table order. */
  symbols: PeImportedSymbol[];
}

/** One entry of the exception (`.pdata`) function table. */
export interface PeRuntimeFunction {
  /** RVA of the first instruction (for ARM, with the Thumb bit cleared). */
  begin: number;
  /**
   * RVA just past the function: x64 `EndAddress`; for ARM64 and ARM, `begin`
   * plus the function length from the packed unwind data or from the
   * `.xdata` header; `null` when that cannot be read.
   */
  end: number | null;
  /** x64: `UnwindInfoAddress`; ARM64 / ARM: the second word as stored. */
  unwindData: number;
  /** ARM64 / ARM: whether the unwind data is packed into `unwindData` (flag 1 or 2). */
  packed: boolean;
  /**
   * x64: the RUNTIME_FUNCTION this entry's unwind data chains to, when it
   * does: its UNWIND_INFO has UNW_FLAG_CHAININFO (flags bit 0x4) and the
   * chained entry follows the unwind codes, or (an older form) bit 0 of
   * `unwindData` is set and it is the RVA of that entry. The entry is then a
   * part of the function the chain leads to (objdump -x: `Chain: start: …`),
   * not a function of its own. Absent when the entry is not chained.
   */
  chain?: PeChainedFunction;
}

/** The RUNTIME_FUNCTION a chained x64 `.pdata` entry points at, as stored. */
export interface PeChainedFunction {
  /** `BeginAddress` (an RVA). */
  begin: number;
  /** `EndAddress` (an RVA). */
  end: number;
  /** `UnwindInfoAddress`. */
  unwindData: number;
}

/** One FDE of `.eh_frame`: the function it covers, as RVAs. */
export interface PeFrameFunction {
  /** RVA of pc_begin. */
  begin: number;
  /** pc_range in bytes. */
  size: number;
}

/** One entry of the debug directory. */
export interface PeDebugEntry {
  /** `Type` (2 is IMAGE_DEBUG_TYPE_CODEVIEW). */
  type: number;
  /** Readable type, such as `CODEVIEW`, `POGO`, `REPRO`, or `0x…` when unknown. */
  typeName: string;
  /** `SizeOfData`. */
  sizeOfData: number;
  /** `AddressOfRawData` (an RVA, or 0). */
  addressOfRawData: number;
  /** `PointerToRawData` (a file offset). */
  pointerToRawData: number;
}

/** The CodeView record naming the PDB file. */
export interface PeCodeView {
  /** `RSDS` (PDB 7.0) or `NB10` (PDB 2.0). */
  signature: "RSDS" | "NB10";
  /** RSDS: the GUID as usually printed, `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX`; NB10: `null`. */
  guid: string | null;
  /** NB10: the 32-bit signature (a time stamp); RSDS: `null`. */
  timestamp: number | null;
  /** Age. */
  age: number;
  /** PDB path as stored. */
  pdbPath: string;
}

/** One COFF symbol table record (auxiliary records are skipped). */
export interface PeSymbol {
  /** Index of the record in the symbol table. */
  index: number;
  /** Name: short name or from the string table. */
  name: string;
  /** `Value` (for a symbol in a section, the offset into it). */
  value: number;
  /** `SectionNumber` (signed: 0 undefined, -1 absolute, -2 debug). */
  sectionNumber: number;
  /** `Type` (`(type >> 4) === 2` is a function). */
  type: number;
  /** `StorageClass` (2 external, 3 static, …). */
  storageClass: number;
  /** `NumberOfAuxSymbols`. */
  auxCount: number;
}

/** The parsed view of a PE file. RVAs and file offsets are numbers (32-bit fields). */
export interface PeFile {
  /** `PE32` (optional header magic 0x10b) or `PE32+` (0x20b). */
  format: "PE32" | "PE32+";
  /** 32 for PE32, 64 for PE32+. */
  bits: 32 | 64;
  /** COFF `Machine`. */
  machine: number;
  /** Readable machine: `i386`, `AMD64`, `ARM64`, `ARMNT`, …, or `0x…` when unknown. */
  machineName: string;
  /** The architecture this project names for the machine (`other` when none). */
  architecture: Architecture;
  /** COFF `Characteristics` (IMAGE_FILE_*). */
  characteristics: number;
  /** Whether IMAGE_FILE_DLL (0x2000) is set. */
  isDll: boolean;
  /** COFF `TimeDateStamp`. */
  timeDateStamp: number;
  /** Optional header `Subsystem`. */
  subsystem: number;
  /** Readable subsystem, such as `WINDOWS_CUI`, or `0x…` when unknown. */
  subsystemName: string;
  /** Optional header `DllCharacteristics`. */
  dllCharacteristics: number;
  /** `ImageBase`. */
  imageBase: bigint;
  /** `AddressOfEntryPoint` (0 when the image has none, as for many DLLs). */
  entryRva: number;
  /** `SectionAlignment`. */
  sectionAlignment: number;
  /** `FileAlignment`. */
  fileAlignment: number;
  /** `SizeOfImage`. */
  sizeOfImage: number;
  /** `SizeOfHeaders`. */
  sizeOfHeaders: number;
  /** Section headers in table order. */
  sections: PeSection[];
  /** Data directories present in the optional header (at most 16). */
  dataDirectories: PeDataDirectory[];
  /** The DLL name recorded in the export directory, or `null`. */
  exportName: string | null;
  /** Exports ordered by ordinal, the names of one ordinal in name-table order. */
  exports: PeExport[];
  /** Import descriptors in table order, then delay-load descriptors in table order. */
  imports: PeImportLibrary[];
  /** The exception (`.pdata`) table in table order, for x64, ARM64 and ARM images. */
  runtimeFunctions: PeRuntimeFunction[];
  /**
   * RVAs of the TLS callbacks, in list order: the virtual addresses listed at
   * the TLS directory's `AddressOfCallBacks` (up to the zero that ends the
   * list) less the image base. Empty without a TLS directory.
   */
  tlsCallbacks: number[];
  /**
   * RVAs of code that base-relocated slots outside code sections hold
   * (vtables, function tables), sorted and unique; empty without a base
   * relocation table (see `relocations.ts`).
   */
  codePointers: number[];
  /**
   * The functions the FDEs of `.eh_frame` (`.eh_fram`) cover, in address
   * order, as RVAs: MinGW's GCC writes DWARF call frame information into PE
   * images. Empty without that section.
   */
  frameFunctions: PeFrameFunction[];
  /** Debug directory entries. */
  debug: PeDebugEntry[];
  /** The first CodeView record of the debug directory, or `null`. */
  codeView: PeCodeView | null;
  /**
   * Build identity from the CodeView record, as a symbol server keys a PDB:
   * the GUID's 32 hex digits (uppercase, in printed order) followed by the
   * age in hex, e.g. `B9DB443817204967BE7AA4A2C20430FA1` for GUID
   * `B9DB4438-1720-4967-BE7A-A4A2C20430FA` and age 1; for NB10 the signature
   * as 8 hex digits then the age. `null` without a CodeView record.
   */
  buildId: string | null;
  /** COFF symbols (usually none in an image). */
  symbols: PeSymbol[];
  /** Human-readable notes about what was skipped or bounded; empty for a sound file. */
  warnings: string[];
}

/** Options for {@linkcode parsePe}. */
export interface ParsePeOptions {
  /**
   * Most entries read from each table: export address table, export names,
   * import descriptors, import thunks (over all descriptors together),
   * `.pdata` entries, debug entries and COFF symbols. The rest are skipped
   * with a warning.
   *
   * @default {1_000_000}
   */
  maxEntries?: number;
}
