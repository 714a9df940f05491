/**
 * Go executables for macOS from npm (esbuild), whose call targets are found
 * by discovery (no function table):
 * - a `call` to a symbol stub calls an import, so the stub is not listed as a
 *   nameless procedure, and the callee is named as the import (x86-64: the
 *   stubs and their names from `llvm-objdump-14 --macho --indirect-symbols`,
 *   each call site checked with `llvm-objdump-14 -d`);
 * - on arm64, where Go's linker records 6-byte stubs but writes 12-byte ones,
 *   each import's stub address holds `adrp`+`ldr` of the pointer slot that
 *   `llvm-objdump-14 --macho --bind` binds to that import.
 */

import assert from "node:assert/strict";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";

const OBJDUMP = "llvm-objdump-14";
const HAS_OBJDUMP = hasProgram(OBJDUMP);
if (!HAS_OBJDUMP) console.log(`apps_discovery_stubs_test: ${OBJDUMP} not available: skipped`);
const X64 = HAS_OBJDUMP ? await npmFixture("@esbuild/darwin-x64@0.28.2", "bin/esbuild") : null;
const ARM64 = HAS_OBJDUMP ? await npmFixture("@esbuild/darwin-arm64@0.28.2", "bin/esbuild") : null;

/** Symbol stubs (address → imported name) of every S_SYMBOL_STUBS section, as llvm-objdump lists them. */
async function symbolStubs(path: string): Promise<Map<bigint, string>> {
  const stubs = new Map<bigint, string>();
  let inStubs = false;
  for (const line of (await run(OBJDUMP, ["--macho", "--indirect-symbols", path])).split("\n")) {
    const header = /^Indirect symbols for \(([^)]+)\)/.exec(line);
    if (header) inStubs = /stub/.test(header[1]!);
    const entry = /^(0x[0-9a-f]+)\s+\d+\s+(\S+)$/.exec(line);
    if (inStubs && entry) stubs.set(BigInt(entry[1]!), entry[2]!);
  }
  return stubs;
}

/** `llvm-objdump -d` of `[from, to)`: each instruction's address and text. */
async function disassemble(path: string, from: bigint, to: bigint): Promise<Map<bigint, string>> {
  const listing = await run(OBJDUMP, [
    "-d",
    "--no-show-raw-insn",
    `--start-address=0x${from.toString(16)}`,
    `--stop-address=0x${to.toString(16)}`,
    path,
  ]);
  const out = new Map<bigint, string>();
  for (const line of listing.split("\n")) {
    const match = /^\s*([0-9a-f]+):\s+(.*)$/.exec(line);
    if (match) out.set(BigInt(`0x${match[1]}`), match[2]!.trim());
  }
  return out;
}

/** Opens `path` on a fresh server, runs `body`, closes. */
async function withOpened(path: string, body: (client: Loose) => Promise<void>): Promise<void> {
  const { client, close } = await connect({ roots: [path.slice(0, path.lastIndexOf("/"))] });
  try {
    await ok(client, "open_binary", { path });
    await body(client);
  } finally {
    await close();
  }
}

Deno.test({
  name: "discovery lists no Mach-O symbol stub as a procedure, and callees name the import",
  ignore: X64 === null,
  fn: async () => {
    const path = X64!;
    const stubs = await symbolStubs(path);
    assert.ok(stubs.size > 0, "llvm-objdump lists symbol stubs");
    await withOpened(path, async (client) => {
      const listed: bigint[] = [];
      for (let offset: number | null = 0; offset !== null;) {
        const page: Loose = (await ok(client, "list_procedures", { offset, limit: 500 })).result;
        for (const item of page.items) listed.push(BigInt(item.address));
        offset = page.next_offset;
      }
      assert.ok(listed.length > 1000, "discovery found the Go functions");
      const atStubs = listed.filter((address) => stubs.has(address));
      assert.deepEqual(atStubs.map((a) => `0x${a.toString(16)}`), [], "procedures at symbol stubs");

      // A procedure that calls a stub names the import among its callees.
      let checked = 0;
      for (const [stub, name] of stubs) {
        const callers: Loose = (await ok(client, "procedure_callers", { procedure: name })).result;
        const caller = callers.items[0];
        if (caller === undefined) continue;
        const site = BigInt(caller.call_sites[0]);
        const text = (await disassemble(path, site, site + 5n)).get(site) ?? "";
        assert.match(
          text,
          new RegExp(`^call\\w*\\s+0x${stub.toString(16)}\\b`),
          `${name} at ${site}`,
        );
        const callees: Loose = (await ok(client, "procedure_callees", {
          procedure: caller.address,
          limit: 500,
        })).result;
        const callee = callees.items.find((c: Loose) => BigInt(c.address) === stub);
        assert.deepEqual(
          { kind: callee?.kind, name: callee?.name },
          { kind: "import", name },
          `callee at 0x${stub.toString(16)} of ${caller.address}`,
        );
        if (++checked === 3) break;
      }
      assert.equal(checked, 3, "three imports with callers were checked");
    });
  },
});

Deno.test({
  name: "binary_overview gives each import of Go's arm64 Mach-O the stub that loads its bound slot",
  ignore: ARM64 === null,
  fn: async () => {
    const path = ARM64!;
    // The pointer slot each import is bound to, as llvm-objdump reads the bind opcodes.
    const bound = new Map<string, bigint>();
    for (const line of (await run(OBJDUMP, ["--macho", "--bind", path])).split("\n")) {
      const match = /^\S+\s+\S+\s+(0x[0-9A-Fa-f]+)\s+pointer\s+\d+\s+\S+\s+(\S+)$/.exec(line);
      if (match) bound.set(match[2]!, BigInt(match[1]!));
    }
    assert.ok(bound.size > 50, "llvm-objdump lists the bound slots");
    await withOpened(path, async (client) => {
      const overview: Loose = (await ok(client, "binary_overview", {
        detail: "detailed",
        limit: 50,
      })).result;
      const imports: { name: string; address: bigint }[] = overview.imports
        .filter((i: Loose) => i.address !== null)
        .map((i: Loose) => ({ name: i.name, address: BigInt(i.address) }));
      assert.ok(imports.length >= 40, "imports with stub addresses");
      const low = imports.reduce((m, i) => i.address < m ? i.address : m, imports[0]!.address);
      const high = imports.reduce((m, i) => i.address > m ? i.address : m, 0n) + 12n;
      const code = await disassemble(path, low, high);
      const seen: Record<string, string>[] = [];
      const want: Record<string, string>[] = [];
      for (const { name, address } of imports) {
        // adrp x16, PAGE ; ldr x17, [x16, #OFF] ; br x17 — the slot is PAGE + OFF.
        const page = /^adrp\s+x16, 0x([0-9a-f]+)/.exec(code.get(address) ?? "");
        const load = /^ldr\s+x17, \[x16, #(\d+)\]/.exec(code.get(address + 4n) ?? "");
        const slot = page && load ? BigInt(`0x${page[1]}`) + BigInt(load[1]!) : null;
        seen.push({ name, slot: slot === null ? "none" : `0x${slot.toString(16)}` });
        want.push({ name, slot: `0x${bound.get(name)?.toString(16)}` });
      }
      assert.deepEqual(seen, want);
    });
  },
});
