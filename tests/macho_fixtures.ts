/**
 * Builds small synthetic Mach-O files in memory for the Mach-O reader's
 * tests: a thin image with __PAGEZERO (executables only), __TEXT, __DATA and
 * __LINKEDIT, the nlist symbol table with its indirect symbol table,
 * LC_FUNCTION_STARTS, an exports trie (in LC_DYLD_INFO_ONLY or
 * LC_DYLD_EXPORTS_TRIE), LC_MAIN or LC_UNIXTHREAD, dylib commands, LC_UUID
 * and LC_BUILD_VERSION or LC_VERSION_MIN_MACOSX; and universal files around
 * such images.
 *
 * The layout is fixed so that tests can name addresses: the image starts at
 * {@linkcode imageBase} (file offset 0), `__TEXT,__text` is at file offset
 * 0x1000 (address {@linkcode textAddress}, 0x800 bytes), `__TEXT,__stubs` at
 * 0x1800, `__TEXT,__cstring` at 0x1c00, `__DATA,__got` at 0x2000,
 * `__DATA,__data` at 0x2100 and the zero-fill `__DATA,__bss` at address
 * base + 0x2200; __LINKEDIT starts at file offset 0x3000. Section ordinals
 * are 1 `__text`, 2 `__stubs`, 3 `__cstring`, 4 `__got`, 5 `__data`, 6 `__bss`.
 *
 * @module
 */

/** Mach-O constants the tests use. */
export const MH_OBJECT = 1;
export const MH_EXECUTE = 2;
export const MH_DYLIB = 6;
export const MH_BUNDLE = 8;
export const MH_NOUNDEFS = 0x1;
export const MH_DYLDLINK = 0x4;
export const MH_TWOLEVEL = 0x80;
export const MH_PIE = 0x200000;
export const CPU_TYPE_X86 = 7;
export const CPU_TYPE_X86_64 = 0x01000007;
export const CPU_TYPE_ARM = 12;
export const CPU_TYPE_ARM64 = 0x0100000c;
export const CPU_TYPE_POWERPC = 18;
export const N_EXT = 0x01;
export const N_PEXT = 0x10;
export const N_SECT = 0x0e;
export const N_UNDF = 0x0;
export const N_ABS = 0x2;
export const N_WEAK_REF = 0x40;
export const EXPORT_REGULAR = 0x0;
export const EXPORT_WEAK = 0x4;
export const EXPORT_REEXPORT = 0x8;
export const EXPORT_STUB_AND_RESOLVER = 0x10;
export const EXPORT_ABSOLUTE = 0x2;
export const INDIRECT_SYMBOL_LOCAL = 0x80000000;

/** Section ordinals of the fixed layout. */
export const SECT_TEXT = 1;
export const SECT_STUBS = 2;
export const SECT_CSTRING = 3;
export const SECT_GOT = 4;
export const SECT_DATA = 5;
export const SECT_BSS = 6;

/** File offset where __LINKEDIT starts. */
export const LINKEDIT_OFFSET = 0x3000;

/** The address of file offset 0 for a 64-bit or 32-bit fixture. */
export function imageBase(bits: 32 | 64): bigint {
  return bits === 64 ? 0x100000000n : 0x1000n;
}

/** The address of `__TEXT,__text`. */
export function textAddress(bits: 32 | 64): bigint {
  return imageBase(bits) + 0x1000n;
}

/** A defined symbol to write. */
export interface FixtureSymbol {
  name: string;
  /** Section ordinal (1-based, see the module doc); 0 with `absolute`. */
  section: number;
  value: bigint;
  external?: boolean;
  privateExternal?: boolean;
  absolute?: boolean;
  desc?: number;
}

/** An undefined symbol to write (an import). */
export interface FixtureImport {
  name: string;
  /** Library ordinal stored in n_desc (1-based into the dylibs; 0xfe dynamic lookup). */
  ordinal: number;
  weak?: boolean;
}

/** One exports-trie entry. */
export interface FixtureExport {
  name: string;
  /** EXPORT_SYMBOL_FLAGS_*. */
  flags?: number;
  /** Offset from the image base (the value itself for EXPORT_ABSOLUTE). */
  offset?: bigint;
  /** For EXPORT_REEXPORT. */
  reexport?: { ordinal: number; name?: string };
  /** Resolver offset for EXPORT_STUB_AND_RESOLVER. */
  resolver?: bigint;
}

/** A dylib load command. */
export interface FixtureDylib {
  name: string;
  kind?: "load" | "weak" | "reexport";
  current?: number;
  compatibility?: number;
}

/** What to build. */
export interface MachOFixtureOptions {
  bits: 32 | 64;
  littleEndian?: boolean;
  cputype: number;
  cpusubtype?: number;
  /** Default MH_EXECUTE. */
  filetype?: number;
  /** Default MH_NOUNDEFS | MH_DYLDLINK | MH_TWOLEVEL | MH_PIE. */
  flags?: number;
  /** Defined symbols; written locals first, then externals, then the imports. */
  symbols?: FixtureSymbol[];
  imports?: FixtureImport[];
  /** Import names that get a symbol stub, in stub order. */
  stubs?: string[];
  /** Stub size (reserved2); default 6 (x86), 12 (arm64), 4 otherwise. */
  stubSize?: number;
  /** GOT entries: import names, or "local" for INDIRECT_SYMBOL_LOCAL. */
  got?: string[];
  /** Function start addresses, ascending (absolute). */
  functionStarts?: bigint[];
  /** Exports to build a trie from. */
  exports?: FixtureExport[];
  /** Raw trie bytes instead of `exports`. */
  trie?: Uint8Array;
  /** Where the trie goes; default "dyld-info". */
  trieCommand?: "dyld-info" | "exports-trie";
  /** Entry point: LC_MAIN with an address in __TEXT, or LC_UNIXTHREAD. */
  entry?: { command: "main" | "thread"; address: bigint };
  dylibs?: FixtureDylib[];
  idDylib?: string;
  dylinker?: string;
  uuid?: Uint8Array;
  /** LC_BUILD_VERSION (default platform macos 12.0, sdk 13.1) or LC_VERSION_MIN_MACOSX. */
  platform?: { command: "build" | "version-min"; platform?: number; minos: number; sdk: number };
}

/** Where things landed in a built file. */
export interface MachOFixture {
  bytes: Uint8Array;
  /** Offset and size of each load command, in order. */
  commands: { name: string; offset: number; size: number }[];
  sizeofcmds: number;
  symtabOffset: number;
  symbolCount: number;
  stringOffset: number;
  stringSize: number;
  indirectOffset: number;
  functionStartsOffset: number;
  functionStartsSize: number;
  trieOffset: number;
  trieSize: number;
  /** Symbol index of each written symbol name. */
  symbolIndex: Map<string, number>;
}

/** A growable byte buffer with the file's byte order. */
class Writer {
  bytes: Uint8Array = new Uint8Array(256);
  length = 0;
  readonly le: boolean;

  constructor(le: boolean) {
    this.le = le;
  }

  ensure(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  u8(v: number): void {
    this.ensure(1);
    this.bytes[this.length++] = v & 0xff;
  }

  u16(v: number): void {
    this.ensure(2);
    new DataView(this.bytes.buffer).setUint16(this.length, v, this.le);
    this.length += 2;
  }

  u32(v: number): void {
    this.ensure(4);
    new DataView(this.bytes.buffer).setUint32(this.length, v >>> 0, this.le);
    this.length += 4;
  }

  u64(v: bigint): void {
    this.ensure(8);
    new DataView(this.bytes.buffer).setBigUint64(this.length, v, this.le);
    this.length += 8;
  }

  /** An address-sized value. */
  word(v: bigint, bits: 32 | 64): void {
    if (bits === 64) this.u64(v);
    else this.u32(Number(v));
  }

  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.bytes.set(b, this.length);
    this.length += b.length;
  }

  /** A name padded (or cut) to `width` bytes. */
  fixed(text: string, width: number): void {
    const b = new TextEncoder().encode(text).subarray(0, width);
    this.raw(b);
    for (let i = b.length; i < width; i++) this.u8(0);
  }

  align(n: number): void {
    while (this.length % n !== 0) this.u8(0);
  }

  uleb(v: bigint | number): void {
    let x = BigInt(v);
    do {
      let b = Number(x & 0x7fn);
      x >>= 7n;
      if (x !== 0n) b |= 0x80;
      this.u8(b);
    } while (x !== 0n);
  }

  cstring(text: string): void {
    this.raw(new TextEncoder().encode(text));
    this.u8(0);
  }

  done(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** ULEB128 bytes of `v`. */
export function uleb(v: bigint | number): Uint8Array {
  const w = new Writer(true);
  w.uleb(v);
  return w.done();
}

interface TrieNode {
  terminal: Uint8Array | null;
  edges: { label: string; child: TrieNode }[];
}

function terminalBytes(e: FixtureExport): Uint8Array {
  const w = new Writer(true);
  const flags = (e.flags ?? 0) | (e.reexport !== undefined ? EXPORT_REEXPORT : 0);
  w.uleb(flags);
  if (e.reexport !== undefined) {
    w.uleb(e.reexport.ordinal);
    w.cstring(e.reexport.name ?? "");
  } else {
    w.uleb(e.offset ?? 0n);
    if ((flags & EXPORT_STUB_AND_RESOLVER) !== 0) w.uleb(e.resolver ?? 0n);
  }
  return w.done();
}

/**
 * A prefix-compressed exports trie, as ld64 lays one out: nodes in
 * depth-first order, child offsets as ULEB128, iterated until the offsets
 * (whose encoded sizes change the layout) stop moving.
 */
export function buildTrie(exports: FixtureExport[]): Uint8Array {
  const root: TrieNode = { terminal: null, edges: [] };
  for (const e of exports) {
    let node = root;
    let rest = e.name;
    while (rest.length > 0) {
      let matched = false;
      for (const edge of node.edges) {
        let common = 0;
        while (
          common < edge.label.length && common < rest.length && edge.label[common] === rest[common]
        ) common++;
        if (common === 0) continue;
        if (common < edge.label.length) {
          // Split the edge at the common prefix.
          const middle: TrieNode = {
            terminal: null,
            edges: [{ label: edge.label.slice(common), child: edge.child }],
          };
          edge.label = edge.label.slice(0, common);
          edge.child = middle;
        }
        node = edge.child;
        rest = rest.slice(common);
        matched = true;
        break;
      }
      if (!matched) {
        const leaf: TrieNode = { terminal: null, edges: [] };
        node.edges.push({ label: rest, child: leaf });
        node = leaf;
        rest = "";
      }
    }
    node.terminal = terminalBytes(e);
  }
  const order: TrieNode[] = [];
  const visit = (n: TrieNode): void => {
    order.push(n);
    for (const edge of n.edges) visit(edge.child);
  };
  visit(root);
  const offsets = new Map<TrieNode, number>(order.map((n) => [n, 0]));
  const encode = (n: TrieNode): Uint8Array => {
    const w = new Writer(true);
    const t = n.terminal ?? new Uint8Array(0);
    w.uleb(t.length);
    w.raw(t);
    w.u8(n.edges.length);
    for (const edge of n.edges) {
      w.cstring(edge.label);
      w.uleb(offsets.get(edge.child)!);
    }
    return w.done();
  };
  for (let round = 0; round < 64; round++) {
    let at = 0;
    let moved = false;
    for (const n of order) {
      if (offsets.get(n) !== at) moved = true;
      offsets.set(n, at);
      at += encode(n).length;
    }
    if (!moved && round > 0) break;
  }
  const w = new Writer(true);
  for (const n of order) w.raw(encode(n));
  return w.done();
}

function defaultStubSize(cputype: number): number {
  if (cputype === CPU_TYPE_X86_64 || cputype === CPU_TYPE_X86) return 6;
  if (cputype === CPU_TYPE_ARM64) return 12;
  return 4;
}

/** Builds a thin Mach-O image. */
export function buildMachO(o: MachOFixtureOptions): MachOFixture {
  const bits = o.bits;
  const le = o.littleEndian ?? true;
  const is64 = bits === 64;
  const base = imageBase(bits);
  const filetype = o.filetype ?? MH_EXECUTE;
  const ptr = is64 ? 8 : 4;
  const stubSize = o.stubSize ?? defaultStubSize(o.cputype);
  const stubs = o.stubs ?? [];
  const got = o.got ?? [];

  // ----- Symbols: locals, external definitions, imports.
  const defined = o.symbols ?? [];
  const locals = defined.filter((s) => !s.external);
  const externals = defined.filter((s) => s.external);
  const imports = o.imports ?? [];
  const strings = new Writer(le);
  strings.u8(0x20); // ld64 starts the table with " \0", so offset 1 is the empty string
  strings.u8(0);
  const symbolIndex = new Map<string, number>();
  const nlist = new Writer(le);
  const writeSymbol = (name: string, type: number, sect: number, desc: number, value: bigint) => {
    symbolIndex.set(name, symbolIndex.size);
    nlist.u32(strings.length);
    strings.cstring(name);
    nlist.u8(type);
    nlist.u8(sect);
    nlist.u16(desc);
    nlist.word(value, bits);
  };
  for (const s of [...locals, ...externals]) {
    const type = (s.absolute ? N_ABS : N_SECT) | (s.external ? N_EXT : 0) |
      (s.privateExternal ? N_PEXT : 0);
    writeSymbol(s.name, type, s.absolute ? 0 : s.section, s.desc ?? 0, s.value);
  }
  for (const i of imports) {
    writeSymbol(
      i.name,
      N_UNDF | N_EXT,
      0,
      ((i.ordinal & 0xff) << 8) | (i.weak ? N_WEAK_REF : 0),
      0n,
    );
  }
  strings.align(ptr);
  const indirect = new Writer(le);
  for (const name of stubs) indirect.u32(symbolIndex.get(name)!);
  for (const name of got) {
    indirect.u32(name === "local" ? INDIRECT_SYMBOL_LOCAL : symbolIndex.get(name)!);
  }

  // ----- __LINKEDIT contents.
  const linkedit = new Writer(le);
  const functionStartsOffset = LINKEDIT_OFFSET + linkedit.length;
  if (o.functionStarts !== undefined) {
    let previous = base;
    for (const a of o.functionStarts) {
      linkedit.uleb(a - previous);
      previous = a;
    }
    linkedit.u8(0);
    linkedit.align(ptr);
  }
  const functionStartsSize = LINKEDIT_OFFSET + linkedit.length - functionStartsOffset;
  const trie = o.trie ?? (o.exports !== undefined ? buildTrie(o.exports) : null);
  const trieOffset = LINKEDIT_OFFSET + linkedit.length;
  if (trie !== null) {
    linkedit.raw(trie);
    linkedit.align(ptr);
  }
  const trieSize = trie === null ? 0 : trie.length;
  const symtabOffset = LINKEDIT_OFFSET + linkedit.length;
  linkedit.raw(nlist.done());
  const indirectOffset = LINKEDIT_OFFSET + linkedit.length;
  linkedit.raw(indirect.done());
  const stringOffset = LINKEDIT_OFFSET + linkedit.length;
  linkedit.raw(strings.done());
  const linkeditSize = linkedit.length;

  // ----- Load commands.
  const lc = new Writer(le);
  const commands: MachOFixture["commands"] = [];
  const command = (name: string, cmd: number, body: (w: Writer) => void, align = ptr): void => {
    const start = lc.length;
    lc.u32(cmd);
    lc.u32(0);
    body(lc);
    lc.align(align);
    const size = lc.length - start;
    new DataView(lc.bytes.buffer).setUint32(start + 4, size, le);
    commands.push({ name, offset: (is64 ? 32 : 28) + start, size });
  };
  interface Sect {
    name: string;
    segment: string;
    address: bigint;
    size: bigint;
    offset: number;
    align: number;
    flags: number;
    reserved1?: number;
    reserved2?: number;
  }
  const segment = (
    name: string,
    address: bigint,
    vmSize: bigint,
    fileOffset: number,
    fileSize: number,
    prot: number,
    sections: Sect[],
  ): void => {
    command(is64 ? "LC_SEGMENT_64" : "LC_SEGMENT", is64 ? 0x19 : 0x1, (w) => {
      w.fixed(name, 16);
      w.word(address, bits);
      w.word(vmSize, bits);
      w.word(BigInt(fileOffset), bits);
      w.word(BigInt(fileSize), bits);
      w.u32(prot);
      w.u32(prot);
      w.u32(sections.length);
      w.u32(0);
      for (const s of sections) {
        w.fixed(s.name, 16);
        w.fixed(s.segment, 16);
        w.word(s.address, bits);
        w.word(s.size, bits);
        w.u32(s.offset);
        w.u32(s.align);
        w.u32(0);
        w.u32(0);
        w.u32(s.flags);
        w.u32(s.reserved1 ?? 0);
        w.u32(s.reserved2 ?? 0);
        if (is64) w.u32(0);
      }
    });
  };
  if (filetype === MH_EXECUTE) segment("__PAGEZERO", 0n, base, 0, 0, 0, []);
  const code = 0x80000400;
  segment("__TEXT", base, 0x2000n, 0, 0x2000, 5, [
    {
      name: "__text",
      segment: "__TEXT",
      address: base + 0x1000n,
      size: 0x800n,
      offset: 0x1000,
      align: 4,
      flags: code,
    },
    {
      name: "__stubs",
      segment: "__TEXT",
      address: base + 0x1800n,
      size: BigInt(stubs.length * stubSize),
      offset: 0x1800,
      align: 1,
      flags: code | 0x8,
      reserved1: 0,
      reserved2: stubSize,
    },
    {
      name: "__cstring",
      segment: "__TEXT",
      address: base + 0x1c00n,
      size: 0x100n,
      offset: 0x1c00,
      align: 0,
      flags: 0x2,
    },
  ]);
  segment("__DATA", base + 0x2000n, 0x1000n, 0x2000, 0x1000, 3, [
    {
      name: "__got",
      segment: "__DATA",
      address: base + 0x2000n,
      size: BigInt(got.length * ptr),
      offset: 0x2000,
      align: is64 ? 3 : 2,
      flags: 0x6,
      reserved1: stubs.length,
    },
    {
      name: "__data",
      segment: "__DATA",
      address: base + 0x2100n,
      size: 0x100n,
      offset: 0x2100,
      align: 3,
      flags: 0,
    },
    {
      name: "__bss",
      segment: "__DATA",
      address: base + 0x2200n,
      size: 0x100n,
      offset: 0,
      align: 3,
      flags: 0x1,
    },
  ]);
  segment(
    "__LINKEDIT",
    base + 0x3000n,
    BigInt(Math.ceil(linkeditSize / 0x1000) * 0x1000),
    LINKEDIT_OFFSET,
    linkeditSize,
    1,
    [],
  );
  if (trie !== null && (o.trieCommand ?? "dyld-info") === "dyld-info") {
    command("LC_DYLD_INFO_ONLY", 0x80000022, (w) => {
      for (let i = 0; i < 8; i++) w.u32(0);
      w.u32(trieOffset);
      w.u32(trieSize);
    });
  }
  if (trie !== null && o.trieCommand === "exports-trie") {
    command("LC_DYLD_EXPORTS_TRIE", 0x80000033, (w) => {
      w.u32(trieOffset);
      w.u32(trieSize);
    });
  }
  const symbolCount = symbolIndex.size;
  const stringSize = LINKEDIT_OFFSET + linkeditSize - stringOffset;
  command("LC_SYMTAB", 0x2, (w) => {
    w.u32(symtabOffset);
    w.u32(symbolCount);
    w.u32(stringOffset);
    w.u32(stringSize);
  });
  command("LC_DYSYMTAB", 0xb, (w) => {
    w.u32(0);
    w.u32(locals.length);
    w.u32(locals.length);
    w.u32(externals.length);
    w.u32(locals.length + externals.length);
    w.u32(imports.length);
    for (let i = 0; i < 6; i++) w.u32(0);
    w.u32(indirectOffset);
    w.u32(stubs.length + got.length);
    for (let i = 0; i < 4; i++) w.u32(0);
  });
  if (o.dylinker !== undefined) {
    command("LC_LOAD_DYLINKER", 0xe, (w) => {
      w.u32(12);
      w.cstring(o.dylinker!);
    });
  }
  if (o.uuid !== undefined) command("LC_UUID", 0x1b, (w) => w.raw(o.uuid!), 4);
  if (o.platform !== undefined) {
    const p = o.platform;
    if (p.command === "build") {
      command("LC_BUILD_VERSION", 0x32, (w) => {
        w.u32(p.platform ?? 1);
        w.u32(p.minos);
        w.u32(p.sdk);
        w.u32(0);
      });
    } else {
      command("LC_VERSION_MIN_MACOSX", 0x24, (w) => {
        w.u32(p.minos);
        w.u32(p.sdk);
      });
    }
  }
  if (o.entry?.command === "main") {
    const entryoff = o.entry.address - base;
    command("LC_MAIN", 0x80000028, (w) => {
      w.u64(entryoff);
      w.u64(0n);
    });
  } else if (o.entry?.command === "thread") {
    const address = o.entry.address;
    command("LC_UNIXTHREAD", 0x5, (w) => {
      if (o.cputype === CPU_TYPE_X86_64) {
        w.u32(4); // x86_THREAD_STATE64
        w.u32(42);
        for (let i = 0; i < 21; i++) w.u64(i === 16 ? address : 0n);
      } else if (o.cputype === CPU_TYPE_X86) {
        w.u32(1); // x86_THREAD_STATE32
        w.u32(16);
        for (let i = 0; i < 16; i++) w.u32(i === 10 ? Number(address) : 0);
      } else if (o.cputype === CPU_TYPE_ARM64) {
        w.u32(6); // ARM_THREAD_STATE64
        w.u32(68);
        for (let i = 0; i < 34; i++) w.u64(i === 32 ? address : 0n);
      } else {
        w.u32(1); // PPC_THREAD_STATE / ARM_THREAD_STATE: srr0 / r15
        w.u32(40);
        const pcAt = o.cputype === CPU_TYPE_ARM ? 15 : 0;
        for (let i = 0; i < 40; i++) w.u32(i === pcAt ? Number(address) : 0);
      }
    });
  }
  const dylibCommand = (name: string, cmd: number, d: FixtureDylib): void => {
    command(name, cmd, (w) => {
      w.u32(24);
      w.u32(2);
      w.u32(d.current ?? 0x10000);
      w.u32(d.compatibility ?? 0x10000);
      w.cstring(d.name);
    });
  };
  if (o.idDylib !== undefined) dylibCommand("LC_ID_DYLIB", 0xd, { name: o.idDylib });
  for (const d of o.dylibs ?? []) {
    const kind = d.kind ?? "load";
    if (kind === "load") dylibCommand("LC_LOAD_DYLIB", 0xc, d);
    else if (kind === "weak") dylibCommand("LC_LOAD_WEAK_DYLIB", 0x80000018, d);
    else dylibCommand("LC_REEXPORT_DYLIB", 0x8000001f, d);
  }
  if (o.functionStarts !== undefined) {
    command("LC_FUNCTION_STARTS", 0x26, (w) => {
      w.u32(functionStartsOffset);
      w.u32(functionStartsSize);
    });
  }
  const sizeofcmds = lc.length;
  const headerSize = is64 ? 32 : 28;
  if (headerSize + sizeofcmds > 0x1000) throw new Error("fixture load commands exceed 0x1000");

  // ----- The file.
  const file = new Uint8Array(LINKEDIT_OFFSET + linkeditSize);
  const view = new DataView(file.buffer);
  view.setUint32(0, is64 ? 0xfeedfacf : 0xfeedface, le);
  view.setUint32(4, o.cputype, le);
  view.setUint32(
    8,
    o.cpusubtype ?? (o.cputype === CPU_TYPE_X86_64 || o.cputype === CPU_TYPE_X86 ? 3 : 0),
    le,
  );
  view.setUint32(12, filetype, le);
  view.setUint32(16, commands.length, le);
  view.setUint32(20, sizeofcmds, le);
  view.setUint32(24, o.flags ?? (MH_NOUNDEFS | MH_DYLDLINK | MH_TWOLEVEL | MH_PIE), le);
  file.set(lc.done(), headerSize);
  // Recognisable code bytes: x86 `ret` (0xc3) throughout __text, `jmp` stubs.
  file.fill(0xc3, 0x1000, 0x1800);
  file.fill(0xff, 0x1800, 0x1800 + stubs.length * stubSize);
  file.set(new TextEncoder().encode("hello\0"), 0x1c00);
  file.set(linkedit.done(), LINKEDIT_OFFSET);
  return {
    bytes: file,
    commands,
    sizeofcmds,
    symtabOffset,
    symbolCount,
    stringOffset,
    stringSize,
    indirectOffset,
    functionStartsOffset,
    functionStartsSize,
    trieOffset,
    trieSize,
    symbolIndex,
  };
}

/** One slice of a universal file. */
export interface FatSlice {
  bytes: Uint8Array;
  cputype: number;
  cpusubtype: number;
  /** Power of two to align the slice to; default 14. */
  align?: number;
}

/** A universal file: FAT_MAGIC (or FAT_MAGIC_64) header, then the slices, aligned. */
export function buildUniversal(slices: FatSlice[], fat64 = false): {
  bytes: Uint8Array;
  offsets: number[];
} {
  const entrySize = fat64 ? 32 : 20;
  let at = 8 + slices.length * entrySize;
  const offsets: number[] = [];
  for (const s of slices) {
    const alignment = 2 ** (s.align ?? 14);
    at = Math.ceil(at / alignment) * alignment;
    offsets.push(at);
    at += s.bytes.length;
  }
  const file = new Uint8Array(at);
  const view = new DataView(file.buffer);
  view.setUint32(0, fat64 ? 0xcafebabf : 0xcafebabe);
  view.setUint32(4, slices.length);
  slices.forEach((s, i) => {
    const e = 8 + i * entrySize;
    view.setUint32(e, s.cputype);
    view.setUint32(e + 4, s.cpusubtype);
    if (fat64) {
      view.setBigUint64(e + 8, BigInt(offsets[i]!));
      view.setBigUint64(e + 16, BigInt(s.bytes.length));
      view.setUint32(e + 24, s.align ?? 14);
    } else {
      view.setUint32(e + 8, offsets[i]!);
      view.setUint32(e + 12, s.bytes.length);
      view.setUint32(e + 16, s.align ?? 14);
    }
    file.set(s.bytes, offsets[i]!);
  });
  return { bytes: file, offsets };
}

/** Writes a 32-bit value into `bytes` at `offset` (little-endian unless told). */
export function poke32(bytes: Uint8Array, offset: number, value: number, le = true): void {
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(offset, value >>> 0, le);
}
