/**
 * The reference index's completeness figures, with objdump as the oracle:
 * unbounded on a real library it decodes every procedure and exactly the
 * instructions objdump lists inside the procedures' extents; each bound
 * (instructions in all, instructions per procedure) makes it incomplete and
 * says so, and the procedures past the cut contribute no references.
 */

import assert from "node:assert/strict";
import { ProgramAnalysis } from "../src/apps/analysis/program.ts";
import { readerFor } from "../src/apps/formats/readers.ts";
import { hasProgram, run } from "./helpers/programs.ts";
import { firstFile } from "./helpers/system_files.ts";
import { withTempDir } from "./helpers/temp_dir.ts";
import { peerStartupFunctions } from "./helpers/elf_startup.ts";

const LIBZ = firstFile(["/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1"]);
const READY = LIBZ !== undefined && hasProgram("objdump");
if (!READY) console.log("analysis_reference_bounds_test: needs libz.so.1 and objdump: skipped");
const HAS_CC = hasProgram("cc");
if (!HAS_CC) console.log("analysis_reference_bounds_test: the bound tests need cc: skipped");

/** Three procedures calling each other directly: an index over them is complete unbounded. */
const DIRECT_CALLS = `
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + 2; }
__attribute__((noinline)) int top(int x) { return mid(x) + leaf(x + 1); }
`;

/** Runs \`body\` with the analysis of DIRECT_CALLS built as a shared library without start files. */
async function withDirectCalls(body: (path: string) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/direct.c`, DIRECT_CALLS);
    const path = `${dir}/libdirect.so`;
    await run("cc", ["-O1", "-shared", "-fPIC", "-nostartfiles", "-o", path, `${dir}/direct.c`]);
    await body(path);
  }, { prefix: "casefile-bounds-" });
}

function program(path: string): ProgramAnalysis {
  const bytes = Deno.readFileSync(path);
  const [image] = readerFor(bytes)!.read(bytes, path);
  return new ProgramAnalysis(image!);
}

/** Addresses of the instructions `objdump -d` lists in executable sections. */
async function objdumpInstructions(path: string): Promise<bigint[]> {
  const out = await run("objdump", ["-d", "--no-show-raw-insn", path]);
  return [...out.matchAll(/^\s+([0-9a-f]+):\t/gm)].map((m) => BigInt(`0x${m[1]}`));
}

Deno.test({
  name:
    "the unbounded reference index of libz decodes every procedure, objdump's instructions in them",
  ignore: !READY,
  fn: async () => {
    const analysis = program(LIBZ!);
    const functions = analysis.image.functions;
    const index = await analysis.references();
    assert.equal(index.totalProcedures, functions.length);
    assert.equal(index.scannedProcedures, functions.length);
    // objdump's instructions inside some procedure's extent [address, address + size); a
    // procedure without a size (only those the loader calls, per readelf, have none here) runs
    // to the next start or the end of its section.
    const startup = new Set(await peerStartupFunctions(LIBZ!));
    const unsized = functions.filter((fn) => !(fn.size > 0));
    assert.deepEqual(
      unsized.filter((fn) => !startup.has(fn.address)).map((fn) => fn.address),
      [],
      "libz lists a procedure without a size that the loader does not call",
    );
    const extents = functions.map((fn, k) => {
      if (fn.size > 0) return [fn.address, fn.address + BigInt(fn.size)] as const;
      const section = analysis.image.sections.find((s) =>
        fn.address >= s.address && fn.address < s.address + s.size
      )!;
      const sectionEnd = section.address + section.size;
      const next = functions[k + 1]?.address ?? sectionEnd;
      return [fn.address, next < sectionEnd ? next : sectionEnd] as const;
    });
    const inside = (await objdumpInstructions(LIBZ!))
      .filter((at) => extents.some(([start, end]) => at >= start && at < end));
    assert.ok(inside.length > 1000);
    assert.equal(index.scannedInstructions, inside.length);
    assert.ok(
      index.limitations.every((line) => !line.includes("bound")),
      index.limitations.join("\n"),
    );
  },
});

Deno.test({
  name:
    "a reference index cut by its instruction bound is incomplete, says where it stopped, and indexes only what it decoded",
  ignore: !HAS_CC,
  fn: async () => {
    await withDirectCalls(async (path) => {
      const full = await program(path).references();
      assert.equal(full.complete, true, full.limitations.join("\n"));
      assert.equal(full.scannedProcedures, 3);
      const analysis = program(path);
      const functions = analysis.image.functions;
      // Stop after the first procedure: its instructions (objdump's count) are the whole bound.
      const bound = await firstProcedureInstructions(path, analysis);
      const cut = await analysis.references({ maxInstructions: bound });
      assert.equal(cut.complete, false);
      assert.equal(cut.totalProcedures, 3);
      assert.equal(cut.scannedProcedures, 1);
      assert.equal(cut.scannedInstructions, bound);
      assert.ok(
        cut.limitations.some((line) =>
          line.includes(`${bound}-instruction bound`) && line.includes("after 1 of 3 procedures")
        ),
        cut.limitations.join("\n"),
      );
      assert.ok(full.count > cut.count);
      // Procedures past the cut contribute no reference.
      for (const fn of functions) {
        for (const ref of cut.to(fn.address)) assert.equal(ref.procedure, functions[0]!.address);
      }
    });
  },
});

Deno.test({
  name: "a reference index cut by its per-procedure bound is incomplete and says so",
  ignore: !HAS_CC,
  fn: async () => {
    await withDirectCalls(async (path) => {
      const analysis = program(path);
      const cut = await analysis.references({ maxPerProcedure: 2 });
      assert.equal(cut.complete, false);
      assert.equal(cut.scannedProcedures, 3);
      // The procedures objdump lists more than two instructions for, counted and the first named.
      const longer: bigint[] = [];
      for (const fn of analysis.image.functions) {
        const listing = await run("objdump", [
          "-d",
          `--start-address=${fn.address}`,
          `--stop-address=${fn.address + BigInt(fn.size)}`,
          path,
        ]);
        if ([...listing.matchAll(/^\s+[0-9a-f]+:\t/gm)].length > 2) longer.push(fn.address);
      }
      assert.ok(longer.length > 0);
      assert.ok(
        cut.limitations.some((line) =>
          line.startsWith(
            `${longer.length} procedure(s) were longer than the per-procedure bound of 2 instructions (the first at 0x${
              longer[0]!.toString(16)
            })`,
          )
        ),
        cut.limitations.join("\n"),
      );
    });
  },
});

/** Instructions of the first procedure, from an index bounded to that procedure alone. */
async function firstProcedureInstructions(
  path: string,
  analysis: ProgramAnalysis,
): Promise<number> {
  const fn = analysis.image.functions[0]!;
  assert.ok(fn.size, "the first procedure has no size");
  const out = await run("objdump", [
    "-d",
    "--no-show-raw-insn",
    `--start-address=${fn.address}`,
    `--stop-address=${fn.address + BigInt(fn.size)}`,
    path,
  ]);
  return [...out.matchAll(/^\s+[0-9a-f]+:\t/gm)].length;
}

Deno.test({
  name:
    "a reference index over a copy truncated before its code is incomplete: procedures with no bytes in the file are not scanned",
  ignore: !HAS_CC || !hasProgram("readelf"),
  fn: async () => {
    await withTempDir(async (dir) => {
      await Deno.writeTextFile(
        `${dir}/main.c`,
        `${DIRECT_CALLS}\nint main(void) { return top(1); }\n`,
      );
      const full = `${dir}/direct`;
      await run("cc", ["-O1", "-o", full, `${dir}/main.c`]);
      // readelf is the oracle: the entry point lies in .text, and the copy ends where .text begins.
      const header = await run("readelf", ["-h", "-W", full]);
      const entry = BigInt(header.match(/Entry point address:\s+(0x[0-9a-f]+)/)![1]!);
      const text = (await run("readelf", ["-S", "-W", full])).match(
        /\]\s+\.text\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)/,
      )!;
      const [textAddress, textOffset, textSize] = [1, 2, 3].map((k) => BigInt(`0x${text[k]}`));
      assert.ok(
        entry >= textAddress! && entry < textAddress! + textSize!,
        "the entry is not in .text",
      );
      const bytes = Deno.readFileSync(full).subarray(0, Number(textOffset));
      const cut = `${dir}/direct.truncated`;
      Deno.writeFileSync(cut, bytes);
      const analysis = program(cut);
      assert.ok(
        analysis.image.functions.some((fn) => fn.address === entry),
        "the entry is not listed",
      );
      const index = await analysis.references();
      assert.equal(index.totalProcedures, analysis.image.functions.length);
      assert.equal(index.scannedProcedures, 0);
      assert.equal(index.complete, false);
      assert.ok(
        index.limitations.some((line) => line.includes("no bytes in the file")),
        index.limitations.join("\n"),
      );
    }, { prefix: "casefile-bounds-" });
  },
});
