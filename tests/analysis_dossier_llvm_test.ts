/**
 * `analyze_function`'s fingerprint (instruction count, mnemonic counts and
 * the SHA-256 of the mnemonic sequence), leaf classification and basic
 * blocks (a control-flow graph built here from the listing) against `llvm-objdump-14` in Intel
 * syntax, disassembling each procedure's own extent: every procedure of
 * libz, and a spread of libstdc++'s. The two spell two prefixed forms
 * differently; the peer's spelling is mapped to Capstone's before comparing
 * (a `lock` that llvm-objdump prints on a line of its own joins the
 * instruction after it, `rep ret` is Capstone's `repz ret`, and an indirect
 * `jmp` or `call` behind a 0x3e prefix, which llvm-objdump does not name, is
 * Capstone's `notrack jmp` or `notrack call`).
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { hasProgram, type Loose, ok, run, withClient } from "./helpers/in_memory.ts";
import { firstFile } from "./helpers/system_files.ts";

const LLVM_OBJDUMP = "llvm-objdump-14";
const HAS_PEER = hasProgram(LLVM_OBJDUMP);
if (!HAS_PEER) console.log(`analysis_fingerprint_llvm_test: needs ${LLVM_OBJDUMP}: skipped`);

/** The libraries, and which of their procedures to check (every nth in list order). */
const INPUTS = [
  {
    path: firstFile(["/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1"]),
    every: 1,
  },
  {
    path: firstFile([
      "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
      "/lib/x86_64-linux-gnu/libstdc++.so.6",
    ]),
    every: 37,
  },
];

/** One instruction of llvm-objdump's listing, its mnemonic spelled as Capstone spells it. */
interface PeerInstruction {
  address: bigint;
  size: number;
  mnemonic: string;
  /** What it does to control flow (prefixes aside), and its direct target. */
  branch: "call" | "jump" | "conditional" | "return" | null;
  target: bigint | null;
}

/** The instructions llvm-objdump lists from `start` up to `end`. */
async function peerListing(path: string, start: string, end: string): Promise<PeerInstruction[]> {
  const listing = await run(LLVM_OBJDUMP, [
    "-d",
    "--x86-asm-syntax=intel",
    `--start-address=${start}`,
    `--stop-address=${end}`,
    path,
  ]);
  const instructions: PeerInstruction[] = [];
  // llvm-objdump lists a lock prefix as a line of its own; Capstone, with its instruction.
  let prefix: { address: bigint; size: number } | null = null;
  for (const line of listing.split("\n")) {
    const m = /^[ \t]+([0-9a-f]+):((?: [0-9a-f]{2})+)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(line);
    if (!m) continue;
    const bytes = m[2]!.trim();
    const words = [m[3]!, ...(m[4] ?? "").split(/\s+/).filter((w) => w !== "")];
    if (words.length === 1 && words[0] === "lock") {
      prefix = { address: BigInt(`0x${m[1]}`), size: bytes.split(" ").length };
      continue;
    }
    let mnemonic = words[0]!;
    let operation = mnemonic;
    let operands = words.slice(1);
    if (/^(rep|repe|repne|repz|repnz|notrack|bnd)$/.test(mnemonic) && operands.length > 0) {
      operation = operands[0]!;
      mnemonic = `${mnemonic} ${operation}`;
      operands = operands.slice(1);
    }
    if (mnemonic === "rep ret") mnemonic = "repz ret";
    if ((mnemonic === "jmp" || mnemonic === "call") && bytes.startsWith("3e ff")) {
      mnemonic = `notrack ${mnemonic}`;
    }
    const branch = operation === "call"
      ? "call"
      : operation === "jmp"
      ? "jump"
      : /^(j[a-z]+|loop[a-z]*)$/.test(operation)
      ? "conditional"
      : /^ret/.test(operation)
      ? "return"
      : null;
    const direct = /^0x([0-9a-f]+)$/.exec(operands[0] ?? "");
    instructions.push({
      address: prefix?.address ?? BigInt(`0x${m[1]}`),
      size: bytes.split(" ").length + (prefix?.size ?? 0),
      mnemonic: prefix ? `lock ${mnemonic}` : mnemonic,
      branch,
      target: branch && branch !== "return" && direct ? BigInt(`0x${direct[1]}`) : null,
    });
    prefix = null;
  }
  return instructions;
}

const hex = (value: bigint): string => `0x${value.toString(16)}`;

/**
 * The basic blocks of [start, end): a block starts at the procedure's start,
 * at a jump target inside, and after a jump or return; it ends with a jump
 * or return or before a start. Successors: the next instruction unless the
 * block ends with an unconditional jump or a return, and a jump's target,
 * each only inside. Calls do not end blocks.
 */
function peerBlocks(
  instructions: PeerInstruction[],
  start: bigint,
  end: bigint,
): { start: string; end: string; successors: string[] }[] {
  const inside = (address: bigint): boolean => address >= start && address < end;
  const ends = (i: PeerInstruction): boolean =>
    i.branch === "jump" || i.branch === "conditional" || i.branch === "return";
  const starts = new Set<bigint>([start]);
  for (const i of instructions) {
    if (!ends(i)) continue;
    if (i.target !== null && inside(i.target)) starts.add(i.target);
    starts.add(i.address + BigInt(i.size));
  }
  const blocks: { start: string; end: string; successors: string[] }[] = [];
  let first: bigint | null = null;
  instructions.forEach((i, k) => {
    first ??= i.address;
    const next = i.address + BigInt(i.size);
    if (!ends(i) && !starts.has(next) && k < instructions.length - 1) return;
    const successors = new Set<string>();
    if (i.branch !== "jump" && i.branch !== "return" && inside(next)) successors.add(hex(next));
    if (i.branch !== "return" && ends(i) && i.target !== null && inside(i.target)) {
      successors.add(hex(i.target));
    }
    blocks.push({ start: hex(first), end: hex(next), successors: [...successors].sort() });
    first = null;
  });
  return blocks;
}

/** Every procedure of the open target, in list order. */
async function procedures(client: Loose): Promise<Loose[]> {
  const all: Loose[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page = await ok(client, "list_procedures", { offset, limit: 500 });
    all.push(...page.result.items);
    offset = page.result.next_offset;
  }
  return all;
}

for (const { path, every } of INPUTS) {
  Deno.test({
    name: `analyze_function's fingerprints and blocks of ${
      path?.split("/").at(-1) ?? "a library"
    } agree with llvm-objdump`,
    ignore: !HAS_PEER || path === undefined,
    fn: async () => {
      await withClient({ roots: [path!.slice(0, path!.lastIndexOf("/"))] }, async (client) => {
        await ok(client, "open_binary", { path });
        let checked = 0;
        let blocks = 0;
        const listed = await procedures(client);
        for (let i = 0; i < listed.length; i += every) {
          const dossier = (await ok(client, "analyze_function", {
            procedure: listed[i].address,
            max_instructions: 5000,
            include_callers: false,
          })).result;
          if (dossier.instruction_scan.truncated) continue;
          const { address, end } = dossier.procedure;
          const listing = await peerListing(path!, address, end);
          const peer = listing.map((i) => i.mnemonic);
          const counts: Record<string, number> = {};
          for (const m of peer) counts[m] = (counts[m] ?? 0) + 1;
          const where = `${path} ${dossier.procedure.name || address}`;
          assert.equal(dossier.fingerprint.instruction_count, peer.length, where);
          assert.deepEqual(dossier.fingerprint.mnemonic_counts, counts, where);
          assert.equal(
            dossier.fingerprint.mnemonics_sha256,
            createHash("sha256").update(peer.join("\n")).digest("hex"),
            where,
          );
          // A leaf makes no call at all, direct or indirect.
          assert.equal(
            dossier.procedure.classification,
            listing.some((i) => i.branch === "call") ? "non-leaf" : "leaf",
            where,
          );
          if (!dossier.basic_blocks.truncated) {
            // Indirect jumps (jump tables) may be resolved to targets objdump cannot see.
            const indirect = listing.some((i) => i.branch === "jump" && i.target === null);
            const ours = dossier.basic_blocks.items.map((b: Loose) => ({
              ...b,
              successors: [...b.successors].sort(),
            }));
            const expected = peerBlocks(listing, BigInt(address), BigInt(end));
            if (indirect) assert.equal(ours.length, expected.length, where);
            else assert.deepEqual(ours, expected, where);
            blocks += ours.length;
          }
          checked++;
        }
        assert.ok(checked >= Math.min(100, listed.length / every - 5), `${checked} checked`);
        assert.ok(blocks > checked, `${blocks} blocks in ${checked} procedures`);
      });
    },
  });
}

const LIBZ = INPUTS[0]!.path;

Deno.test({
  name:
    "analyze_function does not call a procedure a leaf when max_instructions stopped decoding before a call llvm-objdump lists",
  ignore: !HAS_PEER || LIBZ === undefined,
  fn: async () => {
    await withClient({ roots: [LIBZ!.slice(0, LIBZ!.lastIndexOf("/"))] }, async (client) => {
      await ok(client, "open_binary", { path: LIBZ });
      let checked = 0;
      for (const { address } of await procedures(client)) {
        const dossier = (await ok(client, "analyze_function", {
          procedure: address,
          max_instructions: 1,
          include_callers: false,
        })).result;
        const peer = await peerListing(LIBZ!, address, dossier.procedure.end);
        if (peer.length < 2 || !peer.slice(1).some((i) => i.branch === "call")) continue;
        // llvm-objdump lists a call past the one instruction decoded.
        assert.equal(dossier.instruction_scan.truncated, true, address);
        assert.equal(
          dossier.procedure.classification,
          peer[0]!.branch === "call" ? "non-leaf" : null,
          `${address}: decoded 1 of ${peer.length} instructions`,
        );
        checked++;
      }
      assert.ok(checked >= 20, `${checked} checked`);
    });
  },
});
