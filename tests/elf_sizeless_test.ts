/**
 * Sizeless function symbols next to sized ones, in an executable assembled
 * and linked with `cc` at test time, checked against `nm -S`, `readelf -s`
 * and `readelf --debug-dump=frames`:
 *
 * - an alias whose preferred name is sizeless takes the largest size of the
 *   symbols at its address (the ELF reader);
 * - a sizeless symbol, and the entry point of a stripped copy, take the
 *   pc_range of the FDE that starts there (the image built from it).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { elfImage } from "../src/apps/formats/elf/image.ts";
import { parseElf } from "../src/apps/formats/elf/parse.ts";
import { hasProgram, runProgram } from "./helpers/programs.ts";

const PROGRAMS = ["cc", "nm", "readelf", "strip"];
const missing = PROGRAMS.filter((program) => !hasProgram(program));
const x86 = Deno.build.arch === "x86_64";
const IGNORE = missing.length > 0
  ? `missing ${missing.join(", ")}`
  : !x86
  ? "the assembly source is x86-64"
  : false;
if (IGNORE) console.log(`elf_sizeless_test: ignored, ${IGNORE}`);

/**
 * `_start` (sizeless, with an FDE) calls `w`, a global sizeless name at the
 * same address as a weak 2-byte and a local 6-byte symbol (no FDE), and
 * `quiet` (sizeless, with an FDE).
 */
const SOURCE = `
  .text
  .globl _start
  .type _start, @function
_start:
  .cfi_startproc
  call w
  call quiet
  mov $60, %eax
  xor %edi, %edi
  syscall
  .cfi_endproc

  .type wl_long_local, @function
wl_long_local:
  .weak wk_long_weak
  .type wk_long_weak, @function
wk_long_weak:
  .globl w
  .type w, @function
w:
  nop
  nop
  nop
  nop
  nop
  ret
  .size wk_long_weak, 2
  .size wl_long_local, .-wl_long_local

  .globl quiet
  .type quiet, @function
quiet:
  .cfi_startproc
  nop
  nop
  ret
  .cfi_endproc
`;

async function exec(program: string, args: string[], stdin?: string): Promise<string> {
  const out = await runProgram(program, args, { stdin });
  assert.equal(out.code, 0, `${program} ${args.join(" ")}: ${out.stderr}`);
  return out.stdout;
}

/** `nm -S`: every defined symbol with its address and, when it has one, its size. */
async function nmSizes(path: string): Promise<{ address: bigint; size: bigint; name: string }[]> {
  const lines = (await exec("nm", ["-S", path])).split("\n");
  return lines.flatMap((line) => {
    const sized = /^([0-9a-f]+) ([0-9a-f]+) [tTwW] (\S+)$/.exec(line);
    if (sized) {
      return [{ address: BigInt(`0x${sized[1]}`), size: BigInt(`0x${sized[2]}`), name: sized[3]! }];
    }
    const bare = /^([0-9a-f]+) [tTwW] (\S+)$/.exec(line);
    return bare ? [{ address: BigInt(`0x${bare[1]}`), size: 0n, name: bare[2]! }] : [];
  });
}

/** `readelf -sW`: FUNC symbols by name, with their value, size and binding. */
async function readelfFunctions(
  path: string,
): Promise<Map<string, { address: bigint; size: bigint; binding: string }>> {
  const found = new Map<string, { address: bigint; size: bigint; binding: string }>();
  for (const line of (await exec("readelf", ["-sW", path])).split("\n")) {
    const m = /^\s*\d+: ([0-9a-f]+)\s+(\d+) FUNC\s+(\w+)\s+\w+\s+\S+\s+(\S+)$/.exec(line);
    if (m) {
      found.set(m[4]!, { address: BigInt(`0x${m[1]}`), size: BigInt(m[2]!), binding: m[3]! });
    }
  }
  return found;
}

/** `readelf --debug-dump=frames`: each FDE's start and pc_range. */
async function fdeRanges(path: string): Promise<Map<bigint, bigint>> {
  const ranges = new Map<bigint, bigint>();
  const text = await exec("readelf", ["--debug-dump=frames", path]);
  for (const m of text.matchAll(/ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)/g)) {
    const start = BigInt(`0x${m[1]}`);
    ranges.set(start, BigInt(`0x${m[2]}`) - start);
  }
  return ranges;
}

async function build(): Promise<{ dir: string; path: string; stripped: string }> {
  const dir = await Deno.makeTempDir({ prefix: "casefile-sizeless-" });
  const path = join(dir, "sizeless");
  await exec("cc", ["-nostdlib", "-no-pie", "-x", "assembler", "-o", path, "-"], SOURCE);
  const stripped = join(dir, "sizeless.stripped");
  await exec("strip", ["--strip-all", "-o", stripped, path]);
  return { dir, path, stripped };
}

Deno.test({
  name: "parseElf() gives a sizeless preferred alias the largest size nm -S shows at its address",
  ignore: IGNORE !== false,
  fn: async () => {
    const { dir, path } = await build();
    try {
      const symbols = await readelfFunctions(path);
      const alias = symbols.get("w")!;
      // The name that wins (global, shortest) is the sizeless one.
      assert.deepEqual([alias.binding, alias.size], ["GLOBAL", 0n]);
      const atAlias = (await nmSizes(path)).filter((s) => s.address === alias.address);
      assert.ok(atAlias.length >= 3 && atAlias.some((s) => s.size > 0n), "sized symbols share it");
      const largest = atAlias.reduce((max, s) => (s.size > max ? s.size : max), 0n);
      const fn = parseElf(await Deno.readFile(path)).functions.find((f) =>
        f.address === alias.address
      )!;
      assert.equal(fn.name, "w");
      assert.deepEqual(fn.names, atAlias.map((s) => s.name).sort());
      assert.equal(fn.size, largest);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "elfImage() sizes a sizeless symbol, and a stripped file's entry point, by the FDE readelf shows there",
  ignore: IGNORE !== false,
  fn: async () => {
    const { dir, path, stripped } = await build();
    try {
      const symbols = await readelfFunctions(path);
      const fdes = await fdeRanges(path);
      const quiet = symbols.get("quiet")!;
      assert.equal(quiet.size, 0n, "quiet has no st_size");
      assert.ok(fdes.has(quiet.address), "quiet has an FDE");
      const image = elfImage(await Deno.readFile(path), "sizeless");
      const sized = image.functions.find((f) => f.address === quiet.address)!;
      assert.equal(sized.size, fdes.get(quiet.address));

      const entry = symbols.get("_start")!;
      assert.equal(entry.size, 0n, "_start has no st_size");
      assert.equal((await nmSizes(stripped)).length, 0, "the stripped copy has no symbols");
      const bare = elfImage(await Deno.readFile(stripped), "sizeless.stripped");
      assert.equal(bare.entry, entry.address);
      const atEntry = bare.functions.find((f) => f.address === entry.address)!;
      assert.equal(atEntry.size, fdes.get(entry.address));
      assert.ok(atEntry.size > 0n);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
