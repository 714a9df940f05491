/**
 * `list_procedures`, walked through a real MCP client, against binutils `nm`
 * on real binaries of the machine.
 */

import assert from "node:assert/strict";
import { hasProgram, ok, run, withClient } from "./helpers/in_memory.ts";
import { withTempDir } from "./helpers/temp_dir.ts";
import { listedProcedures } from "./helpers/procedures.ts";
import { peerStartupCallees, peerStartupFunctions } from "./helpers/elf_startup.ts";

const HAS_NM = hasProgram("nm");
const HAS_CC = hasProgram("cc");

/** nm's function symbols: address → names (sysv format gives the ELF symbol type). */
async function nmFunctions(path: string, dynamic: boolean): Promise<Map<string, Set<string>>> {
  const args = [...(dynamic ? ["-D"] : []), "--defined-only", "-f", "sysv", path];
  const functions = new Map<string, Set<string>>();
  for (const line of (await run("nm", args)).split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length < 7) continue;
    const [rawName, value, , type] = cells;
    if (type !== "FUNC" && type !== "<OS specific>: 10") continue; // 10 = STT_GNU_IFUNC
    const name = rawName!.replace(/@.*$/, "");
    const address = `0x${BigInt(`0x${value}`).toString(16)}`;
    if (!functions.has(address)) functions.set(address, new Set());
    functions.get(address)!.add(name);
  }
  return functions;
}

/** FDE extents `[start, end)`, as `readelf --debug-dump=frames` prints them. */
async function ehFrameExtents(path: string): Promise<[bigint, bigint][]> {
  const extents: [bigint, bigint][] = [];
  if (!hasProgram("readelf")) return extents;
  // readelf may exit 1 after printing every frame (seen on libc); the output is what counts.
  const out = await new Deno.Command("readelf", {
    args: ["--debug-dump=frames", path],
    stdout: "piped",
    stderr: "null",
  })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  for (const m of text.matchAll(/ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)/g)) {
    extents.push([BigInt(`0x${m[1]}`), BigInt(`0x${m[2]}`)]);
  }
  return extents;
}

async function compare(path: string, dynamic: boolean): Promise<void> {
  await withClient({ roots: ["/", Deno.realPathSync("/tmp")] }, async (client) => {
    const opened = await ok(client, "open_binary", { path });
    const extents = await ehFrameExtents(path);
    const hex = (a: bigint): string => `0x${a.toString(16)}`;
    const frames = new Set(extents.map(([start]) => hex(start)));
    // What the loader calls (DT_INIT, DT_FINI, the init and fini arrays), per readelf.
    const loaderCalls = await peerStartupFunctions(path);
    const startup = new Set(loaderCalls.map(hex));
    const entry: string = opened.result.target.entry;
    const listed = await listedProcedures(client);
    const expected = await nmFunctions(path, dynamic);
    // What those call or jump to that no FDE, symbol or other start covers, per objdump.
    const starts = new Set([...frames, ...startup, entry, ...expected.keys()].map(BigInt));
    const callees = new Set(
      (await peerStartupCallees(
        path,
        loaderCalls,
        starts,
        (at) => extents.some(([start, end]) => at >= start && at < end),
      )).map(hex),
    );
    for (const [address, names] of expected) {
      assert.ok(
        listed.has(address),
        `${path}: nm function at ${address} (${[...names]}) is missing`,
      );
      assert.ok(
        names.has(listed.get(address)!),
        `${path}: ${address} is named ${listed.get(address)}, nm says ${[...names]}`,
      );
    }
    for (const [address, name] of listed) {
      if (expected.has(address)) continue;
      // Procedures nm cannot show have no symbol: the entry point, starts learned from
      // .eh_frame (checked against readelf in elf_extras_test.ts), the functions the
      // loader calls and what they call. They are unnamed.
      assert.ok(
        address === entry || frames.has(address) || startup.has(address) || callees.has(address),
        `${path}: ${address} (${name}) has no source`,
      );
      assert.equal(name, "", `${path}: ${address} is named ${name} but nm has no function there`);
    }
    assert.ok(expected.size > 0);
    // Each function the loader calls is one (a stripped program's crt code has no FDE), and so
    // is each it reaches that nothing lists (crt's deregister_tm_clones, register_tm_clones).
    assert.deepEqual([...startup].filter((address) => !listed.has(address)), [], path);
    assert.deepEqual([...callees].filter((address) => !listed.has(address)), [], path);
  });
}

Deno.test({
  name: "list_procedures walks libc's dynamic functions exactly as nm -D --defined-only lists them",
  ignore: !HAS_NM,
  fn: () => compare(Deno.realPathSync("/lib/x86_64-linux-gnu/libc.so.6"), true),
});

Deno.test({
  name:
    "list_procedures on a stripped system executable equals nm -D --defined-only plus the entry point",
  ignore: !HAS_NM,
  fn: () => compare("/usr/bin/ls", true),
});

Deno.test({
  name: "list_procedures on an unstripped program the test compiles equals nm --defined-only",
  ignore: !HAS_NM || !HAS_CC,
  fn: async () => {
    await withTempDir(async (dir) => {
      await Deno.writeTextFile(
        `${dir}/prog.c`,
        [
          "#include <stdio.h>",
          "static int helper(int x) { return x * 3; }",
          "__attribute__((weak)) int weak_hook(int x) { return x + 1; }",
          "int visible(int x) { return helper(x) + weak_hook(x); }",
          'int main(int argc, char **argv) { (void)argv; printf("%d\\n", visible(argc)); return 0; }',
        ].join("\n"),
      );
      await run("cc", ["-O0", "-g0", "-o", `${dir}/prog`, `${dir}/prog.c`]);
      await compare(`${dir}/prog`, false);
    }, { prefix: "casefile-nm-" });
  },
});

for (const name of [HAS_NM ? "" : "nm", HAS_CC ? "" : "cc"].filter(Boolean)) {
  console.log(`skip: ${name} is not installed; the nm comparisons that need it are ignored`);
}
