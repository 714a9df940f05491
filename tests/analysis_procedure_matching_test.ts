/**
 * Unnamed procedures paired across versions: the two libjq1 builds, whose
 * stripped static function at 0xc7e0 (it repeats strings) grows and gains an
 * error string. The peer is readelf's unwind table (every FDE's pc range)
 * and `strings` on the library: nothing expected is pasted here.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { hasProgram, type Loose, run, withClient } from "./helpers/in_memory.ts";
import { compareOpened } from "./helpers/inventory.ts";
import { FIXTURES, haveJqFixtures, LIBJQ, NEW, OLD } from "./helpers/jq_fixtures.ts";
import { readerFor } from "../src/apps/formats/readers.ts";
import { ProgramAnalysis } from "../src/apps/analysis/program.ts";
import { profileProcedures } from "../src/apps/analysis/procedure_profiles.ts";
import { matchProcedures } from "../src/apps/analysis/procedure_matching.ts";
import { compareBinaryProcedures } from "../src/apps/analysis/procedure_changes.ts";
import type { BinaryImage } from "../src/apps/formats/binary_image.ts";
import { withTempDir } from "./helpers/temp_dir.ts";
import { peerStartupFunctions } from "./helpers/elf_startup.ts";

const haveFixtures = haveJqFixtures("analysis_procedure_matching_test");
const tools = ["ar", "xz", "tar", "readelf"].every((p) => hasProgram(p));

/** libjq.so.1.0.4 of a package, extracted with ar, xz and tar into `dir`. */
async function extractLibjq(deb: string, dir: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  await run("sh", ["-c", `ar p "${deb}" data.tar.xz | xz -d | tar -x -C "${dir}"`]);
  return join(dir, "usr/lib/x86_64-linux-gnu/libjq.so.1.0.4");
}

/** The pc range of every FDE in `.text` (not the PLT's) as readelf prints it: start → length. */
async function fdeRanges(path: string): Promise<Map<bigint, number>> {
  const sections = await run("readelf", ["-S", "-W", path]);
  const text = /\.text\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/.exec(sections)!;
  const textStart = BigInt(`0x${text[1]}`);
  const textEnd = textStart + BigInt(`0x${text[2]}`);
  const frames = await run("readelf", ["--debug-dump=frames", path]);
  const ranges = new Map<bigint, number>();
  for (const m of frames.matchAll(/FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)/g)) {
    const start = BigInt(`0x${m[1]}`);
    if (start < textStart || start >= textEnd) continue;
    ranges.set(start, Number(BigInt(`0x${m[2]}`) - start));
  }
  return ranges;
}

/** The strings `strings -a` finds in a file. */
async function stringsOf(path: string): Promise<Set<string>> {
  return new Set((await run("strings", ["-a", "-n", "4", path])).split("\n"));
}

function image(path: string): BinaryImage {
  const bytes = Deno.readFileSync(path);
  return readerFor(bytes)!.read(bytes, "libjq.so.1.0.4")[0]!;
}

Deno.test({
  name:
    "compareBinaryProcedures() reports the stripped string-repeat function of libjq as changed, sized as readelf's FDEs say",
  ignore: !haveFixtures || !tools || !hasProgram("strings"),
  fn: async () => {
    await withTempDir(async (dir) => {
      const oldPath = await extractLibjq(OLD, join(dir, "old"));
      const newPath = await extractLibjq(NEW, join(dir, "new"));
      const oldFdes = await fdeRanges(oldPath);
      const newFdes = await fdeRanges(newPath);
      // The peer's view of the function: its FDE grows between the builds, and only the
      // new library holds the error string it gained.
      const address = 0xc7e0n;
      assert.ok(oldFdes.has(address) && newFdes.has(address));
      assert.notEqual(oldFdes.get(address), newFdes.get(address));
      const gained = "Repeat string result too long";
      assert.ok(!(await stringsOf(oldPath)).has(gained));
      assert.ok((await stringsOf(newPath)).has(gained));

      const changes = await compareBinaryProcedures([image(oldPath)], [image(newPath)]);
      assert.ok(changes.unnamed, "unnamed procedures were paired");
      const found = changes.unnamed.changed.find((c) => c.left_address === "0xc7e0");
      assert.ok(found, "the function at 0xc7e0 is reported as changed");
      assert.equal(found.left_size, oldFdes.get(address));
      assert.equal(found.right_size, newFdes.get(BigInt(found.right_address)));
      assert.equal(found.code_changed, true);
      assert.notEqual(found.confidence, "low");
      assert.ok(found.anchors.some((a) => a.kind === "strings"), JSON.stringify(found.anchors));
      assert.ok(found.strings_gained.includes(gained), JSON.stringify(found.strings_gained));
      assert.equal(found.strings_lost.length, 0);
      // Every unnamed procedure the peers list (an FDE, or a function the loader calls) has a
      // partner or is listed as unmatched.
      const named = new Set(image(oldPath).functions.filter((f) => f.name).map((f) => f.address));
      const unnamedStarts = new Set(
        [...oldFdes.keys(), ...await peerStartupFunctions(oldPath)].filter((a) => !named.has(a)),
      );
      assert.equal(changes.unnamed.left_unnamed, unnamedStarts.size);
      console.log(
        `libjq: ${changes.unnamed.matched} unnamed pairs (${
          JSON.stringify(changes.unnamed.by_confidence)
        }), ${changes.unnamed.changed_count} changed, ${changes.unnamed.unmatched_left_count}/${changes.unnamed.unmatched_right_count} unmatched`,
      );
    });
  },
});

Deno.test({
  name:
    "matchProcedures() pairs libjq's unnamed procedures in FDE order, and a build with itself as unchanged",
  ignore: !haveFixtures || !tools,
  fn: async () => {
    await withTempDir(async (dir) => {
      const oldImage = image(await extractLibjq(OLD, join(dir, "old")));
      const newImage = image(await extractLibjq(NEW, join(dir, "new")));
      const left = await profileProcedures(new ProgramAnalysis(oldImage));
      const right = await profileProcedures(new ProgramAnalysis(newImage));
      const matching = matchProcedures(left, right);
      // The builds come from one source tree with one patch: a pairing that crosses
      // (a later left procedure paired with an earlier right one) would be a wrong pair.
      const unnamed = matching.matches.filter((m) => !m.left.name);
      assert.ok(unnamed.length > 0);
      for (let i = 1; i < matching.matches.length; i++) {
        assert.ok(
          matching.matches[i]!.right.index > matching.matches[i - 1]!.right.index,
          `pairs cross at ${matching.matches[i]!.left.address.toString(16)}`,
        );
      }
      for (const m of unnamed) {
        assert.ok(m.anchors.length > 0);
        assert.ok(m.anchors.some((a) => a.kind !== "order") || m.confidence === "low");
      }
      // A build against itself: every procedure pairs and none changed.
      const same = matchProcedures(left, await profileProcedures(new ProgramAnalysis(oldImage)));
      assert.equal(same.unmatchedLeft.length, 0);
      assert.equal(same.matches.filter((m) => m.changed).length, 0);
      assert.equal(same.matches.length, oldImage.functions.length);
    });
  },
});

Deno.test({
  name:
    "compare_artifacts lists libjq's unnamed function at 0xc7e0 as changed, with its confidence and anchors",
  ignore: !haveFixtures || !tools,
  fn: async () => {
    await withClient({ roots: [FIXTURES] }, async (client) => {
      const { compared } = await compareOpened(client, { left: OLD, right: NEW });
      const lib = compared.result.changes.items.find((c: Loose) => c.logical_path === LIBJQ);
      const unnamed = lib.procedures.unnamed;
      const changed = unnamed.changed.find((c: Loose) => c.left_address === "0xc7e0");
      assert.ok(changed, JSON.stringify(unnamed.changed.map((c: Loose) => c.left_address)));
      assert.ok(changed.right_size > changed.left_size);
      assert.match(changed.confidence, /^(high|medium)$/);
      assert.ok(changed.anchors.length > 0);
      assert.ok(Array.isArray(lib.procedures.recoded));
    });
  },
});
