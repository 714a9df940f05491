/**
 * 32-bit PE (i386) code calls an import through its import address table
 * with an absolute memory operand, `call dword ptr [slot]` (`ff 15`, written
 * `calll *ADDR` by llvm-objdump), and reaches it by a thunk,
 * `jmp dword ptr [slot]`. On rollup's ia32 Node addon from npm, compared with
 * `llvm-objdump-14 -d` and the import table `llvm-readobj-14 --coff-imports`
 * lists:
 * - `procedure_callers` of every import lists every `calll *SLOT` site of
 *   its slot, and its other sites are register calls (`calll *%reg`, after a
 *   load of the slot);
 * - `procedure_callees` and `analyze_function` name those imports instead of
 *   listing the calls as indirect, `xrefs` of a slot lists the calls, and a
 *   call path reaches the import in one step from such a call;
 * - a thunk's `jmpl *SLOT` is a tail jump to the import;
 * - an immediate that is no address the image maps (`$4294967295`, -1) is no
 *   outgoing reference: every one lies in a section `llvm-readobj-14 --sections`
 *   lists.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env
 * tests/pe_x86_iat_calls_test.ts`; skipped, with the reason printed, without the
 * programs or the package.
 */

import assert from "node:assert/strict";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { importSlots } from "./helpers/pe_import_slots.ts";
import { pagedItems } from "./helpers/procedures.ts";

const OBJDUMP = "llvm-objdump-14";
const READOBJ = "llvm-readobj-14";
const HAVE = hasProgram(OBJDUMP) && hasProgram(READOBJ);
if (!HAVE) console.log(`pe_x86_iat_calls_test: ${OBJDUMP} or ${READOBJ} not available: skipped`);
const FILE = HAVE
  ? await npmFixture("@rollup/rollup-win32-ia32-msvc@4.69.3", "rollup.win32-ia32-msvc.node")
  : null;

const hex = (a: bigint): string => `0x${a.toString(16)}`;

/** One instruction of the peer's listing. */
interface Line {
  address: bigint;
  mnemonic: string;
  operands: string;
}

/** `llvm-objdump-14 -d` (AT&T), instruction by instruction. */
async function listing(path: string, args: string[] = []): Promise<Line[]> {
  const text = await run(OBJDUMP, ["-d", "--no-show-raw-insn", ...args, path]);
  const lines: Line[] = [];
  for (const m of text.matchAll(/^[ \t]*([0-9a-f]+):[ \t]+(\S+)(?:[ \t]+([^\n]*))?$/gm)) {
    lines.push({ address: BigInt(`0x${m[1]}`), mnemonic: m[2]!, operands: (m[3] ?? "").trim() });
  }
  return lines;
}

/** The slot a `calll *N` / `jmpl *N` reads (an absolute memory operand), or null. */
function absoluteSlot(line: Line): bigint | null {
  const m = /^\*(\d+)$/.exec(line.operands);
  return m ? BigInt(m[1]!) : null;
}

Deno.test({
  name:
    "calls and jumps through an i386 PE's IAT slots (call/jmp dword ptr [slot]) reach their imports, as llvm-objdump lists them",
  ignore: FILE === null,
  fn: async () => {
    const path = FILE!;
    const slots = await importSlots(path, 4n);
    const lines = await listing(path);
    const byAddress = new Map(lines.map((l) => [l.address, l]));
    // The peer's calls and jumps through an import's slot, by slot.
    const calls = new Map<bigint, bigint[]>();
    const jumps = new Map<bigint, bigint[]>();
    for (const line of lines) {
      const slot = absoluteSlot(line);
      if (slot === null || !slots.has(slot)) continue;
      const into = line.mnemonic === "calll" ? calls : line.mnemonic === "jmpl" ? jumps : null;
      if (into !== null) into.set(slot, [...(into.get(slot) ?? []), line.address]);
    }
    const peerCalls = [...calls.values()].reduce((n, s) => n + s.length, 0);
    assert.ok(peerCalls > 100, `${peerCalls} calll *SLOT sites`);

    const { client, close } = await connect({ roots: [path.slice(0, path.lastIndexOf("/"))] });
    try {
      await ok(client, "open_binary", { path });
      // 1. Every import's callers: each `calll *SLOT` site, and register calls besides.
      let matched = 0;
      let registerCalls = 0;
      for (const [slot, sites] of calls) {
        const callers = await pagedItems(client, "procedure_callers", { procedure: hex(slot) });
        const ours = new Set<string>(callers.flatMap((c: Loose) => c.call_sites));
        const expected = sites.map(hex);
        const missing = expected.filter((s) => !ours.has(s));
        assert.deepEqual(missing, [], `${slots.get(slot)}: calll *${slot} sites not listed`);
        matched += expected.length;
        for (const site of ours) {
          if (expected.includes(site)) continue;
          const line = byAddress.get(BigInt(site));
          assert.ok(
            line?.mnemonic === "calll" && /^\*%e[a-z]{2}$/.test(line.operands),
            `${
              slots.get(slot)
            }: ${site} is no calll *SLOT; the peer has ${line?.mnemonic} ${line?.operands}`,
          );
          registerCalls++;
        }
      }
      assert.equal(matched, peerCalls);
      const getLastError = [...slots].find(([, name]) => name === "GetLastError")![0];
      console.log(
        `${calls.size} imports called through their slots: all ${peerCalls} calll *SLOT sites ` +
          `listed as callers (GetLastError: ${calls.get(getLastError)!.length}), ` +
          `plus ${registerCalls} calls through a register loaded from a slot`,
      );

      // 2. A procedure's callees name the imports it calls through slots; none stays indirect.
      const procedure = 0x10039280n;
      const dossier = await ok(client, "analyze_function", {
        procedure: hex(procedure),
        include_callers: false,
        max_instructions: 5000,
      });
      const end = BigInt(dossier.result.procedure.end);
      const inside = lines.filter((l) => l.address >= procedure && l.address < end);
      const expectedCallees = new Map<string, string[]>();
      for (const line of inside) {
        const slot = absoluteSlot(line);
        if (line.mnemonic !== "calll" || slot === null || !slots.has(slot)) continue;
        const name = slots.get(slot)!;
        expectedCallees.set(name, [...(expectedCallees.get(name) ?? []), hex(line.address)]);
      }
      assert.ok(expectedCallees.size >= 3, JSON.stringify([...expectedCallees]));
      const callees = await ok(client, "procedure_callees", { procedure: hex(procedure) });
      const imported = new Map<string, string[]>(
        callees.result.items.filter((c: Loose) => c.kind === "import").map((
          c: Loose,
        ) => [c.name, c.call_sites]),
      );
      assert.deepEqual(imported, expectedCallees);
      const through = [...expectedCallees.values()].flat();
      assert.deepEqual(
        callees.result.indirect_call_sites.filter((s: string) => through.includes(s)),
        [],
      );
      // xrefs of a slot lists its calls.
      const [slot, sites] = [...calls].find(([s]) => s === getLastError)!;
      const xrefs = await pagedItems(client, "xrefs", { address: hex(slot) });
      const xrefCalls = xrefs.filter((x: Loose) => x.kind === "call").map((x: Loose) => x.from);
      for (const site of sites) assert.ok(xrefCalls.includes(hex(site)), hex(site));

      // A call path follows the call through the slot: one step from the caller to the import.
      const route = await ok(client, "build_call_path", {
        from: hex(procedure),
        to: hex(getLastError),
      });
      const direct = expectedCallees.has("GetLastError");
      assert.ok(direct, "the peer lists a calll *SLOT of GetLastError in the procedure");
      assert.equal(route.result.found, true);
      assert.deepEqual(route.result.path.map((p: Loose) => p.address), [
        hex(procedure),
        hex(getLastError),
      ]);

      // 3. A thunk `jmpl *SLOT` is a tail jump to the import, from the procedure it starts.
      let thunks = 0;
      for (const [slot, sites] of jumps) {
        for (const site of sites) {
          const found = await ok(client, "resolve_containing_procedure", { address: hex(site) });
          if (found.result.procedure?.address !== hex(site)) continue;
          // (An unsized thunk runs to the next start: thunks nobody calls may follow it.)
          const own = await ok(client, "procedure_callees", { procedure: hex(site) });
          const first = own.result.tail_jumps.find((t: Loose) => t.call_sites.includes(hex(site)));
          assert.deepEqual([first?.name, first?.kind, first?.address], [
            slots.get(slot),
            "import",
            hex(slot),
          ]);
          thunks++;
        }
      }
      assert.ok(thunks > 0, "no jmpl *SLOT thunk is a procedure");
      console.log(`${thunks} thunks (jmpl *SLOT) tail-jump to their import`);

      // 4. Outgoing references are addresses the image maps; -1 is an immediate, not one.
      // Sections in memory (VirtualSize: llvm-objdump -h gives the raw size, without .bss).
      const headers = await run(READOBJ, ["--file-headers", "--sections", path]);
      const imageBase = BigInt(/ImageBase: (0x[0-9A-Fa-f]+)/.exec(headers)![1]!);
      const sections = [
        ...headers.matchAll(/VirtualSize: (0x[0-9A-Fa-f]+)\s+VirtualAddress: (0x[0-9A-Fa-f]+)/g),
      ].map((m) => ({
        start: imageBase + BigInt(m[2]!),
        end: imageBase + BigInt(m[2]!) + BigInt(m[1]!),
      }));
      assert.ok(sections.length > 0);
      const napi = await ok(client, "analyze_function", {
        procedure: "0x10027f60",
        include_callers: false,
        max_instructions: 5000,
        limit: 500,
      });
      const minusOne = byAddress.get(0x10027f6fn)!;
      assert.match(minusOne.operands, /\$4294967295|\$-1\b/);
      const outgoing: Loose[] = napi.result.outgoing_references.items;
      assert.ok(outgoing.length > 0);
      for (const ref of outgoing) {
        const to = BigInt(ref.to);
        assert.ok(
          sections.some((s) => to >= s.start && to < s.end),
          `${ref.from} → ${ref.to} lies in no section`,
        );
      }
      assert.deepEqual(outgoing.filter((r: Loose) => r.from === "0x10027f6f"), []);
      // The call at 0x10027fc2 is GetLastError's, not an indirect call.
      assert.equal(byAddress.get(0x10027fc2n)!.operands, `*${getLastError}`);
      assert.ok(!napi.result.indirect_call_sites.items.includes("0x10027fc2"));
      assert.ok(
        napi.result.callees.items.some((c: Loose) =>
          c.name === "GetLastError" && c.call_sites.includes("0x10027fc2")
        ),
      );
    } finally {
      await close();
    }
  },
});
