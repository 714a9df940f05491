/**
 * MSVC names of const member functions keep their `const`: the demangler
 * package leaves out the qualifiers of `this` (`QEBA…`), which are added
 * back. Compared with `llvm-undname-14` on every exported C++ name of
 * libvips-cpp.dll from `@img/sharp-win32-x64` 0.33.5 (MSVC), as
 * `llvm-readobj-14 --coff-exports` lists them: for each member function whose
 * scope holds no template, the demangled name ends with the same `const` /
 * `volatile` as the peer's.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env
 * tests/msvc_demangle_const_test.ts`; skipped, with the reason printed, without the
 * programs or the package.
 */

import assert from "node:assert/strict";
import { demangle, ensureDemangler } from "../src/apps/disasm/demangle.ts";
import { hasProgram, run } from "./helpers/programs.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";

const UNDNAME = "llvm-undname-14";
const READOBJ = "llvm-readobj-14";
const HAVE = hasProgram(UNDNAME) && hasProgram(READOBJ);
if (!HAVE) console.log(`msvc_demangle_const_test: ${UNDNAME} or ${READOBJ} missing: skipped`);
const FILE = HAVE ? await npmFixture("@img/sharp-win32-x64@0.33.5", "lib/libvips-cpp.dll") : null;

/** The `this` qualifiers at the end of a demangled function name (after its parameter list). */
function qualifiers(text: string): string | null {
  const m = /\)((?: const)?(?: volatile)?)(?: __ptr64)?$/.exec(text.trim());
  return m ? m[1]! : null;
}

Deno.test({
  name: "demangle() keeps the const of MSVC const member functions, as llvm-undname does",
  ignore: FILE === null,
  fn: async () => {
    await ensureDemangler();
    const exports = await run(READOBJ, ["--coff-exports", FILE!]);
    const names = [...exports.matchAll(/Name: (\?\S+)/g)].map((m) => m[1]!);
    // The scope (up to the first `@@`) holds no template or nested name.
    const plain = names.filter((n) => {
      const start = n.startsWith("??") ? (n[2] === "_" ? (n[3] === "_" ? 5 : 4) : 3) : 1;
      const end = n.indexOf("@@", start);
      return end > 0 && !n.slice(start, end).includes("?");
    });
    const peer = (await run(UNDNAME, plain)).split("\n");
    let constant = 0;
    let compared = 0;
    for (const name of plain) {
      const at = peer.indexOf(name);
      const expected = at >= 0 ? qualifiers(peer[at + 1] ?? "") : null;
      const ours = demangle(name);
      if (expected === null || ours === null) continue;
      assert.equal(qualifiers(ours), expected, `${name}: ${ours} / ${peer[at + 1]}`);
      compared++;
      if (expected !== "") constant++;
    }
    assert.ok(constant > 100, `${constant} const member functions`);
    assert.equal(
      demangle("??AVImage@vips@@QEBA?AV01@H@Z"),
      "vips::VImage::operator[](int) const",
    );
    console.log(`${compared} member functions compared, ${constant} of them const`);
  },
});
