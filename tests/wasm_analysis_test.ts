/**
 * Static analysis of a real WebAssembly module through the MCP client: a
 * literal string traced to the function that uses it, checked against the
 * engine's own initialised memory, and dossiers, callees and callers checked
 * against `wasm-objdump -d`.
 */

import assert from "node:assert/strict";
import { dirname } from "node:path";
import { hasProgram, type Loose, ok, run, withClient } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { CAPSTONE_PACKAGE } from "../src/_vendor/capstone/package.ts";

const WASM = await npmFixture("gecko-profiler-demangle@0.4.0", "index_bg.wasm");
const WITH_IMPORTS = await npmFixture(CAPSTONE_PACKAGE, "dist/capstone.wasm");
const haveObjdump = hasProgram("wasm-objdump");
if (!WASM) console.log("wasm_analysis_test: skipping, the npm fixture is not cached");
if (!haveObjdump) console.log("wasm_analysis_test: skipping, wasm-objdump is absent");
const SEED = "called `Option::unwrap()` on a `None` value";

/** wasm-objdump -d: per function, its body offset, instruction count and direct call targets. */
async function peerListing(path: string): Promise<{
  offsetOf: Map<number, number>;
  functions: Map<number, { index: number; instructions: number; calls: number[] }>;
  /** `call_indirect` instructions: calls whose target is not known statically. */
  indirectCalls: number;
}> {
  const text = await run("wasm-objdump", ["-d", path]);
  const offsetOf = new Map<number, number>();
  const functions = new Map<number, { index: number; instructions: number; calls: number[] }>();
  let current: { index: number; instructions: number; calls: number[] } | null = null;
  for (const line of text.split("\n")) {
    const header = /^([0-9a-f]+) func\[(\d+)\]/.exec(line);
    if (header) {
      const offset = parseInt(header[1]!, 16);
      current = { index: Number(header[2]), instructions: 0, calls: [] };
      offsetOf.set(current.index, offset);
      functions.set(offset, current);
      continue;
    }
    const insn = /^ [0-9a-f]+: [0-9a-f ]+\|\s*(.*)$/.exec(line);
    if (!insn || !current) continue;
    const body = insn[1]!.trim();
    if (body === "" || body.startsWith("local[")) continue;
    current.instructions++;
    const call = /^(?:return_)?call (\d+)/.exec(body);
    if (call) current.calls.push(Number(call[1]));
  }
  const indirectCalls = [...text.matchAll(/\|\s*(?:return_)?call_indirect\b/g)].length;
  return { offsetOf, functions, indirectCalls };
}

Deno.test({
  name:
    "WebAssembly through the client: trace_feature, analyze_function, callees and callers agree with wasm-objdump and the engine",
  ignore: WASM === null || !haveObjdump,
  fn: async () => {
    const path = WASM!;
    const bytes = await Deno.readFile(path);
    const peer = await peerListing(path);
    await withClient({ roots: [dirname(path)] }, async (client) => {
      await ok(client, "open_binary", { path });
      const overview = await ok(client, "binary_overview", {});
      assert.equal(overview.result.disassembly, "wasm");

      // A literal → the string in a data segment → the i32.const naming it → its function.
      const traced = await ok(client, "trace_feature", { query: SEED });
      // Complete only when no call stayed unresolved: every call_indirect is counted.
      assert.equal(traced.result.reference_scan.unresolved.indirect_calls, peer.indirectCalls);
      assert.equal(traced.result.reference_scan.complete, peer.indirectCalls === 0);
      const total = [...peer.functions.values()].reduce((n, f) => n + f.instructions, 0);
      assert.equal(traced.result.reference_scan.scanned_instructions, total);
      assert.ok(traced.result.procedures.length >= 1);
      // The engine's own memory: instantiate with stub imports and read what each constant names.
      const module = new WebAssembly.Module(bytes);
      const imports: Record<string, Record<string, () => never>> = {};
      for (const i of WebAssembly.Module.imports(module)) {
        (imports[i.module] ??= {})[i.name] = () => {
          throw new Error("stub");
        };
      }
      const instance = new WebAssembly.Instance(module, imports as WebAssembly.Imports);
      const memory = Object.values(instance.exports).find((e) =>
        e instanceof WebAssembly.Memory
      ) as WebAssembly.Memory;
      for (const procedure of traced.result.procedures) {
        for (const via of procedure.via as string[]) {
          const [from, to] = via.split(" → ").map((a) => parseInt(a, 16));
          // The instruction at `from` is an i32.const; decode its operand from the file.
          assert.equal(bytes[from!], 0x41, `i32.const at ${via}`);
          let value = 0;
          let shift = 0;
          for (let at = from! + 1;; at++) {
            value |= (bytes[at]! & 0x7f) << shift;
            shift += 7;
            if ((bytes[at]! & 0x80) === 0) break;
          }
          const inMemory = new Uint8Array(memory.buffer, value, 200);
          const inFile = bytes.subarray(to!, to! + 200);
          assert.deepEqual(inMemory, inFile, `memory at ${value} holds the file bytes at ${to}`);
          const text = new TextDecoder().decode(inMemory);
          assert.ok(text.includes(SEED), `the constant at ${from} names the seed string`);
        }
        assert.ok(procedure.dossier.referenced_strings.some((s: string) => s.includes(SEED)));
      }

      // Dossiers against wasm-objdump: instruction count and direct callees, for a sample.
      // (Functions within the 5000-instruction cap, so the whole body is compared.)
      const sample = [...peer.functions.entries()]
        .filter(([, f]) => f.calls.length > 0 && f.instructions <= 5000)
        .filter((_, k) => k % 25 === 0);
      assert.ok(sample.length >= 10);
      for (const [offset, fn] of sample) {
        const procedure = `0x${offset.toString(16)}`;
        const dossier = await ok(client, "analyze_function", {
          procedure,
          max_instructions: 5000,
          include_callers: false,
          limit: 500,
        });
        const result = dossier.result;
        assert.equal(result.fingerprint.instruction_count, fn.instructions, procedure);
        assert.equal(result.instruction_scan.stopped_on_invalid, false, procedure);
        assert.equal(result.instruction_scan.truncated, false, procedure);
        const expected = [...new Set(fn.calls.map((i) => peer.offsetOf.get(i)))]
          .filter((o): o is number => o !== undefined).sort((a, b) => a - b);
        const defined = result.callees.items.filter((c: Loose) => c.kind !== "import")
          .map((c: Loose) => parseInt(c.address, 16));
        assert.deepEqual(defined, expected, `callees of ${procedure}`);
        const callees = await ok(client, "procedure_callees", {
          procedure,
          max_instructions: 5000,
        });
        assert.equal(callees.result.total ?? callees.result.items.length, result.callees.total);
        assert.ok(result.basic_blocks.total >= 1);
      }

      // Callers of one callee from the whole-module index, against every call site wasm-objdump lists.
      const [calleeIndex, calleeOffset] = [...peer.offsetOf.entries()].find(([index]) =>
        [...peer.functions.values()].filter((f) => f.calls.includes(index)).length >= 3
      )!;
      const expectedCallers = [...peer.functions.entries()]
        .filter(([, f]) => f.calls.includes(calleeIndex)).map(([o]) => o).sort((a, b) => a - b);
      const callers = await ok(client, "procedure_callers", {
        procedure: `0x${calleeOffset.toString(16)}`,
        limit: 500,
      });
      assert.deepEqual(
        callers.result.items.map((c: Loose) => parseInt(c.address, 16)).sort((
          a: number,
          b: number,
        ) => a - b),
        expectedCallers,
      );
    });
  },
});

Deno.test({
  name:
    "WebAssembly through the client: calls to imports resolve to the import, by name, as wasm-objdump says",
  ignore: WITH_IMPORTS === null || !haveObjdump,
  fn: async () => {
    const path = WITH_IMPORTS!;
    const module = new WebAssembly.Module(await Deno.readFile(path));
    const imported = WebAssembly.Module.imports(module).filter((i) => i.kind === "function");
    const peer = await peerListing(path);
    const callers = [...peer.functions.entries()]
      .filter(([, f]) => f.instructions <= 5000 && f.calls.some((i) => i < imported.length));
    assert.ok(callers.length > 0, "wasm-objdump lists calls to imports");
    await withClient({ roots: [dirname(path)] }, async (client) => {
      await ok(client, "open_binary", { path });
      for (const [offset, fn] of callers.slice(0, 5)) {
        const dossier = await ok(client, "analyze_function", {
          procedure: `0x${offset.toString(16)}`,
          include_callers: false,
          max_instructions: 5000,
          limit: 500,
        });
        const names = dossier.result.callees.items.filter((c: Loose) => c.kind === "import")
          .map((c: Loose) => c.name).sort();
        const expected = [
          ...new Set(fn.calls.filter((i) => i < imported.length).map((i) => imported[i]!.name)),
        ].sort();
        assert.deepEqual(names, expected, `imports called by 0x${offset.toString(16)}`);
      }
    });
  },
});
