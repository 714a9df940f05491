/**
 * Call and jump relocations of AArch64, i386, ARM and Thumb objects built
 * here with `llc-14`: each relocated call and tail jump `llvm-objdump-14 -dr`
 * shows (its relocation line names the symbol) reaches that symbol through
 * the MCP tools (procedure_callees, analyze_function's tail jumps,
 * procedure_callers of each import), instead of the next instruction of the
 * caller.
 */

import assert from "node:assert/strict";
import type { Connected, Loose } from "./helpers/in_memory.ts";
import { hasProgram, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { llcObject } from "./helpers/llvm.ts";

const READY = ["llc-14", "llvm-objdump-14", "readelf"].every((program) => hasProgram(program));
if (!READY) console.log("elf_object_relocations_test: needs llc-14, llvm-objdump-14, readelf");

/**
 * Calls to imports and to functions in other sections (one function per
 * section), and tail jumps to an import and to a defined function.
 */
const MODULE = `
declare i32 @ext_one(i32)
declare void @ext_two(i32)
declare void @ext_three()
define internal i32 @helper(i32 %x) noinline {
  %a = call i32 @ext_one(i32 %x)
  %b = mul i32 %a, 3
  ret i32 %b
}
define i32 @hot_fn(i32 %x) noinline {
  %a = call i32 @helper(i32 %x)
  %b = add nsw i32 %a, 1
  ret i32 %b
}
define void @tail_ext(i32 %x) noinline {
  %y = add i32 %x, 7
  tail call void @ext_two(i32 %y)
  ret void
}
define void @tail_void() noinline {
  tail call void @ext_three()
  ret void
}
define i32 @tail_local(i32 %x) noinline {
  %y = add i32 %x, 9
  %r = tail call i32 @hot_fn(i32 %y)
  ret i32 %r
}
define i32 @plain(i32 %x) noinline {
  %a = call i32 @hot_fn(i32 %x)
  %b = call i32 @ext_one(i32 %a)
  call void @ext_two(i32 %b)
  ret i32 %b
}
`;

/** The relocation types the brief names for each target: calls and jumps. */
const TARGETS = [
  ["aarch64-linux-gnu", /^R_AARCH64_(CALL26|JUMP26)$/],
  ["i686-linux-gnu", /^R_386_(PC32|PLT32)$/],
  ["armv7-linux-gnueabihf", /^R_ARM_(CALL|JUMP24|PLT32)$/],
  ["thumbv7-linux-gnueabihf", /^R_ARM_THM_(CALL|JUMP24)$/],
] as const;

/** One relocated branch llvm-objdump -dr shows. */
interface RelocatedBranch {
  caller: string;
  /** The branch's offset from the caller's start. */
  offset: number;
  callee: string;
  kind: "call" | "jump";
}

/** The symbols readelf -sW lists: defined functions by section name, and undefined names. */
async function symbolsOf(path: string): Promise<{
  functions: { name: string; section: string }[];
  imports: Set<string>;
}> {
  const sections = new Map<string, string>();
  for (const line of (await run("readelf", ["-SW", path])).split("\n")) {
    const m = /^\s*\[\s*(\d+)\]\s+(\S+)/.exec(line);
    if (m) sections.set(m[1]!, m[2]!);
  }
  const functions: { name: string; section: string }[] = [];
  const imports = new Set<string>();
  for (const line of (await run("readelf", ["-sW", path])).split("\n")) {
    const cells = line.trim().split(/\s+/);
    if (cells.length < 8 || !/^\d+:$/.test(cells[0]!)) continue;
    const [, , , type, , , ndx, name] = cells;
    if (ndx === "UND") imports.add(name!);
    else if (type === "FUNC") functions.push({ name: name!, section: sections.get(ndx!) ?? "" });
  }
  return { functions, imports };
}

/**
 * The branches llvm-objdump -dr shows with a relocation of `types`: the
 * symbol a relocation names is an import, a function, or a section that
 * holds one function (`-function-sections`).
 */
async function relocatedBranches(path: string, types: RegExp): Promise<RelocatedBranch[]> {
  const { functions, imports } = await symbolsOf(path);
  const branches: RelocatedBranch[] = [];
  let caller = "";
  let start = 0n;
  let last: { mnemonic: string; at: bigint } | null = null;
  const listing = await run("llvm-objdump-14", ["-dr", "--no-show-raw-insn", path]);
  for (const line of listing.split("\n")) {
    const header = /^([0-9a-f]+) <(.+)>:$/.exec(line);
    if (header) {
      [caller, start, last] = [header[2]!, BigInt(`0x${header[1]}`), null];
      continue;
    }
    const reloc = /^\s+[0-9a-f]+:\s+(R_\w+)\s+(\S+?)(?:[+-]0x[0-9a-f]+)?$/.exec(line);
    if (reloc) {
      const [, type, symbol] = reloc;
      if (!types.test(type!)) continue;
      assert.ok(last !== null, line);
      const kind: RelocatedBranch["kind"] | null = /^(bl|blx|call|calll)$/.test(last.mnemonic)
        ? "call"
        : /^(b|b\.w|jmp|jmpl)$/.test(last.mnemonic)
        ? "jump"
        : null;
      assert.ok(kind !== null, `${caller}: ${last.mnemonic} has a ${type} relocation`);
      const inSection = functions.filter((f) => f.section === symbol);
      const callee = imports.has(symbol!) || functions.some((f) => f.name === symbol)
        ? symbol!
        : inSection.length === 1
        ? inSection[0]!.name
        : null;
      assert.ok(callee !== null, `cannot name the target of ${line.trim()}`);
      branches.push({ caller, offset: Number(last.at - start), callee, kind });
      continue;
    }
    const insn = /^\s+([0-9a-f]+):\s+(\S+)/.exec(line);
    if (insn) last = { mnemonic: insn[2]!, at: BigInt(`0x${insn[1]}`) };
  }
  return branches;
}

/** `name@offset` for each site of each named item, the offset from `base`. */
function sitesOf(items: Loose[], base: bigint): Set<string> {
  const sites = new Set<string>();
  for (const item of items) {
    for (const site of item.call_sites) sites.add(`${item.name}@${Number(BigInt(site) - base)}`);
  }
  return sites;
}

/**
 * Each of `branches` through the MCP tools on the object at `path`: the
 * warning counts them, each call is a callee of its caller at its offset
 * (each tail jump a tail jump), and the callers of each callee are the
 * functions that call it.
 */
async function checkBranches(
  client: Connected["client"],
  path: string,
  branches: RelocatedBranch[],
): Promise<void> {
  const opened: Loose = await ok(client, "open_binary", { path });
  const note = opened.result.target.warnings.find((w: string) => /layout made/.test(w));
  assert.match(note, new RegExp(`jump operands are applied \\(${branches.length}\\)`));
  for (const caller of new Set(branches.map((b) => b.caller))) {
    const dossier: Loose = (await ok(client, "analyze_function", {
      procedure: caller,
      include_callers: false,
    })).result;
    const base = BigInt(dossier.procedure.address);
    const calls = sitesOf(dossier.callees.items, base);
    const jumps = sitesOf(dossier.tail_jumps.items, base);
    for (const b of branches.filter((b) => b.caller === caller)) {
      const found = b.kind === "call" ? calls : jumps;
      assert.ok(
        found.has(`${b.callee}@${b.offset}`),
        `${path} ${caller} ${b.kind} ${b.callee}@${b.offset}: ${[...found]}`,
      );
    }
  }
  for (const name of new Set(branches.map((b) => b.callee))) {
    const expected = branches.filter((b) => b.callee === name && b.caller !== name);
    const found: Loose = await ok(client, "procedure_callers", { procedure: name });
    // A tail jump from another function makes a caller too, its site listed apart.
    assert.deepEqual(
      found.result.items.map((item: Loose) => item.name).sort(),
      [...new Set(expected.map((b) => b.caller))].sort(),
      `${path}: callers of ${name}`,
    );
    for (const b of expected) {
      const item = found.result.items.find((i: Loose) => i.name === b.caller);
      const sites: string[] = b.kind === "call" ? item.call_sites : item.tail_jump_sites ?? [];
      const base = BigInt(
        (await ok(client, "procedure_address", { procedure: b.caller })).result.address,
      );
      assert.ok(
        sites.some((site) => BigInt(site) - base === BigInt(b.offset)),
        `${path}: ${b.kind} ${b.caller}@${b.offset} → ${name}: ${JSON.stringify(item)}`,
      );
    }
  }
}

for (const [triple, types] of TARGETS) {
  Deno.test({
    name: `elfImage() applies the call and jump relocations of a ${triple} object`,
    ignore: !READY,
    fn: async () => {
      await withTempRoot("casefile-relocs-", async ({ client, dir }) => {
        const path = await llcObject(dir, triple, MODULE, triple, ["-O2", "-function-sections"]);
        const branches = await relocatedBranches(path, types);
        // ext_one twice, ext_two, hot_fn, helper; a tail jump to an import at least.
        assert.ok(branches.filter((b) => b.kind === "call").length >= 5, JSON.stringify(branches));
        assert.ok(branches.some((b) => b.kind === "jump"), JSON.stringify(branches));
        await checkBranches(client, path, branches);
      });
    },
  });
}

/**
 * ARM and Thumb functions calling each other across sections, and a call
 * to an import whose relocation is the older R_ARM_PLT32.
 */
const MIXED = `  .syntax unified
  .section .text.thumbs,"ax",%progbits
  .p2align 1
  .thumb
  .globl pad
  .type pad,%function
  .thumb_func
pad:
  bx lr
  .size pad, .-pad
  .globl thumb_fn
  .type thumb_fn,%function
  .thumb_func
thumb_fn:
  adds r0, #1
  bl arm_leaf
  bx lr
  .size thumb_fn, .-thumb_fn
  .section .text.arm_fn,"ax",%progbits
  .p2align 2
  .arm
  .globl arm_fn
  .type arm_fn,%function
arm_fn:
  push {r11, lr}
  bl thumb_fn
  bl ext_one
  pop {r11, pc}
  .size arm_fn, .-arm_fn
  .globl arm_leaf
  .type arm_leaf,%function
arm_leaf:
  bx lr
  .size arm_leaf, .-arm_leaf
`;

/**
 * Rewrites the type of each R_ARM_CALL relocation against `symbol` in the
 * object at `path` to R_ARM_PLT32 (27), at the entry readelf -rW lists.
 */
async function makePlt32(path: string, symbol: string): Promise<number> {
  const bytes = await Deno.readFile(path);
  let section = -1;
  let row = 0;
  let changed = 0;
  for (const line of (await run("readelf", ["-rW", path])).split("\n")) {
    const header = /^Relocation section '.+' at offset 0x([0-9a-f]+)/.exec(line);
    if (header) [section, row] = [parseInt(header[1]!, 16), 0];
    const entry = /^[0-9a-f]{8}\s+([0-9a-f]{8})\s+(R_ARM_\w+)\s+[0-9a-f]+\s+(\S+)/.exec(line);
    if (!entry || section < 0) continue;
    const info = section + 8 * row++ + 4;
    if (entry[2] !== "R_ARM_CALL" || entry[3] !== symbol) continue;
    assert.equal(bytes[info], parseInt(entry[1]!, 16) & 0xff, line);
    bytes[info] = 27;
    changed++;
  }
  await Deno.writeFile(path, bytes);
  return changed;
}

const CAN_ASSEMBLE = READY && hasProgram("llvm-mc-14");
if (READY && !CAN_ASSEMBLE) console.log("elf_object_relocations_test: needs llvm-mc-14 for MIXED");

Deno.test({
  name: "elfImage() applies ARM to Thumb calls (as BLX) and R_ARM_PLT32 in a mixed ARM object",
  ignore: !CAN_ASSEMBLE,
  fn: async () => {
    await withTempRoot("casefile-relocs-mixed-", async ({ client, dir }) => {
      await Deno.writeTextFile(`${dir}/mixed.s`, MIXED);
      const path = `${dir}/mixed.o`;
      await run("llvm-mc-14", [
        "-triple=armv7-linux-gnueabihf",
        "-filetype=obj",
        "-o",
        path,
        `${dir}/mixed.s`,
      ]);
      assert.equal(await makePlt32(path, "ext_one"), 1);
      const branches = await relocatedBranches(path, /^R_ARM_(CALL|PLT32|THM_CALL)$/);
      const shown = branches.map((b) => `${b.caller}@${b.offset} ${b.callee}`).sort();
      assert.deepEqual(shown, ["arm_fn@4 thumb_fn", "arm_fn@8 ext_one", "thumb_fn@2 arm_leaf"]);
      // thumb_fn is 2 bytes past a 4-byte boundary: only a BLX reaches it from ARM code.
      const values = await run("readelf", ["-sW", path]);
      assert.match(values, /\b0*3\s+\d+\s+FUNC\s+\S+\s+\S+\s+\d+\s+thumb_fn$/m);
      await checkBranches(client, path, branches);
    });
  },
});

/** Strings loaded by adrp/add pairs whose relocations (not calls) stay unapplied. */
const STRINGS = `
@.str = private unnamed_addr constant [14 x i8] c"hello aarch64\\00"
declare i32 @puts(i8*)
define internal i32 @sq(i32 %x) noinline {
  %r = mul i32 %x, %x
  ret i32 %r
}
define i32 @f1(i32 %x) noinline {
  %a = call i32 @sq(i32 %x)
  %b = call i32 @puts(i8* getelementptr ([14 x i8], [14 x i8]* @.str, i64 0, i64 0))
  %c = add i32 %a, %b
  ret i32 %c
}
`;

Deno.test({
  name:
    "an object's unapplied relocations name nothing: an adrp/add pair of placeholders is no reference to the code's first procedure",
  ignore: !READY,
  fn: () =>
    withTempRoot("casefile-relocs-data-", async ({ client, dir }) => {
      const path = await llcObject(dir, "s", STRINGS, "aarch64-linux-gnu");
      // llvm-objdump -dr: the add at f1+n carries R_AARCH64_ADD_ABS_LO12_NC .rodata.str1.1.
      const listing = await run("llvm-objdump-14", ["-dr", path]);
      assert.match(listing, /R_AARCH64_ADD_ABS_LO12_NC/);
      await ok(client, "open_binary", { path });
      const sq = (await ok(client, "procedure_address", { procedure: "sq" })).result.address;
      const refs: Loose = await ok(client, "xrefs", { address: sq });
      // Only f1's call reaches sq; the placeholder pair reads as sq's page plus zero.
      assert.deepEqual(refs.result.items.map((r: Loose) => [r.kind, r.procedure_name]), [[
        "call",
        "f1",
      ]]);
      assert.equal(refs.result.reference_scan.complete, false);
      const evidence = await client.readResource({ uri: refs.evidence_uri });
      assert.match(
        (evidence.contents[0] as { text: string }).text,
        /relocation\(s\) in this object's code were not applied/,
      );
    }),
});
