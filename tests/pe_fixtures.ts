/**
 * A small writer of synthetic PE images for the PE reader's tests: DOS and
 * COFF headers, a PE32 or PE32+ optional header with data directories, a
 * handful of sections (one with a long name held in the COFF string table),
 * an export table with names, ordinals and a forwarder, import and
 * delay-load import tables with imports by name and by ordinal, a `.pdata`
 * function table in the machine's format, a debug directory with an RSDS
 * CodeView record, and two COFF symbols.
 *
 * Everything here is written from the PE/COFF specification; the expected
 * values the tests compare against are exported next to the writer.
 */

/** The machines the writer can build an image for. */
export type FixtureMachine = "i386" | "AMD64" | "ARM64" | "ARMNT";

/** COFF `Machine` values. */
export const MACHINE_CODES: Readonly<Record<FixtureMachine, number>> = {
  i386: 0x14c,
  AMD64: 0x8664,
  ARM64: 0xaa64,
  ARMNT: 0x1c4,
};

export const FILE_ALIGNMENT = 0x200;
export const SECTION_ALIGNMENT = 0x1000;
export const SIZE_OF_HEADERS = 0x400;
export const E_LFANEW = 0x80;

/** RVAs of the code the tables describe. */
export const CODE = {
  alpha: 0x1000,
  beta: 0x1010,
  byOrdinal: 0x1030,
  entry: 0x1040,
  hidden: 0x1060,
  end: 0x1080,
} as const;

/** The long section name that goes through the string table. */
export const LONG_SECTION_NAME = ".rdata$zz_long_section_name";
/** Name of the COFF function symbol (long, so it is in the string table too). */
export const SYMBOL_NAME = "hidden_function_with_a_long_name";
export const DLL_NAME = "fixture.dll";
export const EXPORT_BASE = 5;
export const FORWARDER = "KERNEL32.Sleep";
export const PDB_PATH = "C:\\fixture\\out\\fixture.pdb";
export const PDB_AGE = 3;
/** GUID bytes as stored (Data1, Data2, Data3 little-endian, then Data4). */
export const PDB_GUID_BYTES: readonly number[] = [
  0x38,
  0x44,
  0xdb,
  0xb9,
  0x20,
  0x17,
  0x67,
  0x49,
  0xbe,
  0x7a,
  0xa4,
  0xa2,
  0xc2,
  0x04,
  0x30,
  0xfa,
];
export const PDB_GUID = "B9DB4438-1720-4967-BE7A-A4A2C20430FA";

/** One export as the fixture defines it, in export address table order. */
export interface FixtureExport {
  names: string[];
  /** RVA, 0 for a gap, or null for the forwarder. */
  rva: number | null;
}

/** The export address table (ordinal = EXPORT_BASE + index). */
export const EXPORTS: readonly FixtureExport[] = [
  { names: ["Alpha", "AlphaAlias"], rva: CODE.alpha },
  { names: ["Beta"], rva: CODE.beta },
  { names: ["Forwarded"], rva: null },
  { names: [], rva: CODE.byOrdinal },
  { names: [], rva: 0 },
  { names: ["DataThing"], rva: 0x3000 },
];

/** One import: a name with its hint, or an ordinal. */
export type FixtureImport = { name: string; hint: number } | { ordinal: number };

export interface FixtureLibrary {
  name: string;
  symbols: FixtureImport[];
}

export const IMPORTS: readonly FixtureLibrary[] = [
  {
    name: "KERNEL32.dll",
    symbols: [{ name: "GetProcAddress", hint: 0x2a0 }, { name: "ExitProcess", hint: 0x15e }, {
      ordinal: 17,
    }],
  },
  { name: "msvcrt.dll", symbols: [{ name: "printf", hint: 0x4d2 }] },
  { name: "WS2_32.dll", symbols: [{ ordinal: 23 }, { ordinal: 115 }] },
];

export const DELAY_IMPORTS: readonly FixtureLibrary[] = [
  { name: "delayed.dll", symbols: [{ name: "Later", hint: 3 }, { ordinal: 9 }] },
];

/** One `.pdata` function: its RVA range and whether the ARM/ARM64 form is packed. */
export interface FixtureFunction {
  begin: number;
  end: number;
  /** ARM64/ARM: 0 = .xdata record, 1 = packed, 2 = packed fragment. */
  flag: 0 | 1 | 2;
}

export const PDATA: readonly FixtureFunction[] = [
  { begin: CODE.alpha, end: CODE.beta, flag: 0 },
  { begin: CODE.beta, end: CODE.byOrdinal, flag: 1 },
  { begin: CODE.byOrdinal, end: CODE.entry, flag: 2 },
  { begin: CODE.entry, end: CODE.hidden, flag: 1 },
  { begin: CODE.hidden, end: CODE.end, flag: 0 },
];

/** Options of {@linkcode buildPe}. */
export interface PeFixtureOptions {
  machine: FixtureMachine;
  /** Leave out the COFF symbol table and string table (the long section name stays `/4`). */
  noSymbols?: boolean;
  /**
   * Zero bytes in an extra last section, `.slack` (read-only data, virtual
   * size exactly `slack`), for tests that build damaged tables there.
   */
  slack?: number;
}

/** Where the writer put things, for tests that damage them. */
export interface PeFixture {
  bytes: Uint8Array;
  machine: FixtureMachine;
  is64: boolean;
  imageBase: bigint;
  /** Section name to [RVA, file offset, raw size, virtual size]. */
  sections: Map<string, { rva: number; offset: number; rawSize: number; virtualSize: number }>;
  /** File offset of the COFF header, the optional header and the section table. */
  coffOffset: number;
  optionalOffset: number;
  sectionTableOffset: number;
  /** RVAs of the tables. */
  rvas: {
    exportDirectory: number;
    exportDirectorySize: number;
    forwarder: number;
    importDirectory: number;
    delayDirectory: number;
    pdata: number | null;
    debugDirectory: number;
    /** RVA of the `.slack` section (0 when none was asked for). */
    slack: number;
    iat: Map<string, number>;
    ilt: Map<string, number>;
  };
  /** Maps an RVA to a file offset through the fixture's own layout. */
  offsetOf(rva: number): number;
}

/** Writes `value` (`size` bytes, little-endian) at `offset`. */
export function poke(
  bytes: Uint8Array,
  offset: number,
  size: 1 | 2 | 4 | 8,
  value: number | bigint,
): void {
  let v = BigInt(value);
  for (let i = 0; i < size; i++) {
    bytes[offset + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

const align = (value: number, to: number): number => Math.ceil(value / to) * to;

/** A section being filled: content grows as structures are placed. */
class SectionWriter {
  readonly name: string;
  readonly rva: number;
  readonly characteristics: number;
  bytes: Uint8Array = new Uint8Array(0x1000);
  used = 0;
  /** Virtual size beyond the content (zero-filled tail), if any. */
  virtualSize: number | null = null;

  constructor(name: string, rva: number, characteristics: number) {
    this.name = name;
    this.rva = rva;
    this.characteristics = characteristics;
  }

  /** Reserves `size` bytes aligned to `alignment`; returns their RVA. */
  alloc(size: number, alignment = 4): number {
    const at = align(this.used, alignment);
    this.used = at + size;
    while (this.used > this.bytes.length) {
      const next = new Uint8Array(this.bytes.length * 2);
      next.set(this.bytes);
      this.bytes = next;
    }
    return this.rva + at;
  }

  put(rva: number, size: 1 | 2 | 4 | 8, value: number | bigint): void {
    poke(this.bytes, rva - this.rva, size, value);
  }

  /** Places a NUL-terminated string; returns its RVA. */
  string(text: string, alignment = 1): number {
    const encoded = new TextEncoder().encode(text);
    const rva = this.alloc(encoded.length + 1, alignment);
    this.bytes.set(encoded, rva - this.rva);
    return rva;
  }

  /** Places raw bytes; returns their RVA. */
  raw(data: ArrayLike<number>, alignment = 1): number {
    const rva = this.alloc(data.length, alignment);
    this.bytes.set(data, rva - this.rva);
    return rva;
  }
}

/** Builds the standard synthetic image for `options.machine`. */
export function buildPe(options: PeFixtureOptions): PeFixture {
  const machine = options.machine;
  const is64 = machine === "AMD64" || machine === "ARM64";
  const thunkSize = is64 ? 8 : 4;
  const imageBase = is64 ? 0x180000000n : 0x10000000n;
  const hasPdata = machine !== "i386";

  const text = new SectionWriter(".text", 0x1000, 0x60000020);
  const rdata = new SectionWriter(".rdata", 0x2000, 0x40000040);
  const data = new SectionWriter(".data", 0x3000, 0xc0000040);
  const pdata = hasPdata ? new SectionWriter(".pdata", 0x4000, 0x40000040) : null;
  const long = new SectionWriter(LONG_SECTION_NAME, hasPdata ? 0x5000 : 0x4000, 0xc0000040);
  const slackWriter = options.slack
    ? new SectionWriter(".slack", long.rva + SECTION_ALIGNMENT, 0x40000040)
    : null;
  const writers = [
    text,
    rdata,
    data,
    ...(pdata ? [pdata] : []),
    long,
    ...(slackWriter ? [slackWriter] : []),
  ];
  const slack = slackWriter ? slackWriter.alloc(options.slack!) : 0;

  // ----- .text: int3 filler with a return at each function start
  text.alloc(CODE.end - CODE.alpha);
  text.bytes.fill(0xcc, 0, CODE.end - CODE.alpha);
  for (const at of Object.values(CODE)) if (at < CODE.end) text.bytes[at - text.rva] = 0xc3;

  // ----- .data: the data export, then room for the IATs; a zero-filled tail
  data.alloc(16);
  data.virtualSize = 0x800;
  long.raw([1, 2, 3, 4, 5, 6, 7, 8]);

  // ----- Export directory: directory, tables, names, forwarder string, all inside its size
  const exportDirectory = rdata.alloc(40);
  const eat = rdata.alloc(EXPORTS.length * 4);
  const named = EXPORTS.flatMap((e, index) => e.names.map((name) => ({ name, index })))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const namePointers = rdata.alloc(named.length * 4);
  const ordinals = rdata.alloc(named.length * 2, 2);
  const dllName = rdata.string(DLL_NAME);
  named.forEach((n, i) => {
    rdata.put(namePointers + i * 4, 4, rdata.string(n.name));
    rdata.put(ordinals + i * 2, 2, n.index);
  });
  const forwarder = rdata.string(FORWARDER);
  // ARMNT code addresses carry the Thumb bit, as linkers write them.
  const thumbBit = options.machine === "ARMNT" ? 1 : 0;
  const inText = (rva: number): boolean => rva >= CODE.alpha && rva < CODE.hidden + 0x20;
  EXPORTS.forEach((e, i) =>
    rdata.put(eat + i * 4, 4, e.rva === null ? forwarder : e.rva | (inText(e.rva) ? thumbBit : 0))
  );
  const exportDirectorySize = rdata.used - (exportDirectory - rdata.rva);
  rdata.put(exportDirectory + 4, 4, 0x5f000000); // TimeDateStamp
  rdata.put(exportDirectory + 12, 4, dllName);
  rdata.put(exportDirectory + 16, 4, EXPORT_BASE);
  rdata.put(exportDirectory + 20, 4, EXPORTS.length);
  rdata.put(exportDirectory + 24, 4, named.length);
  rdata.put(exportDirectory + 28, 4, eat);
  rdata.put(exportDirectory + 32, 4, namePointers);
  rdata.put(exportDirectory + 36, 4, ordinals);

  // ----- Import directory: descriptors, then per DLL an ILT (in .rdata) and an IAT (in .data)
  const iatRvas = new Map<string, number>();
  const iltRvas = new Map<string, number>();
  const writeThunks = (library: FixtureLibrary): { ilt: number; iat: number } => {
    const count = library.symbols.length + 1;
    const ilt = rdata.alloc(count * thunkSize, thunkSize);
    const iat = data.alloc(count * thunkSize, thunkSize);
    library.symbols.forEach((symbol, i) => {
      let value: bigint;
      if ("ordinal" in symbol) {
        value = (is64 ? 1n << 63n : 1n << 31n) | BigInt(symbol.ordinal);
      } else {
        const hintName = rdata.alloc(2, 2);
        rdata.put(hintName, 2, symbol.hint);
        rdata.string(symbol.name);
        rdata.alloc(0, 2);
        value = BigInt(hintName);
      }
      rdata.put(ilt + i * thunkSize, thunkSize, value);
      data.put(iat + i * thunkSize, thunkSize, value);
    });
    iatRvas.set(library.name, iat);
    iltRvas.set(library.name, ilt);
    return { ilt, iat };
  };
  const importDirectory = rdata.alloc((IMPORTS.length + 1) * 20);
  IMPORTS.forEach((library, i) => {
    const { ilt, iat } = writeThunks(library);
    const d = importDirectory + i * 20;
    rdata.put(d, 4, ilt);
    rdata.put(d + 12, 4, rdata.string(library.name));
    rdata.put(d + 16, 4, iat);
  });

  // ----- Delay-load import directory (RVA-based, attribute bit 0 set)
  const delayDirectory = rdata.alloc((DELAY_IMPORTS.length + 1) * 32);
  DELAY_IMPORTS.forEach((library, i) => {
    const { ilt, iat } = writeThunks(library);
    const handle = data.alloc(thunkSize, thunkSize);
    const d = delayDirectory + i * 32;
    rdata.put(d, 4, 1);
    rdata.put(d + 4, 4, rdata.string(library.name));
    rdata.put(d + 8, 4, handle);
    rdata.put(d + 12, 4, iat);
    rdata.put(d + 16, 4, ilt);
  });

  // ----- Unwind data and .pdata
  const unwindFor = new Map<number, number>();
  for (const f of PDATA) {
    const length = f.end - f.begin;
    if (machine === "AMD64") {
      // UNWIND_INFO version 1, no flags, no prologue, no codes.
      unwindFor.set(f.begin, rdata.raw([1, 0, 0, 0], 4));
    } else if (f.flag === 0 && machine === "ARM64") {
      // Header: FunctionLength / 4, E = 1 (single epilogue at code 0), one code word: end.
      const header = (length / 4) | (1 << 21) | (1 << 27);
      const at = rdata.alloc(8, 4);
      rdata.put(at, 4, header);
      rdata.put(at + 4, 4, 0xe3e3e3e4);
      unwindFor.set(f.begin, at);
    } else if (f.flag === 0 && machine === "ARMNT") {
      // Header: FunctionLength / 2, E = 1, one code word: end.
      const header = (length / 2) | (1 << 21) | (1 << 28);
      const at = rdata.alloc(8, 4);
      rdata.put(at, 4, header);
      rdata.put(at + 4, 4, 0xfbfbfbff);
      unwindFor.set(f.begin, at);
    }
  }
  let pdataRva: number | null = null;
  if (pdata !== null) {
    const entrySize = machine === "AMD64" ? 12 : 8;
    pdataRva = pdata.alloc(PDATA.length * entrySize);
    PDATA.forEach((f, i) => {
      const o = pdataRva! + i * entrySize;
      if (machine === "AMD64") {
        pdata.put(o, 4, f.begin);
        pdata.put(o + 4, 4, f.end);
        pdata.put(o + 8, 4, unwindFor.get(f.begin)!);
        return;
      }
      const thumb = machine === "ARMNT" ? 1 : 0;
      pdata.put(o, 4, f.begin | thumb);
      if (f.flag === 0) {
        pdata.put(o + 4, 4, unwindFor.get(f.begin)!);
      } else if (machine === "ARM64") {
        // Packed: FunctionLength / 4 in bits 2-12, CR = 0, FrameSize 1 (16 bytes) in bits 23-31.
        pdata.put(o + 4, 4, f.flag | (((f.end - f.begin) / 4) << 2) | (1 << 23));
      } else {
        // Packed: FunctionLength / 2 in bits 2-12, Ret = 0, Reg = 0 (r4), L = 1.
        pdata.put(o + 4, 4, f.flag | (((f.end - f.begin) / 2) << 2) | (1 << 20));
      }
    });
  }

  // ----- Debug directory with an RSDS CodeView record
  const debugDirectory = rdata.alloc(28);
  const pathBytes = new TextEncoder().encode(PDB_PATH);
  const record = rdata.alloc(24 + pathBytes.length + 1, 4);
  rdata.bytes.set([0x52, 0x53, 0x44, 0x53], record - rdata.rva); // "RSDS"
  rdata.bytes.set(PDB_GUID_BYTES, record + 4 - rdata.rva);
  rdata.put(record + 20, 4, PDB_AGE);
  rdata.bytes.set(pathBytes, record + 24 - rdata.rva);

  // ----- File layout
  const sections = new Map<
    string,
    { rva: number; offset: number; rawSize: number; virtualSize: number }
  >();
  let fileOffset = SIZE_OF_HEADERS;
  for (const w of writers) {
    const rawSize = align(w.used, FILE_ALIGNMENT);
    sections.set(w.name, {
      rva: w.rva,
      offset: fileOffset,
      rawSize,
      virtualSize: w.virtualSize ?? w.used,
    });
    fileOffset += rawSize;
  }
  const recordOffset = sections.get(".rdata")!.offset + (record - rdata.rva);
  rdata.put(debugDirectory + 12, 4, 2); // IMAGE_DEBUG_TYPE_CODEVIEW
  rdata.put(debugDirectory + 16, 4, 24 + pathBytes.length + 1);
  rdata.put(debugDirectory + 20, 4, record);
  rdata.put(debugDirectory + 24, 4, recordOffset);

  // COFF symbol table: a static function symbol with one auxiliary record, and a data symbol.
  const symbolTable = fileOffset;
  const symbolCount = options.noSymbols ? 0 : 3;
  const stringTable: number[] = [0, 0, 0, 0];
  const addString = (s: string): number => {
    const at = stringTable.length;
    stringTable.push(...new TextEncoder().encode(s), 0);
    return at;
  };
  const longNameAt = addString(LONG_SECTION_NAME);
  const symbolNameAt = addString(SYMBOL_NAME);
  const stringBytes = Uint8Array.from(stringTable);
  poke(stringBytes, 0, 4, stringBytes.length);
  const symbolBytes = new Uint8Array(symbolCount * 18);
  if (!options.noSymbols) {
    poke(symbolBytes, 4, 4, symbolNameAt); // name via the string table
    poke(symbolBytes, 8, 4, CODE.hidden - text.rva);
    poke(symbolBytes, 12, 2, 1); // section 1 (.text)
    poke(symbolBytes, 14, 2, 0x20); // DTYPE_FUNCTION
    symbolBytes[16] = 3; // IMAGE_SYM_CLASS_STATIC
    symbolBytes[17] = 1; // one auxiliary record follows
    symbolBytes.set(new TextEncoder().encode("gdata"), 36);
    poke(symbolBytes, 44, 4, 0);
    poke(symbolBytes, 48, 2, 3); // section 3 (.data)
    symbolBytes[52] = 2; // IMAGE_SYM_CLASS_EXTERNAL
  }
  const total = fileOffset + (options.noSymbols ? 0 : symbolBytes.length + stringBytes.length);
  const bytes = new Uint8Array(total);

  // ----- DOS header, PE signature, COFF header
  bytes[0] = 0x4d;
  bytes[1] = 0x5a;
  poke(bytes, 0x3c, 4, E_LFANEW);
  bytes.set([0x50, 0x45, 0, 0], E_LFANEW);
  const coff = E_LFANEW + 4;
  const optionalSize = is64 ? 240 : 224;
  poke(bytes, coff, 2, MACHINE_CODES[machine]);
  poke(bytes, coff + 2, 2, writers.length);
  poke(bytes, coff + 4, 4, 0x60000000);
  poke(bytes, coff + 8, 4, options.noSymbols ? 0 : symbolTable);
  poke(bytes, coff + 12, 4, symbolCount);
  poke(bytes, coff + 16, 2, optionalSize);
  // EXECUTABLE_IMAGE | DLL, plus 32BIT_MACHINE or LARGE_ADDRESS_AWARE.
  poke(bytes, coff + 18, 2, 0x2002 | (is64 ? 0x20 : 0x100));

  // ----- Optional header
  const opt = coff + 20;
  const lastSection = writers.at(-1)!;
  const sizeOfImage = align(
    lastSection.rva + (lastSection.virtualSize ?? lastSection.used),
    SECTION_ALIGNMENT,
  );
  poke(bytes, opt, 2, is64 ? 0x20b : 0x10b);
  bytes[opt + 2] = 14;
  poke(bytes, opt + 4, 4, sections.get(".text")!.rawSize);
  poke(bytes, opt + 16, 4, CODE.entry | (options.machine === "ARMNT" ? 1 : 0));
  poke(bytes, opt + 20, 4, text.rva);
  if (is64) poke(bytes, opt + 24, 8, imageBase);
  else {
    poke(bytes, opt + 24, 4, rdata.rva);
    poke(bytes, opt + 28, 4, imageBase);
  }
  poke(bytes, opt + 32, 4, SECTION_ALIGNMENT);
  poke(bytes, opt + 36, 4, FILE_ALIGNMENT);
  poke(bytes, opt + 40, 2, 6);
  poke(bytes, opt + 48, 2, 6);
  poke(bytes, opt + 56, 4, sizeOfImage);
  poke(bytes, opt + 60, 4, SIZE_OF_HEADERS);
  poke(bytes, opt + 68, 2, 3); // WINDOWS_CUI
  poke(bytes, opt + 70, 2, is64 ? 0x8160 : 0x8140);
  const fixed = is64 ? 112 : 96;
  if (is64) {
    poke(bytes, opt + 72, 8, 0x100000);
    poke(bytes, opt + 80, 8, 0x1000);
    poke(bytes, opt + 88, 8, 0x100000);
    poke(bytes, opt + 96, 8, 0x1000);
  } else {
    poke(bytes, opt + 72, 4, 0x100000);
    poke(bytes, opt + 76, 4, 0x1000);
    poke(bytes, opt + 80, 4, 0x100000);
    poke(bytes, opt + 84, 4, 0x1000);
  }
  poke(bytes, opt + fixed - 4, 4, 16);
  const directory = (index: number, rva: number, size: number): void => {
    poke(bytes, opt + fixed + index * 8, 4, rva);
    poke(bytes, opt + fixed + index * 8 + 4, 4, size);
  };
  directory(0, exportDirectory, exportDirectorySize);
  directory(1, importDirectory, (IMPORTS.length + 1) * 20);
  if (pdataRva !== null) {
    directory(3, pdataRva, PDATA.length * (machine === "AMD64" ? 12 : 8));
  }
  directory(6, debugDirectory, 28);
  const firstIat = Math.min(...iatRvas.values());
  directory(12, firstIat, data.used - (firstIat - data.rva));
  directory(13, delayDirectory, (DELAY_IMPORTS.length + 1) * 32);

  // ----- Section table
  const sectionTable = opt + optionalSize;
  writers.forEach((w, i) => {
    const o = sectionTable + i * 40;
    const name = w === long ? (options.noSymbols ? "/4" : `/${longNameAt}`) : w.name;
    bytes.set(new TextEncoder().encode(name).subarray(0, 8), o);
    const s = sections.get(w.name)!;
    poke(bytes, o + 8, 4, s.virtualSize);
    poke(bytes, o + 12, 4, w.rva);
    poke(bytes, o + 16, 4, s.rawSize);
    poke(bytes, o + 20, 4, s.offset);
    poke(bytes, o + 36, 4, w.characteristics);
    bytes.set(w.bytes.subarray(0, w.used), s.offset);
  });
  if (!options.noSymbols) {
    bytes.set(symbolBytes, symbolTable);
    bytes.set(stringBytes, symbolTable + symbolBytes.length);
  }

  const offsetOf = (rva: number): number => {
    for (const s of sections.values()) {
      if (rva >= s.rva && rva < s.rva + s.rawSize) return s.offset + (rva - s.rva);
    }
    throw new Error(`fixture: RVA 0x${rva.toString(16)} is not in a section`);
  };
  return {
    bytes,
    machine,
    is64,
    imageBase,
    sections,
    coffOffset: coff,
    optionalOffset: opt,
    sectionTableOffset: sectionTable,
    rvas: {
      exportDirectory,
      exportDirectorySize,
      forwarder,
      importDirectory,
      delayDirectory,
      pdata: pdataRva,
      debugDirectory,
      slack,
      iat: iatRvas,
      ilt: iltRvas,
    },
    offsetOf,
  };
}
