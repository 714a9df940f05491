/**
 * Go's linker types every undefined dynamic symbol STT_OBJECT, the libc
 * functions a cgo program calls through its PLT included: those with a
 * JUMP_SLOT relocation are imports, as `readelf -r` lists them, and their
 * callers are the sites `objdump -d` decodes as `call <name@plt>`. On the
 * `go` command of Debian's golang-go (a dynamically linked cgo program).
 *
 * Run with `deno test --no-prompt --allow-read --allow-run --allow-env
 * tests/elf_go_imports_test.ts`; skipped without go, readelf or objdump.
 */

import assert from "node:assert/strict";
import { dirname } from "node:path";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";

/** The `go` command's real path, when golang-go is installed. */
async function goBinary(): Promise<string | null> {
  if (!hasProgram("go") || !hasProgram("readelf") || !hasProgram("objdump")) return null;
  const root = (await run("go", ["env", "GOROOT"])).trim();
  const path = `${root}/bin/go`;
  try {
    return Deno.realPathSync(path);
  } catch {
    return null;
  }
}

const GO = await goBinary();
/** The symbols the `go` command's JUMP_SLOT relocations name (none for a static build). */
const JUMP_SLOTS = GO === null
  ? []
  : [...(await run("readelf", ["-rW", GO])).matchAll(/R_X86_64_JUMP_SLOT\s+[0-9a-f]+\s+([^@\s]+)/g)]
    .map((m) => m[1]!);
if (GO === null) console.log("elf_go_imports_test: go, readelf or objdump missing: skipped");
else if (JUMP_SLOTS.length === 0) console.log(`elf_go_imports_test: ${GO} is static: skipped`);

Deno.test({
  name:
    "the PLT functions of a cgo Go program (STT_OBJECT, JUMP_SLOT) are imports, called where objdump decodes the calls",
  ignore: GO === null || JUMP_SLOTS.length === 0,
  fn: async () => {
    const path = GO!;
    const jumpSlots = JUMP_SLOTS;
    const symbols = await run("readelf", ["--dyn-syms", "-W", path]);
    const objectTyped = jumpSlots.filter((name) =>
      new RegExp(`OBJECT\\s+GLOBAL\\s+DEFAULT\\s+UND\\s+${name}(@|\\s|$)`, "m").test(symbols)
    );
    assert.ok(objectTyped.length > 0, "Go types its PLT functions STT_OBJECT");
    const listing = await run("objdump", ["-d", "--no-show-raw-insn", path]);

    const { client, close } = await connect({ roots: [dirname(path)] });
    try {
      await ok(client, "open_binary", { path });
      const overview = await ok(client, "binary_overview", { detail: "detailed" });
      const imported = new Set(overview.result.imports.map((i: Loose) => i.name));
      assert.deepEqual(jumpSlots.filter((name) => !imported.has(name)), []);
      // A function called from Go's cgo glue: every call objdump decodes is a caller's site.
      const called = jumpSlots.find((name) =>
        new RegExp(`call\\s+[0-9a-f]+ <${name}@plt>`).test(listing)
      );
      assert.ok(called, "objdump decodes a call to a PLT function");
      const sites = [
        ...listing.matchAll(
          new RegExp(`^\\s*([0-9a-f]+):\\s+call\\s+[0-9a-f]+ <${called}@plt>`, "gm"),
        ),
      ].map((m) => `0x${m[1]}`).sort();
      const callers = await ok(client, "procedure_callers", { procedure: called, limit: 500 });
      assert.deepEqual(
        callers.result.items.flatMap((c: Loose) => c.call_sites).sort(),
        sites,
        called,
      );
    } finally {
      await close();
    }
  },
});
