/**
 * Branches whose prefix Capstone spells into the mnemonic (`notrack call`,
 * `notrack jmp` from `-fcf-protection`, `repz ret`) are calls, jumps and
 * returns like their plain forms, with objdump as the oracle: an indirect
 * `notrack call` counts as an unresolved call (so the reference scan is not
 * complete and its caller is no leaf), and a `notrack jmp` or a `repz ret`
 * ends its basic block with no fall-through successor.
 */

import assert from "node:assert/strict";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";

const READY = ["cc", "objdump"].every((program) => hasProgram(program));
if (!READY) console.log("analysis_prefixed_branches_test: needs cc and objdump: skipped");

const SOURCE = `
typedef int (*unchecked_fn)(int) __attribute__((nocf_check));
__attribute__((noinline)) int target_fn(int x) { return x * 3 + 1; }
__attribute__((noinline)) int via_pointer(unchecked_fn f, int x) { return f(x) + 2; }
__attribute__((noinline)) int switcher(int x) {
  switch (x) {
    case 0: return target_fn(7);
    case 1: return 11;
    case 2: return x * 5;
    case 3: return 19;
    case 4: return x - 23;
    case 5: return 29;
    case 6: return x + 31;
    default: return -1;
  }
}
__asm__(".globl early_return\\n.type early_return, @function\\nearly_return:\\n"
  "  test %edi, %edi\\n  je 1f\\n  repz ret\\n1:\\n  mov $1, %eax\\n  ret\\n"
  ".size early_return, .-early_return\\n");
`;

/** One `objdump -d` instruction line. */
interface Line {
  address: bigint;
  bytes: number;
  text: string;
}

/** The instruction lines objdump lists for the function `name` (Intel syntax). */
async function objdumpFunction(path: string, name: string): Promise<Line[]> {
  const listing = await run("objdump", ["-d", "-M", "intel", `--disassemble=${name}`, path]);
  const lines: Line[] = [];
  for (const m of listing.matchAll(/^\s+([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t(.*)$/gm)) {
    lines.push({
      address: BigInt(`0x${m[1]}`),
      bytes: m[2]!.trim().split(" ").length,
      text: m[3]!.trim(),
    });
  }
  return lines;
}

const hex = (value: bigint): string => `0x${value.toString(16)}`;

/** The basic block `analyze_function` reports as ending right after `line`. */
function blockEndingAfter(dossier: Loose, line: Line): Loose {
  const end = hex(line.address + BigInt(line.bytes));
  const block = dossier.basic_blocks.items.find((b: Loose) => b.end === end);
  assert.ok(block, `no block ends at ${end}: ${JSON.stringify(dossier.basic_blocks.items)}`);
  return block;
}

Deno.test({
  name: "notrack calls and jumps and repz ret are calls, jumps and returns, as objdump reads them",
  ignore: !READY,
  fn: async () => {
    await withTempRoot("casefile-prefixed-", async ({ client, dir }) => {
      await Deno.writeTextFile(`${dir}/prefixed.c`, SOURCE);
      const path = `${dir}/libprefixed.so`;
      await run("cc", [
        "-O2",
        "-fcf-protection=full",
        "-shared",
        "-fPIC",
        "-o",
        path,
        `${dir}/prefixed.c`,
      ]);
      const pointerCall = (await objdumpFunction(path, "via_pointer"))
        .find((l) => /^notrack call\s+\w+$/.test(l.text));
      const tableJump = (await objdumpFunction(path, "switcher"))
        .find((l) => /^notrack jmp\s+\w+$/.test(l.text));
      const early = (await objdumpFunction(path, "early_return"))
        .find((l) => /^repz ret/.test(l.text));
      assert.ok(pointerCall && tableJump && early, "the compiler emitted no notrack branch");

      await ok(client, "open_binary", { path });
      const callers = (await ok(client, "procedure_callers", { procedure: "target_fn" })).result;
      assert.equal(callers.reference_scan.complete, false);
      assert.equal(callers.reference_scan.unresolved.indirect_calls, 1);
      assert.deepEqual(callers.reference_scan.unresolved.sample, [hex(pointerCall.address)]);

      const viaPointer = (await ok(client, "analyze_function", {
        procedure: "via_pointer",
        include_callers: false,
      })).result;
      assert.equal(viaPointer.procedure.classification, "non-leaf");
      assert.deepEqual(viaPointer.indirect_call_sites.items, [hex(pointerCall.address)]);

      const switcher = (await ok(client, "analyze_function", {
        procedure: "switcher",
        include_callers: false,
      })).result;
      assert.deepEqual(blockEndingAfter(switcher, tableJump).successors, []);

      const earlyReturn = (await ok(client, "analyze_function", {
        procedure: "early_return",
        include_callers: false,
      })).result;
      assert.deepEqual(blockEndingAfter(earlyReturn, early).successors, []);
    });
  },
});
