/**
 * `analyze_function`'s fingerprint (instruction count, mnemonic counts and
 * the SHA-256 of the mnemonic sequence) and leaf classification against `llvm-objdump-14` in Intel
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

/** The mnemonics llvm-objdump lists from `start` up to `end`, spelled as Capstone spells them. */
async function peerMnemonics(path: string, start: string, end: string): Promise<string[]> {
  const listing = await run(LLVM_OBJDUMP, [
    "-d",
    "--x86-asm-syntax=intel",
    `--start-address=${start}`,
    `--stop-address=${end}`,
    path,
  ]);
  const mnemonics: string[] = [];
  let prefix = "";
  for (const line of listing.split("\n")) {
    const m = /^[ \t]+[0-9a-f]+:((?: [0-9a-f]{2})+)[ \t]+(\S+)(?:[ \t]+(\S+))?/.exec(line);
    if (!m) continue;
    const bytes = m[1]!.trim();
    let mnemonic = m[2]!;
    if (mnemonic === "lock" && m[3] === undefined) {
      prefix = "lock ";
      continue;
    }
    if (/^(rep|repe|repne|repz|repnz|notrack|bnd)$/.test(mnemonic) && m[3] !== undefined) {
      mnemonic = `${mnemonic} ${m[3]}`;
    }
    if (mnemonic === "rep ret") mnemonic = "repz ret";
    if ((mnemonic === "jmp" || mnemonic === "call") && bytes.startsWith("3e ff")) {
      mnemonic = `notrack ${mnemonic}`;
    }
    mnemonics.push(prefix + mnemonic);
    prefix = "";
  }
  return mnemonics;
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
    name: `analyze_function's fingerprints of ${
      path?.split("/").at(-1) ?? "a library"
    } agree with llvm-objdump`,
    ignore: !HAS_PEER || path === undefined,
    fn: async () => {
      await withClient({ roots: [path!.slice(0, path!.lastIndexOf("/"))] }, async (client) => {
        await ok(client, "open_binary", { path });
        let checked = 0;
        const listed = await procedures(client);
        for (let i = 0; i < listed.length; i += every) {
          const dossier = (await ok(client, "analyze_function", {
            procedure: listed[i].address,
            max_instructions: 5000,
            include_callers: false,
          })).result;
          if (dossier.instruction_scan.truncated) continue;
          const { address, end } = dossier.procedure;
          const peer = await peerMnemonics(path!, address, end);
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
            peer.some((m) => m === "call" || m === "notrack call") ? "non-leaf" : "leaf",
            where,
          );
          checked++;
        }
        assert.ok(checked >= Math.min(100, listed.length / every - 5), `${checked} checked`);
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
        const peer = await peerMnemonics(LIBZ!, address, dossier.procedure.end);
        const isCall = (m: string): boolean => m === "call" || m === "notrack call";
        if (peer.length < 2 || !peer.slice(1).some(isCall)) continue;
        // llvm-objdump lists a call past the one instruction decoded.
        assert.equal(dossier.instruction_scan.truncated, true, address);
        assert.equal(
          dossier.procedure.classification,
          isCall(peer[0]!) ? "non-leaf" : null,
          `${address}: decoded 1 of ${peer.length} instructions`,
        );
        checked++;
      }
      assert.ok(checked >= 20, `${checked} checked`);
    });
  },
});
