/**
 * `analyze_function`'s outgoing references against GNU objdump: for each
 * procedure's own extent, every instruction objdump annotates with a
 * computed address (`# <address>`, the RIP-relative operands) is a
 * reference from that instruction to that address, and there are no others.
 * Every procedure of libz, and a spread of libstdc++'s and libcrypto's.
 */

import assert from "node:assert/strict";
import { hasProgram, type Loose, ok, run, withClient } from "./helpers/in_memory.ts";
import { firstFile } from "./helpers/system_files.ts";

const HAS_OBJDUMP = hasProgram("objdump");
if (!HAS_OBJDUMP) console.log("analysis_dossier_objdump_test: needs objdump: skipped");

const libraryAt = (name: string): string | undefined =>
  firstFile([`/usr/lib/x86_64-linux-gnu/${name}`, `/lib/x86_64-linux-gnu/${name}`]);

/** The libraries, and which of their procedures to check (every nth in list order). */
const INPUTS = [
  { path: libraryAt("libz.so.1"), every: 1 },
  { path: libraryAt("libstdc++.so.6"), every: 37 },
  { path: libraryAt("libcrypto.so.3"), every: 71 },
];

/** `from->to` of every instruction objdump annotates with a computed address, in [start, end). */
async function annotatedReferences(path: string, start: string, end: string): Promise<string[]> {
  const listing = await run("objdump", [
    "-d",
    "-M",
    "intel",
    "--no-show-raw-insn",
    `--start-address=${start}`,
    `--stop-address=${end}`,
    path,
  ]);
  return [...listing.matchAll(/^\s+([0-9a-f]+):\t[^\n#]*# ([0-9a-f]+)/gm)]
    .map((m) => `0x${m[1]}->0x${m[2]}`).sort();
}

for (const { path, every } of INPUTS) {
  Deno.test({
    name: `analyze_function's outgoing references in ${
      path?.split("/").at(-1) ?? "a library"
    } are objdump's computed addresses`,
    ignore: !HAS_OBJDUMP || path === undefined,
    fn: async () => {
      await withClient({ roots: [path!.slice(0, path!.lastIndexOf("/"))] }, async (client) => {
        await ok(client, "open_binary", { path });
        const first = await ok(client, "list_procedures", { limit: 1 });
        let checked = 0;
        let references = 0;
        for (let offset = 0; offset < first.result.total && checked < 150; offset += every) {
          const [procedure] = (await ok(client, "list_procedures", { offset, limit: 1 })).result
            .items;
          const dossier = (await ok(client, "analyze_function", {
            procedure: procedure.address,
            max_instructions: 5000,
            include_callers: false,
            limit: 500,
          })).result;
          if (dossier.instruction_scan.truncated || dossier.outgoing_references.truncated) continue;
          const { address, end } = dossier.procedure;
          const ours = dossier.outgoing_references.items
            .map((r: Loose) => `${r.from}->${r.to}`).sort();
          assert.deepEqual(
            ours,
            await annotatedReferences(path!, address, end),
            `${path} ${dossier.procedure.name || address}`,
          );
          checked++;
          references += ours.length;
        }
        assert.ok(checked >= Math.min(100, first.result.total / every - 5), `${checked} checked`);
        assert.ok(references > checked, `${references} references in ${checked} procedures`);
      });
    },
  });
}
