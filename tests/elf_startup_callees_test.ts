/**
 * What the loader's startup functions call or jump to is a procedure even
 * when nothing lists it: crt's `deregister_tm_clones` and
 * `register_tm_clones` have no FDE and, stripped, no symbol. Checked against
 * the symbol table of the same program before `strip`, and against the
 * disassembly binutils objdump (x86-64) or llvm-objdump (AArch64) prints.
 *
 * @module
 */

import assert from "node:assert/strict";
import { hasProgram, type Loose, ok, run, withClient } from "./helpers/in_memory.ts";
import { peerStartupCallees, peerStartupFunctions } from "./helpers/elf_startup.ts";
import { listedProcedures } from "./helpers/procedures.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { withTempDir } from "./helpers/temp_dir.ts";
import { isFile } from "./helpers/system_files.ts";

const HAS_CC = ["cc", "strip", "nm"].every(hasProgram);
const HAS_BINUTILS = ["objdump", "readelf"].every(hasProgram);
const HAS_LLVM = hasProgram("llvm-objdump-14") && hasProgram("readelf");
const HAS_STATIC_LIBC = ["/usr/lib/x86_64-linux-gnu/libc.a", "/usr/lib/aarch64-linux-gnu/libc.a"]
  .some(isFile);
const LIGHTNINGCSS_ARM64 = HAS_LLVM
  ? await npmFixture("lightningcss-linux-arm64-gnu@1.33.0", "lightningcss.linux-arm64-gnu.node")
  : null;

const hex = (address: bigint): string => `0x${address.toString(16)}`;

/** FDE extents `[start, end)` that readelf prints. */
async function fdeExtents(path: string): Promise<[bigint, bigint][]> {
  const out = await new Deno.Command("readelf", {
    args: ["--debug-dump=frames", path],
    stdout: "piped",
    stderr: "null",
  }).output();
  return [
    ...new TextDecoder().decode(out.stdout).matchAll(
      / FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)/g,
    ),
  ].map((m) => [BigInt(`0x${m[1]}`), BigInt(`0x${m[2]}`)]);
}

/** The addresses of `path`'s procedures whose source is `call-target`. */
async function callTargets(client: Parameters<typeof ok>[0]): Promise<string[]> {
  const found: string[] = [];
  for (const address of (await listedProcedures(client)).keys()) {
    const entry = await ok(client, "procedure_address", { procedure: address });
    if ((entry.result as Loose).source === "call-target") found.push(address);
  }
  return found.sort();
}

/** The disassembler's startup callees of `path` (its FDEs, the loader's calls and `extra` known). */
async function peerCallees(
  path: string,
  set: "x86" | "arm64",
  extra: readonly bigint[] = [],
): Promise<string[]> {
  const extents = await fdeExtents(path);
  const loader = await peerStartupFunctions(path);
  const callees = await peerStartupCallees(
    path,
    loader,
    new Set([...extents.map(([start]) => start), ...loader, ...extra]),
    (at) => extents.some(([start, end]) => at >= start && at < end),
    set,
  );
  return callees.map(hex).sort();
}

/**
 * Compiles a small C program (`cc -O2` and `flags`) to `dir/full`, strips it
 * to `dir/stripped`, and returns the unstripped build's code symbols (nm).
 */
async function strippedProgram(dir: string, flags: string[]): Promise<Map<string, string>> {
  await Deno.writeTextFile(
    `${dir}/prog.c`,
    '#include <stdio.h>\nint main(int argc, char **argv) { (void)argv; printf("%d\\n", argc); return 0; }\n',
  );
  await run("cc", ["-O2", ...flags, "-o", `${dir}/full`, `${dir}/prog.c`]);
  await run("strip", ["--strip-all", "-o", `${dir}/stripped`, `${dir}/full`]);
  const symbols = new Map<string, string>();
  for (const line of (await run("nm", ["--defined-only", `${dir}/full`])).split("\n")) {
    const m = /^([0-9a-f]+) [tT] (\S+)$/.exec(line.trim());
    if (m) symbols.set(m[2]!, hex(BigInt(`0x${m[1]}`)));
  }
  return symbols;
}

Deno.test({
  name:
    "a stripped C program's crt helpers are procedures, at the addresses its unstripped build's symbols give",
  ignore: !HAS_CC || !HAS_BINUTILS,
  fn: async () => {
    await withTempDir(async (dir) => {
      const symbols = await strippedProgram(dir, []);
      const helpers = ["deregister_tm_clones", "register_tm_clones"].map((name) => {
        assert.ok(symbols.has(name), `cc's crt has ${name}: ${[...symbols.keys()]}`);
        return symbols.get(name)!;
      });
      await withClient({ roots: [dir] }, async (client) => {
        await ok(client, "open_binary", { path: `${dir}/stripped` });
        const listed = await listedProcedures(client);
        for (const address of helpers) assert.ok(listed.has(address), `${address} is listed`);
        assert.deepEqual(await callTargets(client), [...helpers].sort());
        const overview = await ok(client, "binary_overview");
        assert.equal(overview.result.procedures_by_source["call-target"], 2);
        // The call from __do_global_dtors_aux reaches a procedure: no unknown call target left.
        const xrefs = await ok(client, "xrefs", { address: helpers[0] });
        assert.equal(xrefs.result.items.length, 1, JSON.stringify(xrefs.result));
        assert.equal(xrefs.result.reference_scan.unresolved.unknown_call_targets, 0);
      });
      // The peer on the same file: what objdump shows the loader's functions reach.
      assert.deepEqual(await peerCallees(`${dir}/stripped`, "x86"), [...helpers].sort());
    }, { prefix: "casefile-startup-callees-" });
  },
});

Deno.test({
  name:
    "a stripped static executable (no dynamic section): its .init, .fini and array functions and crt's helpers are procedures where its unstripped build's symbols say",
  ignore: !HAS_CC || !HAS_STATIC_LIBC,
  fn: async () => {
    await withTempDir(async (dir) => {
      const symbols = await strippedProgram(dir, ["-static"]);
      assert.doesNotMatch(await run("readelf", ["-d", `${dir}/stripped`]), /\(INIT\)/);
      const loader = ["_init", "_fini", "frame_dummy", "__do_global_dtors_aux"];
      const helpers = ["deregister_tm_clones", "register_tm_clones"];
      await withClient({ roots: [dir] }, async (client) => {
        await ok(client, "open_binary", { path: `${dir}/stripped` });
        for (const name of [...loader, ...helpers]) {
          assert.ok(symbols.has(name), `${name} in nm of the unstripped build`);
          const entry = await ok(client, "procedure_address", { procedure: symbols.get(name) });
          assert.equal(
            entry.result.source,
            helpers.includes(name) ? "call-target" : "startup",
            `${name} at ${symbols.get(name)}`,
          );
        }
      });
    }, { prefix: "casefile-startup-static-" });
  },
});

Deno.test({
  name: "the call-target procedures of Debian's stripped ls are what objdump shows its crt reach",
  ignore: !HAS_BINUTILS,
  fn: async () => {
    const peer = await peerCallees("/usr/bin/ls", "x86");
    assert.ok(peer.length >= 2, `objdump shows ${peer}`);
    await withClient({ roots: ["/usr/bin"] }, async (client) => {
      await ok(client, "open_binary", { path: "/usr/bin/ls" });
      assert.deepEqual(await callTargets(client), peer);
    });
  },
});

Deno.test({
  name:
    "the call-target procedures of an AArch64 library (lightningcss, Rust) are what llvm-objdump shows its crt reach",
  ignore: LIGHTNINGCSS_ARM64 === null,
  fn: async () => {
    const path = LIGHTNINGCSS_ARM64!;
    const peer = await peerCallees(path, "arm64");
    // call_weak_fn (from _init), deregister_tm_clones, register_tm_clones.
    assert.ok(peer.length >= 2, `llvm-objdump shows ${peer}`);
    await withClient({ roots: [path.slice(0, path.lastIndexOf("/"))] }, async (client) => {
      await ok(client, "open_binary", { path });
      assert.deepEqual(await callTargets(client), peer);
    });
  },
});

if (!HAS_LLVM) console.log("skip: llvm-objdump-14 is not installed; the AArch64 check is ignored");

const HAS_LLVM_LINK = ["llvm-mc-14", "ld.lld-14", "llvm-strip-14", "llvm-nm-14", "readelf"]
  .every(hasProgram);
if (!HAS_LLVM_LINK) {
  console.log(
    "skip: llvm-mc-14, ld.lld-14, llvm-strip-14 or llvm-nm-14 missing: zero-slot test ignored",
  );
}

// An AArch64 library whose constructor and destructor have no FDE (no CFI) and, stripped, no
// symbol; the linker leaves their init and fini array slots 0 and relocates them (RELATIVE).
const ZERO_SLOTS = `
  .text
  .globl entry
  .type entry, %function
entry:
  bl helper
  ret
helper:
  ret
ctor:
  bl ctor_helper
  ret
ctor_helper:
  ret
dtor:
  ret
  .section .init_array,"aw"
  .p2align 3
  .xword ctor
  .section .fini_array,"aw"
  .p2align 3
  .xword dtor
`;

Deno.test({
  name:
    "an AArch64 library whose init and fini array slots are 0 in the file (relocated) lists its constructor, destructor and what the constructor calls, at nm's addresses",
  ignore: !HAS_LLVM_LINK,
  fn: async () => {
    await withTempDir(async (dir) => {
      await Deno.writeTextFile(`${dir}/z.s`, ZERO_SLOTS);
      await run("llvm-mc-14", [
        "-triple=aarch64-linux-gnu",
        "-filetype=obj",
        "-o",
        `${dir}/z.o`,
        `${dir}/z.s`,
      ]);
      await run("ld.lld-14", ["-shared", "-o", `${dir}/libz0.so`, `${dir}/z.o`]);
      await run("llvm-strip-14", ["-o", `${dir}/libz0.stripped.so`, `${dir}/libz0.so`]);
      const nm = new Map(
        (await run("llvm-nm-14", [`${dir}/libz0.so`])).trim().split("\n").map((line) => {
          const [address, , name] = line.trim().split(/\s+/);
          return [name!, `0x${BigInt(`0x${address}`).toString(16)}`] as const;
        }),
      );
      // The slots hold 0 in the file: only the relocations say what runs.
      const dump = await run("readelf", ["-x", ".init_array", `${dir}/libz0.stripped.so`]);
      assert.match(dump, /0x[0-9a-f]+ 00000000 00000000/);
      const loader = (await peerStartupFunctions(`${dir}/libz0.stripped.so`)).map(hex);
      assert.deepEqual(loader, [nm.get("ctor"), nm.get("dtor")]);
      await withClient({ roots: [dir] }, async (client) => {
        await ok(client, "open_binary", { path: `${dir}/libz0.stripped.so` });
        const listed = await listedProcedures(client);
        for (const name of ["ctor", "dtor"]) {
          const entry = await ok(client, "procedure_address", { procedure: nm.get(name)! });
          assert.equal((entry.result as Loose).source, "startup", name);
        }
        assert.ok(listed.has(nm.get("ctor_helper")!), [...listed.keys()].join(", "));
        assert.deepEqual(
          await callTargets(client),
          [nm.get("ctor_helper")!, nm.get("helper")!].sort(),
        );
      });
    }, { prefix: "casefile-startup-zero-slots-" });
  },
});
