/**
 * Disassembly and demangling against binutils and LLVM on real binaries:
 * instruction boundaries and mnemonics of sample functions agree with
 * `objdump -d` / `llvm-objdump-14 -d`, and demangled names with `c++filt`.
 */

import assert from "node:assert/strict";
import { Disassembler, type InstructionSet } from "../src/apps/disasm/capstone.ts";
import {
  CAPSTONE_WASM_BYTES,
  CAPSTONE_WASM_SHA256,
} from "../src/_vendor/capstone/capstone_wasm.ts";
import { demangle, ensureDemangler } from "../src/apps/disasm/demangle.ts";
import { parseElf } from "../src/apps/formats/elf/parse.ts";
import { sha256Hex } from "../src/core/canonical_json.ts";
import { capstoneWasmPath } from "../src/_vendor/capstone/generate.ts";
import { hasProgram, run } from "./helpers/programs.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { firstFile } from "./helpers/system_files.ts";

const HAS_OBJDUMP = hasProgram("objdump");
const HAS_LLVM_OBJDUMP = hasProgram("llvm-objdump-14");
const HAS_CXXFILT = hasProgram("c++filt");
const LIBC = Deno.realPathSync("/lib/x86_64-linux-gnu/libc.so.6");
await ensureDemangler();

const CAPSTONE_PACKAGE_WASM = await capstoneWasmPath(); // null: the reason is printed

Deno.test({
  name: "the embedded Capstone wasm equals the pinned npm package's file",
  ignore: CAPSTONE_PACKAGE_WASM === null,
}, async () => {
  const bytes = await Deno.readFile(CAPSTONE_PACKAGE_WASM!);
  assert.equal(bytes.length, CAPSTONE_WASM_BYTES);
  assert.equal(sha256Hex(bytes), CAPSTONE_WASM_SHA256);
});

Deno.test("Disassembler decodes x86-64, i386, AArch64, ARM and Thumb instructions", async () => {
  const cases: [InstructionSet, number[], bigint, string[]][] = [
    ["x86_64", [0x55, 0x48, 0x89, 0xe5, 0xe8, 0, 0, 0, 0, 0xc3], 0x1000n, [
      "push",
      "mov",
      "call",
      "ret",
    ]],
    ["x86", [0x55, 0x89, 0xe5, 0x5d, 0xc3], 0x8048000n, ["push", "mov", "pop", "ret"]],
    ["arm64", [0xfd, 0x7b, 0xbf, 0xa9, 0x00, 0x00, 0x00, 0x94, 0xc0, 0x03, 0x5f, 0xd6], 0x4000n, [
      "stp",
      "bl",
      "ret",
    ]],
    ["arm", [0x04, 0xe0, 0x2d, 0xe5, 0x1e, 0xff, 0x2f, 0xe1], 0x8000n, ["str", "bx"]],
    ["thumb", [0x80, 0xb5, 0x80, 0xbd], 0x8000n, ["push", "pop"]],
  ];
  for (const [set, bytes, address, mnemonics] of cases) {
    const disassembler = await Disassembler.open(set);
    const decoded = disassembler.disassemble(new Uint8Array(bytes), address, 100);
    assert.deepEqual(decoded.map((i) => i.mnemonic), mnemonics, set);
    assert.equal(decoded[0]!.address, address);
    assert.equal(decoded.reduce((n, i) => n + i.size, 0), bytes.length, set);
    disassembler.close();
  }
});

Deno.test("Disassembler stops at bytes that are not an instruction and bounds the count", async () => {
  const disassembler = await Disassembler.open("x86_64");
  // 0x06 (push es) does not exist in 64-bit mode.
  assert.equal(
    disassembler.disassemble(new Uint8Array([0x90, 0x90, 0x06, 0x90]), 0n, 10).length,
    2,
  );
  assert.equal(disassembler.disassemble(new Uint8Array(1000).fill(0x90), 0n, 7).length, 7);
  assert.deepEqual(disassembler.disassemble(new Uint8Array(), 0n, 7), []);
  disassembler.close();
  assert.throws(() => disassembler.disassemble(new Uint8Array([0x90]), 0n, 1), /closed/);
});

/** objdump's instructions of one function: address → mnemonic. */
const PREFIXES = new Set([
  "lock",
  "rep",
  "repz",
  "repe",
  "repnz",
  "repne",
  "bnd",
  "notrack",
  "data16",
  "cs",
  "ds",
  "es",
  "fs",
  "gs",
  "ss",
  "addr32",
]);

function objdumpInstructions(text: string): Map<bigint, string> {
  const map = new Map<bigint, string>();
  for (const line of text.split("\n")) {
    const m = /^\s+([0-9a-f]+):\s+(?:(?:[0-9a-f]{2} )+\s*)?\t?([a-z][a-z0-9. ]*)/.exec(line);
    if (!m) continue;
    // The mnemonic proper follows any prefixes (lock, rep, bnd, segment overrides).
    const words = m[2]!.trim().split(/\s+/);
    const mnemonic = words.find((w) => !PREFIXES.has(w)) ?? words[words.length - 1]!;
    map.set(BigInt(`0x${m[1]}`), mnemonic);
  }
  return map;
}

// Spellings that differ between Capstone and binutils for the same instruction.
const SAME_MNEMONIC: Record<string, string> = {
  "cs": "nop",
  "data16": "nop",
  "bnd": "jmp",
  "notrack": "jmp",
  "ds": "jmp",
  "repz": "ret",
  "rep": "stosq",
};

async function compareWithObjdump(
  path: string,
  set: InstructionSet,
  peer: string[],
  sample: number,
): Promise<void> {
  const bytes = await Deno.readFile(path);
  const elf = parseElf(bytes);
  const sized = elf.functions.filter((f) => f.size > 16n && f.size < 4096n).slice(0, sample);
  assert.ok(sized.length > 0, `${path} has sized functions`);
  const disassembler = await Disassembler.open(set);
  let compared = 0;
  for (const fn of sized) {
    const text = fn.address.toString(16);
    const end = (fn.address + fn.size).toString(16);
    const listing = objdumpInstructions(
      await run(peer[0]!, [
        ...peer.slice(1),
        `--start-address=0x${text}`,
        `--stop-address=0x${end}`,
        path,
      ]),
    );
    const load = elf.segments.find((s) =>
      s.typeName === "PT_LOAD" && fn.address >= s.virtualAddress &&
      fn.address < s.virtualAddress + BigInt(s.fileSize)
    )!;
    const offset = load.offset + Number(fn.address - load.virtualAddress);
    const code = bytes.subarray(offset, offset + Number(fn.size));
    const decoded = disassembler.disassemble(code, fn.address, 10_000);
    const ours = new Map(decoded.map((i) => [i.address, i.mnemonic]));
    for (const [address, mnemonic] of listing) {
      assert.ok(
        ours.has(address),
        `${path} ${fn.name}: objdump has an instruction at 0x${
          address.toString(16)
        } (${mnemonic}), Capstone does not`,
      );
      const mine = ours.get(address)!.split(" ").pop()!;
      const theirs = SAME_MNEMONIC[mnemonic] ?? mnemonic;
      const same = mine === theirs || mine.startsWith(theirs) || theirs.startsWith(mine) ||
        SAME_MNEMONIC[mine] === theirs || (mine === "nop" && theirs === "xchg"); // 66 90: xchg ax, ax
      assert.ok(
        same,
        `${path} ${fn.name} 0x${address.toString(16)}: Capstone ${mine}, objdump ${mnemonic}`,
      );
      compared++;
    }
    for (const address of ours.keys()) {
      assert.ok(
        listing.has(address),
        `${path} ${fn.name}: Capstone has 0x${address.toString(16)}, objdump does not`,
      );
    }
  }
  disassembler.close();
  console.log(`${path}: ${compared} instructions in ${sized.length} functions agree`);
}

Deno.test({
  name: "Disassembler agrees with objdump -d on libc functions (x86-64)",
  ignore: !HAS_OBJDUMP,
  fn: () =>
    compareWithObjdump(LIBC, "x86_64", ["objdump", "-d", "-M", "intel", "--no-show-raw-insn"], 40),
});

Deno.test({
  name: "Disassembler agrees with llvm-objdump-14 -d on an AArch64 and an i386 executable",
  ignore: !HAS_LLVM_OBJDUMP,
  fn: async () => {
    for (const [file, set] of [["linux/arm64/7za", "arm64"], ["linux/ia32/7za", "x86"]] as const) {
      const path = await npmFixture("7zip-bin@5.2.0", file);
      if (!path) continue;
      // Stripped: decode from the entry point, compare boundaries for the first 200 bytes.
      const bytes = await Deno.readFile(path);
      const elf = parseElf(bytes);
      const load = elf.segments.find((s) =>
        s.typeName === "PT_LOAD" && elf.entry >= s.virtualAddress &&
        elf.entry < s.virtualAddress + BigInt(s.fileSize)
      )!;
      const offset = load.offset + Number(elf.entry - load.virtualAddress);
      const disassembler = await Disassembler.open(set);
      const decoded = disassembler.disassemble(
        bytes.subarray(offset, offset + 200),
        elf.entry,
        1000,
      );
      const listing = objdumpInstructions(
        await run("llvm-objdump-14", [
          "-d",
          "--no-show-raw-insn",
          ...(set === "x86" ? ["-M", "intel"] : []),
          `--start-address=0x${elf.entry.toString(16)}`,
          `--stop-address=0x${(elf.entry + 200n).toString(16)}`,
          path,
        ]),
      );
      const ours = decoded.map((i) => i.address);
      const theirs = [...listing.keys()].filter((a) =>
        a < elf.entry + BigInt(decoded.reduce((n, i) => n + i.size, 0))
      );
      assert.deepEqual(ours, theirs, file);
      for (const insn of decoded) {
        const peer = listing.get(insn.address)!;
        assert.ok(
          insn.mnemonic === peer || insn.mnemonic.startsWith(peer) ||
            peer.startsWith(insn.mnemonic),
          `${file} 0x${insn.address.toString(16)}: ${insn.mnemonic} vs ${peer}`,
        );
      }
      disassembler.close();
    }
  },
});

// Itanium abbreviations (Ss, So, Si, Sd) may print short or expanded; both name the same type.
function expandAbbreviations(text: string): string {
  const traits = "<char, std::char_traits<char> >";
  return text
    .replace(
      /std::string(?![\w<])/g,
      `std::basic_string${traits.slice(0, -2)}, std::allocator<char> >`,
    )
    .replace(/std::ostream(?![\w<])/g, `std::basic_ostream${traits}`)
    .replace(/std::istream(?![\w<])/g, `std::basic_istream${traits}`)
    .replace(/std::iostream(?![\w<])/g, `std::basic_iostream${traits}`)
    .replaceAll(" >", ">");
}

Deno.test({
  name: "demangle() agrees with c++filt on libstdc++'s exported C++ names and on Rust names",
  ignore: !HAS_CXXFILT || !hasProgram("nm"),
  fn: async () => {
    const libstdcxx = firstFile([
      "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
      "/lib/x86_64-linux-gnu/libstdc++.so.6",
    ]);
    const names = libstdcxx
      ? (await run("nm", ["-D", "--defined-only", libstdcxx])).split("\n")
        .map((l) => l.split(" ").pop()!.replace(/@.*$/, ""))
        .filter((n) => n.startsWith("_Z")).slice(0, 400)
      : [];
    const rust = [
      "_ZN4core3fmt5write17h0123456789abcdefE",
      "_ZN3std2io5stdio6_print17h1a2b3c4d5e6f7a8bE",
      "_RNvCs1234_7mycrate3foo",
      "_RNvNtCs1234_7mycrate6module8function",
    ];
    const all = names;
    const child = new Deno.Command("c++filt", { stdin: "piped", stdout: "piped" }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(all.join("\n") + "\n"));
    await writer.close();
    const expected = new TextDecoder().decode((await child.output()).stdout).split("\n");
    let compared = 0;
    const disagreements: string[] = [];
    all.forEach((name, i) => {
      const theirs = expected[i]!;
      if (theirs === name) return; // c++filt could not demangle it either
      const ours = demangle(name);
      compared++;
      if (expandAbbreviations(ours ?? "") !== expandAbbreviations(theirs)) {
        disagreements.push(`${name}\n    ours:     ${ours}\n    c++filt:  ${theirs}`);
      }
    });
    assert.ok(compared > names.length / 2, `compared ${compared}`);
    // The demangler (cpp_demangle inside gecko-profiler-demangle) is known to differ on a few
    // nested-name forms; they are printed, and must stay rare.
    if (disagreements.length > 0) {
      console.log(`demangle() differs from c++filt on:\n  ${disagreements.join("\n  ")}`);
    }
    assert.ok(
      disagreements.length <= compared * 0.02,
      `${disagreements.length} of ${compared} differ`,
    );
    // c++filt keeps Rust hashes and crate disambiguators; we print the paths without them.
    assert.deepEqual(rust.map(demangle), [
      "core::fmt::write",
      "std::io::stdio::_print",
      "mycrate::foo",
      "mycrate::module::function",
    ]);
    console.log(`demangle(): ${compared} names agree with c++filt`);
  },
});
