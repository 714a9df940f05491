/**
 * A dependency-free ELF reader: header, program headers, section headers and
 * the function symbols of `.symtab` / `.dynsym` (or, for binaries without
 * usable section headers, of the dynamic symbol table found via PT_DYNAMIC).
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
  /** Human-readable notes about what was skipped or bounded; empty for a sound file. */
  warnings: string[];
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
  return new Parser(bytes, maxSymbols).parse();
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

  constructor(bytes: Uint8Array, maxSymbols: number) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.length;
    this.maxSymbols = maxSymbols;
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
    if (this.droppedWarnings > 0) {
      this.warnings.push(`${this.droppedWarnings} more warnings were omitted`);
    }
    const fileType = FILE_TYPES.get(this.fileType) ?? "unknown";
    return {
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
      warnings: this.warnings,
    };
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
      this.readSymbolTable({ label, offset: section.offset, count, stride, strings, source });
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
    this.readSymbolTable({ label, offset: symOffset, count, stride, strings, source: "dynamic" });
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
