/**
 * Import thunks: a MinGW-built DLL ends its `.text` with a table of
 * `jmp [IAT slot]` stubs, one per import called without dllimport. Each is a
 * short procedure of its own that stands for its import, as an ELF PLT stub
 * does. On libvips-42.dll from `@img/sharp-win32-x64` and
 * `@img/sharp-win32-ia32` 0.33.5, compared with `llvm-objdump-14 -d` and the
 * import table `llvm-readobj-14 --coff-imports` lists:
 * - every `jmp [slot]` after padding (or after the thunk before it) that is
 *   no export is listed (source `import-thunk`, the size of the peer's
 *   instruction, named after the import whose slot it jumps through), and
 *   nothing else is;
 * - the procedure before the table ends at its first thunk: the thunks are
 *   not its code, and it has no tail jumps to imports;
 * - `procedure_callers` of an import called through its thunk lists every
 *   `call` and `jmp` to the thunk the peer decodes (x64: memcpy, with 48
 *   tail jumps), as calls to the import, but for those outside every
 *   procedure or past the reference scan's per-procedure bound.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env
 * tests/pe_import_thunks_test.ts`; skipped, with the reason printed, without the
 * programs or the packages.
 */

import assert from "node:assert/strict";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { importSlots } from "./helpers/pe_import_slots.ts";
import { pagedItems } from "./helpers/procedures.ts";

const OBJDUMP = "llvm-objdump-14";
const READOBJ = "llvm-readobj-14";
const HAVE = hasProgram(OBJDUMP) && hasProgram(READOBJ);
if (!HAVE) console.log(`pe_import_thunks_test: ${OBJDUMP} or ${READOBJ} not available: skipped`);

const hex = (a: bigint): string => `0x${a.toString(16)}`;

/** The addresses of the exports `llvm-readobj-14 --coff-exports` lists. */
async function exportedAddresses(path: string): Promise<Set<bigint>> {
  const text = await run(READOBJ, ["--file-headers", "--coff-exports", path]);
  const base = BigInt(/ImageBase: (0x[0-9A-Fa-f]+)/.exec(text)![1]!);
  return new Set([...text.matchAll(/RVA: (0x[0-9A-Fa-f]+)/g)].map((m) => base + BigInt(m[1]!)));
}

/** One instruction of the peer's listing. */
interface Line {
  address: bigint;
  mnemonic: string;
  operands: string;
}

/** `llvm-objdump-14 -d` (AT&T), instruction by instruction. */
async function listing(path: string): Promise<Line[]> {
  const text = await run(OBJDUMP, ["-d", "--no-show-raw-insn", path]);
  const lines: Line[] = [];
  for (const m of text.matchAll(/^[ \t]*([0-9a-f]+):[ \t]+(\S+)(?:[ \t]+([^\n]*))?$/gm)) {
    lines.push({ address: BigInt(`0x${m[1]}`), mnemonic: m[2]!, operands: (m[3] ?? "").trim() });
  }
  return lines;
}

/** The slot a `jmp *SLOT` reads: `*N(%rip) # 0xSLOT` on x64, `*N` on i386; else null. */
function jumpSlot(line: Line): bigint | null {
  if (line.mnemonic !== "jmpq" && line.mnemonic !== "jmpl") return null;
  return jumpSlotOf(line);
}

/** The slot a `call` or `jmp` through memory reads (`*N(%rip) # 0xSLOT`, `*N`), or null. */
function jumpSlotOf(line: Line): bigint | null {
  const rip = /^\*-?\d+\(%rip\)\s+# (0x[0-9a-f]+)/.exec(line.operands);
  if (rip) return BigInt(rip[1]!);
  const absolute = /^\*(\d+)$/.exec(line.operands);
  return absolute ? BigInt(absolute[1]!) : null;
}

const PADDING = new Set(["int3", "nop"]);

/**
 * The peer's thunks: each `jmp *SLOT` to an import's slot that comes after
 * two or more padding instructions, or after only padding since the thunk
 * before it.
 */
function peerThunks(
  lines: Line[],
  slots: Map<bigint, string>,
  sizes: Map<bigint, number>,
): Map<bigint, string> {
  const thunks = new Map<bigint, string>();
  let padding = 0;
  let afterThunk = false;
  for (const line of lines) {
    const slot = jumpSlot(line);
    if (slot !== null && slots.has(slot) && (padding >= 2 || afterThunk)) {
      thunks.set(line.address, slots.get(slot)!);
      // x64: SLOT = address + size + displacement; i386: `ff 25` and the address.
      const rip = /^\*(-?\d+)\(%rip\)/.exec(line.operands);
      sizes.set(line.address, rip ? Number(slot - line.address - BigInt(rip[1]!)) : 6);
      afterThunk = true;
      padding = 0;
      continue;
    }
    if (PADDING.has(line.mnemonic)) padding++;
    else {
      padding = 0;
      afterThunk = false;
    }
  }
  return thunks;
}

interface Case {
  spec: string;
  pointer: bigint;
  /** The last instruction before the thunk table (a `ret`). */
  lastRet: bigint;
  /** The procedure that holds it, when its extent is known to end there (its callees are checked). */
  last: bigint | null;
  /** An import called through its thunk. */
  imported: string;
}

const CASES: Case[] = [
  {
    spec: "@img/sharp-win32-x64@0.33.5",
    pointer: 8n,
    last: 0x180d06670n,
    lastRet: 0x180d067b6n,
    imported: "memcpy",
  },
  {
    spec: "@img/sharp-win32-ia32@0.33.5",
    pointer: 4n,
    last: null,
    lastRet: 0x10c89bc0n,
    imported: "memcpy",
  },
];

for (const c of CASES) {
  const file = HAVE ? await npmFixture(c.spec, "lib/libvips-42.dll") : null;
  Deno.test({
    name:
      `import thunks of ${c.spec} libvips-42.dll (MinGW) are procedures that stand for their imports, as llvm-objdump decodes them`,
    ignore: file === null,
    fn: async () => {
      const path = file!;
      const slots = await importSlots(path, c.pointer);
      const lines = await listing(path);
      const exported = await exportedAddresses(path);
      const sizes = new Map<bigint, number>();
      const expected = peerThunks(lines, slots, sizes);
      // An exported function that only jumps to an import is that function, not a thunk.
      for (const address of exported) expected.delete(address);
      assert.ok(expected.size > 200, `${expected.size} thunks in the peer's listing`);

      const { client, close } = await connect({ roots: [path.slice(0, path.lastIndexOf("/"))] });
      try {
        await ok(client, "open_binary", { path });
        // Every thunk is a procedure named after its import, as long as the peer's `jmp`;
        // and the overview counts no other.
        const listed = new Map<string, string>(
          (await pagedItems(client, "list_procedures")).map((p: Loose) => [p.address, p.value]),
        );
        for (const [address, name] of expected) {
          assert.equal(listed.get(hex(address)), name, hex(address));
          const found = await ok(client, "resolve_containing_procedure", { address: hex(address) });
          assert.deepEqual(
            [found.result.procedure.address, found.result.procedure.size],
            [hex(address), sizes.get(address)],
          );
        }
        const overview = await ok(client, "binary_overview", {});
        assert.equal(overview.result.procedures_by_source["import-thunk"], expected.size);
        console.log(`${c.spec}: ${expected.size} thunks, as the peer decodes them`);

        // The procedure before the table ends at its first thunk.
        const first = [...expected.keys()].filter((a) => a > c.lastRet).reduce((a, b) =>
          a < b ? a : b
        );
        const atRet = await ok(client, "resolve_containing_procedure", { address: hex(c.lastRet) });
        const before = BigInt(atRet.result.procedure.address);
        assert.ok(before < first, `${hex(c.lastRet)} is in ${hex(before)}`);
        if (c.last !== null) assert.equal(before, c.last);
        const atThunk = await ok(client, "resolve_containing_procedure", { address: hex(first) });
        assert.equal(atThunk.result.procedure.address, hex(first));
        if (c.last !== null) {
          const callees = await ok(client, "procedure_callees", { procedure: hex(c.last) });
          assert.deepEqual(
            callees.result.tail_jumps.filter((t: Loose) => t.kind === "import"),
            [],
            "the last procedure tail-jumps to no import",
          );
        }

        // Callers of an import called through its thunk: every call and jump to the thunk.
        const thunk = [...expected].find(([, name]) => name === c.imported)![0];
        const target = new RegExp(`^${hex(thunk)}\\b`);
        const calls = lines.filter((l) => /^call/.test(l.mnemonic) && target.test(l.operands));
        const jumps = lines.filter((l) => /^jmp/.test(l.mnemonic) && target.test(l.operands));
        assert.ok(calls.length > 100, `${calls.length} calls`);
        const callers = await pagedItems(client, "procedure_callers", { procedure: c.imported });
        const callSites = new Set<string>(callers.flatMap((x: Loose) => x.call_sites));
        const jumpSites = new Set<string>(callers.flatMap((x: Loose) => x.tail_jump_sites ?? []));
        // Each listed site is one of the peer's; with every procedure decoded to its end, all are.
        const peerCalls = new Set(calls.map((l) => hex(l.address)));
        const peerJumps = new Set(jumps.map((l) => hex(l.address)));
        const slot = [...slots].find(([, name]) => name === c.imported)![0];
        const throughSlot = new Set(
          lines.filter((l) => /^call/.test(l.mnemonic) && jumpSlotOf(l) === slot).map((l) =>
            hex(l.address)
          ),
        );
        // A call to a `jmp THUNK` is a call to the import too.
        const relays = new RegExp(`^(${jumps.map((l) => hex(l.address)).join("|")})\\b`);
        const viaRelay = new Set(
          lines.filter((l) => /^call/.test(l.mnemonic) && relays.test(l.operands)).map((l) =>
            hex(l.address)
          ),
        );
        for (const site of callSites) {
          assert.ok(
            peerCalls.has(site) || throughSlot.has(site) || viaRelay.has(site),
            `call at ${site}`,
          );
        }
        for (const site of jumpSites) assert.ok(peerJumps.has(site), `jump at ${site}`);
        // All the others lie outside every procedure, or past the reference scan's bound of
        // 20,000 instructions from their procedure's start (counted in the peer's listing).
        const position = new Map(lines.map((l, k) => [hex(l.address), k]));
        const missed = [...calls, ...jumps].map((l) => hex(l.address)).filter((a) =>
          !callSites.has(a) && !jumpSites.has(a)
        );
        for (const site of missed) {
          const found = await ok(client, "resolve_containing_procedure", { address: site });
          const start = found.result.procedure?.address;
          if (start === undefined) continue;
          const depth = position.get(site)! - position.get(start)!;
          assert.ok(depth >= 20_000, `${site}: instruction ${depth} of ${start}`);
        }
        // (On i386, code between the functions `.eh_frame` sizes that nothing calls directly.)
        assert.ok(missed.length * 50 < calls.length + jumps.length, `${missed.length} not listed`);
        const listedCalls = calls.length - missed.filter((a) => peerCalls.has(a)).length;
        const listedJumps = jumps.length - missed.filter((a) => peerJumps.has(a)).length;
        const callees2 = await ok(client, "procedure_callees", {
          procedure: hex(BigInt(callers.find((x: Loose) => x.call_sites.length > 0).address)),
        });
        const entry = callees2.result.items.find((i: Loose) => i.address === hex(thunk));
        assert.deepEqual([entry?.name, entry?.kind], [c.imported, "import"]);
        console.log(
          `${c.spec}: ${c.imported} through its thunk ${hex(thunk)}: ${listedCalls} of the ` +
            `peer's ${calls.length} calls and ${listedJumps} of its ${jumps.length} tail jumps ` +
            `listed as callers of the import`,
        );
      } finally {
        await close();
      }
    },
  });
}
