/**
 * Function symbols: `.symtab` and `.dynsym`, or the dynamic symbol table
 * found through PT_DYNAMIC (its size from DT_HASH or DT_GNU_HASH), grouped
 * into one function per start address, plus the entry point.
 *
 * @module
 */

import {
  firstAtOrAfter,
  hex,
  SAFE_HIGH_WORD,
  sectionLabel,
  SMALL_BIGINTS,
  TWO_32,
} from "./_util.ts";
import {
  DT_GNU_HASH,
  DT_HASH,
  DT_NULL,
  DT_STRSZ,
  DT_STRTAB,
  DT_SYMENT,
  DT_SYMTAB,
  EM_AARCH64,
  EM_ARM,
  ET_DYN,
  ET_EXEC,
  MAX_NAME_BYTES,
  PT_DYNAMIC,
  SHN_LORESERVE,
  SHN_UNDEF,
  SHT_DYNSYM,
  SHT_STRTAB,
  SHT_SYMTAB,
  STT_FUNC,
  STT_GNU_IFUNC,
  STT_NOTYPE,
} from "./constants.ts";
import { HeaderReader } from "./headers.ts";
import type {
  ElfFunction,
  ElfMappingSymbol,
  ElfSection,
  ElfSegment,
  ElfSymbolSource,
} from "./model.ts";
import { StringTable } from "./string_table.ts";

/** Where a symbol table is in the file, and how to read it. */
export interface SymbolTableRef {
  label: string;
  offset: number;
  count: number;
  stride: number;
  strings: StringTable | null;
  source: ElfSymbolSource;
}

type Binding = ElfFunction["binding"];

const SOURCE_RANK: Readonly<Record<ElfSymbolSource, number>> = {
  symtab: 0,
  dynsym: 1,
  dynamic: 2,
  entry: 3,
};

const KIND_FUNCTION = 0;
const KIND_IFUNC = 1;
const KIND_ENTRY = 2;
const KINDS: readonly ElfFunction["kind"][] = ["function", "ifunc", "entry"];
/** Set in a `kinds` entry when the symbol's value had the Thumb bit (ARM). */
const THUMB_FLAG = 0x80;

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
      const fn: ElfFunction = {
        address: wordsAddress(h, l),
        size: this.size(sizeOf),
        name: names[best]!,
        names: list,
        source: source ?? SOURCE_OF_RANK[rank & 3]!,
        binding: BINDING_OF_RANK[rank >> 2]!,
        kind: KINDS[kind ?? kinds[best]! & ~THUMB_FLAG]!,
      };
      if ((kinds[best]! & THUMB_FLAG) !== 0) fn.thumb = true;
      functions.push(fn);
      start = end;
    }
    return functions;
  }
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
export function symbolName(strings: StringTable | null, offset: number): string {
  return strings === null ? "" : withoutVersion(strings.get(offset));
}

/** `name` without a `@VERSION` / `@@VERSION` suffix. */
function withoutVersion(name: string): string {
  const at = name.indexOf("@");
  return at > 0 ? name.substring(0, at) : name;
}

/** The address whose high and low 32-bit words are `hi` and `lo`. */
function wordsAddress(hi: number, lo: number): bigint {
  return hi < SAFE_HIGH_WORD ? BigInt(hi * TWO_32 + lo) : (BigInt(hi) << 32n) | BigInt(lo);
}

/** The `$` that starts a mapping symbol's name. */
const DOLLAR = 0x24;
const MAPPING_KINDS = "atxd";

/**
 * The kind of a mapping symbol named `name` (`$a`, `$t`, `$x`, `$d`, each
 * maybe followed by `.` and anything), or null for any other name.
 */
export function mappingKind(name: string): ElfMappingSymbol["kind"] | null {
  if (name.charCodeAt(0) !== DOLLAR || (name.length > 2 && name.charCodeAt(2) !== 0x2e)) {
    return null;
  }
  const letter = name.charAt(1);
  return name.length >= 2 && MAPPING_KINDS.includes(letter)
    ? letter as ElfMappingSymbol["kind"]
    : null;
}

/**
 * Reads the function symbols of `.symtab` and `.dynsym`, or of the dynamic
 * symbol table found through PT_DYNAMIC, and adds the entry point.
 */
export class SymbolReader extends HeaderReader {
  symbolBudget: number = this.maxSymbols;
  functions: Collector = new Collector();
  /** NOTYPE symbols at the entry point, in case no function symbol starts there. */
  entryNamers: Collector = new Collector();
  entryFunction: ElfFunction | null = null;
  entryLo = -1;
  entryHi = -1;
  /** The dynamic symbol table the function symbols were read from, if any. */
  dynamicTable: SymbolTableRef | null = null;
  /** The first static symbol table (`.symtab`) read, if any. */
  staticTable: SymbolTableRef | null = null;
  /** Whether {@linkcode readDynamic} has looked at (and warned about) PT_DYNAMIC's extent. */
  dynamicSegmentChecked = false;
  /** Mapping symbols of `.symtab` as read: address, kind, in table order. */
  mapping: ElfMappingSymbol[] = [];

  /** The mapping symbols read, sorted by address, the last in table order at each address. */
  mappingSymbols(): ElfMappingSymbol[] {
    // The sort is stable: symbols at one address stay in table order.
    const sorted = [...this.mapping].sort((a, b) =>
      a.address < b.address ? -1 : a.address > b.address ? 1 : 0
    );
    const out: ElfMappingSymbol[] = [];
    for (const m of sorted) {
      if (out.at(-1)?.address === m.address) out[out.length - 1] = m;
      else out.push(m);
    }
    return out;
  }

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
      if (source === "symtab" && this.staticTable === null) this.staticTable = table;
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
    // Mapping symbols ($a, $t, $x, $d) say which bytes of ARM and AArch64 code are instructions.
    const mapping = table.source === "symtab" && (thumb || this.machine === EM_AARCH64);
    const watchEntry = this.entryLo >= 0;
    const entryLo = this.entryLo;
    const entryHi = this.entryHi;
    const stride = table.stride;
    const infoAt = is64 ? 4 : 12;
    const shndxAt = is64 ? 6 : 14;
    const valueAt = is64 ? 8 : 4;
    const sizeAt = is64 ? 16 : 8;
    // A relocatable file's symbol values are offsets into their section: add its layout address.
    const layout = this.layout;
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
      if (!isFunction && !((watchEntry || mapping) && type === STT_NOTYPE)) continue;
      const shndx = view.getUint16(o + shndxAt, le);
      if (shndx === SHN_UNDEF) continue;
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
      if (layout !== null && shndx < SHN_LORESERVE) {
        const base = layout[shndx];
        if (base !== undefined && base !== null) {
          const value = (BigInt(hi) << 32n | BigInt(lo)) + base;
          hi = Number(value >> 32n);
          lo = Number(value & 0xffffffffn);
        }
      }
      const rank = (RANK_OF_STB[info >> 4] ?? RANK_OTHER) * 4 + sourceRank;
      if (!isFunction) {
        if (mapping) {
          const nameAt = view.getUint32(o, le);
          if (text === null || (nameAt < textLength && text.charCodeAt(nameAt) === DOLLAR)) {
            const kind = mappingKind(symbolName(strings, nameAt));
            text = strings === null ? null : strings.fastText();
            if (kind !== null) {
              this.mapping.push({ address: wordsAddress(hi, lo), kind });
              continue;
            }
          }
        }
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
      // Bit 0 of an ARM function's value marks Thumb code: kept as a flag beside its kind.
      const thumbCode = thumb && (lo & 1) === 1;
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
      kinds[n] = (type === STT_FUNC ? KIND_FUNCTION : KIND_IFUNC) | (thumbCode ? THUMB_FLAG : 0);
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
    // Where each tag's value is (the last entry of a tag wins).
    const valueAt = new Map<number, number>();
    for (let o = dynamic.offset; o + entrySize <= end; o += entrySize) {
      const tag = this.word(o);
      if (tag === DT_NULL) break;
      valueAt.set(tag, o + entrySize / 2);
    }
    const tagAddress = (tag: number): bigint | null => {
      const at = valueAt.get(tag);
      return at === undefined ? null : this.addr(at);
    };
    const tagValue = (tag: number): number | null => {
      const at = valueAt.get(tag);
      return at === undefined ? null : this.word(at);
    };
    const symtab = tagAddress(DT_SYMTAB);
    const strtab = tagAddress(DT_STRTAB);
    const strsz = tagValue(DT_STRSZ);
    const syment = tagValue(DT_SYMENT);
    const hash = tagAddress(DT_HASH);
    const gnuHash = tagAddress(DT_GNU_HASH);
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

  /** Adds the entry point to `functions` unless a function symbol starts there. */
  addEntry(functions: ElfFunction[]): void {
    if (this.entryLo < 0) return;
    let address = this.entry;
    const thumbEntry = this.machine === EM_ARM && (address & 1n) === 1n;
    if (this.machine === EM_ARM) address &= ~1n;
    const low = firstAtOrAfter(functions, address);
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
    if (thumbEntry) entry.thumb = true;
    functions.splice(low, 0, entry);
  }
}
