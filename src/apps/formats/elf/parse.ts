/**
 * A dependency-free ELF reader: header, program headers, section headers and
 * the function symbols of `.symtab` / `.dynsym` (or, for binaries without
 * usable section headers, of the dynamic symbol table found via PT_DYNAMIC);
 * the dynamic section (DT_NEEDED, DT_SONAME, DT_RUNPATH, …), the GNU build
 * id note, function starts from the FDEs of `.eh_frame` (through
 * `.eh_frame_hdr`'s search table when there is one, or PT_GNU_EH_FRAME when
 * the section headers are gone), the dynamic symbols, and the PLT stubs and
 * imports resolved through JUMP_SLOT / GLOB_DAT relocations for x86-64,
 * i386, AArch64 and ARM32.
 *
 * It takes bytes and never touches the file system. Damage in optional parts
 * of a file is reported in {@linkcode ElfImage.warnings}; only a file that
 * cannot be an ELF image at all makes {@linkcode parseElf} throw
 * {@linkcode ElfParseError}. Every loop is bounded by the size of the input,
 * and nothing is allocated in proportion to a count read from the file before
 * that count has been checked against the file size.
 *
 * The reading is split by concept in this folder: `model.ts` (what a parse
 * yields), `headers.ts`, `symbols.ts`, `dynamic.ts`, `notes.ts`,
 * `eh_frame.ts`, `dynamic_symbols.ts` and `plt.ts`; `image.ts` adapts the
 * result to the format-neutral `BinaryImage`.
 *
 * @module
 */

import { ET_REL, SHT_SYMTAB, STRING_BUDGET_FACTOR } from "./constants.ts";
import { DynamicSectionReader, emptyDynamic } from "./dynamic.ts";
import { DynamicSymbolReader, DynamicSymbols } from "./dynamic_symbols.ts";
import { EhFrameReader, FdeRanges } from "./eh_frame.ts";
import { LAZY_TABLES, LazyList } from "./lazy_tables.ts";
import { ExtrasReader, type ScanBudget } from "./extras_reader.ts";
import type {
  ElfAddressRange,
  ElfDynamic,
  ElfDynamicSymbol,
  ElfFunction,
  ElfHeaders,
  ElfImage,
  ElfImport,
  ElfLocalBinding,
  ElfPltStub,
  ParseElfOptions,
} from "./model.ts";
import { NoteReader } from "./notes.ts";
import { PltReader } from "./plt.ts";
import { relocatableLayout } from "./relocatable_layout.ts";
import { type ElfSymbolVersions, SymbolVersionReader } from "./symbol_versions.ts";
import { SymbolReader } from "./symbols.ts";

const DEFAULT_MAX_SYMBOLS = 4_000_000;
const DEFAULT_MAX_FDES = 2_000_000;

const MACHINE_NAMES: ReadonlyMap<number, string> = new Map([
  [0, "none"],
  [2, "SPARC"],
  [3, "i386"],
  [4, "m68k"],
  [8, "MIPS"],
  [20, "PowerPC"],
  [21, "PowerPC64"],
  [22, "s390"],
  [40, "ARM"],
  [42, "SuperH"],
  [43, "SPARC V9"],
  [50, "IA-64"],
  [62, "x86-64"],
  [183, "AArch64"],
  [243, "RISC-V"],
  [247, "BPF"],
  [258, "LoongArch"],
]);

const ARCHITECTURES: ReadonlyMap<number, "x86" | "x86_64" | "arm" | "arm64"> = new Map([
  [3, "x86"],
  [62, "x86_64"],
  [40, "arm"],
  [183, "arm64"],
]);

const FILE_TYPES: ReadonlyMap<number, ElfImage["type"]> = new Map([
  [1, "relocatable"],
  [2, "executable"],
  [3, "shared-object"],
  [4, "core"],
]);

/**
 * Tells whether `bytes` starts with the ELF magic number `\x7fELF`.
 * Checks nothing else; {@linkcode parseElf} validates the rest.
 */
export function isElf(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c &&
    bytes[3] === 0x46;
}

/**
 * Parses an ELF image held in memory.
 *
 * Reads the ELF header, the program and section headers, and the function
 * symbols (STT_FUNC and STT_GNU_IFUNC, defined) of `.symtab` and `.dynsym`.
 * Without a usable `.dynsym` section it reads the dynamic symbol table through
 * PT_DYNAMIC (DT_SYMTAB, DT_STRTAB, DT_STRSZ, DT_SYMENT, with the symbol count
 * from DT_HASH or DT_GNU_HASH). The entry point of an executable or shared
 * object is added as a function of kind `"entry"` unless a function symbol
 * already starts there.
 *
 * @param bytes The whole file.
 * @param options Limits.
 * @returns The parsed image; damage in optional parts is listed in `warnings`.
 * @throws {ElfParseError} When the bytes are not an ELF file, the ELF header
 *   is truncated, or its class, byte order or header size is invalid.
 */
export function parseElf(bytes: Uint8Array, options: ParseElfOptions = {}): ElfImage {
  return parserFor(bytes, options).parse();
}

/**
 * Reads only what identifies an ELF file: the ELF header, the program and
 * section headers and the GNU build id note; no symbol table, `.eh_frame`,
 * dynamic section or relocation. It refuses exactly the files
 * {@linkcode parseElf} refuses (only the ELF header can make either throw),
 * and its warnings are the ones `parseElf` reports about these parts.
 *
 * @param bytes The whole file.
 * @param options Limits (checked as `parseElf` checks them).
 * @throws {ElfParseError} When the bytes are not an ELF file, the ELF header
 *   is truncated, or its class, byte order or header size is invalid.
 */
export function parseElfHeaders(bytes: Uint8Array, options: ParseElfOptions = {}): ElfHeaders {
  const parser = parserFor(bytes, options);
  parser.readHeaders();
  const budget = parser.scanBudget();
  const buildId = new ExtrasReader(parser, [], budget).guard(
    "the build id note",
    () => new NoteReader(parser, [], budget).readBuildId(),
    null,
  );
  return { ...parser.identity(), buildId, warnings: parser.finishWarnings() };
}

function parserFor(bytes: Uint8Array, options: ParseElfOptions): Parser {
  const maxSymbols = options.maxSymbols ?? DEFAULT_MAX_SYMBOLS;
  if (!Number.isSafeInteger(maxSymbols) || maxSymbols < 0) {
    throw new RangeError(`maxSymbols must be a non-negative integer, got ${maxSymbols}`);
  }
  const maxFdes = options.maxFdes ?? DEFAULT_MAX_FDES;
  if (!Number.isSafeInteger(maxFdes) || maxFdes < 0) {
    throw new RangeError(`maxFdes must be a non-negative integer, got ${maxFdes}`);
  }
  const parser = new Parser(bytes, maxSymbols, maxFdes);
  parser.layoutRelocatable = options.layoutRelocatable ?? false;
  return parser;
}

/** What {@linkcode ExtrasReader} adds to an {@linkcode ElfImage}. */
interface Extras {
  buildId: string | null;
  ehFrameFunctions: FdeRanges;
  dynamicSymbols: DynamicSymbols;
  symbolVersions: ElfSymbolVersions | null;
  objectSymbols: DynamicSymbols | null;
  pltStubs: ElfPltStub[];
  imports: ElfImport[];
  localBindings: ElfLocalBinding[];
  startupTargets: bigint[];
}

/**
 * One parse: headers and symbols (see {@linkcode SymbolReader}), then the
 * parts read by the {@linkcode ExtrasReader} subclasses, assembled into an
 * {@linkcode ElfImage}.
 */
export class Parser extends SymbolReader {
  /** The dynamic section, once read. */
  dynamicInfo: ElfDynamic = emptyDynamic();
  /** DT_* values (first of each tag) of the dynamic section. */
  dynamicTags: Map<number, bigint> = new Map();

  parse(): ElfImage {
    this.readHeaders();
    this.readFunctions();
    const functions = this.functions.build();
    this.addEntry(functions);
    const extras = this.readExtras(functions);
    this.finishWarnings();
    const fdes = new LazyList(extras.ehFrameFunctions, (table) => table.ranges());
    const symbols = new LazyList(extras.dynamicSymbols, (table) => table.symbols());
    const image: ElfImage = {
      ...this.identity(),
      functions,
      mappingSymbols: this.mappingSymbols(),
      hasSymtab: this.sections.some((s) => s.type === SHT_SYMTAB),
      dynamic: this.dynamicInfo,
      buildId: extras.buildId,
      // Built on first use: the image reader reads the compact table instead.
      get ehFrameFunctions(): ElfAddressRange[] {
        return fdes.get();
      },
      set ehFrameFunctions(list: ElfAddressRange[]) {
        fdes.set(list);
      },
      get dynamicSymbols(): ElfDynamicSymbol[] {
        return symbols.get();
      },
      set dynamicSymbols(list: ElfDynamicSymbol[]) {
        symbols.set(list);
      },
      symbolVersions: extras.symbolVersions,
      ...(extras.objectSymbols === null ? {} : { objectSymbols: extras.objectSymbols }),
      pltStubs: extras.pltStubs,
      imports: extras.imports,
      localBindings: extras.localBindings,
      startupTargets: extras.startupTargets,
      warnings: this.warnings,
    };
    LAZY_TABLES.set(image, { fdes, symbols });
    return image;
  }

  /** Reads the ELF header, then the program and section headers. */
  readHeaders(): void {
    const header = this.parseHeader();
    const section0 = this.readSectionZero(header);
    this.parseSegments(header, section0);
    this.parseSections(header, section0);
    if (this.layoutRelocatable && this.fileType === ET_REL) {
      this.layout = relocatableLayout(this.sections, this.sectionAlignments);
    }
  }

  /** The fields of the ELF header and the header tables, once {@linkcode readHeaders} ran. */
  identity(): Omit<ElfHeaders, "buildId" | "warnings"> {
    return {
      bits: this.is64 ? 64 : 32,
      endianness: this.le ? "little" : "big",
      type: FILE_TYPES.get(this.fileType) ?? "unknown",
      machine: this.machine,
      machineName: MACHINE_NAMES.get(this.machine) ?? `machine-${this.machine}`,
      architecture: ARCHITECTURES.get(this.machine) ?? null,
      entry: this.entry,
      sections: this.sections,
      ...(this.layout === null ? {} : { layout: this.layout }),
      segments: this.segments,
    };
  }

  /** The warnings, with a last one counting those past the cap. */
  finishWarnings(): string[] {
    if (this.droppedWarnings > 0) {
      this.warnings.push(`${this.droppedWarnings} more warnings were omitted`);
      this.droppedWarnings = 0;
    }
    return this.warnings;
  }

  /** A fresh budget for the bytes the note, PLT and relocation readers may scan. */
  scanBudget(): ScanBudget {
    return { remaining: STRING_BUDGET_FACTOR * this.length + (1 << 20), warned: false };
  }

  /** Reads the dynamic section, the build id, `.eh_frame` and the PLT (see {@linkcode ExtrasReader}). */
  readExtras(functions: ElfFunction[]): Extras {
    const budget = this.scanBudget();
    const reader = new ExtrasReader(this, functions, budget);
    reader.guard(
      "the dynamic section",
      () => new DynamicSectionReader(this, functions, budget).readDynamicSection(),
      undefined,
    );
    const buildId = reader.guard(
      "the build id note",
      () => new NoteReader(this, functions, budget).readBuildId(),
      null,
    );
    const ehFrameFunctions = reader.guard(
      "the .eh_frame section",
      () => new EhFrameReader(this, functions, budget).readEhFrame(),
      new FdeRanges({ starts: [], sizes: [] }),
    );
    const dynamicSymbols = reader.guard(
      "the dynamic symbols",
      () => new DynamicSymbolReader(this, functions, budget).readDynamicSymbols(),
      new DynamicSymbols(this.view, true, true, 0, 0, []),
    );
    const symbolVersions = reader.guard(
      "the symbol versions",
      () =>
        new SymbolVersionReader(this, functions, budget).readSymbolVersions(dynamicSymbols.count),
      null,
    );
    const objectSymbols = this.layout === null ? null : reader.guard(
      "the static symbols",
      () => new DynamicSymbolReader(this, functions, budget).readStaticSymbols(),
      null,
    );
    const { pltStubs, imports, localBindings, startupTargets } = reader.guard(
      "the PLT and GOT relocations",
      () => new PltReader(this, functions, budget).readPlt(dynamicSymbols),
      { pltStubs: [], imports: [], localBindings: [], startupTargets: [] },
    );
    return {
      buildId,
      ehFrameFunctions,
      dynamicSymbols,
      symbolVersions,
      objectSymbols,
      pltStubs,
      imports,
      localBindings,
      startupTargets,
    };
  }
}
