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
