/**
 * Tail calls and jumps to a split-off `.cold` part are callers too: a gcc -O2
 * executable whose functions end in `jmp puts@plt`, `jmp helper_c` and whose
 * `mk` jumps (`je`) to `mk.cold`, checked against objdump's listing of every
 * call and jump to a symbol's start from another function.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { listedProcedures } from "./helpers/procedures.ts";

const READY = ["gcc", "objdump"].every((program) => hasProgram(program));
if (!READY) console.log("apps_tail_callers_test: needs gcc and objdump: skipped");

const SOURCE = `
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int helper_a(int x) { return x * 3 + printf("a%d\\n", x); }
static __attribute__((noinline)) int helper_b(const char *s) { return (int)strlen(s) + helper_a((int)strlen(s)); }
static __attribute__((noinline)) int helper_c(int x) { if (x > 10) return helper_b("big string value"); return helper_a(x); }
int tail1(int x) { return helper_c(x + 1); }
int tail2(const char *s) { return puts(s); }
__attribute__((noinline)) int leaf(int x) { return x ^ 0x5a5a; }
int dispatch(int k, int v) {
  switch (k) { case 0: return tail1(v); case 1: return leaf(v); case 2: return helper_c(v);
  case 3: return tail2("three"); case 4: return leaf(v) + 1; default: return (int)(long)malloc(v); }
}
void *mk(int n) { void *p = malloc(n); if (!p) abort(); memset(p, 0, n); return p; }
int main(int argc, char **argv) {
  char *b = mk(64); strcpy(b, argc > 1 ? argv[1] : "default-arg");
  printf("%d %s\\n", dispatch(argc, argc * 7), b); free(b); return tail1(argc);
}
`;

interface PeerSite {
  site: string;
  from: string;
  kind: "call" | "jump";
}

/** objdump's direct calls and jumps to a symbol's start (`<name>` or `<name@plt>`), by target name. */
async function peerSites(path: string): Promise<Map<string, PeerSite[]>> {
  const listing = await run("objdump", ["-d", "--no-show-raw-insn", path]);
  const sites = new Map<string, PeerSite[]>();
  let current = "";
  for (const line of listing.split("\n")) {
    const head = /^[0-9a-f]+ <([^>]+)>:$/.exec(line);
    if (head) {
      current = head[1]!;
      continue;
    }
    const m = /^\s*([0-9a-f]+):\s+(call|jmp|j[a-z]+)\s+[0-9a-f]+ <([^>+]+)>\s*$/.exec(line);
    if (!m) continue;
    const target = m[3]!.replace(/@plt$/, "");
    // A jump within the function itself is its own control flow, not a call.
    if (m[2] !== "call" && target === current) continue;
    const list = sites.get(target) ?? [];
    list.push({ site: `0x${m[1]}`, from: current, kind: m[2] === "call" ? "call" : "jump" });
    sites.set(target, list);
  }
  return sites;
}

Deno.test({
  name:
    "procedure_callers counts tail jumps and jumps to a .cold part as objdump lists them; callees and call paths follow them",
  ignore: !READY,
  fn: () =>
    withTempRoot("casefile-tail-callers-", async ({ client, dir }) => {
      await Deno.writeTextFile(join(dir, "t.c"), SOURCE);
      const exe = join(dir, "t64");
      await run("gcc", ["-O2", "-o", exe, join(dir, "t.c")]);
      const peer = await peerSites(exe);
      // What this test leans on is in the build: tail jumps to an import and to a local
      // function, and a conditional jump to a .cold part.
      assert.ok(peer.get("puts")?.some((s) => s.kind === "jump"), "no jmp puts@plt");
      assert.ok(peer.get("helper_c")?.some((s) => s.kind === "jump"), "no jmp helper_c");
      assert.ok(peer.get("mk.cold")?.some((s) => s.kind === "jump"), "no jump to mk.cold");
      await ok(client, "open_binary", { path: exe });
      let checked = 0;
      for (const [name, sites] of peer) {
        if (name.startsWith("_") || /tm_clones|frame_dummy/.test(name)) continue;
        const page = (await ok(client, "procedure_callers", { procedure: name, limit: 500 }))
          .result;
        const calls = page.items.flatMap((c: Loose) => c.call_sites).sort();
        const jumps = page.items.flatMap((c: Loose) => c.tail_jump_sites ?? []).sort();
        assert.deepEqual(
          calls,
          sites.filter((s) => s.kind === "call").map((s) => s.site).sort(),
          `calls to ${name}`,
        );
        assert.deepEqual(
          jumps,
          sites.filter((s) => s.kind === "jump").map((s) => s.site).sort(),
          `tail jumps to ${name}`,
        );
        assert.equal(page.total, new Set(sites.map((s) => s.from)).size, `callers of ${name}`);
        checked++;
      }
      assert.ok(checked >= 8, `only ${checked} targets checked`);

      const tail2 = (await ok(client, "procedure_callees", { procedure: "tail2" })).result;
      assert.deepEqual(tail2.items, []);
      assert.deepEqual(tail2.tail_jumps.map((t: Loose) => t.name), ["puts"]);

      const path = (await ok(client, "build_call_path", { from: "main", to: "abort" })).result;
      assert.equal(path.found, true, JSON.stringify(path));
      assert.deepEqual(path.path.map((s: Loose) => [s.name, s.via ?? null]), [
        ["main", null],
        ["mk", "call"],
        ["mk.cold", "tail-jump"],
        ["abort", "call"],
      ]);
    }),
});

Deno.test({
  name:
    "a stripped executable's crt code: what the loader calls is a procedure, and so is what that calls or jumps to without an FDE, so the caller scan is complete",
  ignore: !READY || !hasProgram("strip"),
  fn: () =>
    withTempRoot("casefile-uncovered-", async ({ client, dir }) => {
      await Deno.writeTextFile(join(dir, "t.c"), SOURCE);
      const exe = join(dir, "t64");
      await run("gcc", ["-O2", "-o", exe, join(dir, "t.c")]);
      const stripped = join(dir, "t64.stripped");
      await run("strip", ["-o", stripped, exe]);
      // objdump (on the unstripped copy): crt's __do_global_dtors_aux calls __cxa_finalize.
      const peer = await peerSites(exe);
      const crt = peer.get("__cxa_finalize")?.find((s) => s.from === "__do_global_dtors_aux");
      assert.ok(crt, "no call to __cxa_finalize from __do_global_dtors_aux");

      await ok(client, "open_binary", { path: exe });
      const full = (await ok(client, "procedure_callers", { procedure: "__cxa_finalize" })).result;
      assert.deepEqual(full.items.map((c: Loose) => c.call_sites), [[crt.site]]);
      assert.equal(full.reference_scan.complete, true);

      // nm (on the unstripped copy): where crt's functions start.
      const crtStart = new Map<string, string>();
      for (const m of (await run("nm", [exe])).matchAll(/^([0-9a-f]+) [tT] (\S+)$/gm)) {
        crtStart.set(m[2]!, `0x${BigInt(`0x${m[1]}`).toString(16)}`);
      }
      await ok(client, "open_binary", { path: stripped });
      const listed = await listedProcedures(client);
      // The loader calls __do_global_dtors_aux (.fini_array) and frame_dummy (.init_array):
      // procedures, though no FDE or symbol names them; so are the helpers they call or jump
      // to (deregister_tm_clones, register_tm_clones), which have no FDE either.
      for (
        const name of [
          "__do_global_dtors_aux",
          "frame_dummy",
          "deregister_tm_clones",
          "register_tm_clones",
        ]
      ) {
        assert.ok(listed.has(crtStart.get(name)!), `${name} at ${crtStart.get(name)}`);
      }
      const cut: Loose = await ok(client, "procedure_callers", { procedure: "__cxa_finalize" });
      assert.deepEqual(
        cut.result.items.map((c: Loose) => [c.address, c.call_sites]),
        [[crtStart.get("__do_global_dtors_aux"), [crt.site]]],
      );
      // No crt code lies outside every procedure now: the stripped copy's scan is as complete as
      // the unstripped one's, and says nothing of uncovered code.
      assert.equal(cut.result.reference_scan.complete, true, JSON.stringify(cut.result));
      const evidence = await client.readResource({ uri: cut.evidence_uri });
      const text = (evidence.contents[0] as { text: string }).text;
      assert.doesNotMatch(text, /outside every known procedure/);
    }),
});

Deno.test("fillerLength() reads the nop forms gcc pads with, and stops at code", async () => {
  const { fillerLength } = await import("../src/apps/analysis/uncovered_code.ts");
  const hex = (s: string) => new Uint8Array(s.split(" ").map((x) => parseInt(x, 16)));
  const padding = [
    "90",
    "66 90",
    "0f 1f 00",
    "0f 1f 40 00",
    "0f 1f 44 00 00",
    "66 0f 1f 44 00 00",
    "0f 1f 80 00 00 00 00",
    "0f 1f 84 00 00 00 00 00",
    "66 0f 1f 84 00 00 00 00 00",
    "66 2e 0f 1f 84 00 00 00 00 00",
    "66 66 2e 0f 1f 84 00 00 00 00 00",
    "cc cc 00 00",
  ];
  for (const p of padding) assert.equal(fillerLength(hex(p)), hex(p).length, p);
  // endbr64, then a lea: code.
  assert.equal(fillerLength(hex("90 f3 0f 1e fa 48 8d 3d 00 00 00 00")), 1);
  // 0f 1f with a non-zero reg field is not a nop.
  assert.equal(fillerLength(hex("0f 1f 48 00")), 0);
});
