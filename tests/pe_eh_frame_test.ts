/**
 * A MinGW-built PE image carries DWARF call frame information in an
 * `.eh_frame` section (named `.eh_fram`, cut to 8 bytes), one FDE per
 * function GCC compiled: its FDEs are a function table, read with the ELF
 * reader's decoder. On libvips-42.dll from `@img/sharp-win32-ia32` 0.33.5
 * (i686, no `.pdata`), compared with `llvm-dwarfdump-14 --eh-frame`:
 * - every FDE start (pc_begin, but the zero of discarded code) is a
 *   procedure start;
 * - a procedure that starts at an FDE extends to at least the FDE's end
 *   (pc_begin + pc_range): the last byte of each of 400 FDEs, spread over the
 *   table, lies in the procedure that starts at the FDE, and 0x10078800 is no
 *   longer inside vips_reduceh (0x100787c0).
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env
 * tests/pe_eh_frame_test.ts`; skipped, with the reason printed, without the
 * program or the package.
 */

import assert from "node:assert/strict";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { pagedItems } from "./helpers/procedures.ts";

const DWARFDUMP = "llvm-dwarfdump-14";
const HAVE = hasProgram(DWARFDUMP);
if (!HAVE) console.log(`pe_eh_frame_test: ${DWARFDUMP} not available: skipped`);
const FILE = HAVE ? await npmFixture("@img/sharp-win32-ia32@0.33.5", "lib/libvips-42.dll") : null;

const hex = (a: bigint): string => `0x${a.toString(16)}`;

Deno.test({
  name:
    "the .eh_frame FDEs of a MinGW PE image are procedures with their extents, as llvm-dwarfdump lists them",
  ignore: FILE === null,
  fn: async () => {
    const path = FILE!;
    const text = await run(DWARFDUMP, ["--eh-frame", path]);
    const fdes = new Map<bigint, bigint>();
    for (const m of text.matchAll(/ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.\.([0-9a-f]+)/g)) {
      const begin = BigInt(`0x${m[1]}`);
      const end = BigInt(`0x${m[2]}`);
      if (begin !== 0n && end > (fdes.get(begin) ?? 0n)) fdes.set(begin, end);
    }
    assert.ok(fdes.size > 6000, `${fdes.size} FDE starts`);

    const { client, close } = await connect({ roots: [path.slice(0, path.lastIndexOf("/"))] });
    try {
      await ok(client, "open_binary", { path });
      const listed = new Set(
        (await pagedItems(client, "list_procedures")).map((p: Loose) => p.address),
      );
      const missing = [...fdes.keys()].map(hex).filter((a) => !listed.has(a));
      assert.deepEqual(missing, [], `${missing.length} of ${fdes.size} FDE starts not listed`);

      const sorted = [...fdes].sort((a, b) => (a[0] < b[0] ? -1 : 1));
      const step = Math.max(1, Math.floor(sorted.length / 400));
      for (let k = 0; k < sorted.length; k += step) {
        const [begin, end] = sorted[k]!;
        if (end === begin) continue;
        const found = await ok(client, "resolve_containing_procedure", { address: hex(end - 1n) });
        assert.equal(found.result.procedure?.address, hex(begin), `last byte of ${hex(begin)}`);
      }
      const inside = await ok(client, "resolve_containing_procedure", { address: "0x10078800" });
      assert.equal(inside.result.procedure.address, "0x10078800");
      console.log(`${fdes.size} FDE starts, each a procedure; extents checked on 400 of them`);
    } finally {
      await close();
    }
  },
});
