/**
 * Call-target discovery on a Mach-O executable with no function table (Go's
 * esbuild for macOS, from npm): a `bl` to a symbol stub calls an import, so
 * the stub is not listed as a nameless procedure, and the callee is named as
 * the import. The stubs and their names come from `llvm-objdump-14 --macho
 * --indirect-symbols`; each call site is checked with `llvm-objdump-14 -d`.
 */

import assert from "node:assert/strict";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";

const OBJDUMP = "llvm-objdump-14";
const SPEC = "@esbuild/darwin-arm64@0.28.2";
const HAS_OBJDUMP = hasProgram(OBJDUMP);
const FILE = HAS_OBJDUMP ? await npmFixture(SPEC, "bin/esbuild") : null;
if (!HAS_OBJDUMP) console.log(`apps_discovery_stubs_test: ${OBJDUMP} not available: skipped`);

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

/** The direct branch target of the instruction at `site`, as llvm-objdump decodes it. */
async function branchTarget(path: string, site: bigint): Promise<bigint | null> {
  const listing = await run(OBJDUMP, [
    "-d",
    "--no-show-raw-insn",
    `--start-address=0x${site.toString(16)}`,
    `--stop-address=0x${(site + 4n).toString(16)}`,
    path,
  ]);
  const match = /^\s*[0-9a-f]+:\s+bl\s+0x([0-9a-f]+)/m.exec(listing);
  return match ? BigInt(`0x${match[1]}`) : null;
}

Deno.test({
  name: "discovery lists no Mach-O symbol stub as a procedure, and callees name the import",
  ignore: FILE === null,
  fn: async () => {
    const path = FILE!;
    const stubs = await symbolStubs(path);
    assert.ok(stubs.size > 0, "llvm-objdump lists symbol stubs");
    const { client, close } = await connect({ roots: [path.slice(0, path.lastIndexOf("/"))] });
    try {
      await ok(client, "open_binary", { path });
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
      for (const [stub, name] of [...stubs].slice(0, 40)) {
        const callers: Loose = (await ok(client, "procedure_callers", { procedure: name })).result;
        const caller = callers.items[0];
        if (caller === undefined) continue;
        const site = BigInt(caller.call_sites[0]);
        assert.equal(await branchTarget(path, site), stub, `${name}: the call at ${site}`);
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
    } finally {
      await close();
    }
  },
});
