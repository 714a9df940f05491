/**
 * Function starts from 32-bit ARM exception index tables (`.ARM.exidx`):
 * the entries' prel31 offsets decoded by hand on a table built here (offsets
 * forward and back, the Thumb bit, a repeated entry), and on a real stripped
 * armhf executable (7za from the `7zip-bin` npm package) the procedures
 * `list_procedures` lists against the function starts `readelf -u` prints.
 * Before, a stripped ARM binary listed its entry point alone.
 */

import assert from "node:assert/strict";
import { armIndexRanges, SHT_ARM_EXIDX } from "../src/apps/formats/elf/arm_exidx.ts";
import type { ElfSection } from "../src/apps/formats/elf/model.ts";
import { hasProgram, type Loose, ok, run, withClient } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { peerStartupFunctions } from "./helpers/elf_startup.ts";
import { listedProcedures } from "./helpers/procedures.ts";

const EM_ARM = 40;

/** A section header with the fields the table reader uses. */
function exidxSection(address: number, offset: number, size: number): ElfSection {
  return {
    index: 1,
    name: ".ARM.exidx",
    type: SHT_ARM_EXIDX,
    typeName: "SHT_ARM_EXIDX",
    flags: 0x82n,
    address: BigInt(address),
    offset,
    size,
    link: 0,
    info: 0,
    entrySize: 0,
  };
}

/** An 8-byte entry whose prel31 word points from `at` to `target`. */
function entry(view: DataView, at: number, base: number, target: number): void {
  const prel31 = (target - (base + at)) & 0x7fffffff;
  view.setUint32(at, prel31, true);
  view.setUint32(at + 4, 1, true); // EXIDX_CANTUNWIND
}

Deno.test("armIndexRanges() decodes prel31 starts, the Thumb bit, and skips repeats", () => {
  const base = 0x20000;
  const bytes = new Uint8Array(64 + 40);
  const view = new DataView(bytes.buffer, 64);
  entry(view, 0, base, 0x10000); // behind the table: a negative offset
  entry(view, 8, base, 0x10101); // Thumb
  entry(view, 16, base, 0x10101); // the same function again
  entry(view, 24, base, 0x10200);
  entry(view, 32, base, 0x30001); // ahead of the table, Thumb
  const ranges = armIndexRanges(EM_ARM, [exidxSection(base, 64, 40)], bytes, true)!;
  const listed = Array.from({ length: ranges.count }, (_, k) => [
    ranges.address(k),
    ranges.size(k),
    ranges.thumb(k),
  ]);
  assert.deepEqual(listed, [
    [0x10000n, 0x100n, false],
    [0x10100n, 0x100n, true],
    [0x10200n, 0x1fe00n, false],
    [0x30000n, 0n, true],
  ]);
  assert.equal(armIndexRanges(62, [exidxSection(base, 64, 40)], bytes, true), null);
  assert.equal(armIndexRanges(EM_ARM, [], bytes, true), null);
});

const ARMHF_7ZA = await npmFixture("7zip-bin@5.2.0", "linux/arm/7za");

Deno.test({
  name: "a stripped armhf executable lists the function starts readelf -u reads from .ARM.exidx",
  ignore: ARMHF_7ZA === null || !hasProgram("readelf"),
  fn: async () => {
    const path = ARMHF_7ZA!;
    // readelf's starts, in the executable .text (the table may end with a sentinel past it).
    const headers = await run("readelf", ["-S", "-W", path]);
    const text = /\.text\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/.exec(headers)!;
    const [start, size] = [BigInt(`0x${text[1]}`), BigInt(`0x${text[2]}`)];
    const starts = new Set(
      [...(await run("readelf", ["-u", path])).matchAll(/^0x([0-9a-f]+):/gm)]
        .map((m) => BigInt(`0x${m[1]}`)).filter((a) => a >= start && a < start + size)
        .map((a) => `0x${a.toString(16)}`),
    );
    assert.ok(starts.size > 1000, `readelf -u printed ${starts.size} starts`);
    const entry = /Entry point address:\s+(0x[0-9a-f]+)/.exec(
      await run("readelf", ["-h", path]),
    )![1]!;

    await withClient({ roots: [path.slice(0, path.lastIndexOf("/"))] }, async (client) => {
      await ok(client, "open_binary", { path });
      const listed = new Set((await listedProcedures(client)).keys());
      // And what the loader calls: _init and _fini (.init, .fini), the arrays' entries.
      const startup = (await peerStartupFunctions(path)).map((a) => `0x${a.toString(16)}`);
      assert.deepEqual([...listed].sort(), [...new Set([...starts, entry, ...startup])].sort());
      const overview = await ok(client, "binary_overview", {});
      const fromIndex = overview.result.procedures_by_source["arm-exidx"];
      assert.ok(fromIndex > 1000);
      // No symbol says which instruction set they are: ARM, and the record says so.
      const record = JSON.parse(
        ((await client.readResource({ uri: overview.evidence_uri })).contents[0] as Loose).text,
      );
      assert.ok(
        record.limitations.some((l: string) =>
          l.includes(`${fromIndex} procedure(s) known only from .ARM.exidx are read as ARM code`)
        ),
        JSON.stringify(record.limitations),
      );
    });
  },
});
