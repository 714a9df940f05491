/**
 * A leaf function of an x64 or ARM64 PE image needs no unwind data, so its
 * `.pdata` leaves it out; code calls it directly all the same. Compared with
 * `llvm-objdump-14 -d` and the function table (`objdump -x` for x64,
 * `llvm-readobj-14 --unwind` for ARM64) on lightningcss's x64 and rollup's
 * ARM64 Node addons from npm:
 * - every direct call target (`callq 0x…`, `bl 0x…`) in the code section that
 *   lies outside every `.pdata` range is a procedure (source `call-target`),
 *   but thunks (a first instruction that jumps to a known start or through
 *   an import's slot), whose callers are the callers of what they jump to;
 * - such a procedure (lightningcss's 0x180007550) is found by address and
 *   containment, and its callers are the `callq` sites llvm-objdump lists;
 * - no direct call of the reference scan is left to an unknown target, and
 *   what was added is stated in the document's warnings.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env
 * tests/pe_leaf_functions_test.ts`; skipped, with the reason printed, without the
 * programs or the packages.
 */

import assert from "node:assert/strict";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { pagedItems } from "./helpers/procedures.ts";
import { peerCallbacks } from "./helpers/pe_tls.ts";
import { peerCodePointers } from "./helpers/pe_code_pointers.ts";

const OBJDUMP = "objdump";
const LLVM_OBJDUMP = "llvm-objdump-14";
const READOBJ = "llvm-readobj-14";
const HAVE = hasProgram(OBJDUMP) && hasProgram(LLVM_OBJDUMP) && hasProgram(READOBJ);
if (!HAVE) {
  console.log(`pe_leaf_functions_test: ${OBJDUMP}, ${LLVM_OBJDUMP} or ${READOBJ} missing: skipped`);
}
const X64 = HAVE
  ? await npmFixture("lightningcss-win32-x64-msvc@1.33.0", "lightningcss.win32-x64-msvc.node")
  : null;
const ARM64 = HAVE
  ? await npmFixture("@rollup/rollup-win32-arm64-msvc@4.69.3", "rollup.win32-arm64-msvc.node")
  : null;

const hex = (a: bigint): string => `0x${a.toString(16)}`;

/** `[begin, end)` of each `.pdata` entry, as the peer reads the function table. */
async function pdataRanges(path: string, arm64: boolean): Promise<[bigint, bigint][]> {
  const ranges: [bigint, bigint][] = [];
  if (arm64) {
    const text = await run(READOBJ, ["--unwind", path]);
    for (const block of text.split("RuntimeFunction {").slice(1)) {
      const start = BigInt(/Function: (0x[0-9A-Fa-f]+)/.exec(block)![1]!);
      ranges.push([start, start + BigInt(/FunctionLength: (\d+)/.exec(block)![1]!)]);
    }
  } else {
    const text = await run(OBJDUMP, ["-x", path]);
    const table = text.slice(text.indexOf("The Function Table (interpreted .pdata"));
    for (
      const m of table.slice(0, table.indexOf("\n\n")).matchAll(
        /^ [0-9a-f]{16}:\s+([0-9a-f]{16}) ([0-9a-f]{16}) [0-9a-f]{16}$/gm,
      )
    ) {
      if (BigInt(`0x${m[1]}`) !== 0n) ranges.push([BigInt(`0x${m[1]}`), BigInt(`0x${m[2]}`)]);
    }
  }
  return ranges.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** The executable sections and import slots `llvm-readobj-14` lists. */
async function layout(
  path: string,
): Promise<{ code: [bigint, bigint][]; slots: Set<bigint> }> {
  const text = await run(READOBJ, ["--file-headers", "--sections", "--coff-imports", path]);
  const base = BigInt(/ImageBase: (0x[0-9A-Fa-f]+)/.exec(text)![1]!);
  const code: [bigint, bigint][] = [];
  for (const block of text.split(/\n\s*Section \{/).slice(1)) {
    if (!/IMAGE_SCN_MEM_EXECUTE/.test(block)) continue;
    const start = base + BigInt(/VirtualAddress: (0x[0-9A-Fa-f]+)/.exec(block)![1]!);
    code.push([start, start + BigInt(/VirtualSize: (0x[0-9A-Fa-f]+)/.exec(block)![1]!)]);
  }
  const slots = new Set<bigint>();
  for (const block of text.split(/\n\s*Import \{/).slice(1)) {
    const table = /ImportAddressTableRVA: (0x[0-9A-Fa-f]+)/.exec(block);
    if (!table) continue;
    let slot = base + BigInt(table[1]!);
    for (const _ of block.matchAll(/Symbol: /g)) {
      slots.add(slot);
      slot += 8n;
    }
  }
  return { code, slots };
}

/** What the peer's listing says about direct calls and first instructions. */
interface Listing {
  /** Direct call target → call sites. */
  calls: Map<bigint, bigint[]>;
  /** Each instruction's text by address. */
  text: Map<bigint, string>;
}

async function listing(path: string): Promise<Listing> {
  const out = await run(LLVM_OBJDUMP, ["-d", "--no-show-raw-insn", path]);
  const calls = new Map<bigint, bigint[]>();
  const text = new Map<bigint, string>();
  for (const m of out.matchAll(/^[ \t]*([0-9a-f]+):[ \t]+([^\n]*)$/gm)) {
    const at = BigInt(`0x${m[1]}`);
    const insn = m[2]!.trim();
    text.set(at, insn);
    const call = /^(?:callq|bl)\s+0x([0-9a-f]+)/.exec(insn);
    if (call) {
      const target = BigInt(`0x${call[1]}`);
      calls.set(target, [...(calls.get(target) ?? []), at]);
    }
  }
  return { calls, text };
}

interface Case {
  label: string;
  path: string | null;
  arm64: boolean;
  /** A procedure to look at closely, with the callers the peer lists. */
  probe?: bigint;
}

const CASES: Case[] = [
  { label: "lightningcss (x64)", path: X64, arm64: false, probe: 0x180007550n },
  { label: "rollup (ARM64)", path: ARM64, arm64: true },
];

for (const c of CASES) {
  Deno.test({
    name:
      `direct call targets outside every .pdata function of ${c.label} are procedures, as llvm-objdump lists the calls`,
    ignore: c.path === null,
    fn: async () => {
      const path = c.path!;
      const ranges = await pdataRanges(path, c.arm64);
      const starts = new Set(ranges.map(([b]) => b));
      const { code, slots } = await layout(path);
      const peer = await listing(path);
      const inRange = (a: bigint): boolean => ranges.some(([b, e]) => a >= b && a < e);
      const inCode = (a: bigint): boolean => code.some(([b, e]) => a >= b && a < e);
      const outside = [...peer.calls.keys()].filter((t) => inCode(t) && !inRange(t));
      const known = new Set([...starts, ...outside]);
      // A thunk: its first instruction jumps to a known start or through an import's slot.
      const thunk = (t: bigint): boolean => {
        const first = peer.text.get(t) ?? "";
        const direct = /^(?:jmp|jmpq|b)\s+0x([0-9a-f]+)/.exec(first);
        if (direct) return known.has(BigInt(`0x${direct[1]}`));
        const slot = /^(?:rex64 )?jmpq\s+\*-?\d+\(%rip\)\s+# 0x([0-9a-f]+)/.exec(first);
        return slot !== null && slots.has(BigInt(`0x${slot[1]}`));
      };
      const expected = outside.filter((t) => !thunk(t)).map(hex).sort();
      const callbacks = await peerCallbacks(path, 8);
      assert.ok(expected.length > 100, `${expected.length} leaf targets`);
      // Code that relocated data points at (vtables, function tables) starts functions too.
      const peerPointers = await peerCodePointers(path);
      const pointers = new Set(peerPointers.pointers.map((rva) => peerPointers.base + BigInt(rva)));

      const { client, close } = await connect({ roots: [path.slice(0, path.lastIndexOf("/"))] });
      try {
        await ok(client, "open_binary", { path });
        // The procedures that are no .pdata start: the expected ones, and exports or the entry.
        const others: string[] = [];
        for (const item of await pagedItems(client, "list_procedures")) {
          if (!starts.has(BigInt(item.address))) others.push(item.address);
        }
        // A call target that data also points at was started from the pointer, before the calls.
        const viaPointer: string[] = [];
        const missing = expected.filter((t) => !others.includes(t));
        assert.deepEqual(missing, [], "leaf targets not listed");
        for (const other of others.filter((t) => !expected.includes(t))) {
          const found = await ok(client, "procedure_address", { procedure: other });
          // An import thunk is a procedure of its own where the peer decodes `jmp *SLOT`, and
          // so is a TLS callback the peer lists.
          const source = found.result.source;
          assert.ok(
            ["export", "entry"].includes(source) ||
              (source === "code-pointer" && pointers.has(BigInt(other)) &&
                !inRange(BigInt(other))) ||
              (source === "import-thunk" && thunk(BigInt(other))) ||
              (source === "tls-callback" && callbacks.includes(BigInt(other))),
            `${other}: ${source}`,
          );
        }
        for (const target of expected) {
          const found = await ok(client, "procedure_address", { procedure: target });
          if (found.result.source === "code-pointer") viaPointer.push(target);
          else assert.equal(found.result.source, "call-target", target);
        }
        assert.ok(viaPointer.every((t) => pointers.has(BigInt(t))), "a pointer start data holds");
        const fromCalls = expected.length - viaPointer.length;
        const overview = await ok(client, "binary_overview");
        assert.equal(overview.result.procedures_by_source["call-target"], fromCalls);
        const session = await ok(client, "binary_session");
        const warnings: string[] = session.result.target.warnings;
        assert.ok(
          warnings.some((w) => w.includes(`${fromCalls} procedure starts were added`)),
          JSON.stringify(warnings),
        );

        // The reference scan says where code lies outside every procedure: real instructions.
        const scan = await ok(client, "procedure_callers", { procedure: expected[0], limit: 1 });
        const evidence = await client.readResource({ uri: scan.evidence_uri });
        const record = (evidence.contents[0] as { text: string }).text;
        const uncovered =
          /(\d+) byte\(s\) of code in (\d+) stretch\(es\) lie outside every known procedure \(the first at (0x[0-9a-f]+)\)/
            .exec(record);
        assert.ok(uncovered, "the scan names no code outside every procedure");
        const first = BigInt(uncovered[3]!);
        assert.ok(!inRange(first) && inCode(first), hex(first));
        const padding = /^(int3|nop|nopw|nopl|udf|<unknown>)/;
        let at = first;
        while (padding.test(peer.text.get(at) ?? "nop") && at < first + 64n) at++;
        assert.ok(
          peer.text.has(at) && !padding.test(peer.text.get(at)!),
          `${hex(at)}: padding only`,
        );

        if (c.probe !== undefined) {
          const probe = hex(c.probe);
          const address = await ok(client, "procedure_address", { procedure: probe });
          assert.equal(address.result.source, "call-target");
          const containing = await ok(client, "resolve_containing_procedure", { address: probe });
          assert.equal(containing.result.procedure?.address, probe);
          const callers = await ok(client, "procedure_callers", { procedure: probe, limit: 500 });
          assert.deepEqual(
            callers.result.items.flatMap((i: Loose) => i.call_sites).sort(),
            peer.calls.get(c.probe)!.map(hex).sort(),
          );
          // Every direct call of the peer reaches a procedure, a thunk's target or an import.
          const unknown = [...peer.calls].filter(([t]) => !known.has(t) && inCode(t));
          assert.equal(
            callers.result.reference_scan.unresolved.unknown_call_targets,
            unknown.reduce((n, [, sites]) => n + sites.length, 0),
          );
        }
        console.log(
          `${c.label}: ${ranges.length} .pdata entries; ${outside.length} direct call targets ` +
            `outside them, ${outside.length - expected.length} of them thunks; ` +
            `${expected.length} added as procedures`,
        );
      } finally {
        await close();
      }
    },
  });
}
