/**
 * A universal Mach-O cut short: fsevents@2.3.3's two-slice `fsevents.node`
 * cut inside its first slice (the second now starts past the end) or inside
 * the slice table's reach (both do) is refused saying the file looks
 * truncated, with the slice offset past its end read from the header as
 * llvm-objdump's --universal-headers lists it; a cut that keeps every slice's
 * start opens what it can, with the damage in its warnings; a Java class file (also
 * 0xcafebabe) keeps the generic refusal.
 */

import assert from "node:assert/strict";
import { fails, hasProgram, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";

const UNIVERSAL = await npmFixture("fsevents@2.3.3", "fsevents.node");
const OBJDUMP = "llvm-objdump-14";
const READY = UNIVERSAL !== null && hasProgram(OBJDUMP);
if (!READY) console.log("macho_truncated_universal_test: needs fsevents@2.3.3 and llvm-objdump-14");

Deno.test({
  name: "open_binary says a universal Mach-O cut before a slice's start looks truncated",
  ignore: !READY,
  fn: async () => {
    const bytes = await Deno.readFile(UNIVERSAL!);
    // llvm-objdump: "    offset 16384" for each architecture, in table order.
    const listing = await run(OBJDUMP, ["--macho", "--universal-headers", UNIVERSAL!]);
    const offsets = [...listing.matchAll(/^\s+offset (\d+)$/gm)].map((m) => Number(m[1]));
    assert.equal(offsets.length, 2, listing);
    await withTempRoot("casefile-fat-cut-", async ({ client, dir }) => {
      for (const cut of [offsets[1]! - 1000, offsets[0]! - 1000]) {
        const path = `${dir}/cut-${cut}.node`;
        await Deno.writeFile(path, bytes.subarray(0, cut));
        const past = offsets.find((o) => o >= cut)!;
        const refused = await fails(client, "open_binary", { path });
        assert.match(
          refused.message,
          new RegExp(
            `lists 2 slices, but the file \\(${cut} bytes\\) ends before the slice at offset ${past}: it looks truncated`,
          ),
        );
      }
      // Every slice starts inside the file: it opens, and says what is missing.
      const kept = `${dir}/kept.node`;
      await Deno.writeFile(kept, bytes.subarray(0, offsets[1]! + 1000));
      const opened = (await ok(client, "open_binary", { path: kept })).result;
      // The first slice is whole; the second's 1000 bytes hold no complete load commands.
      assert.equal(opened.target.documents.length, 1);
      assert.match(opened.target.warnings.join("\n"), /runs past the end of the \d+-byte file/);
      // A Java class file starts with the same magic; it is not called a cut Mach-O.
      const java = `${dir}/A.class`;
      await Deno.writeFile(java, new Uint8Array([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0x34, 0, 5]));
      const notMachO = await fails(client, "open_binary", { path: java });
      assert.match(notMachO.message, /not a supported binary or archive/);
    });
  },
});
