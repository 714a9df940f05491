/**
 * Relocatable objects (`cc -c` output, static library members): every section
 * has address 0 in the file, so the reader lays the sections out itself.
 * Checked through a real MCP client against readelf and nm.
 */

import assert from "node:assert/strict";
import { hasProgram, type Loose, ok, run, withClient } from "./helpers/in_memory.ts";
import { withTempDir } from "./helpers/temp_dir.ts";
import { elfImage } from "../src/apps/formats/elf/image.ts";
import { sectionAt } from "../src/apps/formats/binary_image.ts";
import { listedProcedures } from "./helpers/procedures.ts";

const HAS_TOOLS = ["cc", "readelf", "nm"].every((p) => hasProgram(p));
const LIBPNG = "/usr/lib/x86_64-linux-gnu/libpng16.a";
const HAS_LIBPNG = HAS_TOOLS && hasProgram("ar") && (() => {
  try {
    return Deno.statSync(LIBPNG).isFile;
  } catch {
    return false;
  }
})();
const HAS_OBJDUMP = hasProgram("objdump") && Deno.build.arch === "x86_64";
if (!HAS_TOOLS) console.log("skip: cc, readelf or nm is missing");
if (!HAS_OBJDUMP) {
  console.log("skip: relocated calls: objdump is missing or cc does not build x86-64");
}
if (!HAS_LIBPNG) console.log(`skip: ${LIBPNG} (or ar) is missing: no png.o to check`);

/** One function per section with -ffunction-sections, hot and cold ones in their own sections. */
const SOURCE = `
extern int ext_one(int);
extern void ext_two(const char *);
extern int ext_data;
static __attribute__((noinline)) int helper(int x) { return ext_one(x) * 3 + ext_data; }
__attribute__((hot, noinline)) int hot_fn(int x) { return helper(x) + 1; }
__attribute__((cold, noinline)) void cold_fn(const char *s) { ext_two(s); ext_two(s + 1); }
int plain(int x) { return hot_fn(x) + ext_one(x + 1); }
`;

/** A defined STT_FUNC symbol as readelf -sW prints it. */
interface FuncSymbol {
  name: string;
  value: bigint;
  size: bigint;
  section: string;
}

/** The defined function symbols of `path`, with their section's name (readelf -sW, -SW). */
async function readelfFunctions(path: string): Promise<FuncSymbol[]> {
  const names = new Map<string, string>();
  for (const line of (await run("readelf", ["-SW", path])).split("\n")) {
    const m = /^\s*\[\s*(\d+)\]\s+(\S+)/.exec(line);
    if (m) names.set(m[1]!, m[2]!);
  }
  const functions: FuncSymbol[] = [];
  for (const line of (await run("readelf", ["-sW", path])).split("\n")) {
    const cells = line.trim().split(/\s+/);
    if (cells.length < 8 || !/^\d+:$/.test(cells[0]!)) continue;
    const [, value, size, type, , , ndx, name] = cells;
    if (type !== "FUNC" || ndx === "UND") continue;
    functions.push({
      name: name!,
      value: BigInt(`0x${value}`),
      size: BigInt(size!),
      section: names.get(ndx!) ?? `?${ndx}`,
    });
  }
  return functions;
}

/**
 * The names the ELF import rule takes from `path`: undefined symbols of type
 * FUNC, IFUNC or NOTYPE (readelf -sW), each once; checked against `nm -u`.
 */
async function undefinedFunctions(path: string): Promise<string[]> {
  const names = new Set<string>();
  for (const line of (await run("readelf", ["-sW", path])).split("\n")) {
    const cells = line.trim().split(/\s+/);
    if (cells.length < 8 || !/^\d+:$/.test(cells[0]!) || cells[6] !== "UND") continue;
    if (["FUNC", "IFUNC", "NOTYPE"].includes(cells[3]!)) names.add(cells[7]!.replace(/@.*$/, ""));
  }
  const nmUndefined = (await run("nm", ["-u", path])).split("\n")
    .map((line) => line.trim().split(/\s+/).at(-1)!).filter((name) => name !== "");
  // In an object, undefined references carry no type: nm -u and the rule agree.
  assert.deepEqual([...names].sort(), [...new Set(nmUndefined)].sort());
  return [...names].sort();
}

/** The imports of `path` through binary_overview equal its undefined symbols (nm -u). */
async function checkImports(path: string): Promise<number> {
  const expected = await undefinedFunctions(path);
  assert.ok(expected.length > 0, `no undefined symbol in ${path}`);
  await withClient({ roots: [Deno.realPathSync(path.replace(/\/[^/]*$/, ""))] }, async (client) => {
    await ok(client, "open_binary", { path });
    const overview: Loose = await ok(client, "binary_overview", { detail: "detailed", limit: 50 });
    assert.equal(overview.result.import_count, expected.length, "import_count");
    const names: string[] = overview.result.imports.map((entry: Loose) => entry.name);
    for (const name of names) assert.ok(expected.includes(name), `${name} is not undefined`);
    if (expected.length <= 50) assert.deepEqual(names.sort(), expected);
  });
  return expected.length;
}

/** One relocated call objdump -dr shows: the caller, the call's offset in it, and its target. */
interface RelocatedCall {
  caller: string;
  offset: bigint;
  callee: string;
}

/**
 * The calls objdump -dr shows a R_X86_64_PLT32 or R_X86_64_PC32 relocation
 * beside, each target named: a function symbol, an import, or a section
 * symbol plus offset (resolved to the function readelf puts there).
 */
async function relocatedCalls(
  path: string,
  functions: FuncSymbol[],
): Promise<{ calls: RelocatedCall[]; branches: number }> {
  const undefinedNames = new Set(await undefinedFunctions(path));
  const calls: RelocatedCall[] = [];
  let caller = "";
  let start = 0n;
  let last: { mnemonic: string; at: bigint } | null = null;
  let branches = 0;
  const out = await run("objdump", ["-dr", "--no-show-raw-insn", path]);
  for (const line of out.split("\n")) {
    const header = /^([0-9a-f]+) <(.+)>:$/.exec(line);
    if (header) {
      [caller, start] = [header[2]!, BigInt(`0x${header[1]}`)];
      continue;
    }
    const reloc = /^\s+[0-9a-f]+: (R_X86_64_\w+)\t(.+?)([+-]0x[0-9a-f]+)?$/.exec(line);
    if (reloc) {
      const [, type, symbol, addend] = reloc;
      if (type !== "R_X86_64_PLT32" && type !== "R_X86_64_PC32") continue;
      if (last !== null && /^(call|jmp|j[a-z]+)$/.test(last.mnemonic)) branches++;
      if (last === null || !last.mnemonic.startsWith("call")) continue;
      const magnitude = addend === undefined ? 0n : BigInt(addend.slice(1));
      const plus = addend?.startsWith("-") ? -magnitude : magnitude;
      let callee: string | undefined;
      if (undefinedNames.has(symbol!) || functions.some((f) => f.name === symbol)) callee = symbol;
      else {
        callee = functions.find((f) => f.section === symbol && f.value === plus + 4n)?.name;
      }
      assert.ok(callee !== undefined, `cannot name the target of ${line.trim()}`);
      calls.push({ caller, offset: last.at - start, callee });
      continue;
    }
    const insn = /^\s+([0-9a-f]+):\t(\S+)/.exec(line);
    if (insn) last = { mnemonic: insn[2]!, at: BigInt(`0x${insn[1]}`) };
  }
  return { calls, branches };
}

/**
 * Every call objdump -dr shows relocated is a callee of its caller at the
 * same offset (procedure_callees), and the callers of each import are the
 * functions with such a call to it (procedure_callers).
 */
async function checkCalls(path: string): Promise<number> {
  const functions = await readelfFunctions(path);
  const { calls, branches } = await relocatedCalls(path, functions);
  assert.ok(calls.length > 0, `objdump shows no relocated call in ${path}`);
  const imports = new Set(await undefinedFunctions(path));
  await withClient({ roots: [Deno.realPathSync(path.replace(/\/[^/]*$/, ""))] }, async (client) => {
    const opened: Loose = await ok(client, "open_binary", { path });
    // The warning counts the relocated call and jump operands objdump shows.
    const note = opened.result.target.warnings.find((w: string) => /layout made/.test(w));
    assert.match(note, new RegExp(`jump operands are applied \\(${branches}\\)`));
    for (const caller of new Set(calls.map((c) => c.caller))) {
      const listed: Loose = await ok(client, "procedure_callees", {
        procedure: caller,
        limit: 500,
      });
      const base = BigInt(listed.result.procedure.address);
      const ours = new Set<string>();
      for (const item of listed.result.items) {
        assert.ok(item.name, `${caller} calls an unnamed ${item.address}`);
        for (const site of item.call_sites) ours.add(`${item.name}@${BigInt(site) - base}`);
      }
      for (const call of calls.filter((c) => c.caller === caller)) {
        assert.ok(ours.has(`${call.callee}@${call.offset}`), `${caller} -> ${call.callee}`);
      }
    }
    for (const name of imports) {
      const expected = calls.filter((c) => c.callee === name);
      if (expected.length === 0) continue;
      const found: Loose = await ok(client, "procedure_callers", { procedure: name, limit: 500 });
      // Callers by call; a caller only by tail jump (png_colorspace_set_gamma's jmp to
      // png_chunk_report) is listed too, with its sites in tail_jump_sites.
      const byCall = found.result.items.filter((item: Loose) => item.call_sites.length > 0);
      const callers = byCall.map((item: Loose) => item.name).sort();
      assert.deepEqual(callers, [...new Set(expected.map((c) => c.caller))].sort(), name);
      for (const item of found.result.items) {
        if (item.call_sites.length === 0) assert.ok(item.tail_jump_sites?.length > 0, item.name);
      }
      const sites = found.result.items.reduce((n: number, i: Loose) => n + i.call_sites.length, 0);
      assert.equal(sites, expected.length, `${name} call sites`);
    }
  });
  return calls.length;
}

/** Every FUNC symbol readelf lists is its own procedure, in its own section, with its size. */
async function checkProcedures(path: string): Promise<number> {
  const expected = await readelfFunctions(path);
  assert.ok(expected.length > 0, `readelf lists no function in ${path}`);
  const image = elfImage(await Deno.readFile(path), path);
  let count = 0;
  await withClient({ roots: [Deno.realPathSync(path.replace(/\/[^/]*$/, ""))] }, async (client) => {
    const opened: Loose = await ok(client, "open_binary", { path });
    assert.ok(
      opened.result.target.warnings.some((w: string) => /layout made for reading/.test(w)),
      JSON.stringify(opened.result.target.warnings),
    );
    const listed = await listedProcedures(client);
    const starts = new Set(expected.map((f) => `${f.section}+${f.value}`));
    assert.equal(listed.size, starts.size, "one procedure per distinct function start");
    for (const f of expected) {
      const found: Loose = await ok(client, "procedure_address", { procedure: f.name });
      const address = BigInt(found.result.address);
      assert.ok(found.result.names.includes(f.name), `${f.name}: ${JSON.stringify(found.result)}`);
      assert.equal(listed.has(found.result.address), true, f.name);
      assert.equal(BigInt(found.result.size), f.size, `${f.name} size`);
      const section = sectionAt(image, address);
      assert.equal(section?.name, f.section, `${f.name} section`);
      assert.equal(address - section!.address, f.value, `${f.name} offset in ${f.section}`);
      assert.ok(address > 0n, `${f.name} at 0`);
      count++;
    }
  });
  return count;
}

Deno.test({
  name: "elfImage() gives each function of a -ffunction-sections object its own address and size",
  ignore: !HAS_TOOLS,
  fn: () =>
    withTempDir(async (dir) => {
      await Deno.writeTextFile(`${dir}/unit.c`, SOURCE);
      await run("cc", ["-O2", "-c", "-ffunction-sections", "-o", `${dir}/unit.o`, `${dir}/unit.c`]);
      const symbols = await readelfFunctions(`${dir}/unit.o`);
      // The point of the test: readelf puts several functions at the same st_value.
      assert.ok(
        new Set(symbols.map((s) => s.value)).size < symbols.length,
        symbols.map((s) => `${s.name}@${s.value}`).join(" "),
      );
      assert.equal(await checkProcedures(`${dir}/unit.o`), symbols.length);
    }, { realPath: true }),
});

Deno.test({
  name: "elfImage() lists the undefined symbols of an object compiled with cc -c as its imports",
  ignore: !HAS_TOOLS,
  fn: () =>
    withTempDir(async (dir) => {
      await Deno.writeTextFile(`${dir}/unit.c`, SOURCE);
      await run("cc", ["-O2", "-c", "-o", `${dir}/unit.o`, `${dir}/unit.c`]);
      assert.equal(await checkImports(`${dir}/unit.o`), 3);
    }, { realPath: true }),
});

Deno.test({
  name:
    "elfImage() applies the call relocations of an x86-64 object, so calls reach imports and other sections",
  ignore: !HAS_TOOLS || !HAS_OBJDUMP,
  fn: () =>
    withTempDir(async (dir) => {
      await Deno.writeTextFile(`${dir}/unit.c`, SOURCE);
      await run("cc", ["-O2", "-c", "-ffunction-sections", "-o", `${dir}/unit.o`, `${dir}/unit.c`]);
      // ext_one twice, ext_two, hot_fn, helper (through its section symbol).
      assert.ok(await checkCalls(`${dir}/unit.o`) >= 4);
    }, { realPath: true }),
});

Deno.test({
  name: "elfImage() gives each function of png.o from libpng16.a its own address and size",
  ignore: !HAS_LIBPNG,
  fn: () =>
    withTempDir(async (dir) => {
      await run("sh", ["-c", `cd "${dir}" && ar x "${LIBPNG}" png.o`]);
      const compared = await checkProcedures(`${dir}/png.o`);
      const imports = await checkImports(`${dir}/png.o`);
      const calls = HAS_OBJDUMP ? await checkCalls(`${dir}/png.o`) : 0;
      console.log(
        `png.o: ${compared} function symbols compared with readelf, ${imports} imports, ` +
          `${calls} relocated calls with objdump`,
      );
    }, { realPath: true }),
});
