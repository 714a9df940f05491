/**
 * A stripped Go binary keeps its function table (`.gopclntab`: every
 * function's entry, extent and name, for the runtime's stack traces), so its
 * procedures are all listed, named, where the symbol table is gone:
 * - a program built here with Go 1.19 (the 1.18 layout), stripped with
 *   `-ldflags=-s -w`, lists exactly the functions `nm` lists for the same
 *   program built unstripped (assembly functions' `.abi0` suffix aside, and
 *   array lengths, which the table writes `[...]` in the names of generated
 *   equality functions: `type..eq.[...]runtime.Frame` for nm's
 *   `type..eq.[2]runtime.Frame`; the `runtime.text` and `runtime.etext`
 *   markers are not functions), and the calls `objdump` shows into
 *   `runtime.duffcopy` and `runtime.duffzero` (Go's Duff's devices, entered
 *   part-way) are those devices' callers, and their callees;
 * - Go binaries from npm, stripped: esbuild for Linux x64 in the layouts of
 *   Go 1.2 (esbuild 0.6.34), Go 1.16 (0.13.15) and Go 1.20 (0.24.0), 0.24.0's
 *   Mach-O (x86-64 and arm64, `__gopclntab`) and PE (x64, where the table
 *   has no section of its own and is found in `.rdata`), and builds of Go
 *   1.26 and 1.27 (esbuild 0.28.2 for 386 and arm64, lefthook 2.2.2 for
 *   Windows x64) whose table headers hold 0 for the text start: every direct call
 *   the peer decodes (`objdump -d` for ELF, `llvm-objdump-14 -d` for the
 *   others) lands on a listed procedure's start (or inside
 *   `runtime.duffzero` / `runtime.duffcopy`, entered part-way by design),
 *   every procedure is named, and `main.main` is found by name;
 * - a table cut short is refused (`GoPclntabError`), bytes without Go's
 *   magic are no table, and a binary whose table is damaged, or whose
 *   functions would lie outside the code, lists what else it has and says
 *   why the table was not read or not used.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env
 * tests/go_pclntab_test.ts`; skipped, with the reason printed, without the programs
 * or the packages.
 */

import assert from "node:assert/strict";
import { dirname } from "node:path";
import { connect, hasProgram, ok, run } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { listedProcedures, pagedItems } from "./helpers/procedures.ts";
import { GoPclntabError, readGoPclntab } from "../src/apps/formats/go/pclntab.ts";
import { readerFor } from "../src/apps/formats/readers.ts";

const HAVE_BINUTILS = hasProgram("objdump") && hasProgram("nm");
const HAVE_GO = hasProgram("go");
if (!HAVE_BINUTILS) console.log("go_pclntab_test: objdump or nm missing: skipped");
if (!HAVE_GO) {
  console.log("go_pclntab_test: go (Debian's golang-go) missing: the build test is skipped");
}

const PROGRAM = `package main

import (
	"fmt"
	"os"
	"strings"
)

type block struct{ words [64]int64 }

//go:noinline
func copyBlock(dst, src *block) { *dst = *src }

//go:noinline
func clearBlock(b *block) { *b = block{} }

type shape interface{ area() float64 }
type square struct{ side float64 }

func (s square) area() float64 { return s.side * s.side }

//go:noinline
func total(shapes []shape) float64 {
	sum := 0.0
	for _, s := range shapes {
		sum += s.area()
	}
	return sum
}

func main() {
	var a, b block
	a.words[3] = int64(len(os.Args))
	copyBlock(&b, &a)
	clearBlock(&a)
	fmt.Println(strings.ToUpper("casefile"), total([]shape{square{2}, square{3}}), b.words[3], a.words[3])
}
`;

/**
 * Function symbols `nm` (or `llvm-nm-14`, for PE) lists (address → names),
 * markers left out, `.abi0` dropped and array lengths written `[...]`, as
 * the function table names them.
 */
async function nmFunctions(nm: string, path: string): Promise<Map<string, Set<string>>> {
  const functions = new Map<string, Set<string>>();
  for (const line of (await run(nm, [path])).split("\n")) {
    const m = /^([0-9a-f]+) [Tt] (.+)$/.exec(line);
    if (!m || m[2] === "runtime.text" || m[2] === "runtime.etext") continue;
    const address = `0x${BigInt(`0x${m[1]}`).toString(16)}`;
    const names = functions.get(address) ?? new Set<string>();
    names.add(m[2]!.replace(/\.abi0$/, "").replace(/^type\.\.eq\.\[\d+\]/, "type..eq.[...]"));
    functions.set(address, names);
  }
  return functions;
}

/** The sites `objdump` shows calling into `device` (its start or part-way in). */
function callsInto(disassembly: string, device: string): string[] {
  const pattern = new RegExp(
    `^\\s*([0-9a-f]+):\\s+call\\s+[0-9a-f]+ <${device.replace(".", "\\.")}(?:\\+0x[0-9a-f]+)?>$`,
    "gm",
  );
  return [...disassembly.matchAll(pattern)].map((m) => `0x${m[1]}`).sort();
}

/** The builds compared: each built whole and stripped (`-ldflags=-s -w`). */
const BUILDS: { target: string; env: Record<string, string>; flags: string[]; nm: string }[] = [
  { target: "linux/amd64", env: {}, flags: [], nm: "nm" },
  // A position-independent build keeps the table in .data.rel.ro.gopclntab, its text start as 0.
  { target: "linux/amd64 PIE", env: {}, flags: ["-buildmode=pie"], nm: "nm" },
  // On 386 the text starts with the PIC helpers, then Go's build ID; PE names no table section.
  { target: "windows/386", env: { GOOS: "windows", GOARCH: "386" }, flags: [], nm: "llvm-nm-14" },
];

for (const build of BUILDS) {
  Deno.test({
    name:
      `a stripped Go 1.19 ${build.target} build lists the functions ${build.nm} lists for the unstripped build, named`,
    ignore: !HAVE_BINUTILS || !HAVE_GO || !hasProgram(build.nm),
    fn: async () => {
      const dir = await Deno.makeTempDir({ prefix: "casefile-go-" });
      try {
        await Deno.writeTextFile(`${dir}/main.go`, PROGRAM);
        await Deno.writeTextFile(`${dir}/go.mod`, "module example.com/probe\n\ngo 1.19\n");
        const env = {
          HOME: dir,
          GOCACHE: `${dir}/cache`,
          GOPATH: `${dir}/gopath`,
          GOFLAGS: "-mod=mod",
          CGO_ENABLED: "0",
          ...build.env,
        };
        for (const [output, flags] of [["full", []], ["stripped", ["-ldflags=-s -w"]]] as const) {
          const built = await new Deno.Command("go", {
            args: ["build", ...build.flags, ...flags, "-o", output, "."],
            cwd: dir,
            env,
            stdout: "piped",
            stderr: "piped",
          }).output();
          assert.ok(built.success, new TextDecoder().decode(built.stderr));
        }
        const expected = await nmFunctions(build.nm, `${dir}/full`);
        assert.ok(expected.size > 1000, `${build.nm} lists only ${expected.size} functions`);
        const stripped = await nmFunctions(build.nm, `${dir}/stripped`).catch(() => new Map());
        assert.equal(stripped.size, 0, "the stripped build has no function symbols");
        const c = await connect({ roots: [dir] });
        try {
          await ok(c.client, "open_binary", { path: `${dir}/stripped` });
          const listed = await listedProcedures(c.client);
          const missing = [...expected].filter(([address, names]) =>
            !names.has(listed.get(address) ?? "")
          );
          assert.deepEqual(
            missing.slice(0, 10),
            [],
            `${missing.length} of ${build.nm}'s functions not listed`,
          );
          const extra = [...listed].filter(([address]) => !expected.has(address));
          assert.deepEqual(extra.slice(0, 10), [], `${extra.length} procedures nm does not list`);
          const found = await ok(c.client, "procedure_address", { procedure: "main.total" });
          assert.equal(
            found.result.address,
            [...expected].find(([, n]) => n.has("main.total"))![0],
          );
          const dossier = await ok(c.client, "analyze_function", { procedure: "main.total" });
          const read = await c.client.readResource({ uri: dossier.evidence_uri });
          const record = JSON.parse((read.contents[0] as { text: string }).text);
          assert.ok(
            record.limitations.some((l: string) => l.includes("Go's function table")),
            "the dossier's Evidence says its extent includes the padding",
          );
          if (build.target !== "linux/amd64") return;
          // Calls into Go's Duff's devices enter them part-way: they are calls to the device.
          const disassembly = await run("objdump", ["-d", "--no-show-raw-insn", `${dir}/full`]);
          for (const device of ["runtime.duffcopy", "runtime.duffzero"]) {
            const sites = callsInto(disassembly, device);
            assert.ok(sites.length > 0, `objdump shows no call into ${device}`);
            const callers = await pagedItems(c.client, "procedure_callers", { procedure: device });
            const listedSites = callers.flatMap((item) => item.call_sites as string[]).sort();
            assert.deepEqual(listedSites, sites, `the calls into ${device}`);
          }
          const callees = await ok(c.client, "procedure_callees", { procedure: "main.copyBlock" });
          assert.ok(
            callees.result.items.some((item: { name: string; kind: string }) =>
              item.name === "runtime.duffcopy" && item.kind === "procedure"
            ),
            JSON.stringify(callees.result.items),
          );
        } finally {
          await c.close();
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

/**
 * Stripped Go binaries from npm: esbuild for Linux x64 in each table layout,
 * 0.24.0's Mach-O and PE builds, and builds of Go 1.26 and 1.27, whose table
 * headers hold 0 for the text start.
 */
const NPM_GO = [
  { what: "Go 1.2 table, ELF", spec: "esbuild-linux-64@0.6.34", file: "bin/esbuild", gnu: true },
  { what: "Go 1.16 table, ELF", spec: "esbuild-linux-64@0.13.15", file: "bin/esbuild", gnu: true },
  { what: "Go 1.20 table, ELF", spec: "@esbuild/linux-x64@0.24.0", file: "bin/esbuild", gnu: true },
  { what: "Mach-O x86-64", spec: "@esbuild/darwin-x64@0.24.0", file: "bin/esbuild", gnu: false },
  { what: "Mach-O arm64", spec: "@esbuild/darwin-arm64@0.24.0", file: "bin/esbuild", gnu: false },
  {
    what: "PE x64, no section names the table",
    spec: "@esbuild/win32-x64@0.24.0",
    file: "esbuild.exe",
    gnu: false,
  },
  { what: "Go 1.26, ELF 386", spec: "@esbuild/linux-ia32@0.28.2", file: "bin/esbuild", gnu: true },
  {
    what: "Go 1.26, ELF arm64",
    spec: "@esbuild/linux-arm64@0.28.2",
    file: "bin/esbuild",
    gnu: false,
  },
  {
    what: "Go 1.27, PE x64",
    spec: "lefthook-windows-x64@2.2.2",
    file: "bin/lefthook.exe",
    gnu: false,
  },
];
const HAVE_LLVM = hasProgram("llvm-objdump-14");

/**
 * The direct call targets (`call`, `callq`, `bl`) the peer decodes: GNU
 * objdump for x86 ELF's `.text`, llvm-objdump-14 for the others.
 */
async function callTargets(path: string, gnu: boolean): Promise<bigint[]> {
  const text = gnu
    ? await run("objdump", ["-d", "--no-show-raw-insn", "-j", ".text", path])
    : await run("llvm-objdump-14", ["-d", "--no-show-raw-insn", path]);
  return [...text.matchAll(/\t(?:call|callq|bl)\s+0x([0-9a-f]+)/gm)].map((m) =>
    BigInt(`0x${m[1]}`)
  );
}

for (const { what, spec, file, gnu } of NPM_GO) {
  const path = HAVE_BINUTILS && (gnu || HAVE_LLVM) ? await npmFixture(spec, file) : null;
  Deno.test({
    name:
      `${spec} (stripped, ${what}): every direct call the peer decodes lands on a listed, named procedure`,
    ignore: path === null,
    fn: async () => {
      const c = await connect({ roots: [dirname(path!)] });
      try {
        await ok(c.client, "open_binary", { path: path! });
        const listed = await listedProcedures(c.client);
        assert.ok(listed.size > 4000, `only ${listed.size} procedures listed`);
        const unnamed = [...listed].filter(([, name]) => name === "");
        assert.deepEqual(unnamed.slice(0, 5), [], `${unnamed.length} procedures have no name`);
        const starts = [...listed.keys()].map((a) => BigInt(a)).sort((a, b) => (a < b ? -1 : 1));
        // Duff's devices (up to Go 1.25) are entered part-way, at the offset that does the work.
        const entered = [...listed].filter(([, name]) => /^runtime\.duff(zero|copy)$/.test(name))
          .map(([address]) => BigInt(address));
        const within = (target: bigint): boolean =>
          entered.some((start) => {
            const next = starts.find((s) => s > start) ?? start;
            return target > start && target < next;
          });
        const targets = await callTargets(path!, gnu);
        assert.ok(targets.length > 10_000, `the peer decoded only ${targets.length} direct calls`);
        // Calls past the last procedure go to import stubs (Mach-O's __symbol_stub1).
        const stray = new Set(
          targets.filter((t) =>
            t <= starts.at(-1)! && !listed.has(`0x${t.toString(16)}`) && !within(t)
          )
            .map((t) => `0x${t.toString(16)}`),
        );
        assert.deepEqual(
          [...stray].slice(0, 10),
          [],
          `${stray.size} call targets are no procedure`,
        );
        const main = await ok(c.client, "procedure_address", { procedure: "main.main" });
        assert.equal(listed.get(main.result.address), "main.main");
      } finally {
        await c.close();
      }
    },
  });
}

const LATEST = HAVE_BINUTILS ? await npmFixture("@esbuild/linux-x64@0.24.0", "bin/esbuild") : null;

Deno.test({
  name: "a damaged .gopclntab is refused with a reason and noted in the document's warnings",
  ignore: LATEST === null,
  fn: async () => {
    const path = LATEST!;
    const bytes = await Deno.readFile(path);
    const row = (await run("readelf", ["-S", "-W", path])).split("\n")
      .find((line) => line.includes(".gopclntab"))!.replace(/^\s*\[\s*\d+\]\s*/, "").split(/\s+/);
    const offset = parseInt(row[3]!, 16);
    const size = parseInt(row[4]!, 16);
    const table = bytes.subarray(offset, offset + size);
    assert.equal(readGoPclntab(table, true)?.functions.length, 7897);
    assert.throws(() => readGoPclntab(table.subarray(0, 4096), true), GoPclntabError);
    const other = table.slice(0, 64);
    other[0] = 0;
    assert.equal(readGoPclntab(other, true), null, "no Go magic: not a Go table");
    // The entries' offset (the header's eighth word) pointed past the table.
    const damaged = bytes.slice();
    new DataView(damaged.buffer).setBigUint64(offset + 8 + 7 * 8, BigInt(size - 16), true);
    const [image] = readerFor(damaged)!.read(damaged, "esbuild");
    assert.ok(
      image!.functions.length < 10,
      `${image!.functions.length} procedures without the table`,
    );
    assert.ok(
      image!.warnings.some((w) => /^The Go function table \(\.gopclntab\) was not read: /.test(w)),
      image!.warnings.join("\n"),
    );
    // A text start (the header's third word) that puts the functions outside the code: not used.
    const moved = bytes.slice();
    new DataView(moved.buffer).setBigUint64(offset + 8 + 2 * 8, 0x10n, true);
    const [misplaced] = readerFor(moved)!.read(moved, "esbuild");
    assert.ok(misplaced!.functions.length < 10, "no function of a misplaced table is listed");
    assert.ok(
      misplaced!.warnings.some((w) =>
        /^The Go function table \(\.gopclntab\) was not used: \d+ of its 7897 functions lie outside the code/
          .test(w)
      ),
      misplaced!.warnings.join("\n"),
    );
  },
});
