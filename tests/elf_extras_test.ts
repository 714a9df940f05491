/**
 * Tests for what the ELF reader reads beyond symbols: the dynamic section,
 * the build id, `.eh_frame` / `.eh_frame_hdr` function starts, PLT stubs and
 * imports, and the `elfImage` adapter. Real binaries are compared with
 * readelf, objdump, llvm-objdump-14, llvm-readelf-14 and nm, in both
 * directions; synthetic files cover every pointer encoding and the damage
 * cases; a fuzz pass flips bytes in the parts of libc these readers touch.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run
 * --allow-env --allow-net tests/elf_extras_test.ts`. Tests whose peer program
 * or fixture is missing are ignored with the reason printed.
 */

import assert from "node:assert/strict";
import { type ElfImage, ElfParseError } from "../src/apps/formats/elf/model.ts";
import { parseElf } from "../src/apps/formats/elf/parse.ts";
import { elfImage } from "../src/apps/formats/elf/image.ts";
import {
  BASE,
  buildRawElf,
  ByteBuilder,
  type EhRecord,
  encodeDynamic,
  encodeEhFrame,
  encodeEhFrameHdr,
  encodeNote,
  encodeRelocations,
  encodeSymbols,
  ET_DYN,
  layoutOf,
  PE,
  poke,
  type RawSection,
  STB_GLOBAL,
  STB_WEAK,
  STT_FUNC,
  STT_NOTYPE,
  STT_OBJECT,
} from "./elf_fixtures.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { largestSharedLibrary } from "./helpers/largest_library.ts";
import { corruptRounds } from "./helpers/corruption.ts";
import { mulberry32 } from "./helpers/random.ts";
import { findLibc } from "./helpers/system_files.ts";

// ---------------------------------------------------------------------------
// Environment

function hasProgram(name: string, args = ["--version"]): boolean {
  if (Deno.permissions.querySync({ name: "run", command: name }).state !== "granted") return false;
  try {
    new Deno.Command(name, { args, stdout: "null", stderr: "null" }).outputSync();
    return true;
  } catch {
    return false;
  }
}

const HAVE = {
  readelf: hasProgram("readelf"),
  objdump: hasProgram("objdump"),
  nm: hasProgram("nm"),
  cc: hasProgram("cc"),
  strip: hasProgram("strip"),
  llvmObjdump: hasProgram("llvm-objdump-14"),
  llvmReadelf: hasProgram("llvm-readelf-14"),
  llvmDwarfdump: hasProgram("llvm-dwarfdump-14"),
};

function realPath(path: string): string | null {
  try {
    const real = Deno.realPathSync(path);
    return Deno.statSync(real).isFile ? real : null;
  } catch {
    return null;
  }
}

async function run(program: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(program, { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  // readelf exits with 1 after some dumps (the frames of libc, the notes of
  // the ia32 7za) without saying why on stderr; its output is complete.
  if (!out.success && (text === "" || out.stderr.length > 0)) {
    throw new Error(
      `${program} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return text;
}

const hex = (v: bigint | number): string => `0x${v.toString(16)}`;

/** Registers a test that needs `needs`, printing why when it is ignored. */
function testWith(
  needs: Record<string, boolean>,
  name: string,
  fn: () => Promise<void> | void,
): void {
  const missing = Object.entries(needs).filter(([, ok]) => !ok).map(([what]) => what);
  if (missing.length > 0) console.log(`skip: ${name}: ${missing.join(", ")} not available`);
  Deno.test({ name, ignore: missing.length > 0, fn });
}

const FIXTURE = "7zip-bin@5.2.0";
const sevenZip = async (arch: string): Promise<string | null> =>
  await npmFixture(FIXTURE, `linux/${arch}/7za`);

/** Real binaries by label; null when missing (the reason printed once). */
const REAL: Record<string, string | null> = {
  "/bin/ls": realPath("/bin/ls"),
  libc: findLibc(),
  "the largest .so": largestSharedLibrary(),
};
for (const [label, path] of Object.entries(REAL)) {
  if (path === null) console.log(`skip: ${label} not found on this machine`);
}

// ---------------------------------------------------------------------------
// Compiled programs (made once, removed at the end)

const SOURCE = `
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int helper(int x) { return x * 3; }
__attribute__((noinline)) int visible(int x) { return helper(x) + (int)strlen("abc"); }
int main(int argc, char **argv) {
  char *p = malloc(16);
  snprintf(p, 16, "%d", visible(argc));
  puts(p);
  void (*f)(void *) = free;
  f(p);
  return argc > 1 ? atoi(argv[1]) : 0;
}
`;

let workDir: string | null = null;
// The compiled programs go when the module's tests are done.
globalThis.addEventListener("unload", () => {
  if (workDir !== null) Deno.removeSync(workDir, { recursive: true });
});
const compiled = new Map<string, Promise<string | null>>();

/** Compiles SOURCE with `flags` (then strips it when asked); null with a reason when it cannot. */
function compile(name: string, flags: string[], stripped: boolean): Promise<string | null> {
  let entry = compiled.get(name);
  if (entry === undefined) {
    entry = (async () => {
      if (!HAVE.cc || (stripped && !HAVE.strip)) return null;
      workDir ??= await Deno.makeTempDir({ prefix: "casefile-elf-extras-" });
      const source = `${workDir}/prog.c`;
      await Deno.writeTextFile(source, SOURCE);
      const out = `${workDir}/${name}`;
      try {
        await run("cc", [...flags, "-o", out, source]);
        if (stripped) await run("strip", [out]);
        return out;
      } catch (error) {
        console.log(`skip: cannot build ${name}: ${(error as Error).message.split("\n")[0]}`);
        return null;
      }
    })();
    compiled.set(name, entry);
  }
  return entry;
}

/** An i386 PIC shared library built without libc (needs only cc -m32 and ld). */
async function compile32(name: string, flags: string[]): Promise<string | null> {
  if (!HAVE.cc) return null;
  workDir ??= await Deno.makeTempDir({ prefix: "casefile-elf-extras-" });
  const source = `${workDir}/pic32.c`;
  await Deno.writeTextFile(
    source,
    "extern int ext_a(int); extern int ext_b(int); extern int ext_data;\n" +
      "int f(int x) { return ext_a(x) + ext_b(x) + ext_data; }\n" +
      "int (*fp)(int) = ext_b;\n",
  );
  const out = `${workDir}/${name}`;
  try {
    await run("cc", ["-m32", "-shared", "-fPIC", "-nostdlib", ...flags, "-o", out, source]);
    return out;
  } catch (error) {
    console.log(`skip: cannot build ${name}: ${(error as Error).message.split("\n")[0]}`);
    return null;
  }
}

/** Every binary of the peer comparisons, resolved lazily. */
async function subjects(): Promise<{ label: string; path: string }[]> {
  const list: { label: string; path: string | null }[] = [
    ...Object.entries(REAL).map(([label, path]) => ({ label, path })),
    { label: "a stripped cc program", path: await compile("stripped", ["-O1"], true) },
    {
      label: "a stripped cc program with IBT (.plt.sec)",
      path: await compile("ibt", ["-O1", "-fcf-protection=full", "-Wl,-z,ibtplt"], true),
    },
    { label: "an i386 PIC library", path: await compile32("pic32.so", []) },
    {
      label: "an i386 PIC library with IBT",
      path: await compile32("pic32ibt.so", ["-fcf-protection", "-Wl,-z,ibtplt"]),
    },
  ];
  for (const arch of ["x64", "ia32", "arm64", "arm"]) {
    list.push({ label: `7za ${arch}`, path: await sevenZip(arch) });
  }
  return list.filter((s): s is { label: string; path: string } => s.path !== null);
}

const parsed = new Map<string, ElfImage>();
function parse(path: string): ElfImage {
  let image = parsed.get(path);
  if (image === undefined) {
    image = parseElf(Deno.readFileSync(path));
    parsed.set(path, image);
  }
  return image;
}

// ---------------------------------------------------------------------------
// Peers

interface ReadelfDynamic {
  entries: { tag: number; rest: string }[];
  needed: string[];
  soname: string | null;
  runpath: string | null;
  rpath: string | null;
}

async function readelfDynamic(path: string): Promise<ReadelfDynamic> {
  const out = await run("readelf", ["-d", "-W", path]);
  const result: ReadelfDynamic = {
    entries: [],
    needed: [],
    soname: null,
    runpath: null,
    rpath: null,
  };
  for (const line of out.split("\n")) {
    const m = /^\s*0x([0-9a-f]+)\s+\((\w+)\)\s+(.*)$/.exec(line);
    if (m === null) continue;
    const tag = Number.parseInt(m[1]!, 16);
    if (tag === 0) break;
    const rest = m[3]!.trim();
    result.entries.push({ tag, rest });
    const bracket = /\[(.*)\]$/.exec(rest)?.[1] ?? null;
    if (m[2] === "NEEDED") result.needed.push(bracket!);
    if (m[2] === "SONAME") result.soname = bracket;
    if (m[2] === "RUNPATH") result.runpath = bracket;
    if (m[2] === "RPATH") result.rpath = bracket;
  }
  return result;
}

async function readelfBuildId(path: string): Promise<string | null> {
  const out = await run("readelf", ["-n", "-W", path]);
  return /Build ID: ([0-9a-f]+)/.exec(out)?.[1] ?? null;
}

/** FDE ranges of .eh_frame as `readelf --debug-dump=frames` prints them, sorted. */
async function readelfFdes(path: string): Promise<{ address: bigint; size: bigint }[]> {
  const out = await run("readelf", ["--debug-dump=frames", "-W", path]);
  const fdes: { address: bigint; size: bigint }[] = [];
  let section = "";
  for (const line of out.split("\n")) {
    const header = /^Contents of the (\S+) section\b/.exec(line);
    if (header !== null) section = header[1]!;
    if (section !== ".eh_frame") continue;
    const m = / FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)/.exec(line);
    if (m === null) continue;
    const start = BigInt(`0x${m[1]}`);
    fdes.push({ address: start, size: BigInt(`0x${m[2]}`) - start });
  }
  return fdes.sort((a, b) =>
    a.address !== b.address ? (a.address < b.address ? -1 : 1) : a.size < b.size ? -1 : 1
  );
}

/** The `.eh_frame_hdr` search table as `llvm-readelf-14 --unwind` prints it: [location, FDE address]. */
async function llvmHdrTable(path: string): Promise<[bigint, bigint][] | null> {
  let out: string;
  try {
    out = await run("llvm-readelf-14", ["--unwind", path]);
  } catch (error) {
    // It rejects GCC 2.x "eh" augmentations (the ia32 7za).
    console.log(`llvm-readelf-14 --unwind cannot read ${path}: ${(error as Error).message}`);
    return null;
  }
  if (!out.includes("EHFrameHeader")) return null;
  const table: [bigint, bigint][] = [];
  const re = /entry \d+ \{\s*initial_location: (0x[0-9a-f]+)\s*address: (0x[0-9a-f]+)/g;
  for (const m of out.matchAll(re)) table.push([BigInt(m[1]!), BigInt(m[2]!)]);
  return table;
}

/** `<name@plt>` labels of the PLT sections: address → name. */
async function pltLabels(path: string, image: ElfImage): Promise<Map<bigint, string> | null> {
  const names = [".plt", ".plt.sec", ".plt.got"].filter((n) =>
    image.sections.some((s) => s.name === n)
  );
  const labels = new Map<bigint, string>();
  if (names.length === 0) return labels;
  const arm64 = image.architecture === "arm64";
  if ((arm64 && !HAVE.llvmObjdump) || (!arm64 && !HAVE.objdump)) return null;
  const program = arm64 ? "llvm-objdump-14" : "objdump";
  const out = await run(program, ["-d", ...names.flatMap((n) => ["-j", n]), path]);
  for (const line of out.split("\n")) {
    const m = /^([0-9a-f]+) <(.+)@plt>:$/.exec(line);
    if (m !== null) labels.set(BigInt(`0x${m[1]}`), m[2]!);
  }
  return labels;
}

interface Relocation {
  offset: bigint;
  type: string;
  symbol: string;
}

/** `readelf -r -W` lines of the dynamic relocation sections. */
async function readelfRelocations(path: string): Promise<Relocation[]> {
  const out = await run("readelf", ["-r", "-W", path]);
  const relocations: Relocation[] = [];
  for (const line of out.split("\n")) {
    const m = /^([0-9a-f]+)\s+[0-9a-f]+\s+(R_\w+)\s+(?:[0-9a-f]+\s+(\S+))?/.exec(line);
    if (m === null) continue;
    relocations.push({
      offset: BigInt(`0x${m[1]}`),
      type: m[2]!,
      symbol: (m[3] ?? "").replace(/@.*$/, ""),
    });
  }
  return relocations;
}

/** nm symbols in sysv format: [name, address, type, defined]. */
async function nmSymbols(
  path: string,
  args: string[],
): Promise<{ name: string; address: bigint; type: string }[]> {
  const result = await new Deno.Command("nm", {
    args: [...args, "-f", "sysv", path],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const symbols: { name: string; address: bigint; type: string }[] = [];
  for (const line of new TextDecoder().decode(result.stdout).split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 7) continue;
    const [name, value, , type] = cells;
    symbols.push({
      name: name!.replace(/@.*$/, ""),
      address: value === "" ? 0n : BigInt(`0x${value}`),
      type: type!,
    });
  }
  return symbols;
}

const isFunctionType = (type: string): boolean =>
  type === "FUNC" || type === "<OS specific>: 10" || type === "IFUNC";

// ---------------------------------------------------------------------------
// Peer comparisons

testWith(
  { readelf: HAVE.readelf },
  "dynamic section and build id match readelf -d and readelf -n on every real binary",
  async () => {
    for (const { label, path } of await subjects()) {
      const image = parse(path);
      const peer = await readelfDynamic(path);
      assert.deepEqual(image.dynamic.needed, peer.needed, `${label}: DT_NEEDED`);
      assert.equal(image.dynamic.soname, peer.soname, `${label}: DT_SONAME`);
      assert.equal(image.dynamic.runpath, peer.runpath, `${label}: DT_RUNPATH`);
      assert.equal(image.dynamic.rpath, peer.rpath, `${label}: DT_RPATH`);
      // Every entry, in order, both ways; values where readelf prints a number.
      assert.deepEqual(
        image.dynamic.entries.map((e) => e.tag),
        peer.entries.map((e) => e.tag),
        `${label}: dynamic tags`,
      );
      let values = 0;
      peer.entries.forEach(({ rest }, i) => {
        const m = /^(0x[0-9a-f]+|\d+)(?: \(bytes\))?$/.exec(rest);
        if (m === null) return;
        assert.equal(image.dynamic.entries[i]!.value, BigInt(m[1]!), `${label}: entry ${i}`);
        values++;
      });
      const buildId = await readelfBuildId(path);
      assert.equal(image.buildId, buildId, `${label}: build id`);
      assert.deepEqual(image.warnings, [], `${label}: warnings`);
      console.log(
        `${label}: ${image.dynamic.entries.length} dynamic entries (${values} values) and ` +
          `${image.dynamic.needed.length} DT_NEEDED match readelf; build id ${buildId ?? "none"}`,
      );
    }
  },
);

testWith(
  { readelf: HAVE.readelf },
  "ehFrameFunctions equal readelf --debug-dump=frames FDE ranges exactly, and the .eh_frame_hdr table per llvm-readelf-14",
  async () => {
    for (const { label, path } of await subjects()) {
      const image = parse(path);
      const peer = await readelfFdes(path);
      const mine = image.ehFrameFunctions;
      assert.deepEqual(mine, peer, `${label}: FDE ranges`);
      if (image.machine === 40) {
        assert.equal(mine.length, 0);
        console.log(`${label}: ARM32 unwinds through .ARM.exidx; its .eh_frame has no FDEs`);
        continue;
      }
      assert.ok(mine.length > 0, `${label}: no FDEs`);
      let table = "";
      if (HAVE.llvmReadelf) {
        const entries = await llvmHdrTable(path);
        if (entries !== null) {
          const starts = new Set(mine.map((f) => f.address));
          assert.equal(entries.length, mine.length, `${label}: table size`);
          for (const [location] of entries) {
            assert.ok(starts.has(location), `${label}: ${location}`);
          }
          table = `, ${entries.length} .eh_frame_hdr entries`;
        } else table = ", no .eh_frame_hdr";
      }
      console.log(`${label}: ${mine.length} FDEs match readelf${table}`);
    }
  },
);

testWith(
  { objdump: HAVE.objdump, readelf: HAVE.readelf, nm: HAVE.nm },
  "pltStubs match objdump / llvm-objdump-14 <name@plt> labels and imports match readelf -r",
  async () => {
    for (const { label, path } of await subjects()) {
      const image = parse(path);
      const relocations = await readelfRelocations(path);
      const byOffset = new Map(relocations.map((r) => [r.offset, r]));
      if (image.machine === 40) {
        // llvm-objdump-14 does not label ARM32 PLT entries: check every stub
        // against readelf's JUMP_SLOT relocations instead.
        const slots = relocations.filter((r) => r.type === "R_ARM_JUMP_SLOT");
        assert.equal(image.pltStubs.length, slots.length, label);
        for (const stub of image.pltStubs) {
          const r = byOffset.get(stub.gotAddress);
          assert.equal(r?.type, "R_ARM_JUMP_SLOT", `${label}: ${hex(stub.address)}`);
          assert.equal(stub.name, r!.symbol, `${label}: ${hex(stub.address)}`);
        }
        console.log(`${label}: ${slots.length} ARM PLT stubs match readelf -r JUMP_SLOT slots`);
      } else {
        const labels = await pltLabels(path, image);
        if (labels === null) {
          console.log(`skip: ${label}: no disassembler for its PLT`);
          continue;
        }
        const mine = new Map(image.pltStubs.map((s) => [s.address, s]));
        for (const [address, name] of labels) {
          const stub = mine.get(address);
          assert.ok(
            stub !== undefined,
            `${label}: objdump's ${name}@plt at ${hex(address)} missing`,
          );
          const irelative = /^\*ABS\*\+(0x[0-9a-f]+)$/.exec(name);
          if (irelative !== null) assert.equal(stub.irelative, BigInt(irelative[1]!), label);
          else assert.equal(stub.name, name, `${label}: ${hex(address)}`);
        }
        for (const stub of image.pltStubs) {
          assert.ok(labels.has(stub.address), `${label}: ${stub.name} at ${hex(stub.address)}`);
        }
        assert.ok(labels.size > 0, `${label}: no PLT labels`);
        console.log(`${label}: ${labels.size} PLT stubs match objdump`);
      }
      // Imports: each JUMP_SLOT / GLOB_DAT relocation against an undefined symbol.
      const undefinedNames = new Set(
        (await nmSymbols(path, ["-D", "--undefined-only"])).map((s) => s.name),
      );
      const expected = relocations.filter((r) =>
        /_(JUMP_SLOT|JMP_SLOT|GLOB_DAT)$/.test(r.type) && undefinedNames.has(r.symbol)
      );
      const imports = new Map(image.imports.map((i) => [i.gotAddress, i]));
      for (const r of expected) {
        const i = imports.get(r.offset);
        assert.equal(i?.name, r.symbol, `${label}: import at ${hex(r.offset)}`);
        assert.equal(i!.kind, /GLOB_DAT/.test(r.type) ? "glob-dat" : "jump-slot");
      }
      assert.equal(image.imports.length, expected.length, `${label}: import count`);
      const withStub = image.imports.filter((i) => i.stubAddress !== null).length;
      console.log(
        `${label}: ${expected.length} imports match readelf -r (${withStub} with a stub)`,
      );
    }
  },
);

testWith(
  { nm: HAVE.nm },
  "elfImage() functions cover nm's function symbols and imports cover nm -D --undefined-only functions",
  async () => {
    for (const { label, path } of await subjects()) {
      const bytes = await Deno.readFile(path);
      const elf = parse(path);
      const image = elfImage(bytes, label, { parsed: elf });
      assert.equal(image.format, "elf");
      const addresses = new Set(image.functions.map((f) => f.address));
      for (let i = 1; i < image.functions.length; i++) {
        assert.ok(image.functions[i - 1]!.address < image.functions[i]!.address, label);
      }
      const thumb = elf.machine === 40 ? ~1n : ~0n;
      const defined = [
        ...(elf.hasSymtab ? await nmSymbols(path, ["--defined-only"]) : []),
        ...await nmSymbols(path, ["-D", "--defined-only"]),
      ].filter((s) => isFunctionType(s.type));
      for (const s of defined) {
        assert.ok(
          addresses.has(s.address & thumb),
          `${label}: nm's ${s.name} at ${hex(s.address)}`,
        );
      }
      const undefinedFunctions = (await nmSymbols(path, ["-D", "--undefined-only"])).filter((s) =>
        isFunctionType(s.type)
      );
      const imported = new Set(image.imports.map((i) => i.name));
      for (const s of undefinedFunctions) assert.ok(imported.has(s.name), `${label}: ${s.name}`);
      // A library only through a symbol version's requirement, and always one the file needs.
      for (const i of image.imports) {
        assert.equal(i.library !== null, i.version !== undefined, `${label}: ${i.name}`);
        if (i.library !== null) assert.ok(elf.dynamic.needed.includes(i.library), i.library);
      }
      // Import addresses are PLT stubs where one exists.
      const stubs = new Map(elf.pltStubs.map((s) => [s.address, s.name]));
      for (const i of image.imports) {
        if (i.address !== null) assert.equal(stubs.get(i.address), i.name, label);
      }
      assert.deepEqual(image.libraries, elf.dynamic.needed);
      assert.equal(image.buildId, elf.buildId);
      const fromEh = image.functions.filter((f) => f.source === "eh-frame").length;
      console.log(
        `${label}: ${image.functions.length} functions (${fromEh} from .eh_frame) ⊇ ` +
          `${defined.length} nm functions; ${image.imports.length} imports ⊇ ` +
          `${undefinedFunctions.length} undefined nm -D functions; ${image.exports.length} exports; ` +
          `${image.sections.length} sections`,
      );
    }
  },
);

testWith(
  { cc: HAVE.cc, strip: HAVE.strip, readelf: HAVE.readelf },
  "without section headers, .eh_frame is found through PT_GNU_EH_FRAME and the build id through PT_NOTE",
  async () => {
    const path = await compile("stripped", ["-O1"], true);
    if (path === null) return;
    const bytes = await Deno.readFile(path);
    const full = parseElf(bytes);
    const copy = bytes.slice();
    const l = layoutOf(64);
    poke({ littleEndian: true }, copy, l.eShoff, 8, 0);
    poke({ littleEndian: true }, copy, l.eShnum, 2, 0);
    poke({ littleEndian: true }, copy, l.eShstrndx, 2, 0);
    const bare = parseElf(copy);
    assert.deepEqual(bare.warnings, []);
    assert.deepEqual(bare.sections, []);
    assert.deepEqual(bare.ehFrameFunctions, full.ehFrameFunctions);
    assert.deepEqual(bare.ehFrameFunctions, await readelfFdes(path));
    assert.equal(bare.buildId, full.buildId);
    assert.deepEqual(bare.dynamic, full.dynamic);
    // Imports through DT_JMPREL / DT_RELA still come out, without stubs (no .plt section).
    assert.deepEqual(
      bare.imports.map((i) => [i.name, i.gotAddress]),
      full.imports.map((i) => [i.name, i.gotAddress]),
    );
    assert.deepEqual(bare.pltStubs, []);
    const image = elfImage(copy, "bare", { parsed: bare });
    assert.ok(image.sections.length > 0 && image.sections.every((s) => s.name.startsWith("LOAD[")));
    assert.ok(image.functions.some((f) => f.source === "eh-frame"));
  },
);

// ---------------------------------------------------------------------------
// Synthetic .eh_frame

const TEXT_AT = 0x1000;
const TEXT_SIZE = 0x1000;

/** A file with .text, the given .eh_frame at 0x2000 and optional extra sections. */
function withEhFrame(
  bits: 32 | 64,
  endianness: "little" | "big",
  records: EhRecord[],
  options: {
    hdr?: "table" | "none" | { location: number; fde: number }[];
    extra?: RawSection[];
    sectionHeaders?: boolean;
    dataBase?: number;
  } = {},
): { bytes: Uint8Array; offsets: number[]; frameAt: number } {
  const le = endianness === "little";
  const frameAt = 0x2000;
  const { bytes: frame, offsets } = encodeEhFrame(records, {
    address: BASE + frameAt,
    bits,
    littleEndian: le,
    dataBase: options.dataBase,
  });
  const sections: RawSection[] = [
    { name: ".text", type: 1, flags: 6, offset: TEXT_AT, data: new Uint8Array(TEXT_SIZE) },
    { name: ".eh_frame", type: 1, flags: 2, offset: frameAt, data: frame, align: 8 },
  ];
  const segments = [];
  const hdrAt = 0x6000;
  if (options.hdr !== undefined && options.hdr !== "none") {
    const entries = options.hdr === "table"
      ? records.flatMap((r, i) =>
        r.kind === "fde" ? [{ location: r.pcBegin, fde: BASE + frameAt + offsets[i]! }] : []
      ).sort((a, b) => a.location - b.location)
      : options.hdr;
    const hdr = encodeEhFrameHdr(BASE + hdrAt, BASE + frameAt, entries, le);
    sections.push({ name: ".eh_frame_hdr", type: 1, flags: 2, offset: hdrAt, data: hdr, align: 4 });
    segments.push({ type: 0x6474e550, offset: hdrAt, size: hdr.length });
  }
  sections.push(...(options.extra ?? []));
  const built = buildRawElf({
    bits,
    endianness,
    sections,
    segments,
    sectionHeaders: options.sectionHeaders,
  });
  return { bytes: built.bytes, offsets, frameAt };
}

const COMBINATIONS = [
  { bits: 64, endianness: "little" },
  { bits: 64, endianness: "big" },
  { bits: 32, endianness: "little" },
  { bits: 32, endianness: "big" },
] as const;

const T = BASE + TEXT_AT;

/**
 * CIEs with every augmentation and pointer encoding, and one FDE each;
 * without `leb`, only those readelf decodes (it has no LEB128 FDE pointers).
 */
function encodingRecords(leb: boolean): { records: EhRecord[]; expected: [number, number][] } {
  const records: EhRecord[] = [];
  const expected: [number, number][] = [];
  const encodings = [
    PE.pcrel | PE.sdata4,
    PE.absptr,
    PE.udata4,
    PE.sdata4,
    PE.udata2 | PE.pcrel,
    PE.sdata2 | PE.pcrel,
    PE.udata8,
    PE.sdata8 | PE.pcrel,
    PE.pcrel | PE.udata4,
    ...(leb ? [PE.uleb128, PE.sleb128 | PE.pcrel] : []),
  ];
  encodings.forEach((encoding, i) => {
    records.push({ kind: "cie", augmentation: "zR", fdeEncoding: encoding });
    const format = encoding & 0x0f;
    const pcBegin = format === PE.udata2 || format === PE.sdata2
      ? 0x2000 + BASE + 0x40 * i // near the .eh_frame (2-byte pcrel)
      : encoding === (PE.pcrel | PE.udata4)
      ? BASE + 0x5000 + 0x40 * i // after it (an unsigned pcrel offset)
      : T + 0x40 * i;
    records.push({ kind: "fde", cie: records.length - 1, pcBegin, pcRange: 0x10 + i });
    expected.push([pcBegin, 0x10 + i]);
  });
  // Augmentations: P (personality, indirect pcrel), L, S, "" and "eh", version 3.
  records.push({
    kind: "cie",
    augmentation: "zPLR",
    personality: { encoding: PE.indirect | PE.pcrel | PE.sdata4, value: T + 0x800 },
    lsdaEncoding: PE.pcrel | PE.sdata4,
  });
  records.push({ kind: "fde", cie: records.length - 1, pcBegin: T + 0x400, pcRange: 0x30 });
  expected.push([T + 0x400, 0x30]);
  records.push({ kind: "cie", augmentation: "zRS", version: 3 });
  records.push({ kind: "fde", cie: records.length - 1, pcBegin: T + 0x440, pcRange: 0x8 });
  expected.push([T + 0x440, 0x8]);
  records.push({ kind: "cie", augmentation: "" });
  records.push({ kind: "fde", cie: records.length - 1, pcBegin: T + 0x480, pcRange: 0x18 });
  expected.push([T + 0x480, 0x18]);
  records.push({ kind: "cie", augmentation: "eh" });
  records.push({ kind: "fde", cie: records.length - 1, pcBegin: T + 0x4c0, pcRange: 0x20 });
  expected.push([T + 0x4c0, 0x20]);
  // A second FDE of the first CIE, and one starting at the same address.
  records.push({ kind: "fde", cie: 0, pcBegin: T + 0x500, pcRange: 0x44 });
  expected.push([T + 0x500, 0x44]);
  records.push({ kind: "fde", cie: 0, pcBegin: T + 0x500, pcRange: 0x4 });
  expected.push([T + 0x500, 0x4]);
  records.push({ kind: "zero" });
  return { records, expected };
}

const sortPairs = (pairs: [number, number][]): [number, number][] =>
  [...pairs].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
const ranges = (image: ElfImage): [number, number][] =>
  image.ehFrameFunctions.map((f) => [Number(f.address), Number(f.size)]);

for (const { bits, endianness } of COMBINATIONS) {
  testWith(
    {},
    `.eh_frame: every pointer encoding and augmentation decodes exactly (${bits}-bit ${endianness}-endian)`,
    async () => {
      for (const [hdr, leb] of [["none", true], ["table", true], ["none", false]] as const) {
        const { records, expected } = encodingRecords(leb);
        const { bytes } = withEhFrame(bits, endianness, records, { hdr });
        const image = parseElf(bytes);
        assert.deepEqual(image.warnings, [], hdr);
        assert.deepEqual(ranges(image), sortPairs(expected), hdr);
        if (HAVE.readelf && !leb) {
          // The encoder and decoder are both ours: readelf checks the file itself.
          const path = await Deno.makeTempFile({ prefix: "casefile-eh-" });
          try {
            await Deno.writeFile(path, bytes);
            assert.deepEqual(image.ehFrameFunctions, await readelfFdes(path));
          } finally {
            await Deno.remove(path);
          }
        }
      }
    },
  );
}

Deno.test(".eh_frame: 64-bit DWARF lengths, DW_EH_PE_datarel against the GOT and indirect pc_begin", () => {
  for (const { bits, endianness } of COMBINATIONS) {
    const le = endianness === "little";
    const got = BASE + 0x7000;
    const pointerAt = BASE + 0x7100; // holds the real address of an indirect pc_begin
    const pointers = new ByteBuilder(le, bits).word(T + 0x900).bytes();
    const gotPlt: RawSection = {
      name: ".got.plt",
      type: 1,
      flags: 3,
      offset: 0x7000,
      data: new Uint8Array(0x100),
    };
    const data: RawSection = { name: ".data", type: 1, flags: 3, offset: 0x7100, data: pointers };
    const records: EhRecord[] = [
      { kind: "cie", dwarf64: true },
      { kind: "fde", cie: 0, pcBegin: T + 0x10, pcRange: 0x20, dwarf64: true },
      { kind: "fde", cie: 0, pcBegin: T + 0x30, pcRange: 0x8 },
      { kind: "cie", fdeEncoding: PE.datarel | PE.sdata4 },
      { kind: "fde", cie: 3, pcBegin: T + 0x40, pcRange: 0xc },
      { kind: "cie", fdeEncoding: PE.indirect | PE.absptr },
      { kind: "fde", cie: 5, pcBegin: pointerAt, pcRange: 0x14 },
    ];
    const { bytes } = withEhFrame(bits, endianness, records, {
      extra: [gotPlt, data],
      dataBase: got,
    });
    const image = parseElf(bytes);
    assert.deepEqual(image.warnings, [], `${bits} ${endianness}`);
    assert.deepEqual(ranges(image), [[T + 0x10, 0x20], [T + 0x30, 0x8], [T + 0x40, 0xc], [
      T + 0x900,
      0x14,
    ]]);
  }
});

testWith(
  { llvmDwarfdump: HAVE.llvmDwarfdump },
  ".eh_frame: 64-bit DWARF lengths read like llvm-dwarfdump-14 --eh-frame (4-byte CIE ids)",
  async () => {
    // In .eh_frame the CIE id / CIE pointer stays 4 bytes after a 64-bit
    // length (LSB); llvm-dwarfdump agrees, readelf 2.40 reads 8 bytes there.
    for (const { bits, endianness } of COMBINATIONS) {
      const records: EhRecord[] = [
        { kind: "cie", dwarf64: true },
        { kind: "fde", cie: 0, pcBegin: T + 0x10, pcRange: 0x20, dwarf64: true },
        { kind: "cie" },
        { kind: "fde", cie: 2, pcBegin: T + 0x40, pcRange: 0x8, dwarf64: true },
        { kind: "fde", cie: 0, pcBegin: T + 0x60, pcRange: 0xc },
        { kind: "zero" },
      ];
      const { bytes } = withEhFrame(bits, endianness, records);
      const path = await Deno.makeTempFile({ prefix: "casefile-eh64-" });
      try {
        await Deno.writeFile(path, bytes);
        const out = await run("llvm-dwarfdump-14", ["--eh-frame", path]);
        const peer = [...out.matchAll(/ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.\.([0-9a-f]+)/g)]
          .map((m) => {
            const start = Number.parseInt(m[1]!, 16);
            return [start, Number.parseInt(m[2]!, 16) - start] as [number, number];
          });
        const image = parseElf(bytes);
        assert.deepEqual(image.warnings, []);
        assert.equal(peer.length, 3, out);
        assert.deepEqual(ranges(image), sortPairs(peer), `${bits} ${endianness}`);
      } finally {
        await Deno.remove(path);
      }
    }
  },
);

Deno.test(".eh_frame_hdr: the search table is used and cross-checked against .eh_frame", () => {
  const records: EhRecord[] = [
    { kind: "cie" },
    { kind: "fde", cie: 0, pcBegin: T + 0x100, pcRange: 0x10 },
    { kind: "fde", cie: 0, pcBegin: T + 0x40, pcRange: 0x20 },
    { kind: "fde", cie: 0, pcBegin: T + 0x200, pcRange: 0x30 },
  ];
  const frame = BASE + 0x2000;
  const { offsets } = withEhFrame(64, "little", records);
  const expected: [number, number][] = [[T + 0x40, 0x20], [T + 0x100, 0x10], [T + 0x200, 0x30]];
  // Complete table: no warnings, and the same without section headers.
  for (const sectionHeaders of [true, false]) {
    const { bytes } = withEhFrame(64, "little", records, { hdr: "table", sectionHeaders });
    const image = parseElf(bytes);
    assert.deepEqual(image.warnings, [], `section headers: ${sectionHeaders}`);
    assert.deepEqual(ranges(image), expected);
  }
  // A table that misses an FDE: warned, and .eh_frame is walked instead.
  const partial = [
    { location: T + 0x40, fde: frame + offsets[2]! },
    { location: T + 0x100, fde: frame + offsets[1]! },
  ];
  let image = parseElf(withEhFrame(64, "little", records, { hdr: partial }).bytes);
  assert.deepEqual(image.warnings, [
    "The .eh_frame_hdr table lists 2 FDEs but .eh_frame (section 2) holds 3 (1 not in the " +
    "table); reading .eh_frame (section 2) instead",
  ]);
  assert.deepEqual(ranges(image), expected);
  // Without section headers the table is all there is: its two FDEs.
  image = parseElf(
    withEhFrame(64, "little", records, { hdr: partial, sectionHeaders: false }).bytes,
  );
  assert.deepEqual(image.warnings, []);
  assert.deepEqual(ranges(image), [[T + 0x40, 0x20], [T + 0x100, 0x10]]);
  // Wrong initial locations and an unsorted table.
  const wrong = [
    { location: T + 0x100, fde: frame + offsets[1]! },
    { location: T + 0x41, fde: frame + offsets[2]! },
    { location: T + 0x200, fde: frame + offsets[3]! },
  ];
  image = parseElf(withEhFrame(64, "little", records, { hdr: wrong }).bytes);
  assert.deepEqual(image.warnings, [
    "The search table of .eh_frame_hdr (section 3) is not sorted (1 entries out of order)",
    "1 entry of the search table of .eh_frame_hdr (section 3) gives an initial location that " +
    `differs from the FDE's pc_begin (the first FDE at offset ${hex(0x2000 + offsets[2]!)}); ` +
    "using the FDE's",
  ]);
  assert.deepEqual(ranges(image), expected);
  // A table entry pointing into the middle of a record, and one outside .eh_frame.
  const stray = [
    { location: T + 0x40, fde: frame + offsets[2]! + 4 },
    { location: T + 0x100, fde: BASE + 0x100 },
  ];
  image = parseElf(withEhFrame(64, "little", records, { hdr: stray, sectionHeaders: false }).bytes);
  assert.equal(image.ehFrameFunctions.length, 0);
  assert.equal(image.warnings.length, 2, image.warnings.join("\n"));
  assert.match(image.warnings.join("\n"), /outside .eh_frame/);
});

/** Parses damaged bytes: only ElfParseError may escape, and no internal error may be hidden. */
function parseDamaged(bytes: Uint8Array, label: string, maxFdes?: number): ElfImage | null {
  let image: ElfImage;
  try {
    image = parseElf(bytes, maxFdes === undefined ? {} : { maxFdes });
  } catch (error) {
    if (error instanceof ElfParseError) return null;
    throw new Error(`${label}: unexpected ${error}`, { cause: error });
  }
  for (const w of image.warnings) {
    assert.ok(!w.startsWith("Internal error"), `${label}: ${w}`);
  }
  for (const f of image.ehFrameFunctions) {
    assert.equal(typeof f.address, "bigint", label);
    assert.equal(typeof f.size, "bigint", label);
  }
  assert.ok(image.ehFrameFunctions.length <= bytes.length / 8, label);
  elfImage(bytes, label, { parsed: image });
  return image;
}

Deno.test(".eh_frame damage: bounded, with warnings, and the sound FDEs still read", () => {
  const records: EhRecord[] = [
    { kind: "cie" },
    { kind: "fde", cie: 0, pcBegin: T + 0x10, pcRange: 0x10 },
    { kind: "cie", fdeEncoding: 0x0e }, // an unknown pointer format
    { kind: "fde", cie: 2, pcBegin: T + 0x20, pcRange: 0x10 },
    { kind: "fde", cie: 0, pcBegin: T + 0x30, pcRange: 0x10, ciePointer: 0x7fff0000 },
    { kind: "fde", cie: 0, pcBegin: T + 0x40, pcRange: 0x10, ciePointer: 4 },
    { kind: "cie", fdeEncoding: PE.pcrel | 0x40 | PE.sdata4 }, // funcrel: unsupported
    { kind: "fde", cie: 6, pcBegin: T + 0x50, pcRange: 0x10 },
    { kind: "fde", cie: 0, pcBegin: T + 0x60, pcRange: 0x10 },
    { kind: "fde", cie: 1, pcBegin: T + 0x70, pcRange: 0x10 }, // the CIE pointer leads to an FDE
    { kind: "cie", augmentation: "zXR" }, // unknown letter before R
    { kind: "fde", cie: 10, pcBegin: T + 0x80, pcRange: 0x10 },
    { kind: "fde", cie: 0, pcBegin: T + 0x90, pcRange: 0x10 },
  ];
  const { bytes } = withEhFrame(64, "little", records);
  const image = parseDamaged(bytes, "mixed damage")!;
  assert.deepEqual(ranges(image), [[T + 0x10, 0x10], [T + 0x60, 0x10], [T + 0x90, 0x10]]);
  const text = image.warnings.join("\n");
  for (
    const pattern of [
      /unknown FDE pointer encoding 0xe/,
      /CIE pointer that points before the start of the section/,
      /CIE pointer that points at the FDE itself/,
      /unknown FDE pointer encoding 0x5b/,
      /is not a CIE/,
      /whose 'X' hides the FDE pointer encoding/,
    ]
  ) assert.match(text, pattern);
  assert.equal(image.warnings.length, 6, text);

  // Structural damage: each stops the walk with one warning, keeping what came before.
  const base: EhRecord[] = [
    { kind: "cie" },
    { kind: "fde", cie: 0, pcBegin: T + 0x10, pcRange: 0x10 },
    { kind: "fde", cie: 0, pcBegin: T + 0x20, pcRange: 0x10 },
  ];
  const clean = withEhFrame(64, "little", base);
  const at = (i: number): number => clean.frameAt + clean.offsets[i]!;
  const view = (b: Uint8Array): DataView => new DataView(b.buffer);
  const cases: [string, (b: Uint8Array) => void, RegExp, number][] = [
    ["a zeroed CIE length", (b) => view(b).setUint32(at(0), 0, true), /./, 0],
    [
      "an FDE length past the end",
      (b) => view(b).setUint32(at(2), 0x100000, true),
      /has a length that runs past the end of the section/,
      1,
    ],
    [
      "a reserved length",
      (b) => view(b).setUint32(at(1), 0xfffffff5, true),
      /reserved length value/,
      0,
    ],
    [
      "a 64-bit length of 2^60",
      (b) => {
        // Turn the last FDE into a 64-bit record with an absurd length.
        view(b).setUint32(at(2), 0xffffffff, true);
        view(b).setBigUint64(at(2) + 4, 2n ** 60n, true);
      },
      /runs past the end of the section/,
      1,
    ],
    [
      "a length of 1 (too short for the CIE id)",
      (b) => view(b).setUint32(at(2), 1, true),
      /too short to hold its CIE id/,
      1,
    ],
  ];
  for (const [label, damage, pattern, kept] of cases) {
    const copy = clean.bytes.slice();
    damage(copy);
    const result = parseDamaged(copy, label)!;
    assert.ok(result.warnings.length > 0, label);
    assert.match(result.warnings.join("\n"), pattern, label);
    assert.ok(result.ehFrameFunctions.length <= kept + 1, `${label}: ${ranges(result)}`);
    if (kept > 0) assert.deepEqual(ranges(result).slice(0, kept), [[T + 0x10, 0x10]], label);
  }

  // Thousands of zero words (each a terminator) and a cap on FDEs.
  const many: EhRecord[] = [{ kind: "cie" }];
  for (let i = 0; i < 2000; i++) {
    many.push({ kind: "fde", cie: 0, pcBegin: T + 2 * (i % 1000), pcRange: 2 });
  }
  for (let i = 0; i < 4000; i++) many.push({ kind: "zero" });
  const big = withEhFrame(64, "little", many).bytes;
  assert.equal(parseDamaged(big, "many")!.ehFrameFunctions.length, 2000);
  const capped = parseDamaged(big, "capped", 100)!;
  assert.equal(capped.ehFrameFunctions.length, 100);
  assert.deepEqual(capped.warnings, [
    ".eh_frame (section 2) holds more than the maxFdes limit of 100 FDEs; reading the first 100",
  ]);
  assert.throws(() => parseElf(big, { maxFdes: -1 }), RangeError);
});

Deno.test(".eh_frame_hdr damage: bad version, truncated header, huge count, unusable encodings", () => {
  const records: EhRecord[] = [
    { kind: "cie" },
    { kind: "fde", cie: 0, pcBegin: T + 0x10, pcRange: 0x10 },
  ];
  const { bytes } = withEhFrame(64, "little", records, { hdr: "table", sectionHeaders: false });
  const hdrAt = 0x6000;
  const cases: [string, (b: Uint8Array) => void, RegExp, boolean][] = [
    ["version 2", (b) => (b[hdrAt] = 2), /its version is 2, expected 1/, false],
    [
      "fde_count 2^31",
      (b) => new DataView(b.buffer).setUint32(hdrAt + 8, 2 ** 31, true),
      /claims 2147483648 entries/,
      true,
    ],
    // Without a usable table, .eh_frame is walked from eh_frame_ptr to its terminator.
    ["table encoding uleb128", (b) => (b[hdrAt + 3] = PE.uleb128), /has no fixed size/, true],
    [
      "eh_frame_ptr encoding 0x0f",
      (b) => (b[hdrAt + 1] = 0x0f),
      /unknown pointer encoding 0xf/,
      false,
    ],
    [
      "eh_frame_ptr out of the file",
      (b) => new DataView(b.buffer).setInt32(hdrAt + 4, 0x7fff0000, true),
      /is not in the file/,
      false,
    ],
  ];
  for (const [label, damage, pattern, found] of cases) {
    const copy = bytes.slice();
    damage(copy);
    const image = parseDamaged(copy, label)!;
    assert.match(image.warnings.join("\n"), pattern, `${label}: ${image.warnings}`);
    // Without a usable pointer there is no way to .eh_frame (no section headers).
    assert.equal(image.ehFrameFunctions.length, found ? 1 : 0, label);
  }
  // Cut inside the header.
  const cut = parseDamaged(bytes.subarray(0, hdrAt + 2), "cut")!;
  assert.ok(cut.warnings.length > 0);
});

// ---------------------------------------------------------------------------
// Synthetic dynamic section, notes and PLT

Deno.test("the dynamic section: names, flags and init/fini, and damage (no DT_NULL, bad name offsets)", () => {
  for (const { bits, endianness } of COMBINATIONS) {
    const le = endianness === "little";
    const strings = new ByteBuilder(le, bits).u8(0).cstring("libfoo.so.1").cstring("libbar.so")
      .cstring("libself.so.2").cstring("$ORIGIN/../lib").cstring("/opt/old").bytes();
    const dynstrAt = 0x3000;
    const entries: [number, number][] = [
      [1, 1],
      [1, 13],
      [14, 23],
      [29, 36],
      [15, 51],
      [5, BASE + dynstrAt],
      [10, strings.length],
      [12, T],
      [13, T + 0x10],
      [25, BASE + 0x5000],
      [27, 16],
      [30, 8],
      [0x6ffffffb, 0x8000001],
    ];
    const build = (list: [number, number][]): Uint8Array =>
      buildRawElf({
        bits,
        endianness,
        type: ET_DYN,
        sections: [
          { name: ".text", type: 1, flags: 6, offset: TEXT_AT, data: new Uint8Array(0x100) },
          { name: ".dynstr", type: 3, flags: 2, offset: dynstrAt, data: strings },
          {
            name: ".dynamic",
            type: 6,
            flags: 3,
            offset: 0x4000,
            data: encodeDynamic(list, bits, le),
            link: ".dynstr",
            entsize: bits === 64 ? 16 : 8,
          },
        ],
        segments: [{ type: 2, offset: 0x4000, size: encodeDynamic(list, bits, le).length }],
      }).bytes;
    const image = parseElf(build([...entries, [0, 0], [0, 0]]));
    assert.deepEqual(image.warnings, []);
    assert.deepEqual(image.dynamic.needed, ["libfoo.so.1", "libbar.so"]);
    assert.equal(image.dynamic.soname, "libself.so.2");
    assert.equal(image.dynamic.runpath, "$ORIGIN/../lib");
    assert.equal(image.dynamic.rpath, "/opt/old");
    assert.equal(image.dynamic.flags, 8n);
    assert.equal(image.dynamic.flags1, 0x8000001n);
    assert.equal(image.dynamic.init, BigInt(T));
    assert.equal(image.dynamic.fini, BigInt(T + 0x10));
    assert.deepEqual(image.dynamic.initArray, { address: BigInt(BASE + 0x5000), size: 16n });
    assert.equal(image.dynamic.finiArray, null);
    assert.deepEqual(
      image.dynamic.entries.map((e) => [e.tagName, e.value]),
      entries.map(([tag, value]) => [
        tag === 0x6ffffffb ? "DT_FLAGS_1" : image.dynamic.entries.find((e) => e.tag === tag)!
          .tagName,
        BigInt(value),
      ]),
    );
    assert.equal(image.dynamic.entries[0]!.tagName, "DT_NEEDED");
    assert.deepEqual(elfImage(build([...entries, [0, 0]]), "d").libraries, image.dynamic.needed);

    // No DT_NULL: every entry is read, with a warning.
    const open = parseElf(build(entries));
    assert.deepEqual(open.warnings, [
      `The dynamic section (PT_DYNAMIC, ${entries.length * (bits / 4)} bytes at offset 0x4000) ` +
      `has no DT_NULL terminator; reading its ${entries.length} entries`,
    ]);
    assert.deepEqual(open.dynamic.needed, image.dynamic.needed);
    // A name offset past DT_STRSZ.
    const bad = parseElf(build([[1, 0x7fffffff], ...entries, [0, 0]]));
    assert.deepEqual(bad.dynamic.needed, image.dynamic.needed);
    assert.deepEqual(bad.warnings, [
      `1 dynamic entry has a name offset past the end of the ${strings.length}-byte dynamic ` +
      "string table; it is skipped",
    ]);
    // DT_STRTAB outside the file: names fall back to the section's sh_link table.
    const moved = parseElf(
      build([...entries.filter(([tag]) => tag !== 5), [5, 0x7fff0000], [0, 0]]),
    );
    assert.deepEqual(moved.dynamic.needed, image.dynamic.needed);
  }
});

Deno.test("notes: the GNU build id, 8-byte aligned notes, and absurd namesz / descsz", () => {
  for (const { bits, endianness } of COMBINATIONS) {
    const le = endianness === "little";
    const id = Uint8Array.from({ length: 20 }, (_, i) => (i * 37 + 5) & 0xff);
    const idHex = Array.from(id, (b) => b.toString(16).padStart(2, "0")).join("");
    const property = encodeNote("GNU", 5, new Uint8Array(16), le, { alignment: 8 });
    const notes = (build: Uint8Array): Uint8Array =>
      buildRawElf({
        bits,
        endianness,
        sections: [
          {
            name: ".note.gnu.property",
            type: 7,
            flags: 2,
            offset: 0x1000,
            data: property,
            align: 8,
          },
          { name: ".note.gnu.build-id", type: 7, flags: 2, offset: 0x1100, data: build, align: 4 },
        ],
        segments: [{ type: 4, offset: 0x1100, size: build.length }],
      }).bytes;
    const good = encodeNote("GNU", 3, id, le);
    const abi = encodeNote("GNU", 1, new Uint8Array(16), le);
    const both = new Uint8Array([...abi, ...good]);
    let image = parseElf(notes(both));
    assert.deepEqual(image.warnings, []);
    assert.equal(image.buildId, idHex);
    assert.equal(elfImage(notes(both), "n").buildId, idHex);
    // Through PT_NOTE once the section headers are gone.
    const bytes = notes(both);
    const l = layoutOf(bits);
    poke({ littleEndian: le }, bytes, l.eShoff, l.wordSize, 0);
    poke({ littleEndian: le }, bytes, l.eShnum, 2, 0);
    poke({ littleEndian: le }, bytes, l.eShstrndx, 2, 0);
    image = parseElf(bytes);
    assert.deepEqual(image.warnings, []);
    assert.equal(image.buildId, idHex);
    // Absurd sizes.
    for (const [namesz, descsz] of [[0xffffffff, 20], [4, 0xfffffff0], [0x7fffffff, 0x7fffffff]]) {
      const broken = encodeNote("GNU", 3, id, le, { namesz, descsz });
      image = parseDamaged(notes(broken), `namesz ${namesz} descsz ${descsz}`)!;
      assert.equal(image.buildId, null);
      assert.deepEqual(image.warnings, [
        `The note at offset 0x1100 in .note.gnu.build-id (section 2) has namesz ${namesz} and ` +
        `descsz ${descsz}, which run past the end of its ${broken.length}-byte region; the rest ` +
        "of the region is skipped",
      ]);
    }
    // A build id note of 4 KiB is ignored, not printed.
    image = parseElf(notes(encodeNote("GNU", 3, new Uint8Array(4096), le)));
    assert.equal(image.buildId, null);
    assert.match(image.warnings.join(), /is 4096 bytes, more than 1024; it is ignored/);
  }
});

/** A small dynamically linked file with a PLT for `machine`, its stubs and imports known. */
function pltFile(
  machine: "x86_64" | "i386" | "i386-pic" | "aarch64" | "aarch64-bti" | "arm",
  options: { pltSize?: number; endianness?: "little" | "big" } = {},
): { bytes: Uint8Array; stubs: [number, string, number][]; plt: number } {
  const bits = machine === "x86_64" || machine.startsWith("aarch64") ? 64 : 32;
  const endianness = options.endianness ?? "little";
  const le = endianness === "little";
  const pltAt = 0x1000;
  const gotAt = 0x3000;
  const plt = BASE + pltAt;
  const got = BASE + gotAt;
  const names = ["alpha", "beta", "gamma"];
  const symbols = encodeSymbols(
    [
      ...names.map((name) => ({ name, type: STT_FUNC, bind: STB_GLOBAL, shndx: 0 })),
      { name: "data_in", type: STT_OBJECT, bind: STB_GLOBAL, shndx: 0 },
      { name: "weak_hook", type: STT_NOTYPE, bind: STB_WEAK, shndx: 0 },
      { name: "local_def", type: STT_FUNC, bind: STB_GLOBAL, shndx: 1, value: plt + 0x800 },
    ],
    bits,
    le,
  );
  const b = new ByteBuilder(le, 32);
  const stubs: [number, string, number][] = [];
  const slotSize = bits / 8;
  let entry: number;
  const jumpSlot =
    { x86_64: 7, i386: 7, "i386-pic": 7, aarch64: 1026, "aarch64-bti": 1026, arm: 22 }[
      machine
    ];
  const insn = (word: number): void => void b.u32(word >>> 0);
  if (machine === "x86_64" || machine === "i386" || machine === "i386-pic") {
    b.raw(new Array(16).fill(0x90)); // PLT0 stand-in
    names.forEach((name, i) => {
      entry = plt + 16 * (i + 1);
      const slot = got + 24 + slotSize * i;
      const start = b.length;
      if (i === 1) {
        b.raw(machine === "x86_64" ? [0xf3, 0x0f, 0x1e, 0xfa] : [0xf3, 0x0f, 0x1e, 0xfb]);
      }
      if (i === 2) b.u8(0xf2);
      if (machine === "x86_64") b.u8(0xff).u8(0x25).u32(slot - (plt + b.length + 4));
      else if (machine === "i386") b.u8(0xff).u8(0x25).u32(slot);
      else b.u8(0xff).u8(0xa3).u32(slot - got);
      while (b.length < start + 16) b.u8(0x90);
      stubs.push([entry, name, slot]);
    });
  } else if (machine === "arm") {
    b.raw(new Array(20).fill(0));
    names.forEach((name, i) => {
      entry = plt + b.length;
      const slot = got + 12 + 4 * i;
      const delta = slot - (entry + 8);
      // add ip, pc, #(delta & 0xff00000); add ip, ip, #(delta & 0xff000); ldr pc, [ip, #(delta & 0xfff)]!
      insn(0xe28fc600 | ((delta >>> 20) & 0xff));
      insn(0xe28cca00 | ((delta >>> 12) & 0xff));
      insn(0xe5bcf000 | (delta & 0xfff));
      stubs.push([entry, name, slot]);
    });
  } else {
    const bti = machine === "aarch64-bti";
    // PLT0: stp; adrp; ldr; add; br; nops (its slot, GOT+16, has no relocation).
    const adrp = (pc: number, target: number): number => {
      const pages = Math.floor(target / 4096) - Math.floor(pc / 4096);
      return 0x90000010 | ((pages & 3) << 29) | (((pages >> 2) & 0x7ffff) << 5);
    };
    const stub = (at: number, slot: number): void => {
      if (bti) insn(0xd503245f);
      const pc = plt + b.length;
      insn(adrp(pc, slot));
      insn(0xf9400211 | (((slot & 0xfff) / 8) << 10));
      insn(0x91000210 | ((slot & 0xfff) << 10));
      if (bti && at % 2 === 0) insn(0xd503219f); // autia1716
      insn(0xd61f0220);
      while ((b.length % 16) !== 0 || b.length === 0) insn(0xd503201f);
    };
    insn(0xa9bf7bf0);
    stub(-1, got + 16);
    names.forEach((name, i) => {
      entry = plt + b.length;
      const slot = got + 24 + 8 * i;
      stub(i, slot);
      stubs.push([entry, name, slot]);
    });
  }
  const pltBytes = b.bytes();
  const relocations = encodeRelocations(
    stubs.map(([, , slot], i) => [slot, i + 1, jumpSlot, 0]),
    { bits, littleEndian: le, rela: bits === 64 },
  );
  const globDat =
    { x86_64: 6, i386: 6, "i386-pic": 6, aarch64: 1025, "aarch64-bti": 1025, arm: 21 }[
      machine
    ];
  const dyn = encodeRelocations(
    [[got - 8, 4, globDat, 0], [got - 16, 5, globDat, 0], [got - 24, 6, globDat, 0]],
    { bits, littleEndian: le, rela: bits === 64 },
  );
  const rel = bits === 64 ? ".rela" : ".rel";
  const relType = bits === 64 ? 4 : 9;
  const e = {
    x86_64: 62,
    i386: 3,
    "i386-pic": 3,
    aarch64: 183,
    "aarch64-bti": 183,
    arm: 40,
  }[machine];
  const built = buildRawElf({
    bits,
    endianness,
    machine: e,
    sections: [
      {
        name: ".plt",
        type: 1,
        flags: 6,
        offset: pltAt,
        data: pltBytes,
        size: options.pltSize,
        entsize: machine.startsWith("aarch64") || machine === "arm" ? 0 : 16,
      },
      {
        name: ".dynsym",
        type: 11,
        flags: 2,
        offset: 0x2000,
        data: symbols.symbols,
        link: ".dynstr",
        entsize: bits === 64 ? 24 : 16,
        info: 1,
      },
      { name: ".dynstr", type: 3, flags: 2, offset: 0x2800, data: symbols.strings },
      { name: ".got.plt", type: 1, flags: 3, offset: gotAt, data: new Uint8Array(0x100) },
      {
        name: `${rel}.plt`,
        type: relType,
        flags: 0x42,
        offset: 0x4000,
        data: relocations,
        link: ".dynsym",
        entsize: bits === 64 ? 24 : 8,
      },
      {
        name: `${rel}.dyn`,
        type: relType,
        flags: 2,
        offset: 0x4800,
        data: dyn,
        link: ".dynsym",
        entsize: bits === 64 ? 24 : 8,
      },
    ],
  });
  return { bytes: built.bytes, stubs, plt };
}

Deno.test("PLT stubs and imports of synthetic x86-64, i386 (absolute and PIC), AArch64 (with BTI/PAC) and ARM PLTs", () => {
  const cases = [
    ["x86_64", "little"],
    ["i386", "little"],
    ["i386-pic", "little"],
    ["aarch64", "little"],
    ["aarch64-bti", "little"],
    ["arm", "little"],
    ["aarch64", "big"],
  ] as const;
  for (const [machine, endianness] of cases) {
    const { bytes, stubs } = pltFile(machine, { endianness });
    const image = parseElf(bytes);
    assert.deepEqual(image.warnings, [], machine);
    assert.deepEqual(
      image.pltStubs.map((s) => [Number(s.address), s.name, Number(s.gotAddress)]),
      stubs,
      machine,
    );
    assert.ok(image.pltStubs.every((s) => s.section === ".plt" && s.irelative === null));
    const got = BASE + 0x3000;
    assert.deepEqual(
      image.imports.map((i) => [i.name, Number(i.gotAddress), i.kind, i.stubAddress]),
      [
        ["weak_hook", got - 16, "glob-dat", null],
        ["data_in", got - 8, "glob-dat", null],
        ...stubs.map(([address, name, slot]) => [name, slot, "jump-slot", BigInt(address)]),
      ],
      machine,
    );
    // local_def is defined: a GLOB_DAT against it is no import.
    const bin = elfImage(bytes, machine);
    assert.deepEqual(
      bin.imports,
      [
        ...stubs.map(([address, name, slot]) => ({
          library: null,
          name,
          address: BigInt(address),
          slots: [BigInt(slot)],
        })),
        { library: null, name: "weak_hook", address: null, slots: [BigInt(got - 16)] },
      ],
      machine,
    );
    assert.deepEqual(bin.exports, [{ name: "local_def", address: BigInt(BASE + 0x1800) }]);
  }
});

Deno.test("PLT damage: a PLT of odd size, a relocation naming a symbol past the table", () => {
  for (const machine of ["x86_64", "aarch64"] as const) {
    const { bytes, stubs } = pltFile(machine, { pltSize: 16 * 3 + 7 });
    const image = parseDamaged(bytes, `${machine} odd`)!;
    const unit = machine === "x86_64" ? "its 16-byte entries" : "4-byte instructions";
    assert.deepEqual(image.warnings, [
      `PLT section .plt (section 1) is 55 bytes, not a multiple of ${unit}; ignoring the last ` +
      `${machine === "x86_64" ? 7 : 3} bytes`,
    ]);
    // x86-64: PLT0 and two 16-byte entries fit; AArch64: PLT0 is 32 bytes, so one.
    const whole = machine === "x86_64" ? 2 : 1;
    assert.deepEqual(image.pltStubs.map((s) => s.name), stubs.slice(0, whole).map((s) => s[1]));
  }
  const { bytes } = pltFile("x86_64");
  const copy = bytes.slice();
  // .rela.plt's second relocation: symbol index 0x7fff.
  new DataView(copy.buffer).setUint32(0x4000 + 24 + 12, 0x7fff, true);
  const image = parseDamaged(copy, "bad symbol")!;
  assert.deepEqual(image.warnings, [
    "1 PLT/GOT relocation names a symbol past the end of the 7-entry dynamic symbol table; it is " +
    "skipped",
  ]);
  assert.deepEqual(image.pltStubs.map((s) => s.name), ["alpha", "gamma"]);
});

Deno.test("elfImage(): sections from section headers or LOAD[i], eh-frame functions, entry", () => {
  const records: EhRecord[] = [
    { kind: "cie" },
    { kind: "fde", cie: 0, pcBegin: T + 0x10, pcRange: 0x10 },
    { kind: "fde", cie: 0, pcBegin: T + 0x40, pcRange: 0x20 },
    { kind: "fde", cie: 0, pcBegin: BASE + 0x100, pcRange: 0x20 }, // not in code: left out
  ];
  const { bytes } = withEhFrame(64, "little", records, { hdr: "table" });
  const image = elfImage(bytes, "synthetic");
  assert.deepEqual(image.warnings, []);
  assert.equal(image.entry, BigInt(BASE + 0x200));
  assert.deepEqual(image.sections.map((s) => [s.name, s.executable, s.writable]), [
    [".text", true, false],
    [".eh_frame", false, false],
    [".eh_frame_hdr", false, false],
  ]);
  assert.deepEqual(
    image.functions.map((f) => [f.address, f.size, f.source]),
    [
      [BigInt(BASE + 0x200), 0n, "entry"],
      [BigInt(T + 0x10), 0x10n, "eh-frame"],
      [BigInt(T + 0x40), 0x20n, "eh-frame"],
    ],
  );
  assert.equal(elfImage(bytes, "x", { ehFrameFunctions: false }).functions.length, 1);
  const bare = withEhFrame(64, "little", records, { hdr: "table", sectionHeaders: false }).bytes;
  const loads = elfImage(bare, "bare");
  assert.deepEqual(loads.sections.map((s) => [s.name, s.readable, s.writable, s.executable]), [
    ["LOAD[0]", true, true, true],
  ]);
  assert.equal(loads.functions.filter((f) => f.source === "eh-frame").length, 3);
  // Relocatable objects have no entry point.
  const object = buildRawElf({ bits: 64, endianness: "little", type: 1, sections: [] }).bytes;
  assert.equal(elfImage(object, "o").entry, null);
});

Deno.test("thousands of note and PLT sections over the same bytes stay bounded", () => {
  const note = encodeNote("GNU", 1, new Uint8Array(4), true);
  const block = new Uint8Array(1 << 18);
  for (let o = 0; o + note.length <= block.length; o += note.length) block.set(note, o);
  const sections: RawSection[] = [
    { name: ".blob", type: 1, flags: 6, offset: 0x1000, data: block },
  ];
  for (let i = 0; i < 3000; i++) {
    sections.push({
      name: i % 3 === 0 ? ".plt" : ".note",
      type: i % 3 === 0 ? 1 : 7,
      flags: 6,
      offset: 0x1000,
      size: block.length,
    });
  }
  const bytes = buildRawElf({ bits: 64, endianness: "little", sections }).bytes;
  // (The .plt sections are only scanned when some GOT slot is relocated; the
  // notes alone exhaust the budget.)
  const started = performance.now();
  const image = parseDamaged(bytes, "3000 overlapping sections")!;
  const elapsed = performance.now() - started;
  console.log(`parsed in ${elapsed.toFixed(0)} ms`);
  assert.ok(
    image.warnings.some((w) => /add up to more than 4 times the size of the file/.test(w)),
    image.warnings.join("\n"),
  );
  assert.equal(image.buildId, null);
});

// ---------------------------------------------------------------------------
// Fuzz

testWith(
  { libc: REAL.libc !== null },
  "300 random byte flips in the libc sections these readers touch stay bounded and warn",
  () => {
    const bytes = Deno.readFileSync(REAL.libc!);
    const full = parseElf(bytes);
    const seed = 0x0e4f7a11;
    console.log(`fuzz seed ${hex(seed)}`);
    const touched = [
      ".dynamic",
      ".note.gnu.build-id",
      ".note.gnu.property",
      ".eh_frame_hdr",
      ".eh_frame",
      ".rela.plt",
      ".rela.dyn",
      ".plt",
      ".plt.got",
      ".dynsym",
    ];
    const regions: [string, number, number][] = [];
    for (const s of full.sections) {
      if (!touched.includes(s.name)) continue;
      // Headers and tables are dense at the start; also sample the whole section.
      regions.push([s.name, s.offset, s.offset + Math.min(s.size, 256)]);
      regions.push([s.name, s.offset, s.offset + s.size]);
    }
    for (const s of full.segments) {
      if (s.typeName === "PT_DYNAMIC" || s.typeName === "PT_GNU_EH_FRAME") {
        regions.push([s.typeName, s.offset, s.offset + s.fileSize]);
      }
    }
    let warned = 0;
    let changed = 0;
    const started = performance.now();
    corruptRounds(bytes, regions.map(([, start, end]) => [start, end]), {
      random: mulberry32(seed),
      check: ({ round, region, at, width }) => {
        const name = regions[region]![0];
        const image = parseDamaged(
          bytes,
          `flip ${round} in ${name} at ${hex(at)} (${width} bytes)`,
        );
        if (image !== null) {
          if (image.warnings.length > 0) warned++;
          if (
            image.ehFrameFunctions.length !== full.ehFrameFunctions.length ||
            image.pltStubs.length !== full.pltStubs.length ||
            image.imports.length !== full.imports.length ||
            image.buildId !== full.buildId ||
            image.dynamic.entries.length !== full.dynamic.entries.length
          ) changed++;
        }
      },
    });
    console.log(
      `300 flips: ${warned} warned, ${changed} changed a result, in ` +
        `${(performance.now() - started).toFixed(0)} ms`,
    );
    assert.ok(warned > 0 && changed > 0);
    assert.deepEqual(parseElf(bytes), full);
  },
);
