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
 * @module
 */

/** Thrown by {@linkcode parseElf} when the bytes are not a usable ELF image. */
export class ElfParseError extends Error {
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
    this.name = "ElfParseError";
    this.offset = offset;
  }
}

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
  /** Start address (`st_value`; for ARM, bit 0, the Thumb bit, is cleared). */
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
  /** Program headers, in table order. */
  segments: ElfSegment[];
  /** One per distinct function start address, sorted by address ascending. */
  functions: ElfFunction[];
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
  /** `ELF_ST_BIND`. */
  binding: "local" | "global" | "weak" | "other";
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

/** Options for {@linkcode parseElf}. */
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
}

// ---------------------------------------------------------------------------
// Constants

const EI_NIDENT = 16;
const ELFCLASS32 = 1;
const ELFCLASS64 = 2;
const ELFDATA2LSB = 1;
const ELFDATA2MSB = 2;

const ET_EXEC = 2;
const ET_DYN = 3;

const EM_ARM = 40;

const PT_LOAD = 1;
const PT_DYNAMIC = 2;

const SHT_SYMTAB = 2;
const SHT_STRTAB = 3;
const SHT_DYNSYM = 11;

const SHN_UNDEF = 0;
const SHN_XINDEX = 0xffff;
const PN_XNUM = 0xffff;

const STT_NOTYPE = 0;
const STT_FUNC = 2;
const STT_GNU_IFUNC = 10;

const DT_NULL = 0;
const DT_HASH = 4;
const DT_STRTAB = 5;
const DT_SYMTAB = 6;
const DT_STRSZ = 10;
const DT_SYMENT = 11;
const DT_GNU_HASH = 0x6ffffef5;

const TWO_32 = 4294967296;
/** Values read as numbers are exact below this (2^53 = 2^21 * 2^32). */
const SAFE_HIGH_WORD = 0x200000;

/** Longest symbol or section name read, in bytes; longer ones are cut with a warning. */
const MAX_NAME_BYTES = 65536;
/** Most warnings kept; the rest are counted in a final warning. */
const MAX_WARNINGS = 100;
const DEFAULT_MAX_SYMBOLS = 4_000_000;
const DEFAULT_MAX_FDES = 2_000_000;
/** String-table bytes decoded per parse, at most this many times the file size (plus 1 MiB). */
const STRING_BUDGET_FACTOR = 4;

const SEGMENT_TYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [0, "PT_NULL"],
  [1, "PT_LOAD"],
  [2, "PT_DYNAMIC"],
  [3, "PT_INTERP"],
  [4, "PT_NOTE"],
  [5, "PT_SHLIB"],
  [6, "PT_PHDR"],
  [7, "PT_TLS"],
  [0x6474e550, "PT_GNU_EH_FRAME"],
  [0x6474e551, "PT_GNU_STACK"],
  [0x6474e552, "PT_GNU_RELRO"],
  [0x6474e553, "PT_GNU_PROPERTY"],
]);

const SECTION_TYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [0, "SHT_NULL"],
  [1, "SHT_PROGBITS"],
  [2, "SHT_SYMTAB"],
  [3, "SHT_STRTAB"],
  [4, "SHT_RELA"],
  [5, "SHT_HASH"],
  [6, "SHT_DYNAMIC"],
  [7, "SHT_NOTE"],
  [8, "SHT_NOBITS"],
  [9, "SHT_REL"],
  [10, "SHT_SHLIB"],
  [11, "SHT_DYNSYM"],
  [14, "SHT_INIT_ARRAY"],
  [15, "SHT_FINI_ARRAY"],
  [16, "SHT_PREINIT_ARRAY"],
  [17, "SHT_GROUP"],
  [18, "SHT_SYMTAB_SHNDX"],
  [0x6ffffff6, "SHT_GNU_HASH"],
  [0x6ffffffd, "SHT_GNU_verdef"],
  [0x6ffffffe, "SHT_GNU_verneed"],
  [0x6fffffff, "SHT_GNU_versym"],
]);

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

type Binding = ElfFunction["binding"];
const SOURCE_RANK: Readonly<Record<ElfSymbolSource, number>> = {
  symtab: 0,
  dynsym: 1,
  dynamic: 2,
  entry: 3,
};

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

// ---------------------------------------------------------------------------
// Public functions

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
  const maxSymbols = options.maxSymbols ?? DEFAULT_MAX_SYMBOLS;
  if (!Number.isSafeInteger(maxSymbols) || maxSymbols < 0) {
    throw new RangeError(`maxSymbols must be a non-negative integer, got ${maxSymbols}`);
  }
  const maxFdes = options.maxFdes ?? DEFAULT_MAX_FDES;
  if (!Number.isSafeInteger(maxFdes) || maxFdes < 0) {
    throw new RangeError(`maxFdes must be a non-negative integer, got ${maxFdes}`);
  }
  return new Parser(bytes, maxSymbols, maxFdes).parse();
}

// ---------------------------------------------------------------------------
// Implementation

interface SymbolTableRef {
  label: string;
  offset: number;
  count: number;
  stride: number;
  strings: StringTable | null;
  source: ElfSymbolSource;
}

/**
 * A string table, decoded lazily. Finding the NUL that ends a name costs at
 * most the distance to it; once one search runs longer than
 * {@linkcode MAX_NAME_BYTES} (a damaged or hostile table), a next-NUL index is
 * built in one pass so that later lookups are constant time.
 */
class StringTable {
  readonly size: number;
  readonly label: string;
  badOffsets = 0;
  cutNames = 0;
  /** Whether {@linkcode Parser.reportStrings} has warned about this table. */
  reported = false;
  #bytes: Uint8Array;
  /** The whole table decoded, when byte offsets equal code-unit offsets in it. */
  #text: string | null | undefined = undefined;
  #cache: Map<number, string> | null = null;
  #nextNul: Int32Array | null = null;

  /** Lookups answered with `""` because the parse's string budget ran out. */
  skipped = 0;
  #budget: StringBudget;
  #exhausted = false;

  constructor(bytes: Uint8Array, label: string, budget: StringBudget) {
    this.#bytes = bytes;
    this.size = bytes.length;
    this.label = label;
    this.#budget = budget;
  }

  /** Takes `bytes` from the shared budget, or marks this table exhausted. */
  #charge(bytes: number): boolean {
    if (this.#budget.remaining < bytes) {
      this.#exhausted = true;
      return false;
    }
    this.#budget.remaining -= bytes;
    return true;
  }

  /**
   * The decoded table when names can be sliced from it directly: it decodes
   * byte for byte, no next-NUL index was needed, and the budget allowed the
   * decode. Callers must use {@linkcode get} for offsets past the end and
   * for names longer than {@linkcode MAX_NAME_BYTES}, then ask again.
   */
  fastText(): string | null {
    if (this.#text === undefined && this.size > 0) this.get(0);
    if (this.#exhausted || this.#nextNul !== null) return null;
    return this.#text ?? null;
  }

  /** Name at `offset`, or `""` (counted in `badOffsets`) when out of range. */
  get(offset: number): string {
    const size = this.size;
    if (offset >= size) {
      this.badOffsets++;
      return "";
    }
    if (this.#exhausted) {
      this.skipped++;
      return "";
    }
    let text = this.#text;
    if (text === undefined) {
      if (!this.#charge(size)) return this.get(offset);
      // One decode of the whole table. If its length equals the byte count,
      // every non-ASCII byte became exactly one U+FFFD in place (only valid
      // multi-byte sequences and multi-byte invalid runs decode to fewer code
      // units than bytes, and nothing decodes to more), so slicing by byte
      // offset gives exactly what decoding each name on its own would.
      const decoded = decoder.decode(this.#bytes);
      text = this.#text = decoded.length === size ? decoded : null;
      if (text === null) this.#cache = new Map();
    }
    let end: number;
    const nextNul = this.#nextNul;
    if (nextNul !== null) end = nextNul[offset]!;
    else {
      end = text !== null ? text.indexOf("\0", offset) : this.#bytes.indexOf(0, offset);
      if (end < 0) end = size;
      if (end - offset > MAX_NAME_BYTES) {
        if (!this.#charge(size)) return this.get(offset);
        this.#nextNul = buildNextNul(this.#bytes);
      }
    }
    if (end - offset > MAX_NAME_BYTES) {
      this.cutNames++;
      end = offset + MAX_NAME_BYTES;
    }
    if (text !== null) return text.substring(offset, end);
    const cache = this.#cache!;
    let name = cache.get(offset);
    if (name === undefined) {
      name = decoder.decode(this.#bytes.subarray(offset, end));
      cache.set(offset, name);
    }
    return name;
  }
}

/**
 * Bytes of string tables a parse may decode or index in total. Every table is
 * decoded at most once, but a hostile file can declare many tables over the
 * same bytes; this keeps the total work proportional to the file size.
 */
interface StringBudget {
  remaining: number;
}

/** For each position, the position of the next NUL byte (or the length). */
function buildNextNul(bytes: Uint8Array): Int32Array {
  const next = new Int32Array(bytes.length);
  let at = bytes.length;
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] === 0) at = i;
    next[i] = at;
  }
  return next;
}

const KIND_FUNCTION = 0;
const KIND_IFUNC = 1;
const KIND_ENTRY = 2;
const KINDS: readonly ElfFunction["kind"][] = ["function", "ifunc", "entry"];
/** Binding rank (global 0, weak 1, local 2, other 3) indexed by STB_* value. */
const RANK_OF_STB: readonly number[] = [2, 0, 1];
const BINDING_OF_RANK: readonly Binding[] = ["global", "weak", "local", "other"];
const SOURCE_OF_RANK: readonly ElfSymbolSource[] = ["symtab", "dynsym", "dynamic", "entry"];
const RANK_OTHER = 3;

/**
 * From this many symbols on, addresses are ordered by a radix sort (whose
 * fixed cost of 2 x 65536 buckets then pays off); below, by one native sort.
 */
const RADIX_THRESHOLD = 1 << 17;

/** Shared bigints for small sizes, which repeat a lot. */
const SMALL_BIGINTS: (bigint | undefined)[] = new Array(16384);

/** Indices 0..n-1 stably ordered by 32-bit key: two 16-bit counting-sort passes. */
function radixOrder(keys: Uint32Array, n: number): Uint32Array {
  let from = new Uint32Array(n);
  let to = new Uint32Array(n);
  for (let i = 0; i < n; i++) from[i] = i;
  const counts = new Uint32Array(65536);
  for (let shift = 0; shift <= 16; shift += 16) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[(keys[i]! >>> shift) & 0xffff]!++;
    let sum = 0;
    for (let b = 0; b < 65536; b++) {
      const c = counts[b]!;
      counts[b] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const index = from[i]!;
      to[counts[(keys[index]! >>> shift) & 0xffff]!++] = index;
    }
    [from, to] = [to, from];
  }
  return from;
}

/**
 * Function symbols as they are read, in flat typed arrays (no per-symbol
 * object), grouped by address only once, after one native sort.
 * A rank is `bindingRank * 4 + sourceRank`; lower is better.
 */
class Collector {
  count = 0;
  hi: Uint32Array = new Uint32Array(0);
  lo: Uint32Array = new Uint32Array(0);
  /** `st_size` when below 2^53, else NaN with the exact value in `bigSizes`. */
  sizes: Float64Array = new Float64Array(0);
  ranks: Uint8Array = new Uint8Array(0);
  kinds: Uint8Array = new Uint8Array(0);
  names: string[] = [];
  bigSizes: Map<number, bigint> = new Map();

  /** Makes room for at least `extra` more symbols. */
  reserve(extra: number): void {
    const needed = this.count + extra;
    if (needed <= this.hi.length) return;
    const capacity = Math.max(needed, this.hi.length * 2, 256);
    const grow = <T extends Uint32Array | Float64Array | Uint8Array>(
      old: T,
      make: (n: number) => T,
    ): T => {
      const next = make(capacity);
      next.set(old.subarray(0, this.count) as never);
      return next;
    };
    this.hi = grow(this.hi, (n) => new Uint32Array(n));
    this.lo = grow(this.lo, (n) => new Uint32Array(n));
    this.sizes = grow(this.sizes, (n) => new Float64Array(n));
    this.ranks = grow(this.ranks, (n) => new Uint8Array(n));
    this.kinds = grow(this.kinds, (n) => new Uint8Array(n));
  }

  /** Symbol indices ordered by address. */
  order(): ArrayLike<number> {
    const n = this.count;
    const hi = this.hi;
    const lo = this.lo;
    let sameHigh = true;
    const high = n > 0 ? hi[0]! : 0;
    for (let i = 1; sameHigh && i < n; i++) if (hi[i] !== high) sameHigh = false;
    if (sameHigh && n >= RADIX_THRESHOLD) return radixOrder(lo, n);
    if (sameHigh) {
      // With one high word, lo * 2^21 + index is exact below 2^53, so one
      // native numeric sort of the packed values orders the indices.
      const packed = new Float64Array(n);
      for (let i = 0; i < n; i++) packed[i] = lo[i]! * SAFE_HIGH_WORD + i;
      packed.sort();
      const order = new Uint32Array(n);
      for (let i = 0; i < n; i++) order[i] = packed[i]! % SAFE_HIGH_WORD;
      return order;
    }
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => (hi[a]! - hi[b]!) || (lo[a]! - lo[b]!));
    return order;
  }

  /** `st_size` of symbol `i`. */
  size(i: number): bigint {
    const size = this.sizes[i]!;
    if (size < SMALL_BIGINTS.length) return SMALL_BIGINTS[size] ??= BigInt(size);
    return Number.isNaN(size) ? this.bigSizes.get(i) ?? 0n : BigInt(size);
  }

  /**
   * One function per distinct address, sorted by address. `source` and
   * `kind` override the symbols' own (used for the entry point).
   */
  build(source?: ElfSymbolSource, kind?: number): ElfFunction[] {
    const order = this.order();
    const n = order.length;
    const { hi, lo, ranks, kinds, names, sizes } = this;
    const functions: ElfFunction[] = [];
    for (let start = 0; start < n;) {
      let best = order[start]!;
      const h = hi[best]!;
      const l = lo[best]!;
      let end = start + 1;
      while (end < n && lo[order[end]!] === l && hi[order[end]!] === h) end++;
      let list: string[];
      let sizeOf = best;
      if (end === start + 1) {
        const name = names[best]!;
        list = name === "" ? [] : [name];
      } else {
        list = [];
        let largest = best;
        for (let k = start; k < end; k++) {
          const i = order[k]!;
          const name = names[i]!;
          if (name !== "" && !list.includes(name)) list.push(name);
          if (k > start && isBetter(ranks[i]!, name, ranks[best]!, names[best]!)) best = i;
          // NaN marks a size of 2^53 or more: the largest.
          const size = sizes[i]!;
          if (Number.isNaN(size) || size > sizes[largest]!) largest = i;
        }
        list.sort();
        sizeOf = sizes[best] === 0 ? largest : best;
      }
      const rank = ranks[best]!;
      functions.push({
        address: h < SAFE_HIGH_WORD ? BigInt(h * TWO_32 + l) : (BigInt(h) << 32n) | BigInt(l),
        size: this.size(sizeOf),
        name: names[best]!,
        names: list,
        source: source ?? SOURCE_OF_RANK[rank & 3]!,
        binding: BINDING_OF_RANK[rank >> 2]!,
        kind: KINDS[kind ?? kinds[best]!]!,
      });
      start = end;
    }
    return functions;
  }
}

class Parser {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly length: number;
  readonly maxSymbols: number;
  readonly maxFdes: number;
  le = true;
  is64 = true;
  machine = 0;
  fileType = 0;
  entry = 0n;
  warnings: string[] = [];
  droppedWarnings = 0;
  symbolBudget: number;
  functions: Collector = new Collector();
  /** NOTYPE symbols at the entry point, in case no function symbol starts there. */
  entryNamers: Collector = new Collector();
  entryFunction: ElfFunction | null = null;
  entryLo = -1;
  entryHi = -1;
  sections: ElfSection[] = [];
  segments: ElfSegment[] = [];
  /** e_shoff, once the section headers are known to be usable (else 0). */
  shoff = 0;
  stringTables: Map<number, StringTable | null> = new Map();
  stringBudget: StringBudget;
  /** Sorted starts of the sections with file bytes and of the section header table. */
  structureStarts: Float64Array | null = null;
  /** `p_align` of each program header, by position. */
  segmentAlignments: number[] = [];
  /** `sh_addralign` of each section header, by index. */
  sectionAlignments: number[] = [];
  /** The dynamic symbol table the function symbols were read from, if any. */
  dynamicTable: SymbolTableRef | null = null;
  /** Whether {@linkcode readDynamic} has looked at (and warned about) PT_DYNAMIC's extent. */
  dynamicSegmentChecked = false;
  /** The dynamic section, once read. */
  dynamicInfo: ElfDynamic = emptyDynamic();
  /** DT_* values (first of each tag) of the dynamic section. */
  dynamicTags: Map<number, bigint> = new Map();

  constructor(bytes: Uint8Array, maxSymbols: number, maxFdes: number) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.length;
    this.maxSymbols = maxSymbols;
    this.maxFdes = maxFdes;
    this.symbolBudget = maxSymbols;
    this.stringBudget = { remaining: STRING_BUDGET_FACTOR * bytes.length + (1 << 20) };
  }

  warn(message: string): void {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message);
    else this.droppedWarnings++;
  }

  u16(offset: number): number {
    return this.view.getUint16(offset, this.le);
  }

  u32(offset: number): number {
    return this.view.getUint32(offset, this.le);
  }

  /** An address-sized field as a number; exact below 2^53, else a value of at least 2^53. */
  word(offset: number): number {
    if (!this.is64) return this.view.getUint32(offset, this.le);
    const a = this.view.getUint32(offset, this.le);
    const b = this.view.getUint32(offset + 4, this.le);
    return this.le ? b * TWO_32 + a : a * TWO_32 + b;
  }

  /** An address-sized field as a bigint. */
  addr(offset: number): bigint {
    return this.is64
      ? this.view.getBigUint64(offset, this.le)
      : BigInt(this.view.getUint32(offset, this.le));
  }

  parse(): ElfImage {
    const header = this.parseHeader();
    const section0 = this.readSectionZero(header);
    this.parseSegments(header, section0);
    this.parseSections(header, section0);
    this.readFunctions();
    const functions = this.functions.build();
    this.addEntry(functions);
    const extras = this.readExtras(functions);
    if (this.droppedWarnings > 0) {
      this.warnings.push(`${this.droppedWarnings} more warnings were omitted`);
    }
    const fileType = FILE_TYPES.get(this.fileType) ?? "unknown";
    const fdes = {
      table: extras.ehFrameFunctions as FdeRanges | null,
      list: [] as ElfAddressRange[],
    };
    const symbols = {
      table: extras.dynamicSymbols as DynamicSymbols | null,
      list: [] as ElfDynamicSymbol[],
    };
    const image: ElfImage = {
      bits: this.is64 ? 64 : 32,
      endianness: this.le ? "little" : "big",
      type: fileType,
      machine: this.machine,
      machineName: MACHINE_NAMES.get(this.machine) ?? `machine-${this.machine}`,
      architecture: ARCHITECTURES.get(this.machine) ?? null,
      entry: this.entry,
      sections: this.sections,
      segments: this.segments,
      functions,
      hasSymtab: this.sections.some((s) => s.type === SHT_SYMTAB),
      dynamic: this.dynamicInfo,
      buildId: extras.buildId,
      // Built on first use: the image reader reads the compact table instead.
      get ehFrameFunctions(): ElfAddressRange[] {
        if (fdes.table !== null) {
          fdes.list = fdes.table.ranges();
          fdes.table = null;
        }
        return fdes.list;
      },
      set ehFrameFunctions(list: ElfAddressRange[]) {
        fdes.table = null;
        fdes.list = list;
      },
      get dynamicSymbols(): ElfDynamicSymbol[] {
        if (symbols.table !== null) {
          symbols.list = symbols.table.symbols();
          symbols.table = null;
        }
        return symbols.list;
      },
      set dynamicSymbols(list: ElfDynamicSymbol[]) {
        symbols.table = null;
        symbols.list = list;
      },
      pltStubs: extras.pltStubs,
      imports: extras.imports,
      warnings: this.warnings,
    };
    FDE_TABLES.set(image, fdes);
    SYMBOL_TABLES.set(image, symbols);
    return image;
  }

  // ----- ELF header

  parseHeader(): Header {
    const bytes = this.bytes;
    const length = this.length;
    if (length === 0) throw new ElfParseError("Cannot parse ELF header: file is empty", 0);
    const magic = [0x7f, 0x45, 0x4c, 0x46];
    for (let i = 0; i < 4 && i < length; i++) {
      if (bytes[i] !== magic[i]) {
        const seen = Array.from(bytes.subarray(0, 4), hex2).join(" ");
        throw new ElfParseError(
          `Cannot parse ELF header: bad magic number ${seen}, expected 7f 45 4c 46 ("\\x7fELF")`,
          0,
        );
      }
    }
    const elfClass = length > 4 ? bytes[4] : undefined;
    const data = length > 5 ? bytes[5] : undefined;
    if (elfClass !== undefined && elfClass !== ELFCLASS32 && elfClass !== ELFCLASS64) {
      throw new ElfParseError(
        `Cannot parse ELF header: EI_CLASS is ${elfClass}, expected 1 (32-bit) or 2 (64-bit)`,
        4,
      );
    }
    if (data !== undefined && data !== ELFDATA2LSB && data !== ELFDATA2MSB) {
      throw new ElfParseError(
        `Cannot parse ELF header: EI_DATA is ${data}, expected 1 (little-endian) or 2 (big-endian)`,
        5,
      );
    }
    const headerSize = elfClass === ELFCLASS64 ? 64 : elfClass === ELFCLASS32 ? 52 : EI_NIDENT;
    if (length < headerSize || elfClass === undefined || data === undefined) {
      throw new ElfParseError(
        `Cannot parse ELF header: file is ${length} bytes, needs at least ${headerSize}`,
        length,
      );
    }
    this.is64 = elfClass === ELFCLASS64;
    this.le = data === ELFDATA2LSB;
    if (bytes[6] !== 1) this.warn(`EI_VERSION is ${bytes[6]}, expected 1`);

    this.fileType = this.u16(16);
    this.machine = this.u16(18);
    const is64 = this.is64;
    this.entry = this.addr(24);
    const phoff = this.word(is64 ? 32 : 28);
    const shoff = this.word(is64 ? 40 : 32);
    const at = is64 ? 52 : 40;
    const ehsize = this.u16(at);
    if (ehsize < headerSize || ehsize > length) {
      throw new ElfParseError(
        `Cannot parse ELF header: e_ehsize is ${ehsize}, expected at least ${headerSize} ` +
          `for a ${is64 ? 64 : 32}-bit file and at most the file size of ${length} bytes`,
        at,
      );
    }
    return {
      phoff,
      shoff,
      phentsize: this.u16(at + 2),
      phnum: this.u16(at + 4),
      shentsize: this.u16(at + 6),
      shnum: this.u16(at + 8),
      shstrndx: this.u16(at + 10),
    };
  }

  /**
   * Reads section header 0, which holds the real counts when e_shnum,
   * e_phnum or e_shstrndx overflow (ELF extended numbering).
   */
  readSectionZero(h: Header): SectionZero | null {
    if (h.shoff === 0 || h.shentsize !== (this.is64 ? 64 : 40)) return null;
    if (h.shoff + h.shentsize > this.length) return null;
    const o = h.shoff;
    return {
      size: this.word(o + (this.is64 ? 32 : 20)),
      link: this.u32(o + (this.is64 ? 40 : 24)),
      info: this.u32(o + (this.is64 ? 44 : 28)),
    };
  }

  // ----- Program headers

  parseSegments(h: Header, section0: SectionZero | null): void {
    let count = h.phnum;
    if (count === PN_XNUM) {
      if (section0 === null) {
        this.warn(
          "Cannot parse ELF program headers: e_phnum is PN_XNUM (0xffff) but section header 0, " +
            "which holds the real count, cannot be read",
        );
        return;
      }
      count = section0.info;
    }
    if (count === 0) return;
    if (h.phoff === 0) {
      this.warn(`Cannot parse ELF program headers: e_phnum is ${count} but e_phoff is 0`);
      return;
    }
    const expected = this.is64 ? 56 : 32;
    if (h.phentsize !== expected) {
      this.warn(
        `Cannot parse ELF program headers: e_phentsize is ${h.phentsize}, expected ${expected} ` +
          `for a ${this.is64 ? 64 : 32}-bit file`,
      );
      return;
    }
    const usable = this.fitTable("program headers", h.phoff, count, expected);
    const is64 = this.is64;
    for (let i = 0; i < usable; i++) {
      const o = h.phoff + i * expected;
      const type = this.u32(o);
      this.segments.push({
        type,
        typeName: SEGMENT_TYPE_NAMES.get(type) ?? hex(type),
        flags: this.u32(o + (is64 ? 4 : 24)),
        offset: this.word(o + (is64 ? 8 : 4)),
        virtualAddress: this.addr(o + (is64 ? 16 : 8)),
        fileSize: this.word(o + (is64 ? 32 : 16)),
        memorySize: this.word(o + (is64 ? 40 : 20)),
      });
      this.segmentAlignments.push(this.word(o + (is64 ? 48 : 28)));
    }
  }

  /**
   * How many entries of a table lie inside the file; warns when not all do.
   * When the table runs past the end of the file and `next` (the offset of
   * the next known structure) is given, the entries stop there instead: a
   * declared size that large is wrong, and what follows is not symbols.
   */
  fitTable(
    what: string,
    offset: number,
    count: number,
    entrySize: number,
    next: number | null = null,
  ): number {
    if (offset + count * entrySize <= this.length) return count;
    const limit = next !== null && next > offset && next < this.length ? next : this.length;
    const fit = offset >= limit ? 0 : Math.floor((limit - offset) / entrySize);
    this.warn(
      `Cannot parse ELF ${what}: table at offset ${hex(offset)} with ${count} entries of ` +
        `${entrySize} bytes runs past the end of the ${this.length}-byte file` +
        (fit === 0
          ? ""
          : limit < this.length
          ? `; reading the ${fit} entries before the next section at offset ${hex(limit)}`
          : `; reading the ${fit} entries that fit`),
    );
    return fit;
  }

  /** The smallest start of a section with file bytes, or of the section header table, after `offset`. */
  nextStructure(offset: number): number | null {
    let starts = this.structureStarts;
    if (starts === null) {
      const list = this.sections
        .filter((s) => s.type !== 0 && s.type !== 8 && s.size > 0)
        .map((s) => s.offset);
      if (this.shoff > 0) list.push(this.shoff);
      starts = this.structureStarts = Float64Array.from(list).sort();
    }
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (starts[mid]! <= offset) low = mid + 1;
      else high = mid;
    }
    return starts[low] ?? null;
  }

  // ----- Section headers

  parseSections(h: Header, section0: SectionZero | null): void {
    if (h.shoff === 0) {
      if (h.shnum !== 0) {
        this.warn(`Cannot parse ELF section headers: e_shnum is ${h.shnum} but e_shoff is 0`);
      }
      return;
    }
    const expected = this.is64 ? 64 : 40;
    if (h.shentsize !== expected) {
      this.warn(
        `Cannot parse ELF section headers: e_shentsize is ${h.shentsize}, expected ${expected} ` +
          `for a ${this.is64 ? 64 : 32}-bit file`,
      );
      return;
    }
    let count = h.shnum;
    if (count === 0) {
      if (section0 === null) {
        this.warn(
          `Cannot parse ELF section headers: table at offset ${hex(h.shoff)} starts past the ` +
            `end of the ${this.length}-byte file`,
        );
        return;
      }
      // Extended numbering: the count lives in section 0's sh_size.
      count = section0.size;
      if (count === 0) return;
    }
    const usable = this.fitTable("section headers", h.shoff, count, expected);
    if (usable === 0) return;
    this.shoff = h.shoff;
    const is64 = this.is64;
    const sections = this.sections;
    const pastEnd: ElfSection[] = [];
    const nameOffsets = new Array<number>(usable);
    for (let i = 0; i < usable; i++) {
      const o = h.shoff + i * expected;
      nameOffsets[i] = this.u32(o);
      const type = this.u32(o + 4);
      const section: ElfSection = {
        index: i,
        name: "",
        type,
        typeName: SECTION_TYPE_NAMES.get(type) ?? hex(type),
        flags: this.addr(o + 8),
        address: this.addr(o + (is64 ? 16 : 12)),
        offset: this.word(o + (is64 ? 24 : 16)),
        size: this.word(o + (is64 ? 32 : 20)),
        link: this.u32(o + (is64 ? 40 : 24)),
        info: this.u32(o + (is64 ? 44 : 28)),
        entrySize: this.word(o + (is64 ? 56 : 36)),
      };
      this.sectionAlignments.push(this.word(o + (is64 ? 48 : 32)));
      if (type !== 8 && type !== 0 && section.offset + section.size > this.length) {
        pastEnd.push(section);
      }
      sections.push(section);
    }
    this.nameSections(h, section0, nameOffsets);
    if (pastEnd.length > 0) {
      const n = pastEnd.length;
      const listed = pastEnd.slice(0, 5).map(sectionLabel).join(", ");
      this.warn(
        `${n} section${n === 1 ? " extends" : "s extend"} past the end of the ` +
          `${this.length}-byte file: ${listed}${n > 5 ? ", …" : ""}`,
      );
    }
  }

  nameSections(h: Header, section0: SectionZero | null, nameOffsets: number[]): void {
    const count = nameOffsets.length;
    let index = h.shstrndx;
    if (index === SHN_XINDEX) {
      if (section0 === null) {
        this.warn(
          "e_shstrndx is SHN_XINDEX but section header 0 cannot be read; sections are unnamed",
        );
        return;
      }
      index = section0.link;
    }
    if (index === 0) return;
    const table = index < count ? this.sections[index] : undefined;
    if (table === undefined) {
      this.warn(
        `e_shstrndx is ${index}, but there ${count === 1 ? "is" : "are"} only ${count} ` +
          `section${count === 1 ? "" : "s"}; sections are unnamed`,
      );
      return;
    }
    const strings = this.stringTable(table, "the section name table");
    if (strings === null) return;
    for (const section of this.sections) {
      section.name = strings.get(nameOffsets[section.index] ?? 0);
    }
    this.reportStrings(strings, "section");
  }

  /** A string table over a section's bytes, clamped to the file, or null with a warning. */
  stringTable(section: ElfSection, what: string): StringTable | null {
    const cached = this.stringTables.get(section.index);
    if (cached !== undefined) return cached;
    const table = this.openStringTable(section, what);
    this.stringTables.set(section.index, table);
    return table;
  }

  openStringTable(section: ElfSection, what: string): StringTable | null {
    const label = `${sectionLabel(section)}`;
    if (section.type === 8 || section.offset >= this.length) {
      this.warn(
        `Cannot read ${what} ${label}: it has no bytes in the ${this.length}-byte file`,
      );
      return null;
    }
    let end = section.offset + section.size;
    if (end > this.length) {
      this.warn(
        `String table ${label} (${section.size} bytes at offset ${hex(section.offset)}) runs ` +
          `past the end of the ${this.length}-byte file; reading the ${
            this.length - section.offset
          } bytes that fit`,
      );
      end = this.length;
    }
    return new StringTable(this.bytes.subarray(section.offset, end), label, this.stringBudget);
  }

  /** Warns about bad name offsets and cut names seen in a string table. */
  reportStrings(strings: StringTable, noun: "section" | "symbol", where = ""): void {
    const bad = strings.badOffsets;
    if (bad > 0) {
      this.warn(
        `${bad} ${noun}${bad === 1 ? "" : "s"}${where} ${
          bad === 1 ? "has a name offset" : "have name offsets"
        } ` +
          `past the end of the ${strings.size}-byte string table ${strings.label}; ` +
          `${bad === 1 ? "its name is" : "their names are"} empty`,
      );
    }
    const cut = strings.cutNames;
    if (cut > 0) {
      this.warn(
        `${cut} ${noun}${cut === 1 ? "" : "s"}${where} ${
          cut === 1 ? "has a name" : "have names"
        } ` +
          `longer than ${MAX_NAME_BYTES} bytes in ${strings.label}; ` +
          `${cut === 1 ? "it was" : "they were"} cut`,
      );
    }
    const skipped = strings.skipped;
    if (skipped > 0) {
      this.warn(
        `${skipped} ${noun}${
          skipped === 1 ? "" : "s"
        }${where} got no name from ${strings.label}: ` +
          `the string tables of this file add up to more than ${STRING_BUDGET_FACTOR} times its size`,
      );
    }
    if (bad > 0 || cut > 0 || skipped > 0) strings.reported = true;
    strings.badOffsets = 0;
    strings.cutNames = 0;
    strings.skipped = 0;
  }

  // ----- Symbols

  readFunctions(): void {
    const is64 = this.is64;
    const standard = is64 ? 24 : 16;
    let sawDynsym = false;
    if (this.entry !== 0n && (this.fileType === ET_EXEC || this.fileType === ET_DYN)) {
      const e = this.entry;
      this.entryLo = Number(e & 0xffffffffn);
      this.entryHi = Number(e >> 32n);
    }
    for (const section of this.sections) {
      if (section.type !== SHT_SYMTAB && section.type !== SHT_DYNSYM) continue;
      const label = sectionLabel(section);
      const source = section.type === SHT_SYMTAB ? "symtab" : "dynsym";
      let stride = section.entrySize;
      if (stride === 0) {
        this.warn(
          `Symbol table ${label} has sh_entsize 0; assuming the standard ${standard} bytes`,
        );
        stride = standard;
      } else if (stride < standard || stride > 0xffff) {
        this.warn(
          `Cannot read symbol table ${label}: sh_entsize is ${stride}, expected ${standard}`,
        );
        continue;
      }
      if (section.offset >= this.length) {
        this.warn(
          `Cannot read symbol table ${label}: it starts at offset ${hex(section.offset)}, ` +
            `past the end of the ${this.length}-byte file`,
        );
        continue;
      }
      let count = Math.floor(section.size / stride);
      // (A size that runs past the end of the file is wrong anyway; fitTable says so.)
      if (section.size % stride !== 0 && section.offset + section.size <= this.length) {
        this.warn(
          `Symbol table ${label} is ${section.size} bytes, not a multiple of its ${stride}-byte ` +
            `entry size; ignoring the last ${section.size % stride} bytes`,
        );
      }
      count = this.fitTable(
        `symbol table ${label}`,
        section.offset,
        count,
        stride,
        this.nextStructure(section.offset),
      );
      if (source === "dynsym" && count > 0) sawDynsym = true;
      const strings = this.linkedStrings(section, label);
      const table: SymbolTableRef = {
        label,
        offset: section.offset,
        count,
        stride,
        strings,
        source,
      };
      if (source === "dynsym" && this.dynamicTable === null) this.dynamicTable = table;
      this.readSymbolTable(table);
    }
    if (!sawDynsym) {
      const dynamic = this.segments.find((s) => s.type === PT_DYNAMIC);
      if (dynamic !== undefined) this.readDynamic(dynamic);
    }
  }

  linkedStrings(section: ElfSection, label: string): StringTable | null {
    const link = section.link;
    const count = this.sections.length;
    const target = this.sections[link];
    let problem: string | null = null;
    if (link === section.index) problem = "links to itself for its names";
    else if (target === undefined) {
      problem = `links to section ${link} for its names, but there ${
        count === 1 ? "is" : "are"
      } only ${count} section${count === 1 ? "" : "s"}`;
    } else if (target.type !== SHT_STRTAB) {
      problem = `links to section ${link} for its names, which is ${target.typeName}, ` +
        `not SHT_STRTAB`;
    }
    if (problem !== null || target === undefined) {
      this.warn(`Symbol table ${label} ${problem}; its symbol names are empty`);
      return null;
    }
    return this.stringTable(target, `the string table of ${label},`);
  }

  readSymbolTable(table: SymbolTableRef): void {
    let count = table.count;
    if (count > this.symbolBudget) {
      this.warn(
        `Symbol table ${table.label} has ${count} entries but only ${this.symbolBudget} of the ` +
          `maxSymbols limit of ${this.maxSymbols} remain; reading the first ${this.symbolBudget}`,
      );
      count = this.symbolBudget;
      table.count = count;
    }
    this.symbolBudget -= count;
    const view = this.view;
    const bytes = this.bytes;
    const le = this.le;
    const is64 = this.is64;
    const strings = table.strings;
    const sourceRank = SOURCE_RANK[table.source];
    const thumb = this.machine === EM_ARM;
    const watchEntry = this.entryLo >= 0;
    const entryLo = this.entryLo;
    const entryHi = this.entryHi;
    const stride = table.stride;
    const infoAt = is64 ? 4 : 12;
    const shndxAt = is64 ? 6 : 14;
    const valueAt = is64 ? 8 : 4;
    const sizeAt = is64 ? 16 : 8;
    const c = this.functions;
    c.reserve(Math.min(count, 4096));
    let n = c.count;
    let { hi: his, lo: los, sizes, ranks, kinds } = c;
    const names = c.names;
    let text = strings === null ? null : strings.fastText();
    const textLength = text === null ? 0 : text.length;
    const textHasAt = text !== null && text.includes("@");
    let o = table.offset;
    for (let i = 0; i < count; i++, o += stride) {
      const info = bytes[o + infoAt]!;
      const type = info & 0xf;
      const isFunction = type === STT_FUNC || type === STT_GNU_IFUNC;
      if (!isFunction && !(watchEntry && type === STT_NOTYPE)) continue;
      if (view.getUint16(o + shndxAt, le) === SHN_UNDEF) continue;
      let lo: number;
      let hi: number;
      let size: number;
      if (is64) {
        const a = view.getUint32(o + valueAt, le);
        const b = view.getUint32(o + valueAt + 4, le);
        lo = le ? a : b;
        hi = le ? b : a;
        const sa = view.getUint32(o + sizeAt, le);
        const sb = view.getUint32(o + sizeAt + 4, le);
        const sizeHi = le ? sb : sa;
        size = sizeHi < SAFE_HIGH_WORD ? sizeHi * TWO_32 + (le ? sa : sb) : NaN;
      } else {
        lo = view.getUint32(o + valueAt, le);
        hi = 0;
        size = view.getUint32(o + sizeAt, le);
      }
      const rank = (RANK_OF_STB[info >> 4] ?? RANK_OTHER) * 4 + sourceRank;
      if (!isFunction) {
        // A NOTYPE symbol (such as an assembler `_start`) that may name the entry point.
        if (lo !== entryLo || hi !== entryHi) continue;
        const namer = this.entryNamers;
        namer.reserve(1);
        const k = namer.count++;
        namer.hi[k] = hi;
        namer.lo[k] = lo;
        namer.sizes[k] = size;
        if (size !== size) namer.bigSizes.set(k, view.getBigUint64(o + sizeAt, le));
        namer.ranks[k] = rank;
        namer.kinds[k] = KIND_ENTRY;
        namer.names[k] = symbolName(strings, view.getUint32(o, le));
        continue;
      }
      if (thumb) lo = (lo & 0xfffffffe) >>> 0;
      if (n === his.length) {
        c.count = n;
        c.reserve(1);
        ({ hi: his, lo: los, sizes, ranks, kinds } = c);
      }
      his[n] = hi;
      los[n] = lo;
      sizes[n] = size;
      if (size !== size) c.bigSizes.set(n, view.getBigUint64(o + sizeAt, le));
      ranks[n] = rank;
      kinds[n] = type === STT_FUNC ? KIND_FUNCTION : KIND_IFUNC;
      // Inline fast path for the usual table (see StringTable.fastText).
      const nameAt = view.getUint32(o, le);
      let name: string | undefined;
      if (text !== null && nameAt < textLength) {
        let end = text.indexOf("\0", nameAt);
        if (end < 0) end = textLength;
        if (end - nameAt <= MAX_NAME_BYTES) {
          name = text.substring(nameAt, end);
          if (textHasAt) name = withoutVersion(name);
        }
      }
      if (name === undefined) {
        name = symbolName(strings, nameAt);
        text = strings === null ? null : strings.fastText();
      }
      names[n] = name;
      n++;
    }
    c.count = n;
    if (strings !== null) this.reportStrings(strings, "symbol", ` in ${table.label}`);
  }

  // ----- PT_DYNAMIC fallback

  readDynamic(dynamic: ElfSegment): void {
    this.dynamicSegmentChecked = true;
    const entrySize = this.is64 ? 16 : 8;
    if (dynamic.offset >= this.length) {
      this.warn(
        `Cannot read PT_DYNAMIC: it starts at offset ${hex(dynamic.offset)}, past the end of the ` +
          `${this.length}-byte file`,
      );
      return;
    }
    let end = dynamic.offset + dynamic.fileSize;
    if (end > this.length) {
      this.warn(
        `PT_DYNAMIC (${dynamic.fileSize} bytes at offset ${hex(dynamic.offset)}) runs past the ` +
          `end of the ${this.length}-byte file; reading what fits`,
      );
      end = this.length;
    }
    let symtab: bigint | null = null;
    let strtab: bigint | null = null;
    let strsz: number | null = null;
    let syment: number | null = null;
    let hash: bigint | null = null;
    let gnuHash: bigint | null = null;
    for (let o = dynamic.offset; o + entrySize <= end; o += entrySize) {
      const tag = this.word(o);
      if (tag === DT_NULL) break;
      const valueAt = o + entrySize / 2;
      switch (tag) {
        case DT_SYMTAB:
          symtab = this.addr(valueAt);
          break;
        case DT_STRTAB:
          strtab = this.addr(valueAt);
          break;
        case DT_STRSZ:
          strsz = this.word(valueAt);
          break;
        case DT_SYMENT:
          syment = this.word(valueAt);
          break;
        case DT_HASH:
          hash = this.addr(valueAt);
          break;
        case DT_GNU_HASH:
          gnuHash = this.addr(valueAt);
          break;
      }
    }
    if (symtab === null) return;
    const label = "the PT_DYNAMIC symbol table";
    const standard = this.is64 ? 24 : 16;
    const stride = syment ?? standard;
    if (stride < standard || stride > 0xffff) {
      this.warn(`Cannot read ${label}: DT_SYMENT is ${stride}, expected ${standard}`);
      return;
    }
    const symOffset = this.toFileOffset(symtab);
    if (symOffset === null) {
      this.warn(
        `Cannot read ${label}: DT_SYMTAB ${hex(symtab)} is not inside a PT_LOAD segment's file ` +
          `bytes`,
      );
      return;
    }
    let count: number | null = null;
    if (hash !== null) count = this.countFromHash(hash);
    if (count === null && gnuHash !== null) count = this.countFromGnuHash(gnuHash);
    if (count === null) {
      // No usable hash table: assume the symbols run up to the string table,
      // which is where linkers put it.
      const strOffset = strtab === null ? null : this.toFileOffset(strtab);
      if (strOffset === null || strOffset <= symOffset) {
        this.warn(
          `Cannot count the symbols of ${label}: there is no usable DT_HASH or DT_GNU_HASH`,
        );
        return;
      }
      count = Math.floor((strOffset - symOffset) / stride);
      this.warn(
        `There is no usable DT_HASH or DT_GNU_HASH; assuming ${label} ends where DT_STRTAB begins ` +
          `(${count} entries)`,
      );
    }
    // Tables do not overlap: the symbols end before the next dynamic table.
    const strOffset = strtab === null ? null : this.toFileOffset(strtab);
    let next: number | null = null;
    for (const address of [strtab, hash, gnuHash]) {
      const at = address === null ? null : this.toFileOffset(address);
      if (at !== null && at > symOffset && (next === null || at < next)) next = at;
    }
    if (next !== null && symOffset + count * stride > next) {
      const fit = Math.floor((next - symOffset) / stride);
      this.warn(
        `The ${count} entries of ${label} would overlap the dynamic table at offset ${
          hex(next)
        }; ` +
          `reading the first ${fit}`,
      );
      count = fit;
    }
    count = this.fitTable(label, symOffset, count, stride);
    let strings: StringTable | null = null;
    if (strOffset === null) {
      this.warn(`Cannot read the strings of ${label}: DT_STRTAB is missing or not in the file`);
    } else {
      let size = strsz ?? this.length - strOffset;
      if (strsz === null) {
        this.warn("DT_STRSZ is missing; reading dynamic symbol names up to the end of the file");
      } else if (strOffset + size > this.length) {
        this.warn(
          `The dynamic string table (DT_STRSZ ${strsz} bytes at offset ${hex(strOffset)}) runs ` +
            `past the end of the ${this.length}-byte file; reading what fits`,
        );
        size = this.length - strOffset;
      }
      strings = new StringTable(
        this.bytes.subarray(strOffset, strOffset + size),
        "DT_STRTAB",
        this.stringBudget,
      );
    }
    const table: SymbolTableRef = {
      label,
      offset: symOffset,
      count,
      stride,
      strings,
      source: "dynamic",
    };
    this.dynamicTable = table;
    this.readSymbolTable(table);
  }

  /** Reads the dynamic section, the build id, `.eh_frame` and the PLT (see {@linkcode ExtrasReader}). */
  readExtras(functions: ElfFunction[]): Extras {
    return new ExtrasReader(this, functions).read();
  }

  /** Translates a virtual address to a file offset through the PT_LOAD segments. */
  toFileOffset(address: bigint): number | null {
    for (const segment of this.segments) {
      if (segment.type !== PT_LOAD) continue;
      const start = segment.virtualAddress;
      if (address < start) continue;
      const delta = address - start;
      if (delta >= BigInt(segment.fileSize)) continue;
      const offset = segment.offset + Number(delta);
      return offset < this.length ? offset : null;
    }
    return null;
  }

  countFromHash(address: bigint): number | null {
    const offset = this.toFileOffset(address);
    if (offset === null || offset + 8 > this.length) {
      this.warn(`Cannot read DT_HASH at ${hex(address)}: it is not inside the file`);
      return null;
    }
    return this.u32(offset + 4);
  }

  /**
   * The number of dynamic symbols implied by a GNU hash table: one past the
   * last symbol of the chain of the highest bucket. Every read is checked
   * against the file, and the chain walk only moves forward, so it ends.
   */
  countFromGnuHash(address: bigint): number | null {
    const offset = this.toFileOffset(address);
    if (offset === null || offset + 16 > this.length) {
      this.warn(`Cannot read DT_GNU_HASH at ${hex(address)}: it is not inside the file`);
      return null;
    }
    const nbuckets = this.u32(offset);
    const symbolBase = this.u32(offset + 4);
    const bloomWords = this.u32(offset + 8);
    const bucketsAt = offset + 16 + bloomWords * (this.is64 ? 8 : 4);
    const chainsAt = bucketsAt + nbuckets * 4;
    if (chainsAt > this.length) {
      this.warn(
        `Cannot read DT_GNU_HASH at offset ${hex(offset)}: its ${bloomWords} bloom words and ` +
          `${nbuckets} buckets run past the end of the ${this.length}-byte file`,
      );
      return null;
    }
    let last = 0;
    for (let i = 0; i < nbuckets; i++) {
      const first = this.u32(bucketsAt + i * 4);
      if (first > last) last = first;
    }
    if (last === 0) return symbolBase;
    if (last < symbolBase) {
      this.warn(
        `DT_GNU_HASH at offset ${hex(offset)} has a bucket starting at symbol ${last}, below its ` +
          `first hashed symbol ${symbolBase}`,
      );
      return null;
    }
    for (let at = chainsAt + (last - symbolBase) * 4; at + 4 <= this.length; at += 4, last++) {
      if ((this.u32(at) & 1) !== 0) return last + 1;
    }
    this.warn(
      `The last chain of DT_GNU_HASH at offset ${hex(offset)} runs past the end of the file ` +
        `without an end marker`,
    );
    return null;
  }

  // ----- Entry point and result

  /** Adds the entry point to `functions` unless a function symbol starts there. */
  addEntry(functions: ElfFunction[]): void {
    if (this.entryLo < 0) return;
    let address = this.entry;
    if (this.machine === EM_ARM) address &= ~1n;
    // Binary search for the first function at or after the entry point.
    let low = 0;
    let high = functions.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (functions[mid]!.address < address) low = mid + 1;
      else high = mid;
    }
    if (functions[low]?.address === address) return;
    const namers = this.entryNamers;
    let entry: ElfFunction;
    if (namers.count > 0) {
      entry = namers.build("entry", KIND_ENTRY)[0]!;
      entry.address = address;
    } else {
      entry = {
        address,
        size: 0n,
        name: "",
        names: [],
        source: "entry",
        binding: "other",
        kind: "entry",
      };
    }
    functions.splice(low, 0, entry);
  }
}

// ---------------------------------------------------------------------------
// Dynamic section, notes, .eh_frame and the PLT

/** What {@linkcode ExtrasReader} adds to an {@linkcode ElfImage}. */
interface Extras {
  buildId: string | null;
  ehFrameFunctions: FdeRanges;
  dynamicSymbols: DynamicSymbols;
  pltStubs: ElfPltStub[];
  imports: ElfImport[];
}

const ET_REL = 1;
const EM_386 = 3;
const EM_X86_64 = 62;
const EM_AARCH64 = 183;

const PT_NOTE = 4;
const PT_GNU_EH_FRAME = 0x6474e550;

const SHT_PROGBITS = 1;
const SHT_RELA = 4;
const SHT_DYNAMIC = 6;
const SHT_NOTE = 7;
const SHT_NOBITS = 8;
const SHT_REL = 9;
const SHT_X86_64_UNWIND = 0x70000001;
const SHF_ALLOC = 2n;

const DT_NEEDED = 1;
const DT_PLTRELSZ = 2;
const DT_PLTGOT = 3;
const DT_RELA = 7;
const DT_RELASZ = 8;
const DT_RELAENT = 9;
const DT_INIT = 12;
const DT_FINI = 13;
const DT_SONAME = 14;
const DT_RPATH = 15;
const DT_REL = 17;
const DT_RELSZ = 18;
const DT_RELENT = 19;
const DT_PLTREL = 20;
const DT_JMPREL = 23;
const DT_INIT_ARRAY = 25;
const DT_FINI_ARRAY = 26;
const DT_INIT_ARRAYSZ = 27;
const DT_FINI_ARRAYSZ = 28;
const DT_RUNPATH = 29;
const DT_FLAGS = 30;
const DT_FLAGS_1 = 0x6ffffffb;

const NT_GNU_BUILD_ID = 3;

/** Most dynamic entries kept; real files have well under a hundred. */
const MAX_DYNAMIC_ENTRIES = 65536;
/** Longest build id accepted, in bytes (real ones are 8 to 32). */
const MAX_BUILD_ID_BYTES = 1024;
/** Longest CIE augmentation string read. */
const MAX_AUGMENTATION = 64;

const DYNAMIC_TAG_NAMES: ReadonlyMap<number, string> = new Map([
  [0, "DT_NULL"],
  [1, "DT_NEEDED"],
  [2, "DT_PLTRELSZ"],
  [3, "DT_PLTGOT"],
  [4, "DT_HASH"],
  [5, "DT_STRTAB"],
  [6, "DT_SYMTAB"],
  [7, "DT_RELA"],
  [8, "DT_RELASZ"],
  [9, "DT_RELAENT"],
  [10, "DT_STRSZ"],
  [11, "DT_SYMENT"],
  [12, "DT_INIT"],
  [13, "DT_FINI"],
  [14, "DT_SONAME"],
  [15, "DT_RPATH"],
  [16, "DT_SYMBOLIC"],
  [17, "DT_REL"],
  [18, "DT_RELSZ"],
  [19, "DT_RELENT"],
  [20, "DT_PLTREL"],
  [21, "DT_DEBUG"],
  [22, "DT_TEXTREL"],
  [23, "DT_JMPREL"],
  [24, "DT_BIND_NOW"],
  [25, "DT_INIT_ARRAY"],
  [26, "DT_FINI_ARRAY"],
  [27, "DT_INIT_ARRAYSZ"],
  [28, "DT_FINI_ARRAYSZ"],
  [29, "DT_RUNPATH"],
  [30, "DT_FLAGS"],
  [32, "DT_PREINIT_ARRAY"],
  [33, "DT_PREINIT_ARRAYSZ"],
  [34, "DT_SYMTAB_SHNDX"],
  [35, "DT_RELRSZ"],
  [36, "DT_RELR"],
  [37, "DT_RELRENT"],
  [0x6ffffdf5, "DT_GNU_PRELINKED"],
  [0x6ffffef5, "DT_GNU_HASH"],
  [0x6ffffef6, "DT_TLSDESC_PLT"],
  [0x6ffffef7, "DT_TLSDESC_GOT"],
  [0x6ffffff0, "DT_VERSYM"],
  [0x6ffffff9, "DT_RELACOUNT"],
  [0x6ffffffa, "DT_RELCOUNT"],
  [0x6ffffffb, "DT_FLAGS_1"],
  [0x6ffffffc, "DT_VERDEF"],
  [0x6ffffffd, "DT_VERDEFNUM"],
  [0x6ffffffe, "DT_VERNEED"],
  [0x6fffffff, "DT_VERNEEDNUM"],
  [0x7ffffffd, "DT_AUXILIARY"],
  [0x7fffffff, "DT_FILTER"],
]);

/** JUMP_SLOT, GLOB_DAT and IRELATIVE relocation types by e_machine. */
const RELOCATION_TYPES: ReadonlyMap<
  number,
  { jumpSlot: number; globDat: number; irelative: number }
> = new Map([
  [EM_X86_64, { jumpSlot: 7, globDat: 6, irelative: 37 }],
  [EM_386, { jumpSlot: 7, globDat: 6, irelative: 42 }],
  [EM_AARCH64, { jumpSlot: 1026, globDat: 1025, irelative: 1032 }],
  [EM_ARM, { jumpSlot: 22, globDat: 21, irelative: 160 }],
]);

const SYMBOL_TYPES: readonly ElfDynamicSymbol["type"][] = [
  "notype",
  "object",
  "function",
  "section",
  "file",
  "common",
  "tls",
];
const SYMBOL_BINDINGS: readonly ElfDynamicSymbol["binding"][] = ["local", "global", "weak"];

// DW_EH_PE pointer encodings: the low nibble is the format, bits 4-6 the
// application, bit 7 "indirect"; 0xff means "omitted".
const PE_ABSPTR = 0x00;
const PE_ULEB128 = 0x01;
const PE_UDATA2 = 0x02;
const PE_UDATA4 = 0x03;
const PE_UDATA8 = 0x04;
const PE_SIGNED = 0x08;
const PE_SLEB128 = 0x09;
const PE_SDATA2 = 0x0a;
const PE_SDATA4 = 0x0b;
const PE_SDATA8 = 0x0c;
const PE_PCREL = 0x10;
const PE_DATAREL = 0x30;
const PE_INDIRECT = 0x80;
const PE_OMIT = 0xff;

/** Outcomes of {@linkcode ExtrasReader.readRecord}. */
const RECORD_OK = 0;
const RECORD_ZERO = 1;
const RECORD_TRUNCATED = 2;
const RECORD_RESERVED = 3;
const RECORD_PAST_END = 4;
const RECORD_TOO_SHORT = 5;

/** A byte range of the file and the address its first byte has (when mapped). */
interface Region {
  offset: number;
  end: number;
  /** Address of `offset`, or NaN when unknown. */
  address: number;
  label: string;
}

/** What an FDE needs from its CIE. */
interface Cie {
  fdeEncoding: number;
  pointerSize: number;
}

/** FDEs as they are decoded (values are numbers below 2^53, else bigints). */
interface FdeSink {
  starts: (number | bigint)[];
  sizes: (number | bigint)[];
}

/** Damage counted while reading `.eh_frame`, reported once per kind. */
class ProblemCounter {
  #counts = new Map<string, { count: number; first: number }>();

  add(reason: string, offset: number): void {
    const known = this.#counts.get(reason);
    if (known === undefined) this.#counts.set(reason, { count: 1, first: offset });
    else known.count++;
  }

  entries(): [string, { count: number; first: number }][] {
    return [...this.#counts];
  }
}

/** One relocated GOT slot. */
interface Slot {
  symbol: number;
  type: number;
  kind: "jump-slot" | "glob-dat" | "irelative";
  /** RELA addend; for REL, read from the slot when needed. */
  addend: bigint | null;
}

/**
 * Reads what {@linkcode Parser} leaves out: the dynamic section, the build id
 * note, `.eh_frame` function starts, the dynamic symbols, and the PLT stubs
 * and imports. It uses the parser's headers and helpers, checks every read
 * against the file, and reports damage through the parser's warnings.
 */
class ExtrasReader {
  readonly p: Parser;
  readonly functions: ElfFunction[];
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly length: number;
  readonly le: boolean;
  readonly is64: boolean;
  readonly pointerSize: 4 | 8;
  // The last record read by readRecord.
  recordStart = 0;
  recordContent = 0;
  recordEnd = 0;
  recordId = 0;
  // The end of the last value read by readEncoded / uleb / sleb, and why it failed.
  next = 0;
  problem = "";
  #gotBase: number | null | undefined = undefined;
  /**
   * Bytes of note, PLT and relocation sections left to scan: a hostile file
   * can declare thousands of such sections over the same bytes, and this
   * keeps the work proportional to the file size.
   */
  #scanBudget: number;
  #budgetWarned = false;

  constructor(p: Parser, functions: ElfFunction[]) {
    this.p = p;
    this.functions = functions;
    this.bytes = p.bytes;
    this.view = p.view;
    this.length = p.length;
    this.le = p.le;
    this.is64 = p.is64;
    this.pointerSize = p.is64 ? 8 : 4;
    this.#scanBudget = STRING_BUDGET_FACTOR * p.length + (1 << 20);
  }

  /** Takes `region`'s bytes from the scan budget; false (warned once) when it has run out. */
  charge(region: Region): boolean {
    const bytes = region.end - region.offset;
    if (bytes <= this.#scanBudget) {
      this.#scanBudget -= bytes;
      return true;
    }
    if (!this.#budgetWarned) {
      this.#budgetWarned = true;
      this.warn(
        `Skipped ${region.label} and later note, PLT and relocation sections: together they ` +
          `add up to more than ${STRING_BUDGET_FACTOR} times the size of the file`,
      );
    }
    return false;
  }

  read(): Extras {
    this.guard("the dynamic section", () => this.readDynamicSection(), undefined);
    const buildId = this.guard("the build id note", () => this.readBuildId(), null);
    const ehFrameFunctions = this.guard(
      "the .eh_frame section",
      () => this.readEhFrame(),
      new FdeRanges({ starts: [], sizes: [] }),
    );
    const dynamicSymbols = this.guard(
      "the dynamic symbols",
      () => this.readDynamicSymbols(),
      new DynamicSymbols(this.view, true, true, 0, 0, []),
    );
    const { pltStubs, imports } = this.guard(
      "the PLT and GOT relocations",
      () => this.readPlt(dynamicSymbols),
      { pltStubs: [], imports: [] },
    );
    return { buildId, ehFrameFunctions, dynamicSymbols, pltStubs, imports };
  }

  /**
   * Runs `read`, turning an unexpected exception into a warning. Every read
   * is checked first, so this is a last line of defence, not the mechanism.
   */
  guard<T>(what: string, read: () => T, fallback: T): T {
    try {
      return read();
    } catch (error) {
      this.p.warn(
        `Internal error while reading ${what}: ${
          error instanceof Error ? error.message : String(error)
        }; it is skipped`,
      );
      return fallback;
    }
  }

  warn(message: string): void {
    this.p.warn(message);
  }

  u8(at: number): number {
    return this.bytes[at]!;
  }

  u16(at: number): number {
    return this.view.getUint16(at, this.le);
  }

  u32(at: number): number {
    return this.view.getUint32(at, this.le);
  }

  /** File offset of `address` through PT_LOAD, else through an allocated section. */
  offsetOf(address: bigint | number): number | null {
    const a = typeof address === "bigint" ? address : BigInt(address);
    const viaSegment = this.p.toFileOffset(a);
    if (viaSegment !== null || this.p.segments.length > 0) return viaSegment;
    for (const s of this.p.sections) {
      if (s.type === SHT_NOBITS || (s.flags & SHF_ALLOC) === 0n) continue;
      if (a >= s.address && a - s.address < BigInt(s.size)) {
        const offset = s.offset + Number(a - s.address);
        return offset < this.length ? offset : null;
      }
    }
    return null;
  }

  /** End (exclusive) of the PT_LOAD file bytes holding file offset `offset`. */
  loadEnd(offset: number): number {
    for (const s of this.p.segments) {
      if (s.type !== PT_LOAD) continue;
      if (offset >= s.offset && offset < s.offset + s.fileSize) {
        return Math.min(s.offset + s.fileSize, this.length);
      }
    }
    return this.length;
  }

  /** The file bytes of a section as a region, or null when it has none. */
  sectionRegion(section: ElfSection): Region | null {
    if (section.type === SHT_NOBITS || section.size === 0 || section.offset >= this.length) {
      return null;
    }
    const address = section.address < 2n ** 53n ? Number(section.address) : NaN;
    return {
      offset: section.offset,
      end: Math.min(section.offset + section.size, this.length),
      address,
      label: sectionLabel(section),
    };
  }

  /** A NUL-terminated string at `at`, not past `end` nor longer than MAX_NAME_BYTES. */
  cString(at: number, end: number): string {
    const limit = Math.min(end, at + MAX_NAME_BYTES);
    let stop = this.bytes.subarray(at, limit).indexOf(0);
    stop = stop < 0 ? limit : at + stop;
    return decoder.decode(this.bytes.subarray(at, stop));
  }

  // ----- Dynamic section

  readDynamicSection(): void {
    const p = this.p;
    const segment = p.segments.find((s) => s.type === PT_DYNAMIC);
    const section = p.sections.find((s) => s.type === SHT_DYNAMIC);
    let region: Region | null = null;
    if (segment !== undefined && segment.fileSize > 0 && segment.offset < this.length) {
      const end = segment.offset + segment.fileSize;
      if (end > this.length && !p.dynamicSegmentChecked) {
        this.warn(
          `PT_DYNAMIC (${segment.fileSize} bytes at offset ${hex(segment.offset)}) runs past ` +
            `the end of the ${this.length}-byte file; reading what fits`,
        );
      }
      region = {
        offset: segment.offset,
        end: Math.min(end, this.length),
        address: NaN,
        label: "PT_DYNAMIC",
      };
    } else if (section !== undefined) {
      region = this.sectionRegion(section);
    }
    if (region === null) return;
    const entrySize = this.is64 ? 16 : 8;
    const entries: ElfDynamicEntry[] = [];
    const tags = p.dynamicTags;
    let terminated = false;
    let capped = false;
    for (let o = region.offset; o + entrySize <= region.end; o += entrySize) {
      const tag = p.word(o);
      if (tag === DT_NULL) {
        terminated = true;
        break;
      }
      if (entries.length === MAX_DYNAMIC_ENTRIES) {
        this.warn(
          `The dynamic section (${region.label}) has more than ${MAX_DYNAMIC_ENTRIES} entries; ` +
            `reading the first ${MAX_DYNAMIC_ENTRIES}`,
        );
        capped = true;
        break;
      }
      const value = p.addr(o + entrySize / 2);
      entries.push({ tag, tagName: DYNAMIC_TAG_NAMES.get(tag) ?? hex(tag), value });
      if (!tags.has(tag)) tags.set(tag, value);
    }
    if (!terminated && !capped) {
      this.warn(
        `The dynamic section (${region.label}, ${region.end - region.offset} bytes at offset ${
          hex(region.offset)
        }) has no DT_NULL terminator; reading its ${entries.length} entries`,
      );
    }
    // Names come from DT_STRTAB (what the loader uses), else the section's sh_link.
    let strings: { offset: number; end: number } | null = null;
    const strtab = tags.get(DT_STRTAB);
    const strsz = tags.get(DT_STRSZ);
    const strOffset = strtab === undefined ? null : this.offsetOf(strtab);
    if (strOffset !== null) {
      const size = strsz === undefined ? this.length : Number(strsz);
      strings = { offset: strOffset, end: Math.min(strOffset + size, this.length) };
    } else if (section !== undefined) {
      const linked = p.sections[section.link];
      if (linked !== undefined && linked.type === SHT_STRTAB && linked.index !== section.index) {
        const r = this.sectionRegion(linked);
        if (r !== null) strings = { offset: r.offset, end: r.end };
      }
    }
    const needed: string[] = [];
    let soname: string | null = null;
    let runpath: string | null = null;
    let rpath: string | null = null;
    let bad = 0;
    let missing = 0;
    const name = (value: bigint): string | null => {
      if (strings === null) {
        missing++;
        return null;
      }
      if (value >= BigInt(strings.end - strings.offset)) {
        bad++;
        return null;
      }
      return this.cString(strings.offset + Number(value), strings.end);
    };
    for (const { tag, value } of entries) {
      if (tag === DT_NEEDED) {
        const n = name(value);
        if (n !== null) needed.push(n);
      } else if (tag === DT_SONAME && soname === null) soname = name(value);
      else if (tag === DT_RUNPATH && runpath === null) runpath = name(value);
      else if (tag === DT_RPATH && rpath === null) rpath = name(value);
    }
    if (missing > 0) {
      this.warn(
        `Cannot read the names of ${missing} dynamic entr${missing === 1 ? "y" : "ies"} ` +
          `(DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH): DT_STRTAB is missing or not in the file`,
      );
    }
    if (bad > 0) {
      this.warn(
        `${bad} dynamic entr${bad === 1 ? "y has a name offset" : "ies have name offsets"} past ` +
          `the end of the ${strings!.end - strings!.offset}-byte dynamic string table; ` +
          `${bad === 1 ? "it is" : "they are"} skipped`,
      );
    }
    const range = (addressTag: number, sizeTag: number): ElfAddressRange | null => {
      const address = tags.get(addressTag);
      return address === undefined ? null : { address, size: tags.get(sizeTag) ?? 0n };
    };
    p.dynamicInfo = {
      needed,
      soname,
      runpath,
      rpath,
      flags: tags.get(DT_FLAGS) ?? null,
      flags1: tags.get(DT_FLAGS_1) ?? null,
      init: tags.get(DT_INIT) ?? null,
      fini: tags.get(DT_FINI) ?? null,
      initArray: range(DT_INIT_ARRAY, DT_INIT_ARRAYSZ),
      finiArray: range(DT_FINI_ARRAY, DT_FINI_ARRAYSZ),
      entries,
    };
  }

  // ----- Notes

  readBuildId(): string | null {
    const p = this.p;
    const regions: { region: Region; alignment: number }[] = [];
    for (const s of p.sections) {
      if (s.type !== SHT_NOTE) continue;
      const region = this.sectionRegion(s);
      if (region !== null) regions.push({ region, alignment: p.sectionAlignments[s.index] ?? 4 });
    }
    if (regions.length === 0) {
      p.segments.forEach((s, i) => {
        if (s.type !== PT_NOTE || s.fileSize === 0 || s.offset >= this.length) return;
        regions.push({
          region: {
            offset: s.offset,
            end: Math.min(s.offset + s.fileSize, this.length),
            address: NaN,
            label: `PT_NOTE (program header ${i})`,
          },
          alignment: p.segmentAlignments[i] ?? 4,
        });
      });
    }
    let buildId: string | null = null;
    for (const { region, alignment } of regions) {
      if (!this.charge(region)) break;
      const found = this.readNotes(region, alignment === 8 ? 8 : 4);
      if (buildId === null) buildId = found;
    }
    return buildId;
  }

  /** Walks the notes of one region; returns the first GNU build id in it, if any. */
  readNotes(region: Region, pad: 4 | 8): string | null {
    let buildId: string | null = null;
    const end = region.end;
    for (let o = region.offset; o + 12 <= end;) {
      const namesz = this.u32(o);
      const descsz = this.u32(o + 4);
      const type = this.u32(o + 8);
      const descAt = o + roundUp(12 + namesz, pad);
      if (o + 12 + namesz > end || descAt + descsz > end) {
        this.warn(
          `The note at offset ${hex(o)} in ${region.label} has namesz ${namesz} and descsz ` +
            `${descsz}, which run past the end of its ${end - region.offset}-byte region; the ` +
            `rest of the region is skipped`,
        );
        break;
      }
      const isGnu = namesz === 4 && this.bytes[o + 12] === 0x47 && this.bytes[o + 13] === 0x4e &&
        this.bytes[o + 14] === 0x55 && this.bytes[o + 15] === 0;
      if (isGnu && type === NT_GNU_BUILD_ID && buildId === null) {
        if (descsz > MAX_BUILD_ID_BYTES) {
          this.warn(
            `The GNU build id note at offset ${hex(o)} in ${region.label} is ${descsz} bytes, ` +
              `more than ${MAX_BUILD_ID_BYTES}; it is ignored`,
          );
        } else {
          buildId = Array.from(this.bytes.subarray(descAt, descAt + descsz), hex2).join("");
        }
      }
      o = descAt + roundUp(descsz, pad);
    }
    return buildId;
  }

  // ----- .eh_frame

  readEhFrame(): FdeRanges {
    const none = new FdeRanges({ starts: [], sizes: [] });
    const p = this.p;
    if (p.fileType === ET_REL) return none;
    const named = (name: string): Region | null => {
      const s = p.sections.find((s) =>
        s.name === name && (s.type === SHT_PROGBITS || s.type === SHT_X86_64_UNWIND)
      );
      return s === undefined ? null : this.sectionRegion(s);
    };
    let hdr = named(".eh_frame_hdr");
    if (hdr === null) {
      const segment = p.segments.find((s) => s.type === PT_GNU_EH_FRAME);
      if (segment !== undefined && segment.fileSize > 0 && segment.offset < this.length) {
        hdr = {
          offset: segment.offset,
          end: Math.min(segment.offset + segment.fileSize, this.length),
          address: segment.virtualAddress < 2n ** 53n ? Number(segment.virtualAddress) : NaN,
          label: "PT_GNU_EH_FRAME",
        };
      }
    }
    let frame = named(".eh_frame");
    const sizeKnown = frame !== null;
    let problems = new ProblemCounter();
    const sink: FdeSink = { starts: [], sizes: [] };
    let table: { at: number; count: number; encoding: number; size: number } | null = null;
    if (hdr !== null) {
      const found = this.readEhFrameHdr(hdr, frame);
      if (found !== null) {
        if (frame === null && found.frame !== null) frame = found.frame;
        table = found.table;
      }
    }
    if (frame === null) return none;
    if (Number.isNaN(frame.address)) {
      this.warn(`Cannot read ${frame.label}: its address is not known`);
      return none;
    }
    const cies = new Map<number, Cie | null>();
    let fromTable = false;
    if (table !== null && hdr !== null) {
      const offsets = this.readFdeTable(hdr, frame, table, cies, sink, problems);
      fromTable = true;
      if (sizeKnown && offsets !== null) {
        // Cross-check: the table must list exactly the FDEs of .eh_frame.
        const walked: number[] = [];
        if (this.walkEhFrame(frame, true, null, cies, walked, problems)) {
          offsets.sort((a, b) => a - b);
          let same = offsets.length === walked.length;
          for (let i = 0; same && i < walked.length; i++) same = walked[i] === offsets[i];
          if (!same) {
            let missing = 0;
            const listed = new Set(offsets);
            for (const o of walked) if (!listed.has(o)) missing++;
            this.warn(
              `The .eh_frame_hdr table lists ${offsets.length} FDEs but ${frame.label} holds ` +
                `${walked.length} (${missing} not in the table); reading ${frame.label} instead`,
            );
            sink.starts.length = 0;
            sink.sizes.length = 0;
            problems = new ProblemCounter();
            fromTable = false;
          }
        }
      }
    }
    if (!fromTable) this.walkEhFrame(frame, sizeKnown, sink, cies, null, problems);
    for (const [reason, { count, first }] of problems.entries()) {
      this.warn(
        `${count} record${count === 1 ? "" : "s"} of ${frame.label} (the first at offset ${
          hex(first)
        }) ${reason}; ${count === 1 ? "it was" : "they were"} skipped`,
      );
    }
    return new FdeRanges(sink);
  }

  /**
   * Reads the `.eh_frame_hdr` header: the `.eh_frame` it points at (when
   * `frame` is not known from the section headers) and its search table.
   */
  readEhFrameHdr(hdr: Region, frame: Region | null): {
    frame: Region | null;
    table: { at: number; count: number; encoding: number; size: number } | null;
  } | null {
    const o = hdr.offset;
    if (hdr.end - o < 4) {
      this.warn(`Cannot read ${hdr.label}: it is ${hdr.end - o} bytes, needs at least 4`);
      return null;
    }
    const version = this.u8(o);
    if (version !== 1) {
      this.warn(`Cannot read ${hdr.label}: its version is ${version}, expected 1`);
      return null;
    }
    const pointerEncoding = this.u8(o + 1);
    const countEncoding = this.u8(o + 2);
    const tableEncoding = this.u8(o + 3);
    const dataBase = hdr.address;
    const pointer = pointerEncoding === PE_OMIT
      ? null
      : this.readEncoded(pointerEncoding, o + 4, hdr.end, hdr, dataBase);
    if (pointerEncoding !== PE_OMIT && pointer === null) {
      this.warn(`Cannot read the eh_frame_ptr of ${hdr.label}: ${this.problem}`);
      return null;
    }
    let at = pointer === null ? o + 4 : this.next;
    let found: Region | null = null;
    if (pointer !== null) {
      if (frame !== null) {
        if (typeof pointer !== "number" || pointer !== frame.address) {
          this.warn(
            `The eh_frame_ptr of ${hdr.label} is ${hex(pointer)}, but ${frame.label} is at ` +
              `${hex(frame.address)}; using ${frame.label}`,
          );
        }
      } else {
        const offset = this.offsetOf(pointer);
        if (offset === null) {
          this.warn(
            `Cannot read .eh_frame: the eh_frame_ptr ${hex(pointer)} of ${hdr.label} is not in ` +
              `the file`,
          );
        } else {
          found = {
            offset,
            end: this.loadEnd(offset),
            address: typeof pointer === "number" ? pointer : NaN,
            label: `.eh_frame (at eh_frame_ptr ${hex(pointer)})`,
          };
        }
      }
    }
    if (countEncoding === PE_OMIT || tableEncoding === PE_OMIT) {
      return { frame: found, table: null };
    }
    const count = this.readEncoded(countEncoding, at, hdr.end, hdr, dataBase);
    if (count === null || typeof count !== "number") {
      this.warn(`Cannot read the FDE count of ${hdr.label}: ${this.problem || "it is too large"}`);
      return { frame: found, table: null };
    }
    at = this.next;
    const size = fixedSize(tableEncoding, this.pointerSize);
    if (size === null || (tableEncoding & PE_INDIRECT) !== 0) {
      this.warn(
        `Cannot use the search table of ${hdr.label}: its encoding ${
          hex(tableEncoding)
        } has no fixed size`,
      );
      return { frame: found, table: null };
    }
    const fit = Math.floor((hdr.end - at) / (2 * size));
    let usable = count;
    if (count > fit) {
      this.warn(
        `The search table of ${hdr.label} claims ${count} entries of ${2 * size} bytes, but ` +
          `only ${fit} fit; reading ${fit}`,
      );
      usable = fit;
    }
    return { frame: found, table: { at, count: usable, encoding: tableEncoding, size } };
  }

  /**
   * Decodes the FDEs the `.eh_frame_hdr` table points at into `sink`, and
   * returns their offsets (for the cross-check against a walk), or null when
   * the table was unusable.
   */
  readFdeTable(
    hdr: Region,
    frame: Region,
    table: { at: number; count: number; encoding: number; size: number },
    cies: Map<number, Cie | null>,
    sink: FdeSink,
    problems: ProblemCounter,
  ): number[] | null {
    const offsets: number[] = [];
    let count = table.count;
    if (count > this.p.maxFdes) {
      this.warn(
        `The search table of ${hdr.label} lists ${count} FDEs, more than the maxFdes limit of ` +
          `${this.p.maxFdes}; reading the first ${this.p.maxFdes}`,
      );
      count = this.p.maxFdes;
    }
    const fast = table.encoding === (PE_DATAREL | PE_SDATA4);
    const base = hdr.address;
    let previous = -Infinity;
    let unsorted = 0;
    let mismatched = 0;
    let firstMismatch = 0;
    let at = table.at;
    for (let i = 0; i < count; i++, at += 2 * table.size) {
      let location: number | bigint | null;
      let address: number | bigint | null;
      if (fast) {
        location = base + this.view.getInt32(at, this.le);
        address = base + this.view.getInt32(at + 4, this.le);
      } else {
        location = this.readEncoded(table.encoding, at, at + table.size, hdr, base);
        address = this.readEncoded(table.encoding, at + table.size, at + 2 * table.size, hdr, base);
      }
      if (location === null || address === null) {
        problems.add(`could not be found through the search table: ${this.problem}`, at);
        continue;
      }
      if (typeof location === "number") {
        if (location < previous) unsorted++;
        previous = location;
      }
      const delta = typeof address === "number" ? address - frame.address : NaN;
      const offset = frame.offset + delta;
      if (!(delta >= 0) || offset + 8 > frame.end) {
        problems.add(
          `are listed in the search table of ${hdr.label} at an address outside ${frame.label}`,
          at,
        );
        continue;
      }
      const status = this.readRecord(offset, frame.end);
      if (status !== RECORD_OK || this.recordId === 0) {
        problems.add(
          `are listed in the search table of ${hdr.label} but are not FDEs ` +
            `(${status === RECORD_OK ? "a CIE" : recordProblem(status)})`,
          offset,
        );
        continue;
      }
      offsets.push(offset);
      const before = sink.starts.length;
      this.decodeFde(frame, sink, cies, problems);
      if (sink.starts.length > before && sink.starts[before] !== location) {
        if (mismatched++ === 0) firstMismatch = offset;
      }
    }
    if (unsorted > 0) {
      this.warn(
        `The search table of ${hdr.label} is not sorted (${unsorted} entries out of order)`,
      );
    }
    if (mismatched > 0) {
      this.warn(
        `${mismatched} entr${mismatched === 1 ? "y" : "ies"} of the search table of ${hdr.label} ` +
          `give${mismatched === 1 ? "s" : ""} an initial location that differs from the FDE's ` +
          `pc_begin (the first FDE at offset ${hex(firstMismatch)}); using the FDE's`,
      );
    }
    return offsets;
  }

  /**
   * Walks the records of `.eh_frame` in order, decoding FDEs into `sink`
   * (or, without a sink, only noting FDE offsets in `offsets`). A zero length
   * ends the walk when the section's size is not known; otherwise it is a
   * terminator word that is skipped. Returns whether the walk saw no damage
   * to the record structure.
   */
  walkEhFrame(
    frame: Region,
    sizeKnown: boolean,
    sink: FdeSink | null,
    cies: Map<number, Cie | null>,
    offsets: number[] | null,
    problems: ProblemCounter,
  ): boolean {
    const max = this.p.maxFdes;
    let fdes = 0;
    for (let at = frame.offset; at < frame.end;) {
      const status = this.readRecord(at, frame.end);
      if (status === RECORD_ZERO) {
        if (!sizeKnown) break;
        at += 4;
        continue;
      }
      if (status !== RECORD_OK) {
        if (!sizeKnown && status === RECORD_TRUNCATED) break;
        this.warn(
          `Stopped reading ${frame.label} at offset ${hex(at)}: ${recordProblem(status)}` +
            (status === RECORD_TRUNCATED || status === RECORD_PAST_END
              ? ` (the region ends at offset ${hex(frame.end)})`
              : ""),
        );
        return false;
      }
      const end = this.recordEnd;
      if (this.recordId !== 0) {
        if (fdes === max) {
          this.warn(
            `${frame.label} holds more than the maxFdes limit of ${max} FDEs; reading the ` +
              `first ${max}`,
          );
          return true;
        }
        fdes++;
        if (offsets !== null) offsets.push(at);
        if (sink !== null) this.decodeFde(frame, sink, cies, problems);
      }
      at = end;
    }
    return true;
  }

  /**
   * Reads the length and CIE id of the record at `at` into `record*`. A
   * length of 0xffffffff is followed by a 64-bit length; the CIE id / CIE
   * pointer is 4 bytes either way, as `.eh_frame` defines it.
   */
  readRecord(at: number, end: number): number {
    if (at + 4 > end) return RECORD_TRUNCATED;
    const length32 = this.u32(at);
    if (length32 === 0) return RECORD_ZERO;
    let content = at + 4;
    let length = length32;
    if (length32 === 0xffffffff) {
      if (at + 12 > end) return RECORD_TRUNCATED;
      const a = this.u32(at + 4);
      const b = this.u32(at + 8);
      const high = this.le ? b : a;
      if (high >= SAFE_HIGH_WORD) return RECORD_PAST_END;
      length = high * TWO_32 + (this.le ? a : b);
      content = at + 12;
    } else if (length32 >= 0xfffffff0) return RECORD_RESERVED;
    const recordEnd = content + length;
    if (recordEnd > end) return RECORD_PAST_END;
    if (length < 4) return RECORD_TOO_SHORT;
    this.recordStart = at;
    this.recordContent = content;
    this.recordEnd = recordEnd;
    this.recordId = this.u32(content);
    return RECORD_OK;
  }

  /** Decodes the FDE just read by {@linkcode readRecord} into `sink`. */
  decodeFde(
    frame: Region,
    sink: FdeSink,
    cies: Map<number, Cie | null>,
    problems: ProblemCounter,
  ): void {
    const start = this.recordStart;
    const idAt = this.recordContent;
    const end = this.recordEnd;
    const pointer = this.recordId;
    if (pointer > idAt - frame.offset) {
      problems.add(
        "have a CIE pointer that points before the start of the section",
        start,
      );
      return;
    }
    const cieAt = idAt - pointer;
    if (cieAt === start) {
      problems.add("have a CIE pointer that points at the FDE itself", start);
      return;
    }
    let cie = cies.get(cieAt);
    if (cie === undefined) {
      cie = this.readCie(cieAt, frame);
      if (cie === null) {
        problems.add(`have an unusable CIE: ${this.problem}`, start);
        cies.set(cieAt, null);
        return;
      }
      cies.set(cieAt, cie);
    } else if (cie === null) {
      // The reason was counted with the first FDE of this CIE.
      problems.add("have a CIE that an earlier FDE found unusable", start);
      return;
    }
    const encoding = cie.fdeEncoding;
    const at = idAt + 4;
    let begin: number | bigint | null;
    let range: number | bigint | null;
    if (encoding === (PE_PCREL | PE_SDATA4) && at + 8 <= end) {
      // The common case, inline.
      begin = frame.address + (at - frame.offset) + this.view.getInt32(at, this.le);
      range = this.view.getInt32(at + 4, this.le);
      if (begin < 0 || begin >= (this.is64 ? 2 ** 53 : TWO_32) || range < 0) {
        begin = this.readEncoded(encoding, at, end, frame, NaN, cie.pointerSize);
        range = begin === null
          ? null
          : this.readEncoded(encoding & 0x0f, this.next, end, frame, NaN, cie.pointerSize);
      }
    } else {
      begin = this.readEncoded(encoding, at, end, frame, this.gotBase(), cie.pointerSize);
      range = begin === null
        ? null
        : this.readEncoded(encoding & 0x0f, this.next, end, frame, NaN, cie.pointerSize);
    }
    if (begin === null || range === null) {
      problems.add(`have an unreadable pc_begin or pc_range: ${this.problem}`, start);
      return;
    }
    sink.starts.push(begin);
    sink.sizes.push(range);
  }

  /** Parses the CIE at `at`; null (with `problem` set) when unusable. */
  readCie(at: number, frame: Region): Cie | null {
    if (at < frame.offset || at >= frame.end) {
      this.problem = `the CIE pointer leads to offset ${hex(at)}, outside ${frame.label}`;
      return null;
    }
    const status = this.readRecord(at, frame.end);
    if (status !== RECORD_OK) {
      this.problem = `the record at offset ${hex(at)} ${recordProblem(status)}`;
      return null;
    }
    if (this.recordId !== 0) {
      this.problem = `the record at offset ${hex(at)} is not a CIE`;
      return null;
    }
    const end = this.recordEnd;
    let o = this.recordContent + 4;
    const truncated = (): null => {
      this.problem = `the CIE at offset ${hex(at)} is truncated`;
      return null;
    };
    if (o >= end) return truncated();
    const version = this.u8(o++);
    if (version !== 1 && version !== 3 && version !== 4) {
      this.problem = `the CIE at offset ${hex(at)} has version ${version}, expected 1, 3 or 4`;
      return null;
    }
    const nul = this.bytes.subarray(o, Math.min(end, o + MAX_AUGMENTATION + 1)).indexOf(0);
    if (nul < 0) {
      this.problem = `the CIE at offset ${hex(at)} has no augmentation string ending within ` +
        `${MAX_AUGMENTATION} bytes`;
      return null;
    }
    const augmentation = decoder.decode(this.bytes.subarray(o, o + nul));
    o += nul + 1;
    let pointerSize = this.pointerSize;
    if (version === 4) {
      if (o + 2 > end) return truncated();
      const size = this.u8(o);
      if (size !== 4 && size !== 8) {
        this.problem = `the CIE at offset ${hex(at)} has address size ${size}`;
        return null;
      }
      pointerSize = size;
      o += 2;
    }
    if (augmentation === "eh") o += this.pointerSize; // GCC 2.x: a pointer to EH data
    // Code and data alignment factors, return address register.
    for (let i = 0; i < 3; i++) {
      if (i === 2 && version === 1) o++;
      else {
        this.uleb(o, end);
        o = this.next;
      }
      if (o > end) return truncated();
    }
    let fdeEncoding = PE_ABSPTR;
    if (augmentation.startsWith("z")) {
      const length = this.uleb(o, end);
      o = this.next;
      if (Number.isNaN(length) || o + length > end) return truncated();
      const dataEnd = o + length;
      for (let i = 1; i < augmentation.length; i++) {
        const c = augmentation[i];
        if (c === "R") {
          if (o >= dataEnd) return truncated();
          fdeEncoding = this.u8(o++);
        } else if (c === "P") {
          if (o >= dataEnd) return truncated();
          const encoding = this.u8(o++);
          // Only the format matters here: the bytes are skipped, not used.
          if (this.readEncoded(encoding & 0x0f, o, dataEnd, frame, NaN, pointerSize) === null) {
            this.problem = `the personality pointer of the CIE at offset ${hex(at)}: ` +
              this.problem;
            return null;
          }
          o = this.next;
        } else if (c === "L") {
          if (o >= dataEnd) return truncated();
          o++;
        } else if (c === "S" || c === "B" || c === "G") {
          // Signal frame, AArch64 pointer authentication B key, MTE tagged frame: no data.
        } else {
          // Unknown: its data cannot be skipped, so only what came before is known.
          if (augmentation.includes("R", i)) {
            this.problem = `the CIE at offset ${hex(at)} has augmentation "${augmentation}", ` +
              `whose '${c}' hides the FDE pointer encoding`;
            return null;
          }
          break;
        }
      }
    } else if (augmentation !== "" && augmentation !== "eh") {
      this.problem = `the CIE at offset ${hex(at)} has the unknown augmentation "${augmentation}"`;
      return null;
    }
    if (fdeEncoding === PE_OMIT || !knownEncoding(fdeEncoding)) {
      this.problem = `the CIE at offset ${hex(at)} has the unknown FDE pointer encoding ${
        hex(fdeEncoding)
      }`;
      return null;
    }
    return { fdeEncoding, pointerSize };
  }

  /** The datarel base of `.eh_frame` pointers: the GOT (DT_PLTGOT, else .got.plt or .got). */
  gotBase(): number {
    if (this.#gotBase === undefined) {
      let base: bigint | undefined = this.p.dynamicTags.get(DT_PLTGOT);
      if (base === undefined) {
        base = (this.p.sections.find((s) => s.name === ".got.plt") ??
          this.p.sections.find((s) => s.name === ".got"))?.address;
      }
      this.#gotBase = base !== undefined && base < 2n ** 53n ? Number(base) : null;
    }
    return this.#gotBase ?? NaN;
  }

  /**
   * Reads a DW_EH_PE-encoded pointer at `at` (not past `end`) in `region`,
   * setting `next` to the byte after it. Returns a number when the value is
   * below 2^53 (always, in practice), else a bigint; null with `problem` set
   * when the encoding is unknown or unsupported, the value is truncated, or
   * a base it needs is unknown (NaN `dataBase`).
   */
  readEncoded(
    encoding: number,
    at: number,
    end: number,
    region: Region,
    dataBase: number,
    pointerSize: number = this.pointerSize,
  ): number | bigint | null {
    if (encoding === PE_OMIT) {
      this.problem = "the value is omitted (DW_EH_PE_omit)";
      return null;
    }
    let raw: number | bigint;
    const format = encoding & 0x0f;
    let size = 0;
    switch (format) {
      case PE_ABSPTR:
      case PE_SIGNED:
        size = pointerSize;
        break;
      case PE_UDATA2:
      case PE_SDATA2:
        size = 2;
        break;
      case PE_UDATA4:
      case PE_SDATA4:
        size = 4;
        break;
      case PE_UDATA8:
      case PE_SDATA8:
        size = 8;
        break;
      case PE_ULEB128:
      case PE_SLEB128:
        break;
      default:
        this.problem = `unknown pointer encoding ${hex(encoding)}`;
        return null;
    }
    if (size > 0) {
      if (at + size > end) {
        this.problem = `a ${size}-byte value at offset ${hex(at)} runs past its record`;
        return null;
      }
      const signed = format >= PE_SIGNED;
      if (size === 2) raw = signed ? this.view.getInt16(at, this.le) : this.u16(at);
      else if (size === 4) raw = signed ? this.view.getInt32(at, this.le) : this.u32(at);
      else {
        raw = signed ? this.view.getBigInt64(at, this.le) : this.view.getBigUint64(at, this.le);
        if (raw < 2n ** 53n && raw > -(2n ** 53n)) raw = Number(raw);
      }
      this.next = at + size;
    } else {
      raw = format === PE_ULEB128 ? this.ulebBig(at, end) : this.slebBig(at, end);
      if (this.next > end || this.next - at > 10) {
        this.problem = `a LEB128 value at offset ${hex(at)} runs past its record`;
        return null;
      }
      if (raw < 2n ** 53n && raw > -(2n ** 53n)) raw = Number(raw);
    }
    let base: number;
    switch (encoding & 0x70) {
      case 0:
        base = 0;
        break;
      case PE_PCREL:
        base = region.address + (at - region.offset);
        break;
      case PE_DATAREL:
        base = dataBase;
        if (Number.isNaN(base)) {
          this.problem = `DW_EH_PE_datarel (${hex(encoding)}) needs a base that is not known here`;
          return null;
        }
        break;
      default:
        this.problem = `unsupported pointer encoding ${hex(encoding)}`;
        return null;
    }
    const after = this.next;
    let value = addWrapped(raw, base, pointerSize);
    if ((encoding & PE_INDIRECT) !== 0) {
      const offset = this.offsetOf(value);
      if (offset === null || offset + pointerSize > this.length) {
        this.problem = `the indirect pointer ${hex(value)} is not in the file`;
        return null;
      }
      value = pointerSize === 8 ? this.view.getBigUint64(offset, this.le) : this.u32(offset);
      if (typeof value === "bigint" && value < 2n ** 53n) value = Number(value);
      this.next = after;
    }
    return value;
  }

  /** An unsigned LEB128 as a number (NaN when too large or unterminated); sets `next`. */
  uleb(at: number, end: number): number {
    let value = 0;
    let scale = 1;
    for (let o = at; o < end && o < at + 8; o++) {
      const byte = this.bytes[o]!;
      value += (byte & 0x7f) * scale;
      scale *= 128;
      if ((byte & 0x80) === 0) {
        this.next = o + 1;
        return value;
      }
    }
    this.next = end + 1;
    return NaN;
  }

  /** An unsigned LEB128 of up to 10 bytes as a bigint; sets `next` (past `end` when unterminated). */
  ulebBig(at: number, end: number): bigint {
    let value = 0n;
    let shift = 0n;
    for (let o = at; o < end && o < at + 10; o++) {
      const byte = this.bytes[o]!;
      value |= BigInt(byte & 0x7f) << shift;
      shift += 7n;
      if ((byte & 0x80) === 0) {
        this.next = o + 1;
        return BigInt.asUintN(64, value);
      }
    }
    this.next = end + 11;
    return 0n;
  }

  /** A signed LEB128 of up to 10 bytes as a bigint; sets `next` like {@linkcode ulebBig}. */
  slebBig(at: number, end: number): bigint {
    let value = 0n;
    let shift = 0n;
    for (let o = at; o < end && o < at + 10; o++) {
      const byte = this.bytes[o]!;
      value |= BigInt(byte & 0x7f) << shift;
      shift += 7n;
      if ((byte & 0x80) === 0) {
        this.next = o + 1;
        if ((byte & 0x40) !== 0) value -= 1n << shift;
        return BigInt.asIntN(64, value);
      }
    }
    this.next = end + 11;
    return 0n;
  }

  // ----- Dynamic symbols

  readDynamicSymbols(): DynamicSymbols {
    const table = this.p.dynamicTable;
    if (table === null) return new DynamicSymbols(this.view, true, true, 0, 0, []);
    const strings = table.strings;
    // Names are read now (string table damage is reported here); the rest of
    // each entry is read from the bytes when asked.
    const names: string[] = new Array(Math.max(0, table.count - 1));
    for (let i = 1, o = table.offset + table.stride; i < table.count; i++, o += table.stride) {
      names[i - 1] = symbolName(strings, this.u32(o));
    }
    if (strings !== null) {
      // Names of function symbols were already checked; report only new damage.
      if (strings.reported) {
        strings.badOffsets = 0;
        strings.cutNames = 0;
        strings.skipped = 0;
      } else this.p.reportStrings(strings, "symbol", ` in ${table.label}`);
    }
    return new DynamicSymbols(
      this.view,
      this.is64,
      this.le,
      table.offset + table.stride,
      table.stride,
      names,
    );
  }

  // ----- PLT and GOT relocations

  readPlt(symbols: DynamicSymbols): { pltStubs: ElfPltStub[]; imports: ElfImport[] } {
    const p = this.p;
    const types = RELOCATION_TYPES.get(p.machine) ?? null;
    const slots = this.readSlots(types);
    if (slots.size === 0) return { pltStubs: [], imports: [] };
    const symbolAt = (index: number): { name: string; defined: boolean } | undefined =>
      index >= 1 && index <= symbols.count
        ? { name: symbols.name(index - 1), defined: symbols.defined(index - 1) }
        : undefined;
    const pltStubs: ElfPltStub[] = [];
    const stubOfSlot = new Map<number, bigint>();
    if (types !== null) {
      for (const section of p.sections) {
        if (section.name !== ".plt" && section.name !== ".plt.sec" && section.name !== ".plt.got") {
          continue;
        }
        const region = this.sectionRegion(section);
        if (region === null || Number.isNaN(region.address)) continue;
        if (!this.charge(region)) break;
        for (const [address, slot] of this.decodeStubs(section, region)) {
          const relocation = slots.get(slot);
          if (relocation === undefined) continue;
          let name = "";
          let irelative: bigint | null = null;
          if (relocation.kind === "irelative") {
            irelative = relocation.addend ?? this.readSlot(slot);
            if (irelative !== null) name = this.functionAt(irelative);
          } else name = symbolAt(relocation.symbol)?.name ?? "";
          if (relocation.kind !== "irelative" && name === "") continue;
          pltStubs.push({
            address: BigInt(address),
            name,
            gotAddress: BigInt(slot),
            section: section.name,
            irelative,
          });
          if (!stubOfSlot.has(slot)) stubOfSlot.set(slot, BigInt(address));
        }
      }
      pltStubs.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
    }
    const imports: ElfImport[] = [];
    const order = [...slots.keys()].sort((a, b) => a - b);
    let missing = 0;
    for (const slot of order) {
      const relocation = slots.get(slot)!;
      if (relocation.kind === "irelative" || relocation.symbol === 0) continue;
      const symbol = symbolAt(relocation.symbol);
      if (symbol === undefined) {
        missing++;
        continue;
      }
      if (symbol.defined || symbol.name === "") continue;
      imports.push({
        name: symbol.name,
        gotAddress: BigInt(slot),
        stubAddress: stubOfSlot.get(slot) ?? null,
        kind: relocation.kind,
      });
    }
    if (missing > 0) {
      this.warn(
        `${missing} PLT/GOT relocation${missing === 1 ? " names a symbol" : "s name symbols"} ` +
          `past the end of the ${symbols.count + 1}-entry dynamic symbol table; ` +
          `${missing === 1 ? "it is" : "they are"} skipped`,
      );
    }
    return { pltStubs, imports };
  }

  /** Name of the function symbol starting at `address`, or `""`. */
  functionAt(address: bigint): string {
    const functions = this.functions;
    let low = 0;
    let high = functions.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (functions[mid]!.address < address) low = mid + 1;
      else high = mid;
    }
    const f = functions[low];
    return f !== undefined && f.address === address ? f.name : "";
  }

  /** The pointer stored in the GOT slot at `address` (REL relocations keep the addend there). */
  readSlot(address: number): bigint | null {
    const offset = this.offsetOf(address);
    if (offset === null || offset + this.pointerSize > this.length) return null;
    return this.is64 ? this.view.getBigUint64(offset, this.le) : BigInt(this.u32(offset));
  }

  /**
   * The GOT slots that JUMP_SLOT, GLOB_DAT and IRELATIVE relocations fill,
   * keyed by address: from DT_JMPREL and DT_RELA / DT_REL, else from the
   * `.rela.plt` / `.rel.plt` and other allocated relocation sections.
   */
  readSlots(
    types: { jumpSlot: number; globDat: number; irelative: number } | null,
  ): Map<number, Slot> {
    const p = this.p;
    const tags = p.dynamicTags;
    const slots = new Map<number, Slot>();
    const tables: { region: Region; rela: boolean; plt: boolean; entrySize: number | null }[] = [];
    const fromTags = (
      addressTag: number,
      sizeTag: number,
      entryTag: number | null,
      rela: boolean,
      plt: boolean,
      label: string,
    ): void => {
      const address = tags.get(addressTag);
      const size = tags.get(sizeTag);
      if (address === undefined || size === undefined || size === 0n) return;
      const offset = this.offsetOf(address);
      if (offset === null) {
        this.warn(`Cannot read ${label}: its address ${hex(address)} is not in the file`);
        return;
      }
      const end = offset + Number(size);
      if (end > this.length) {
        this.warn(
          `${label} (${size} bytes at offset ${hex(offset)}) runs past the end of the ` +
            `${this.length}-byte file; reading what fits`,
        );
      }
      const entry = entryTag === null ? undefined : tags.get(entryTag);
      tables.push({
        region: { offset, end: Math.min(end, this.length), address: NaN, label },
        rela,
        plt,
        entrySize: entry === undefined ? null : Number(entry),
      });
    };
    if (tags.has(DT_JMPREL) || tags.has(DT_RELA) || tags.has(DT_REL)) {
      const pltRel = tags.get(DT_PLTREL);
      const pltIsRela = pltRel === undefined ? this.is64 : pltRel === BigInt(DT_RELA);
      fromTags(DT_JMPREL, DT_PLTRELSZ, null, pltIsRela, true, "DT_JMPREL");
      fromTags(DT_RELA, DT_RELASZ, DT_RELAENT, true, false, "DT_RELA");
      fromTags(DT_REL, DT_RELSZ, DT_RELENT, false, false, "DT_REL");
    } else {
      for (const s of p.sections) {
        if ((s.type !== SHT_RELA && s.type !== SHT_REL) || (s.flags & SHF_ALLOC) === 0n) continue;
        const region = this.sectionRegion(s);
        if (region === null) continue;
        tables.push({
          region,
          rela: s.type === SHT_RELA,
          plt: s.name === ".rela.plt" || s.name === ".rel.plt",
          entrySize: s.entrySize === 0 ? null : s.entrySize,
        });
      }
    }
    const is64 = this.is64;
    const le = this.le;
    const view = this.view;
    for (const { region, rela, plt, entrySize } of tables) {
      if (!this.charge(region)) break;
      const standard = rela ? (is64 ? 24 : 12) : (is64 ? 16 : 8);
      if (entrySize !== null && entrySize !== standard) {
        this.warn(
          `Cannot read ${region.label}: its entries are ${entrySize} bytes, expected ${standard}`,
        );
        continue;
      }
      const size = region.end - region.offset;
      if (size % standard !== 0 && region.end < this.length) {
        this.warn(
          `${region.label} is ${size} bytes, not a multiple of its ${standard}-byte entries; ` +
            `ignoring the last ${size % standard} bytes`,
        );
      }
      for (let o = region.offset; o + standard <= region.end; o += standard) {
        let type: number;
        let symbol: number;
        let slot: number;
        if (is64) {
          const a = view.getUint32(o + 8, le);
          const b = view.getUint32(o + 12, le);
          type = le ? a : b;
          symbol = le ? b : a;
          slot = this.p.word(o);
        } else {
          const info = view.getUint32(o + 4, le);
          type = info & 0xff;
          symbol = info >>> 8;
          slot = view.getUint32(o, le);
        }
        let kind: Slot["kind"];
        if (types === null) {
          if (!plt || symbol === 0) continue;
          kind = "jump-slot";
        } else if (type === types.jumpSlot) kind = "jump-slot";
        else if (type === types.globDat) kind = "glob-dat";
        else if (type === types.irelative) kind = "irelative";
        else continue;
        if (slot >= 2 ** 53) continue;
        const addend = rela
          ? (is64 ? view.getBigInt64(o + 16, le) : BigInt(view.getInt32(o + 8, le)))
          : null;
        if (!slots.has(slot)) {
          slots.set(slot, {
            symbol,
            type,
            kind,
            addend: addend === null ? null : BigInt.asUintN(is64 ? 64 : 32, addend),
          });
        }
      }
    }
    return slots;
  }

  /** [stub address, GOT slot] for each stub of a PLT section the decoder recognises. */
  decodeStubs(section: ElfSection, region: Region): [number, number][] {
    const machine = this.p.machine;
    const stubs: [number, number][] = [];
    const size = region.end - region.offset;
    if (machine === EM_X86_64 || machine === EM_386) {
      const endbr = machine === EM_X86_64 ? 0xfa : 0xfb;
      const startsWithEndbr = size >= 4 && this.bytes[region.offset] === 0xf3 &&
        this.bytes[region.offset + 1] === 0x0f && this.bytes[region.offset + 2] === 0x1e &&
        this.bytes[region.offset + 3] === endbr;
      const stride = section.entrySize === 8 || section.entrySize === 16
        ? section.entrySize
        : section.name === ".plt.got" && !startsWithEndbr
        ? 8
        : 16;
      if (size % stride !== 0) {
        this.warn(
          `PLT section ${sectionLabel(section)} is ${size} bytes, not a multiple of its ` +
            `${stride}-byte entries; ignoring the last ${size % stride} bytes`,
        );
      }
      for (let o = region.offset; o + stride <= region.end; o += stride) {
        const slot = this.x86Slot(o, o + stride, endbr, machine === EM_X86_64, region);
        if (slot !== null) stubs.push([region.address + (o - region.offset), slot]);
      }
      return stubs;
    }
    if (machine !== EM_AARCH64 && machine !== EM_ARM) return stubs;
    if (size % 4 !== 0) {
      this.warn(
        `PLT section ${sectionLabel(section)} is ${size} bytes, not a multiple of 4-byte ` +
          `instructions; ignoring the last ${size % 4} bytes`,
      );
    }
    const end = region.offset + (size - (size % 4));
    for (let o = region.offset; o + 4 <= end;) {
      const address = region.address + (o - region.offset);
      const found = machine === EM_AARCH64
        ? this.aarch64Stub(o, end, address)
        : this.armStub(o, end, address);
      if (found === null) {
        o += 4;
        continue;
      }
      stubs.push([address, found.slot]);
      o = found.next;
    }
    return stubs;
  }

  /**
   * The GOT slot an x86 PLT entry at `o` jumps through: `[endbr] [bnd] jmp
   * *slot`, where the slot is `disp32(%rip)` on x86-64 and either an absolute
   * `disp32` or `disp32(%ebx)` (relative to the GOT) on i386.
   */
  x86Slot(o: number, end: number, endbr: number, is64: boolean, region: Region): number | null {
    const b = this.bytes;
    let at = o;
    if (b[at] === 0xf3 && b[at + 1] === 0x0f && b[at + 2] === 0x1e && b[at + 3] === endbr) at += 4;
    if (b[at] === 0xf2) at++; // bnd (MPX)
    if (at + 6 > end || b[at] !== 0xff) return null;
    const modrm = b[at + 1];
    const disp = this.view.getInt32(at + 2, this.le);
    if (is64) {
      if (modrm !== 0x25) return null;
      return region.address + (at + 6 - region.offset) + disp;
    }
    if (modrm === 0x25) return disp >>> 0;
    if (modrm === 0xa3) {
      const got = this.gotBase();
      return Number.isNaN(got) ? null : (got + disp) >>> 0;
    }
    return null;
  }

  /**
   * An AArch64 PLT stub at `o`: `[bti c] adrp x16, page; ldr x17, [x16, #off];
   * add x16, x16, #off; [autia1716 | autib1716] br x17`.
   */
  aarch64Stub(o: number, end: number, address: number): { slot: number; next: number } | null {
    let at = o;
    let pc = address;
    if (at + 4 <= end && this.u32(at) === 0xd503245f) { // bti c
      at += 4;
      pc += 4;
    }
    if (at + 16 > end) return null;
    const adrp = this.u32(at);
    const ldr = this.u32(at + 4);
    const add = this.u32(at + 8);
    if (((adrp & 0x9f00001f) >>> 0) !== 0x90000010) return null; // adrp x16
    if (((ldr & 0xffc003ff) >>> 0) !== 0xf9400211) return null; // ldr x17, [x16, #imm]
    if (((add & 0xffc003ff) >>> 0) !== 0x91000210) return null; // add x16, x16, #imm
    let brAt = at + 12;
    const maybeAuth = this.u32(brAt);
    if (maybeAuth === 0xd503219f || maybeAuth === 0xd50321df) brAt += 4; // autia1716 / autib1716
    if (brAt + 4 > end || this.u32(brAt) !== 0xd61f0220) return null; // br x17
    const immlo = (adrp >>> 29) & 3;
    const immhi = (adrp >>> 5) & 0x7ffff;
    let pages = immhi * 4 + immlo;
    if (pages >= 0x100000) pages -= 0x200000; // 21-bit signed
    const page = Math.floor(pc / 4096) * 4096 + pages * 4096;
    const slot = page + ((ldr >>> 10) & 0xfff) * 8;
    return slot < 0 ? null : { slot, next: brAt + 4 };
  }

  /**
   * An ARM (A32) PLT stub at `o`: `add ip, pc, #imm; [add ip, ip, #imm]…;
   * ldr pc, [ip, #imm]!`, the slot being pc + 8 plus the immediates.
   */
  armStub(o: number, end: number, address: number): { slot: number; next: number } | null {
    if (o + 12 > end) return null;
    const first = this.u32(o);
    if (((first & 0xfffff000) >>> 0) !== 0xe28fc000) return null; // add ip, pc, #imm
    let sum = address + 8 + armImmediate(first);
    let at = o + 4;
    for (let i = 0; i < 2 && at + 4 <= end; i++) {
      const insn = this.u32(at);
      if (((insn & 0xfffff000) >>> 0) !== 0xe28cc000) break; // add ip, ip, #imm
      sum += armImmediate(insn);
      at += 4;
    }
    if (at + 4 > end) return null;
    const load = this.u32(at);
    if (((load & 0xfffff000) >>> 0) !== 0xe5bcf000) return null; // ldr pc, [ip, #imm]!
    return { slot: (sum + (load & 0xfff)) >>> 0, next: at + 4 };
  }
}

/** The value of an A32 data-processing modified immediate (imm8 rotated right by 2 * rot). */
function armImmediate(insn: number): number {
  const rotation = ((insn >>> 8) & 0xf) * 2;
  const imm8 = insn & 0xff;
  return ((imm8 >>> rotation) | (imm8 << (32 - rotation))) >>> 0;
}

/** `value` rounded up to a multiple of `alignment`. */
function roundUp(value: number, alignment: number): number {
  return Math.ceil(value / alignment) * alignment;
}

/** Whether a DW_EH_PE encoding is one this reader decodes. */
function knownEncoding(encoding: number): boolean {
  const format = encoding & 0x0f;
  const application = encoding & 0x70;
  const formatKnown = format <= PE_UDATA8 || (format >= PE_SIGNED && format <= PE_SDATA8);
  return formatKnown && (application === 0 || application === PE_PCREL ||
    application === PE_DATAREL);
}

/** The size of a fixed-size DW_EH_PE format, or null for LEB128 and unknown formats. */
function fixedSize(encoding: number, pointerSize: number): number | null {
  if (!knownEncoding(encoding)) return null;
  switch (encoding & 0x0f) {
    case PE_ABSPTR:
    case PE_SIGNED:
      return pointerSize;
    case PE_UDATA2:
    case PE_SDATA2:
      return 2;
    case PE_UDATA4:
    case PE_SDATA4:
      return 4;
    case PE_UDATA8:
    case PE_SDATA8:
      return 8;
    default:
      return null;
  }
}

/** `raw + base` modulo 2^(8 * size): a number below 2^53, else a bigint. */
function addWrapped(raw: number | bigint, base: number, size: number): number | bigint {
  if (typeof raw === "number") {
    const sum = raw + base;
    if (size === 4) return ((sum % TWO_32) + TWO_32) % TWO_32;
    if (sum >= 0 && sum < 2 ** 53) return sum;
  }
  const wrapped = BigInt.asUintN(size * 8, BigInt(raw) + BigInt(base));
  return wrapped < 2n ** 53n ? Number(wrapped) : wrapped;
}

/** What a {@linkcode ExtrasReader.readRecord} outcome means, as a clause. */
function recordProblem(status: number): string {
  switch (status) {
    case RECORD_ZERO:
      return "has length 0 (a terminator)";
    case RECORD_TRUNCATED:
      return "has a length field that runs past the end of the section";
    case RECORD_RESERVED:
      return "has a reserved length value (0xfffffff0 to 0xfffffffe)";
    case RECORD_PAST_END:
      return "has a length that runs past the end of the section";
    case RECORD_TOO_SHORT:
      return "has a length too short to hold its CIE id";
    default:
      return "is unreadable";
  }
}

/** The decoded FDEs as ranges, sorted by address, then size. */
/**
 * The FDE ranges of a parse as read (pc_begin and pc_range, numbers below
 * 2^53 or bigints), in address-then-size order through `order` when they
 * were not read in that order; no object per FDE until {@linkcode ranges}.
 */
class FdeRanges implements ElfRangeTable {
  readonly count: number;
  #starts: (number | bigint)[];
  #sizes: (number | bigint)[];
  #order: Uint32Array | null = null;

  constructor(sink: FdeSink) {
    this.#starts = sink.starts;
    this.#sizes = sink.sizes;
    const n = this.count = sink.starts.length;
    for (let i = 1; i < n; i++) {
      if (this.#compare(i - 1, i) > 0) {
        const order = new Uint32Array(n);
        for (let k = 0; k < n; k++) order[k] = k;
        // Stable, as sorting the range objects was.
        this.#order = order.sort((a, b) => this.#compare(a, b) || a - b);
        break;
      }
    }
  }

  #compare(i: number, j: number): number {
    const a = this.#starts[i]!;
    const b = this.#starts[j]!;
    if (a !== b) {
      if (typeof a === "number" && typeof b === "number") return a < b ? -1 : 1;
      const x = BigInt(a);
      const y = BigInt(b);
      if (x !== y) return x < y ? -1 : 1;
    }
    const c = this.#sizes[i]!;
    const d = this.#sizes[j]!;
    if (typeof c === "number" && typeof d === "number") return c < d ? -1 : c > d ? 1 : 0;
    const x = BigInt(c);
    const y = BigInt(d);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  address(k: number): bigint {
    const start = this.#starts[this.#order === null ? k : this.#order[k]!]!;
    return typeof start === "bigint" ? start : BigInt(start);
  }

  size(k: number): bigint {
    const size = this.#sizes[this.#order === null ? k : this.#order[k]!]!;
    if (typeof size === "bigint") return size;
    return size < SMALL_BIGINTS.length ? SMALL_BIGINTS[size] ??= BigInt(size) : BigInt(size);
  }

  ranges(): ElfAddressRange[] {
    const ranges: ElfAddressRange[] = new Array(this.count);
    for (let k = 0; k < this.count; k++) {
      ranges[k] = { address: this.address(k), size: this.size(k) };
    }
    return ranges;
  }
}

/**
 * The dynamic symbol table of a parse: names decoded, everything else read
 * from the file bytes on request; objects only from {@linkcode symbols}.
 */
class DynamicSymbols implements ElfSymbolTable {
  readonly count: number;
  #view: DataView;
  #is64: boolean;
  #le: boolean;
  /** File offset of symbol 1 (the first after the null symbol). */
  #first: number;
  #stride: number;
  #names: string[];

  constructor(
    view: DataView,
    is64: boolean,
    le: boolean,
    first: number,
    stride: number,
    names: string[],
  ) {
    this.#view = view;
    this.#is64 = is64;
    this.#le = le;
    this.#first = first;
    this.#stride = stride;
    this.#names = names;
    this.count = names.length;
  }

  #at(i: number): number {
    return this.#first + i * this.#stride;
  }

  name(i: number): string {
    return this.#names[i]!;
  }

  value(i: number): bigint {
    const o = this.#at(i);
    return this.#is64
      ? this.#view.getBigUint64(o + 8, this.#le)
      : BigInt(this.#view.getUint32(o + 4, this.#le));
  }

  size(i: number): bigint {
    const o = this.#at(i);
    return this.#is64
      ? this.#view.getBigUint64(o + 16, this.#le)
      : BigInt(this.#view.getUint32(o + 8, this.#le));
  }

  type(i: number): ElfDynamicSymbol["type"] {
    const type = this.#view.getUint8(this.#at(i) + (this.#is64 ? 4 : 12)) & 0xf;
    return type === STT_GNU_IFUNC ? "ifunc" : SYMBOL_TYPES[type] ?? "other";
  }

  binding(i: number): ElfDynamicSymbol["binding"] {
    const info = this.#view.getUint8(this.#at(i) + (this.#is64 ? 4 : 12));
    return SYMBOL_BINDINGS[info >> 4] ?? "other";
  }

  sectionIndex(i: number): number {
    return this.#view.getUint16(this.#at(i) + (this.#is64 ? 6 : 14), this.#le);
  }

  defined(i: number): boolean {
    return this.sectionIndex(i) !== SHN_UNDEF;
  }

  symbols(): ElfDynamicSymbol[] {
    const symbols: ElfDynamicSymbol[] = new Array(this.count);
    for (let i = 0; i < this.count; i++) {
      const sectionIndex = this.sectionIndex(i);
      symbols[i] = {
        index: i + 1,
        name: this.#names[i]!,
        value: this.value(i),
        size: this.size(i),
        type: this.type(i),
        binding: this.binding(i),
        sectionIndex,
        defined: sectionIndex !== SHN_UNDEF,
      };
    }
    return symbols;
  }
}

/** The table behind each parse's lazily built `dynamicSymbols`. */
const SYMBOL_TABLES = new WeakMap<
  ElfImage,
  { table: DynamicSymbols | null; list: ElfDynamicSymbol[] }
>();

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
}

/**
 * The dynamic symbols of a parse, read from the parser's compact table when
 * the `dynamicSymbols` list has not been built.
 */
export function dynamicSymbolTable(elf: ElfImage): ElfSymbolTable {
  const table = SYMBOL_TABLES.get(elf)?.table;
  if (table) return table;
  const list = elf.dynamicSymbols;
  return {
    count: list.length,
    name: (i) => list[i]!.name,
    value: (i) => list[i]!.value,
    type: (i) => list[i]!.type,
    binding: (i) => list[i]!.binding,
    defined: (i) => list[i]!.defined,
  };
}

/** The FDE table behind each parse's lazily built `ehFrameFunctions`. */
const FDE_TABLES = new WeakMap<
  ElfImage,
  { table: FdeRanges | null; list: ElfAddressRange[] }
>();

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

/**
 * The `.eh_frame` FDE ranges of a parse, as {@linkcode ElfImage.ehFrameFunctions}
 * lists them, read from the parser's compact table when the list has not
 * been built (so no object per FDE is made).
 */
export function ehFrameRanges(elf: ElfImage): ElfRangeTable {
  const table = FDE_TABLES.get(elf)?.table;
  if (table) return table;
  const list = elf.ehFrameFunctions;
  return {
    count: list.length,
    address: (k) => list[k]!.address,
    size: (k) => list[k]!.size,
  };
}

function emptyDynamic(): ElfDynamic {
  return {
    needed: [],
    soname: null,
    runpath: null,
    rpath: null,
    flags: null,
    flags1: null,
    init: null,
    fini: null,
    initArray: null,
    finiArray: null,
    entries: [],
  };
}

interface Header {
  phoff: number;
  shoff: number;
  phentsize: number;
  phnum: number;
  shentsize: number;
  shnum: number;
  shstrndx: number;
}

interface SectionZero {
  size: number;
  link: number;
  info: number;
}

/**
 * Whether a symbol beats the current choice: a non-empty name over an empty
 * one (a damaged name offset), then the better rank (global > weak > local >
 * other, then symtab > dynsym > dynamic), then the shorter name, then
 * code-unit order.
 */
function isBetter(rank: number, name: string, currentRank: number, current: string): boolean {
  if ((name === "") !== (current === "")) return name !== "";
  if (rank !== currentRank) return rank < currentRank;
  if (name.length !== current.length) return name.length < current.length;
  return name < current;
}

/** The name at `offset` without a `@VERSION` / `@@VERSION` suffix. */
function symbolName(strings: StringTable | null, offset: number): string {
  return strings === null ? "" : withoutVersion(strings.get(offset));
}

/** `name` without a `@VERSION` / `@@VERSION` suffix. */
function withoutVersion(name: string): string {
  const at = name.indexOf("@");
  return at > 0 ? name.substring(0, at) : name;
}

function sectionLabel(section: ElfSection): string {
  return section.name === ""
    ? `(section ${section.index})`
    : `${section.name} (section ${section.index})`;
}

function hex(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}

function hex2(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}
