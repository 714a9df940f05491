/**
 * A C name asked for without the leading underscore Mach-O symbols carry
 * (nm lists `_main`) is refused with the spelling that is there, and the
 * other way round; the address named is the one llvm-nm gives.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fails, hasProgram, ok, run, withTempRoot } from "./helpers/in_memory.ts";

const READY = ["llc-14", "llvm-nm-14"].every((program) => hasProgram(program));
if (!READY) console.log("apps_procedure_spelling_test: needs llc-14 and llvm-nm-14: skipped");

const MODULE = `
define i32 @leaf(i32 %x) noinline {
  %a = mul i32 %x, 3
  ret i32 %a
}
define i32 @main() {
  %r = call i32 @leaf(i32 4)
  ret i32 %r
}
`;

Deno.test({
  name:
    "procedure_address names the underscored spelling a Mach-O object holds, at llvm-nm's address",
  ignore: !READY
    ? (console.log("apps_procedure_spelling_test: needs llc-14 and llvm-nm-14"), true)
    : false,
  fn: () =>
    withTempRoot("casefile-spelling-", async ({ client, dir: root }) => {
      await Deno.writeTextFile(join(root, "m.ll"), MODULE);
      const object = join(root, "m.o");
      await run("llc-14", [
        "-mtriple=x86_64-apple-macosx11",
        "-filetype=obj",
        join(root, "m.ll"),
        "-o",
        object,
      ]);
      // llvm-nm: "0000000000000010 T _main"
      const peer = new Map(
        (await run("llvm-nm-14", [object])).trim().split("\n").map((line) => {
          const [address, , name] = line.trim().split(/\s+/);
          return [name!, `0x${BigInt(`0x${address}`).toString(16)}`] as const;
        }),
      );
      assert.ok(peer.has("_main") && peer.has("_leaf"), [...peer.keys()].join(", "));
      await ok(client, "open_binary", { path: object });

      const found = await ok(client, "procedure_address", { procedure: "_main" });
      assert.equal(found.result.address, peer.get("_main"));
      for (const [asked, there] of [["main", "_main"], ["leaf", "_leaf"]] as const) {
        const error = await fails(client, "procedure_address", { procedure: asked });
        assert.equal(error.code, "invalid_request");
        assert.ok(
          error.message.includes(`"${there}" is (${peer.get(there)})`),
          error.message,
        );
        assert.match(error.message, /with a leading underscore/);
        assert.equal(error.remediation.action, `Pass "${there}" or the 0x address.`);
      }
      // The other way round: "__main" is not there, "_main" without its underscore is not either.
      const back = await fails(client, "procedure_address", { procedure: "__leaf" });
      assert.match(back.message, /"_leaf" is \(0x0\): .* without a leading underscore/);
      const none = await fails(client, "procedure_address", { procedure: "absent" });
      assert.equal(none.message, 'No procedure is named "absent".');
    }),
});
