/**
 * TLS callbacks are procedures: the loader calls each one as it calls the
 * entry point, and nothing else in the image need name it (no export, no
 * `.pdata` entry in a 32-bit image). Compared with the TLS directory
 * `llvm-readobj-14 --coff-tls-directory` prints and the pointers
 * `llvm-objdump-14 -s` dumps at its AddressOfCallBacks:
 * - a DLL the test assembles (`llvm-mc-14`) and links (`lld-link-14`), for
 *   x64 (PE32+) and i386 (PE32), whose only TLS callback calls `fc`: the
 *   callback is a procedure, and `procedure_callers` of `fc` names it for
 *   its call, where `fc` itself was named before (its extent ran on into the
 *   callback, unsized, so the reference scan claimed a complete answer that
 *   was wrong);
 * - libvips-42.dll from `@img/sharp-win32-ia32` and `@img/sharp-win32-x64`
 *   0.33.5 (MinGW): every callback is a procedure start.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env
 * tests/pe_tls_callbacks_test.ts`; skipped, with the reason printed, without the
 * programs or the packages.
 */

import assert from "node:assert/strict";
import { connect, hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { peerCallbacks } from "./helpers/pe_tls.ts";
import { buildDll } from "./helpers/pe_dll.ts";
import { listedProcedures, pagedItems } from "./helpers/procedures.ts";

const OBJDUMP = "llvm-objdump-14";
const READOBJ = "llvm-readobj-14";
const MC = "llvm-mc-14";
const LINK = "lld-link-14";
const PEERS = hasProgram(OBJDUMP) && hasProgram(READOBJ);
const BUILD = PEERS && hasProgram(MC) && hasProgram(LINK);
if (!BUILD) console.log(`pe_tls_callbacks_test: ${OBJDUMP}, ${READOBJ}, ${MC} or ${LINK} missing`);

const hex = (a: bigint): string => `0x${a.toString(16)}`;

/** Assembly of a DLL whose TLS callback calls `fc`; `u` is the symbol prefix of the target. */
function source(x64: boolean): string {
  const u = x64 ? "" : "_";
  const word = x64 ? ".quad" : ".long";
  return [
    "  .text",
    `  .globl ${u}DllMain${x64 ? "" : "@12"}`,
    `${u}DllMain${x64 ? "" : "@12"}:`,
    "  movl $1, %eax",
    x64 ? "  retq" : "  retl $12",
    `  .globl ${u}fc`,
    "  .p2align 4",
    `${u}fc:`,
    "  xorl %eax, %eax",
    "  ret",
    "  .p2align 4",
    `${u}tlscb:`,
    `  call ${u}fc`,
    x64 ? "  retq" : "  retl $12",
    '  .section .tls,"dw"',
    "  .long 0",
    "  .data",
    `  .globl ${u}_tls_index`,
    `${u}_tls_index: .long 0`,
    '  .section .rdata,"dr"',
    `  .globl ${u}_tls_used`,
    `  .p2align ${x64 ? 3 : 2}`,
    `${u}_tls_used:`,
    `  ${word} 0, 0, ${u}_tls_index, callbacks, 0, 0`,
    `callbacks: ${word} ${u}tlscb, 0`,
    "",
  ].join("\n");
}

for (const x64 of [true, false]) {
  const kind = x64 ? "x64 (PE32+)" : "i386 (PE32)";
  Deno.test({
    name:
      `a TLS callback of an ${kind} DLL is a procedure, and the caller of what it calls, as llvm-readobj lists it`,
    ignore: !BUILD,
    fn: () =>
      withTempRoot("casefile-pe-tls-", async ({ client, dir }) => {
        const path = await buildDll({
          dir,
          name: "tls",
          source: source(x64),
          x64,
          exports: ["fc"],
        });
        const callbacks = await peerCallbacks(path, x64 ? 8 : 4);
        assert.equal(callbacks.length, 1);
        const callback = callbacks[0]!;
        // The peer decodes a call to fc as the callback's first instruction.
        const listing = await run(OBJDUMP, ["-d", "--no-show-raw-insn", path]);
        const fc = BigInt(`0x${/^([0-9a-f]+) <fc>:/m.exec(listing)![1]}`);
        assert.match(
          listing,
          new RegExp(`^\\s*${callback.toString(16)}:\\s+call[lq]?\\s+${hex(fc)} <fc>`, "m"),
        );

        await ok(client, "open_binary", { path });
        const listed = await listedProcedures(client);
        assert.ok(listed.has(hex(callback)), `${hex(callback)} is not listed`);
        const found = await ok(client, "resolve_containing_procedure", { address: hex(callback) });
        assert.equal(found.result.procedure.address, hex(callback));
        const callers = await ok(client, "procedure_callers", { procedure: "fc" });
        assert.deepEqual(
          callers.result.items.map((c: Loose) => [c.address, c.call_sites]),
          [[hex(callback), [hex(callback)]]],
        );
        assert.equal(callers.result.reference_scan.complete, true);
      }),
  });
}

for (
  const [spec, pointer] of [["@img/sharp-win32-ia32@0.33.5", 4], [
    "@img/sharp-win32-x64@0.33.5",
    8,
  ]] as const
) {
  const file = PEERS ? await npmFixture(spec, "lib/libvips-42.dll") : null;
  Deno.test({
    name:
      `every TLS callback of ${spec} libvips-42.dll is a procedure start, as llvm-readobj lists them`,
    ignore: file === null,
    fn: async () => {
      const path = file!;
      const callbacks = await peerCallbacks(path, pointer);
      assert.ok(callbacks.length >= 2, `${callbacks.length} callbacks`);
      const { client, close } = await connect({ roots: [path.slice(0, path.lastIndexOf("/"))] });
      try {
        await ok(client, "open_binary", { path });
        const listed = new Set(
          (await pagedItems(client, "list_procedures")).map((p: Loose) => p.address),
        );
        assert.deepEqual(callbacks.map(hex).filter((c) => !listed.has(c)), []);
        console.log(`${spec}: ${callbacks.length} TLS callbacks, each a procedure start`);
      } finally {
        await close();
      }
    },
  });
}
