/**
 * Functions of a 64-bit PE image reached only through pointers in data (a
 * vtable, a table of callbacks) are procedures: the base relocations list
 * every slot holding an absolute address, and a slot outside code that holds
 * an address in code no function covers marks a function start. Compared
 * with the relocations `llvm-readobj-14 --coff-basereloc` lists, the slot
 * contents read at the file offsets `llvm-readobj-14 --sections` gives, the
 * `.pdata` `llvm-objdump-14 -s` dumps and the calls `llvm-objdump-14 -d`
 * decodes:
 * - a DLL the test assembles (`llvm-mc-14`) and links (`lld-link-14`) whose
 *   `vfn` is reached only through a vtable and calls `fc`: `vfn` is a
 *   procedure and the caller of `fc` (before, `fc`'s unsized extent ran on
 *   over `vfn`, and `procedure_callers` named `fc` as its own caller with a
 *   complete reference scan);
 * - libvips-42.dll from `@img/sharp-win32-x64` 0.33.5: every code pointer
 *   outside the `.pdata` functions is a procedure start.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env
 * tests/pe_code_pointers_test.ts`; skipped without the programs or the package.
 */

import assert from "node:assert/strict";
import { connect, hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { pagedItems } from "./helpers/procedures.ts";
import { peerCodePointers } from "./helpers/pe_code_pointers.ts";
import { buildDll } from "./helpers/pe_dll.ts";

const OBJDUMP = "llvm-objdump-14";
const READOBJ = "llvm-readobj-14";
const MC = "llvm-mc-14";
const LINK = "lld-link-14";
const PEERS = hasProgram(OBJDUMP) && hasProgram(READOBJ);
const BUILD = PEERS && hasProgram(MC) && hasProgram(LINK);

const hex = (a: bigint): string => `0x${a.toString(16)}`;

/** The `.pdata` function ranges `llvm-objdump -s` dumps: [begin, end) RVAs. */
async function peerPdata(path: string): Promise<[number, number][]> {
  const dump = await run(OBJDUMP, ["-s", "-j", ".pdata", path]);
  const words: number[] = [];
  for (const line of dump.split("\n")) {
    const match = /^ [0-9a-f]+ ((?:[0-9a-f]{8} ?){1,4})/.exec(line);
    if (!match) continue;
    for (const word of match[1]!.trim().split(" ")) {
      // Each group is four bytes as they lie in the file: little-endian.
      words.push(Number(`0x${word.match(/../g)!.reverse().join("")}`));
    }
  }
  const ranges: [number, number][] = [];
  for (let i = 0; i + 2 < words.length; i += 3) {
    if (words[i] !== 0) ranges.push([words[i]!, words[i + 1]!]);
  }
  return ranges.sort((a, b) => a[0] - b[0]);
}

const SOURCE = [
  "  .text",
  "  .globl DllMain",
  "DllMain:",
  "  movl $1, %eax",
  "  retq",
  "  .globl fc",
  "  .p2align 4",
  "fc:",
  "  xorl %eax, %eax",
  "  retq",
  "  .p2align 4",
  "vfn:",
  "  callq fc",
  "  addl $1, %eax",
  "  retq",
  "  .globl getvt",
  "  .p2align 4",
  "getvt:",
  "  leaq vtable(%rip), %rax",
  "  retq",
  '  .section .rdata,"dr"',
  "  .p2align 3",
  "vtable:",
  "  .quad vfn",
  "  .quad fc",
  "",
].join("\n");

Deno.test({
  name:
    "a function of an x64 DLL reached only through a vtable is a procedure and the caller of what it calls",
  ignore: !BUILD,
  fn: () =>
    withTempRoot("casefile-pe-pointers-", async ({ client, dir }) => {
      const path = await buildDll({
        dir,
        name: "vt",
        source: SOURCE,
        x64: true,
        exports: ["fc", "getvt"],
      });
      const { pointers, base } = await peerCodePointers(path);
      // The vtable holds vfn and fc; fc is an export, so vfn is the pointer-only function.
      const listing = await run(OBJDUMP, ["-d", "--no-show-raw-insn", path]);
      const fc = BigInt(`0x${/^([0-9a-f]+) <fc>:/m.exec(listing)![1]}`);
      const vfn = pointers.map((rva) => base + BigInt(rva)).find((va) => va !== fc);
      assert.ok(vfn !== undefined && pointers.length === 2, `${pointers}`);
      const site = new RegExp(`^\\s*([0-9a-f]+):\\s+callq?\\s+${hex(fc)} <fc>`, "m").exec(listing);
      assert.ok(site, "objdump decodes the call to fc");
      assert.equal(BigInt(`0x${site[1]}`), vfn);

      await ok(client, "open_binary", { path });
      const overview = await ok(client, "binary_overview", {});
      assert.equal(overview.result.procedures_by_source["code-pointer"], 1);
      const found = await ok(client, "resolve_containing_procedure", { address: hex(vfn) });
      assert.equal(found.result.procedure.address, hex(vfn));
      const callers = await ok(client, "procedure_callers", { procedure: "fc" });
      assert.deepEqual(
        callers.result.items.map((c: Loose) => [c.address, c.call_sites]),
        [[hex(vfn), [hex(vfn)]]],
      );
      assert.equal(callers.result.reference_scan.complete, true);
    }),
});

const LIBVIPS = PEERS
  ? await npmFixture("@img/sharp-win32-x64@0.33.5", "lib/libvips-42.dll")
  : null;

Deno.test({
  name:
    "every code pointer of @img/sharp-win32-x64 libvips-42.dll outside its .pdata functions is a procedure start",
  ignore: LIBVIPS === null,
  fn: async () => {
    const path = LIBVIPS!;
    const { pointers, base } = await peerCodePointers(path);
    const pdata = await peerPdata(path);
    const inside = (rva: number): boolean => {
      let low = 0;
      let high = pdata.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (pdata[mid]![0] <= rva) low = mid + 1;
        else high = mid;
      }
      return low > 0 && rva < pdata[low - 1]![1];
    };
    const outside = pointers.filter((rva) => !inside(rva));
    assert.ok(outside.length > 1000, `${outside.length} code pointers outside .pdata`);
    const { client, close } = await connect({ roots: [path.slice(0, path.lastIndexOf("/"))] });
    try {
      await ok(client, "open_binary", { path });
      const listed = new Set(
        (await pagedItems(client, "list_procedures")).map((p: Loose) => p.address),
      );
      const missing = outside.map((rva) => base + BigInt(rva)).filter((a) => !listed.has(hex(a)));
      // What is not a start is a thunk: its first instruction jumps on (a call to it is read as
      // a call to where it jumps), as objdump decodes it.
      const notThunks: string[] = [];
      for (const address of missing) {
        const decoded = await run(OBJDUMP, [
          "-d",
          "--no-show-raw-insn",
          `--start-address=${hex(address)}`,
          `--stop-address=${hex(address + 8n)}`,
          path,
        ]);
        const first = new RegExp(`^\\s*${address.toString(16)}:\\s+(\\S+)`, "m").exec(decoded);
        if (!/^(jmpq?|int3)$/.test(first?.[1] ?? "")) {
          notThunks.push(`${hex(address)} ${first?.[1]}`);
        }
      }
      assert.deepEqual(notThunks, []);
      assert.ok(missing.length < outside.length / 10, `${missing.length} thunks`);
      const overview = await ok(client, "binary_overview", {});
      const pointed = overview.result.procedures_by_source["code-pointer"];
      // The rest of them were already starts (an export, a call target, an import thunk).
      assert.ok(pointed > 0 && pointed <= outside.length, `${pointed} of ${outside.length}`);
      console.log(
        `libvips-42.dll (x64): ${pointers.length} code pointers, ${outside.length} outside .pdata, ${pointed} new procedure starts, ${missing.length} thunks`,
      );
    } finally {
      await close();
    }
  },
});
