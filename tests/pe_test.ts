/**
 * Tests for the PE reader: exact results on synthetic PE32 and PE32+ images
 * (i386, ARMNT, AMD64, ARM64) built by `pe_fixtures.ts`, agreement with
 * `llvm-readobj-14`, `llvm-objdump-14` and binutils `objdump` on those
 * images and on real Windows executables from pinned npm packages, and
 * bounded, typed failure on damaged input.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env --allow-net
 * tests/pe_test.ts`. Tests that need a missing program or an unavailable
 * fixture are ignored with the reason printed.
 */

import assert from "node:assert/strict";
import { hasProgram } from "./helpers/programs.ts";
import { addressToOffset, type BinaryImage } from "../src/apps/formats/binary_image.ts";
import { isPe } from "../src/apps/formats/pe/headers.ts";
import { parsePe } from "../src/apps/formats/pe/parse.ts";
import { peImage } from "../src/apps/formats/pe/image.ts";
import {
  type PeExport,
  type PeFile,
  type PeImportLibrary,
  PeParseError,
  type PeRuntimeFunction,
} from "../src/apps/formats/pe/model.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import {
  buildPe,
  CODE,
  DELAY_IMPORTS,
  DLL_NAME,
  E_LFANEW,
  EXPORT_BASE,
  type FixtureMachine,
  FORWARDER,
  IMPORTS,
  LONG_SECTION_NAME,
  MACHINE_CODES,
  PDATA,
  PDB_AGE,
  PDB_GUID,
  PDB_PATH,
  type PeFixture,
  poke,
  SYMBOL_NAME,
} from "./pe_fixtures.ts";
import { tallyCorruptions } from "./helpers/corruption.ts";

// ---------------------------------------------------------------------------
// Environment

const READOBJ = "llvm-readobj-14";
const LLVM_OBJDUMP = "llvm-objdump-14";
const OBJDUMP = "objdump";
const hasReadobj = hasProgram(READOBJ);
const hasLlvmObjdump = hasProgram(LLVM_OBJDUMP);
const hasObjdump = hasProgram(OBJDUMP);

/** Registers a test that needs `requirements`, printing why when it is ignored. */
function testWith(
  requirements: Record<string, boolean>,
  name: string,
  fn: () => Promise<void> | void,
): void {
  const missing = Object.entries(requirements).filter(([, ok]) => !ok).map(([p]) => p);
  if (missing.length > 0) {
    console.log(`skip: ${name}: ${missing.join(", ")} not available`);
  }
  Deno.test({ name, ignore: missing.length > 0, fn });
}

async function exec(program: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(program, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  assert.equal(
    out.code,
    0,
    `${program} ${args.join(" ")} failed: ${decoder.decode(out.stderr)}`,
  );
  return decoder.decode(out.stdout);
}

/** Runs `fn` with `bytes` written to a temporary file, removed afterwards. */
async function withFile<T>(bytes: Uint8Array, fn: (path: string) => Promise<T>): Promise<T> {
  const path = await Deno.makeTempFile({ prefix: "casefile-pe-test-", suffix: ".dll" });
  try {
    await Deno.writeFile(path, bytes);
    return await fn(path);
  } finally {
    await Deno.remove(path).catch(() => {});
  }
}

// ---------------------------------------------------------------------------
// Helpers

const hex = (n: bigint | number): string => `0x${n.toString(16)}`;

/** A small fixed-seed PRNG (xorshift32), returning floats in [0, 1). */
function xorshift(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4294967296;
  };
}

/** Asserts that every address and size of `image` is a bigint (or null where allowed). */
function assertBigintAddresses(image: BinaryImage, label: string): void {
  const big = (value: unknown, what: string): void => {
    assert.equal(typeof value, "bigint", `${label}: ${what} is ${typeof value}`);
  };
  if (image.entry !== null) big(image.entry, "entry");
  for (const s of image.sections) {
    big(s.address, `section ${s.name} address`);
    big(s.size, `section ${s.name} size`);
  }
  for (const f of image.functions) {
    big(f.address, "function address");
    big(f.size, "function size");
  }
  for (const i of image.imports) if (i.address !== null) big(i.address, `import ${i.name}`);
  for (const e of image.exports) if (e.address !== null) big(e.address, `export ${e.name}`);
}

interface Damaged {
  pe: PeFile;
  image: BinaryImage;
  milliseconds: number;
}

/**
 * Parses damaged bytes with both entry points: returns the results, or the
 * PeParseError; any other exception fails the test with `label`.
 */
function parseDamaged(
  bytes: Uint8Array,
  label: string,
  maxEntries?: number,
): Damaged | PeParseError {
  const started = performance.now();
  let pe: PeFile;
  try {
    pe = parsePe(bytes, maxEntries === undefined ? {} : { maxEntries });
  } catch (error) {
    if (error instanceof PeParseError) return error;
    throw new Error(`${label}: parsePe threw ${error}`, { cause: error });
  }
  const milliseconds = performance.now() - started;
  let image: BinaryImage;
  try {
    image = peImage(bytes, label);
  } catch (error) {
    throw new Error(`${label}: peImage threw ${error} after parsePe succeeded`, { cause: error });
  }
  assert.equal(typeof pe.imageBase, "bigint", label);
  assertBigintAddresses(image, label);
  if (maxEntries === undefined) assert.deepEqual(image.warnings, pe.warnings, label);
  return { pe, image, milliseconds };
}

function assertParseError(bytes: Uint8Array, message: string | RegExp): PeParseError {
  let caught: unknown;
  try {
    parsePe(bytes);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof PeParseError, `expected PeParseError, got ${caught}`);
  if (typeof message === "string") assert.equal(caught.message, message);
  else assert.match(caught.message, message);
  return caught;
}

function assertWarning(pe: PeFile, pattern: RegExp, label = ""): void {
  assert.ok(
    pe.warnings.some((w) => pattern.test(w)),
    `${label} expected a warning matching ${pattern}, got:\n${pe.warnings.join("\n")}`,
  );
}

// ---------------------------------------------------------------------------
// Expected values for the synthetic images

const MACHINES: readonly FixtureMachine[] = ["i386", "ARMNT", "AMD64", "ARM64"];
const ARCHITECTURE = { i386: "x86", ARMNT: "arm", AMD64: "x86_64", ARM64: "arm64" } as const;

/** ARMNT code addresses, as linkers write them, carry the Thumb bit. */
function thumbBit(fixture: PeFixture): number {
  return fixture.machine === "ARMNT" ? 1 : 0;
}

function expectedExports(fixture: PeFixture): PeExport[] {
  const code = (rva: number): number => rva | thumbBit(fixture);
  return [
    { ordinal: EXPORT_BASE, name: "Alpha", rva: code(CODE.alpha), forwarder: null },
    { ordinal: EXPORT_BASE, name: "AlphaAlias", rva: code(CODE.alpha), forwarder: null },
    { ordinal: EXPORT_BASE + 1, name: "Beta", rva: code(CODE.beta), forwarder: null },
    {
      ordinal: EXPORT_BASE + 2,
      name: "Forwarded",
      rva: fixture.rvas.forwarder,
      forwarder: FORWARDER,
    },
    { ordinal: EXPORT_BASE + 3, name: null, rva: code(CODE.byOrdinal), forwarder: null },
    { ordinal: EXPORT_BASE + 5, name: "DataThing", rva: 0x3000, forwarder: null },
  ];
}

function expectedImports(fixture: PeFixture): PeImportLibrary[] {
  const size = fixture.is64 ? 8 : 4;
  const libraries = [
    ...IMPORTS.map((l) => ({ library: l, delayLoad: false })),
    ...DELAY_IMPORTS.map((l) => ({ library: l, delayLoad: true })),
  ];
  return libraries.map(({ library, delayLoad }) => {
    const iat = fixture.rvas.iat.get(library.name)!;
    return {
      name: library.name,
      delayLoad,
      lookupTableRva: fixture.rvas.ilt.get(library.name)!,
      addressTableRva: iat,
      symbols: library.symbols.map((s, i) =>
        "ordinal" in s
          ? { name: null, hint: null, ordinal: s.ordinal, slotRva: iat + i * size }
          : { name: s.name, hint: s.hint, ordinal: null, slotRva: iat + i * size }
      ),
    };
  });
}

function expectedRuntimeFunctions(fixture: PeFixture): PeRuntimeFunction[] {
  const pe = parsePe(fixture.bytes);
  if (fixture.machine === "i386") return [];
  return PDATA.map((f, i) => ({
    begin: f.begin,
    end: f.end,
    // The unwind words are checked by the peer comparison; here they must be what was written.
    unwindData: pe.runtimeFunctions[i]!.unwindData,
    packed: fixture.machine !== "AMD64" && f.flag !== 0,
  }));
}

// ---------------------------------------------------------------------------
// Synthetic images

Deno.test("isPe() checks the MZ magic, e_lfanew and the PE signature", () => {
  const good = buildPe({ machine: "AMD64" }).bytes;
  assert.equal(isPe(good), true);
  assert.equal(isPe(good.subarray(0, E_LFANEW + 4)), true);
  assert.equal(isPe(good.subarray(0, E_LFANEW + 3)), false);
  assert.equal(isPe(new Uint8Array(0)), false);
  assert.equal(isPe(Uint8Array.of(0x4d, 0x5a)), false);
  const badSignature = good.slice();
  badSignature[E_LFANEW + 2] = 1;
  assert.equal(isPe(badSignature), false);
  const farLfanew = good.slice(0, 512);
  poke(farLfanew, 0x3c, 4, 0x4000);
  assert.equal(isPe(farLfanew), false);
  const elf = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, ...new Array(60).fill(0)]);
  assert.equal(isPe(elf), false);
});

for (const machine of MACHINES) {
  const is64 = machine === "AMD64" || machine === "ARM64";
  const format = is64 ? "PE32+" : "PE32";

  Deno.test(`parsePe() reads a synthetic ${format} ${machine} DLL exactly`, () => {
    const fixture = buildPe({ machine });
    const pe = parsePe(fixture.bytes);
    assert.deepEqual(pe.warnings, []);
    assert.equal(pe.format, format);
    assert.equal(pe.bits, is64 ? 64 : 32);
    assert.equal(pe.machine, MACHINE_CODES[machine]);
    assert.equal(pe.machineName, machine);
    assert.equal(pe.architecture, ARCHITECTURE[machine]);
    assert.equal(pe.characteristics, 0x2002 | (is64 ? 0x20 : 0x100));
    assert.equal(pe.isDll, true);
    assert.equal(pe.timeDateStamp, 0x60000000);
    assert.equal(pe.subsystem, 3);
    assert.equal(pe.subsystemName, "WINDOWS_CUI");
    assert.equal(pe.dllCharacteristics, is64 ? 0x8160 : 0x8140);
    assert.equal(pe.imageBase, is64 ? 0x180000000n : 0x10000000n);
    assert.equal(pe.entryRva, CODE.entry | thumbBit(fixture));
    assert.equal(pe.sectionAlignment, 0x1000);
    assert.equal(pe.fileAlignment, 0x200);
    assert.equal(pe.sizeOfHeaders, 0x400);
    assert.equal(pe.sizeOfImage, machine === "i386" ? 0x5000 : 0x6000);

    const names = [".text", ".rdata", ".data", ...(machine === "i386" ? [] : [".pdata"])];
    names.push(LONG_SECTION_NAME);
    assert.deepEqual(
      pe.sections.map((s) => [s.number, s.name, s.virtualAddress, s.characteristics]),
      names.map((name, i) => [
        i + 1,
        name,
        fixture.sections.get(name)!.rva,
        {
          ".text": 0x60000020,
          ".rdata": 0x40000040,
          ".data": 0xc0000040,
          ".pdata": 0x40000040,
          [LONG_SECTION_NAME]: 0xc0000040,
        }[name],
      ]),
    );
    for (const s of pe.sections) {
      const written = fixture.sections.get(s.name)!;
      assert.deepEqual(
        [s.virtualSize, s.rawDataPointer, s.rawDataSize],
        [written.virtualSize, written.offset, written.rawSize],
        s.name,
      );
    }
    const data = pe.sections.find((s) => s.name === ".data")!;
    assert.deepEqual([data.virtualSize, data.rawDataSize], [0x800, 0x200]);

    assert.equal(pe.dataDirectories.length, 16);
    assert.deepEqual(
      pe.dataDirectories.filter((d) => d.rva !== 0).map((d) => [d.index, d.name, d.rva]),
      [
        [0, "export", fixture.rvas.exportDirectory],
        [1, "import", fixture.rvas.importDirectory],
        ...(fixture.rvas.pdata === null ? [] : [[3, "exception", fixture.rvas.pdata]]),
        [6, "debug", fixture.rvas.debugDirectory],
        [12, "iat", 0x3010],
        [13, "delay-import", fixture.rvas.delayDirectory],
      ],
    );
    assert.equal(pe.dataDirectories[0]!.size, fixture.rvas.exportDirectorySize);

    assert.equal(pe.exportName, DLL_NAME);
    assert.deepEqual(pe.exports, expectedExports(fixture));
    assert.deepEqual(pe.imports, expectedImports(fixture));
    assert.deepEqual(pe.runtimeFunctions, expectedRuntimeFunctions(fixture));
    if (machine === "AMD64") {
      // Each UNWIND_INFO is 4 bytes, placed one after the other in .rdata.
      const first = pe.runtimeFunctions[0]!.unwindData;
      assert.deepEqual(pe.runtimeFunctions.map((f) => f.unwindData - first), [0, 4, 8, 12, 16]);
    }
    if (machine === "ARM64") {
      // Packed: flag | length / 4 << 2 | FrameSize 1 << 23.
      assert.equal(pe.runtimeFunctions[1]!.unwindData, 1 | (8 << 2) | (1 << 23));
      assert.equal(pe.runtimeFunctions[2]!.unwindData, 2 | (4 << 2) | (1 << 23));
    }

    assert.deepEqual(pe.debug, [{
      type: 2,
      typeName: "CODEVIEW",
      sizeOfData: 24 + PDB_PATH.length + 1,
      addressOfRawData: pe.debug[0]!.addressOfRawData,
      pointerToRawData: fixture.offsetOf(pe.debug[0]!.addressOfRawData),
    }]);
    assert.deepEqual(pe.codeView, {
      signature: "RSDS",
      guid: PDB_GUID,
      timestamp: null,
      age: PDB_AGE,
      pdbPath: PDB_PATH,
    });
    assert.equal(pe.buildId, "B9DB443817204967BE7AA4A2C20430FA3");
    assert.deepEqual(pe.symbols, [
      {
        index: 0,
        name: SYMBOL_NAME,
        value: CODE.hidden - 0x1000,
        sectionNumber: 1,
        type: 0x20,
        storageClass: 3,
        auxCount: 1,
      },
      {
        index: 2,
        name: "gdata",
        value: 0,
        sectionNumber: 3,
        type: 0,
        storageClass: 2,
        auxCount: 0,
      },
    ]);
  });

  Deno.test(`peImage() maps a synthetic ${format} ${machine} DLL to a BinaryImage exactly`, () => {
    const fixture = buildPe({ machine });
    const image = peImage(fixture.bytes, "fixture.dll");
    const base = fixture.imageBase;
    const va = (rva: number): bigint => base + BigInt(rva);
    const hasPdata = machine !== "i386";
    const size = (n: number): bigint => (hasPdata ? BigInt(n) : 0n);
    const thunk = is64 ? 8 : 4;
    const iat = (library: string, i: number): bigint =>
      va(fixture.rvas.iat.get(library)! + i * thunk);
    const section = (name: string, w: boolean, x: boolean): BinaryImage["sections"][number] => {
      const s = fixture.sections.get(name)!;
      const fileSize = Math.min(s.rawSize, s.virtualSize);
      return {
        name,
        address: va(s.rva),
        size: BigInt(s.virtualSize),
        fileOffset: s.offset,
        fileSize,
        readable: true,
        writable: w,
        executable: x,
      };
    };
    // Windows runs 32-bit ARM code as Thumb-2 only: every ARMNT function is Thumb.
    const mode = machine === "ARMNT" ? { thumb: true as const } : {};
    const expected: BinaryImage = {
      format: "pe",
      document: "fixture.dll",
      architecture: ARCHITECTURE[machine],
      machine,
      bits: is64 ? 64 : 32,
      endianness: "little",
      entry: va(CODE.entry),
      sections: [
        section(".text", false, true),
        section(".rdata", false, false),
        section(".data", true, false),
        ...(hasPdata ? [section(".pdata", false, false)] : []),
        section(LONG_SECTION_NAME, true, false),
      ],
      functions: [
        {
          address: va(CODE.alpha),
          size: size(0x10),
          name: "Alpha",
          names: ["Alpha", "AlphaAlias"],
          source: "export",
          ...mode,
        },
        {
          address: va(CODE.beta),
          size: size(0x20),
          name: "Beta",
          names: ["Beta"],
          source: "export",
          ...mode,
        },
        {
          address: va(CODE.byOrdinal),
          size: size(0x10),
          name: "",
          names: [],
          source: "export",
          ...mode,
        },
        {
          address: va(CODE.entry),
          size: size(0x20),
          name: "",
          names: [],
          source: "entry",
          ...mode,
        },
        {
          address: va(CODE.hidden),
          size: size(0x20),
          name: SYMBOL_NAME,
          names: [SYMBOL_NAME],
          source: "symtab",
          ...mode,
        },
      ],
      // The fixture has no base relocations.
      codePointers: [],
      imports: [
        { library: "KERNEL32.dll", name: "GetProcAddress", address: iat("KERNEL32.dll", 0) },
        { library: "KERNEL32.dll", name: "ExitProcess", address: iat("KERNEL32.dll", 1) },
        { library: "KERNEL32.dll", name: "#17", address: iat("KERNEL32.dll", 2) },
        { library: "msvcrt.dll", name: "printf", address: iat("msvcrt.dll", 0) },
        { library: "WS2_32.dll", name: "#23", address: iat("WS2_32.dll", 0) },
        { library: "WS2_32.dll", name: "#115", address: iat("WS2_32.dll", 1) },
        { library: "delayed.dll", name: "Later", address: iat("delayed.dll", 0) },
        { library: "delayed.dll", name: "#9", address: iat("delayed.dll", 1) },
      ],
      exports: [
        { name: "Alpha", address: va(CODE.alpha) },
        { name: "AlphaAlias", address: va(CODE.alpha) },
        { name: "Beta", address: va(CODE.beta) },
        { name: "Forwarded", address: null, forwardedTo: FORWARDER },
        { name: `#${EXPORT_BASE + 3}`, address: va(CODE.byOrdinal) },
        { name: "DataThing", address: va(0x3000) },
      ],
      libraries: ["KERNEL32.dll", "msvcrt.dll", "WS2_32.dll", "delayed.dll"],
      buildId: "B9DB443817204967BE7AA4A2C20430FA3",
      warnings: [],
      fileBase: 0,
      // What the writer puts after its sections' raw data (the CodeView record) is overlay.
      overlay: overlayAfter([...fixture.sections.values()], fixture.bytes.length),
      bytes: fixture.bytes,
    };
    assert.deepEqual(image, expected);
    assertBigintAddresses(image, machine);
    // The entry point's bytes are the `ret` the writer put there.
    const at = addressToOffset(image, image.entry!);
    assert.equal(at, fixture.offsetOf(CODE.entry));
    assert.equal(fixture.bytes[at!], 0xc3);
  });
}

Deno.test("parsePe() keeps a /4 section name as stored, with a warning, when there is no string table", () => {
  const pe = parsePe(buildPe({ machine: "AMD64", noSymbols: true }).bytes);
  assert.equal(pe.sections.at(-1)!.name, "/4");
  assert.deepEqual(pe.symbols, []);
  assert.deepEqual(pe.warnings, [
    "1 section name (/4) refers to the COFF string table, which does not hold it; kept as stored",
  ]);
});

Deno.test("parsePe() reads an old virtual-address-based delay-load descriptor", () => {
  const fixture = buildPe({ machine: "i386" });
  const bytes = fixture.bytes.slice();
  const d = fixture.offsetOf(fixture.rvas.delayDirectory);
  const base = Number(fixture.imageBase);
  const view = new DataView(bytes.buffer);
  poke(bytes, d, 4, 0); // attributes: not RVA-based
  for (const field of [4, 8, 12, 16]) {
    poke(bytes, d + field, 4, view.getUint32(d + field, true) + base);
  }
  // The name table's hint/name pointers become virtual addresses too.
  const int = fixture.offsetOf(fixture.rvas.ilt.get("delayed.dll")!);
  poke(bytes, int, 4, view.getUint32(int, true) + base);
  const pe = parsePe(bytes);
  assert.deepEqual(pe.warnings, []);
  assert.deepEqual(pe.imports.at(-1), expectedImports(fixture).at(-1));
});

Deno.test("parsePe() stops at maxEntries with warnings", () => {
  const pe = parsePe(buildPe({ machine: "AMD64" }).bytes, { maxEntries: 2 });
  assertWarning(pe, /the export address table has 6 entries; reading the first 2 \(maxEntries\)/);
  assertWarning(pe, /the exception table \(\.pdata\) has 5 entries; reading the first 2/);
  assertWarning(pe, /Stopped reading imports at the import lookup table of KERNEL32\.dll/);
  assert.equal(pe.runtimeFunctions.length, 2);
  assert.deepEqual(pe.imports[0]!.symbols.map((s) => s.name), ["GetProcAddress", "ExitProcess"]);
  assert.throws(() => parsePe(new Uint8Array(0), { maxEntries: -1 }), RangeError);
});

// ----- Synthetic images against the peers

/** A tree of llvm-readobj's indented `Key {` / `Key [` / `Key: value` output. */
interface Node {
  key: string;
  value: string;
  children: Node[];
}

function parseReadobj(text: string): Node {
  const root: Node = { key: "", value: "", children: [] };
  const stack: Node[] = [root];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    const top = stack.at(-1)!;
    if (line === "}" || line === "]") {
      if (stack.length > 1) stack.pop();
      continue;
    }
    const open = /^([A-Za-z][\w ]*?) ([{[])(?: (.*))?$/.exec(line);
    if (open !== null) {
      const node: Node = { key: open[1]!, value: open[3] ?? "", children: [] };
      top.children.push(node);
      stack.push(node);
      continue;
    }
    const leaf = /^([^:]+):\s?(.*)$/.exec(line);
    top.children.push(
      leaf === null
        ? { key: line, value: "", children: [] }
        : { key: leaf[1]!, value: leaf[2]!, children: [] },
    );
  }
  return root;
}

const all = (node: Node, key: string): Node[] => node.children.filter((c) => c.key === key);
function one(node: Node, key: string): Node {
  const found = node.children.find((c) => c.key === key);
  assert.ok(found !== undefined, `llvm-readobj output has no ${key} under ${node.key}`);
  return found;
}
const field = (node: Node, key: string): string => one(node, key).value;

/** A number as llvm-readobj prints it: `0x…`, decimal, or `… (0x…)` at the end. */
function num(value: string): number {
  const paren = /\((0x[0-9A-Fa-f]+)\)\s*$/.exec(value);
  if (paren !== null) return Number(paren[1]);
  const n = Number(value.trim());
  assert.ok(Number.isFinite(n), `not a number: ${value}`);
  return n;
}

/** Sorted canonical lines, for comparisons that must hold both ways. */
const sorted = (lines: string[]): string[] => [...lines].sort();

/** Compares two lists of canonical entries exactly, printing a short diff on failure. */
function assertSameEntries(ours: string[], theirs: string[], what: string): number {
  const a = sorted(ours);
  const b = sorted(theirs);
  const theirSet = new Set(b);
  const ourSet = new Set(a);
  const missing = b.filter((x) => !ourSet.has(x)).slice(0, 10);
  const extra = a.filter((x) => !theirSet.has(x)).slice(0, 10);
  assert.deepEqual(
    { missing, extra, counts: [a.length, b.length] },
    { missing: [], extra: [], counts: [b.length, b.length] },
    `${what}: we lack ${missing.join("; ")} and have extra ${extra.join("; ")}`,
  );
  return a.length;
}

// -- What llvm-readobj says, as canonical lines

function readobjSections(root: Node): string[] {
  return all(one(root, "Sections"), "Section").map((s) => {
    const name = /^(.*) \([0-9A-F ]+\)$/.exec(field(s, "Name"))![1]!;
    return [
      num(field(s, "Number")),
      name,
      hex(num(field(s, "VirtualSize"))),
      hex(num(field(s, "VirtualAddress"))),
      hex(num(field(s, "RawDataSize"))),
      hex(num(field(s, "PointerToRawData"))),
      hex(num(one(s, "Characteristics").value)),
    ].join(" ");
  });
}
const ourSections = (pe: PeFile): string[] =>
  pe.sections.map((s) =>
    [
      s.number,
      s.name,
      hex(s.virtualSize),
      hex(s.virtualAddress),
      hex(s.rawDataSize),
      hex(s.rawDataPointer),
      hex(s.characteristics),
    ].join(" ")
  );

function readobjImports(root: Node): string[] {
  const lines: string[] = [];
  for (const i of all(root, "Import")) {
    const dll = field(i, "Name");
    lines.push(
      `${dll} ilt=${hex(num(field(i, "ImportLookupTableRVA")))} ` +
        `iat=${hex(num(field(i, "ImportAddressTableRVA")))}`,
    );
    all(i, "Symbol").forEach((s, k) => {
      const m = /^(.*) \((\d+)\)$/.exec(s.value)!;
      lines.push(`${dll} #${k} ${m[1] === "" ? `ordinal ${m[2]}` : `${m[1]} hint ${m[2]}`}`);
    });
  }
  for (const d of all(root, "DelayImport")) {
    const dll = field(d, "Name");
    lines.push(
      `delay ${dll} int=${hex(num(field(d, "ImportNameTable")))} ` +
        `iat=${hex(num(field(d, "ImportAddressTable")))}`,
    );
    all(d, "Import").forEach((s, k) => {
      const m = /^(.*) \((\d+)\)$/.exec(field(s, "Symbol"))!;
      lines.push(`delay ${dll} #${k} ${m[1] === "" ? `ordinal ${m[2]}` : `${m[1]} hint ${m[2]}`}`);
    });
  }
  return lines;
}
function ourImports(pe: PeFile): string[] {
  const lines: string[] = [];
  for (const library of pe.imports) {
    const prefix = library.delayLoad ? `delay ${library.name}` : library.name;
    lines.push(
      `${prefix} ${library.delayLoad ? "int" : "ilt"}=${hex(library.lookupTableRva)} ` +
        `iat=${hex(library.addressTableRva)}`,
    );
    library.symbols.forEach((s, k) => {
      lines.push(
        `${prefix} #${k} ${s.name === null ? `ordinal ${s.ordinal}` : `${s.name} hint ${s.hint}`}`,
      );
      // The slot is the k-th entry of the address table, which the peer names per DLL.
      assert.equal(s.slotRva, library.addressTableRva + k * (pe.bits / 8));
    });
  }
  return lines;
}

/** llvm-readobj --coff-exports: one entry per export address table slot, with one name. */
function compareReadobjExports(root: Node, pe: PeFile): number {
  const theirs = all(root, "Export").map((e) => ({
    ordinal: num(field(e, "Ordinal")),
    name: field(e, "Name"),
    rva: num(field(e, "RVA")),
  }));
  const byOrdinal = new Map<number, PeExport[]>();
  for (const e of pe.exports) {
    byOrdinal.set(e.ordinal, [...(byOrdinal.get(e.ordinal) ?? []), e]);
  }
  const seen = new Set<number>();
  for (const t of theirs) {
    const ours = byOrdinal.get(t.ordinal);
    if (t.rva === 0 && t.name === "") {
      assert.equal(ours, undefined, `ordinal ${t.ordinal} is a gap for llvm-readobj`);
      continue;
    }
    assert.ok(ours !== undefined, `we have no export with ordinal ${t.ordinal}`);
    seen.add(t.ordinal);
    for (const e of ours) assert.equal(e.rva, t.rva, `RVA of ordinal ${t.ordinal}`);
    if (t.name === "") assert.deepEqual(ours.map((e) => e.name), [null]);
    else assert.ok(ours.some((e) => e.name === t.name), `${t.name} at ordinal ${t.ordinal}`);
  }
  assert.deepEqual(
    [...byOrdinal.keys()].filter((o) => !seen.has(o)),
    [],
    "ordinals unknown to llvm",
  );
  return theirs.length;
}

/** llvm-readobj --unwind: x64 StartAddress/EndAddress, ARM64/ARM Function + FunctionLength. */
function readobjUnwind(root: Node, pe: PeFile): string[] {
  const base = pe.imageBase;
  const info = one(root, "UnwindInformation");
  return all(info, "RuntimeFunction").map((f) => {
    if (pe.machine === 0x8664) {
      const start = BigInt(num(field(f, "StartAddress"))) - base;
      const end = BigInt(num(field(f, "EndAddress"))) - base;
      return `${hex(start)}-${hex(end)}`;
    }
    let start = BigInt(num(field(f, "Function"))) - base;
    if (pe.machine === 0x1c4) start &= ~1n;
    const direct = f.children.find((c) => c.key === "FunctionLength");
    const length = direct ?? one(one(f, "ExceptionData"), "FunctionLength");
    return `${hex(start)}-${hex(start + BigInt(num(length.value)))}`;
  });
}
const ourUnwind = (pe: PeFile): string[] =>
  pe.runtimeFunctions.map((f) => `${hex(f.begin)}-${hex(f.end ?? -1)}`);

function compareReadobjHeaders(root: Node, pe: PeFile): void {
  const file = one(root, "ImageFileHeader");
  const optional = one(root, "ImageOptionalHeader");
  assert.equal(num(field(file, "Machine")), pe.machine);
  assert.equal(num(field(file, "SectionCount")), pe.sections.length);
  assert.equal(num(field(file, "TimeDateStamp")), pe.timeDateStamp);
  assert.equal(num(one(file, "Characteristics").value), pe.characteristics);
  assert.equal(num(field(optional, "Magic")), pe.format === "PE32+" ? 0x20b : 0x10b);
  assert.equal(num(field(optional, "AddressOfEntryPoint")), pe.entryRva);
  assert.equal(BigInt(field(optional, "ImageBase")), pe.imageBase);
  assert.equal(num(field(optional, "SectionAlignment")), pe.sectionAlignment);
  assert.equal(num(field(optional, "FileAlignment")), pe.fileAlignment);
  assert.equal(num(field(optional, "SizeOfImage")), pe.sizeOfImage);
  assert.equal(num(field(optional, "SizeOfHeaders")), pe.sizeOfHeaders);
  assert.equal(num(field(optional, "Subsystem")), pe.subsystem);
  assert.equal(num(one(optional, "Characteristics").value), pe.dllCharacteristics);
  // DataDirectory lists RVA then Size for each of the 16 entries, in order.
  const directory = one(optional, "DataDirectory").children.map((c) => num(c.value));
  assert.deepEqual(directory, pe.dataDirectories.flatMap((d) => [d.rva, d.size]));
}

// -- What binutils objdump -p says

interface ObjdumpTables {
  imports: string[];
  exports: string[];
  functions: string[];
}

function parseObjdump(text: string, pe: PeFile): ObjdumpTables {
  const lines = text.split("\n");
  const imports: string[] = [];
  const exports: string[] = [];
  const functions: string[] = [];
  const base = pe.imageBase;
  let mode: "none" | "imports" | "eat" | "names" | "functions" = "none";
  let dll = "";
  let descriptor: string[] = [];
  let k = 0;
  let ordinalBase = 0;
  const eat = new Map<number, string>();
  const namesByIndex = new Map<number, string[]>();
  for (const line of lines) {
    if (line.startsWith("The Import Tables")) mode = "imports";
    else if (line.startsWith("Export Address Table -- Ordinal Base")) {
      mode = "eat";
      ordinalBase = Number(/Ordinal Base (\d+)/.exec(line)![1]);
    } else if (line.startsWith("[Ordinal/Name Pointer] Table")) mode = "names";
    else if (line.startsWith("The Function Table")) mode = "functions";
    else if (/^(The |PE File Base|Sections:|There is)/.test(line)) mode = "none";
    else if (mode === "imports") {
      const d = /^ ([0-9a-f]{8})\t([0-9a-f]{8}) [0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{8} ([0-9a-f]{8})$/
        .exec(line);
      if (d !== null) descriptor = [d[2]!, d[3]!];
      const name = /^\tDLL Name: (.*)$/.exec(line);
      if (name !== null) {
        dll = name[1]!;
        k = 0;
        imports.push(
          `${dll} ilt=${hex(parseInt(descriptor[0]!, 16))} iat=${
            hex(parseInt(descriptor[1]!, 16))
          }`,
        );
      }
      const entry = /^\t([0-9a-f]+)\t\s*([0-9a-f]+)\s+(.*)$/.exec(line);
      if (entry !== null && dll !== "") {
        const thunk = BigInt(`0x${entry[1]}`);
        const ordinalFlag = pe.bits === 64 ? 1n << 63n : 1n << 31n;
        imports.push(
          (thunk & ordinalFlag) !== 0n
            ? `${dll} #${k} ordinal ${thunk & 0xffffn}`
            : `${dll} #${k} ${entry[3]} hint ${Number(entry[2])}`,
        );
        k++;
      }
    } else if (mode === "eat") {
      const m =
        /^\t\[\s*(\d+)\] \+base\[\s*(\d+)\] ([0-9a-f]+) (Export|Forwarder) RVA(?: -- (.*))?$/
          .exec(line);
      if (m !== null) {
        assert.equal(Number(m[2]), ordinalBase + Number(m[1]));
        eat.set(Number(m[1]), `${m[2]} ${hex(parseInt(m[3]!, 16))} ${m[5] ?? "-"}`);
      }
    } else if (mode === "names") {
      const m = /^\t\[\s*(\d+)\] (.*)$/.exec(line);
      if (m !== null) {
        const index = Number(m[1]);
        namesByIndex.set(index, [...(namesByIndex.get(index) ?? []), m[2]!]);
      }
    } else if (mode === "functions") {
      const m = /^ [0-9a-f]+:\t([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+)$/.exec(line);
      if (m !== null) {
        const begin = BigInt(`0x${m[1]}`) - base;
        const end = BigInt(`0x${m[2]}`) - base;
        if (begin !== -base || end !== -base) functions.push(`${hex(begin)}-${hex(end)}`);
      }
    }
  }
  for (const [index, entry] of eat) {
    const names = namesByIndex.get(index) ?? ["(none)"];
    for (const name of names) {
      exports.push(`${entry.split(" ")[0]} ${name} ${entry.split(" ").slice(1).join(" ")}`);
    }
  }
  return { imports, exports, functions };
}

const ourObjdumpImports = (pe: PeFile): string[] =>
  ourImports({ ...pe, imports: pe.imports.filter((l) => !l.delayLoad) });
const ourObjdumpExports = (pe: PeFile): string[] =>
  pe.exports.map((e) => `${e.ordinal} ${e.name ?? "(none)"} ${hex(e.rva)} ${e.forwarder ?? "-"}`);

/** llvm-objdump -p's import tables, as the lines {@linkcode ourImports} writes. */
function parseLlvmObjdumpImports(text: string): string[] {
  const start = text.indexOf("The Import Tables:");
  assert.ok(start >= 0, "llvm-objdump -p printed no import tables");
  const lines: string[] = [];
  let lookup = "";
  let dll = "";
  let k = 0;
  for (const line of text.slice(start).split("\n").slice(1)) {
    const descriptor =
      /^\s+lookup ([0-9a-f]+) time [0-9a-f]+ fwd [0-9a-f]+ name [0-9a-f]+ addr ([0-9a-f]+)$/
        .exec(line);
    if (descriptor !== null) {
      lookup = `ilt=${hex(parseInt(descriptor[1]!, 16))} iat=${hex(parseInt(descriptor[2]!, 16))}`;
      continue;
    }
    const name = /^\s+DLL Name: (.*)$/.exec(line);
    if (name !== null) {
      dll = name[1]!;
      k = 0;
      lines.push(`${dll} ${lookup}`);
      continue;
    }
    if (dll === "" || /Hint\/Ord/.test(line)) continue;
    const named = /^\s+(\d+)\s+(\S.*)$/.exec(line);
    const ordinal = /^\s+(\d+)$/.exec(line);
    if (named !== null) lines.push(`${dll} #${k++} ${named[2]} hint ${Number(named[1])}`);
    else if (ordinal !== null) lines.push(`${dll} #${k++} ordinal ${Number(ordinal[1])}`);
    else if (/^\S/.test(line)) break;
  }
  return lines;
}

/** llvm-objdump -p's export table: ordinal, RVA or forwarder, one name. */
function compareLlvmObjdumpExports(text: string, pe: PeFile): number {
  const start = text.indexOf("Export Table:");
  assert.ok(start >= 0, "llvm-objdump -p printed no export table");
  let compared = 0;
  for (const line of text.slice(start).split("\n").slice(1)) {
    const m = /^\s+(\d+)\s+(0x[0-9a-f]+|0)?\s*(.*?)(?: \(forwarded to (.*)\))?$/.exec(line);
    if (m === null || line.includes("DLL name") || line.includes("Ordinal")) continue;
    const ordinal = Number(m[1]);
    const ours = pe.exports.filter((e) => e.ordinal === ordinal);
    compared++;
    if (m[2] === "0") {
      assert.deepEqual(ours, [], `ordinal ${ordinal} is a gap for llvm-objdump`);
      continue;
    }
    assert.ok(ours.length > 0, `no export with ordinal ${ordinal}`);
    if (m[4] !== undefined) assert.ok(ours.every((e) => e.forwarder === m[4]), `forwarder ${m[4]}`);
    else assert.ok(ours.every((e) => e.forwarder === null && hex(e.rva) === m[2]), line);
    if (m[3] === "") assert.deepEqual(ours.map((e) => e.name), [null]);
    else assert.ok(ours.some((e) => e.name === m[3]), line);
  }
  assert.equal(compared, new Set(pe.exports.map((e) => e.ordinal)).size + 1, "gap included");
  return compared;
}

for (const machine of MACHINES) {
  const x86 = machine === "i386" || machine === "AMD64";
  testWith(
    { [READOBJ]: hasReadobj, [LLVM_OBJDUMP]: hasLlvmObjdump },
    `parsePe() reads the synthetic ${machine} DLL like llvm-readobj-14, llvm-objdump-14` +
      `${x86 ? " and objdump" : ""}`,
    async () => {
      const fixture = buildPe({ machine });
      const pe = parsePe(fixture.bytes);
      await withFile(fixture.bytes, async (path) => {
        const root = parseReadobj(
          await exec(READOBJ, [
            "--file-headers",
            "--sections",
            "--coff-imports",
            "--coff-exports",
            "--coff-debug-directory",
            ...(machine === "i386" ? [] : ["--unwind"]),
            path,
          ]),
        );
        compareReadobjHeaders(root, pe);
        assertSameEntries(ourSections(pe), readobjSections(root), "sections");
        assertSameEntries(ourImports(pe), readobjImports(root), "imports");
        compareReadobjExports(root, pe);
        if (machine !== "i386") {
          assertSameEntries(ourUnwind(pe), readobjUnwind(root, pe), ".pdata");
        }
        const cv = one(one(one(one(root, "DebugDirectory"), "DebugEntry"), "PDBInfo"), "PDBGUID");
        assert.equal(cv.value.replace(/[() ]/g, ""), PDB_GUID_HEX_AS_STORED);
        compareLlvmObjdumpExports(await exec(LLVM_OBJDUMP, ["-p", path]), pe);
        if (x86 && hasObjdump) {
          const text = await exec(OBJDUMP, ["-p", path]);
          const tables = parseObjdump(text, pe);
          assertSameEntries(ourObjdumpImports(pe), tables.imports, "objdump imports");
          assertSameEntries(ourObjdumpExports(pe), tables.exports, "objdump exports");
          if (machine === "AMD64") {
            assertSameEntries(ourUnwind(pe), tables.functions, "objdump function table");
          }
          assert.match(
            text,
            new RegExp(`signature ${PDB_GUID.replaceAll("-", "").toLowerCase()} age ${PDB_AGE}`),
          );
        }
      });
    },
  );
}

const PDB_GUID_HEX_AS_STORED = "3844DBB920176749BE7AA4A2C20430FA";

// ---------------------------------------------------------------------------
// Real executables

interface RealFile {
  label: string;
  spec: string;
  file: string;
  path: string | null;
}

const REAL_FILES: RealFile[] = await Promise.all(
  [
    { label: "7za.exe (x64)", spec: "7zip-bin@5.2.0", file: "win/x64/7za.exe" },
    { label: "7za.exe (ia32)", spec: "7zip-bin@5.2.0", file: "win/ia32/7za.exe" },
    { label: "7za.exe (arm64)", spec: "7zip-bin@5.2.0", file: "win/arm64/7za.exe" },
    { label: "esbuild.exe (x64)", spec: "@esbuild/win32-x64@0.28.2", file: "esbuild.exe" },
  ].map(async (f) => ({ ...f, path: await npmFixture(f.spec, f.file) })),
);

let realMilliseconds = 0;

for (const real of REAL_FILES) {
  testWith(
    { [READOBJ]: hasReadobj, [`${real.spec}/${real.file}`]: real.path !== null },
    `parsePe() reads the headers, sections, imports, exports and .pdata of ${real.label} like llvm-readobj-14`,
    async () => {
      const bytes = await Deno.readFile(real.path!);
      const started = performance.now();
      const pe = parsePe(bytes);
      realMilliseconds += performance.now() - started;
      assert.deepEqual(pe.warnings, []);
      const root = parseReadobj(
        await exec(READOBJ, [
          "--file-headers",
          "--sections",
          "--coff-imports",
          "--coff-exports",
          real.path!,
        ]),
      );
      compareReadobjHeaders(root, pe);
      const sections = assertSameEntries(ourSections(pe), readobjSections(root), "sections");
      const imports = assertSameEntries(ourImports(pe), readobjImports(root), "imports");
      const exports = compareReadobjExports(root, pe);
      let unwind = 0;
      if (pe.machine !== 0x14c) {
        const text = await exec(READOBJ, ["--unwind", real.path!]);
        unwind = assertSameEntries(ourUnwind(pe), readobjUnwind(parseReadobj(text), pe), ".pdata");
      } else {
        assert.deepEqual(pe.runtimeFunctions, []);
      }
      const symbols = pe.imports.reduce((n, l) => n + l.symbols.length, 0);
      console.log(
        `${real.label}: ${bytes.length} bytes; compared with llvm-readobj-14: ${sections} ` +
          `sections, ${imports} import lines (${pe.imports.length} DLLs, ${symbols} symbols), ` +
          `${exports} exports, ${unwind} .pdata entries`,
      );
    },
  );

  if (real.label.includes("arm64")) {
    // GNU objdump here reads no ARM64 PE; llvm-objdump-14 -p does (its .pdata is
    // compared with llvm-readobj-14 --unwind above).
    testWith(
      { [LLVM_OBJDUMP]: hasLlvmObjdump, [`${real.spec}/${real.file}`]: real.path !== null },
      `parsePe() reads the import table of ${real.label} like llvm-objdump-14 -p`,
      async () => {
        const pe = parsePe(await Deno.readFile(real.path!));
        const theirs = parseLlvmObjdumpImports(await exec(LLVM_OBJDUMP, ["-p", real.path!]));
        const imports = assertSameEntries(ourObjdumpImports(pe), theirs, "llvm-objdump imports");
        assert.ok(imports > 0, "llvm-objdump -p listed imports");
        console.log(`${real.label}: compared with llvm-objdump-14 -p: ${imports} import lines`);
      },
    );
    continue;
  }
  testWith(
    {
      [OBJDUMP]: hasObjdump,
      [`${real.spec}/${real.file}`]: real.path !== null,
    },
    `parsePe() reads the import table and .pdata function table of ${real.label} like objdump -p`,
    async () => {
      const bytes = await Deno.readFile(real.path!);
      const pe = parsePe(bytes);
      const tables = parseObjdump(await exec(OBJDUMP, ["-p", real.path!]), pe);
      const imports = assertSameEntries(ourObjdumpImports(pe), tables.imports, "objdump imports");
      const functions = assertSameEntries(ourUnwind(pe), tables.functions, "objdump functions");
      assertSameEntries(ourObjdumpExports(pe), tables.exports, "objdump exports");
      console.log(
        `${real.label}: compared with objdump -p: ${imports} import lines, ${functions} ` +
          `.pdata entries, ${tables.exports.length} exports`,
      );
    },
  );

  testWith(
    { [`${real.spec}/${real.file}`]: real.path !== null },
    `peImage() gives ${real.label} sorted unique functions from .pdata and the entry point, and IAT-slot imports`,
    async () => {
      const bytes = await Deno.readFile(real.path!);
      const pe = parsePe(bytes);
      const image = peImage(bytes, real.label);
      assertBigintAddresses(image, real.label);
      assert.equal(image.format, "pe");
      assert.equal(
        image.architecture,
        { 0x14c: "x86", 0x8664: "x86_64", 0xaa64: "arm64" }[pe.machine],
      );
      for (let i = 1; i < image.functions.length; i++) {
        assert.ok(image.functions[i - 1]!.address < image.functions[i]!.address, `order at ${i}`);
      }
      // Chained entries (UNW_FLAG_CHAININFO) are pieces of their root's function, not starts.
      const starts = new Set(
        pe.runtimeFunctions.filter((f) => f.chain === undefined)
          .map((f) => pe.imageBase + BigInt(f.begin)),
      );
      const entry = pe.imageBase + BigInt(pe.entryRva);
      starts.add(entry);
      // And the import thunks: each a `jmp [slot]` (`ff 25`, or `48 ff 25`) through an IAT slot.
      const slotSet = new Set(
        pe.imports.flatMap((l) => l.symbols.map((s) => pe.imageBase + BigInt(s.slotRva))),
      );
      for (const f of image.functions.filter((f) => f.source === "import-thunk")) {
        const at = addressToOffset(image, f.address)!;
        const rex = bytes[at] === 0x48 ? 1 : 0;
        assert.deepEqual([bytes[at + rex], bytes[at + rex + 1]], [0xff, 0x25]);
        const next = f.address + BigInt(rex + 6);
        const displacement = new DataView(bytes.buffer, bytes.byteOffset).getInt32(
          at + rex + 2,
          true,
        );
        const slot = pe.bits === 64 ? next + BigInt(displacement) : BigInt(displacement >>> 0);
        assert.ok(slotSet.has(slot), hex(f.address));
        assert.equal(f.size, BigInt(rex + 6));
        starts.add(f.address);
      }
      assert.deepEqual(
        image.functions.map((f) => f.address),
        [...starts].sort((a, b) => (a < b ? -1 : 1)),
      );
      const atEntry = image.functions.find((f) => f.address === entry)!;
      assert.equal(atEntry.source, "entry");
      assert.equal(image.entry, entry);
      // The entry point's bytes are in the file, inside an executable section.
      const offset = addressToOffset(image, entry);
      assert.ok(offset !== null && offset > 0 && offset < bytes.length);
      const holder = image.sections.find((s) => entry >= s.address && entry < s.address + s.size)!;
      assert.equal(holder.executable, true);
      const slots = pe.imports.flatMap((l) =>
        l.symbols.map((s) => pe.imageBase + BigInt(s.slotRva))
      );
      // An import with a thunk is called through it; its slot is then in `slots`.
      assert.deepEqual(image.imports.map((i) => i.slots?.[0] ?? i.address), slots);
      for (const i of image.imports.filter((i) => i.slots !== undefined)) {
        assert.equal(image.functions.find((f) => f.address === i.address)?.source, "import-thunk");
      }
      assert.deepEqual(image.libraries, [...new Set(pe.imports.map((l) => l.name))]);
      assert.ok(image.imports.every((i) => i.library !== null && i.name !== ""));
    },
  );
}

const largest = REAL_FILES.filter((f) => f.path !== null).map((f) => ({
  ...f,
  size: Deno.statSync(f.path!).size,
})).sort((a, b) => b.size - a.size)[0];

testWith(
  { "a real executable": largest !== undefined },
  "peImage() performance on the largest real executable (reported, not asserted)",
  async () => {
    const bytes = await Deno.readFile(largest!.path!);
    const times: number[] = [];
    let image: BinaryImage | null = null;
    for (let i = 0; i < 7; i++) {
      const started = performance.now();
      image = peImage(bytes, largest!.label);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    console.log(
      `peImage(${largest!.label}, ${(bytes.length / 1048576).toFixed(1)} MiB): median ` +
        `${times[3]!.toFixed(1)} ms, first ${times.at(-1)!.toFixed(1)} ms over 7 runs; ` +
        `${image!.functions.length} functions, ${image!.imports.length} imports, ` +
        `${image!.sections.length} sections; parsePe in the peer tests took ` +
        `${realMilliseconds.toFixed(1)} ms in total`,
    );
  },
);

// ---------------------------------------------------------------------------
// Bad input

Deno.test("parsePe() rejects empty, tiny and non-PE input with PeParseError", () => {
  assertParseError(new Uint8Array(0), "Cannot parse PE header: file is empty");
  assertParseError(
    Uint8Array.of(0x4d, 0x5a),
    "Cannot parse PE header: file is 2 bytes, the DOS header needs 64",
  );
  assertParseError(
    Uint8Array.of(0x7f, 0x45, 0x4c, 0x46, 2, 1, 1),
    'Cannot parse PE header: bad DOS magic number 7f 45, expected 4d 5a ("MZ")',
  );
  assertParseError(Uint8Array.of(0x4d), /file is 1 bytes, the DOS header needs 64/);
  const far = new Uint8Array(512);
  far.set([0x4d, 0x5a]);
  poke(far, 0x3c, 4, 0x4000);
  const error = assertParseError(
    far,
    "Cannot parse PE header: e_lfanew 0x4000 is past the end of the 512-byte file",
  );
  assert.equal(error.offset, 0x3c);
  poke(far, 0x3c, 4, 0xffffffff);
  assertParseError(far, /e_lfanew 0xffffffff is past the end of the 512-byte file/);
  poke(far, 0x3c, 4, 509);
  assertParseError(far, /e_lfanew 0x1fd is past the end/);
});

Deno.test("parsePe() rejects a bad PE signature, a truncated COFF header and a bad optional header", () => {
  const good = buildPe({ machine: "AMD64" }).bytes;
  const bad = good.slice();
  bad[E_LFANEW + 3] = 1;
  const error = assertParseError(
    bad,
    'Cannot parse PE header: bad signature 50 45 00 01 at e_lfanew 0x80, expected 50 45 00 00 ("PE\\0\\0")',
  );
  assert.equal(error.offset, E_LFANEW);
  assertParseError(
    good.subarray(0, E_LFANEW + 10),
    "Cannot parse PE header: the COFF file header at offset 0x84 runs past the end of the " +
      "138-byte file",
  );
  const noOptional = good.slice();
  poke(noOptional, E_LFANEW + 4 + 16, 2, 0);
  assertParseError(noOptional, /SizeOfOptionalHeader is 0, so this is not an image/);
  const rom = good.slice();
  poke(rom, E_LFANEW + 24, 2, 0x107);
  assertParseError(
    rom,
    "Cannot parse PE optional header: magic is 0x107, expected 0x10b (PE32) or 0x20b (PE32+)",
  );
  assertParseError(
    good.subarray(0, E_LFANEW + 24 + 100),
    "Cannot parse PE optional header: the PE32+ optional header needs 112 bytes at offset 0x98, " +
      "but the file is 252 bytes",
  );
});

Deno.test("parsePe() reads what fits when NumberOfSections is 0xffff in a tiny file", () => {
  const fixture = buildPe({ machine: "AMD64", noSymbols: true });
  const bytes = fixture.bytes.slice(0, 0x400);
  poke(bytes, fixture.coffOffset + 2, 2, 0xffff);
  const result = parseDamaged(bytes, "0xffff sections");
  assert.ok(!(result instanceof PeParseError));
  const fit = Math.floor((0x400 - fixture.sectionTableOffset) / 40);
  assert.equal(result.pe.sections.length, fit);
  assertWarning(
    result.pe,
    new RegExp(
      `Cannot read all 65535 section headers: the table at offset ${
        hex(fixture.sectionTableOffset)
      } runs past the end of the 1024-byte file; reading the ${fit} that fit`,
    ),
  );
  assertWarning(result.pe, /raw data extend past the end of the 1024-byte file/);
  assertWarning(result.pe, /Cannot read the export directory: RVA 0x2000 lies in section \.rdata/);
  assert.ok(result.milliseconds < 1000);
});

Deno.test("parsePe() bounds an export table with NumberOfNames or NumberOfFunctions 0xffffffff", () => {
  const fixture = buildPe({ machine: "AMD64" });
  const directory = fixture.offsetOf(fixture.rvas.exportDirectory);
  const names = fixture.bytes.slice();
  poke(names, directory + 24, 4, 0xffffffff);
  const a = parseDamaged(names, "NumberOfNames 0xffffffff");
  assert.ok(!(a instanceof PeParseError));
  assertWarning(
    a.pe,
    /Cannot read all of the export name pointer table: 4294967295 entries of 4 bytes/,
  );
  assertWarning(a.pe, /Cannot read all of the export ordinal table: 4294967295 entries of 2 bytes/);
  // The real five names are still read; what follows them is damage, skipped with a count.
  for (const e of expectedExports(fixture)) assert.ok(a.pe.exports.some((x) => x.name === e.name));
  assertWarning(
    a.pe,
    /The export table: name table entry pointing past the 6 entries of the export address table, skipped \(\d+ entries\)/,
  );

  const functions = fixture.bytes.slice();
  poke(functions, directory + 20, 4, 0xffffffff);
  const b = parseDamaged(functions, "NumberOfFunctions 0xffffffff");
  assert.ok(!(b instanceof PeParseError));
  assertWarning(b.pe, /Cannot read all of the export address table: 4294967295 entries/);
  assert.ok(b.pe.exports.length < 4096);
  assert.ok(a.milliseconds < 1000 && b.milliseconds < 1000);
});

Deno.test("parsePe() stops an import descriptor chain that never terminates", () => {
  const fixture = buildPe({ machine: "AMD64", slack: 0x10000 });
  const bytes = fixture.bytes.slice();
  // Fill the slack with copies of the first descriptor, and point the directory at it.
  const first = fixture.offsetOf(fixture.rvas.importDirectory);
  const slack = fixture.offsetOf(fixture.rvas.slack);
  const copies = Math.floor(0x10000 / 20);
  for (let i = 0; i < copies; i++) bytes.copyWithin(slack + i * 20, first, first + 20);
  poke(bytes, fixture.optionalOffset + 112 + 8, 4, fixture.rvas.slack);
  const result = parseDamaged(bytes, "endless descriptors");
  assert.ok(!(result instanceof PeParseError));
  assertWarning(
    result.pe,
    new RegExp(
      `The import directory at RVA ${hex(fixture.rvas.slack)} has no null descriptor before ` +
        `the end of its file data; read ${copies} descriptors`,
    ),
  );
  assert.equal(result.pe.imports.filter((l) => !l.delayLoad).length, copies);
  assert.ok(result.pe.imports.every((l) => l.delayLoad || l.name === "KERNEL32.dll"));
  assert.ok(result.milliseconds < 2000, `${result.milliseconds} ms`);
});

Deno.test("parsePe() bounds import lookup tables that never end, are shared, or loop into their descriptors", () => {
  const fixture = buildPe({ machine: "AMD64", slack: 0x10000 });
  const slack = fixture.offsetOf(fixture.rvas.slack);
  const directory = fixture.offsetOf(fixture.rvas.importDirectory);
  const hintName = Number(
    new DataView(fixture.bytes.buffer).getBigUint64(
      fixture.offsetOf(fixture.rvas.ilt.get("KERNEL32.dll")!),
      true,
    ),
  );

  // 1. An ILT of 8192 entries with no null entry, all naming GetProcAddress.
  const endless = fixture.bytes.slice();
  for (let o = slack; o < slack + 0x10000; o += 8) poke(endless, o, 8, hintName);
  poke(endless, directory, 4, fixture.rvas.slack);
  const a = parseDamaged(endless, "endless ILT");
  assert.ok(!(a instanceof PeParseError));
  assertWarning(
    a.pe,
    new RegExp(
      `The import lookup table of KERNEL32\\.dll at RVA ${
        hex(fixture.rvas.slack)
      } has no null entry before the end of its file data; read \\d+ entries`,
    ),
  );
  assert.ok(a.pe.imports[0]!.symbols.length >= 0x10000 / 8);
  assert.ok(a.pe.imports[0]!.symbols.every((s) => s.name === "GetProcAddress"));

  // 2. Many descriptors sharing that endless ILT: the thunk budget (maxEntries) stops the work.
  const shared = endless.slice();
  const table = fixture.offsetOf(fixture.rvas.slack + 0x8000);
  for (let i = 0; i < 1600; i++) {
    shared.copyWithin(table + i * 20, directory, directory + 20);
  }
  poke(shared, fixture.optionalOffset + 112 + 8, 4, fixture.rvas.slack + 0x8000);
  const b = parseDamaged(shared, "shared ILT", 100_000);
  assert.ok(!(b instanceof PeParseError));
  assertWarning(
    b.pe,
    /Stopped reading imports at .*: the import tables add up to more than 100000/,
  );
  const total = b.pe.imports.reduce((n, l) => n + l.symbols.length, 0);
  assert.ok(total <= 100_000, `${total} thunks`);
  assert.ok(b.milliseconds < 2000, `${b.milliseconds} ms`);

  // 3. An ILT that points back at its own descriptor table.
  const looping = fixture.bytes.slice();
  poke(looping, directory, 4, fixture.rvas.importDirectory);
  const c = parseDamaged(looping, "ILT into descriptors");
  assert.ok(!(c instanceof PeParseError));
  assertWarning(
    c.pe,
    /The import lookup tables: hint\/name RVA with no file data, name unknown \(\d+ entries, in KERNEL32\.dll\)/,
  );
  assert.equal(c.pe.imports.length, IMPORTS.length + DELAY_IMPORTS.length);
});

Deno.test("parsePe() warns about RVAs outside any section and in zero-filled parts", () => {
  const fixture = buildPe({ machine: "AMD64" });
  const dirs = fixture.optionalOffset + 112;
  const outside = fixture.bytes.slice();
  poke(outside, dirs, 4, 0x90000); // export directory
  poke(outside, dirs + 6 * 8, 4, 0x3700); // debug directory in .data's zero-filled tail
  poke(outside, fixture.offsetOf(fixture.rvas.importDirectory) + 12, 4, 0x7fff0000); // a DLL name
  const pdata = fixture.offsetOf(fixture.rvas.pdata!);
  poke(outside, pdata + 12 + 8, 4, 0x95000); // unwind info: x64 does not follow it
  const result = parseDamaged(outside, "RVAs outside");
  assert.ok(!(result instanceof PeParseError));
  assert.deepEqual(result.pe.warnings, [
    "Cannot read the export directory: RVA 0x90000 is not inside any section",
    "Cannot read the DLL name of import descriptor 0: RVA 0x7fff0000 is not inside any " +
    "section; it is empty",
    "Cannot read the debug directory: RVA 0x3700 lies in the uninitialized (zero-filled) part " +
    "of section .data",
  ]);
  assert.deepEqual(result.pe.exports, []);
  assert.equal(result.pe.imports[0]!.name, "");
  assert.equal(result.pe.imports[0]!.symbols.length, 3);
  assert.equal(result.pe.codeView, null);
  assert.equal(result.image.buildId, null);
  assert.equal(result.image.libraries[0], "");

  // ARM64 follows .xdata RVAs; one outside gives an unknown length.
  const arm = buildPe({ machine: "ARM64" });
  const bytes = arm.bytes.slice();
  poke(bytes, arm.offsetOf(arm.rvas.pdata!) + 4, 4, 0x99000);
  const r = parseDamaged(bytes, "xdata outside");
  assert.ok(!(r instanceof PeParseError));
  assert.deepEqual(r.pe.warnings, [
    "The exception table: .xdata RVA with no file data, length unknown (1 entry)",
  ]);
  assert.equal(r.pe.runtimeFunctions[0]!.end, null);
  assert.equal(r.image.functions[0]!.size, 0n);
});

Deno.test("parsePe() cuts a forwarder string without a NUL at the end of its section or at 4 KiB", () => {
  for (const text of [FORWARDER, "A".repeat(0x2000)]) {
    // The export directory moves into .slack, whose last bytes are a forwarder string with
    // no NUL; the directory's size covers the string, so entry 2 is a forwarder to it.
    const fixture = buildPe({ machine: "AMD64", slack: 40 + text.length });
    const bytes = fixture.bytes.slice();
    const slack = fixture.sections.get(".slack")!;
    assert.equal(slack.virtualSize, 40 + text.length);
    const directory = fixture.offsetOf(fixture.rvas.exportDirectory);
    bytes.copyWithin(slack.offset, directory, directory + 40);
    const at = slack.rva + 40;
    bytes.set(new TextEncoder().encode(text), slack.offset + 40);
    poke(bytes, fixture.optionalOffset + 112, 4, slack.rva);
    poke(bytes, fixture.optionalOffset + 112 + 4, 4, 40 + text.length);
    const eat = new DataView(bytes.buffer).getUint32(directory + 28, true);
    poke(bytes, fixture.offsetOf(eat) + 2 * 4, 4, at);
    const result = parseDamaged(bytes, `forwarder of ${text.length} bytes`);
    assert.ok(!(result instanceof PeParseError));
    const forwarded = result.pe.exports.find((e) => e.name === "Forwarded")!;
    assert.deepEqual(forwarded, {
      ordinal: EXPORT_BASE + 2,
      name: "Forwarded",
      rva: at,
      forwarder: text.slice(0, 4096),
    });
    assert.deepEqual(result.pe.warnings, [
      "The export table: forwarder string without a NUL within 4096 bytes or the file data, cut " +
      "(1 entry)",
    ]);
    assert.deepEqual(
      result.image.exports.find((e) => e.name === "Forwarded"),
      { name: "Forwarded", address: null, forwardedTo: text.slice(0, 4096) },
    );
  }
});

// ----- Truncation and corruption of a real executable

const damageTarget = REAL_FILES.find((f) => f.label === "7za.exe (x64)")!;

/** File offsets worth cutting at: every header and table boundary, each ±1. */
function boundaries(pe: PeFile, bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lfanew = view.getUint32(0x3c, true);
  const optional = lfanew + 24;
  const optionalSize = view.getUint16(lfanew + 20, true);
  const sectionTable = optional + optionalSize;
  const points = [
    2,
    0x3c,
    64,
    lfanew,
    lfanew + 4,
    optional,
    optional + (pe.bits === 64 ? 112 : 96),
    sectionTable,
    sectionTable + pe.sections.length * 40,
  ];
  for (const s of pe.sections) points.push(s.rawDataPointer, s.rawDataPointer + s.rawDataSize);
  const toOffset = (rva: number): number | null => {
    for (const s of pe.sections) {
      if (rva >= s.virtualAddress && rva < s.virtualAddress + s.rawDataSize) {
        return s.rawDataPointer + (rva - s.virtualAddress);
      }
    }
    return null;
  };
  for (const d of pe.dataDirectories) {
    const at = d.rva === 0 ? null : toOffset(d.rva);
    if (at !== null) points.push(at, at + d.size);
  }
  for (const l of pe.imports) {
    for (const rva of [l.lookupTableRva, l.addressTableRva]) {
      const at = toOffset(rva);
      if (at !== null) points.push(at, at + (l.symbols.length + 1) * (pe.bits / 8));
    }
  }
  const set = new Set<number>();
  for (const p of points) {
    for (const d of [-1, 0, 1]) if (p + d >= 0 && p + d <= bytes.length) set.add(p + d);
  }
  return [...set].sort((a, b) => a - b);
}

testWith(
  { [`${damageTarget.spec}/${damageTarget.file}`]: damageTarget.path !== null },
  "parsePe() survives truncation of 7za.exe (x64) at every header and table boundary and at 200 random points",
  async () => {
    const bytes = await Deno.readFile(damageTarget.path!);
    const full = parsePe(bytes);
    const view = new DataView(bytes.buffer);
    const lfanew = view.getUint32(0x3c, true);
    const headerEnd = lfanew + 24 + 112;
    const dataEnd = Math.max(...full.sections.map((s) => s.rawDataPointer + s.rawDataSize));
    const seed = 0x7e5e_ed01;
    console.log(`truncation seed ${hex(seed)}`);
    const random = xorshift(seed);
    const points = boundaries(full, bytes);
    const boundaryCount = points.length;
    for (let i = 0; i < 200; i++) points.push(Math.floor(random() * bytes.length));
    let thrown = 0;
    let slowest = 0;
    for (const n of points) {
      const result = parseDamaged(bytes.subarray(0, n), `truncated at ${n}`);
      if (n < headerEnd) {
        assert.ok(result instanceof PeParseError, `truncated at ${n}`);
        thrown++;
        continue;
      }
      // With the headers intact, damage elsewhere never throws.
      assert.ok(!(result instanceof PeParseError), `truncated at ${n}: ${result}`);
      slowest = Math.max(slowest, result.milliseconds);
      if (n < dataEnd) {
        assert.ok(result.pe.warnings.length > 0, `no warning when truncated at ${n}`);
      }
    }
    console.log(
      `${boundaryCount} boundary and 200 random cuts: ${thrown} threw PeParseError, the rest ` +
        `returned warnings; slowest parse ${slowest.toFixed(1)} ms`,
    );
  },
);

testWith(
  { [`${damageTarget.spec}/${damageTarget.file}`]: damageTarget.path !== null },
  "parsePe() survives 300 random single- and multi-byte corruptions of 7za.exe (x64)",
  async () => {
    const bytes = await Deno.readFile(damageTarget.path!);
    const full = parsePe(bytes);
    const seed = 0xbadc0de;
    console.log(`corruption seed ${hex(seed)}`);
    const random = xorshift(seed);
    const view = new DataView(bytes.buffer);
    const lfanew = view.getUint32(0x3c, true);
    const sectionTable = lfanew + 24 + view.getUint16(lfanew + 20, true);
    const offsetOf = (rva: number): number => {
      const s = full.sections.find((s) =>
        rva >= s.virtualAddress && rva < s.virtualAddress + s.rawDataSize
      )!;
      return s.rawDataPointer + (rva - s.virtualAddress);
    };
    const imports = full.dataDirectories[1]!;
    const pdata = full.dataDirectories[3]!;
    const regions: [number, number][] = [
      [0, 64], // DOS header: MZ and e_lfanew flips throw PeParseError
      [lfanew, lfanew + 24 + 112], // signature, COFF and fixed optional header
      [lfanew + 24 + 112, sectionTable], // data directories
      [sectionTable, sectionTable + full.sections.length * 40],
      [offsetOf(imports.rva), offsetOf(imports.rva) + imports.size],
      [offsetOf(full.imports[0]!.lookupTableRva), offsetOf(full.imports[0]!.lookupTableRva) + 256],
      [offsetOf(pdata.rva), offsetOf(pdata.rva) + 1024],
      [0, bytes.length],
    ];
    let slowest = 0;
    const { thrown, warned } = tallyCorruptions(bytes, regions, {
      random,
      parse: (label) => parseDamaged(bytes, label),
      refusal: PeParseError,
      warnings: (result) => {
        slowest = Math.max(slowest, result.milliseconds);
        return result.pe.warnings;
      },
    });
    console.log(
      `${thrown} corruptions threw PeParseError, ${warned} returned warnings, the rest parsed ` +
        `cleanly; slowest parse ${slowest.toFixed(1)} ms`,
    );
    assert.deepEqual(parsePe(bytes), full);
  },
);

// ---------------------------------------------------------------------------
// Overlapping sections, built at test time from a real executable

/**
 * 7za.exe (x64) with its last section header turned into a second header for
 * the section that holds the import tables (same address and size), whose
 * raw data points at the first section's bytes instead: the two overlap in
 * memory completely.
 */
function withOverlappingSection(bytes: Uint8Array, importRva: number): {
  patched: Uint8Array;
  holder: string;
} {
  const patched = bytes.slice();
  const view = new DataView(patched.buffer);
  const peOffset = view.getUint32(0x3c, true);
  const count = view.getUint16(peOffset + 6, true);
  const optionalSize = view.getUint16(peOffset + 20, true);
  const table = peOffset + 24 + optionalSize;
  const header = (i: number) => table + i * 40;
  const name = (i: number) =>
    new TextDecoder().decode(patched.subarray(header(i), header(i) + 8)).replace(/\0+$/, "");
  let holder = -1;
  for (let i = 0; i < count; i++) {
    const address = view.getUint32(header(i) + 12, true);
    const size = Math.max(
      view.getUint32(header(i) + 8, true),
      view.getUint32(header(i) + 16, true),
    );
    if (importRva >= address && importRva < address + size) holder = i;
  }
  const last = count - 1;
  assert.ok(holder >= 1 && holder < last, "the import tables lie in a middle section");
  const holderName = name(holder);
  patched.copyWithin(header(last), header(holder), header(holder) + 40);
  patched.set(new TextEncoder().encode(".overlap"), header(last));
  view.setUint32(header(last) + 20, view.getUint32(header(0) + 20, true), true);
  return { patched, holder: holderName };
}

testWith(
  { [`${damageTarget.spec}/${damageTarget.file}`]: damageTarget.path !== null },
  "parsePe() warns about sections that overlap in memory and reads the shared range from the first one",
  async () => {
    const bytes = await Deno.readFile(damageTarget.path!);
    const original = parsePe(bytes);
    assert.deepEqual(original.warnings, []);
    const importRva = original.imports[0]!.lookupTableRva;
    const { patched, holder } = withOverlappingSection(bytes, importRva);
    const pe = parsePe(patched);
    assert.ok(
      pe.warnings.some((w) => /1 section overlaps an earlier one in memory/.test(w)),
      JSON.stringify(pe.warnings),
    );
    // The range both claim is read from the header earlier in the table (the real one).
    assert.deepEqual(ourImports(pe), ourImports(original), `imports read through ${holder}`);
    assert.deepEqual(
      pe.sections.map((s) => s.name).slice(0, -1),
      original.sections.map((s) => s.name).slice(0, -1),
    );
    const image = peImage(patched, "7za-overlap.exe");
    assert.ok(image.warnings.some((w) => w.includes("overlaps an earlier one")));
  },
);

/** What follows every section's raw data in a synthetic file (its headers come first). */
function overlayAfter(
  sections: { offset: number; rawSize: number }[],
  length: number,
): { offset: number; size: number } | null {
  const end = Math.max(...sections.map((s) => s.offset + s.rawSize));
  return end < length ? { offset: end, size: length - end } : null;
}
