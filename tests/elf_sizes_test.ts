/**
 * Procedure sizes of sizeless ELF symbols, on a program compiled at test
 * time, against `nm -S` and `readelf --debug-dump=frames`: a sizeless alias
 * takes the size of the sized symbol at its address, and a sizeless symbol or
 * an unnamed entry point takes the pc_range of the FDE that starts there.
 */

import assert from "node:assert/strict";
import { elfImage } from "../src/apps/formats/elf/image.ts";
import { hasProgram, run } from "./helpers/programs.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const TOOLS = ["cc", "nm", "readelf", "strip"].every(hasProgram);
// The source is x86-64 assembly.
const X86_64 = Deno.build.arch === "x86_64";
if (!TOOLS || !X86_64) {
  console.log("elf_sizes_test: skipped, it needs cc, nm, readelf and strip on an x86-64 machine");
}

// sized_fn has a .size, bare_alias shares its address without one, and bare_fn has none at all;
// each has an FDE from its CFI directives. plain_sized_fn has a .size and no FDE, and pa, the
// shorter (so preferred) name at its address, has no size.
const SOURCE = `
__asm__(
  ".text\\n"
  ".globl sized_fn\\n.type sized_fn,@function\\n"
  ".globl bare_alias\\n.type bare_alias,@function\\n"
  "sized_fn:\\nbare_alias:\\n"
  ".cfi_startproc\\n  lea 1(%rdi), %eax\\n  ret\\n.cfi_endproc\\n"
  ".size sized_fn, .-sized_fn\\n"
  ".globl bare_fn\\n.type bare_fn,@function\\n"
  "bare_fn:\\n.cfi_startproc\\n  lea 2(%rdi), %eax\\n  nop\\n  nop\\n  ret\\n.cfi_endproc\\n"
  ".globl plain_sized_fn\\n.type plain_sized_fn,@function\\n"
  ".globl pa\\n.type pa,@function\\n"
  "plain_sized_fn:\\npa:\\n  lea 3(%rdi), %eax\\n  nop\\n  ret\\n"
  ".size plain_sized_fn, .-plain_sized_fn\\n"
);
int main(void) { return 0; }
`;

/** `nm -S`: every defined text symbol's name, address and size (null when nm prints none). */
async function nmSizes(
  path: string,
): Promise<{ name: string; address: bigint; size: bigint | null }[]> {
  const symbols = [];
  for (const line of (await run("nm", ["-S", "--defined-only", path])).split("\n")) {
    const cells = line.trim().split(/\s+/);
    if (cells.length === 4 && /^[tT]$/.test(cells[2]!)) {
      symbols.push({
        name: cells[3]!,
        address: BigInt(`0x${cells[0]}`),
        size: BigInt(`0x${cells[1]}`),
      });
    } else if (cells.length === 3 && /^[tT]$/.test(cells[1]!)) {
      symbols.push({ name: cells[2]!, address: BigInt(`0x${cells[0]}`), size: null });
    }
  }
  return symbols;
}

/** FDE start → pc_range, as readelf prints them. */
async function fdeRanges(path: string): Promise<Map<bigint, bigint>> {
  const ranges = new Map<bigint, bigint>();
  const text = await run("readelf", ["--debug-dump=frames", path]);
  for (const m of text.matchAll(/FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)/g)) {
    const start = BigInt(`0x${m[1]}`);
    ranges.set(start, BigInt(`0x${m[2]}`) - start);
  }
  return ranges;
}

Deno.test({
  name: "elfImage() sizes sizeless symbols as nm -S and readelf's FDEs say",
  ignore: !TOOLS || !X86_64,
  fn: async () => {
    await withTempDir(async (dir) => {
      await Deno.writeTextFile(`${dir}/sizes.c`, SOURCE);
      const path = `${dir}/sizes`;
      await run("cc", ["-O1", "-o", path, `${dir}/sizes.c`]);
      const nm = await nmSizes(path);
      const fdes = await fdeRanges(path);
      const byName = new Map(nm.map((s) => [s.name, s]));
      const sized = byName.get("sized_fn")!;
      const alias = byName.get("bare_alias")!;
      const bare = byName.get("bare_fn")!;
      // The shapes the test is about, as the peers see them.
      assert.ok(sized.size !== null && sized.size > 0n);
      assert.equal(alias.size, null);
      assert.equal(alias.address, sized.address);
      assert.equal(bare.size, null);
      assert.ok(fdes.has(bare.address));

      const image = elfImage(await Deno.readFile(path), "sizes");
      const sizeAt = (address: bigint): bigint | undefined =>
        image.functions.find((f) => f.address === address)?.size;
      // Every address nm lists: the largest size any of its symbols has, else the FDE's pc_range.
      for (const address of new Set(nm.map((s) => s.address))) {
        const sizes = nm.filter((s) => s.address === address && s.size !== null && s.size > 0n)
          .map((s) => s.size!);
        const expected = sizes.length > 0
          ? sizes.reduce((a, b) => (a > b ? a : b))
          : fdes.get(address) ?? 0n;
        assert.equal(sizeAt(address), expected, `size at 0x${address.toString(16)}`);
      }
      assert.equal(sizeAt(alias.address), sized.size);
      assert.equal(sizeAt(bare.address), fdes.get(bare.address));
      const plain = byName.get("plain_sized_fn")!;
      assert.equal(byName.get("pa")?.size, null);
      assert.ok(!fdes.has(plain.address));
      assert.equal(image.functions.find((f) => f.address === plain.address)?.name, "pa");
      assert.equal(sizeAt(plain.address), plain.size);

      // Stripped, the entry point is named by no symbol: it takes its FDE's pc_range.
      await run("strip", ["--strip-all", "-o", `${path}.stripped`, path]);
      const stripped = elfImage(await Deno.readFile(`${path}.stripped`), "sizes.stripped");
      const entry = /Entry point address:\s+0x([0-9a-f]+)/.exec(
        await run("readelf", ["-h", `${path}.stripped`]),
      )!;
      const at = BigInt(`0x${entry[1]}`);
      assert.ok(fdes.has(at), "the entry point has an FDE");
      const fn = stripped.functions.find((f) => f.address === at);
      assert.equal(fn?.source, "entry");
      assert.equal(fn?.size, fdes.get(at));
    }, { prefix: "casefile-elf-sizes-" });
  },
});
