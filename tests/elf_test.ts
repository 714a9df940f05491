/**
 * Tests for the ELF reader: exact results on synthetic files in all four
 * class/byte-order combinations, agreement with `nm` on real binaries,
 * stripped binaries and the PT_DYNAMIC fallback, and bounded, typed failure
 * on damaged input.
 *
 * Run with `deno test --allow-read --allow-run=nm,readelf,cc,objcopy,strip tests/elf_test.ts`.
 * Tests that need a missing program are ignored with the reason printed.
 * Without --allow-write the files compiled with `cc` stay in /tmp under fixed
 * `casefile-elf-test-<pid>-*` names.
 */

import assert from "node:assert/strict";
import { hasProgram, runProgram } from "./helpers/programs.ts";
import { mulberry32 } from "./helpers/random.ts";
import { type ElfFunction, type ElfImage, ElfParseError } from "../src/apps/formats/elf/model.ts";
import { isElf, parseElf } from "../src/apps/formats/elf/parse.ts";
import {
  BASE,
  buildElf,
  ET_REL,
  type Fixture,
  type FixtureOptions,
  layoutOf,
  poke,
  standardDynsym,
  standardSymtab,
  STB_GLOBAL,
  STT_FUNC,
  TEXT,
} from "./elf_fixtures.ts";
import { tallyCorruptions } from "./helpers/corruption.ts";
import { findLibc } from "./helpers/system_files.ts";

// ---------------------------------------------------------------------------
// Environment

const hasNm = hasProgram("nm");
const hasReadelf = hasProgram("readelf");
const hasCc = hasProgram("cc");
const hasStrip = hasProgram("strip");

/** Registers a test that needs `programs`, printing why when it is ignored. */
function testWith(
  programs: Record<string, boolean>,
  name: string,
  fn: () => Promise<void> | void,
): void {
  const missing = Object.entries(programs).filter(([, ok]) => !ok).map(([p]) => p);
  if (missing.length > 0) {
    console.log(
      `skip: ${name}: ${missing.join(", ")} not available (or not allowed by --allow-run)`,
    );
  }
  Deno.test({ name, ignore: missing.length > 0, fn });
}

function realPath(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch {
    return null;
  }
}

const canRemove = Deno.permissions.querySync({ name: "write", path: "/tmp" }).state === "granted";

/** Compiles C source from stdin with `cc`, writing a fixed path in /tmp; returns the path. */
async function compile(name: string, source: string, flags: string[]): Promise<string> {
  const out = `/tmp/casefile-elf-test-${Deno.pid}-${name}`;
  const result = await runProgram("cc", [...flags, "-x", "c", "-o", out, "-"], { stdin: source });
  assert.equal(result.code, 0, `cc ${flags.join(" ")} failed: ${result.stderr}`);
  return out;
}

function cleanup(...paths: string[]): void {
  if (!canRemove) return;
  for (const path of paths) {
    try {
      Deno.removeSync(path);
    } catch {
      // Already gone.
    }
  }
}

// ---------------------------------------------------------------------------
// Helpers

const hex = (n: bigint | number): string => `0x${n.toString(16)}`;

interface Expected {
  address: number;
  name: string;
  names?: string[];
  size: number;
  source: ElfFunction["source"];
  binding: ElfFunction["binding"];
  kind: ElfFunction["kind"];
}

function fn(e: Expected): ElfFunction {
  return {
    address: BigInt(e.address),
    size: BigInt(e.size),
    name: e.name,
    names: e.names ?? (e.name === "" ? [] : [e.name]),
    source: e.source,
    binding: e.binding,
    kind: e.kind,
  };
}

/** What the standard fixture with .symtab and .dynsym must yield. */
function expectedFull(): ElfFunction[] {
  return [
    fn({
      address: TEXT,
      name: "_start",
      size: 0,
      source: "entry",
      binding: "global",
      kind: "entry",
    }),
    fn({
      address: TEXT + 0x10,
      name: "helper",
      size: 0x10,
      source: "symtab",
      binding: "local",
      kind: "function",
    }),
    fn({
      address: TEXT + 0x20,
      name: "main",
      names: ["main", "tiny"],
      size: 0x30,
      source: "symtab",
      binding: "global",
      kind: "function",
    }),
    fn({
      address: TEXT + 0x50,
      name: "weak_fn",
      size: 8,
      source: "symtab",
      binding: "weak",
      kind: "function",
    }),
    fn({
      address: TEXT + 0x60,
      name: "resolve_me",
      size: 0x10,
      source: "symtab",
      binding: "global",
      kind: "ifunc",
    }),
    fn({
      address: TEXT + 0x80,
      name: "alias",
      names: ["alias", "alias_local", "alias_long_name", "alias_weak"],
      size: 0x20,
      source: "symtab",
      binding: "global",
      kind: "function",
    }),
    fn({
      address: TEXT + 0xa0,
      name: "alfa",
      names: ["alfa", "beta"],
      size: 4,
      source: "symtab",
      binding: "global",
      kind: "function",
    }),
    fn({
      address: TEXT + 0xc0,
      name: "versioned",
      size: 4,
      source: "symtab",
      binding: "global",
      kind: "function",
    }),
    fn({
      address: TEXT + 0xf0,
      name: "dyn_only",
      size: 6,
      source: "dynsym",
      binding: "global",
      kind: "function",
    }),
    // SHN_ABS is defined (not SHN_UNDEF), so an absolute STT_FUNC is listed.
    fn({
      address: TEXT + 0x100,
      name: "abs_fn",
      size: 2,
      source: "symtab",
      binding: "global",
      kind: "function",
    }),
  ];
}

/** What the standard fixture without .symtab must yield, from `source`. */
function expectedDynamic(source: "dynsym" | "dynamic"): ElfFunction[] {
  const f = (
    address: number,
    name: string,
    size: number,
    binding: ElfFunction["binding"] = "global",
    kind: ElfFunction["kind"] = "function",
  ): ElfFunction => fn({ address, name, size, source, binding, kind });
  return [
    fn({ address: TEXT, name: "", size: 0, source: "entry", binding: "other", kind: "entry" }),
    f(TEXT + 0x20, "main", 0x30),
    f(TEXT + 0x50, "weak_fn", 8, "weak"),
    f(TEXT + 0x60, "resolve_me", 0x10, "global", "ifunc"),
    f(TEXT + 0x80, "alias", 0x20),
    f(TEXT + 0xc0, "versioned", 4),
    f(TEXT + 0xf0, "dyn_only", 6),
  ];
}

const COMBINATIONS: { bits: 32 | 64; endianness: "little" | "big" }[] = [
  { bits: 32, endianness: "little" },
  { bits: 32, endianness: "big" },
  { bits: 64, endianness: "little" },
  { bits: 64, endianness: "big" },
];

function standard(
  options: Partial<FixtureOptions> & Pick<FixtureOptions, "bits" | "endianness">,
): Fixture {
  return buildElf({ symtab: standardSymtab(), dynsym: standardDynsym(), ...options });
}

/** Parses damaged bytes: only ElfParseError may escape, and any result must be sane. */
function parseDamaged(bytes: Uint8Array, label: string): ElfImage | ElfParseError {
  let image: ElfImage;
  try {
    image = parseElf(bytes);
  } catch (error) {
    if (error instanceof ElfParseError) {
      assert.match(error.message, /^Cannot parse ELF header: /, label);
      return error;
    }
    throw new Error(`${label}: unexpected ${error}`, { cause: error });
  }
  let previous = -1n;
  for (const f of image.functions) {
    assert.equal(typeof f.address, "bigint", label);
    assert.equal(typeof f.size, "bigint", label);
    assert.ok(
      f.address > previous,
      `${label}: functions not strictly ascending at ${hex(f.address)}`,
    );
    previous = f.address;
  }
  for (const w of image.warnings) assert.equal(typeof w, "string", label);
  return image;
}

// ----- nm / readelf

interface NmSymbol {
  address: bigint;
  type: string;
  name: string;
}

/** Strips an `@VER` / `@@VER` suffix as nm -D prints it. */
function stripVersion(name: string): string {
  const at = name.indexOf("@");
  return at > 0 ? name.slice(0, at) : name;
}

/** `nm [-D] --defined-only`, all lines with an address. */
async function nm(path: string, dynamic: boolean): Promise<NmSymbol[]> {
  const result = await runProgram("nm", [...(dynamic ? ["-D"] : []), "--defined-only", path]);
  if (result.code !== 0 || /no symbols/i.test(result.stderr)) {
    assert.match(result.stderr, /no symbols/i, `nm failed on ${path}: ${result.stderr}`);
    return [];
  }
  const symbols: NmSymbol[] = [];
  for (const line of result.stdout.split("\n")) {
    const m = /^([0-9a-f]+) (\S) (.+)$/.exec(line);
    if (m === null) continue;
    symbols.push({ address: BigInt(`0x${m[1]}`), type: m[2]!, name: stripVersion(m[3]!) });
  }
  return symbols;
}

/** nm's letters for functions: text (T/t), weak (W/w), GNU indirect function (i). */
const NM_FUNCTION_TYPES = new Set(["T", "t", "W", "w", "i"]);

interface ReadelfSymbol {
  address: bigint;
  type: string;
  ndx: string;
  name: string;
}

/** `readelf -sW` (both .symtab and .dynsym), by address. */
async function readelfSymbols(path: string): Promise<Map<bigint, ReadelfSymbol[]>> {
  const result = await runProgram("readelf", ["-sW", path]);
  assert.equal(result.code, 0, result.stderr);
  const byAddress = new Map<bigint, ReadelfSymbol[]>();
  for (const line of result.stdout.split("\n")) {
    const m = /^\s*\d+:\s+([0-9a-f]+)\s+\S+\s+(\S+)\s+\S+\s+\S+\s+(\S+)\s+(.*)$/.exec(line);
    if (m === null) continue;
    const address = BigInt(`0x${m[1]}`);
    const name = stripVersion(m[4]!.replace(/ \(\d+\)$/, ""));
    const list = byAddress.get(address) ?? [];
    list.push({ address, type: m[2]!, ndx: m[3]!, name });
    byAddress.set(address, list);
  }
  return byAddress;
}

function group(symbols: NmSymbol[]): Map<bigint, NmSymbol[]> {
  const map = new Map<bigint, NmSymbol[]>();
  for (const s of symbols) {
    const list = map.get(s.address) ?? [];
    list.push(s);
    map.set(s.address, list);
  }
  return map;
}

/**
 * Compares `image.functions` with nm exactly: every address nm lists as a
 * function is in `functions`, every symtab/dynsym/dynamic address in
 * `functions` is one nm lists as a function, and the chosen name and all
 * `names` are among nm's names at that address. `nmPath` is the file nm reads
 * (it differs from the parsed bytes when the test removed section headers).
 * Returns how many addresses were compared.
 */
async function compareWithNm(
  image: ElfImage,
  nmPath: string,
  tables: { symtab: boolean; dynamic: boolean },
): Promise<number> {
  const statics = tables.symtab ? await nm(nmPath, false) : [];
  const dynamics = tables.dynamic ? await nm(nmPath, true) : [];
  const staticAt = group(statics);
  const dynamicAt = group(dynamics);
  const allAt = group([...statics, ...dynamics]);
  const nmFunctions = new Set(
    [...statics, ...dynamics].filter((s) => NM_FUNCTION_TYPES.has(s.type)).map((s) => s.address),
  );
  const ours = new Map(image.functions.map((f) => [f.address, f]));
  let readelf: Map<bigint, ReadelfSymbol[]> | null = null;
  const problems: string[] = [];

  for (const address of nmFunctions) {
    if (ours.has(address)) continue;
    // nm letters come from the section (T = in an executable section), not
    // the symbol type: an assembler label (STT_NOTYPE) in .text is a 't' but
    // no function symbol. Accept a missing address only when readelf shows
    // that none of nm's function-lettered symbols there is STT_FUNC/IFUNC.
    readelf ??= hasReadelf ? await readelfSymbols(nmPath) : new Map();
    const names = new Set(
      allAt.get(address)!.filter((s) => NM_FUNCTION_TYPES.has(s.type)).map((s) => s.name),
    );
    const symbols = (readelf.get(address) ?? []).filter((s) => names.has(s.name));
    const explained = symbols.length > 0 &&
      symbols.every((s) => s.type !== "FUNC" && s.type !== "IFUNC");
    if (!explained) {
      problems.push(
        `nm lists ${[...names]} at ${hex(address)}, parseElf does not` +
          (hasReadelf ? "" : " (readelf, which could explain it, is not available)"),
      );
    }
  }

  let compared = 0;
  for (const f of image.functions) {
    if (f.source === "entry") continue;
    compared++;
    const table = f.source === "symtab" ? staticAt : dynamicAt;
    const there = table.get(f.address) ?? [];
    if (!nmFunctions.has(f.address)) {
      // An STT_FUNC in SHN_ABS is defined, so parseElf lists it; nm letters
      // it 'A' (absolute) because it lies in no section.
      const absolute = there.some((s) => s.name === f.name && s.type === "A");
      if (!absolute) {
        problems.push(`parseElf lists ${f.name} at ${hex(f.address)} (${f.source}), nm does not`);
        continue;
      }
    }
    if (!there.some((s) => s.name === f.name)) {
      problems.push(
        `chosen name ${f.name} at ${hex(f.address)} is not among nm's ${there.map((s) => s.name)}`,
      );
    }
    const every = new Set((allAt.get(f.address) ?? []).map((s) => s.name));
    for (const name of f.names) {
      if (!every.has(name)) problems.push(`name ${name} at ${hex(f.address)} is unknown to nm`);
    }
  }
  assert.deepEqual(problems.slice(0, 20), [], `${problems.length} mismatches with nm on ${nmPath}`);
  return compared;
}

// ---------------------------------------------------------------------------
// Synthetic files

Deno.test("isElf() checks only the four-byte magic number", () => {
  assert.equal(isElf(Uint8Array.of(0x7f, 0x45, 0x4c, 0x46)), true);
  assert.equal(isElf(Uint8Array.of(0x7f, 0x45, 0x4c, 0x46, 9, 9, 9)), true);
  assert.equal(isElf(Uint8Array.of(0x7f, 0x45, 0x4c)), false);
  assert.equal(isElf(new Uint8Array(0)), false);
  assert.equal(isElf(new TextEncoder().encode("#!/bin/sh\n")), false);
});

for (const { bits, endianness } of COMBINATIONS) {
  Deno.test(
    `parseElf() reads the functions of a synthetic ${bits}-bit ${endianness}-endian executable exactly`,
    () => {
      const fixture = standard({ bits, endianness });
      const image = parseElf(fixture.bytes);
      assert.deepEqual(image.warnings, []);
      assert.equal(image.bits, bits);
      assert.equal(image.endianness, endianness);
      assert.equal(image.type, "executable");
      const machine = { "32little": 3, "32big": 8, "64little": 62, "64big": 21 }[
        `${bits}${endianness}`
      ];
      assert.equal(image.machine, machine);
      assert.equal(
        image.machineName,
        { 3: "i386", 8: "MIPS", 62: "x86-64", 21: "PowerPC64" }[machine!],
      );
      assert.equal(
        image.architecture,
        { 3: "x86" as const, 8: null, 62: "x86_64" as const, 21: null }[machine!],
      );
      assert.equal(image.entry, BigInt(TEXT));
      assert.equal(image.hasSymtab, true);
      assert.deepEqual(image.functions, expectedFull());
      assert.deepEqual(
        image.sections.map((s) => [s.index, s.name, s.typeName]),
        [
          [0, "", "SHT_NULL"],
          [1, ".text", "SHT_PROGBITS"],
          [2, ".data", "SHT_PROGBITS"],
          [3, ".symtab", "SHT_SYMTAB"],
          [4, ".strtab", "SHT_STRTAB"],
          [5, ".dynsym", "SHT_DYNSYM"],
          [6, ".dynstr", "SHT_STRTAB"],
          [7, ".hash", "SHT_HASH"],
          [8, ".gnu.hash", "SHT_GNU_HASH"],
          [9, ".dynamic", "SHT_DYNAMIC"],
          [10, ".shstrtab", "SHT_STRTAB"],
        ],
      );
      const text = image.sections[1]!;
      assert.deepEqual(
        [text.address, text.offset, text.size, text.flags],
        [BigInt(TEXT), 0x200, 0x200, 6n],
      );
      assert.deepEqual(
        image.segments.map((s) => [s.typeName, s.offset, s.virtualAddress, s.flags]),
        [
          ["PT_LOAD", 0, BigInt(BASE), 5],
          [
            "PT_DYNAMIC",
            fixture.sections.get(".dynamic")!.offset,
            BigInt(BASE + fixture.sections.get(".dynamic")!.offset),
            6,
          ],
        ],
      );
    },
  );

  Deno.test(
    `parseElf() lists .dynsym functions of a synthetic ${bits}-bit ${endianness}-endian file without .symtab`,
    () => {
      const image = parseElf(buildElf({ bits, endianness, dynsym: standardDynsym() }).bytes);
      assert.deepEqual(image.warnings, []);
      assert.equal(image.hasSymtab, false);
      assert.deepEqual(image.functions, expectedDynamic("dynsym"));
    },
  );

  for (const hash of ["sysv", "gnu"] as const) {
    Deno.test(
      `parseElf() falls back to PT_DYNAMIC and ${
        hash === "sysv" ? "DT_HASH" : "DT_GNU_HASH"
      } in a synthetic ${bits}-bit ${endianness}-endian file without section headers`,
      () => {
        const fixture = buildElf({
          bits,
          endianness,
          dynsym: standardDynsym(),
          hash,
          sectionHeaders: false,
        });
        const image = parseElf(fixture.bytes);
        assert.deepEqual(image.warnings, []);
        assert.deepEqual(image.sections, []);
        assert.equal(image.hasSymtab, false);
        assert.deepEqual(image.functions, expectedDynamic("dynamic"));
      },
    );
  }
}

Deno.test("parseElf() clears the Thumb bit of ARM function addresses and the entry point, marking them Thumb", () => {
  const image = parseElf(
    buildElf({
      bits: 32,
      endianness: "little",
      machine: 40,
      entry: TEXT + 1,
      symtab: [
        {
          name: "thumb_fn",
          value: TEXT + 0x11,
          size: 8,
          type: STT_FUNC,
          bind: STB_GLOBAL,
          section: "text",
        },
        {
          name: "arm_fn",
          value: TEXT + 0x20,
          size: 8,
          type: STT_FUNC,
          bind: STB_GLOBAL,
          section: "text",
        },
      ],
    }).bytes,
  );
  assert.equal(image.machineName, "ARM");
  assert.equal(image.architecture, "arm");
  assert.equal(image.entry, BigInt(TEXT + 1));
  assert.deepEqual(image.functions, [
    {
      ...fn({ address: TEXT, name: "", size: 0, source: "entry", binding: "other", kind: "entry" }),
      thumb: true,
    },
    {
      ...fn({
        address: TEXT + 0x10,
        name: "thumb_fn",
        size: 8,
        source: "symtab",
        binding: "global",
        kind: "function",
      }),
      thumb: true,
    },
    fn({
      address: TEXT + 0x20,
      name: "arm_fn",
      size: 8,
      source: "symtab",
      binding: "global",
      kind: "function",
    }),
  ]);
});

Deno.test("parseElf() adds no entry point to a relocatable file", () => {
  const image = parseElf(standard({ bits: 64, endianness: "little", type: ET_REL }).bytes);
  assert.equal(image.type, "relocatable");
  assert.deepEqual(image.functions, expectedFull().slice(1));
});

Deno.test("parseElf() follows ELF extended numbering for e_shnum and e_shstrndx", () => {
  for (const { bits, endianness } of COMBINATIONS) {
    const fixture = standard({ bits, endianness });
    const l = layoutOf(bits);
    const bytes = fixture.bytes.slice();
    // e_shnum 0: the count is in section 0's sh_size; e_shstrndx SHN_XINDEX:
    // the index is in section 0's sh_link.
    poke(fixture, bytes, l.eShnum, 2, 0);
    poke(fixture, bytes, fixture.shoff + l.shSize, l.wordSize, fixture.shnum);
    poke(fixture, bytes, l.eShstrndx, 2, 0xffff);
    poke(fixture, bytes, fixture.shoff + l.shLink, 4, fixture.shstrndx);
    // A symbol whose st_shndx is SHN_XINDEX is still defined.
    const helper = fixture.sections.get(".symtab")!.offset + 3 * l.symSize;
    poke(fixture, bytes, helper + (bits === 64 ? 6 : 14), 2, 0xffff);
    const image = parseElf(bytes);
    assert.deepEqual(image.warnings, []);
    assert.equal(image.sections.length, fixture.shnum);
    assert.equal(image.sections[3]!.name, ".symtab");
    assert.deepEqual(image.functions, expectedFull());

    poke(fixture, bytes, fixture.shoff + l.shLink, 4, 999);
    const broken = parseElf(bytes);
    assert.deepEqual(broken.warnings, [
      `e_shstrndx is 999, but there are only ${fixture.shnum} sections; sections are unnamed`,
    ]);
    assert.deepEqual(broken.functions.map((f) => f.name), expectedFull().map((f) => f.name));
  }
});

Deno.test("parseElf() stops at maxSymbols with a warning", () => {
  const fixture = standard({ bits: 64, endianness: "little" });
  const image = parseElf(fixture.bytes, { maxSymbols: 6 });
  assert.equal(image.warnings.length, 2);
  assert.match(image.warnings[0]!, /has 20 entries but only 6 of the maxSymbols limit of 6 remain/);
  assert.match(image.warnings[1]!, /has 9 entries but only 0 of the maxSymbols limit of 6 remain/);
  // The first six .symtab entries: null, FILE, SECTION and the locals helper, tiny, alias_local.
  assert.deepEqual(image.functions.map((f) => f.name), ["", "helper", "tiny", "alias_local"]);
  assert.throws(() => parseElf(fixture.bytes, { maxSymbols: -1 }), RangeError);
});

// ---------------------------------------------------------------------------
// Real binaries

/**
 * The largest regular `*.so` / `*.so.N` file under /usr/lib, looking at most
 * three directory levels deep (that covers /usr/lib/<triplet>/ and the
 * per-package directories below it) to keep the walk short.
 */
function findBiggestSharedObject(): string | null {
  let best: { path: string; size: number } | null = null;
  const walk = (dir: string, depth: number): void => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory && depth < 3) walk(path, depth + 1);
      else if (entry.isFile && /\.so(\.\d+)*$/.test(entry.name)) {
        try {
          const size = Deno.statSync(path).size;
          if (best === null || size > best.size) best = { path, size };
        } catch {
          // Unreadable: skip.
        }
      }
    }
  };
  walk("/usr/lib", 1);
  return (best as { path: string } | null)?.path ?? null;
}

const realBinaries: { label: string; path: string | null }[] = [
  { label: "/bin/ls", path: realPath("/bin/ls") },
  { label: "the real cc driver", path: realPath("/usr/bin/cc") },
  { label: "libc", path: findLibc() },
  { label: "the biggest shared object under /usr/lib", path: findBiggestSharedObject() },
];

let realBinaryMilliseconds = 0;

for (const { label, path } of realBinaries) {
  const name =
    `parseElf() lists the functions of ${label} like nm --defined-only and nm -D --defined-only`;
  if (path === null) {
    console.log(`skip: ${name}: not found on this machine`);
    continue;
  }
  testWith({ nm: hasNm }, name, async () => {
    const started = performance.now();
    const bytes = await Deno.readFile(path);
    const image = parseElf(bytes);
    assert.deepEqual(image.warnings, [], path);
    const dynamic = image.sections.some((s) => s.typeName === "SHT_DYNSYM");
    const compared = await compareWithNm(image, path, { symtab: image.hasSymtab, dynamic });
    assert.ok(compared > 0, `no functions compared in ${path}`);
    const elapsed = performance.now() - started;
    realBinaryMilliseconds += elapsed;
    console.log(
      `${path}: ${bytes.length} bytes, ${image.functions.length} functions, ${compared} compared ` +
        `with nm (symtab: ${image.hasSymtab}) in ${elapsed.toFixed(0)} ms`,
    );
  });
}

const OBJECT_SOURCE = `
#include <stdio.h>
static int twice(int x) { return 2 * x; }
__attribute__((noinline)) int add(int a, int b) { return twice(a) + b; }
__attribute__((weak)) int weak_hook(void) { return 1; }
int table[4] = {1, 2, 3, 4};
extern int undefined_elsewhere(int);
int call(int x) { return undefined_elsewhere(x) + add(x, table[x & 3]) + weak_hook(); }
int main(void) { printf("%d\\n", call(1)); return 0; }
`;

testWith(
  { cc: hasCc, nm: hasNm },
  "parseElf() lists the .symtab functions of an object compiled with cc -c like nm --defined-only",
  async () => {
    const started = performance.now();
    const path = await compile("object.o", OBJECT_SOURCE, ["-O1", "-c"]);
    const image = parseElf(await Deno.readFile(path));
    assert.deepEqual(image.warnings, []);
    assert.equal(image.type, "relocatable");
    assert.equal(image.hasSymtab, true);
    // Relocatable symbols hold section offsets, so functions in different
    // sections can share an address; compare names as a set to be exact.
    const names = image.functions.flatMap((f) => f.names).sort();
    for (const expected of ["add", "call", "main", "weak_hook"]) {
      assert.ok(names.includes(expected), `${expected} missing from ${names}`);
    }
    assert.ok(!names.includes("table") && !names.includes("undefined_elsewhere"), `${names}`);
    await compareWithNm(image, path, { symtab: true, dynamic: false });
    realBinaryMilliseconds += performance.now() - started;
    console.log(`real-binary comparisons so far: ${realBinaryMilliseconds.toFixed(0)} ms`);
    cleanup(path);
  },
);

// ---------------------------------------------------------------------------
// Stripped binaries

const PROGRAM_SOURCE = `
#include <stdio.h>
int exported_add(int a, int b) { return a + b; }
int exported_mul(int a, int b) { return a * b; }
static int hidden(int x) { return x * 3; }
int main(int argc, char **argv) {
  (void)argv;
  printf("%d\\n", exported_add(argc, hidden(argc)));
  return exported_mul(argc, 2);
}
`;

const LIBRARY_SOURCE = `
int lib_counter = 0;
int lib_add(int a, int b) { return a + b; }
int lib_sub(int a, int b) { return a - b; }
__attribute__((weak)) int lib_weak(void) { return 7; }
static __attribute__((noinline)) int lib_hidden(int x) { return x + lib_counter; }
int lib_use(int x) { return lib_hidden(x); }
`;

async function readelfEntry(path: string): Promise<bigint> {
  const result = await runProgram("readelf", ["-h", path]);
  assert.equal(result.code, 0, result.stderr);
  const m = /Entry point address:\s+0x([0-9a-f]+)/.exec(result.stdout);
  assert.ok(m !== null, result.stdout);
  return BigInt(`0x${m[1]}`);
}

testWith(
  { cc: hasCc, strip: hasStrip, readelf: hasReadelf, nm: hasNm },
  "parseElf() keeps the entry point and dynamic exports of an executable stripped with strip --strip-all",
  async () => {
    const program = await compile("program", PROGRAM_SOURCE, ["-O1", "-rdynamic"]);
    const stripped = `${program}.stripped`;
    const result = await runProgram("strip", ["--strip-all", "-o", stripped, program]);
    assert.equal(result.code, 0, result.stderr);

    const full = parseElf(await Deno.readFile(program));
    const image = parseElf(await Deno.readFile(stripped));
    assert.deepEqual(image.warnings, []);
    assert.equal(full.hasSymtab, true);
    assert.equal(image.hasSymtab, false);
    const entry = await readelfEntry(stripped);
    assert.equal(image.entry, entry);
    const atEntry = image.functions.find((f) => f.address === entry);
    assert.ok(atEntry !== undefined, `no function at the entry point ${hex(entry)}`);
    assert.ok(
      atEntry.kind === "entry" ? atEntry.source === "entry" : atEntry.source === "dynsym",
      JSON.stringify(atEntry, (_, v) => typeof v === "bigint" ? hex(v) : v),
    );
    for (const name of ["exported_add", "exported_mul", "main"]) {
      const before = full.functions.find((f) => f.names.includes(name));
      const after = image.functions.find((f) => f.names.includes(name));
      assert.ok(before !== undefined && after !== undefined, name);
      assert.equal(after.address, before.address, name);
      assert.equal(after.source, "dynsym", name);
    }
    assert.ok(!image.functions.some((f) => f.names.includes("hidden")));
    await compareWithNm(image, stripped, { symtab: false, dynamic: true });
    await compareWithNm(full, program, { symtab: true, dynamic: true });
    cleanup(program, stripped);
  },
);

/** A copy of `bytes` with e_shoff, e_shnum and e_shstrndx zeroed. */
function withoutSectionHeaders(bytes: Uint8Array): Uint8Array {
  const copy = bytes.slice();
  const bits = copy[4] === 2 ? 64 : 32;
  const l = layoutOf(bits);
  const fixture = { littleEndian: copy[5] === 1 };
  poke(fixture, copy, l.eShoff, l.wordSize, 0);
  poke(fixture, copy, l.eShnum, 2, 0);
  poke(fixture, copy, l.eShstrndx, 2, 0);
  return copy;
}

/** A copy of `bytes` whose SHT_SYMTAB sections have type SHT_NULL. */
function withoutSymtab(bytes: Uint8Array, image: ElfImage): Uint8Array {
  const copy = bytes.slice();
  const view = new DataView(copy.buffer);
  const le = image.endianness === "little";
  const shoff = image.bits === 64 ? Number(view.getBigUint64(40, le)) : view.getUint32(32, le);
  const entrySize = image.bits === 64 ? 64 : 40;
  for (const section of image.sections) {
    if (section.typeName === "SHT_SYMTAB") {
      view.setUint32(shoff + section.index * entrySize + 4, 0, le);
    }
  }
  return copy;
}

for (const style of ["gnu", "sysv", "both"] as const) {
  testWith(
    { cc: hasCc, nm: hasNm },
    `parseElf() finds the exports of a shared library built with --hash-style=${style} through PT_DYNAMIC once its section headers are removed`,
    async () => {
      const library = await compile(`library-${style}.so`, LIBRARY_SOURCE, [
        "-O1",
        "-shared",
        "-fPIC",
        `-Wl,--hash-style=${style}`,
      ]);
      const bytes = await Deno.readFile(library);
      const full = parseElf(bytes);
      const image = parseElf(withoutSectionHeaders(bytes));
      assert.deepEqual(image.warnings, []);
      assert.deepEqual(image.sections, []);
      assert.equal(image.hasSymtab, false);
      const dynamicFunctions = image.functions.filter((f) => f.source !== "entry");
      assert.ok(dynamicFunctions.every((f) => f.source === "dynamic"));
      const names = dynamicFunctions.map((f) => f.name);
      for (const name of ["lib_add", "lib_sub", "lib_use", "lib_weak"]) {
        assert.ok(names.includes(name), `${name} missing from ${names}`);
      }
      assert.ok(!names.includes("lib_counter") && !names.includes("lib_hidden"), `${names}`);
      assert.equal(dynamicFunctions.find((f) => f.name === "lib_weak")?.binding, "weak");
      // Same functions as .dynsym read through the section headers (with
      // .symtab hidden by turning its type into SHT_NULL)...
      const dynsymOnly = parseElf(withoutSymtab(bytes, full));
      assert.equal(dynsymOnly.hasSymtab, false);
      assert.deepEqual(
        dynamicFunctions,
        dynsymOnly.functions.filter((f) => f.source !== "entry").map((f) => ({
          ...f,
          source: "dynamic",
        })),
      );
      // ...and exactly what nm -D reports for the intact file.
      await compareWithNm(image, library, { symtab: false, dynamic: true });
      cleanup(library);
    },
  );
}

// ---------------------------------------------------------------------------
// Bad input

function assertParseError(bytes: Uint8Array, message: string | RegExp): ElfParseError {
  let caught: unknown;
  try {
    parseElf(bytes);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ElfParseError, `expected ElfParseError, got ${caught}`);
  if (typeof message === "string") assert.equal(caught.message, message);
  else assert.match(caught.message, message);
  return caught;
}

Deno.test("parseElf() rejects empty, tiny and non-ELF input with ElfParseError", () => {
  assertParseError(new Uint8Array(0), "Cannot parse ELF header: file is empty");
  assertParseError(
    Uint8Array.of(0x7f, 0x45, 0x4c),
    "Cannot parse ELF header: file is 3 bytes, needs at least 16",
  );
  const png = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13);
  const error = assertParseError(
    png,
    'Cannot parse ELF header: bad magic number 89 50 4e 47, expected 7f 45 4c 46 ("\\x7fELF")',
  );
  assert.equal(error.offset, 0);
  assertParseError(
    new TextEncoder().encode("#!/bin/sh\necho hello\n"),
    /bad magic number 23 21 2f 62/,
  );
  const header64 = standard({ bits: 64, endianness: "little" }).bytes.subarray(0, 40);
  assertParseError(header64, "Cannot parse ELF header: file is 40 bytes, needs at least 64");
  const header32 = standard({ bits: 32, endianness: "big" }).bytes.subarray(0, 12);
  assertParseError(header32, "Cannot parse ELF header: file is 12 bytes, needs at least 52");
});

Deno.test("parseElf() rejects an unknown ELF class, byte order or header size", () => {
  const fixture = standard({ bits: 64, endianness: "little" });
  const badClass = fixture.bytes.slice();
  badClass[4] = 3;
  assert.equal(
    assertParseError(
      badClass,
      "Cannot parse ELF header: EI_CLASS is 3, expected 1 (32-bit) or 2 (64-bit)",
    ).offset,
    4,
  );
  const badData = fixture.bytes.slice();
  badData[5] = 0;
  assertParseError(
    badData,
    "Cannot parse ELF header: EI_DATA is 0, expected 1 (little-endian) or 2 (big-endian)",
  );
  const badSize = fixture.bytes.slice();
  poke(fixture, badSize, layoutOf(64).eEhsize, 2, 20);
  assertParseError(badSize, /^Cannot parse ELF header: e_ehsize is 20, expected at least 64/);
});

Deno.test("parseElf() returns entry-point information when e_shnum is 0xffff in a tiny file", () => {
  const fixture = standard({ bits: 64, endianness: "little" });
  const l = layoutOf(64);
  const tiny = new Uint8Array(80);
  tiny.set(fixture.bytes.subarray(0, 64));
  poke(fixture, tiny, 32, 8, 0); // e_phoff
  poke(fixture, tiny, 56, 2, 0); // e_phnum
  poke(fixture, tiny, l.eShoff, 8, 64);
  poke(fixture, tiny, l.eShnum, 2, 0xffff);
  const image = parseElf(tiny);
  assert.deepEqual(image.warnings, [
    "Cannot parse ELF section headers: table at offset 0x40 with 65535 entries of 64 bytes " +
    "runs past the end of the 80-byte file",
  ]);
  assert.deepEqual(image.sections, []);
  assert.deepEqual(image.functions, [
    fn({ address: TEXT, name: "", size: 0, source: "entry", binding: "other", kind: "entry" }),
  ]);

  // The same in a whole file: the real headers, which end the file, still count.
  const bytes = fixture.bytes.slice();
  poke(fixture, bytes, l.eShnum, 2, 0xffff);
  const whole = parseElf(bytes);
  assert.equal(whole.warnings.length, 1);
  assert.match(whole.warnings[0]!, /with 65535 entries .* reading the 11 entries that fit$/);
  assert.deepEqual(whole.functions, expectedFull());
});

Deno.test("parseElf() warns about a symbol table with sh_size 2^40 and keeps its real entries", () => {
  for (const { bits, endianness } of COMBINATIONS) {
    const fixture = standard({ bits, endianness });
    const l = layoutOf(bits);
    const bytes = fixture.bytes.slice();
    const symtab = fixture.sections.get(".symtab")!;
    const huge = bits === 64 ? 2n ** 40n : 0xffffff00n;
    poke(fixture, bytes, symtab.headerOffset + l.shSize, l.wordSize, huge);
    const image = parseDamaged(bytes, `${bits}-${endianness}`) as ElfImage;
    assert.ok(!(image instanceof ElfParseError));
    assert.ok(
      image.warnings.some((w) =>
        w.startsWith(
          `Cannot parse ELF symbol table .symtab (section 3): table at offset ${
            hex(symtab.offset)
          }`,
        ) &&
        w.includes("runs past the end")
      ),
      image.warnings.join("\n"),
    );
    // The entries stop at the next section (.strtab), so nothing else is
    // mistaken for symbols.
    assert.deepEqual(image.warnings, [
      `1 section extends past the end of the ${bytes.length}-byte file: .symtab (section 3)`,
      `Cannot parse ELF symbol table .symtab (section 3): table at offset ${hex(symtab.offset)} ` +
      `with ${
        Math.floor(Number(huge) / l.symSize)
      } entries of ${l.symSize} bytes runs past the end of the ` +
      `${bytes.length}-byte file; reading the 20 entries before the next section at offset ` +
      `${hex(fixture.sections.get(".strtab")!.offset)}`,
    ]);
    assert.deepEqual(image.functions, expectedFull());
  }
});

Deno.test("parseElf() warns about st_name offsets past the end of the string table", () => {
  const fixture = standard({ bits: 32, endianness: "big" });
  const bytes = fixture.bytes.slice();
  // Entry 3 of .symtab is the local "helper" (locals come first).
  poke(fixture, bytes, fixture.sections.get(".symtab")!.offset + 3 * 16, 4, 0x7fffffff);
  const image = parseElf(bytes);
  const strtab = fixture.sections.get(".strtab")!;
  assert.deepEqual(image.warnings, [
    `1 symbol in .symtab (section 3) has a name offset past the end of the ${strtab.size}-byte ` +
    "string table .strtab (section 4); its name is empty",
  ]);
  const expected = expectedFull();
  expected[1] = { ...expected[1]!, name: "", names: [] };
  assert.deepEqual(image.functions, expected);
});

Deno.test("parseElf() warns about sh_link pointing to itself or out of range", () => {
  for (
    const [link, message] of [
      [
        3,
        "Symbol table .symtab (section 3) links to itself for its names; its symbol names are empty",
      ],
      [
        999,
        "Symbol table .symtab (section 3) links to section 999 for its names, but there are only " +
        "11 sections; its symbol names are empty",
      ],
      [
        1,
        "Symbol table .symtab (section 3) links to section 1 for its names, which is SHT_PROGBITS, " +
        "not SHT_STRTAB; its symbol names are empty",
      ],
    ] as const
  ) {
    const fixture = standard({ bits: 64, endianness: "big" });
    const bytes = fixture.bytes.slice();
    poke(
      fixture,
      bytes,
      fixture.sections.get(".symtab")!.headerOffset + layoutOf(64).shLink,
      4,
      link,
    );
    const image = parseElf(bytes);
    assert.deepEqual(image.warnings, [message]);
    // Addresses are unchanged; names now come from .dynsym where it has them.
    assert.deepEqual(image.functions.map((f) => f.address), expectedFull().map((f) => f.address));
    const main = image.functions.find((f) => f.address === BigInt(TEXT + 0x20))!;
    assert.equal(main.name, "main");
    assert.equal(main.source, "dynsym");
    const helper = image.functions.find((f) => f.address === BigInt(TEXT + 0x10))!;
    assert.equal(helper.name, "");
    assert.equal(helper.source, "symtab");
  }
});

Deno.test("parseElf() bounds a DT_GNU_HASH or DT_HASH whose chains never end or whose counts are huge", () => {
  for (const { bits, endianness } of COMBINATIONS) {
    const wordBytes = bits / 8;
    const defined = standardDynsym().filter((s) => s.section !== "undef").length;
    type Case = [string, "gnu" | "sysv", (f: Fixture, b: Uint8Array) => void, RegExp];
    const bucketsOf = (f: Fixture): number => f.gnuHashOffset! + 16 + wordBytes;
    const cases: Case[] = [
      ["chains without end markers", "gnu", (f, b) => {
        // The walk goes on into .dynamic and stops at the first odd word
        // there; the count is then cut where DT_STRTAB begins.
        const chains = bucketsOf(f) + 3 * 4;
        for (let i = 0; i < defined; i++) poke(f, b, chains + i * 4, 4, 0x22222222);
      }, /would overlap the dynamic table at offset/],
      ["a chain that runs to the end of the file", "gnu", (f, b) => {
        // Point bucket 0 at the last words of the file and clear their end bits.
        const chains = bucketsOf(f) + 3 * 4;
        const last = Math.floor((b.length - chains) / 4) - 2;
        poke(f, b, bucketsOf(f), 4, 2 + last); // symbol base is 2 (null + one undefined)
        for (let o = chains + last * 4; o + 4 <= b.length; o += 4) poke(f, b, o, 4, 0x22222222);
      }, /runs past the end of the file without an end marker/],
      [
        "0xffffffff buckets",
        "gnu",
        (f, b) => poke(f, b, f.gnuHashOffset!, 4, 0xffffffff),
        /buckets run past the end/,
      ],
      [
        "0xffffffff bloom words",
        "gnu",
        (f, b) => poke(f, b, f.gnuHashOffset! + 8, 4, 0xffffffff),
        /bloom words/,
      ],
      [
        "a bucket at symbol 0x7fffffff",
        "gnu",
        (f, b) => poke(f, b, bucketsOf(f), 4, 0x7fffffff),
        /without an end marker/,
      ],
      ["a bucket below the first hashed symbol", "gnu", (f, b) => {
        poke(f, b, f.gnuHashOffset! + 4, 4, 0x7ffffff0);
      }, /below its first hashed symbol/],
      [
        "nchain 0xffffffff",
        "sysv",
        (f, b) => poke(f, b, f.hashOffset! + 4, 4, 0xffffffff),
        /would overlap the dynamic table/,
      ],
    ];
    for (const [label, hash, damage, warning] of cases) {
      const fixture = buildElf({
        bits,
        endianness,
        dynsym: standardDynsym(),
        hash,
        sectionHeaders: false,
      });
      const bytes = fixture.bytes.slice();
      damage(fixture, bytes);
      const image = parseDamaged(bytes, `${bits}-${endianness} ${label}`);
      assert.ok(!(image instanceof ElfParseError), label);
      assert.ok(
        image.warnings.some((w) => warning.test(w)),
        `${label}: ${image.warnings.join("\n")}`,
      );
      // Bounded either way, and the real symbols still come out exactly.
      assert.deepEqual(image.functions, expectedDynamic("dynamic"), label);
    }
  }
});

// ----- Truncation and corruption of a real shared library

const damageTarget = findLibc();

/** Offsets worth cutting at: the header, every table's start and end, each string table's start. */
function boundaries(image: ElfImage, bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const le = image.endianness === "little";
  const is64 = image.bits === 64;
  const phoff = is64 ? Number(view.getBigUint64(32, le)) : view.getUint32(28, le);
  const shoff = is64 ? Number(view.getBigUint64(40, le)) : view.getUint32(32, le);
  const phsize = image.segments.length * (is64 ? 56 : 32);
  const shsize = image.sections.length * (is64 ? 64 : 40);
  const points = [
    is64 ? 64 : 52,
    phoff,
    phoff + phsize,
    shoff,
    shoff + Math.floor(image.sections.length / 2) * (is64 ? 64 : 40),
    shoff + shsize,
  ];
  for (const s of image.sections) {
    if (s.typeName === "SHT_SYMTAB" || s.typeName === "SHT_DYNSYM") {
      points.push(s.offset, s.offset + s.size);
    }
    if (s.typeName === "SHT_STRTAB") points.push(s.offset);
  }
  for (const s of image.segments) {
    if (s.typeName === "PT_DYNAMIC") points.push(s.offset, s.offset + s.fileSize);
  }
  const all = new Set<number>();
  for (const p of points) {
    for (const d of [-1, 0, 1]) if (p + d >= 0 && p + d <= bytes.length) all.add(p + d);
  }
  return [...all].sort((a, b) => a - b);
}

testWith(
  { libc: damageTarget !== null },
  "parseElf() survives truncation of libc at every header and table boundary and at 200 random points",
  async () => {
    const bytes = await Deno.readFile(damageTarget!);
    const full = parseElf(bytes);
    const shoff = full.bits === 64
      ? Number(new DataView(bytes.buffer).getBigUint64(40, full.endianness === "little"))
      : new DataView(bytes.buffer).getUint32(32, full.endianness === "little");
    const headerSize = full.bits === 64 ? 64 : 52;
    const seed = 0x5eed_e1f;
    console.log(`truncation seed ${hex(seed)}`);
    const random = mulberry32(seed);
    const points = boundaries(full, bytes);
    for (let i = 0; i < 200; i++) points.push(Math.floor(random() * bytes.length));
    for (const n of points) {
      const result = parseDamaged(bytes.subarray(0, n), `truncated at ${n}`);
      if (n < headerSize) {
        assert.ok(result instanceof ElfParseError, `truncated at ${n}`);
        continue;
      }
      // With the ELF header intact, damage elsewhere never throws.
      assert.ok(!(result instanceof ElfParseError), `truncated at ${n}: ${result}`);
      if (n < bytes.length) {
        assert.ok(result.warnings.length > 0, `no warning when truncated at ${n}`);
      }
    }
    // Cut right before the section headers, PT_DYNAMIC finds the same functions.
    const cut = parseElf(bytes.subarray(0, shoff));
    assert.deepEqual(
      cut.functions.map((f) => [f.address, f.name]),
      full.functions.map((f) => [f.address, f.name]),
    );
    assert.ok(cut.functions.every((f) => f.source === "dynamic" || f.source === "entry"));
  },
);

testWith(
  { libc: damageTarget !== null },
  "parseElf() survives 300 random single- and multi-byte corruptions of libc",
  async () => {
    const bytes = await Deno.readFile(damageTarget!);
    const full = parseElf(bytes);
    const seed = 0xc0ffee;
    console.log(`corruption seed ${hex(seed)}`);
    const random = mulberry32(seed);
    // Most flips land where the parser looks: the ELF header, the program
    // and section header tables, the start of .dynsym and .dynstr, the
    // dynamic section and the hash tables; some anywhere in the file.
    const view = new DataView(bytes.buffer);
    const le = full.endianness === "little";
    const is64 = full.bits === 64;
    const phoff = is64 ? Number(view.getBigUint64(32, le)) : view.getUint32(28, le);
    const shoff = is64 ? Number(view.getBigUint64(40, le)) : view.getUint32(32, le);
    const shsize = full.sections.length * (is64 ? 64 : 40);
    const regions: [number, number][] = [
      [0, 6], // magic, class and byte order: these must throw ElfParseError
      [0, is64 ? 64 : 52],
      [phoff, phoff + full.segments.length * (is64 ? 56 : 32)],
      [shoff, shoff + shsize],
      [shoff, shoff + shsize],
      [0, bytes.length],
    ];
    for (const s of full.segments) {
      if (s.typeName === "PT_DYNAMIC") regions.push([s.offset, s.offset + s.fileSize]);
    }
    for (const s of full.sections) {
      if (["SHT_DYNSYM", "SHT_GNU_HASH", "SHT_HASH", "SHT_STRTAB"].includes(s.typeName)) {
        regions.push([s.offset, s.offset + Math.min(s.size, 1024)]);
      }
    }
    const { thrown, warned } = tallyCorruptions(bytes, regions, {
      random,
      parse: (label) => parseDamaged(bytes, label),
      refusal: ElfParseError,
      warnings: (result) => result.warnings,
    });
    console.log(`${thrown} corruptions threw ElfParseError, ${warned} returned warnings`);
    assert.deepEqual(parseElf(bytes), full);
  },
);

/**
 * An ELF file of `length` bytes whose `count` section headers (at offset 64)
 * alternate SHT_SYMTAB and SHT_STRTAB, each covering the whole file, each
 * symbol table linking to the string table after it. The bytes after the
 * headers repeat one 24-byte symbol: a global function at 0x1000 named by
 * string offset 0x10.
 */
function overlappingTables(count: number, length: number): Uint8Array {
  const shoff = 64;
  const bytes = new Uint8Array(Math.max(length, shoff + count * 64));
  const fixture = { littleEndian: true };
  // Symbol tables start at offset 0, so the pattern is aligned to 24 from there.
  for (let o = Math.ceil((shoff + count * 64) / 24) * 24; o + 24 <= bytes.length; o += 24) {
    poke(fixture, bytes, o, 4, 0x10);
    poke(fixture, bytes, o + 4, 1, 0x12);
    poke(fixture, bytes, o + 6, 2, 1);
    poke(fixture, bytes, o + 8, 8, 0x1000);
    poke(fixture, bytes, o + 16, 8, 8);
  }
  bytes.set(standard({ bits: 64, endianness: "little" }).bytes.subarray(0, 64));
  const l = layoutOf(64);
  poke(fixture, bytes, 32, 8, 0); // no program headers
  poke(fixture, bytes, 56, 2, 0);
  poke(fixture, bytes, l.eShoff, 8, shoff);
  poke(fixture, bytes, l.eShnum, 2, count);
  poke(fixture, bytes, l.eShstrndx, 2, 1);
  for (let i = 0; i < count; i++) {
    const o = shoff + i * 64;
    const symtab = i % 2 === 0;
    poke(fixture, bytes, o + 4, 4, symtab ? 2 : 3);
    poke(fixture, bytes, o + l.shSize, 8, bytes.length);
    poke(fixture, bytes, o + l.shLink, 4, i + 1);
    poke(fixture, bytes, o + l.shEntsize, 8, symtab ? 24 : 0);
  }
  return bytes;
}

Deno.test("parseElf() caps the symbols and string bytes it reads when many section headers claim the whole file", () => {
  // 20 symbol tables of ~43690 entries each, each with its own 1 MiB string
  // table: the symbol limit and the string budget (4x the file size plus
  // 1 MiB) both stop the work.
  const bytes = overlappingTables(40, 1 << 20);
  const image = parseDamaged(bytes, "40 overlapping tables") as ElfImage;
  assert.ok(!(image instanceof ElfParseError));
  const limited = parseElf(bytes, { maxSymbols: 500_000 });
  assert.ok(
    limited.warnings.some((w) => /but only \d+ of the maxSymbols limit of 500000 remain/.test(w)),
    limited.warnings.join("\n"),
  );
  assert.ok(
    image.warnings.some((w) => /got no name from .*more than 4 times its size/.test(w)),
    image.warnings.join("\n"),
  );
  // The pattern's function, named while the budget lasted.
  const f = image.functions.find((f) => f.address === 0x1000n);
  assert.ok(f !== undefined);
  assert.equal(f.size, 8n);
});

Deno.test("parseElf() stays bounded with 4000 overlapping section headers", () => {
  const started = performance.now();
  const image = parseDamaged(overlappingTables(4000, 0), "4000 overlapping tables");
  console.log(`parsed in ${(performance.now() - started).toFixed(0)} ms`);
  assert.ok(!(image instanceof ElfParseError));
  assert.equal(image.sections.length, 4000);
  // Warnings are capped at 100 plus one line counting the rest.
  assert.equal(image.warnings.length, 101);
  assert.match(image.warnings.at(-1)!, /^\d+ more warnings were omitted$/);
});

Deno.test("parseElf() groups and orders 150000 function symbols in shuffled order", () => {
  // Enough symbols for the radix-sort path. Symbol i sits at TEXT + 16 *
  // (i % 100000) in a shuffled order, so 50000 addresses have two names.
  const count = 150_000;
  const random = mulberry32(42);
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const symtab = order.map((i) => ({
    name: `f${i}`,
    value: TEXT + 16 * (i % 100_000),
    size: 16,
    type: STT_FUNC,
    bind: STB_GLOBAL,
    section: "text" as const,
  }));
  for (const bits of [32, 64] as const) {
    const image = parseElf(buildElf({ bits, endianness: "big", symtab }).bytes);
    assert.deepEqual(image.warnings, []);
    assert.equal(image.functions.length, 100_000);
    image.functions.forEach((f, k) => {
      assert.equal(f.address, BigInt(TEXT + 16 * k));
      const names = k < 50_000 ? [`f${k}`, `f${k + 100_000}`].sort() : [`f${k}`];
      assert.deepEqual(f.names, names);
      // Same binding and source: the shorter name wins.
      assert.equal(f.name, `f${k}`);
    });
  }
});
