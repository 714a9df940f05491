/**
 * Tests for the WebAssembly reader: exact results on synthetic modules
 * written by `wasm_fixtures.ts`, agreement with the engine's own
 * `WebAssembly.Module.imports()` / `exports()`, with `wasm-objdump` (wabt)
 * and with `llvm-objdump-14` / `llvm-readobj-14` on synthetic and real
 * modules from pinned npm packages, and bounded, typed failure on damaged
 * input.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env --allow-net
 * tests/wasm_test.ts`. Tests that need a missing program or package are
 * ignored with the reason printed.
 */

import assert from "node:assert/strict";
import { hasProgram } from "./helpers/programs.ts";
import { mulberry32 } from "./helpers/random.ts";
import type { BinaryImage } from "../src/apps/formats/binary_image.ts";
import { isWasm, parseWasm } from "../src/apps/formats/wasm/parse.ts";
import { wasmImage } from "../src/apps/formats/wasm/image.ts";
import {
  type WasmImport,
  type WasmModule,
  WasmParseError,
  type WasmSectionKind,
} from "../src/apps/formats/wasm/model.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import {
  Bytes,
  codeSection,
  funcType,
  ModuleWriter,
  type StandardModule,
  standardModule,
  uleb,
} from "./wasm_fixtures.ts";
import { CAPSTONE_PACKAGE } from "../src/_vendor/capstone/package.ts";
import { tallyCorruptions } from "./helpers/corruption.ts";

// ---------------------------------------------------------------------------
// Environment

const hasWabt = hasProgram("wasm-objdump");
const hasLlvmObjdump = hasProgram("llvm-objdump-14");
const hasLlvmReadobj = hasProgram("llvm-readobj-14");
const hasShell = hasProgram("sh") && hasProgram("grep");

/** Registers a test that needs `needs`, printing why when it is ignored. */
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

async function exec(program: string, args: string[]): Promise<{
  code: number;
  stdout: string;
  stderr: string;
}> {
  const out = await new Deno.Command(program, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** `program args… file | grep -E pattern`, for outputs too large to take whole. */
async function execFiltered(
  program: string,
  args: string[],
  file: string,
  pattern: string,
): Promise<string> {
  // A failure of `program` shows on stderr; grep finding nothing is no failure.
  const script = `{ "$0" "$@" || echo "exit status $?" >&2; } | grep -E '${pattern}' || true`;
  const result = await exec("sh", ["-c", script, program, ...args, file]);
  assert.equal(result.code, 0, `${program} failed: ${result.stderr}`);
  assert.equal(result.stderr, "", `${program} ${args.join(" ")} ${file}`);
  return result.stdout;
}

// ---------------------------------------------------------------------------
// Fixtures

interface Fixture {
  label: string;
  path: string | null;
}

const REAL: Fixture[] = [
  {
    label: "capstone.wasm",
    path: await npmFixture(CAPSTONE_PACKAGE, "dist/capstone.wasm"),
  },
  {
    label: "index_bg.wasm (gecko-profiler-demangle)",
    path: await npmFixture("gecko-profiler-demangle@0.4.0", "index_bg.wasm"),
  },
  { label: "esbuild.wasm", path: await npmFixture("esbuild-wasm@0.28.2", "esbuild.wasm") },
];
const gecko = REAL[1]!;

const canWriteTmp = Deno.permissions.querySync({ name: "write", path: "/tmp" }).state ===
  "granted";

/** Writes `bytes` to a fixed path in /tmp for the peer tools; returns the path. */
function writeTemp(name: string, bytes: Uint8Array): string {
  const path = `/tmp/casefile-wasm-test-${Deno.pid}-${name}.wasm`;
  Deno.writeFileSync(path, bytes);
  return path;
}

function removeTemp(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Already gone.
  }
}

// ---------------------------------------------------------------------------
// Helpers

const hex = (n: bigint | number): string => `0x${n.toString(16)}`;

/** Section kinds by id, in the order the core specification numbers them (0 to 13). */
const KIND_OF_ID = ("custom type import function table memory global export start element code " +
  "data datacount tag").split(" ") as readonly WasmSectionKind[];

/** Parses damaged bytes: only WasmParseError may escape, and any result must be sane. */
function parseDamaged(bytes: Uint8Array, label: string): WasmModule | WasmParseError {
  let module: WasmModule;
  let image: BinaryImage;
  try {
    module = parseWasm(bytes);
    image = wasmImage(bytes, label);
  } catch (error) {
    if (error instanceof WasmParseError) {
      assert.match(error.message, /^Cannot parse WebAssembly header: /, label);
      return error;
    }
    throw new Error(`${label}: unexpected ${error}`, { cause: error });
  }
  checkImage(image, label);
  assert.deepEqual(image.warnings, module.warnings, label);
  return module;
}

/** Every address is a bigint, functions ascend strictly and lie inside the code section. */
function checkImage(image: BinaryImage, label: string): void {
  assert.ok(image.entry === null || typeof image.entry === "bigint", label);
  for (const s of image.sections) {
    assert.equal(typeof s.address, "bigint", label);
    assert.equal(typeof s.size, "bigint", label);
  }
  let previous = -1n;
  for (const f of image.functions) {
    assert.equal(typeof f.address, "bigint", label);
    assert.equal(typeof f.size, "bigint", label);
    assert.ok(f.address > previous, `${label}: functions not ascending at ${hex(f.address)}`);
    assert.ok(f.address + f.size <= BigInt(image.bytes.length), `${label}: function past EOF`);
    previous = f.address;
  }
  for (const e of image.exports) {
    assert.ok(e.address === null || typeof e.address === "bigint", label);
  }
  // An import's address is its entry, inside the import section.
  const importSection = image.sections.find((s) => s.name === "import");
  for (const i of image.imports) {
    assert.equal(typeof i.address, "bigint", label);
    assert.ok(
      importSection !== undefined && i.address! >= importSection.address &&
        i.address! < importSection.address + importSection.size,
      `${label}: import ${i.name} outside the import section`,
    );
  }
  for (const w of image.warnings) assert.equal(typeof w, "string", label);
}

/** A module of the header and the given raw bytes. */
function raw(...parts: number[][]): Uint8Array {
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...parts.flat()]);
}

/** A section: id, size, contents. */
function section(id: number, contents: number[]): number[] {
  return [id, ...uleb(contents.length), ...contents];
}

function assertWarned(module: WasmModule | WasmParseError, pattern: RegExp, label: string): void {
  assert.ok(!(module instanceof WasmParseError), `${label}: threw ${module}`);
  assert.ok(
    module.warnings.some((w) => pattern.test(w)),
    `${label}: no warning matching ${pattern} in\n${module.warnings.join("\n")}`,
  );
}

/** Runs `fn`, asserting it took less than `ms` milliseconds and grew the heap by less than `mb`. */
function bounded<T>(label: string, ms: number, mb: number, fn: () => T): T {
  const heap = Deno.memoryUsage().heapUsed;
  const started = performance.now();
  const result = fn();
  const elapsed = performance.now() - started;
  const grown = (Deno.memoryUsage().heapUsed - heap) / (1 << 20);
  assert.ok(elapsed < ms, `${label}: took ${elapsed.toFixed(1)} ms`);
  assert.ok(grown < mb, `${label}: heap grew by ${grown.toFixed(1)} MiB`);
  return result;
}

// ---------------------------------------------------------------------------
// Synthetic modules

Deno.test("isWasm() checks the magic number and version 1 only", () => {
  assert.equal(isWasm(raw()), true);
  assert.equal(isWasm(raw([0x01, 0x02])), true);
  assert.equal(isWasm(Uint8Array.of(0x00, 0x61, 0x73, 0x6d)), false);
  assert.equal(isWasm(Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x02, 0, 0, 0)), false);
  assert.equal(isWasm(Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00)), false);
  assert.equal(isWasm(new Uint8Array(0)), false);
  assert.equal(isWasm(Uint8Array.of(0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0)), false);
});

/** Where the import entry encoding `module` and `name` starts, found in the bytes themselves. */
function importEntryAt(bytes: Uint8Array, module: string, name: string): number {
  const enc = new TextEncoder();
  const needle = [module.length, ...enc.encode(module), name.length, ...enc.encode(name)];
  const starts: number[] = [];
  for (let i = 0; i + needle.length <= bytes.length; i++) {
    if (needle.every((b, k) => bytes[i + k] === b)) starts.push(i);
  }
  assert.equal(starts.length, 1, `one import entry for ${module}.${name}`);
  return starts[0]!;
}

/** What parseWasm must return for standardModule(). */
function expectedModule(m: StandardModule, exportedImport: boolean): WasmModule {
  const counts: Record<number, number | null> = {
    1: 5,
    2: 6,
    3: 6,
    4: 1,
    6: 2,
    7: exportedImport ? 10 : 9,
    8: null,
    9: 1,
    10: 6,
    11: 3,
    12: 3,
  };
  const [hello, passive, xyz] = m.data;
  return {
    version: 1,
    sections: m.sections.map((s) => ({
      id: s.id,
      kind: KIND_OF_ID[s.id]!,
      name: s.name,
      headerOffset: s.headerOffset,
      offset: s.offset,
      size: s.size,
      payloadOffset: s.payloadOffset,
      count: counts[s.id] ?? null,
    })),
    types: [
      { index: 0, form: "func", params: [], results: [] },
      { index: 1, form: "func", params: ["i32", "i32"], results: ["i32"] },
      { index: 2, form: "func", params: ["i64"], results: ["f32", "f64"] },
      { index: 3, form: "func", params: ["i32"], results: [] },
      { index: 4, form: "func", params: ["v128", "externref"], results: ["funcref"] },
    ],
    imports: [
      { module: "env", name: "log", kind: "func", index: 0, typeIndex: 3 },
      { module: "env", name: "table", kind: "table", index: 0, typeIndex: null },
      { module: "env", name: "memory", kind: "memory", index: 0, typeIndex: null },
      { module: "env", name: "g", kind: "global", index: 0, typeIndex: null },
      { module: "env", name: "oops", kind: "tag", index: 0, typeIndex: 3 },
      { module: "js glue", name: "add", kind: "func", index: 1, typeIndex: 1 },
    ].map((i): WasmImport => ({
      ...i,
      kind: i.kind as WasmImport["kind"],
      offset: importEntryAt(m.bytes, i.module, i.name),
    })),
    functions: [0, 1, 2, 0, 1, 4].map((typeIndex, i) => ({ index: 2 + i, typeIndex })),
    tableCount: 1,
    memoryCount: 0,
    globalCount: 2,
    tagCount: 0,
    exports: [
      { name: "add_twice", kind: "func", index: 3 },
      { name: "add_twice_alias", kind: "func", index: 3 },
      { name: "multi", kind: "func", index: 4 },
      { name: "exported_only", kind: "func", index: 6 },
      ...(exportedImport ? [{ name: "log_again", kind: "func" as const, index: 0 }] : []),
      { name: "mem", kind: "memory", index: 0 },
      { name: "tbl", kind: "table", index: 1 },
      { name: "counter", kind: "global", index: 1 },
      { name: "oops", kind: "tag", index: 0 },
      { name: "refs", kind: "func", index: 7 },
    ],
    start: 2,
    elementCount: 1,
    dataCount: 3,
    bodies: m.bodies,
    data: [
      { index: 0, mode: "active", memory: 0, memoryOffset: 16n, ...hello! },
      { index: 1, mode: "passive", memory: null, memoryOffset: null, ...passive! },
      { index: 2, mode: "active", memory: 0, memoryOffset: 1024n, ...xyz! },
    ],
    names: {
      module: "synthetic",
      functions: [
        { index: 0, name: "log" },
        { index: 2, name: "start" },
        { index: 3, name: "add_twice" },
        { index: 4, name: "multi_value" },
      ],
      locals: [
        {
          function: 3,
          locals: [{ index: 0, name: "a" }, { index: 1, name: "b" }, { index: 2, name: "sum" }],
        },
        { function: 4, locals: [{ index: 1, name: "x" }] },
      ],
    },
    producers: [
      { name: "language", values: [{ name: "TypeScript", version: "6.0" }] },
      {
        name: "processed-by",
        values: [{ name: "casefile-test", version: "1.0" }, { name: "hand", version: "" }],
      },
    ],
    buildId: "deadbeef0102",
    warnings: [],
  };
}

for (const padding of [0, 5]) {
  const how = padding === 0 ? "minimal" : "5-byte padded";
  Deno.test(
    `parseWasm() reads every part of a synthetic module with ${how} LEB128 sizes exactly`,
    () => {
      const m = standardModule({ padding });
      const module = parseWasm(m.bytes);
      assert.deepEqual(module, expectedModule(m, true));
      const withoutReexport = standardModule({ padding, exportedImport: false });
      assert.deepEqual(parseWasm(withoutReexport.bytes), expectedModule(withoutReexport, false));
    },
  );
}

Deno.test("wasmImage() adapts a synthetic module with file offsets as addresses", () => {
  const m = standardModule();
  const { wasmCode, ...image } = wasmImage(m.bytes, "synthetic.wasm");
  const body = (index: number): bigint => BigInt(m.bodies.find((b) => b.index === index)!.offset);
  // The code map names each defined body and imported function by index.
  assert.equal(wasmCode!.importedFunctions, 2);
  assert.deepEqual(wasmCode!.importNames, ["env.log", "js glue.add"]);
  for (const { index, offset } of m.bodies) {
    assert.equal(wasmCode!.bodyOffsets.get(index), BigInt(offset));
  }
  const size = (index: number): bigint => BigInt(m.bodies.find((b) => b.index === index)!.size);
  const sectionNames = [
    "type",
    "import",
    "function",
    "table",
    "global",
    "export",
    "start",
    "element",
    "datacount",
    "code",
    "data",
    "custom:name",
    "custom:producers",
    "custom:build_id",
    "custom:casefile.note",
  ];
  assert.deepEqual(image, {
    format: "wasm",
    document: "synthetic.wasm",
    architecture: "wasm32",
    machine: "wasm",
    bits: 32,
    endianness: "little",
    entry: body(2),
    sections: m.sections.map((s, i) => ({
      name: sectionNames[i]!,
      address: BigInt(s.offset),
      size: BigInt(s.size),
      fileOffset: s.offset,
      fileSize: s.size,
      readable: true,
      writable: false,
      executable: s.id === 10,
    })),
    functions: [
      { address: body(2), size: size(2), name: "start", names: ["start"], source: "name-section" },
      {
        address: body(3),
        size: size(3),
        name: "add_twice",
        names: ["add_twice", "add_twice_alias"],
        source: "name-section",
      },
      {
        address: body(4),
        size: size(4),
        name: "multi_value",
        names: ["multi", "multi_value"],
        source: "name-section",
      },
      { address: body(5), size: size(5), name: "", names: [], source: "code-section" },
      {
        address: body(6),
        size: size(6),
        name: "exported_only",
        names: ["exported_only"],
        source: "export",
      },
      { address: body(7), size: size(7), name: "refs", names: ["refs"], source: "export" },
    ],
    imports: [
      { library: "env", name: "log", address: BigInt(importEntryAt(m.bytes, "env", "log")) },
      {
        library: "js glue",
        name: "add",
        address: BigInt(importEntryAt(m.bytes, "js glue", "add")),
      },
    ],
    exports: [
      { name: "add_twice", address: body(3) },
      { name: "add_twice_alias", address: body(3) },
      { name: "multi", address: body(4) },
      { name: "exported_only", address: body(6) },
      { name: "log_again", address: null, forwardedTo: "env.log" },
      { name: "refs", address: body(7) },
    ],
    libraries: ["env", "js glue"],
    buildId: "deadbeef0102",
    warnings: [],
    fileBase: 0,
    bytes: m.bytes,
  });
  checkImage({ ...image, wasmCode }, "synthetic");
  // Without a start function or build_id, entry and buildId are null.
  const bare = new ModuleWriter();
  const types = new Bytes().u32(1);
  funcType(types, [], []);
  bare.section(1, types).section(3, [1, 0]).section(
    10,
    codeSection([{ locals: [], code: [] }]).payload,
  );
  const plain = wasmImage(bare.finish().bytes, "bare");
  assert.equal(plain.entry, null);
  assert.equal(plain.buildId, null);
  assert.deepEqual(plain.libraries, []);
  assert.deepEqual(plain.functions.map((f) => [f.name, f.source]), [["", "code-section"]]);
});

// ----- The engine's view

const ENGINE_KINDS: Record<string, string> = {
  func: "function",
  table: "table",
  memory: "memory",
  global: "global",
  tag: "tag",
};

/** Compares with WebAssembly.Module.imports()/exports(); returns the number of entries compared. */
function compareWithEngine(bytes: Uint8Array, label: string): number {
  const module = parseWasm(bytes);
  const compiled = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  const engineImports = WebAssembly.Module.imports(compiled).map((i) => ({
    module: i.module,
    name: i.name,
    kind: i.kind as string,
  }));
  const engineExports = WebAssembly.Module.exports(compiled).map((e) => ({
    name: e.name,
    kind: e.kind as string,
  }));
  assert.deepEqual(
    module.imports.map((i) => ({ module: i.module, name: i.name, kind: ENGINE_KINDS[i.kind]! })),
    engineImports,
    `${label}: imports`,
  );
  assert.deepEqual(
    module.exports.map((e) => ({ name: e.name, kind: ENGINE_KINDS[e.kind]! })),
    engineExports,
    `${label}: exports`,
  );
  // The image lists exactly the function imports and exports.
  const image = wasmImage(bytes, label);
  assert.deepEqual(
    image.imports.map((i) => `${i.library}.${i.name}`),
    engineImports.filter((i) => i.kind === "function").map((i) => `${i.module}.${i.name}`),
  );
  assert.deepEqual(
    image.exports.map((e) => e.name),
    engineExports.filter((e) => e.kind === "function").map((e) => e.name),
  );
  return engineImports.length + engineExports.length;
}

Deno.test("parseWasm() agrees with WebAssembly.Module.imports() and exports() on synthetic modules", () => {
  for (const padding of [0, 5]) {
    for (const exportedImport of [true, false]) {
      const n = compareWithEngine(
        standardModule({ padding, exportedImport }).bytes,
        `synthetic padding ${padding}`,
      );
      assert.equal(n, exportedImport ? 16 : 15);
    }
  }
});

for (const fixture of REAL) {
  testWith(
    { [fixture.label]: fixture.path !== null },
    `parseWasm() agrees with WebAssembly.Module.imports() and exports() on ${fixture.label}`,
    async () => {
      const bytes = await Deno.readFile(fixture.path!);
      const n = compareWithEngine(bytes, fixture.label);
      console.log(`${fixture.label}: ${n} imports and exports agree with the engine`);
    },
  );
}

// ----- wasm-objdump (wabt)

const WABT_SECTION_NAMES: Record<WasmSectionKind, string> = {
  custom: "Custom",
  type: "Type",
  import: "Import",
  function: "Function",
  table: "Table",
  memory: "Memory",
  global: "Global",
  export: "Export",
  start: "Start",
  element: "Elem",
  code: "Code",
  data: "Data",
  datacount: "DataCount",
  tag: "Tag",
  unknown: "?",
};

/**
 * Compares everything wasm-objdump prints about `path` with the reader:
 * `-h` (every section's kind, name, start, end, size and count), `-x`
 * (imports with their per-kind index, signature and `module.field`; the
 * function section's signatures and names; exports; the start function;
 * each body's size; data segments; the name section's module, function and
 * local names) and `-d` (each body's offset and local count). Lists are
 * compared whole, so an entry missing on either side fails. Returns the
 * number of entries compared.
 */
async function compareWithWabt(path: string, label: string): Promise<number> {
  const bytes = await Deno.readFile(path);
  const module = parseWasm(bytes);
  const image = wasmImage(bytes, label);
  assert.deepEqual(module.warnings, [], label);
  const [headers, details, disassembly] = await Promise.all([
    exec("wasm-objdump", ["-h", path]),
    exec("wasm-objdump", ["-x", path]),
    execFiltered("wasm-objdump", ["-d"], path, "^[0-9a-f]+ func\\[|[|] local\\["),
  ]);
  assert.equal(headers.code, 0, headers.stderr);
  assert.equal(details.code, 0, details.stderr);
  let compared = 0;

  // -h
  const wabtSections: string[] = [];
  for (const line of headers.stdout.split("\n")) {
    const m =
      /^\s*(\w+) start=0x([0-9a-f]+) end=0x([0-9a-f]+) \(size=0x([0-9a-f]+)\)(?: count: (\d+)| start: (\d+)| "(.*)")?$/
        .exec(line);
    if (m === null) continue;
    const [, name, start, end, size, count, startFn, custom] = m;
    wabtSections.push(
      [
        name,
        parseInt(start!, 16),
        parseInt(end!, 16),
        parseInt(size!, 16),
        count ?? startFn ?? `"${custom}"`,
      ].join(" "),
    );
  }
  const ourSections = module.sections.map((s) =>
    [
      WABT_SECTION_NAMES[s.kind],
      s.offset,
      s.offset + s.size,
      s.size,
      s.kind === "start" ? module.start : s.kind === "custom" ? `"${s.name}"` : s.count,
    ].join(" ")
  );
  assert.deepEqual(ourSections, wabtSections, `${label}: wasm-objdump -h`);
  compared += wabtSections.length;

  // -x, split into its "Name[count]:" / "Name:" blocks.
  const blocks = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of details.stdout.split("\n")) {
    const head = /^(\w+)(?:\[\d+\])?:$/.exec(line);
    if (head !== null) {
      current = [];
      const key = head[1] === "Custom" ? `Custom#${blocks.size}` : head[1]!;
      blocks.set(key, current);
    } else if (line.startsWith(" - ")) current.push(line);
  }
  const block = (name: string): string[] => blocks.get(name) ?? [];

  const wabtImports = block("Import").map((line) => {
    const m = /^ - (func|table|memory|global|tag)\[(\d+)\](.*) <- (.*)$/.exec(line);
    assert.ok(m !== null, `${label}: unexpected import line ${line}`);
    const sig = /^ sig=(\d+)/.exec(m[3]!);
    return `${m[1]} ${m[2]} ${sig === null ? "-" : sig[1]} ${m[4]}`;
  });
  const ourImports = module.imports.map((i) =>
    `${i.kind} ${i.index} ${i.typeIndex ?? "-"} ${i.module}.${i.name}`
  );
  assert.deepEqual(ourImports, wabtImports, `${label}: wasm-objdump -x imports`);
  compared += wabtImports.length;

  // Function section: index, signature, and the name wabt gives it (the name
  // section's, else the first export's), which is the image's name.
  const nameAt = new Map(image.functions.map((f, i) => [module.bodies[i]!.index, f.name]));
  const wabtFunctions = block("Function").map((line) => {
    const m = /^ - func\[(\d+)\] sig=(\d+)(?: <(.*)>)?$/.exec(line);
    assert.ok(m !== null, `${label}: unexpected function line ${line}`);
    return `${m[1]} ${m[2]} ${m[3] ?? ""}`;
  });
  const ourFunctions = module.functions.map((f) =>
    `${f.index} ${f.typeIndex} ${nameAt.get(f.index) ?? ""}`
  );
  assert.deepEqual(ourFunctions, wabtFunctions, `${label}: wasm-objdump -x functions`);
  compared += wabtFunctions.length;

  const wabtExports = block("Export").map((line) => {
    const m = /^ - (func|table|memory|global|tag)\[(\d+)\](?: <.*>)? -> "(.*)"$/.exec(line);
    assert.ok(m !== null, `${label}: unexpected export line ${line}`);
    return `${m[1]} ${m[2]} ${m[3]}`;
  });
  const ourExports = module.exports.map((e) => `${e.kind} ${e.index} ${e.name}`);
  assert.deepEqual(ourExports, wabtExports, `${label}: wasm-objdump -x exports`);
  compared += wabtExports.length;

  const wabtStart = block("Start").map((line) => /^ - start function: (\d+)/.exec(line)?.[1]);
  assert.deepEqual(module.start === null ? [] : [String(module.start)], wabtStart, label);
  compared += wabtStart.length;

  const wabtCode = block("Code").map((line) => {
    const m = /^ - func\[(\d+)\] size=(\d+)(?: <.*>)?$/.exec(line);
    assert.ok(m !== null, `${label}: unexpected code line ${line}`);
    return `${m[1]} ${m[2]}`;
  });
  assert.deepEqual(
    module.bodies.map((b) => `${b.index} ${b.size}`),
    wabtCode,
    `${label}: wasm-objdump -x code`,
  );
  compared += wabtCode.length;

  const wabtData = block("Data").flatMap((line) => {
    const m =
      /^ - segment\[(\d+)\] (?:memory=(\d+)|(passive)) size=(\d+)(?: - init i(?:32|64)=(-?\d+))?/
        .exec(line);
    return m === null ? [] : [`${m[1]} ${m[3] ?? `memory ${m[2]}`} ${m[4]} ${m[5] ?? "-"}`];
  });
  const ourData = module.data.map((d) =>
    `${d.index} ${d.mode === "passive" ? "passive" : `memory ${d.memory}`} ${d.size} ${
      d.memoryOffset ?? "-"
    }`
  );
  assert.deepEqual(ourData, wabtData, `${label}: wasm-objdump -x data`);
  compared += wabtData.length;

  // The name section, when there is one.
  const nameBlock = [...blocks].find(([key, lines]) =>
    key.startsWith("Custom#") && lines[0] === ' - name: "name"'
  )?.[1];
  if (nameBlock !== undefined || module.names !== null) {
    const wabtNames = (nameBlock ?? []).slice(1);
    const names = module.names!;
    const ourNames = [
      ...(names.module === null ? [] : [` - module <${names.module}>`]),
      ...names.functions.map((f) => ` - func[${f.index}] <${f.name}>`),
      ...names.locals.flatMap((g) =>
        g.locals.map((l) => ` - func[${g.function}] local[${l.index}] <${l.name}>`)
      ),
    ];
    assert.deepEqual(ourNames, wabtNames, `${label}: wasm-objdump -x name section`);
    compared += wabtNames.length;
  }

  // -d: body offsets, and local counts from the `local[a..b] type=t` lines.
  // (wabt numbers the locals from the wrong signature when tags are
  // imported, so only the count of each range is compared.)
  const wabtBodies: string[] = [];
  let locals = 0;
  let head: string | null = null;
  for (const line of disassembly.split("\n")) {
    const f = /^([0-9a-f]+) func\[(\d+)\](?: <.*>)?:$/.exec(line);
    if (f !== null) {
      if (head !== null) wabtBodies.push(`${head} ${locals}`);
      head = `${f[2]} ${parseInt(f[1]!, 16)}`;
      locals = 0;
      continue;
    }
    const l = /\| local\[(\d+)(?:\.\.(\d+))?\] type=/.exec(line);
    if (l !== null) locals += l[2] === undefined ? 1 : Number(l[2]) - Number(l[1]) + 1;
  }
  if (head !== null) wabtBodies.push(`${head} ${locals}`);
  assert.deepEqual(
    module.bodies.map((b) => `${b.index} ${b.offset} ${b.localCount}`),
    wabtBodies,
    `${label}: wasm-objdump -d`,
  );
  compared += wabtBodies.length;
  return compared;
}

testWith(
  { "wasm-objdump": hasWabt, "sh and grep": hasShell, "write access to /tmp": canWriteTmp },
  "parseWasm() matches wasm-objdump -h, -x and -d on synthetic modules",
  async () => {
    for (const padding of [0, 5]) {
      const path = writeTemp(`wabt-${padding}`, standardModule({ padding }).bytes);
      try {
        const n = await compareWithWabt(path, `synthetic (padding ${padding})`);
        console.log(`synthetic (padding ${padding}): ${n} entries agree with wasm-objdump`);
      } finally {
        removeTemp(path);
      }
    }
  },
);

for (const fixture of REAL) {
  testWith(
    { "wasm-objdump": hasWabt, "sh and grep": hasShell, [fixture.label]: fixture.path !== null },
    `parseWasm() matches wasm-objdump -h, -x and -d on ${fixture.label}`,
    async () => {
      const started = performance.now();
      const n = await compareWithWabt(fixture.path!, fixture.label);
      console.log(
        `${fixture.label}: ${n} entries agree with wasm-objdump ` +
          `(${((performance.now() - started) / 1000).toFixed(1)} s)`,
      );
    },
  );
}

// ----- LLVM

const LLVM_SECTION_NAMES: Partial<Record<WasmSectionKind, string>> = {
  type: "TYPE",
  import: "IMPORT",
  function: "FUNCTION",
  table: "TABLE",
  memory: "MEMORY",
  global: "GLOBAL",
  export: "EXPORT",
  start: "START",
  element: "ELEM",
  code: "CODE",
  data: "DATA",
  datacount: "DATACOUNT",
  tag: "TAG",
};

/** The unsigned LEB128 at `at`: its value and the offset after it (at most 5 bytes). */
function readUleb(bytes: Uint8Array, at: number): { value: number; end: number } {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    const b = bytes[at + i]!;
    value += (b & 0x7f) * 2 ** (7 * i);
    if (b < 0x80) return { value, end: at + i + 1 };
  }
  throw new Error(`no LEB128 at ${at}`);
}

/**
 * Compares `llvm-objdump-14 -h` (index, name, size, TEXT/DATA type of every
 * section; LLVM's size of a custom section excludes its name),
 * `llvm-readobj-14 --sections` (id, size, header offset and custom name of
 * every section; size and memory offset of every data segment) and
 * `llvm-objdump-14 -d` (each function's label, which is the code-section
 * offset of its body size, its name and its `.local` list). Returns the
 * number of entries compared, or null when LLVM 14 rejects the module
 * because it re-exports an import (which LLVM 14 does not support).
 */
async function compareWithLlvm(path: string, label: string): Promise<number | null> {
  const bytes = await Deno.readFile(path);
  const module = parseWasm(bytes);
  const image = wasmImage(bytes, label);
  const [objdump, readobj, disassembly] = await Promise.all([
    exec("llvm-objdump-14", ["-h", path]),
    exec("llvm-readobj-14", ["--sections", path]),
    exec("llvm-objdump-14", ["-d", path]),
  ]);
  if (objdump.code !== 0 && /invalid function export/.test(objdump.stderr)) {
    // LLVM 14 requires every exported function to be defined.
    const imported = module.imports.filter((i) => i.kind === "func").length;
    assert.ok(
      module.exports.some((e) => e.kind === "func" && e.index < imported),
      `${label}: LLVM says "invalid function export", but no export is an import`,
    );
    return null;
  }
  for (const r of [objdump, readobj, disassembly]) assert.equal(r.code, 0, r.stderr);
  let compared = 0;

  const llvmHeaders: string[] = [];
  for (const line of objdump.stdout.split("\n")) {
    const m = /^\s*(\d+) (\S+)\s+([0-9a-f]{8}) ([0-9a-f]{8})\s*(TEXT|DATA)?\s*$/.exec(line);
    if (m !== null) {
      llvmHeaders.push(`${m[1]} ${m[2]} ${parseInt(m[3]!, 16)} ${m[4]} ${m[5] ?? ""}`);
    }
  }
  const ourHeaders = module.sections.map((s, i) => {
    const name = s.kind === "custom" ? s.name : LLVM_SECTION_NAMES[s.kind];
    const size = s.size - (s.payloadOffset - s.offset);
    const type = s.kind === "code" ? "TEXT" : s.kind === "data" ? "DATA" : "";
    return `${i} ${name} ${size} 00000000 ${type}`;
  });
  assert.deepEqual(ourHeaders, llvmHeaders, `${label}: llvm-objdump-14 -h`);
  compared += llvmHeaders.length;

  const llvmSections: string[] = [];
  const llvmSegments: string[] = [];
  let inSegments = false;
  let segmentSize: string | null = null;
  let sectionLine: string | null = null;
  for (const line of readobj.stdout.split("\n")) {
    let m: RegExpExecArray | null;
    if ((m = /^ {4}Type: \S+ \((0x[0-9A-F]+)\)$/.exec(line)) !== null) {
      if (sectionLine !== null) llvmSections.push(sectionLine);
      sectionLine = `${parseInt(m[1]!, 16)}`;
      inSegments = false;
    } else if ((m = /^ {4}(Size|Offset|Name): (.*)$/.exec(line)) !== null) {
      sectionLine += ` ${m[2]}`;
    } else if (/^ {4}Segments \[$/.test(line)) inSegments = true;
    else if (inSegments && (m = /^ {8}Size: (\d+)$/.exec(line)) !== null) segmentSize = m[1]!;
    else if (inSegments && (m = /^ {8}Offset: (\d+)$/.exec(line)) !== null) {
      llvmSegments.push(`${segmentSize} ${m[1]}`);
    }
  }
  if (sectionLine !== null) llvmSections.push(sectionLine);
  const ourSections = module.sections.map((s) =>
    `${s.id} ${s.size - (s.payloadOffset - s.offset)} ${s.headerOffset}` +
    (s.kind === "custom" ? ` ${s.name}` : "")
  );
  assert.deepEqual(ourSections, llvmSections, `${label}: llvm-readobj-14 --sections`);
  compared += llvmSections.length;
  // LLVM shows 0 as the offset of a passive segment.
  const ourSegments = module.data.map((d) => `${d.size} ${d.memoryOffset ?? 0n}`);
  assert.deepEqual(ourSegments, llvmSegments, `${label}: llvm-readobj-14 data segments`);
  compared += llvmSegments.length;

  // llvm-objdump -d: `XXXXXXXX <name>:` per function, then `.local t, t, …`
  // when it declares locals.
  const code = module.sections.find((s) => s.kind === "code")!;
  const llvmBodies: string[] = [];
  let head: string | null = null;
  let locals = 0;
  for (const line of disassembly.stdout.split("\n")) {
    const f = /^([0-9a-f]{8}) <(.*)>:$/.exec(line);
    if (f !== null) {
      if (head !== null) llvmBodies.push(`${head} ${locals}`);
      head = f[2] === "CODE" ? null : `${parseInt(f[1]!, 16)} ${f[2]}`;
      locals = 0;
      continue;
    }
    const l = /^\s+\.local (.*)$/.exec(line);
    if (l !== null) locals = l[1]!.split(",").length;
  }
  if (head !== null) llvmBodies.push(`${head} ${locals}`);
  // Our body offset minus the size field before it, relative to the section.
  const ourBodies = module.bodies.map((b, i) => {
    const sizeAt = i === 0
      ? readUleb(bytes, code.offset).end
      : module.bodies[i - 1]!.offset + module.bodies[i - 1]!.size;
    const size = readUleb(bytes, sizeAt);
    assert.deepEqual([size.value, size.end], [b.size, b.offset], `${label}: body ${b.index}`);
    const name = module.names?.functions.find((n) => n.index === b.index)?.name ?? "";
    return `${sizeAt - code.offset} ${name} ${b.localCount}`;
  });
  assert.deepEqual(ourBodies, llvmBodies, `${label}: llvm-objdump-14 -d`);
  compared += llvmBodies.length;
  assert.equal(image.functions.length, llvmBodies.length);
  return compared;
}

testWith(
  {
    "llvm-objdump-14": hasLlvmObjdump,
    "llvm-readobj-14": hasLlvmReadobj,
    "write access to /tmp": canWriteTmp,
  },
  "parseWasm() matches llvm-objdump-14 -h and -d and llvm-readobj-14 --sections on synthetic modules",
  async () => {
    for (const padding of [0, 5]) {
      for (const exportedImport of [false, true]) {
        const m = standardModule({ padding, exportedImport });
        const path = writeTemp(`llvm-${padding}-${exportedImport}`, m.bytes);
        try {
          const label = `synthetic (padding ${padding}${exportedImport ? ", re-export" : ""})`;
          const n = await compareWithLlvm(path, label);
          if (exportedImport) assert.equal(n, null, "LLVM 14 should reject the re-export");
          else {
            assert.ok(n !== null && n > 0);
            console.log(`${label}: ${n} entries agree with LLVM`);
          }
        } finally {
          removeTemp(path);
        }
      }
    }
  },
);

for (const fixture of REAL) {
  testWith(
    {
      "llvm-objdump-14": hasLlvmObjdump,
      "llvm-readobj-14": hasLlvmReadobj,
      [fixture.label]: fixture.path !== null,
    },
    `parseWasm() matches llvm-objdump-14 -h and -d and llvm-readobj-14 --sections on ${fixture.label}`,
    async () => {
      const n = await compareWithLlvm(fixture.path!, fixture.label);
      console.log(
        n === null
          ? `${fixture.label}: LLVM 14 rejects it ("invalid function export": it re-exports an ` +
            `import, which the reader confirms); nothing compared`
          : `${fixture.label}: ${n} entries agree with LLVM`,
      );
    },
  );
}

// ---------------------------------------------------------------------------
// Damaged input

Deno.test("parseWasm() rejects an empty file, a bare magic number and other versions with WasmParseError", () => {
  const cases: [string, Uint8Array, RegExp, number][] = [
    ["empty", new Uint8Array(0), /^Cannot parse WebAssembly header: file is empty$/, 0],
    [
      "magic only",
      Uint8Array.of(0x00, 0x61, 0x73, 0x6d),
      /^Cannot parse WebAssembly header: file is 4 bytes, needs at least 8$/,
      4,
    ],
    [
      "half a magic number",
      Uint8Array.of(0x00, 0x61),
      /^Cannot parse WebAssembly header: file is 2 bytes, needs at least 8$/,
      2,
    ],
    [
      "an ELF file",
      Uint8Array.of(0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0),
      /^Cannot parse WebAssembly header: bad magic number 7f 45 4c 46, expected 00 61 73 6d/,
      0,
    ],
    [
      "version 2",
      Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x02, 0, 0, 0),
      /^Cannot parse WebAssembly header: version is 0x2, expected 1$/,
      4,
    ],
    [
      "a component",
      Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00),
      /version is 0x1000d \(layer 1, version 13: a WebAssembly component, not a core module\)/,
      4,
    ],
  ];
  for (const [label, bytes, pattern, offset] of cases) {
    assert.throws(() => parseWasm(bytes), (error: unknown) => {
      assert.ok(error instanceof WasmParseError, label);
      assert.match(error.message, pattern, label);
      assert.equal(error.offset, offset, label);
      assert.equal(error.name, "WasmParseError");
      return true;
    });
    assert.throws(() => wasmImage(bytes, label), WasmParseError);
  }
  assert.throws(() => parseWasm(raw(), { maxNames: -1 }), RangeError);
});

Deno.test("parseWasm() warns when a section's declared size runs past the end of the file", () => {
  // A 512-byte file: a custom section filling it up to a code section at
  // 0x1f3 that declares 0x7fffffff bytes.
  // The code section holds a 2-byte body, then a body size cut off by the
  // end of the file.
  const fill = 0x1f3 - 8 - 3;
  const custom = [0, ...uleb(fill, 2), ...new Bytes().name("pad").out];
  custom.push(...new Array(fill - 4).fill(0));
  const code = [10, ...uleb(0x7fffffff), 2, 2, 0x00, 0x0b, 0x80, 0x80, 0x80];
  const bytes = raw(custom, code);
  assert.equal(bytes.length, 512);
  const module = bounded("size past EOF", 100, 16, () => parseDamaged(bytes, "size past EOF"));
  assert.ok(!(module instanceof WasmParseError));
  assert.equal(
    module.warnings[0],
    "Cannot parse WebAssembly section 10 (code) at 0x1f3: declared size 0x7fffffff runs past " +
      "the end of the 512-byte file; reading the 7 bytes that fit",
  );
  assert.deepEqual(module.sections.map((s) => [s.kind, s.headerOffset, s.size]), [
    ["custom", 8, fill],
    ["code", 0x1f3, 0x7fffffff],
  ]);
  // The body that fits is read; the section then runs into the end of the file.
  assert.deepEqual(module.bodies, [{ index: 0, offset: 0x1fb, size: 2, localCount: 0 }]);
  assert.equal(
    module.warnings[1],
    "Cannot parse WebAssembly section 10 (code) at 0x1f3: the size of function body 1 at 0x1fd " +
      "is an unterminated LEB128: it runs into the end of the file at 0x200; the rest of the " +
      "section is skipped",
  );
  assert.deepEqual(module.warnings.slice(2), [
    "There is no function section but the code section declares 2 bodies",
  ]);
  const image = wasmImage(bytes, "past EOF");
  assert.equal(image.sections[1]!.fileSize, 7);
});

Deno.test("parseWasm() refuses vector counts of 2^32-1 in a tiny file without allocating for them", () => {
  const huge = uleb(0xffffffff);
  const cases: [string, Uint8Array, RegExp][] = [
    [
      "types",
      raw(section(1, huge)),
      /section 1 \(type\) at 0x8: the count of 4294967295 types at 0xa needs at least 4294967295 bytes, but only 0 remain before the end of the section/,
    ],
    [
      "imports",
      raw(section(2, huge)),
      /the count of 4294967295 imports .* needs at least 17179869180 bytes/,
    ],
    ["functions", raw(section(3, huge)), /the count of 4294967295 functions/],
    ["exports", raw(section(7, huge)), /the count of 4294967295 exports/],
    ["bodies", raw(section(10, huge)), /the count of 4294967295 function bodies/],
    ["data segments", raw(section(11, huge)), /the count of 4294967295 data segments/],
    ["tables", raw(section(4, huge)), /the count of 4294967295 tables/],
    ["globals", raw(section(6, huge)), /the count of 4294967295 globals/],
    [
      "parameters",
      raw(section(1, [1, 0x60, ...huge])),
      /the count of 4294967295 parameters of type 0/,
    ],
    ["a recursion group", raw(section(1, [1, 0x4e, ...huge])), /types in the recursion group/],
    [
      "locals",
      raw(section(1, [1, 0x60, 0, 0]), section(3, [1, 0]), section(10, [1, 6, ...huge, 0x0b])),
      /Cannot read the locals of function 0 .*the count of 4294967295 local declarations/,
    ],
    [
      "producer fields",
      raw(section(0, [...new Bytes().name("producers").out, ...huge])),
      /custom section "producers" at 0x8: the count of 4294967295 producer fields/,
    ],
    [
      "a name length",
      raw(section(7, [1, ...huge])),
      /the name of export 0 at 0xb is 4294967295 bytes long, but only 0 remain/,
    ],
    [
      "a body size",
      raw(section(10, [1, ...huge])),
      /function body 0 \(function 0\) at 0xb declares 4294967295 bytes, but only 0 remain/,
    ],
  ];
  for (const [label, bytes, pattern] of cases) {
    const module = bounded(label, 50, 16, () => parseDamaged(bytes, label));
    assertWarned(module, pattern, label);
  }
});

Deno.test("parseWasm() reports LEB128 numbers longer than 5 bytes for a u32 or 10 for a 64-bit value", () => {
  const six = [0x80, 0x80, 0x80, 0x80, 0x80, 0x00];
  const cases: [string, Uint8Array, RegExp][] = [
    [
      "a section size",
      raw([1, ...six]),
      /^Cannot parse WebAssembly section 1 \(type\) at 0x8: the section size at 0x9 is a LEB128 longer than the 5 bytes a u32 may take; the rest of the file is not read$/,
    ],
    [
      "a type count",
      raw(section(1, six)),
      /the count of types at 0xa is a LEB128 longer than the 5 bytes a u32 may take/,
    ],
    [
      "a u32 over 32 bits",
      raw([1, 0xff, 0xff, 0xff, 0xff, 0x1f]),
      /the section size at 0x9 is a LEB128 u32 whose value does not fit in 32 bits/,
    ],
    [
      "an i32.const",
      raw(section(11, [1, 0, 0x41, ...six, 0x0b, 0])),
      /an i32.const immediate at 0xd is a LEB128 longer than the 5 bytes an s32 may take/,
    ],
    [
      "an i32.const over 32 bits",
      raw(section(11, [1, 0, 0x41, 0xff, 0xff, 0xff, 0xff, 0x4f, 0x0b, 0])),
      /an i32.const immediate at 0xd is a LEB128 s32 whose value does not fit in 32 bits/,
    ],
    [
      "an i64.const",
      raw(section(11, [1, 0, 0x42, ...new Array(10).fill(0x80), 0x00, 0x0b, 0])),
      /an i64.const immediate at 0xd is a LEB128 longer than the 10 bytes an s64 may take/,
    ],
    [
      "a memory64 limit",
      raw(section(2, [1, 1, 0x6d, 1, 0x6d, 2, 0x04, ...new Array(10).fill(0x80), 0])),
      /the minimum of the limits of import 0 at 0x11 is a LEB128 longer than the 10 bytes a u64 may take/,
    ],
  ];
  for (const [label, bytes, pattern] of cases) {
    assertWarned(parseDamaged(bytes, label), pattern, label);
  }
  // Padded but in range: accepted (the Go toolchain writes 5-byte sizes).
  const padded = raw([1, ...uleb(4, 5), 1, 0x60, 0, 0]);
  assert.deepEqual(parseWasm(padded).warnings, []);
  assert.deepEqual(parseWasm(padded).types, [{ index: 0, form: "func", params: [], results: [] }]);
  // Largest values: 0xffffffff, i32 -2^31, i64 -2^63 and 2^63-1.
  const extremes = raw(
    section(11, [
      3,
      0,
      0x41,
      0x80,
      0x80,
      0x80,
      0x80,
      0x78,
      0x0b,
      0,
      0,
      0x42,
      ...new Array(9).fill(0x80),
      0x7f,
      0x0b,
      0,
      0,
      0x42,
      ...new Array(9).fill(0xff),
      0x00,
      0x0b,
      0,
    ]),
  );
  assert.deepEqual(parseWasm(extremes).data.map((d) => d.memoryOffset), [
    -(2n ** 31n),
    -(2n ** 63n),
    2n ** 63n - 1n,
  ]);
  assert.deepEqual(parseWasm(raw([0, 0xff, 0xff, 0xff, 0xff, 0x0f])).warnings, [
    "Cannot parse WebAssembly section 0 (custom) at 0x8: declared size 0xffffffff runs past the " +
    "end of the 14-byte file; reading the 0 bytes that fit",
    "Cannot parse the WebAssembly custom section at 0x8: the length of the custom section name " +
    "at 0xe lies past the end of the file",
  ]);
});

Deno.test("parseWasm() reports a LEB128 left unterminated by the end of the file", () => {
  const cases: [string, Uint8Array, RegExp][] = [
    [
      "a section size",
      raw([1, 0x80, 0x80]),
      /^Cannot parse WebAssembly section 1 \(type\) at 0x8: the section size at 0x9 is an unterminated LEB128: it runs into the end of the file at 0xb; the rest of the file is not read$/,
    ],
    [
      "a lone section id",
      raw([1]),
      /the section size at 0x9 lies past the end of the file; the rest of the file is not read$/,
    ],
    [
      "a count in a truncated section",
      raw([3, 5, 0x80, 0x80]),
      /the count of functions at 0xa is an unterminated LEB128: it runs into the end of the file at 0xc/,
    ],
    [
      "a count at the end of its section",
      raw(section(3, [0x80, 0x80]), section(1, [0])),
      /the count of functions at 0xa is an unterminated LEB128: it runs into the end of the section at 0xc/,
    ],
  ];
  for (const [label, bytes, pattern] of cases) {
    assertWarned(parseDamaged(bytes, label), pattern, label);
  }
});

Deno.test("parseWasm() warns about repeated, out-of-order and unknown sections", () => {
  const type = section(1, [1, 0x60, 0, 0]);
  const fn = section(3, [1, 0]);
  const code = section(10, [1, 2, 0, 0x0b]);
  const repeated = parseDamaged(raw(type, fn, code, section(1, [0])), "repeated");
  assertWarned(
    repeated,
    /^WebAssembly section 1 \(type\) at 0x18 repeats the one at 0x8; ignoring the repeat$/,
    "repeated",
  );
  assert.ok(!(repeated instanceof WasmParseError));
  assert.equal(repeated.types.length, 1);
  assert.equal(repeated.sections.length, 4);

  const outOfOrder = parseDamaged(raw(type, code, fn), "out of order");
  assertWarned(
    outOfOrder,
    /^WebAssembly section 3 \(function\) at 0x14 comes after section 10 \(code\), out of the order the format requires; reading it anyway$/,
    "out of order",
  );
  assert.ok(!(outOfOrder instanceof WasmParseError));
  // Read anyway: the body is function 0 since nothing was imported.
  assert.deepEqual(outOfOrder.functions, [{ index: 0, typeIndex: 0 }]);

  const unknown = parseDamaged(raw(section(14, [1, 2, 3]), type), "unknown id");
  assertWarned(
    unknown,
    /^WebAssembly section 14 at 0x8 has an unknown id; skipping its 3 bytes$/,
    "unknown",
  );
  assert.ok(!(unknown instanceof WasmParseError));
  assert.deepEqual(unknown.sections.map((s) => s.kind), ["unknown", "type"]);
  assert.equal(wasmImage(raw(section(14, [1])), "x").sections[0]!.name, "section-14");

  // Custom sections may repeat and go anywhere; a second "name" section is ignored.
  const names = (name: string): number[] =>
    section(0, [
      ...new Bytes().name("name").out,
      0,
      ...uleb(name.length + 1),
      ...new Bytes().name(name).out,
    ]);
  const twice = parseDamaged(raw(names("first"), type, names("second")), "two name sections");
  assertWarned(
    twice,
    /^The WebAssembly custom section "name" at 0x1d repeats the one at 0x8; ignoring the repeat$/,
    "two names",
  );
  assert.ok(!(twice instanceof WasmParseError));
  assert.equal(twice.names?.module, "first");
});

Deno.test("parseWasm() keeps what it read before damage inside a section", () => {
  const type = section(1, [1, 0x60, 0, 0]);
  const cases: [string, Uint8Array, RegExp, (m: WasmModule) => void][] = [
    [
      "an unknown import kind",
      raw(
        type,
        section(2, [
          2,
          ...new Bytes().name("a").name("f").out,
          0,
          0,
          ...new Bytes().name("a").name("x").out,
          9,
          0,
        ]),
      ),
      /import 1 \("a" "x"\) has the unknown kind 09 at 0x1b; the rest of the section is skipped/,
      (m) => assert.deepEqual(m.imports.map((i) => i.name), ["f"]),
    ],
    [
      "an unknown value type",
      raw(section(1, [2, 0x60, 0, 0, 0x60, 1, 0x55, 0])),
      /parameters of type 1, number 0, at 0x10 is the unknown value type 55/,
      (m) => assert.equal(m.types.length, 1),
    ],
    [
      "an unknown type form",
      raw(section(1, [1, 0x20])),
      /type 0 at 0xb has the unknown form 20 at 0xb/,
      (m) => assert.equal(m.types.length, 0),
    ],
    [
      "a call in a constant expression",
      raw(section(11, [2, 0, 0x41, 0, 0x0b, 1, 7, 0, 0x10, 0, 0x0b, 0])),
      /the offset expression of data segment 1 at 0x12 has the opcode 10 at 0x12, which is not allowed in a constant expression/,
      (m) => assert.deepEqual(m.data.map((d) => d.size), [1]),
    ],
    [
      "unknown data segment flags",
      raw(section(11, [1, 3, 0])),
      /data segment 0 at 0xb has the unknown flags 3/,
      (m) => assert.equal(m.data.length, 0),
    ],
    [
      "trailing bytes",
      raw(section(8, [0, 0, 0])),
      /section 8 \(start\) at 0x8 has 2 unread bytes after its contents, at 0xb/,
      (m) => assert.equal(m.start, 0),
    ],
    [
      "a function without a body",
      raw(type, section(3, [2, 0, 0]), section(10, [1, 2, 0, 0x0b])),
      /^The function section declares 2 functions but the code section declares 1 body$/,
      (m) => assert.equal(m.bodies.length, 1),
    ],
    [
      "an export past the functions",
      raw(type, section(3, [1, 0]), section(7, [1, 1, 0x66, 0, 5]), section(10, [1, 2, 0, 0x0b])),
      /^Export "f" refers to func 5, but the module has only 1 func$/,
      (m) => assert.equal(m.exports.length, 1),
    ],
    [
      "a start function past the functions",
      raw(section(8, [9])),
      /^The start function is 9, but the module has only 0 functions$/,
      (m) => assert.equal(m.start, 9),
    ],
    [
      "a type index past the types",
      raw(type, section(3, [1, 4]), section(10, [1, 2, 0, 0x0b])),
      /^1 function or tag refer to type indices past the 1 type of the module$/,
      (m) => assert.equal(m.functions[0]!.typeIndex, 4),
    ],
    [
      "a name that is not UTF-8",
      raw(section(7, [1, 2, 0xc3, 0x28, 0, 0])),
      /^1 name is not valid UTF-8; invalid bytes were replaced with U\+FFFD$/,
      (m) => assert.equal(m.exports[0]!.name, "\ufffd("),
    ],
  ];
  for (const [label, bytes, pattern, check] of cases) {
    const module = parseDamaged(bytes, label);
    assertWarned(module, pattern, label);
    check(module as WasmModule);
  }
});

Deno.test("parseWasm() bounds a name section with a huge count and stops at maxNames", () => {
  const name = (...subsections: number[][]): Uint8Array =>
    raw(section(0, [...new Bytes().name("name").out, ...subsections.flat()]));
  const sub = (
    id: number,
    contents: number[],
  ): number[] => [id, ...uleb(contents.length), ...contents];
  const huge = uleb(0xffffffff);
  const cases: [string, Uint8Array, RegExp][] = [
    [
      "function names",
      name(sub(1, huge)),
      /name subsection 1 .*the count of 4294967295 function names at 0x11 needs at least 8589934590 bytes, but only 0 remain before the end of name subsection 1/,
    ],
    ["local groups", name(sub(2, huge)), /the count of 4294967295 functions with local names/],
    ["locals", name(sub(2, [1, 0, ...huge])), /the count of 4294967295 local names of function 0/],
    [
      "a subsection size",
      name([1, ...huge]),
      /custom section "name" at 0x8: name subsection 1 at 0xf declares 4294967295 bytes, but only 0 remain before the end of the section; the rest of it is skipped/,
    ],
  ];
  for (const [label, bytes, pattern] of cases) {
    assertWarned(bounded(label, 50, 16, () => parseDamaged(bytes, label)), pattern, label);
  }
  // A damaged subsection does not stop the next one.
  const next = parseDamaged(name(sub(1, huge), sub(2, [1, 0, 1, 0, 1, 0x78])), "next");
  assert.ok(!(next instanceof WasmParseError));
  assert.deepEqual(next.names?.locals, [{ function: 0, locals: [{ index: 0, name: "x" }] }]);

  // 100000 function names, read up to maxNames.
  const many = new Bytes().u32(100_000);
  for (let i = 0; i < 100_000; i++) many.u32(i).name(`f${i}`);
  const bytes = name(sub(1, many.out));
  assert.equal(parseWasm(bytes).names?.functions.length, 100_000);
  const limited = parseWasm(bytes, { maxNames: 1000 });
  assert.equal(limited.names?.functions.length, 1000);
  assert.deepEqual(limited.names?.functions.at(-1), { index: 999, name: "f999" });
  assert.ok(
    limited.warnings.some((w) => /more names than the maxNames limit of 1000/.test(w)),
    limited.warnings.join("\n"),
  );
});

Deno.test("parseWasm() caps its warnings at 100 plus a count of the rest", () => {
  // 300 unknown sections.
  const bytes = raw(...Array.from({ length: 300 }, () => section(99, [])));
  const module = parseDamaged(bytes, "300 unknown sections") as WasmModule;
  assert.equal(module.sections.length, 300);
  assert.equal(module.warnings.length, 101);
  assert.equal(module.warnings.at(-1), "200 more warnings were omitted");
});

/** Offsets worth cutting at: each section's header, contents and end, and ±1 around them. */
function boundaries(module: WasmModule, length: number): number[] {
  const points = new Set<number>([0, 1, 4, 7, 8, 9]);
  for (const s of module.sections) {
    for (const p of [s.headerOffset, s.offset, s.payloadOffset, s.offset + s.size]) {
      for (const d of [-1, 0, 1]) if (p + d >= 0 && p + d <= length) points.add(p + d);
    }
  }
  return [...points].sort((a, b) => a - b);
}

testWith(
  { [gecko.label]: gecko.path !== null },
  `parseWasm() survives truncation of ${gecko.label} at every section boundary and at 200 random points`,
  async () => {
    const bytes = await Deno.readFile(gecko.path!);
    const full = parseWasm(bytes);
    const seed = 0x5eed_0a5;
    console.log(`truncation seed ${hex(seed)}`);
    const random = mulberry32(seed);
    const points = boundaries(full, bytes.length);
    const boundaryCount = points.length;
    for (let i = 0; i < 200; i++) points.push(Math.floor(random() * bytes.length));
    const sectionStarts = new Set([...full.sections.map((s) => s.headerOffset), bytes.length]);
    for (const n of points) {
      const label = `truncated at ${n}`;
      const result = parseDamaged(bytes.subarray(0, n), label);
      if (n < 8) {
        assert.ok(result instanceof WasmParseError, label);
        continue;
      }
      assert.ok(!(result instanceof WasmParseError), `${label}: ${result}`);
      if (!sectionStarts.has(n)) assert.ok(result.warnings.length > 0, `no warning ${label}`);
      // Whatever was read is what the whole file holds.
      const prefix = <T>(part: T[], whole: T[], what: string): void => {
        assert.ok(part.length <= whole.length, `${label}: ${what}`);
        assert.deepEqual(part, whole.slice(0, part.length), `${label}: ${what}`);
      };
      prefix(
        result.sections.map((s) => s.headerOffset),
        full.sections.map((s) => s.headerOffset),
        "sections",
      );
      prefix(result.types, full.types, "types");
      prefix(result.imports, full.imports, "imports");
      prefix(result.functions, full.functions, "functions");
      prefix(result.exports, full.exports, "exports");
      prefix(result.bodies, full.bodies, "bodies");
      prefix(result.data, full.data, "data");
    }
    console.log(`${boundaryCount} boundary and 200 random truncation points survived`);
  },
);

testWith(
  { [gecko.label]: gecko.path !== null },
  `parseWasm() survives 300 random single- and multi-byte corruptions of ${gecko.label}`,
  async () => {
    const bytes = await Deno.readFile(gecko.path!);
    const full = parseWasm(bytes);
    const seed = 0xc0ffee;
    console.log(`corruption seed ${hex(seed)}`);
    const random = mulberry32(seed);
    // Most flips land where the reader looks: the header, the sections
    // before the code, the start of the code section and of every other
    // section, body size fields; some anywhere.
    const code = full.sections.find((s) => s.kind === "code")!;
    const regions: [number, number][] = [
      [0, 8],
      [8, code.offset + 16],
      [8, code.offset + 16],
      [0, bytes.length],
    ];
    for (const s of full.sections) regions.push([s.headerOffset, s.payloadOffset + 32]);
    for (const b of full.bodies.slice(0, 50)) regions.push([b.offset - 3, b.offset + 4]);
    const started = performance.now();
    const { thrown, warned } = tallyCorruptions(bytes, regions, {
      random,
      parse: (label) => parseDamaged(bytes, label),
      refusal: WasmParseError,
      warnings: (result) => result.warnings,
    });
    const elapsed = performance.now() - started;
    console.log(
      `${thrown} corruptions threw WasmParseError, ${warned} returned warnings ` +
        `(${elapsed.toFixed(0)} ms for 300)`,
    );
    assert.deepEqual(parseWasm(bytes), full);
  },
);
