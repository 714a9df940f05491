/**
 * Builds small synthetic ELF files in memory for the ELF reader's tests:
 * an ELF header, `.text` / `.data`, optionally `.symtab` + `.strtab`,
 * optionally `.dynsym` + `.dynstr` with `.hash` / `.gnu.hash` / `.dynamic`
 * and the PT_LOAD + PT_DYNAMIC program headers, `.shstrtab`, and the section
 * header table last.
 *
 * Every file has one PT_LOAD that maps the whole file at {@linkcode BASE}, so
 * a section at file offset `o` has address `BASE + o`. `.text` is always at
 * file offset 0x200 (address {@linkcode TEXT}) and `.data` at 0x400
 * (address {@linkcode DATA}).
 *
 * @module
 */

/** Load address of file offset 0. */
export const BASE = 0x400000;
/** Address of `.text` (file offset 0x200, 0x200 bytes). */
export const TEXT = BASE + 0x200;
/** Address of `.data` (file offset 0x400, 0x40 bytes). */
export const DATA = BASE + 0x400;

/** ELF constants the tests use. */
export const STT_NOTYPE = 0;
export const STT_OBJECT = 1;
export const STT_FUNC = 2;
export const STT_SECTION = 3;
export const STT_FILE = 4;
export const STT_GNU_IFUNC = 10;
export const STB_LOCAL = 0;
export const STB_GLOBAL = 1;
export const STB_WEAK = 2;
export const SHN_ABS = 0xfff1;
export const ET_REL = 1;
export const ET_EXEC = 2;
export const ET_DYN = 3;

/** Which section a fixture symbol is defined in, or a raw st_shndx. */
export type FixtureSection = "text" | "data" | "undef" | "abs" | number;

/** One symbol to write. */
export interface FixtureSymbol {
  name: string;
  value: number;
  size?: number;
  type: number;
  bind: number;
  section: FixtureSection;
}

/** What to build. */
export interface FixtureOptions {
  bits: 32 | 64;
  endianness: "little" | "big";
  /** e_machine; defaults to x86-64 / i386 / PowerPC64 / MIPS by class and byte order. */
  machine?: number;
  /** e_type; defaults to ET_EXEC. */
  type?: number;
  /** e_entry; defaults to {@linkcode TEXT}. */
  entry?: number;
  /** `.symtab` symbols (the null symbol is added); omit for no `.symtab`. */
  symtab?: FixtureSymbol[];
  /** `.dynsym` symbols (the null symbol is added); omit for no dynamic section. */
  dynsym?: FixtureSymbol[];
  /** Hash tables to write with `.dynsym`; defaults to `"both"`. */
  hash?: "sysv" | "gnu" | "both" | "none";
  /** Whether to write the section header table; defaults to true. */
  sectionHeaders?: boolean;
}

/** Where things landed in a built file. */
export interface FixtureSectionInfo {
  index: number;
  /** File offset of the section header. */
  headerOffset: number;
  offset: number;
  size: number;
}

/** A built file and its layout, for tests that damage it. */
export interface Fixture {
  bytes: Uint8Array;
  bits: 32 | 64;
  littleEndian: boolean;
  sections: Map<string, FixtureSectionInfo>;
  /** e_shoff (0 when there is no section header table). */
  shoff: number;
  shnum: number;
  shstrndx: number;
  /** File offset of the GNU hash table, when written. */
  gnuHashOffset: number | null;
  /** File offset of the SysV hash table, when written. */
  hashOffset: number | null;
}

/** A little growable byte buffer with endian-aware writers. */
class Writer {
  bytes: Uint8Array = new Uint8Array(4096);
  length = 0;
  #dataView: DataView = new DataView(this.bytes.buffer);
  constructor(readonly littleEndian: boolean, readonly bits: 32 | 64) {}

  #view(): DataView {
    return this.#dataView;
  }

  ensure(end: number): void {
    if (end <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(end, this.bytes.length * 2));
    next.set(this.bytes);
    this.bytes = next;
    this.#dataView = new DataView(next.buffer);
  }

  alignTo(alignment: number): void {
    const end = Math.ceil(this.length / alignment) * alignment;
    this.ensure(end);
    this.length = end;
  }

  u8(value: number, at = this.length): void {
    this.ensure(at + 1);
    this.bytes[at] = value;
    this.length = Math.max(this.length, at + 1);
  }

  u16(value: number, at = this.length): void {
    this.ensure(at + 2);
    this.#view().setUint16(at, value, this.littleEndian);
    this.length = Math.max(this.length, at + 2);
  }

  u32(value: number, at = this.length): void {
    this.ensure(at + 4);
    this.#view().setUint32(at, value >>> 0, this.littleEndian);
    this.length = Math.max(this.length, at + 4);
  }

  u64(value: number | bigint, at = this.length): void {
    this.ensure(at + 8);
    this.#view().setBigUint64(at, BigInt(value), this.littleEndian);
    this.length = Math.max(this.length, at + 8);
  }

  /** An address-sized field. */
  word(value: number | bigint, at = this.length): void {
    if (this.bits === 64) this.u64(value, at);
    else this.u32(Number(value), at);
  }

  raw(data: Uint8Array, at = this.length): void {
    this.ensure(at + data.length);
    this.bytes.set(data, at);
    this.length = Math.max(this.length, at + data.length);
  }

  result(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** A string table under construction. */
class Strings {
  #bytes: number[] = [0];
  #offsets = new Map<string, number>();

  add(text: string): number {
    if (text === "") return 0;
    const known = this.#offsets.get(text);
    if (known !== undefined) return known;
    const offset = this.#bytes.length;
    this.#bytes.push(...new TextEncoder().encode(text), 0);
    this.#offsets.set(text, offset);
    return offset;
  }

  bytes(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }
}

/** The SysV ELF hash. */
export function sysvHash(name: string): number {
  let h = 0;
  for (const byte of new TextEncoder().encode(name)) {
    h = ((h << 4) + byte) >>> 0;
    const g = h & 0xf0000000;
    if (g !== 0) h ^= g >>> 24;
    h = (h & ~g) >>> 0;
  }
  return h;
}

/** The GNU hash (DJB, h * 33 + c). */
export function gnuHash(name: string): number {
  let h = 5381;
  for (const byte of new TextEncoder().encode(name)) h = (h * 33 + byte) >>> 0;
  return h;
}

interface PendingSection {
  name: string;
  type: number;
  flags: number;
  offset: number;
  size: number;
  link: number;
  info: number;
  align: number;
  entsize: number;
  address: number;
}

const GNU_HASH_BUCKETS = 3;
const SYSV_HASH_BUCKETS = 3;

/** Builds an ELF file from `options`. */
export function buildElf(options: FixtureOptions): Fixture {
  const bits = options.bits;
  const is64 = bits === 64;
  const le = options.endianness === "little";
  const w = new Writer(le, bits);
  const ehsize = is64 ? 64 : 52;
  const phentsize = is64 ? 56 : 32;
  const shentsize = is64 ? 64 : 40;
  const symentsize = is64 ? 24 : 16;
  const withDynamic = options.dynsym !== undefined;
  const hash = options.hash ?? "both";
  const phnum = withDynamic ? 2 : 1;
  const machine = options.machine ?? (le ? (is64 ? 62 : 3) : (is64 ? 21 : 8));

  const sections: PendingSection[] = [{
    name: "",
    type: 0,
    flags: 0,
    offset: 0,
    size: 0,
    link: 0,
    info: 0,
    align: 0,
    entsize: 0,
    address: 0,
  }];
  const add = (s: Omit<PendingSection, "address"> & { address?: number }): number => {
    sections.push({ address: s.flags & 2 ? BASE + s.offset : 0, ...s });
    return sections.length - 1;
  };

  // .text and .data at fixed offsets.
  w.ensure(0x440);
  w.length = 0x200;
  w.raw(new Uint8Array(0x200).fill(0xcc));
  const textIndex = add({
    name: ".text",
    type: 1,
    flags: 6,
    offset: 0x200,
    size: 0x200,
    link: 0,
    info: 0,
    align: 16,
    entsize: 0,
  });
  w.raw(new Uint8Array(0x40).fill(0x11));
  const dataIndex = add({
    name: ".data",
    type: 1,
    flags: 3,
    offset: 0x400,
    size: 0x40,
    link: 0,
    info: 0,
    align: 8,
    entsize: 0,
  });

  const shndx = (section: FixtureSection): number =>
    section === "text"
      ? textIndex
      : section === "data"
      ? dataIndex
      : section === "undef"
      ? 0
      : section === "abs"
      ? SHN_ABS
      : section;

  const writeSymbols = (list: FixtureSymbol[], strings: Strings): number => {
    w.alignTo(8);
    const offset = w.length;
    const entries: FixtureSymbol[] = [
      { name: "", value: 0, type: 0, bind: 0, section: "undef" },
      ...list,
    ];
    for (const s of entries) {
      const name = strings.add(s.name);
      const info = (s.bind << 4) | s.type;
      if (is64) {
        w.u32(name);
        w.u8(info);
        w.u8(0);
        w.u16(shndx(s.section));
        w.u64(s.value);
        w.u64(s.size ?? 0);
      } else {
        w.u32(name);
        w.u32(s.value);
        w.u32(s.size ?? 0);
        w.u8(info);
        w.u8(0);
        w.u16(shndx(s.section));
      }
    }
    return offset;
  };

  if (options.symtab !== undefined) {
    // Locals first, as the ELF specification requires; sh_info is the first non-local.
    const list = [
      ...options.symtab.filter((s) => s.bind === STB_LOCAL),
      ...options.symtab.filter((s) => s.bind !== STB_LOCAL),
    ];
    const firstGlobal = 1 + options.symtab.filter((s) => s.bind === STB_LOCAL).length;
    const strings = new Strings();
    const offset = writeSymbols(list, strings);
    const size = w.length - offset;
    add({
      name: ".symtab",
      type: 2,
      flags: 0,
      offset,
      size,
      link: sections.length + 1,
      info: firstGlobal,
      align: 8,
      entsize: symentsize,
    });
    const strOffset = w.length;
    w.raw(strings.bytes());
    add({
      name: ".strtab",
      type: 3,
      flags: 0,
      offset: strOffset,
      size: w.length - strOffset,
      link: 0,
      info: 0,
      align: 1,
      entsize: 0,
    });
  }

  let hashOffset: number | null = null;
  let gnuHashOffset: number | null = null;
  let dynamicOffset = 0;
  let dynamicSize = 0;
  if (options.dynsym !== undefined) {
    // Undefined symbols first, then the hashed (defined) ones grouped by GNU bucket.
    const undefinedSymbols = options.dynsym.filter((s) => s.section === "undef");
    const defined = options.dynsym.filter((s) => s.section !== "undef");
    const withGnu = hash === "gnu" || hash === "both";
    if (withGnu) {
      defined.sort((a, b) =>
        (gnuHash(a.name) % GNU_HASH_BUCKETS) - (gnuHash(b.name) % GNU_HASH_BUCKETS)
      );
    }
    const list = [...undefinedSymbols, ...defined];
    const strings = new Strings();
    const symOffset = writeSymbols(list, strings);
    const symSize = w.length - symOffset;
    const dynsymIndex = add({
      name: ".dynsym",
      type: 11,
      flags: 2,
      offset: symOffset,
      size: symSize,
      link: sections.length + 1,
      info: 1,
      align: 8,
      entsize: symentsize,
    });
    const strOffset = w.length;
    const strBytes = strings.bytes();
    w.raw(strBytes);
    const dynstrIndex = add({
      name: ".dynstr",
      type: 3,
      flags: 2,
      offset: strOffset,
      size: strBytes.length,
      link: 0,
      info: 0,
      align: 1,
      entsize: 0,
    });
    const count = list.length + 1;
    if (hash === "sysv" || hash === "both") {
      w.alignTo(8);
      hashOffset = w.length;
      const buckets = new Array<number>(SYSV_HASH_BUCKETS).fill(0);
      const chains = new Array<number>(count).fill(0);
      for (let i = 1; i < count; i++) {
        const b = sysvHash(list[i - 1]!.name) % SYSV_HASH_BUCKETS;
        chains[i] = buckets[b]!;
        buckets[b] = i;
      }
      w.u32(SYSV_HASH_BUCKETS);
      w.u32(count);
      for (const b of buckets) w.u32(b);
      for (const c of chains) w.u32(c);
      add({
        name: ".hash",
        type: 5,
        flags: 2,
        offset: hashOffset,
        size: w.length - hashOffset,
        link: dynsymIndex,
        info: 0,
        align: 8,
        entsize: 4,
      });
    }
    if (withGnu) {
      w.alignTo(8);
      gnuHashOffset = w.length;
      const symbolBase = 1 + undefinedSymbols.length;
      w.u32(GNU_HASH_BUCKETS);
      w.u32(symbolBase);
      w.u32(1); // one bloom word
      w.u32(is64 ? 6 : 5); // bloom shift
      if (is64) w.u64(0xffffffffffffffffn);
      else w.u32(0xffffffff); // all bits set: "maybe present" for every name
      const buckets = new Array<number>(GNU_HASH_BUCKETS).fill(0);
      for (let i = defined.length - 1; i >= 0; i--) {
        buckets[gnuHash(defined[i]!.name) % GNU_HASH_BUCKETS] = symbolBase + i;
      }
      for (const b of buckets) w.u32(b);
      for (let i = 0; i < defined.length; i++) {
        const h = gnuHash(defined[i]!.name);
        const next = defined[i + 1];
        const last = next === undefined ||
          gnuHash(next.name) % GNU_HASH_BUCKETS !== h % GNU_HASH_BUCKETS;
        w.u32((h & ~1) | (last ? 1 : 0));
      }
      add({
        name: ".gnu.hash",
        type: 0x6ffffff6,
        flags: 2,
        offset: gnuHashOffset,
        size: w.length - gnuHashOffset,
        link: dynsymIndex,
        info: 0,
        align: 8,
        entsize: 0,
      });
    }
    w.alignTo(8);
    dynamicOffset = w.length;
    const tags: [number, number][] = [];
    if (hashOffset !== null) tags.push([4, BASE + hashOffset]);
    if (gnuHashOffset !== null) tags.push([0x6ffffef5, BASE + gnuHashOffset]);
    tags.push([5, BASE + strOffset], [6, BASE + symOffset], [10, strBytes.length], [
      11,
      symentsize,
    ], [0, 0]);
    for (const [tag, value] of tags) {
      w.word(tag);
      w.word(value);
    }
    dynamicSize = w.length - dynamicOffset;
    add({
      name: ".dynamic",
      type: 6,
      flags: 3,
      offset: dynamicOffset,
      size: dynamicSize,
      link: dynstrIndex,
      info: 0,
      align: 8,
      entsize: is64 ? 16 : 8,
    });
  }

  const shstrings = new Strings();
  const nameOffsets = sections.map((s) => shstrings.add(s.name));
  const shstrtabName = shstrings.add(".shstrtab");
  const shstrOffset = w.length;
  const shstrBytes = shstrings.bytes();
  w.raw(shstrBytes);
  const shstrndx = add({
    name: ".shstrtab",
    type: 3,
    flags: 0,
    offset: shstrOffset,
    size: shstrBytes.length,
    link: 0,
    info: 0,
    align: 1,
    entsize: 0,
  });
  nameOffsets.push(shstrtabName);

  const withSections = options.sectionHeaders ?? true;
  w.alignTo(8);
  const shoff = withSections ? w.length : 0;
  const info = new Map<string, FixtureSectionInfo>();
  sections.forEach((s, index) => {
    const headerOffset = shoff + index * shentsize;
    info.set(s.name, { index, headerOffset, offset: s.offset, size: s.size });
    if (!withSections) return;
    w.u32(nameOffsets[index]!);
    w.u32(s.type);
    w.word(s.flags);
    w.word(s.address);
    w.word(s.offset);
    w.word(s.size);
    w.u32(s.link);
    w.u32(s.info);
    w.word(s.align);
    w.word(s.entsize);
  });
  const fileSize = w.length;

  // ELF header.
  w.raw(Uint8Array.of(0x7f, 0x45, 0x4c, 0x46, is64 ? 2 : 1, le ? 1 : 2, 1, 0), 0);
  w.u16(options.type ?? ET_EXEC, 16);
  w.u16(machine, 18);
  w.u32(1, 20);
  w.word(options.entry ?? TEXT, 24);
  const phoff = ehsize;
  w.word(phoff, is64 ? 32 : 28);
  w.word(shoff, is64 ? 40 : 32);
  w.u32(0, is64 ? 48 : 36);
  const at = is64 ? 52 : 40;
  w.u16(ehsize, at);
  w.u16(phentsize, at + 2);
  w.u16(phnum, at + 4);
  w.u16(shentsize, at + 6);
  w.u16(withSections ? sections.length : 0, at + 8);
  w.u16(withSections ? shstrndx : 0, at + 10);

  // Program headers: PT_LOAD for the whole file, then PT_DYNAMIC.
  const phdr = (o: number, type: number, flags: number, offset: number, size: number) => {
    if (is64) {
      w.u32(type, o);
      w.u32(flags, o + 4);
      w.u64(offset, o + 8);
      w.u64(BASE + offset, o + 16);
      w.u64(BASE + offset, o + 24);
      w.u64(size, o + 32);
      w.u64(size, o + 40);
      w.u64(type === 1 ? 0x1000 : 8, o + 48);
    } else {
      w.u32(type, o);
      w.u32(offset, o + 4);
      w.u32(BASE + offset, o + 8);
      w.u32(BASE + offset, o + 12);
      w.u32(size, o + 16);
      w.u32(size, o + 20);
      w.u32(flags, o + 24);
      w.u32(type === 1 ? 0x1000 : 4, o + 28);
    }
  };
  phdr(phoff, 1, 5, 0, fileSize);
  if (withDynamic) phdr(phoff + phentsize, 2, 6, dynamicOffset, dynamicSize);

  return {
    bytes: w.result(),
    bits,
    littleEndian: le,
    sections: info,
    shoff,
    shnum: withSections ? sections.length : 0,
    shstrndx: withSections ? shstrndx : 0,
    gnuHashOffset,
    hashOffset,
  };
}

/** Writes an unsigned integer of `width` bytes into `bytes` at `offset`. */
export function poke(
  fixture: Pick<Fixture, "littleEndian">,
  bytes: Uint8Array,
  offset: number,
  width: 1 | 2 | 4 | 8,
  value: number | bigint,
): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const le = fixture.littleEndian;
  if (width === 1) view.setUint8(offset, Number(value));
  else if (width === 2) view.setUint16(offset, Number(value), le);
  else if (width === 4) view.setUint32(offset, Number(value) >>> 0, le);
  else view.setBigUint64(offset, BigInt(value), le);
}

/** Field offsets inside section headers and the ELF header, by class. */
export function layoutOf(bits: 32 | 64): {
  eShoff: number;
  eShnum: number;
  eShstrndx: number;
  eShentsize: number;
  eEhsize: number;
  shSize: number;
  shLink: number;
  shOffset: number;
  shEntsize: number;
  wordSize: 4 | 8;
  symSize: number;
} {
  return bits === 64
    ? {
      eShoff: 40,
      eShnum: 60,
      eShstrndx: 62,
      eShentsize: 58,
      eEhsize: 52,
      shSize: 32,
      shLink: 40,
      shOffset: 24,
      shEntsize: 56,
      wordSize: 8,
      symSize: 24,
    }
    : {
      eShoff: 32,
      eShnum: 48,
      eShstrndx: 50,
      eShentsize: 46,
      eEhsize: 40,
      shSize: 20,
      shLink: 24,
      shOffset: 16,
      shEntsize: 36,
      wordSize: 4,
      symSize: 16,
    };
}

/** The symbols every standard fixture carries in `.symtab`. */
export function standardSymtab(): FixtureSymbol[] {
  const f = (
    name: string,
    value: number,
    size: number,
    bind = STB_GLOBAL,
    type = STT_FUNC,
    section: FixtureSection = "text",
  ): FixtureSymbol => ({ name, value, size, bind, type, section });
  return [
    f("fixture.c", 0, 0, STB_LOCAL, STT_FILE, "abs"),
    f("", TEXT, 0, STB_LOCAL, STT_SECTION),
    f("_start", TEXT, 0, STB_GLOBAL, STT_NOTYPE),
    f("helper", TEXT + 0x10, 0x10, STB_LOCAL),
    f("main", TEXT + 0x20, 0x30),
    f("tiny", TEXT + 0x20, 0, STB_LOCAL),
    f("weak_fn", TEXT + 0x50, 8, STB_WEAK),
    f("counter", DATA, 4, STB_GLOBAL, STT_OBJECT, "data"),
    f("puts", 0, 0, STB_GLOBAL, STT_FUNC, "undef"),
    f("resolve_me", TEXT + 0x60, 0x10, STB_GLOBAL, STT_GNU_IFUNC),
    f("alias_long_name", TEXT + 0x80, 0x20),
    f("alias", TEXT + 0x80, 0x20),
    f("alias_weak", TEXT + 0x80, 0x20, STB_WEAK),
    f("alias_local", TEXT + 0x80, 0x20, STB_LOCAL),
    f("beta", TEXT + 0xa0, 4),
    f("alfa", TEXT + 0xa0, 4),
    f("versioned@@V_1", TEXT + 0xc0, 4),
    f("label", TEXT + 0xe0, 0, STB_LOCAL, STT_NOTYPE),
    f("abs_fn", TEXT + 0x100, 2, STB_GLOBAL, STT_FUNC, "abs"),
  ];
}

/** The symbols every standard fixture with a dynamic section carries in `.dynsym`. */
export function standardDynsym(): FixtureSymbol[] {
  const f = (
    name: string,
    value: number,
    size: number,
    bind = STB_GLOBAL,
    type = STT_FUNC,
    section: FixtureSection = "text",
  ): FixtureSymbol => ({ name, value, size, bind, type, section });
  return [
    f("puts", 0, 0, STB_GLOBAL, STT_FUNC, "undef"),
    f("main", TEXT + 0x20, 0x30),
    f("weak_fn", TEXT + 0x50, 8, STB_WEAK),
    f("resolve_me", TEXT + 0x60, 0x10, STB_GLOBAL, STT_GNU_IFUNC),
    f("alias", TEXT + 0x80, 0x20),
    f("versioned", TEXT + 0xc0, 4),
    f("counter", DATA, 4, STB_GLOBAL, STT_OBJECT, "data"),
    f("dyn_only", TEXT + 0xf0, 6),
  ];
}

// ---------------------------------------------------------------------------
// Raw layouts: sections at chosen offsets, for the dynamic section, notes,
// .eh_frame and PLT tests.

/** An endian-aware byte builder for section contents. */
export class ByteBuilder {
  #writer: Writer;

  constructor(readonly littleEndian: boolean, readonly bits: 32 | 64) {
    this.#writer = new Writer(littleEndian, bits);
  }

  get length(): number {
    return this.#writer.length;
  }

  u8(value: number, at?: number): this {
    this.#writer.u8(value & 0xff, at);
    return this;
  }

  u16(value: number, at?: number): this {
    this.#writer.u16(value & 0xffff, at);
    return this;
  }

  u32(value: number, at?: number): this {
    this.#writer.u32(value, at);
    return this;
  }

  u64(value: number | bigint, at?: number): this {
    this.#writer.u64(BigInt.asUintN(64, BigInt(value)), at);
    return this;
  }

  /** An address-sized field. */
  word(value: number | bigint, at?: number): this {
    if (this.bits === 64) return this.u64(value, at);
    return this.u32(Number(BigInt.asUintN(32, BigInt(value))), at);
  }

  uleb(value: number | bigint): this {
    let v = BigInt(value);
    do {
      const byte = Number(v & 0x7fn);
      v >>= 7n;
      this.u8(v === 0n ? byte : byte | 0x80);
    } while (v !== 0n);
    return this;
  }

  sleb(value: number | bigint): this {
    let v = BigInt(value);
    for (;;) {
      const byte = Number(v & 0x7fn);
      v >>= 7n;
      const done = (v === 0n && (byte & 0x40) === 0) || (v === -1n && (byte & 0x40) !== 0);
      this.u8(done ? byte : byte | 0x80);
      if (done) return this;
    }
  }

  raw(data: Uint8Array | number[]): this {
    this.#writer.raw(Uint8Array.from(data));
    return this;
  }

  cstring(text: string): this {
    return this.raw([...new TextEncoder().encode(text), 0]);
  }

  alignTo(alignment: number): this {
    this.#writer.alignTo(alignment);
    return this;
  }

  bytes(): Uint8Array {
    return this.#writer.result();
  }
}

/** One section of a raw layout. */
export interface RawSection {
  name: string;
  type: number;
  /** sh_flags (SHF_WRITE 1, SHF_ALLOC 2, SHF_EXECINSTR 4). */
  flags?: number;
  /** File offset (also the address, plus {@linkcode BASE}, for allocated sections). */
  offset: number;
  data?: Uint8Array;
  /** sh_size when it differs from the data's length (SHT_NOBITS, damage). */
  size?: number;
  align?: number;
  entsize?: number;
  /** sh_link: a section name or a raw index. */
  link?: string | number;
  info?: number;
}

/** One extra program header of a raw layout (a PT_LOAD over the whole file always comes first). */
export interface RawSegment {
  type: number;
  flags?: number;
  offset: number;
  size: number;
  align?: number;
}

/** What {@linkcode buildRawElf} builds. */
export interface RawElfOptions {
  bits: 32 | 64;
  endianness: "little" | "big";
  machine?: number;
  type?: number;
  entry?: number;
  sections: RawSection[];
  segments?: RawSegment[];
  /** Whether to write the section header table; defaults to true. */
  sectionHeaders?: boolean;
}

/** A raw layout as built. */
export interface RawElf {
  bytes: Uint8Array;
  /** Section index by name. */
  index: Map<string, number>;
  /** File offset of each section's header by name. */
  headerOffset: Map<string, number>;
}

/**
 * Builds an ELF file whose sections sit at the offsets given (all at least
 * 0x200, past the headers), with one PT_LOAD mapping the whole file at
 * {@linkcode BASE} and then the extra program headers; `.shstrtab` and the
 * section header table follow the last section.
 */
export function buildRawElf(options: RawElfOptions): RawElf {
  const is64 = options.bits === 64;
  const le = options.endianness === "little";
  const w = new Writer(le, options.bits);
  const ehsize = is64 ? 64 : 52;
  const phentsize = is64 ? 56 : 32;
  const shentsize = is64 ? 64 : 40;
  const segments = options.segments ?? [];
  w.ensure(0x200);
  w.length = 0x200;
  for (const s of options.sections) {
    if (s.data !== undefined && s.type !== 8) w.raw(s.data, s.offset);
  }
  const index = new Map<string, number>();
  options.sections.forEach((s, i) => index.set(s.name, i + 1));
  const names = new Strings();
  const nameOffsets = options.sections.map((s) => names.add(s.name));
  const shstrtabName = names.add(".shstrtab");
  w.alignTo(8);
  const shstrOffset = w.length;
  w.raw(names.bytes());
  const withSections = options.sectionHeaders ?? true;
  w.alignTo(8);
  const shoff = withSections ? w.length : 0;
  const headerOffset = new Map<string, number>();
  if (withSections) {
    w.raw(new Uint8Array(shentsize));
    const all = [
      ...options.sections.map((s, i) => ({ ...s, nameOffset: nameOffsets[i]! })),
      {
        name: ".shstrtab",
        type: 3,
        offset: shstrOffset,
        size: names.bytes().length,
        nameOffset: shstrtabName,
      } as RawSection & { nameOffset: number },
    ];
    for (const s of all) {
      headerOffset.set(s.name, w.length);
      const flags = s.flags ?? 0;
      const link = typeof s.link === "string" ? index.get(s.link) ?? 0 : s.link ?? 0;
      w.u32(s.nameOffset);
      w.u32(s.type);
      w.word(flags);
      w.word(flags & 2 ? BASE + s.offset : 0);
      w.word(s.offset);
      w.word(s.size ?? s.data?.length ?? 0);
      w.u32(link);
      w.u32(s.info ?? 0);
      w.word(s.align ?? 1);
      w.word(s.entsize ?? 0);
    }
  }
  const fileSize = w.length;
  w.raw(Uint8Array.of(0x7f, 0x45, 0x4c, 0x46, is64 ? 2 : 1, le ? 1 : 2, 1, 0), 0);
  w.u16(options.type ?? ET_EXEC, 16);
  w.u16(options.machine ?? (is64 ? 62 : 3), 18);
  w.u32(1, 20);
  w.word(options.entry ?? BASE + 0x200, 24);
  w.word(ehsize, is64 ? 32 : 28);
  w.word(shoff, is64 ? 40 : 32);
  const at = is64 ? 52 : 40;
  w.u16(ehsize, at);
  w.u16(phentsize, at + 2);
  w.u16(1 + segments.length, at + 4);
  w.u16(shentsize, at + 6);
  w.u16(withSections ? options.sections.length + 2 : 0, at + 8);
  w.u16(withSections ? options.sections.length + 1 : 0, at + 10);
  const all: RawSegment[] = [{ type: 1, flags: 7, offset: 0, size: fileSize, align: 0x1000 }];
  all.push(...segments);
  all.forEach((s, i) => {
    const o = ehsize + i * phentsize;
    if (is64) {
      w.u32(s.type, o);
      w.u32(s.flags ?? 4, o + 4);
      w.u64(s.offset, o + 8);
      w.u64(BASE + s.offset, o + 16);
      w.u64(BASE + s.offset, o + 24);
      w.u64(s.size, o + 32);
      w.u64(s.size, o + 40);
      w.u64(s.align ?? 4, o + 48);
    } else {
      w.u32(s.type, o);
      w.u32(s.offset, o + 4);
      w.u32(BASE + s.offset, o + 8);
      w.u32(BASE + s.offset, o + 12);
      w.u32(s.size, o + 16);
      w.u32(s.size, o + 20);
      w.u32(s.flags ?? 4, o + 24);
      w.u32(s.align ?? 4, o + 28);
    }
  });
  return { bytes: w.result(), index, headerOffset };
}

/** DW_EH_PE encodings the fixtures use. */
export const PE = {
  absptr: 0x00,
  uleb128: 0x01,
  udata2: 0x02,
  udata4: 0x03,
  udata8: 0x04,
  sleb128: 0x09,
  sdata2: 0x0a,
  sdata4: 0x0b,
  sdata8: 0x0c,
  pcrel: 0x10,
  datarel: 0x30,
  indirect: 0x80,
  omit: 0xff,
} as const;

/** A record of a fixture `.eh_frame`. */
export type EhRecord =
  | {
    kind: "cie";
    /** Defaults to "zR". */
    augmentation?: string;
    /** The 'R' encoding; defaults to pcrel | sdata4. */
    fdeEncoding?: number;
    /** Defaults to 1. */
    version?: number;
    /** The 'P' personality pointer's encoding and value. */
    personality?: { encoding: number; value: number };
    /** The 'L' LSDA encoding. */
    lsdaEncoding?: number;
    /** Write a 64-bit (0xffffffff + 8 bytes) length. */
    dwarf64?: boolean;
  }
  | {
    kind: "fde";
    /** Index (into the record list) of the CIE. */
    cie: number;
    pcBegin: number;
    pcRange: number;
    dwarf64?: boolean;
    /** A raw CIE pointer value instead of the real one. */
    ciePointer?: number;
  }
  | { kind: "zero" }
  | { kind: "raw"; bytes: number[] };

/** Encodes `value` as DW_EH_PE `encoding` for a field at `fieldAddress`. */
export function encodePointer(
  b: ByteBuilder,
  encoding: number,
  value: number,
  fieldAddress: number,
  dataBase = 0,
): void {
  let v = BigInt(value);
  if ((encoding & 0x70) === PE.pcrel) v -= BigInt(fieldAddress);
  if ((encoding & 0x70) === PE.datarel) v -= BigInt(dataBase);
  switch (encoding & 0x0f) {
    case PE.absptr:
      b.word(v);
      break;
    case PE.uleb128:
      b.uleb(v);
      break;
    case PE.sleb128:
      b.sleb(v);
      break;
    case PE.udata2:
    case PE.sdata2:
      b.u16(Number(BigInt.asUintN(16, v)));
      break;
    case PE.udata4:
    case PE.sdata4:
      b.u32(Number(BigInt.asUintN(32, v)));
      break;
    case PE.udata8:
    case PE.sdata8:
      b.u64(v);
      break;
    default:
      // An unknown format: write four bytes so that the record has a body.
      b.u32(Number(BigInt.asUintN(32, v)));
  }
}

/**
 * Encodes `.eh_frame` records for a section at `address`. Returns the bytes
 * and the offset of each record (for .eh_frame_hdr tables and damage).
 */
export function encodeEhFrame(
  records: EhRecord[],
  options: { address: number; bits: 32 | 64; littleEndian: boolean; dataBase?: number },
): { bytes: Uint8Array; offsets: number[] } {
  const b = new ByteBuilder(options.littleEndian, options.bits);
  const offsets: number[] = [];
  const encodings: number[] = [];
  for (const record of records) {
    offsets.push(b.length);
    if (record.kind === "zero") {
      b.u32(0);
      encodings.push(-1);
      continue;
    }
    if (record.kind === "raw") {
      b.raw(record.bytes);
      encodings.push(-1);
      continue;
    }
    const start = b.length;
    const dwarf64 = record.dwarf64 ?? false;
    const headerSize = dwarf64 ? 12 : 4;
    // Body first, into its own builder, at its final address.
    const bodyAt = options.address + start + headerSize;
    const body = new ByteBuilder(options.littleEndian, options.bits);
    if (record.kind === "cie") {
      const augmentation = record.augmentation ?? "zR";
      const fdeEncoding = record.fdeEncoding ?? (PE.pcrel | PE.sdata4);
      encodings.push(augmentation.includes("R") ? fdeEncoding : PE.absptr);
      body.u32(0).u8(record.version ?? 1).cstring(augmentation);
      if (augmentation === "eh") body.word(0);
      body.uleb(1).sleb(-8).u8(16);
      if (augmentation.startsWith("z")) {
        const data = new ByteBuilder(options.littleEndian, options.bits);
        for (const c of augmentation.slice(1)) {
          if (c === "R") data.u8(fdeEncoding);
          else if (c === "P") {
            const p = record.personality ?? { encoding: PE.absptr, value: 0 };
            data.u8(p.encoding);
            // Field address: after the uleb length (one byte here) and what came before.
            const fieldAddress = bodyAt + body.length + 1 + data.length;
            encodePointer(data, p.encoding & 0x7f, p.value, fieldAddress, options.dataBase);
          } else if (c === "L") data.u8(record.lsdaEncoding ?? PE.absptr);
        }
        body.uleb(data.length).raw(data.bytes());
      }
      body.raw([0x0c, 0x07, 0x08]); // DW_CFA_def_cfa: r7 ofs 8
    } else {
      encodings.push(-1);
      const cieOffset = offsets[record.cie]!;
      const cieEncoding = encodings[record.cie]!;
      const cieRecord = records[record.cie]!;
      const pointer = record.ciePointer ?? (start + headerSize - cieOffset);
      body.u32(pointer);
      const encoding = cieEncoding < 0 ? PE.absptr : cieEncoding;
      encodePointer(body, encoding, record.pcBegin, bodyAt + body.length, options.dataBase);
      encodePointer(body, encoding & 0x0f, record.pcRange, 0);
      if (cieRecord.kind === "cie" && (cieRecord.augmentation ?? "zR").startsWith("z")) {
        body.uleb(0);
      }
      body.raw([0x41, 0x0e, 0x10]); // DW_CFA_advance_loc 1; DW_CFA_def_cfa_offset 16
    }
    // Pad the record to a multiple of the address size with DW_CFA_nop.
    const pad = options.bits === 64 ? 8 : 4;
    while ((headerSize + body.length) % pad !== 0) body.u8(0);
    if (dwarf64) b.u32(0xffffffff).u64(body.length);
    else b.u32(body.length);
    b.raw(body.bytes());
  }
  return { bytes: b.bytes(), offsets };
}

/**
 * An `.eh_frame_hdr` at `address` (version 1, eh_frame_ptr pcrel|sdata4,
 * fde_count udata4, table datarel|sdata4) listing `entries` as given.
 */
export function encodeEhFrameHdr(
  address: number,
  ehFrameAddress: number,
  entries: { location: number; fde: number }[],
  littleEndian: boolean,
): Uint8Array {
  const b = new ByteBuilder(littleEndian, 32);
  b.u8(1).u8(PE.pcrel | PE.sdata4).u8(PE.udata4).u8(PE.datarel | PE.sdata4);
  b.u32((ehFrameAddress - (address + 4)) >>> 0);
  b.u32(entries.length);
  for (const e of entries) b.u32((e.location - address) >>> 0).u32((e.fde - address) >>> 0);
  return b.bytes();
}

/** `.dynamic` contents: the (tag, value) pairs as given (add [0, 0] for DT_NULL). */
export function encodeDynamic(
  entries: [number, number | bigint][],
  bits: 32 | 64,
  littleEndian: boolean,
): Uint8Array {
  const b = new ByteBuilder(littleEndian, bits);
  for (const [tag, value] of entries) b.word(tag).word(value);
  return b.bytes();
}

/** One note: header, name and descriptor, each padded to `alignment`. */
export function encodeNote(
  name: string,
  type: number,
  desc: Uint8Array,
  littleEndian: boolean,
  options: { alignment?: 4 | 8; namesz?: number; descsz?: number } = {},
): Uint8Array {
  const alignment = options.alignment ?? 4;
  const nameBytes = name === "" ? new Uint8Array(0) : new TextEncoder().encode(`${name}\0`);
  const b = new ByteBuilder(littleEndian, 32);
  b.u32(options.namesz ?? nameBytes.length).u32(options.descsz ?? desc.length).u32(type);
  b.raw(nameBytes).alignTo(alignment);
  b.raw(desc).alignTo(alignment);
  return b.bytes();
}

/** A dynamic symbol for {@linkcode encodeSymbols}. */
export interface RawSymbol {
  name: string;
  value?: number;
  size?: number;
  type: number;
  bind: number;
  /** st_shndx (0 for undefined). */
  shndx: number;
}

/** A symbol table (with its null symbol first) and its string table. */
export function encodeSymbols(
  symbols: RawSymbol[],
  bits: 32 | 64,
  littleEndian: boolean,
): { symbols: Uint8Array; strings: Uint8Array } {
  const strings = new Strings();
  const b = new ByteBuilder(littleEndian, bits);
  for (const s of [{ name: "", type: 0, bind: 0, shndx: 0 } as RawSymbol, ...symbols]) {
    const name = strings.add(s.name);
    const info = (s.bind << 4) | s.type;
    if (bits === 64) {
      b.u32(name).u8(info).u8(0).u16(s.shndx).u64(s.value ?? 0).u64(s.size ?? 0);
    } else b.u32(name).u32(s.value ?? 0).u32(s.size ?? 0).u8(info).u8(0).u16(s.shndx);
  }
  return { symbols: b.bytes(), strings: strings.bytes() };
}

/** RELA (or REL, without addends) relocations: [offset, symbol index, type, addend]. */
export function encodeRelocations(
  relocations: [number, number, number, number?][],
  options: { bits: 32 | 64; littleEndian: boolean; rela: boolean },
): Uint8Array {
  const b = new ByteBuilder(options.littleEndian, options.bits);
  for (const [offset, symbol, type, addend] of relocations) {
    b.word(offset);
    if (options.bits === 64) b.u64((BigInt(symbol) << 32n) | BigInt(type));
    else b.u32(((symbol << 8) | type) >>> 0);
    if (options.rela) b.word(BigInt(addend ?? 0));
  }
  return b.bytes();
}
