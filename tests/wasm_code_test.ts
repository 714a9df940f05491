/**
 * The WebAssembly body decoder against wabt's `wasm-objdump -d` on real
 * modules (every function: instruction offsets, mnemonics, call targets), and
 * on hand-made bodies for references, calls and damage.
 */

import assert from "node:assert/strict";
import { codeMapOf, decodeWasmBody, memoryToFile } from "../src/apps/disasm/wasm_code.ts";
import { parseWasm } from "../src/apps/formats/wasm/parse.ts";
import { hasProgram, run } from "./helpers/programs.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { mulberry32 } from "./helpers/random.ts";
import { CAPSTONE_PACKAGE } from "../src/_vendor/capstone/package.ts";

const REAL = [
  {
    label: "index_bg.wasm (gecko-profiler-demangle)",
    path: await npmFixture("gecko-profiler-demangle@0.4.0", "index_bg.wasm"),
  },
  {
    label: "capstone.wasm",
    path: await npmFixture(CAPSTONE_PACKAGE, "dist/capstone.wasm"),
  },
];
const haveObjdump = hasProgram("wasm-objdump");
if (!haveObjdump) console.log("wasm_code_test: skipping peer checks, wasm-objdump is absent");

interface PeerInstruction {
  offset: number;
  mnemonic: string;
  operands: string;
}

/** `wasm-objdump -d`: instructions per function body offset (local declarations left out). */
function parseObjdump(text: string): Map<number, PeerInstruction[]> {
  const functions = new Map<number, PeerInstruction[]>();
  let current: PeerInstruction[] | null = null;
  for (const line of text.split("\n")) {
    const header = /^([0-9a-f]+) func\[\d+\]/.exec(line);
    if (header) {
      current = [];
      functions.set(parseInt(header[1]!, 16), current);
      continue;
    }
    const insn = /^ ([0-9a-f]+): [0-9a-f ]+\|\s*(.*)$/.exec(line);
    if (!insn || !current) continue;
    const text = insn[2]!.trim();
    // Long byte dumps continue on lines with no instruction text.
    if (text === "" || text.startsWith("local[")) continue;
    const space = text.indexOf(" ");
    current.push({
      offset: parseInt(insn[1]!, 16),
      mnemonic: space < 0 ? text : text.slice(0, space),
      operands: space < 0 ? "" : text.slice(space + 1),
    });
  }
  return functions;
}

for (const fixture of REAL) {
  Deno.test({
    name: `decodeWasmBody() decodes every function of ${fixture.label} as wasm-objdump -d does`,
    ignore: fixture.path === null || !haveObjdump,
    fn: async () => {
      const bytes = await Deno.readFile(fixture.path!);
      const module = parseWasm(bytes);
      const map = codeMapOf(module);
      const peer = parseObjdump(await run("wasm-objdump", ["-d", fixture.path!]));
      assert.equal(peer.size, module.bodies.length);
      let instructions = 0;
      let named = 0;
      let calls = 0;
      for (const body of module.bodies) {
        const decoded = decodeWasmBody(bytes, body.offset, body.size, 1_000_000, map);
        assert.equal(decoded.stoppedOn, null, `function ${body.index}`);
        assert.equal(decoded.truncated, false);
        const theirs: PeerInstruction[] | undefined = peer.get(body.offset);
        assert.ok(theirs, `wasm-objdump lists a body at ${body.offset}`);
        assert.deepEqual(
          decoded.instructions.map((i) => Number(i.address)),
          theirs.map((i) => i.offset),
          `instruction boundaries of function ${body.index}`,
        );
        for (const [k, ours] of decoded.instructions.entries()) {
          const their: PeerInstruction = theirs[k]!;
          instructions++;
          // Extension opcodes get generic names here; their boundaries were compared above.
          if (/^(simd|gc|atomic)\./.test(ours.mnemonic)) continue;
          named++;
          assert.equal(ours.mnemonic, their.mnemonic, `at ${their.offset}`);
          if (ours.callee !== undefined) {
            calls++;
            assert.equal(ours.callee, parseInt(their.operands, 10), `call at ${their.offset}`);
          }
        }
      }
      console.log(
        `${fixture.label}: ${module.bodies.length} functions, ${instructions} instructions at wasm-objdump's offsets, ${named} mnemonics and ${calls} direct calls equal`,
      );
      assert.ok(calls > 100);
    },
  });
}

/** A module-less code map: imports 0–1, bodies at 100 and 200, one data segment at memory 1024. */
const MAP = codeMapOf({
  imports: [
    { module: "env", name: "puts", kind: "func", offset: 20 },
    { module: "env", name: "memory", kind: "memory", offset: 30 },
    { module: "env", name: "abort", kind: "func", offset: 40 },
  ],
  bodies: [{ index: 2, offset: 100 }, { index: 3, offset: 200 }],
  data: [
    { mode: "active", memory: 0, memoryOffset: 1024n, offset: 5000, size: 64 },
    { mode: "passive", memory: null, memoryOffset: null, offset: 6000, size: 16 },
  ],
});

/** A body: no locals, then `code`. */
function body(code: number[]): Uint8Array {
  return Uint8Array.from([0x00, ...code]);
}

Deno.test("decodeWasmBody() reads calls, tail calls, indirect calls and references into initialised memory", () => {
  const code = body([
    0x41,
    0x88,
    0x08, // i32.const 1032 (inside the segment: file offset 5008)
    0x10,
    0x00, // call 0 <env.puts>
    0x1a, // drop
    0x41,
    0x00, // i32.const 0
    0x28,
    0x02,
    0x84,
    0x08, // i32.load align=2 offset=1028 → 5004
    0x10,
    0x03, // call 3
    0x41,
    0x2a, // i32.const 42 (no segment there)
    0x11,
    0x05,
    0x00, // call_indirect type 5 table 0
    0x12,
    0x01, // return_call 1 <env.abort>
    0x0b,
  ]);
  const decoded = decodeWasmBody(code, 0, code.length, 100, MAP);
  assert.equal(decoded.stoppedOn, null);
  assert.equal(decoded.codeStart, 1);
  const by = decoded.instructions.map((i) => [i.mnemonic, i.operands]);
  assert.deepEqual(by, [
    ["i32.const", "1032"],
    ["call", "0 <env.puts>"],
    ["drop", ""],
    ["i32.const", "0"],
    ["i32.load", "align=2 offset=1028"],
    ["call", "3"],
    ["i32.const", "42"],
    ["call_indirect", "0 (type 5)"],
    ["return_call", "1 <env.abort>"],
    ["end", ""],
  ]);
  const [first, puts, , , load, direct, , indirect, tail] = decoded.instructions;
  assert.equal(first!.reference, 5008n);
  assert.equal(puts!.callee, 0);
  assert.equal(load!.reference, 5004n);
  assert.equal(direct!.callee, 3);
  assert.equal(indirect!.indirectCall, true);
  assert.equal(tail!.callee, 1);
  assert.equal(tail!.exits, true);
  assert.equal(decoded.instructions[6]!.reference, undefined);
  assert.equal(memoryToFile(MAP, 1023n), null);
  assert.equal(memoryToFile(MAP, 1087n), 5063n);
  assert.equal(memoryToFile(MAP, 1088n), null);
});

Deno.test("decodeWasmBody() stops with a reason on unknown opcodes, cut immediates and a body past the file, and honours the cap", () => {
  const unknown = body([0x01, 0xff, 0x01]);
  const stopped = decodeWasmBody(unknown, 0, unknown.length, 100, MAP);
  assert.equal(stopped.instructions.length, 1);
  assert.match(stopped.stoppedOn!, /unknown opcode 0xff/);
  const cut = body([0x41, 0x80, 0x80]);
  assert.match(decodeWasmBody(cut, 0, cut.length, 100, MAP).stoppedOn!, /ends inside/);
  const longLeb = body([0x10, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
  assert.match(decodeWasmBody(longLeb, 0, longLeb.length, 100, MAP).stoppedOn!, /longer than 5/);
  const past = body([0x01, 0x01]);
  assert.match(decodeWasmBody(past, 0, 1000, 100, MAP).stoppedOn!, /file ends inside the body/);
  const badLocals = Uint8Array.from([0x05, 0x01]);
  assert.match(
    decodeWasmBody(badLocals, 0, badLocals.length, 100, MAP).stoppedOn!,
    /local declarations/,
  );
  const many = body(new Array(50).fill(0x01));
  const capped = decodeWasmBody(many, 0, many.length, 10, MAP);
  assert.equal(capped.instructions.length, 10);
  assert.equal(capped.truncated, true);
});

Deno.test({
  name: "decodeWasmBody() decodes every body of esbuild.wasm (Go, 14 MB) to its end",
  ignore: (await npmFixture("esbuild-wasm@0.28.2", "esbuild.wasm")) === null,
  fn: async () => {
    const path = (await npmFixture("esbuild-wasm@0.28.2", "esbuild.wasm"))!;
    const bytes = await Deno.readFile(path);
    const module = parseWasm(bytes);
    const map = codeMapOf(module);
    let instructions = 0;
    let references = 0;
    for (const body of module.bodies) {
      const decoded = decodeWasmBody(bytes, body.offset, body.size, 10_000_000, map);
      assert.equal(decoded.stoppedOn, null, `function ${body.index}`);
      instructions += decoded.instructions.length;
      references += decoded.instructions.filter((i) => i.reference !== undefined).length;
    }
    console.log(
      `esbuild.wasm: ${module.bodies.length} bodies, ${instructions} instructions, ${references} constants naming initialised memory`,
    );
    assert.ok(references > 0);
  },
});

Deno.test({
  name:
    "decodeWasmBody() on random and corrupted bodies always returns, within its bounds, with a reason when it stops early",
  ignore: REAL[0]!.path === null,
  fn: async () => {
    const seed = 0x5eed_c0de;
    console.log(`seed ${seed}`);
    const random = mulberry32(seed);
    const byte = () => Math.floor(random() * 256);
    // Pure noise.
    for (let n = 0; n < 3000; n++) {
      const body = Uint8Array.from({ length: 1 + Math.floor(random() * 64) }, byte);
      const decoded = decodeWasmBody(body, 0, body.length, 1000, MAP);
      assert.ok(decoded.instructions.length <= 1000);
      for (const insn of decoded.instructions) {
        assert.ok(insn.address >= 0n && insn.address + BigInt(insn.size) <= BigInt(body.length));
      }
    }
    // Real bodies with flipped bytes and lying sizes.
    const bytes = await Deno.readFile(REAL[0]!.path!);
    const module = parseWasm(bytes);
    const map = codeMapOf(module);
    let stopped = 0;
    for (let n = 0; n < 400; n++) {
      const body = module.bodies[Math.floor(random() * module.bodies.length)]!;
      const copy = bytes.slice();
      for (let k = 0; k < 1 + Math.floor(random() * 4); k++) {
        copy[body.offset + Math.floor(random() * body.size)] = byte();
      }
      const size = random() < 0.2 ? Math.floor(random() * body.size * 3) : body.size;
      const decoded = decodeWasmBody(copy, body.offset, size, 5000, map);
      const end = BigInt(Math.min(copy.length, body.offset + size));
      for (const insn of decoded.instructions) {
        assert.ok(insn.address + BigInt(insn.size) <= end, `instruction past the body at ${n}`);
      }
      if (decoded.stoppedOn !== null) stopped++;
    }
    console.log(`400 corrupted bodies: ${stopped} stopped early with a reason`);
  },
});
