/**
 * `procedure_callers` on an image whose code lies above 2^32 (a 64-bit macOS
 * executable: esbuild for arm64 from npm, linked at 0x100000000): the
 * callers' call sites are the `bl` instructions `llvm-objdump-14 -d` lists
 * to each procedure, and the first call, which builds the reference index
 * over the whole 10 MiB file, takes no more than a few times what
 * llvm-objdump's whole disassembly of it takes in the same run (stored wide
 * targets once made it take minutes, over a hundred times the peer).
 */

import assert from "node:assert/strict";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";

const OBJDUMP = "llvm-objdump-14";
const HAS_OBJDUMP = hasProgram(OBJDUMP);
if (!HAS_OBJDUMP) {
  console.log(`apps_callers_wide_addresses_test: ${OBJDUMP} not available: skipped`);
}
const FILE = HAS_OBJDUMP ? await npmFixture("@esbuild/darwin-arm64@0.28.2", "bin/esbuild") : null;

/** Generous: the index takes about as long as the peer's disassembly; the bug took 100× more. */
const FIRST_CALL_BOUND_RATIO = 10;

/** Each direct `bl` target of the listing → the sites that branch to it, and the listing's time. */
async function blSites(path: string): Promise<{ sites: Map<bigint, bigint[]>; ms: number }> {
  const sites = new Map<bigint, bigint[]>();
  const began = performance.now();
  const listing = await run(OBJDUMP, ["-d", "--no-show-raw-insn", path]);
  const ms = performance.now() - began;
  for (const match of listing.matchAll(/^\s*([0-9a-f]+):\s+bl\s+0x([0-9a-f]+)/gm)) {
    const target = BigInt(`0x${match[2]}`);
    const list = sites.get(target) ?? [];
    list.push(BigInt(`0x${match[1]}`));
    sites.set(target, list);
  }
  return { sites, ms };
}

Deno.test({
  name:
    "procedure_callers above 2^32 matches llvm-objdump's bl sites and answers within a few times the peer's disassembly",
  ignore: FILE === null,
  fn: async () => {
    const path = FILE!;
    const { sites: peer, ms: peerMs } = await blSites(path);
    const { client, close } = await connect({ roots: [path.slice(0, path.lastIndexOf("/"))] });
    try {
      await ok(client, "open_binary", { path });
      const page: Loose =
        (await ok(client, "list_procedures", { offset: 1000, limit: 500 })).result;
      const called = page.items.map((i: Loose) => BigInt(i.address))
        .filter((a: bigint) => a >= 2n ** 32n && (peer.get(a)?.length ?? 0) > 0);
      assert.ok(called.length >= 3, "procedures above 2^32 with callers");
      for (const [k, address] of [called[0], called[1], called[called.length - 1]].entries()) {
        const began = performance.now();
        const callers: Loose = (await ok(client, "procedure_callers", {
          procedure: `0x${address.toString(16)}`,
          limit: 500,
        })).result;
        const elapsed = performance.now() - began;
        if (k === 0) {
          assert.ok(
            elapsed < FIRST_CALL_BOUND_RATIO * peerMs,
            `the first call took ${Math.round(elapsed)} ms; ${OBJDUMP} -d took ${
              Math.round(peerMs)
            } ms`,
          );
        }
        const ours = callers.items.flatMap((c: Loose) => c.call_sites.map(BigInt))
          .sort((a: bigint, b: bigint) => (a < b ? -1 : 1));
        assert.deepEqual(ours, peer.get(address), `callers of 0x${address.toString(16)}`);
      }
    } finally {
      await close();
    }
  },
});
