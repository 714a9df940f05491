/**
 * `build_call_path` marks a step reached by a tail jump: a program compiled
 * here with `cc -O2`, whose listing (`objdump -d`) shows `jmp`s to other
 * functions' starts and one to an import's PLT stub, and the path's steps
 * each say what objdump shows between them (`call`, else a tail `jmp`).
 */

import assert from "node:assert/strict";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";

const READY = ["cc", "objdump"].every((p) => hasProgram(p)) && Deno.build.arch === "x86_64";
if (!READY) console.log("apps_call_path_tail_test: needs cc and objdump on x86-64: skipped");

/** `mid` and `release` end in tail calls (to `leaf`, and to the import `free`). */
const SOURCE = `
#include <stdlib.h>
__attribute__((noinline, noclone)) int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline, noclone)) int mid(int x) { return leaf(x + 2); }
__attribute__((noinline, noclone)) int top(int x) { return mid(x) * 5; }
__attribute__((noinline, noclone)) void release(void *p) { free(p); }
int main(int c, char **v) {
  release(v[c]);
  return top(c);
}
`;

/** The direct `call` and `jmp` instructions of each function objdump lists: target names. */
async function branchesOf(path: string): Promise<Map<string, { mnemonic: string; to: string }[]>> {
  const branches = new Map<string, { mnemonic: string; to: string }[]>();
  let current: { mnemonic: string; to: string }[] = [];
  for (const line of (await run("objdump", ["-d", "--no-show-raw-insn", path])).split("\n")) {
    const header = /^[0-9a-f]+ <(.+)>:$/.exec(line);
    if (header) branches.set(header[1]!, current = []);
    const branch = /^\s+[0-9a-f]+:\s+(call|jmp)\s+[0-9a-f]+ <([^>+]+)>$/.exec(line);
    if (branch) current.push({ mnemonic: branch[1]!, to: branch[2]!.replace(/@plt$/, "") });
  }
  return branches;
}

Deno.test({
  name: "build_call_path marks each step a tail jump reaches, as objdump shows the jmp",
  ignore: !READY,
  fn: async () => {
    await withTempRoot("casefile-tail-path-", async ({ client, dir }) => {
      await Deno.writeTextFile(`${dir}/tail.c`, SOURCE);
      const path = `${dir}/tail`;
      await run("cc", ["-O2", "-o", path, `${dir}/tail.c`]);
      const branches = await branchesOf(path);
      await ok(client, "open_binary", { path });
      for (const [from, to] of [["main", "leaf"], ["main", "free"]]) {
        const found: Loose = (await ok(client, "build_call_path", { from, to })).result;
        assert.equal(found.found, true, `${from} -> ${to}`);
        const steps: Loose[] = found.path;
        let tails = 0;
        assert.equal(steps[0].name, from);
        assert.equal(steps[0].via, undefined, "the first step has no via");
        for (let k = 1; k < steps.length; k++) {
          const [before, step] = [steps[k - 1].name, steps[k].name];
          // What objdump shows `before` doing to `step`: a call, else a jmp to its start.
          const kinds = (branches.get(before) ?? []).filter((b) => b.to === step)
            .map((b) => b.mnemonic);
          assert.ok(kinds.length > 0, `objdump shows no call or jmp from ${before} to ${step}`);
          const expected = kinds.includes("call") ? "call" : "tail-jump";
          assert.equal(steps[k].via, expected, `${before} -> ${step}`);
          if (expected === "tail-jump") tails++;
        }
        // The point of the test: each path takes a tail call (objdump shows a jmp).
        assert.ok(tails > 0, `${from} -> ${to}: ${JSON.stringify(steps)}`);
      }
    });
  },
});
