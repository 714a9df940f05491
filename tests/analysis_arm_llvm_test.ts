/**
 * 32-bit ARM and Thumb code, and AArch64, decoded as llvm-objdump decodes
 * it: a module compiled here with `llc-14` for each target, each function's
 * instruction addresses and mnemonics through `analyze_function` against
 * `llvm-objdump-14` over the same extent, and calls (direct and through a
 * pointer) seen as calls. Thumb functions are marked by bit 0 of their
 * symbol's value; before, every 32-bit ARM function was decoded as ARM.
 */

import assert from "node:assert/strict";
import {
  type Connected,
  hasProgram,
  type Loose,
  ok,
  run,
  withTempRoot,
} from "./helpers/in_memory.ts";
import { scanProcedure } from "../src/apps/analysis/code.ts";
import { elfImage } from "../src/apps/formats/elf/image.ts";
import { llcObject } from "./helpers/llvm.ts";

const READY = ["llc-14", "llvm-objdump-14", "llvm-nm-14"].every((program) => hasProgram(program));
if (!READY) console.log("analysis_arm_llvm_test: needs llc-14 and llvm-objdump-14: skipped");

/** Functions without data among their instructions (a jump table would be). */
const MODULE = `
define i32 @leaf(i32 %x) noinline {
  %a = mul i32 %x, 3
  %b = add i32 %a, 1
  ret i32 %b
}
define i32 @caller(i32 %x) noinline {
  %a = call i32 @leaf(i32 %x)
  %b = add i32 %a, 2
  ret i32 %b
}
define i32 @via_pointer(i32 (i32)* %f, i32 %x) noinline {
  %a = call i32 %f(i32 %x)
  %b = add i32 %a, 5
  ret i32 %b
}
define i32 @squares(i32 %n) noinline {
entry:
  %c0 = icmp sgt i32 %n, 0
  br i1 %c0, label %body, label %exit
body:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %s = phi i32 [ 0, %entry ], [ %s1, %body ]
  %sq = mul i32 %i, %i
  %s1 = add i32 %s, %sq
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %body, label %exit
exit:
  %r = phi i32 [ 0, %entry ], [ %s1, %body ]
  ret i32 %r
}
define i32 @switcher(i32 %x) noinline {
entry:
  switch i32 %x, label %other [ i32 0, label %a
                                i32 1, label %b
                                i32 2, label %c
                                i32 3, label %d
                                i32 4, label %e ]
a: %ra = call i32 @leaf(i32 7)
   ret i32 %ra
b: ret i32 11
c: %rc = mul i32 %x, 5
   ret i32 %rc
d: %rd = call i32 @caller(i32 %x)
   ret i32 %rd
e: %re = sub i32 %x, 23
   ret i32 %re
other: ret i32 -1
}
`;

/** One instruction llvm-objdump lists. */
interface PeerInstruction {
  address: string;
  /** The next instruction's address. */
  next: string;
  mnemonic: string;
  operands: string;
}

/** The instructions llvm-objdump lists from `start` up to `end` (as `triple`, when given). */
async function peerInstructions(
  path: string,
  start: string,
  end: string,
  triple?: string,
): Promise<PeerInstruction[]> {
  const listing = await run("llvm-objdump-14", [
    "-d",
    ...(triple ? [`--triple=${triple}`] : []),
    `--start-address=${start}`,
    `--stop-address=${end}`,
    path,
  ]);
  return [
    ...listing.matchAll(/^[ \t]+([0-9a-f]+):((?: [0-9a-f]{2,8})+)[ \t]+(\S+)[ \t]*([^@\n]*)/gm),
  ].map((m) => {
    const address = BigInt(`0x${m[1]}`);
    const size = m[2]!.trim().split(" ").reduce((n, word) => n + word.length / 2, 0);
    return {
      address: `0x${address.toString(16)}`,
      next: `0x${(address + BigInt(size)).toString(16)}`,
      mnemonic: m[3]!,
      operands: m[4]!.trim(),
    };
  });
}

/** The symbol values `llvm-nm-14` lists for the functions of an object (the Thumb bit cleared). */
async function symbolValues(path: string): Promise<Map<string, bigint>> {
  const values = new Map<string, bigint>();
  for (const line of (await run("llvm-nm-14", ["--defined-only", path])).split("\n")) {
    const m = /^([0-9a-f]+) [Tt] (\S+)$/.exec(line.trim());
    if (m) values.set(m[2]!, BigInt(`0x${m[1]}`) & ~1n);
  }
  return values;
}

/**
 * llvm-objdump's listing of the object function `dossier` describes, moved to
 * the addresses Casefile lays the object's sections out at (an object's own
 * addresses are offsets in each section).
 */
async function peerOfObject(
  path: string,
  values: Map<string, bigint>,
  dossier: Loose,
): Promise<PeerInstruction[]> {
  const value = values.get(dossier.procedure.name);
  assert.ok(value !== undefined, `llvm-nm lists no ${dossier.procedure.name}`);
  const shift = BigInt(dossier.procedure.address) - value;
  const end = value + BigInt(dossier.procedure.end) - BigInt(dossier.procedure.address);
  const moved = (hex: string): string => `0x${(BigInt(hex) + shift).toString(16)}`;
  return (await peerInstructions(path, `0x${value.toString(16)}`, `0x${end.toString(16)}`))
    .map((i) => ({ ...i, address: moved(i.address), next: moved(i.next) }));
}

/** A return that only happens when its condition holds (a Thumb IT block, or ARM mode). */
const CONDITIONAL_RETURN = /^(bx|pop)(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)(\.w)?$/;

for (
  const [target, expectedSet] of [
    ["thumbv7-linux-gnueabihf", "thumb"],
    ["armv7-linux-gnueabihf", "arm"],
    ["aarch64-linux-gnu", "arm64"],
  ] as const
) {
  Deno.test({
    name: `${target} code compiled by llc decodes as llvm-objdump decodes it`,
    ignore: !READY,
    fn: async () => {
      await withTempRoot("casefile-arm-", async ({ client, dir }) => {
        const path = await llcObject(dir, target, MODULE, target);
        await ok(client, "open_binary", { path });
        const values = await symbolValues(path);
        let conditionalReturns = 0;
        for (const name of ["leaf", "caller", "via_pointer", "squares"]) {
          const dossier: Loose = (await ok(client, "analyze_function", {
            procedure: name,
            include_assembly: true,
            include_callers: false,
          })).result;
          const { end } = dossier.procedure;
          const ours = dossier.assembly.items.map((i: Loose) => `${i.address} ${i.mnemonic}`);
          const listed = await peerOfObject(path, values, dossier);
          const peer = listed.map((i) => `${i.address} ${i.mnemonic}`);
          assert.ok(peer.length >= 2, `${target} ${name}: llvm-objdump listed ${peer.length}`);
          assert.deepEqual(ours, peer, `${target} ${name} (${expectedSet})`);
          // A conditional return ends its block, which may go on to the next instruction only.
          for (const i of listed) {
            if (!CONDITIONAL_RETURN.test(i.mnemonic) || !/\b(lr|pc)\b/.test(i.operands)) continue;
            conditionalReturns++;
            const block = dossier.basic_blocks.items.find((b: Loose) => b.end === i.next);
            assert.ok(block, `${target} ${name}: no block ends after ${i.address}`);
            assert.deepEqual(block.successors, BigInt(i.next) < BigInt(end) ? [i.next] : []);
          }
          const calls = name === "caller" || name === "via_pointer";
          assert.equal(dossier.procedure.classification, calls ? "non-leaf" : "leaf", name);
          if (name === "via_pointer") {
            // The one call through a register, where llvm-objdump lists it.
            const site = peer.find((line) => /^\S+ (blx|blr)$/.test(line))?.split(" ")[0];
            assert.deepEqual(dossier.indirect_call_sites.items, [site]);
          }
        }
        // llc returns early from the loop's empty case in Thumb with an IT block.
        if (expectedSet === "thumb") assert.ok(conditionalReturns > 0);
        // A switch's table branch (tbb/tbh, a computed write to pc, br) ends its block, and
        // its targets (in the table) are not the next instruction.
        const switcher: Loose = (await ok(client, "analyze_function", {
          procedure: "switcher",
          include_callers: false,
        })).result;
        const table = (await peerOfObject(path, values, switcher))
          .find((i) => /^(tbb|tbh|br)$/.test(i.mnemonic) || /^pc,/.test(i.operands));
        assert.ok(table, `${target}: llc compiled the switch without a table branch`);
        const block = switcher.basic_blocks.items.find((b: Loose) => b.end === table.next);
        assert.ok(block, `${target} switcher: no block ends after ${table.address}`);
        assert.deepEqual(block.successors, []);
        // The table itself is data ($d): listed as neither instructions nor calls.
        await assertSwitcherListing(client, {
          label: `${target} object`,
          peer: (dossier) => peerOfObject(path, values, dossier),
          inlineTable: expectedSet !== "arm64",
        });
        if (!CAN_LINK) return;
        // The same in a linked library, whose addresses are the file's own.
        const library = `${dir}/${target}.so`;
        const pic = await llcObject(dir, `${target}.pic`, MODULE, target, [
          "-O2",
          "-relocation-model=pic",
        ]);
        await run(LINKER, ["-shared", "-o", library, pic]);
        await ok(client, "open_binary", { path: library });
        await assertSwitcherListing(client, {
          label: `${target} library`,
          peer: (dossier) =>
            peerInstructions(library, dossier.procedure.address, dossier.procedure.end),
          inlineTable: expectedSet !== "arm64",
        });
      });
    },
  });
}

/** Mapping symbols (`$a`, `$t`, `$x`, `$d`) name nothing: no procedure or name starts with `$`. */
async function assertNoMappingNames(client: Connected["client"], label: string): Promise<void> {
  const listing = await ok(client, "list_procedures", { limit: 500 });
  const names = listing.result.items.flatMap((i: Loose) => [i.name ?? "", ...(i.names ?? [])]);
  assert.ok(listing.result.items.length > 0, label);
  assert.deepEqual(names.filter((n: string) => n.startsWith("$")), [], label);
}

/**
 * `switcher`'s listing equals llvm-objdump's, which leaves its jump table
 * out (32-bit ARM and Thumb keep it among the instructions, marked `$d`); its
 * only callees are the two functions it calls.
 */
async function assertSwitcherListing(
  client: Connected["client"],
  options: {
    label: string;
    peer: (dossier: Loose) => Promise<PeerInstruction[]>;
    inlineTable: boolean;
  },
): Promise<void> {
  const { label } = options;
  await assertNoMappingNames(client, label);
  const dossier: Loose = (await ok(client, "analyze_function", {
    procedure: "switcher",
    include_assembly: true,
    include_callers: false,
  })).result;
  const listed = await options.peer(dossier);
  const gaps = listed.filter((i, k) => k + 1 < listed.length && listed[k + 1]!.address !== i.next);
  // The table lies inside the function only for 32-bit code (AArch64 puts it in .rodata).
  assert.equal(gaps.length > 0, options.inlineTable, `${label}: ${JSON.stringify(listed)}`);
  assert.deepEqual(
    dossier.assembly.items.map((i: Loose) => `${i.address} ${i.mnemonic}`),
    listed.map((i) => `${i.address} ${i.mnemonic}`),
    label,
  );
  assert.equal(dossier.instruction_scan.stopped_on_invalid, false, label);
  assert.equal(dossier.procedure.classification, "non-leaf", label);
}

/**
 * A library whose inner functions only the exception index table names once
 * it is stripped: the first module's functions made internal, and one
 * exported function that calls them.
 */
const INNER = `${MODULE.replaceAll("define i32 @", "define internal i32 @")}
define i32 @outer(i32 %x) noinline {
  %a = call i32 @squares(i32 %x)
  %b = call i32 @caller(i32 %a)
  %c = call i32 @via_pointer(i32 (i32)* @leaf, i32 %b)
  %d = call i32 @switcher(i32 %c)
  ret i32 %d
}
`;

const LINKER = "ld.lld-14";
const CAN_LINK = READY && ["llvm-objcopy-14", "readelf"].every((p) => hasProgram(p)) &&
  hasProgram(LINKER);
if (READY && !CAN_LINK) {
  console.log(`analysis_arm_llvm_test: the stripped-library test needs ${LINKER}: skipped`);
}

Deno.test({
  name: "a stripped Thumb library's inner functions, named only by .ARM.exidx, decode as Thumb",
  ignore: !CAN_LINK,
  fn: async () => {
    await withTempRoot("casefile-arm-exidx-", async ({ client, dir }) => {
      const triple = "thumbv7-linux-gnueabihf";
      const inner = await llcObject(dir, "inner", INNER, triple, ["-O2", "-relocation-model=pic"]);
      await run(LINKER, ["-shared", "-o", `${dir}/libfull.so`, inner]);
      const path = `${dir}/libinner.so`;
      await run("llvm-objcopy-14", ["--strip-all", `${dir}/libfull.so`, path]);
      // readelf's index entries in .text: every function, inner ones included.
      const headers = await run("readelf", ["-S", "-W", path]);
      assert.doesNotMatch(headers, /\.symtab/);
      const text = /\.text\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/.exec(headers)!;
      const [start, size] = [BigInt(`0x${text[1]}`), BigInt(`0x${text[2]}`)];
      const starts = [...(await run("readelf", ["-u", path])).matchAll(/^0x([0-9a-f]+):/gm)]
        .map((m) => BigInt(`0x${m[1]}`) & ~1n).filter((a) => a >= start && a < start + size)
        .map((a) => `0x${a.toString(16)}`).sort();
      assert.ok(starts.length >= 4, JSON.stringify(starts));

      await ok(client, "open_binary", { path });
      const listing = await ok(client, "list_procedures", { limit: 500 });
      const listed = listing.result.items.map((i: Loose) => i.address).sort();
      assert.deepEqual(listed, starts);
      // The table leaves the instruction set of the inner functions open; the named one is Thumb.
      const record = JSON.parse(
        ((await client.readResource({ uri: listing.evidence_uri })).contents[0] as Loose).text,
      );
      assert.ok(
        record.limitations.some((l: string) =>
          l.includes(
            `${starts.length - 1} procedure(s) known only from .ARM.exidx are read as Thumb code`,
          )
        ),
        JSON.stringify(record.limitations),
      );
      for (const address of starts) {
        const dossier: Loose = (await ok(client, "analyze_function", {
          procedure: address,
          include_assembly: true,
          include_callers: false,
        })).result;
        const listed = await peerInstructions(path, address, dossier.procedure.end, triple);
        // Bytes that are no instruction (a literal pool) end Capstone's decode; llvm-objdump
        // goes on byte by byte after them.
        const unknown = listed.findIndex((i) => i.mnemonic === "<unknown>");
        const peer = unknown < 0 ? listed : listed.slice(0, unknown);
        assert.ok(peer.length >= 2);
        assert.deepEqual(
          dossier.assembly.items.map((i: Loose) => `${i.address} ${i.mnemonic}`),
          peer.map((i) => `${i.address} ${i.mnemonic}`),
          address,
        );
      }
    });
  },
});

/**
 * Hand-written functions whose data words would decode as calls (`bl` to
 * themselves), and, for 32-bit ARM, an ARM function that goes on in Thumb:
 * the assembler marks the word `$d` and the Thumb code `$t`.
 */
const MAPPED_SOURCES = [
  {
    triple: "armv7-linux-gnueabihf",
    name: "mixed",
    source: `  .syntax unified
  .text
  .globl mixed
  .type mixed,%function
  .arm
mixed:
  add r0, r0, #1
  ldr r1, .Lpool
  b .Lthumb_part
.Lpool:
  .word 0xebfffffe
  .thumb
.Lthumb_part:
  adds r0, r0, r1
  bx lr
  .size mixed, .-mixed
`,
  },
  {
    triple: "aarch64-linux-gnu",
    name: "withdata",
    source: `  .text
  .globl withdata
  .type withdata,%function
withdata:
  ldr w1, .Lk
  add w0, w0, w1
  b .Lrest
.Lk:
  .word 0x94000000
.Lrest:
  ret
  .size withdata, .-withdata
`,
  },
] as const;

const CAN_ASSEMBLE = CAN_LINK && hasProgram("llvm-mc-14");
if (CAN_LINK && !CAN_ASSEMBLE) {
  console.log("analysis_arm_llvm_test: the mapping symbol test needs llvm-mc-14: skipped");
}

for (const { triple, name, source } of MAPPED_SOURCES) {
  Deno.test({
    name: `${triple} data words and instruction set switches follow the mapping symbols`,
    ignore: !CAN_ASSEMBLE,
    fn: async () => {
      await withTempRoot("casefile-arm-mapping-", async ({ client, dir }) => {
        await Deno.writeTextFile(`${dir}/${name}.s`, source);
        const object = `${dir}/${name}.o`;
        await run("llvm-mc-14", [
          `-triple=${triple}`,
          "-filetype=obj",
          "-o",
          object,
          `${dir}/${name}.s`,
        ]);
        const library = `${dir}/lib${name}.so`;
        await run(LINKER, ["-shared", "-o", library, object]);
        const values = await symbolValues(object);
        for (const path of [object, library]) {
          await ok(client, "open_binary", { path });
          await assertNoMappingNames(client, path);
          const dossier: Loose = (await ok(client, "analyze_function", {
            procedure: name,
            include_assembly: true,
            include_callers: false,
          })).result;
          const listed = path === object
            ? await peerOfObject(path, values, dossier)
            : await peerInstructions(path, dossier.procedure.address, dossier.procedure.end);
          assert.ok(listed.length >= 4, `${path}: ${JSON.stringify(listed)}`);
          assert.deepEqual(
            dossier.assembly.items.map((i: Loose) => `${i.address} ${i.mnemonic}`),
            listed.map((i) => `${i.address} ${i.mnemonic}`),
            path,
          );
          // A whole-document scan (callers, callees, profiles) skips the data word too.
          const image = elfImage(await Deno.readFile(path), name);
          const fn = image.functions.find((f) => f.name === name)!;
          const scanned: string[] = [];
          await scanProcedure(image, fn, { maxInstructions: 100, maxBytesWhenUnsized: 4096 }, (
            instructions,
          ) =>
            scanned.push(...instructions.map((i) => `0x${i.address.toString(16)} ${i.mnemonic}`)));
          assert.deepEqual(scanned, listed.map((i) => `${i.address} ${i.mnemonic}`), path);
          // The data word is not a call.
          assert.equal(dossier.procedure.classification, "leaf", path);
          // The load from the literal pool names it (llvm-objdump says where), and it is data.
          const pool = /\bldr\s[^\n]*?\b0x([0-9a-f]+) <\$d/.exec(
            await run("llvm-objdump-14", ["-d", path]),
          );
          assert.ok(pool, `${path}: llvm-objdump lists no load from a literal pool`);
          const shift = path === object
            ? BigInt(dossier.procedure.address) - values.get(name)!
            : 0n;
          const literal = `0x${(BigInt(`0x${pool[1]}`) + shift).toString(16)}`;
          assert.deepEqual(
            dossier.outgoing_references.items.filter((r: Loose) => r.to === literal)
              .map((r: Loose) => r.target),
            ["data"],
            `${path}: ${JSON.stringify(dossier.outgoing_references.items)}`,
          );
          assert.equal(dossier.instruction_scan.stopped_on_invalid, false, path);
        }
      });
    },
  });
}

Deno.test({
  name: "an ARM entry point named by an untyped symbol has no mapping symbol among its names",
  ignore: !CAN_ASSEMBLE,
  fn: async () => {
    await withTempRoot("casefile-arm-entry-", async ({ client, dir }) => {
      // `_start` is a plain label (STT_NOTYPE), as `$a` and `$d` are: it names the entry point.
      await Deno.writeTextFile(
        `${dir}/start.s`,
        `  .syntax unified
  .text
  .globl _start
  .arm
_start:
  mov r0, #0
  ldr r7, .Lexit
  svc #0
.Lexit:
  .word 1
`,
      );
      await run("llvm-mc-14", [
        "-triple=armv7-linux-gnueabihf",
        "-filetype=obj",
        "-o",
        `${dir}/start.o`,
        `${dir}/start.s`,
      ]);
      const path = `${dir}/start`;
      await run(LINKER, ["-o", path, `${dir}/start.o`]);
      await ok(client, "open_binary", { path });
      await assertNoMappingNames(client, path);
      const dossier: Loose = (await ok(client, "analyze_function", {
        procedure: "_start",
        include_assembly: true,
        include_callers: false,
      })).result;
      const listed = await peerInstructions(path, dossier.procedure.address, dossier.procedure.end);
      assert.ok(listed.length >= 3, JSON.stringify(listed));
      // The entry has no size: decoding ends where the literal ($d) begins, as llvm-objdump's code.
      assert.deepEqual(
        dossier.assembly.items.map((i: Loose) => `${i.address} ${i.mnemonic}`),
        listed.map((i) => `${i.address} ${i.mnemonic}`),
      );
    });
  },
});
