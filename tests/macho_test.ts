/**
 * Tests for the Mach-O reader: exact results on synthetic thin (64-bit,
 * 32-bit, big-endian) and universal files, agreement with the LLVM tools
 * (llvm-objdump-14, llvm-nm-14, llvm-readobj-14) on real macOS binaries from
 * pinned npm packages and on the synthetic files, and bounded, typed failure
 * on damaged input.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env
 * --allow-net tests/macho_test.ts`. Tests that need a missing program or
 * fixture are ignored with the reason printed.
 */

import assert from "node:assert/strict";
import { hasProgram } from "./helpers/programs.ts";
import { mulberry32 } from "./helpers/random.ts";
import type { BinaryImage } from "../src/apps/formats/binary_image.ts";
import { isMachO, parseMachO } from "../src/apps/formats/macho/parse.ts";
import { machOImages } from "../src/apps/formats/macho/image.ts";
import {
  type MachOFile,
  MachOParseError,
  type MachOSlice,
} from "../src/apps/formats/macho/model.ts";
import {
  buildMachO,
  buildUniversal,
  CPU_TYPE_ARM,
  CPU_TYPE_ARM64,
  CPU_TYPE_POWERPC,
  CPU_TYPE_X86,
  CPU_TYPE_X86_64,
  EXPORT_ABSOLUTE,
  EXPORT_STUB_AND_RESOLVER,
  EXPORT_WEAK,
  imageBase,
  LINKEDIT_OFFSET,
  type MachOFixtureOptions,
  MH_BUNDLE,
  MH_DYLDLINK,
  MH_DYLIB,
  MH_NOUNDEFS,
  MH_TWOLEVEL,
  poke32,
  SECT_CSTRING,
  SECT_DATA,
  SECT_TEXT,
  textAddress,
} from "./macho_fixtures.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { tallyCorruptions } from "./helpers/corruption.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

// ---------------------------------------------------------------------------
// Environment

const OBJDUMP = "llvm-objdump-14";
const NM = "llvm-nm-14";
const READOBJ = "llvm-readobj-14";
const hasObjdump = hasProgram(OBJDUMP);
const hasNm = hasProgram(NM);
const hasReadobj = hasProgram(READOBJ);
const canWrite = Deno.permissions.querySync({ name: "write", path: "/tmp" }).state === "granted";

/** Registers a test that needs `programs`, printing why when it is ignored. */
function testWith(
  needs: Record<string, boolean>,
  name: string,
  fn: () => Promise<void> | void,
): void {
  const missing = Object.entries(needs).filter(([, ok]) => !ok).map(([p]) => p);
  if (missing.length > 0) {
    console.log(`skip: ${name}: ${missing.join(", ")} not available (or not allowed)`);
  }
  Deno.test({ name, ignore: missing.length > 0, fn });
}

async function run(program: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(program, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(
    out.code,
    0,
    `${program} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`,
  );
  return text;
}

// ---------------------------------------------------------------------------
// Helpers

const hex = (n: bigint | number): string => `0x${n.toString(16)}`;

/** Asserts that every address in a parse result is a bigint and the images are well formed. */
function checkResult(file: MachOFile, images: BinaryImage[], label: string): void {
  const isBig = (v: unknown, what: string): void =>
    assert.equal(typeof v, "bigint", `${label}: ${what} is ${typeof v}`);
  const isBigOrNull = (v: unknown, what: string): void => {
    if (v !== null) isBig(v, what);
  };
  for (const w of file.warnings) assert.equal(typeof w, "string", label);
  for (const s of file.slices) {
    isBigOrNull(s.entry, "entry");
    isBigOrNull(s.mainEntryOffset, "entryoff");
    for (const seg of s.segments) {
      isBig(seg.address, "segment address");
      isBig(seg.vmSize, "segment vmsize");
    }
    for (const sec of s.sections) {
      isBig(sec.address, "section address");
      isBig(sec.size, "section size");
    }
    for (const sym of s.symbols) isBig(sym.value, "symbol value");
    for (const a of s.functionStarts) isBig(a, "function start");
    for (const e of s.exports) {
      isBigOrNull(e.address, "export address");
      isBigOrNull(e.resolver, "resolver");
    }
    for (const i of s.imports) {
      isBigOrNull(i.stub, "stub");
      isBigOrNull(i.pointer, "pointer");
    }
  }
  assert.equal(images.length, file.slices.length, label);
  assert.equal(new Set(images.map((i) => i.document)).size, images.length, `${label}: names`);
  for (const image of images) {
    isBigOrNull(image.entry, "image entry");
    let previous = -1n;
    for (const f of image.functions) {
      isBig(f.address, "function address");
      isBig(f.size, "function size");
      assert.ok(
        f.address > previous,
        `${label}: functions not strictly ascending at ${hex(f.address)}`,
      );
      previous = f.address;
    }
    for (const s of image.sections) {
      isBig(s.address, "image section address");
      isBig(s.size, "image section size");
      if (s.fileOffset !== null) {
        assert.ok(s.fileOffset + s.fileSize <= image.bytes.length, `${label}: ${s.name} in file`);
      }
    }
    for (const i of image.imports) isBigOrNull(i.address, "import address");
    for (const e of image.exports) isBigOrNull(e.address, "export address");
  }
}

/** Parses damaged bytes: only MachOParseError may escape, in bounded time; results are sane. */
function parseDamaged(bytes: Uint8Array, label: string): MachOFile | MachOParseError {
  const started = performance.now();
  let file: MachOFile;
  let images: BinaryImage[];
  try {
    file = parseMachO(bytes);
    images = machOImages(bytes, "damaged");
  } catch (error) {
    if (error instanceof MachOParseError) {
      assert.match(error.message, /^Cannot parse Mach-O /, label);
      return error;
    }
    throw new Error(`${label}: unexpected ${error}`, { cause: error });
  }
  const elapsed = performance.now() - started;
  assert.ok(elapsed < 5000, `${label}: took ${elapsed.toFixed(0)} ms`);
  checkResult(file, images, label);
  return file;
}

function assertParseError(bytes: Uint8Array, message: string | RegExp): MachOParseError {
  let caught: unknown = null;
  try {
    parseMachO(bytes);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof MachOParseError, `expected MachOParseError, got ${caught}`);
  if (typeof message === "string") assert.equal(caught.message, message);
  else assert.match(caught.message, message);
  return caught;
}

// ---------------------------------------------------------------------------
// Synthetic files

const BASE64 = imageBase(64);
const TEXT64 = textAddress(64);
const UUID = new Uint8Array([
  0x21,
  0xfe,
  0x38,
  0x4c,
  0x8f,
  0xbc,
  0x38,
  0xba,
  0xba,
  0x62,
  0x29,
  0xb6,
  0x02,
  0x97,
  0xae,
  0xa6,
]);
const LIBSYSTEM = "/usr/lib/libSystem.B.dylib";
const LIBFOO = "/usr/lib/libfoo.dylib";
const CORE_FOUNDATION =
  "/System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation";

/** A 64-bit executable with every feature the reader decodes. */
function standard64(cputype = CPU_TYPE_X86_64): MachOFixtureOptions {
  return {
    bits: 64,
    cputype,
    symbols: [
      { name: "_helper", section: SECT_TEXT, value: TEXT64 + 0x10n },
      { name: "_main_alias", section: SECT_TEXT, value: TEXT64 + 0x20n },
      { name: "ltmp_string", section: SECT_CSTRING, value: BASE64 + 0x1c00n },
      { name: "_main", section: SECT_TEXT, value: TEXT64 + 0x20n, external: true },
      { name: "_counter", section: SECT_DATA, value: BASE64 + 0x2100n, external: true },
      { name: "_absolute", section: 0, absolute: true, value: 0x1234n, external: true },
      {
        name: "__mh_execute_header",
        section: SECT_TEXT,
        value: BASE64,
        external: true,
        desc: 0x10,
      },
    ],
    imports: [
      { name: "_printf", ordinal: 1 },
      { name: "_malloc", ordinal: 1 },
      { name: "_foo", ordinal: 2, weak: true },
      { name: "_looked_up", ordinal: 0xfe },
    ],
    stubs: ["_printf", "_malloc"],
    got: ["_foo", "local", "_printf"],
    functionStarts: [TEXT64, TEXT64 + 0x10n, TEXT64 + 0x20n, TEXT64 + 0x40n],
    exports: [
      { name: "__mh_execute_header", offset: 0n },
      { name: "_main", offset: 0x1020n },
      { name: "_mainly", offset: 0x1040n, flags: EXPORT_WEAK },
      { name: "_counter", offset: 0x2100n },
      { name: "_reexported", reexport: { ordinal: 2, name: "_bar" } },
      { name: "_reexported_same", reexport: { ordinal: 1 } },
      { name: "_resolved", flags: EXPORT_STUB_AND_RESOLVER, offset: 0x1806n, resolver: 0x1060n },
      { name: "_absolute", flags: EXPORT_ABSOLUTE, offset: 0x1234n },
    ],
    entry: { command: "main", address: TEXT64 },
    dylibs: [
      { name: LIBSYSTEM, current: (1311 << 16) | 0x100 },
      { name: LIBFOO, kind: "weak", compatibility: 0x20000 },
    ],
    dylinker: "/usr/lib/dyld",
    uuid: UUID,
    platform: { command: "build", minos: 0x0c0000, sdk: 0x0d0100 },
  };
}

const STANDARD64_FUNCTIONS: BinaryImage["functions"] = [
  { address: TEXT64, size: 0n, name: "", names: [], source: "entry" },
  { address: TEXT64 + 0x10n, size: 0n, name: "_helper", names: ["_helper"], source: "symtab" },
  {
    address: TEXT64 + 0x20n,
    size: 0n,
    name: "_main",
    names: ["_main", "_main_alias"],
    source: "symtab",
  },
  { address: TEXT64 + 0x40n, size: 0n, name: "_mainly", names: ["_mainly"], source: "export" },
  {
    address: BASE64 + 0x1806n,
    size: 0n,
    name: "_resolved",
    names: ["_resolved"],
    source: "export",
  },
];

Deno.test("isMachO() accepts thin and universal magics and rejects Java class files", () => {
  const thin = buildMachO(standard64()).bytes;
  assert.equal(isMachO(thin), true);
  assert.equal(isMachO(new Uint8Array([0xfe, 0xed, 0xfa, 0xce])), true);
  assert.equal(isMachO(new Uint8Array([0xcf, 0xfa, 0xed, 0xfe])), true);
  const fat = buildUniversal([{ bytes: thin, cputype: CPU_TYPE_X86_64, cpusubtype: 3 }]).bytes;
  assert.equal(isMachO(fat), true);
  assert.equal(
    isMachO(buildUniversal([{ bytes: thin, cputype: CPU_TYPE_X86_64, cpusubtype: 3 }], true).bytes),
    true,
  );
  assert.equal(isMachO(new Uint8Array([0x7f, 0x45, 0x4c, 0x46])), false);
  assert.equal(isMachO(new Uint8Array([0xfe, 0xed])), false);
  assert.equal(isMachO(javaClass(0, 52)), false, "Java 8 class (nfat_arch would be 52)");
  assert.equal(isMachO(javaClass(3, 45)), false, "Java 1.1 class (nfat_arch would be 0x3002d)");
  // A fat header whose only entry has an implausible CPU or points past the end.
  const bad = fat.slice(0, 0x5000);
  poke32(bad, 8, 0x7777, false);
  assert.equal(isMachO(bad), false);
  const past = fat.slice();
  poke32(past, 16, past.length + 10, false);
  assert.equal(isMachO(past), false);
});

/** A Java class file header: cafebabe, minor, major, then a constant pool. */
function javaClass(minor: number, major: number): Uint8Array {
  const bytes = new Uint8Array(600);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0xcafebabe);
  view.setUint16(4, minor);
  view.setUint16(6, major);
  view.setUint16(8, 20);
  for (let i = 10; i < bytes.length; i++) bytes[i] = (i * 7) & 0xff;
  return bytes;
}

Deno.test("parseMachO() reads every decoded command of a synthetic 64-bit executable exactly", () => {
  const fixture = buildMachO(standard64());
  const file = parseMachO(fixture.bytes);
  assert.equal(file.universal, false);
  assert.deepEqual(file.warnings, []);
  assert.equal(file.slices.length, 1);
  const s = file.slices[0]!;
  assert.deepEqual(s.warnings, []);
  assert.equal(s.cpuName, "x86_64");
  assert.equal(s.cputype, CPU_TYPE_X86_64);
  assert.equal(s.cpusubtype, 3);
  assert.equal(s.architecture, "x86_64");
  assert.equal(s.machine, "CPU_TYPE_X86_64");
  assert.equal(s.bits, 64);
  assert.equal(s.endianness, "little");
  assert.equal(s.fileType, "execute");
  assert.deepEqual(s.flagNames, ["MH_NOUNDEFS", "MH_DYLDLINK", "MH_TWOLEVEL", "MH_PIE"]);
  assert.equal(s.offset, 0);
  assert.equal(s.size, fixture.bytes.length);
  assert.equal(s.ncmds, fixture.commands.length);
  assert.equal(s.sizeofcmds, fixture.sizeofcmds);
  assert.deepEqual(
    s.loadCommands.map((c) => [c.name, c.offset, c.size]),
    fixture.commands.map((c) => [c.name, c.offset, c.size]),
  );
  assert.deepEqual(s.loadCommands.map((c) => c.name), [
    "LC_SEGMENT_64",
    "LC_SEGMENT_64",
    "LC_SEGMENT_64",
    "LC_SEGMENT_64",
    "LC_DYLD_INFO_ONLY",
    "LC_SYMTAB",
    "LC_DYSYMTAB",
    "LC_LOAD_DYLINKER",
    "LC_UUID",
    "LC_BUILD_VERSION",
    "LC_MAIN",
    "LC_LOAD_DYLIB",
    "LC_LOAD_WEAK_DYLIB",
    "LC_FUNCTION_STARTS",
  ]);
  assert.deepEqual(
    s.segments.map((g) => [g.name, g.address, g.vmSize, g.fileOffset, g.initialProtection]),
    [
      ["__PAGEZERO", 0n, BASE64, 0, 0],
      ["__TEXT", BASE64, 0x2000n, 0, 5],
      ["__DATA", BASE64 + 0x2000n, 0x1000n, 0x2000, 3],
      ["__LINKEDIT", BASE64 + 0x3000n, 0x1000n, LINKEDIT_OFFSET, 1],
    ],
  );
  assert.deepEqual(
    s.sections.map((x) => [x.ordinal, `${x.segmentName},${x.name}`, x.address, x.type]),
    [
      [1, "__TEXT,__text", TEXT64, 0],
      [2, "__TEXT,__stubs", BASE64 + 0x1800n, 8],
      [3, "__TEXT,__cstring", BASE64 + 0x1c00n, 2],
      [4, "__DATA,__got", BASE64 + 0x2000n, 6],
      [5, "__DATA,__data", BASE64 + 0x2100n, 0],
      [6, "__DATA,__bss", BASE64 + 0x2200n, 1],
    ],
  );
  assert.deepEqual(s.symtab, {
    symbolOffset: fixture.symtabOffset,
    symbolCount: 11,
    stringOffset: fixture.stringOffset,
    stringSize: fixture.stringSize,
  });
  assert.equal(s.dysymtab?.indirectSymbolCount, 5);
  assert.deepEqual(
    s.symbols.map((
      x,
    ) => [x.index, x.name, x.kind, x.external, x.section, x.value, x.libraryOrdinal]),
    [
      [0, "_helper", "section", false, "__TEXT,__text", TEXT64 + 0x10n, null],
      [1, "_main_alias", "section", false, "__TEXT,__text", TEXT64 + 0x20n, null],
      [2, "ltmp_string", "section", false, "__TEXT,__cstring", BASE64 + 0x1c00n, null],
      [3, "_main", "section", true, "__TEXT,__text", TEXT64 + 0x20n, null],
      [4, "_counter", "section", true, "__DATA,__data", BASE64 + 0x2100n, null],
      [5, "_absolute", "absolute", true, null, 0x1234n, null],
      [6, "__mh_execute_header", "section", true, "__TEXT,__text", BASE64, null],
      [7, "_printf", "undefined", true, null, 0n, 1],
      [8, "_malloc", "undefined", true, null, 0n, 1],
      [9, "_foo", "undefined", true, null, 0n, 2],
      [10, "_looked_up", "undefined", true, null, 0n, 0xfe],
    ],
  );
  assert.deepEqual(s.imports, [
    {
      symbol: 7,
      name: "_printf",
      ordinal: 1,
      library: LIBSYSTEM,
      weak: false,
      stub: BASE64 + 0x1800n,
      pointer: BASE64 + 0x2010n,
    },
    {
      symbol: 8,
      name: "_malloc",
      ordinal: 1,
      library: LIBSYSTEM,
      weak: false,
      stub: BASE64 + 0x1806n,
      pointer: null,
    },
    {
      symbol: 9,
      name: "_foo",
      ordinal: 2,
      library: LIBFOO,
      weak: true,
      stub: null,
      pointer: BASE64 + 0x2000n,
    },
    {
      symbol: 10,
      name: "_looked_up",
      ordinal: 0xfe,
      library: null,
      weak: false,
      stub: null,
      pointer: null,
    },
  ]);
  assert.deepEqual(s.functionStarts, [TEXT64, TEXT64 + 0x10n, TEXT64 + 0x20n, TEXT64 + 0x40n]);
  assert.deepEqual(s.functionStartsData, {
    offset: fixture.functionStartsOffset,
    size: fixture.functionStartsSize,
  });
  assert.equal(s.dyldInfo?.exportOffset, fixture.trieOffset);
  assert.equal(s.dyldInfo?.exportSize, fixture.trieSize);
  const regular = { flags: 0, kind: "regular", weak: false, reexport: null, resolver: null };
  assert.deepEqual(s.exports, [
    { ...regular, name: "__mh_execute_header", address: BASE64 },
    { ...regular, name: "_main", address: TEXT64 + 0x20n },
    { ...regular, name: "_mainly", flags: EXPORT_WEAK, weak: true, address: TEXT64 + 0x40n },
    { ...regular, name: "_counter", address: BASE64 + 0x2100n },
    {
      ...regular,
      name: "_reexported",
      flags: 8,
      address: null,
      reexport: { ordinal: 2, library: LIBFOO, name: "_bar" },
    },
    {
      ...regular,
      name: "_reexported_same",
      flags: 8,
      address: null,
      reexport: { ordinal: 1, library: LIBSYSTEM, name: "_reexported_same" },
    },
    {
      ...regular,
      name: "_resolved",
      flags: EXPORT_STUB_AND_RESOLVER,
      address: BASE64 + 0x1806n,
      resolver: BASE64 + 0x1060n,
    },
    { ...regular, name: "_absolute", flags: EXPORT_ABSOLUTE, kind: "absolute", address: 0x1234n },
  ]);
  assert.equal(s.entry, TEXT64);
  assert.equal(s.entryCommand, "LC_MAIN");
  assert.equal(s.mainEntryOffset, 0x1000n);
  assert.deepEqual(s.dylibs, [
    {
      command: "LC_LOAD_DYLIB",
      name: LIBSYSTEM,
      timestamp: 2,
      currentVersion: "1311.1.0",
      compatibilityVersion: "1.0.0",
    },
    {
      command: "LC_LOAD_WEAK_DYLIB",
      name: LIBFOO,
      timestamp: 2,
      currentVersion: "1.0.0",
      compatibilityVersion: "2.0.0",
    },
  ]);
  assert.equal(s.idDylib, null);
  assert.equal(s.dylinker, "/usr/lib/dyld");
  assert.equal(s.uuid, "21FE384C-8FBC-38BA-BA62-29B60297AEA6");
  assert.deepEqual(s.platforms, [
    {
      command: "LC_BUILD_VERSION",
      platform: 1,
      platformName: "macos",
      minimumVersion: "12.0",
      sdk: "13.1",
    },
  ]);
});

Deno.test("machOImages() turns a synthetic 64-bit executable into one exact BinaryImage", () => {
  const bytes = buildMachO(standard64()).bytes;
  const images = machOImages(bytes, "tool");
  assert.equal(images.length, 1);
  const image = images[0]!;
  assert.equal(image.format, "mach-o");
  assert.equal(image.document, "tool");
  assert.equal(image.architecture, "x86_64");
  assert.equal(image.machine, "CPU_TYPE_X86_64");
  assert.equal(image.bits, 64);
  assert.equal(image.endianness, "little");
  assert.equal(image.entry, TEXT64);
  assert.equal(image.fileBase, 0);
  assert.equal(image.bytes.length, bytes.length);
  assert.equal(image.buildId, "21fe384c8fbc38baba6229b60297aea6");
  assert.deepEqual(image.libraries, [LIBSYSTEM, LIBFOO]);
  assert.deepEqual(image.warnings, []);
  const rx = { readable: true, writable: false, executable: true };
  const rw = { readable: true, writable: true, executable: false };
  assert.deepEqual(image.sections, [
    {
      name: "__PAGEZERO",
      address: 0n,
      size: BASE64,
      fileOffset: null,
      fileSize: 0,
      readable: false,
      writable: false,
      executable: false,
    },
    {
      name: "__TEXT,__text",
      address: TEXT64,
      size: 0x800n,
      fileOffset: 0x1000,
      fileSize: 0x800,
      ...rx,
      instructions: true,
    },
    {
      name: "__TEXT,__stubs",
      address: BASE64 + 0x1800n,
      size: 12n,
      fileOffset: 0x1800,
      fileSize: 12,
      ...rx,
      instructions: true,
    },
    {
      name: "__TEXT,__cstring",
      address: BASE64 + 0x1c00n,
      size: 0x100n,
      fileOffset: 0x1c00,
      fileSize: 0x100,
      ...rx,
      instructions: false,
    },
    {
      name: "__DATA,__got",
      address: BASE64 + 0x2000n,
      size: 24n,
      fileOffset: 0x2000,
      fileSize: 24,
      ...rw,
    },
    {
      name: "__DATA,__data",
      address: BASE64 + 0x2100n,
      size: 0x100n,
      fileOffset: 0x2100,
      fileSize: 0x100,
      ...rw,
    },
    {
      name: "__DATA,__bss",
      address: BASE64 + 0x2200n,
      size: 0x100n,
      fileOffset: null,
      fileSize: 0,
      ...rw,
    },
    {
      name: "__LINKEDIT",
      address: BASE64 + 0x3000n,
      size: 0x1000n,
      fileOffset: LINKEDIT_OFFSET,
      fileSize: bytes.length - LINKEDIT_OFFSET,
      readable: true,
      writable: false,
      executable: false,
    },
  ]);
  assert.deepEqual(image.functions, STANDARD64_FUNCTIONS);
  assert.deepEqual(image.imports, [
    { library: LIBSYSTEM, name: "_printf", address: BASE64 + 0x1800n },
    { library: LIBSYSTEM, name: "_malloc", address: BASE64 + 0x1806n },
    { library: LIBFOO, name: "_foo", address: BASE64 + 0x2000n },
    { library: null, name: "_looked_up", address: null },
  ]);
  assert.deepEqual(image.exports, [
    { name: "__mh_execute_header", address: BASE64 },
    { name: "_main", address: TEXT64 + 0x20n },
    { name: "_mainly", address: TEXT64 + 0x40n },
    { name: "_counter", address: BASE64 + 0x2100n },
    { name: "_reexported", address: null, forwardedTo: `${LIBFOO}._bar` },
    { name: "_reexported_same", address: null, forwardedTo: `${LIBSYSTEM}._reexported_same` },
    { name: "_resolved", address: BASE64 + 0x1806n },
    { name: "_absolute", address: 0x1234n },
  ]);
});

const BASE32 = imageBase(32);
const TEXT32 = textAddress(32);

function standard32(): MachOFixtureOptions {
  return {
    bits: 32,
    cputype: CPU_TYPE_X86,
    symbols: [
      { name: "_local", section: SECT_TEXT, value: TEXT32 + 0x8n },
      { name: "_start", section: SECT_TEXT, value: TEXT32, external: true },
      { name: "_entry_helper", section: SECT_TEXT, value: TEXT32 + 0x30n, external: true },
      { name: "_table", section: SECT_DATA, value: BASE32 + 0x2100n, external: true },
    ],
    imports: [{ name: "_exit", ordinal: 1 }, { name: "_CFRelease", ordinal: 2 }],
    stubs: ["_CFRelease", "_exit"],
    got: ["_exit"],
    functionStarts: [TEXT32, TEXT32 + 0x8n, TEXT32 + 0x30n, TEXT32 + 0x50n],
    exports: [
      { name: "_start", offset: 0x1000n },
      { name: "_entry_helper", offset: 0x1030n },
      { name: "_table", offset: 0x2100n },
    ],
    entry: { command: "thread", address: TEXT32 },
    dylibs: [{ name: LIBSYSTEM }, { name: CORE_FOUNDATION }],
    uuid: new Uint8Array(16).fill(0xab),
    platform: { command: "version-min", minos: 0x0a0600, sdk: 0x0a0b03 },
  };
}

Deno.test("parseMachO() and machOImages() read a synthetic 32-bit i386 executable with LC_UNIXTHREAD exactly", () => {
  const fixture = buildMachO(standard32());
  const file = parseMachO(fixture.bytes);
  assert.deepEqual(file.warnings, []);
  const s = file.slices[0]!;
  assert.equal(s.cpuName, "i386");
  assert.equal(s.bits, 32);
  assert.equal(s.architecture, "x86");
  assert.equal(s.entry, TEXT32);
  assert.equal(s.entryCommand, "LC_UNIXTHREAD");
  assert.equal(s.mainEntryOffset, null);
  assert.deepEqual(s.loadCommands.map((c) => c.name), [
    "LC_SEGMENT",
    "LC_SEGMENT",
    "LC_SEGMENT",
    "LC_SEGMENT",
    "LC_DYLD_INFO_ONLY",
    "LC_SYMTAB",
    "LC_DYSYMTAB",
    "LC_UUID",
    "LC_VERSION_MIN_MACOSX",
    "LC_UNIXTHREAD",
    "LC_LOAD_DYLIB",
    "LC_LOAD_DYLIB",
    "LC_FUNCTION_STARTS",
  ]);
  assert.deepEqual(s.platforms, [
    {
      command: "LC_VERSION_MIN_MACOSX",
      platform: 1,
      platformName: "macos",
      minimumVersion: "10.6",
      sdk: "10.11.3",
    },
  ]);
  assert.deepEqual(s.functionStarts, [TEXT32, TEXT32 + 0x8n, TEXT32 + 0x30n, TEXT32 + 0x50n]);
  const image = machOImages(fixture.bytes, "tool32")[0]!;
  assert.equal(image.bits, 32);
  assert.equal(image.machine, "CPU_TYPE_X86");
  assert.equal(image.entry, TEXT32);
  assert.equal(image.buildId, "ab".repeat(16));
  assert.deepEqual(image.functions, [
    { address: TEXT32, size: 0n, name: "_start", names: ["_start"], source: "symtab" },
    { address: TEXT32 + 0x8n, size: 0n, name: "_local", names: ["_local"], source: "symtab" },
    {
      address: TEXT32 + 0x30n,
      size: 0n,
      name: "_entry_helper",
      names: ["_entry_helper"],
      source: "symtab",
    },
    { address: TEXT32 + 0x50n, size: 0n, name: "", names: [], source: "function-starts" },
  ]);
  assert.deepEqual(image.imports, [
    { library: LIBSYSTEM, name: "_exit", address: BASE32 + 0x1806n },
    { library: CORE_FOUNDATION, name: "_CFRelease", address: BASE32 + 0x1800n },
  ]);
  assert.deepEqual(image.exports, [
    { name: "_start", address: TEXT32 },
    { name: "_entry_helper", address: TEXT32 + 0x30n },
    { name: "_table", address: BASE32 + 0x2100n },
  ]);
  assert.deepEqual(image.libraries, [LIBSYSTEM, CORE_FOUNDATION]);
});

Deno.test("parseMachO() reads a synthetic big-endian 32-bit PowerPC bundle in a flat namespace", () => {
  const options: MachOFixtureOptions = {
    ...standard32(),
    cputype: CPU_TYPE_POWERPC,
    cpusubtype: 0,
    littleEndian: false,
    filetype: MH_BUNDLE,
    flags: MH_NOUNDEFS | MH_DYLDLINK,
    stubSize: 4,
  };
  const bytes = buildMachO(options).bytes;
  assert.deepEqual([...bytes.subarray(0, 4)], [0xfe, 0xed, 0xfa, 0xce]);
  const file = parseMachO(bytes);
  assert.deepEqual(file.warnings, []);
  const s = file.slices[0]!;
  assert.equal(s.endianness, "big");
  assert.equal(s.cpuName, "ppc");
  assert.equal(s.architecture, "other");
  assert.equal(s.fileType, "bundle");
  assert.equal(s.entry, TEXT32, "PPC_THREAD_STATE srr0");
  assert.deepEqual(s.symbols.map((x) => x.name), [
    "_local",
    "_start",
    "_entry_helper",
    "_table",
    "_exit",
    "_CFRelease",
  ]);
  // No MH_TWOLEVEL: the n_desc ordinals mean nothing.
  assert.deepEqual(s.imports.map((i) => [i.name, i.ordinal, i.library, i.stub]), [
    ["_exit", null, null, BASE32 + 0x1804n],
    ["_CFRelease", null, null, BASE32 + 0x1800n],
  ]);
  assert.deepEqual(s.functionStarts, [TEXT32, TEXT32 + 0x8n, TEXT32 + 0x30n, TEXT32 + 0x50n]);
  assert.deepEqual(s.exports.map((e) => [e.name, e.address]), [
    ["_start", TEXT32],
    ["_entry_helper", TEXT32 + 0x30n],
    ["_table", BASE32 + 0x2100n],
  ]);
});

Deno.test("machOImages() clears the Thumb bit of 32-bit ARM function starts and the entry point, marking them Thumb", () => {
  const bytes = buildMachO({
    bits: 32,
    cputype: CPU_TYPE_ARM,
    cpusubtype: 9,
    symbols: [{ name: "_thumb_fn", section: SECT_TEXT, value: TEXT32 + 0x10n, external: true }],
    functionStarts: [TEXT32 + 1n, TEXT32 + 0x11n, TEXT32 + 0x20n],
    entry: { command: "thread", address: TEXT32 + 1n },
  }).bytes;
  const s = parseMachO(bytes).slices[0]!;
  assert.equal(s.cpuName, "armv7");
  assert.equal(s.entry, TEXT32 + 1n);
  assert.deepEqual(s.functionStarts, [TEXT32 + 1n, TEXT32 + 0x11n, TEXT32 + 0x20n]);
  const image = machOImages(bytes, "thumb")[0]!;
  assert.equal(image.architecture, "arm");
  assert.equal(image.entry, TEXT32);
  assert.deepEqual(image.functions.map((f) => [f.address, f.name, f.source, f.thumb === true]), [
    [TEXT32, "", "entry", true],
    [TEXT32 + 0x10n, "_thumb_fn", "symtab", true],
    [TEXT32 + 0x20n, "", "function-starts", false],
  ]);
});

/** An arm64 slice: a dylib with LC_ID_DYLIB, LC_DYLD_EXPORTS_TRIE and a re-exported dylib. */
function dylibArm64(): MachOFixtureOptions {
  return {
    bits: 64,
    cputype: CPU_TYPE_ARM64,
    filetype: MH_DYLIB,
    flags: MH_NOUNDEFS | MH_DYLDLINK | MH_TWOLEVEL,
    symbols: [
      { name: "_api_one", section: SECT_TEXT, value: TEXT64, external: true },
      { name: "_api_two", section: SECT_TEXT, value: TEXT64 + 0x40n, external: true },
      { name: "_private", section: SECT_TEXT, value: TEXT64 + 0x80n, privateExternal: true },
    ],
    imports: [{ name: "_objc_msgSend", ordinal: 1 }],
    stubs: ["_objc_msgSend"],
    functionStarts: [TEXT64, TEXT64 + 0x40n, TEXT64 + 0x80n, TEXT64 + 0xc0n],
    exports: [
      { name: "_api_one", offset: 0x1000n },
      { name: "_api_two", offset: 0x1040n },
      { name: "_api_three", offset: 0x10c0n },
      { name: "_forwarded", reexport: { ordinal: 2, name: "_real" } },
    ],
    trieCommand: "exports-trie",
    idDylib: "@rpath/libapi.dylib",
    dylibs: [{ name: "/usr/lib/libobjc.A.dylib" }, { name: LIBFOO, kind: "reexport" }],
    uuid: new Uint8Array(16).fill(0x11),
    platform: { command: "build", platform: 2, minos: 0x0e0000, sdk: 0x110200 },
  };
}

Deno.test("parseMachO() and machOImages() read a synthetic universal file of two slices", () => {
  const x86 = buildMachO(standard64()).bytes;
  const arm = buildMachO(dylibArm64()).bytes;
  const { bytes, offsets } = buildUniversal([
    { bytes: x86, cputype: CPU_TYPE_X86_64, cpusubtype: 3 },
    { bytes: arm, cputype: CPU_TYPE_ARM64, cpusubtype: 0 },
  ]);
  assert.deepEqual(offsets, [0x4000, 0x8000]);
  const file = parseMachO(bytes);
  assert.equal(file.universal, true);
  assert.deepEqual(file.warnings, []);
  assert.deepEqual(file.slices.map((s) => [s.cpuName, s.offset, s.size, s.fileType]), [
    ["x86_64", 0x4000, x86.length, "execute"],
    ["arm64", 0x8000, arm.length, "dylib"],
  ]);
  const arm64 = file.slices[1]!;
  assert.deepEqual(arm64.idDylib?.name, "@rpath/libapi.dylib");
  assert.deepEqual(arm64.exportsTrieData?.size, buildMachO(dylibArm64()).trieSize);
  assert.equal(arm64.dyldInfo, null);
  assert.deepEqual(arm64.platforms.map((p) => [p.platformName, p.minimumVersion, p.sdk]), [
    ["ios", "14.0", "17.2"],
  ]);
  assert.deepEqual(arm64.dylibs.map((d) => [d.command, d.name]), [
    ["LC_LOAD_DYLIB", "/usr/lib/libobjc.A.dylib"],
    ["LC_REEXPORT_DYLIB", LIBFOO],
  ]);
  assert.equal(arm64.entry, null);
  const images = machOImages(bytes, "tool");
  checkResult(file, images, "universal");
  assert.deepEqual(images.map((i) => [i.document, i.fileBase, i.bytes.length]), [
    ["tool (x86_64)", 0x4000, x86.length],
    ["tool (arm64)", 0x8000, arm.length],
  ]);
  assert.deepEqual(images[0]!.bytes, x86);
  assert.deepEqual(images[1]!.bytes, arm);
  assert.deepEqual(images[0]!.functions, STANDARD64_FUNCTIONS);
  assert.equal(images[1]!.architecture, "arm64");
  assert.equal(images[1]!.entry, null);
  assert.deepEqual(images[1]!.functions, [
    { address: TEXT64, size: 0n, name: "_api_one", names: ["_api_one"], source: "symtab" },
    { address: TEXT64 + 0x40n, size: 0n, name: "_api_two", names: ["_api_two"], source: "symtab" },
    { address: TEXT64 + 0x80n, size: 0n, name: "_private", names: ["_private"], source: "symtab" },
    {
      address: TEXT64 + 0xc0n,
      size: 0n,
      name: "_api_three",
      names: ["_api_three"],
      source: "export",
    },
  ]);
  assert.deepEqual(images[1]!.exports, [
    { name: "_api_one", address: TEXT64 },
    { name: "_api_two", address: TEXT64 + 0x40n },
    { name: "_api_three", address: TEXT64 + 0xc0n },
    { name: "_forwarded", address: null, forwardedTo: `${LIBFOO}._real` },
  ]);
  assert.deepEqual(images[1]!.imports, [
    { library: "/usr/lib/libobjc.A.dylib", name: "_objc_msgSend", address: BASE64 + 0x1800n },
  ]);
  assert.deepEqual(images[1]!.libraries, ["/usr/lib/libobjc.A.dylib", LIBFOO]);
  // Two slices of one CPU get distinct names; FAT_MAGIC_64 reads the same.
  const twin = buildUniversal([
    { bytes: arm, cputype: CPU_TYPE_ARM64, cpusubtype: 0 },
    { bytes: arm, cputype: CPU_TYPE_ARM64, cpusubtype: 0 },
  ], true).bytes;
  assert.deepEqual(machOImages(twin, "t").map((i) => i.document), ["t (arm64)", "t (arm64 2)"]);
  assert.ok(parseMachO(twin).warnings.length === 0);
});

Deno.test("parseMachO() ends a cyclic exports trie and reads its entries once, with a warning", () => {
  // Root: edge "_a" -> node 6. Node 6: export _a at 0x1020; edges "b" -> root, "c" -> itself.
  const trie = new Uint8Array([
    0x00,
    0x01,
    0x5f,
    0x61,
    0x00,
    0x06,
    0x03,
    0x00,
    0xa0,
    0x20,
    0x02,
    0x62,
    0x00,
    0x00,
    0x63,
    0x00,
    0x06,
  ]);
  const bytes = buildMachO({ ...standard64(), exports: undefined, trie }).bytes;
  const started = performance.now();
  const s = parseMachO(bytes).slices[0]!;
  assert.ok(performance.now() - started < 1000);
  assert.deepEqual(s.exports.map((e) => [e.name, e.address]), [["_a", TEXT64 + 0x20n]]);
  assert.deepEqual(s.warnings, [
    "the LC_DYLD_INFO_ONLY exports trie reaches 2 nodes a second time (a cycle or a shared " +
    "node); they were read once",
  ]);
});

Deno.test("parseMachO() stops an exports trie deeper than 512 edges with a warning", () => {
  // 600 nodes in a chain, each with one edge "x" (two-byte ULEB child offsets), the last an export.
  const nodes = 600;
  const trie = new Uint8Array(nodes * 6 + 4);
  for (let i = 0; i < nodes; i++) {
    const next = (i + 1) * 6;
    trie.set([0x00, 0x01, 0x78, 0x00, 0x80 | (next & 0x7f), next >> 7], i * 6);
  }
  trie.set([0x02, 0x00, 0x00, 0x00], nodes * 6);
  const bytes = buildMachO({ ...standard64(), exports: undefined, trie }).bytes;
  const s = parseMachO(bytes).slices[0]!;
  assert.deepEqual(s.exports, []);
  assert.deepEqual(s.warnings, [
    "the LC_DYLD_INFO_ONLY exports trie is deeper than 512 edges; 1 deeper branch not read",
  ]);
  // The same chain 500 deep is read to its export.
  const shallow = trie.slice(0, 500 * 6 + 4);
  shallow.set([0x02, 0x00, 0x00, 0x00], 500 * 6);
  const ok = parseMachO(buildMachO({ ...standard64(), exports: undefined, trie: shallow }).bytes);
  assert.deepEqual(ok.slices[0]!.exports.map((e) => e.name), ["x".repeat(500)]);
  assert.deepEqual(ok.warnings, []);
});

// ---------------------------------------------------------------------------
// Peers: llvm-objdump-14, llvm-nm-14, llvm-readobj-14

const SECTION_TYPE_NAMES: readonly string[] = [
  "S_REGULAR",
  "S_ZEROFILL",
  "S_CSTRING_LITERALS",
  "S_4BYTE_LITERALS",
  "S_8BYTE_LITERALS",
  "S_LITERAL_POINTERS",
  "S_NON_LAZY_SYMBOL_POINTERS",
  "S_LAZY_SYMBOL_POINTERS",
  "S_SYMBOL_STUBS",
  "S_MOD_INIT_FUNC_POINTERS",
  "S_MOD_TERM_FUNC_POINTERS",
  "S_COALESCED",
  "S_GB_ZEROFILL",
  "S_INTERPOSING",
  "S_16BYTE_LITERALS",
  "S_DTRACE_DOF",
  "S_LAZY_DYLIB_SYMBOL_POINTERS",
  "S_THREAD_LOCAL_REGULAR",
  "S_THREAD_LOCAL_ZEROFILL",
  "S_THREAD_LOCAL_VARIABLES",
  "S_THREAD_LOCAL_VARIABLE_POINTERS",
  "S_THREAD_LOCAL_INIT_FUNCTION_POINTERS",
];

const protection = (p: number): string =>
  `${p & 1 ? "r" : "-"}${p & 2 ? "w" : "-"}${p & 4 ? "x" : "-"}`;

/** One block of `--private-headers` output: its key/value lines, and its sections. */
interface HeaderBlock {
  index: number;
  fields: Map<string, string>;
  sections: Map<string, string>[];
}

const MULTI_WORD_KEYS = ["compatibility version", "current version", "time stamp"];

/** The first word of a field (`0x200e6e0 (past end of file)` → `0x200e6e0`). */
const word = (value: string | undefined): string => (value ?? "").split(" ", 1)[0]!;

/** `llvm-objdump --macho --private-headers`, split into load command blocks. */
async function privateHeaders(path: string, arch: string[]): Promise<HeaderBlock[]> {
  const text = await run(OBJDUMP, ["--macho", "--private-headers", ...arch, path]);
  const blocks: HeaderBlock[] = [];
  let current: Map<string, string> | null = null;
  for (const line of text.split("\n")) {
    const start = /^Load command (\d+)$/.exec(line);
    if (start !== null) {
      blocks.push({ index: Number(start[1]), fields: new Map(), sections: [] });
      current = blocks.at(-1)!.fields;
      continue;
    }
    const block = blocks.at(-1);
    if (block === undefined) continue;
    if (line === "Section") {
      current = new Map();
      block.sections.push(current);
      continue;
    }
    const trimmed = line.trim();
    if (current === null || trimmed === "") continue;
    const key = MULTI_WORD_KEYS.find((k) => trimmed.startsWith(`${k} `)) ??
      trimmed.split(/\s/, 1)[0]!;
    const value = trimmed.slice(key.length).trim();
    // The first line wins (sections repeat "segname" after the segment's).
    if (!current.has(key)) current.set(key, value);
  }
  return blocks;
}

/** The short name llvm-nm and llvm-objdump give a dylib: the framework or the file name up to its first dot. */
function shortName(install: string): string {
  const file = install.slice(install.lastIndexOf("/") + 1);
  const dot = file.indexOf(".");
  return dot < 0 ? file : file.slice(0, dot);
}

interface PeerCounts {
  loadCommands: number;
  segments: number;
  sections: number;
  exports: number;
  symbols: number;
  undefined: number;
  functionStarts: number;
  dylibs: number;
  stubs: number;
  functions: number;
  headerFields: number;
}

/**
 * Compares one slice with the LLVM tools, exactly and both ways: load
 * commands, segments and sections, the entry point, UUID, platform and dylib
 * commands (`--private-headers`), the exports trie, defined symbols (`llvm-nm
 * --defined-only`, letters derived from our symbols), undefined symbols with
 * their libraries (`llvm-nm -m --undefined-only`), function starts, dylibs
 * used, the header and version-min (`llvm-readobj`), import stubs and
 * pointers (`--indirect-symbols`), and that every function is explained by
 * some peer source and every peer function source is among the functions.
 */
async function compareWithPeers(
  path: string,
  file: MachOFile,
  slice: MachOSlice,
  image: BinaryImage,
  nmDefined: string[],
  readobj: string,
): Promise<PeerCounts> {
  const arch = file.universal ? [`--arch=${slice.cpuName}`] : [];
  const counts: PeerCounts = {
    loadCommands: 0,
    segments: 0,
    sections: 0,
    exports: 0,
    symbols: 0,
    undefined: 0,
    functionStarts: 0,
    dylibs: 0,
    stubs: 0,
    functions: 0,
    headerFields: 0,
  };
  const label = `${path} (${slice.cpuName})`;

  // ----- Load commands, segments, sections, entry, UUID, platform, dylibs.
  const blocks = await privateHeaders(path, arch);
  assert.deepEqual(
    slice.loadCommands.map((c) => [c.index, c.name, c.size]),
    blocks.map((b) => [b.index, b.fields.get("cmd"), Number(b.fields.get("cmdsize"))]),
    `${label}: load commands`,
  );
  counts.loadCommands = blocks.length;
  const segmentBlocks = blocks.filter((b) => /^LC_SEGMENT/.test(b.fields.get("cmd")!));
  assert.deepEqual(
    slice.segments.map((s) => [
      s.name,
      s.address,
      s.vmSize,
      s.fileOffset,
      s.fileSize,
      protection(s.maxProtection),
      protection(s.initialProtection),
      s.sections.length,
    ]),
    segmentBlocks.map((b) => [
      b.fields.get("segname"),
      BigInt(b.fields.get("vmaddr")!),
      BigInt(b.fields.get("vmsize")!),
      Number(b.fields.get("fileoff")),
      Number(b.fields.get("filesize")),
      b.fields.get("maxprot"),
      b.fields.get("initprot"),
      Number(b.fields.get("nsects")),
    ]),
    `${label}: segments`,
  );
  counts.segments = segmentBlocks.length;
  const peerSections = segmentBlocks.flatMap((b) => b.sections);
  assert.deepEqual(
    slice.sections.map((s) => [
      s.name,
      s.segmentName,
      s.address,
      s.size,
      s.offset,
      SECTION_TYPE_NAMES[s.type],
      s.instructions,
      s.reserved1,
      s.reserved2,
    ]),
    peerSections.map((f) => [
      f.get("sectname"),
      f.get("segname"),
      BigInt(word(f.get("addr"))),
      BigInt(word(f.get("size"))),
      Number(word(f.get("offset"))),
      f.get("type"),
      /INSTRUCTIONS/.test(f.get("attributes") ?? ""),
      Number.parseInt(f.get("reserved1")!),
      Number.parseInt(f.get("reserved2")!),
    ]),
    `${label}: sections`,
  );
  counts.sections = peerSections.length;
  const main = blocks.find((b) => b.fields.get("cmd") === "LC_MAIN");
  if (main !== undefined) {
    const entryoff = BigInt(main.fields.get("entryoff")!);
    assert.equal(slice.mainEntryOffset, entryoff, label);
    const text = segmentBlocks.find((b) => b.fields.get("segname") === "__TEXT")!;
    const textAddress = BigInt(text.fields.get("vmaddr")!) - BigInt(text.fields.get("fileoff")!);
    assert.equal(image.entry, textAddress + entryoff, `${label}: entry`);
    assert.equal(slice.entryCommand, "LC_MAIN");
  }
  const uuid = blocks.find((b) => b.fields.get("cmd") === "LC_UUID")?.fields.get("uuid") ?? null;
  assert.equal(slice.uuid, uuid, `${label}: uuid`);
  assert.equal(image.buildId, uuid?.replaceAll("-", "").toLowerCase() ?? null);
  const build = blocks.filter((b) => b.fields.get("cmd") === "LC_BUILD_VERSION");
  assert.deepEqual(
    slice.platforms.filter((p) => p.command === "LC_BUILD_VERSION").map((p) => [
      p.platformName,
      p.minimumVersion,
      p.sdk === "0.0" ? "n/a" : p.sdk,
    ]),
    build.map((b) => [b.fields.get("platform"), b.fields.get("minos"), b.fields.get("sdk")]),
    `${label}: LC_BUILD_VERSION`,
  );
  const dylibBlocks = blocks.filter((b) =>
    /^LC_(LOAD_DYLIB|LOAD_WEAK_DYLIB|REEXPORT_DYLIB|LAZY_LOAD_DYLIB|LOAD_UPWARD_DYLIB)$/.test(
      b.fields.get("cmd")!,
    )
  );
  assert.deepEqual(
    slice.dylibs.map((d) => [d.command, d.name, d.currentVersion, d.compatibilityVersion]),
    dylibBlocks.map((b) => [
      b.fields.get("cmd"),
      b.fields.get("name")!.replace(/ \(offset \d+\)$/, ""),
      b.fields.get("current version"),
      b.fields.get("compatibility version"),
    ]),
    `${label}: dylib commands`,
  );
  const symtab = blocks.find((b) => b.fields.get("cmd") === "LC_SYMTAB");
  if (symtab !== undefined) {
    assert.deepEqual(
      [slice.symtab?.symbolOffset, slice.symtab?.symbolCount, slice.symtab?.stringOffset],
      ["symoff", "nsyms", "stroff"].map((k) => Number(symtab.fields.get(k))),
    );
  }

  // ----- Exports trie.
  const trieText = await run(OBJDUMP, ["--macho", "--exports-trie", ...arch, path]);
  const peerExports: string[] = [];
  for (const line of trieText.split("\n")) {
    let m = /^0x([0-9A-F]+) {2}(\S+)(?: \[(.*)\])?$/.exec(line);
    if (m !== null) {
      peerExports.push(`${BigInt(`0x${m[1]}`)} ${m[2]} [${m[3] ?? ""}]`);
      continue;
    }
    m = /^\[re-export\] (\S+)(?: \[(.*)\])? \((?:(\S+) )?from (\S+)\)$/.exec(line);
    if (m !== null) peerExports.push(`re-export ${m[1]} [${m[2] ?? ""}] ${m[3] ?? m[1]} ${m[4]}`);
  }
  const base = slice.segments.find((s) => s.fileOffset === 0 && s.fileSize > 0)?.address ?? 0n;
  const ourExports = slice.exports.map((e) => {
    const flags = [
      ...(e.weak ? ["weak_def"] : []),
      ...(e.kind === "thread-local" ? ["per-thread"] : []),
      ...(e.kind === "absolute" ? ["absolute"] : []),
      ...(e.resolver !== null
        ? [`resolver=0x${(e.resolver - base).toString(16).toUpperCase().padStart(8, "0")}`]
        : []),
    ].join(", ");
    if (e.reexport !== null) {
      return `re-export ${e.name} [${flags}] ${e.reexport.name} ${
        shortName(e.reexport.library ?? "")
      }`;
    }
    // llvm-objdump adds the image base to absolute values too; dyld (and parseMachO) do not.
    const shown = e.kind === "absolute" ? base + e.address! : e.address;
    return `${shown} ${e.name} [${flags}]`;
  });
  if (
    slice.exportsTrieData !== null && slice.exportsTrieData.size > 0 && peerExports.length === 0
  ) {
    // llvm-objdump-14 reads only LC_DYLD_INFO(_ONLY)'s trie; the synthetic test
    // also writes the same trie through LC_DYLD_INFO_ONLY to compare it.
    console.log(
      `${label}: llvm-objdump-14 does not read LC_DYLD_EXPORTS_TRIE; exports not compared`,
    );
  } else {
    assert.deepEqual(
      ourExports.slice().sort(),
      peerExports.slice().sort(),
      `${label}: exports trie`,
    );
    counts.exports = peerExports.length;
  }

  // ----- Defined symbols, with llvm-nm's letters.
  const letter = (s: MachOSlice["symbols"][number]): string => {
    let c: string;
    if (s.kind === "absolute") c = "a";
    else if (s.kind === "indirect") c = "i";
    else if (s.section === "__TEXT,__text") c = "t";
    else if (s.section === "__DATA,__data") c = "d";
    else if (s.section === "__DATA,__bss") c = "b";
    else c = "s";
    return s.external ? c.toUpperCase() : c;
  };
  const ourDefined = slice.symbols
    .filter((s) => s.kind !== "undefined" && s.kind !== "common" && s.kind !== "prebound-undefined")
    .map((s) =>
      `${s.value.toString(16).padStart(slice.bits === 64 ? 16 : 8, "0")} ${letter(s)} ${s.name}`
    );
  assert.deepEqual(
    ourDefined.slice().sort(),
    nmDefined.slice().sort(),
    `${label}: defined symbols`,
  );
  counts.symbols = nmDefined.length;

  // ----- Undefined symbols and their libraries.
  const undefText = await run(NM, ["-m", "--undefined-only", ...arch, path]);
  const peerUndefined: string[] = [];
  for (const line of undefText.split("\n")) {
    const m =
      /^\s+\(undefined\) (?:weak )?external (\S+)(?: \((?:from (\S+)|(dynamically looked up))\))?$/
        .exec(line);
    if (m !== null) peerUndefined.push(`${m[1]} ${m[2] ?? (m[3] ? "dynamic" : "-")}`);
  }
  const twoLevel = (slice.flags & MH_TWOLEVEL) !== 0;
  const ourUndefined = slice.imports.map((i) => {
    const from = !twoLevel || i.ordinal === null
      ? "-"
      : i.ordinal === 0xfe
      ? "dynamic"
      : i.library !== null
      ? shortName(i.library)
      : "?";
    return `${i.name} ${from}`;
  });
  assert.deepEqual(ourUndefined.slice().sort(), peerUndefined.slice().sort(), `${label}: imports`);
  assert.deepEqual(
    image.imports.map((i) => [i.name, i.library]),
    slice.imports.map((i) => [i.name, i.library]),
  );
  counts.undefined = peerUndefined.length;

  // ----- Function starts.
  const startsText = await run(OBJDUMP, ["--macho", "--function-starts", ...arch, path]);
  const peerStarts = startsText.split("\n").filter((l) => /^[0-9a-f]+$/.test(l)).map((l) =>
    BigInt(`0x${l}`)
  );
  assert.deepEqual(slice.functionStarts, peerStarts, `${label}: function starts`);
  counts.functionStarts = peerStarts.length;

  // ----- Dylibs used.
  const dylibText = await run(OBJDUMP, ["--macho", "--dylibs-used", ...arch, path]);
  const peerDylibs = dylibText.split("\n").map((l) =>
    /^\t(.+) \(compatibility version (\S+), current version ([^,)]+)(?:, (\w+))?\)$/.exec(l)
  ).filter((m) => m !== null).map((m) => [m[1], m[2], m[3], m[4] ?? ""]);
  const kinds: Record<string, string> = {
    LC_LOAD_DYLIB: "",
    LC_LOAD_WEAK_DYLIB: "weak",
    LC_REEXPORT_DYLIB: "reexport",
    LC_LAZY_LOAD_DYLIB: "lazy",
    LC_LOAD_UPWARD_DYLIB: "upward",
  };
  assert.deepEqual(
    // llvm-objdump lists a dylib's own LC_ID_DYLIB first, as otool -L does.
    [...(slice.idDylib === null ? [] : [slice.idDylib]), ...slice.dylibs].map((
      d,
    ) => [d.name, d.compatibilityVersion, d.currentVersion, kinds[d.command] ?? ""]),
    peerDylibs,
    `${label}: dylibs used`,
  );
  assert.deepEqual(
    image.libraries,
    peerDylibs.slice(slice.idDylib === null ? 0 : 1).map((d) => d[0]),
  );
  counts.dylibs = peerDylibs.length;

  // ----- llvm-readobj: header and version-min.
  const header = new Map<string, string>();
  for (const m of readobj.matchAll(/^\s+(\w+): (.*)$/gm)) header.set(m[1]!, m[2]!);
  const hexOf = (value: string | undefined): number =>
    Number.parseInt(/\(0x([0-9A-Fa-f]+)\)/.exec(value ?? "")?.[1] ?? "-1", 16);
  assert.equal(hexOf(header.get("Magic")), slice.bits === 64 ? 0xfeedfacf : 0xfeedface);
  assert.equal(hexOf(header.get("CpuType")), slice.cputype, `${label}: CpuType`);
  // llvm-readobj prints the subtype without the capability bits (CPU_SUBTYPE_LIB64 in 7za).
  assert.equal(
    hexOf(header.get("CpuSubType")),
    slice.cpusubtype & 0x00ffffff,
    `${label}: CpuSubType`,
  );
  assert.equal(hexOf(header.get("FileType")), slice.filetype, `${label}: FileType`);
  assert.equal(Number(header.get("NumOfLoadCommands")), slice.ncmds);
  assert.equal(Number(header.get("SizeOfLoadCommands")), slice.sizeofcmds);
  const flags = /Flags \[ \(0x([0-9A-Fa-f]+)\)\n((?:\s+\w+ \(0x[0-9A-Fa-f]+\)\n)*)/.exec(readobj);
  assert.ok(flags !== null, `${label}: no Flags in llvm-readobj output`);
  assert.equal(Number.parseInt(flags[1]!, 16), slice.flags);
  assert.deepEqual(
    [...flags[2]!.matchAll(/(\w+) \(/g)].map((m) => m[1]).sort(),
    slice.flagNames.slice().sort(),
    `${label}: header flags`,
  );
  const versions = [...readobj.matchAll(
    /MinVersion \{\n\s+Cmd: (\w+)\n\s+Size: \d+\n(?:\s+Platform: (\w+)\n)?\s+Version: (\S+)\n\s+SDK: (\S+)\n/g,
  )].map((m) => [m[1], m[3], m[4]]);
  assert.deepEqual(
    slice.platforms.map((p) => [p.command, p.minimumVersion, p.sdk === "0.0" ? "n/a" : p.sdk]),
    versions,
    `${label}: version-min`,
  );
  counts.headerFields = 7 + slice.flagNames.length + versions.length * 3;

  // ----- Stubs and pointers from the indirect symbol table.
  const indirectText = await run(OBJDUMP, ["--macho", "--indirect-symbols", ...arch, path]);
  const stubOf = new Map<number, bigint>();
  const pointerOf = new Map<number, bigint>();
  let sectionType: number | undefined;
  // llvm-objdump steps through a stub section by its reserved2; where the reader
  // warned that the stubs are larger (Go on arm64), step by the size it read.
  let stubSection: { address: bigint; recorded: bigint; read: bigint; count: bigint } | undefined;
  for (const line of indirectText.split("\n")) {
    const head = /^Indirect symbols for \((\S+),(\S+)\) \d+ entries$/.exec(line);
    if (head !== null) {
      const section = slice.sections.find((s) => s.segmentName === head[1] && s.name === head[2]);
      sectionType = section?.type;
      const read = slice.warnings.map((w) =>
        new RegExp(`^Stub section ${head[1]},${head[2]} .* read as (\\d+)-byte stubs$`).exec(w)
      ).find((m) => m !== null);
      stubSection = section && read
        ? {
          address: section.address,
          recorded: BigInt(section.reserved2),
          read: BigInt(read[1]!),
          count: section.size / BigInt(read[1]!),
        }
        : undefined;
      continue;
    }
    const m = /^0x([0-9a-f]+)\s+(\d+)/.exec(line);
    if (m === null || sectionType === undefined) continue;
    const target = sectionType === 8 ? stubOf : pointerOf;
    const index = Number(m[2]);
    let address = BigInt(`0x${m[1]}`);
    if (stubSection !== undefined) {
      const k = (address - stubSection.address) / stubSection.recorded;
      if (k >= stubSection.count) continue; // past the stubs the section holds
      address = stubSection.address + k * stubSection.read;
    }
    if (!target.has(index)) target.set(index, address);
  }
  for (const i of slice.imports) {
    assert.equal(i.stub, stubOf.get(i.symbol) ?? null, `${label}: stub of ${i.name}`);
    assert.equal(i.pointer, pointerOf.get(i.symbol) ?? null, `${label}: pointer of ${i.name}`);
    if (i.stub !== null) counts.stubs++;
  }
  const importIndices = new Set(slice.imports.map((i) => i.symbol));
  for (const index of stubOf.keys()) {
    const symbol = slice.symbols.find((s) => s.index === index);
    if (symbol?.kind === "undefined" && symbol.external) {
      assert.ok(importIndices.has(index), `${label}: stub symbol ${index} is no import`);
    }
  }

  // ----- Functions: every peer source is in, every function is explained.
  const functions = new Map(image.functions.map((f) => [f.address, f]));
  const explained = new Set<bigint>(peerStarts);
  for (const a of peerStarts) assert.ok(functions.has(a), `${label}: function start ${hex(a)}`);
  const textSection = slice.sections.find((s) => s.segmentName === "__TEXT" && s.name === "__text");
  for (const line of nmDefined) {
    const [address, type, name] = line.split(" ") as [string, string, string];
    if (type !== "T" && type !== "t") continue;
    const a = BigInt(`0x${address}`);
    if (
      textSection === undefined || a < textSection.address ||
      a >= textSection.address + textSection.size
    ) {
      continue; // __mh_execute_header and other symbols outside their section
    }
    explained.add(a);
    assert.ok(functions.get(a)?.names.includes(name), `${label}: nm function ${name} at ${hex(a)}`);
  }
  for (const line of peerExports) {
    const m = /^(\d+) (\S+) \[(.*)\]$/.exec(line);
    if (m === null || /absolute|per-thread/.test(m[3]!)) continue;
    const a = BigInt(m[1]!);
    if (!image.sections.some((s) => s.executable && a >= s.address && a < s.address + s.size)) {
      continue;
    }
    const section = slice.sections.find((s) => a >= s.address && a < s.address + s.size);
    if (section === undefined || !section.instructions) continue;
    explained.add(a);
    assert.ok(functions.get(a)?.names.includes(m[2]!), `${label}: exported function ${m[2]}`);
  }
  if (image.entry !== null) explained.add(image.entry);
  for (const f of image.functions) {
    // Go's function table has no LLVM reader: go_pclntab_test.ts checks those functions
    // against the call targets llvm-objdump decodes.
    if (f.source === "gopclntab") continue;
    assert.ok(
      explained.has(f.address),
      `${label}: function ${f.name} at ${hex(f.address)} unexplained`,
    );
  }
  counts.functions = image.functions.length;
  return counts;
}

/** `llvm-nm --defined-only` (with `--arch=all` for a universal file) lines, per CPU. */
async function nmDefinedByArch(path: string, universal: boolean): Promise<Map<string, string[]>> {
  const text = await run(NM, ["--defined-only", ...(universal ? ["--arch=all"] : []), path]);
  const byArch = new Map<string, string[]>();
  let current = "";
  byArch.set(current, []);
  for (const line of text.split("\n")) {
    const head = / \(for architecture (\S+)\):$/.exec(line);
    if (head !== null) {
      current = head[1]!;
      byArch.set(current, []);
      continue;
    }
    if (/^[0-9a-f]+ \S /.test(line)) byArch.get(current)!.push(line);
  }
  return byArch;
}

/** `llvm-readobj --file-headers --macho-version-min` output, one block per slice. */
async function readobjBlocks(path: string): Promise<string[]> {
  const text = await run(READOBJ, ["--file-headers", "--macho-version-min", path]);
  return text.split(/\n(?=File: )/).filter((b) => b.includes("MachHeader"));
}

async function comparePath(path: string, label: string): Promise<number> {
  const bytes = await Deno.readFile(path);
  const started = performance.now();
  const file = parseMachO(bytes);
  const images = machOImages(bytes, label);
  const elapsed = performance.now() - started;
  checkResult(file, images, label);
  // Go's linker records 6-byte stubs on arm64 too, whose stubs are 12 bytes: the reader says so.
  const unexpected = file.warnings.filter((w) =>
    !/^Stub section .* read as 12-byte stubs$/.test(w)
  );
  assert.deepEqual(unexpected, [], label);
  const nm = await nmDefinedByArch(path, file.universal);
  const readobj = await readobjBlocks(path);
  assert.equal(readobj.length, file.slices.length);
  let total = 0;
  for (const [i, slice] of file.slices.entries()) {
    const defined = nm.get(file.universal ? slice.cpuName : "")!;
    assert.ok(defined !== undefined, `llvm-nm printed nothing for ${slice.cpuName}`);
    const counts = await compareWithPeers(path, file, slice, images[i]!, defined, readobj[i]!);
    const sum = Object.values(counts).reduce((a, b) => a + b, 0);
    total += sum;
    console.log(
      `${images[i]!.document}: compared ${sum} entries with the LLVM tools: ` +
        Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(", "),
    );
  }
  console.log(`${label}: ${bytes.length} bytes parsed in ${elapsed.toFixed(1)} ms`);
  return total;
}

const peers = {
  [OBJDUMP]: hasObjdump,
  [NM]: hasNm,
  [READOBJ]: hasReadobj,
  "--allow-write": canWrite,
};

testWith(peers, "parseMachO() reads the synthetic fixtures as the LLVM tools do", async () => {
  const x86 = buildMachO(standard64()).bytes;
  const arm = buildMachO(dylibArm64()).bytes;
  const files: [string, Uint8Array][] = [
    ["standard64", x86],
    ["standard32", buildMachO(standard32()).bytes],
    ["dylib-arm64", arm],
    ["dylib-arm64-dyld-info", buildMachO({ ...dylibArm64(), trieCommand: "dyld-info" }).bytes],
    [
      "universal",
      buildUniversal([
        { bytes: x86, cputype: CPU_TYPE_X86_64, cpusubtype: 3 },
        { bytes: arm, cputype: CPU_TYPE_ARM64, cpusubtype: 0 },
      ]).bytes,
    ],
  ];
  await withTempDir(async (directory) => {
    for (const [name, bytes] of files) {
      const path = `${directory}/${name}`;
      await Deno.writeFile(path, bytes);
      assert.ok((await comparePath(path, name)) > 0);
    }
  }, { prefix: "casefile-macho-test-" });
});

const REAL_FILES: { spec: string; file: string; universal: boolean }[] = [
  { spec: "7zip-bin@5.2.0", file: "mac/x64/7za", universal: false },
  { spec: "7zip-bin@5.2.0", file: "mac/arm64/7za", universal: false },
  { spec: "@esbuild/darwin-arm64@0.28.2", file: "bin/esbuild", universal: false },
  { spec: "fsevents@2.3.3", file: "fsevents.node", universal: true },
];

/** Each real file's path, fetched once before the tests are declared (null: unavailable, reason printed). */
const REAL_PATHS = new Map<string, string | null>();
for (const { spec, file } of REAL_FILES) {
  REAL_PATHS.set(`${spec} ${file}`, await npmFixture(spec, file));
}

for (const { spec, file, universal } of REAL_FILES) {
  testWith(
    {
      [OBJDUMP]: hasObjdump,
      [NM]: hasNm,
      [READOBJ]: hasReadobj,
      [`${spec} ${file}`]: REAL_PATHS.get(`${spec} ${file}`) !== null,
    },
    `parseMachO() and machOImages() agree with the LLVM tools on ${spec} ${file}`,
    async () => {
      const path = REAL_PATHS.get(`${spec} ${file}`)!;
      const parsed = parseMachO(await Deno.readFile(path));
      assert.equal(parsed.universal, universal, `${file} universal`);
      const total = await comparePath(path, file.slice(file.lastIndexOf("/") + 1));
      assert.ok(total > 0);
    },
  );
}

// ---------------------------------------------------------------------------
// Bad input

Deno.test("parseMachO() rejects empty, magic-only, non-Mach-O and truncated headers with MachOParseError", () => {
  assertParseError(new Uint8Array(0), "Cannot parse Mach-O header: file is empty");
  assertParseError(
    new Uint8Array([0xcf, 0xfa]),
    "Cannot parse Mach-O header: file is 2 bytes, needs at least 4 for the magic number",
  );
  assertParseError(
    new Uint8Array([0xcf, 0xfa, 0xed, 0xfe]),
    "Cannot parse Mach-O header: file is 4 bytes, needs at least 32 for a 64-bit header",
  );
  assertParseError(
    new Uint8Array([0xfe, 0xed, 0xfa, 0xce, 0, 0, 0, 18]),
    "Cannot parse Mach-O header: file is 8 bytes, needs at least 28 for a 32-bit header",
  );
  assertParseError(
    new Uint8Array([0xca, 0xfe, 0xba, 0xbe]),
    "Cannot parse Mach-O universal header: file is 4 bytes, needs at least 8",
  );
  assertParseError(
    new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]),
    "Cannot parse Mach-O header: bad magic number 7f 45 4c 46, expected feedface or feedfacf " +
      "(in either byte order) or a universal cafebabe / cafebabf",
  );
  const e = assertParseError(
    new Uint8Array([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0]),
    "Cannot parse Mach-O universal header: nfat_arch is 0",
  );
  assert.equal(e.offset, 4);
});

Deno.test("parseMachO() rejects a Java class file instead of reading it as a universal binary", () => {
  assertParseError(
    javaClass(0, 52),
    "Cannot parse Mach-O universal header: nfat_arch is 52 (0x34), more than the 44 any " +
      "universal file has; with FAT_MAGIC this is most likely a Java class file (class file " +
      "version 52.0)",
  );
  assertParseError(
    javaClass(3, 45),
    /nfat_arch is 196653 \(0x3002d\).*Java class file \(class file version 45\.3\)/,
  );
  assertParseError(
    javaClass(0, 65),
    /Java class file/,
  );
});

Deno.test("parseMachO() rejects sizeofcmds past the end and ncmds 0xffffffff", () => {
  const bytes = buildMachO(standard64()).bytes.slice(0, 4096);
  poke32(bytes, 20, 0x9000);
  const e = assertParseError(
    bytes,
    "Cannot parse Mach-O load commands: sizeofcmds 0x9000 runs past the end of the 4096-byte file",
  );
  assert.equal(e.offset, 20);
  const many = buildMachO(standard64()).bytes;
  const sizeofcmds = new DataView(many.buffer).getUint32(20, true);
  poke32(many, 16, 0xffffffff);
  assertParseError(
    many,
    `Cannot parse Mach-O load commands: ncmds 4294967295 (0xffffffff) needs at least ` +
      `34359738360 bytes (8 per command) but sizeofcmds is ${sizeofcmds}`,
  );
});

Deno.test("parseMachO() stops at a load command with cmdsize 0 or past the end, and skips one too small", () => {
  const fixture = buildMachO(standard64());
  const symtab = fixture.commands.findIndex((c) => c.name === "LC_SYMTAB");
  const at = fixture.commands[symtab]!.offset;

  const zero = fixture.bytes.slice();
  poke32(zero, at + 4, 0);
  let file = parseDamaged(zero, "cmdsize 0") as MachOFile;
  let s = file.slices[0]!;
  assert.equal(s.loadCommands.length, symtab);
  assert.deepEqual(s.warnings, [
    `Load command ${symtab} (LC_SYMTAB) at offset ${hex(at)} has cmdsize 0, less than 8; ` +
    `${fixture.commands.length - symtab} commands not read`,
  ]);
  assert.deepEqual(s.symbols, []);

  const past = fixture.bytes.slice();
  poke32(past, at + 4, 0x10000);
  s = (parseDamaged(past, "cmdsize past the end") as MachOFile).slices[0]!;
  assert.equal(s.loadCommands.length, symtab);
  assert.match(
    s.warnings[0]!,
    /has cmdsize 65536, which runs past the end of the \d+-byte load command area/,
  );

  // The last command (LC_FUNCTION_STARTS) shrunk to 8 bytes: it is skipped, the rest read.
  const small = fixture.bytes.slice();
  const last = fixture.commands.at(-1)!;
  poke32(small, last.offset + 4, 8);
  file = parseDamaged(small, "cmdsize too small") as MachOFile;
  s = file.slices[0]!;
  assert.equal(s.loadCommands.length, fixture.commands.length);
  assert.deepEqual(s.warnings, [
    `Load command ${fixture.commands.length - 1} (LC_FUNCTION_STARTS) has cmdsize 8, less than ` +
    `its 16-byte structure; ignoring it`,
  ]);
  assert.deepEqual(s.functionStarts, []);
  assert.equal(s.symbols.length, 11);

  // A segment claiming more sections than its cmdsize holds.
  const sections = fixture.bytes.slice();
  const text = fixture.commands[1]!;
  poke32(sections, text.offset + 64, 1000);
  s = (parseDamaged(sections, "nsects 1000") as MachOFile).slices[0]!;
  assert.deepEqual(s.warnings.slice(0, 1), [
    "Segment __TEXT (load command 1) has nsects 1000 but its cmdsize 312 holds only 3; reading 3",
  ]);
});

Deno.test("parseMachO() bounds nsyms 0x7fffffff and warns about string offsets out of range", () => {
  const fixture = buildMachO(standard64());
  const symtab = fixture.commands.find((c) => c.name === "LC_SYMTAB")!;
  const huge = fixture.bytes.slice();
  poke32(huge, symtab.offset + 12, 0x7fffffff);
  const started = performance.now();
  const s = (parseDamaged(huge, "nsyms huge") as MachOFile).slices[0]!;
  assert.ok(performance.now() - started < 1000);
  const fit = Math.floor((huge.length - fixture.symtabOffset) / 16);
  assert.equal(
    s.warnings[0],
    `the symbol table (34359738352 bytes at offset ${hex(fixture.symtabOffset)}) runs past the ` +
      `end of the ${huge.length}-byte file; reading the ${huge.length - fixture.symtabOffset} ` +
      `bytes that fit`,
  );
  assert.equal(s.warnings[1], `Reading ${fit} of the 2147483647 nlist entries of the symbol table`);
  assert.ok(s.symbols.length <= fit);

  const names = fixture.bytes.slice();
  poke32(names, fixture.symtabOffset + 16 * 3, 0xffffff); // _main
  poke32(names, fixture.symtabOffset + 16 * 7, fixture.stringSize); // _printf, just past the end
  const t = (parseDamaged(names, "bad n_strx") as MachOFile).slices[0]!;
  assert.deepEqual(t.warnings, [
    `2 symbols have name offsets past the end of the ${fixture.stringSize}-byte string table; ` +
    `their names are empty`,
  ]);
  assert.equal(t.symbols[3]!.name, "");
  assert.equal(t.imports[0]!.name, "");
  assert.equal(t.symbols[4]!.name, "_counter");

  const strings = fixture.bytes.slice();
  poke32(strings, symtab.offset + 16, 0x7fffff00);
  const u = (parseDamaged(strings, "stroff past the end") as MachOFile).slices[0]!;
  assert.match(u.warnings[0]!, /^Cannot read the string table: it starts at offset 0x7fffff00/);
  assert.ok(u.symbols.every((x) => x.name === ""));
});

Deno.test("parseMachO() bounds ULEB128 runs, thread states and indirect tables that run past their data", () => {
  const fixture = buildMachO(standard64());
  const starts = fixture.bytes.slice();
  starts.fill(
    0xff,
    fixture.functionStartsOffset,
    fixture.functionStartsOffset + fixture.functionStartsSize,
  );
  const s = (parseDamaged(starts, "ULEB128 without an end") as MachOFile).slices[0]!;
  assert.deepEqual(s.functionStarts, []);
  assert.match(
    s.warnings[0]!,
    /^LC_FUNCTION_STARTS has a malformed ULEB128 at offset 0x3000; keeping the 0 starts before it$/,
  );

  const thread = buildMachO(standard32());
  const cmd = thread.commands.find((c) => c.name === "LC_UNIXTHREAD")!;
  const bad = thread.bytes.slice();
  poke32(bad, cmd.offset + 12, 0x40000000);
  const t = (parseDamaged(bad, "thread count huge") as MachOFile).slices[0]!;
  assert.equal(t.entry, null);
  assert.match(t.warnings[0]!, /thread state of 1073741824 words that runs past its cmdsize/);

  const indirect = fixture.bytes.slice();
  const dysymtab = fixture.commands.find((c) => c.name === "LC_DYSYMTAB")!;
  poke32(indirect, dysymtab.offset + 60, 0x40000000);
  const u = (parseDamaged(indirect, "nindirectsyms huge") as MachOFile).slices[0]!;
  assert.match(u.warnings[0]!, /^the indirect symbol table \(4294967296 bytes at offset/);
});

Deno.test("parseMachO() rejects a huge nfat_arch and skips fat archs past the end or overlapping", () => {
  const x86 = buildMachO(standard64()).bytes;
  const arm = buildMachO(dylibArm64()).bytes;
  const { bytes } = buildUniversal([
    { bytes: x86, cputype: CPU_TYPE_X86_64, cpusubtype: 3 },
    { bytes: arm, cputype: CPU_TYPE_ARM64, cpusubtype: 0 },
  ]);
  const huge = bytes.slice();
  poke32(huge, 4, 0x10000, false);
  assertParseError(
    huge,
    /^Cannot parse Mach-O universal header: nfat_arch is 65536 \(0x10000\), more than the 44/,
  );
  const table = bytes.slice(0, 40);
  poke32(table, 4, 20, false);
  assertParseError(
    table,
    "Cannot parse Mach-O universal header: its 20 architecture entries of 20 bytes run past the " +
      "end of the 40-byte file",
  );

  const pastEnd = bytes.slice();
  poke32(pastEnd, 8 + 20 + 8, bytes.length + 0x1000, false);
  let file = parseDamaged(pastEnd, "fat arch past EOF") as MachOFile;
  assert.deepEqual(file.slices.map((s) => s.cpuName), ["x86_64"]);
  assert.deepEqual(file.warnings, [
    `Universal architecture 1 (arm64) starts at offset ${hex(bytes.length + 0x1000)}, past the ` +
    `end of the ${bytes.length}-byte file; skipping it`,
  ]);
  assert.deepEqual(machOImages(pastEnd, "f").map((i) => i.document), ["f (x86_64)"]);

  const overlap = bytes.slice();
  poke32(overlap, 8 + 20 + 8, 0x4000 + 0x1000, false);
  poke32(overlap, 8 + 20 + 12, 0x1000, false);
  file = parseDamaged(overlap, "fat archs overlapping") as MachOFile;
  assert.deepEqual(file.slices.map((s) => s.cpuName), ["x86_64"]);
  assert.deepEqual(file.warnings, [
    "Universal architecture 1 (arm64) (offset 0x5000, 4096 bytes) overlaps universal " +
    `architecture 0 (offset 0x4000, ${x86.length} bytes); skipping it`,
  ]);

  const bothGone = bytes.slice();
  poke32(bothGone, 8 + 8, bytes.length, false);
  poke32(bothGone, 8 + 20 + 8, bytes.length, false);
  assertParseError(
    bothGone,
    /^Cannot parse Mach-O universal file: none of its 2 architectures can be read$/,
  );

  const badSlice = bytes.slice();
  badSlice.fill(0, 0x8000, 0x8004);
  file = parseDamaged(badSlice, "slice with a bad magic") as MachOFile;
  assert.deepEqual(file.slices.map((s) => s.cpuName), ["x86_64"]);
  assert.match(
    file.warnings[0]!,
    /^Skipping universal architecture 1 \(arm64\): Cannot parse Mach-O header: bad magic number 00 00 00 00/,
  );

  const truncatedSlice = bytes.slice(0, 0x8000 + 0x100);
  file = parseDamaged(truncatedSlice, "last slice truncated") as MachOFile;
  assert.deepEqual(file.slices.map((s) => s.cpuName), ["x86_64"]);
  assert.match(
    file.warnings[0]!,
    /^Universal architecture 1 \(arm64\) \(\d+ bytes at offset 0x8000\) runs past the end/,
  );
  assert.match(
    file.warnings[1]!,
    /^Skipping universal architecture 1 \(arm64\): Cannot parse Mach-O load commands: sizeofcmds 0x[0-9a-f]+ runs past the end of the 256-byte slice$/,
  );
});

/** Offsets worth cutting a thin slice at: the header, each load command, each linkedit table. */
function boundaries(slice: MachOSlice, length: number): number[] {
  const points = [
    0,
    4,
    slice.bits === 64 ? 32 : 28,
    (slice.bits === 64 ? 32 : 28) + slice.sizeofcmds,
  ];
  for (const c of slice.loadCommands) points.push(c.offset, c.offset + 8, c.offset + c.size);
  for (const s of slice.segments) points.push(s.fileOffset, s.fileOffset + s.fileSize);
  if (slice.symtab !== null) {
    const t = slice.symtab;
    points.push(t.symbolOffset, t.symbolOffset + t.symbolCount * (slice.bits === 64 ? 16 : 12));
    points.push(t.stringOffset, t.stringOffset + t.stringSize);
  }
  if (slice.dysymtab !== null) {
    const d = slice.dysymtab;
    points.push(d.indirectSymbolOffset, d.indirectSymbolOffset + d.indirectSymbolCount * 4);
  }
  for (const d of [slice.functionStartsData, slice.exportsTrieData]) {
    if (d !== null) points.push(d.offset, d.offset + d.size);
  }
  if (slice.dyldInfo !== null) {
    points.push(
      slice.dyldInfo.exportOffset,
      slice.dyldInfo.exportOffset + slice.dyldInfo.exportSize,
    );
  }
  const all = new Set<number>();
  for (const p of points) {
    for (const d of [-1, 0, 1]) if (p + d >= 0 && p + d < length) all.add(slice.offset + p + d);
  }
  return [...all].sort((a, b) => a - b);
}

for (const { spec, file: name } of [REAL_FILES[0]!, REAL_FILES[3]!]) {
  const path = REAL_PATHS.get(`${spec} ${name}`) ?? null;
  testWith(
    { [`${spec} ${name}`]: path !== null },
    `parseMachO() survives truncation of ${name} at every header, load command and table boundary and at 200 random points`,
    async () => {
      const bytes = await Deno.readFile(path!);
      const full = parseMachO(bytes);
      const seed = 0x5eed_0a11;
      console.log(`truncation seed ${hex(seed)} (${name})`);
      const random = mulberry32(seed);
      const points = full.slices.flatMap((s) => boundaries(s, s.size));
      if (full.universal) {
        for (const s of full.slices) points.push(s.offset - 1, s.offset, s.offset + s.size - 1);
        points.push(8, 8 + 20, 8 + 20 * full.slices.length);
      }
      for (let i = 0; i < 200; i++) points.push(Math.floor(random() * bytes.length));
      let thrown = 0;
      let warned = 0;
      for (const n of points) {
        const result = parseDamaged(bytes.subarray(0, n), `truncated at ${n}`);
        if (result instanceof MachOParseError) {
          thrown++;
          if (!full.universal) {
            const s = full.slices[0]!;
            assert.ok(
              n < (s.bits === 64 ? 32 : 28) + s.sizeofcmds,
              `truncated at ${n}: ${result.message}`,
            );
          }
          continue;
        }
        warned++;
        if (!full.universal) {
          const s = full.slices[0]!;
          assert.ok(n >= (s.bits === 64 ? 32 : 28) + s.sizeofcmds, `truncated at ${n} parsed`);
        }
        assert.ok(result.warnings.length > 0, `no warning when truncated at ${n}`);
      }
      console.log(
        `${points.length} truncations of ${name}: ${thrown} threw MachOParseError, ${warned} returned warnings`,
      );
      assert.ok(thrown > 0 && warned > 0);
    },
  );
}

const CORRUPTED = REAL_PATHS.get(`${REAL_FILES[0]!.spec} ${REAL_FILES[0]!.file}`) ?? null;
testWith(
  { "7za (x64)": CORRUPTED !== null },
  "parseMachO() survives 300 random byte corruptions of a real binary",
  async () => {
    const path = CORRUPTED!;
    const bytes = await Deno.readFile(path);
    const full = parseMachO(bytes);
    const s = full.slices[0]!;
    const seed = 0xc0ffee;
    console.log(`corruption seed ${hex(seed)}`);
    const random = mulberry32(seed);
    const headerEnd = 32 + s.sizeofcmds;
    const regions: [number, number][] = [[0, 32], [32, headerEnd], [32, headerEnd], [
      0,
      bytes.length,
    ]];
    const t = s.symtab!;
    regions.push([t.symbolOffset, t.symbolOffset + 4096], [t.stringOffset, t.stringOffset + 1024]);
    if (s.functionStartsData !== null) {
      regions.push([s.functionStartsData.offset, s.functionStartsData.offset + 512]);
    }
    if (s.dyldInfo !== null) {
      regions.push([s.dyldInfo.exportOffset, s.dyldInfo.exportOffset + 2048]);
    }
    if (s.dysymtab !== null) {
      regions.push([s.dysymtab.indirectSymbolOffset, s.dysymtab.indirectSymbolOffset + 512]);
    }
    const { thrown, warned } = tallyCorruptions(bytes, regions, {
      random,
      parse: (label) => parseDamaged(bytes, label),
      refusal: MachOParseError,
      warnings: (result) => result.warnings,
    });
    console.log(`300 corruptions: ${thrown} threw MachOParseError, ${warned} returned warnings`);
    assert.deepEqual(parseMachO(bytes), full);
  },
);

Deno.test("parseMachO() survives every single-byte corruption of the synthetic files' headers and load commands", () => {
  const x86 = buildMachO(standard64());
  const universal = buildUniversal([
    { bytes: x86.bytes, cputype: CPU_TYPE_X86_64, cpusubtype: 3 },
    { bytes: buildMachO(dylibArm64()).bytes, cputype: CPU_TYPE_ARM64, cpusubtype: 0 },
  ]).bytes;
  let results = 0;
  for (
    const [label, bytes, end] of [
      ["standard64", x86.bytes, 32 + x86.sizeofcmds],
      ["universal", universal, 64],
    ] as const
  ) {
    const copy = bytes.slice();
    for (let at = 0; at < end; at++) {
      for (const value of [0x00, 0xff, copy[at]! ^ 0x80]) {
        const saved = copy[at]!;
        copy[at] = value;
        if (
          !(parseDamaged(copy, `${label}: byte ${at} = ${hex(value)}`) instanceof MachOParseError)
        ) {
          results++;
        }
        copy[at] = saved;
      }
    }
  }
  assert.ok(results > 0);
});
