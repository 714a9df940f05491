/**
 * The objdump provider: unavailable (and never started) unless the operator
 * policy and Deno both allow it; `auto` refuses to choose between two usable
 * providers; bound explicitly, it lists procedures from objdump itself and
 * reports every other analysis operation as unavailable.
 */

import assert from "node:assert/strict";
import { parseObjdumpSymbols } from "../src/apps/objdump_provider.ts";
import { connect, fails, type Loose, ok } from "./helpers/in_memory.ts";
import { hasProgram, run } from "./helpers/programs.ts";

const READY = hasProgram("objdump") && hasProgram("nm") && hasProgram("cc");
if (!READY) {
  console.log("skip: objdump, nm or cc is missing; the objdump provider tests are ignored");
}

async function compiled(): Promise<{ dir: string; path: string }> {
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "casefile-objdump-" }));
  await Deno.writeTextFile(
    `${dir}/prog.c`,
    '#include <stdio.h>\nstatic int helper(int x) { return x + 1; }\nint visible(int x) { return helper(x) * 2; }\nint main(void) { printf("%d\\n", visible(1)); return 0; }\n',
  );
  await run("cc", ["-O0", "-o", `${dir}/prog`, `${dir}/prog.c`]);
  return { dir, path: `${dir}/prog` };
}

async function nmFunctionAddresses(path: string): Promise<string[]> {
  const out = await run("nm", ["--defined-only", path]);
  return [
    ...new Set(
      out.split("\n").filter((l) => / [Tt] /.test(l)).map((l) =>
        `0x${BigInt(`0x${l.split(" ")[0]}`).toString(16)}`
      ),
    ),
  ]
    .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
}

Deno.test({
  name: "parseObjdumpSymbols() reads defined function symbols from objdump -t -T -w",
  ignore: !READY,
  fn: async () => {
    const { dir, path } = await compiled();
    try {
      const listing = parseObjdumpSymbols(await run("objdump", ["-t", "-T", "-w", path]));
      const byName = new Map(listing.names.map((n, i) => [n, listing.addresses[i]]));
      for (const name of ["main", "visible", "helper", "_start"]) assert.ok(byName.has(name), name);
      assert.ok(!byName.has("printf"), "undefined symbols are not listed");
      const nm = await nmFunctionAddresses(path);
      const ours = listing.addresses.map((a) => `0x${a.toString(16)}`);
      for (const address of ours) {
        assert.ok(nm.includes(address), `${address} is a text symbol in nm`);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "the objdump provider is unavailable by default and an explicit request never falls back",
  ignore: !READY,
  fn: async () => {
    const { dir, path } = await compiled();
    const { client, close } = await connect({ roots: [dir] });
    try {
      const refused = await fails(client, "open_binary", { path, provider_id: "objdump" });
      assert.equal(refused.code, "provider_unavailable");
      assert.match(refused.message, /--allow-process-launch/);
      assert.equal((await ok(client, "binary_session")).result.target, null, "nothing was opened");
      const opened = await ok(client, "open_binary", { path });
      assert.equal(opened.result.analysis_provider_binding.provider.id, "native");
    } finally {
      await close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "with process launch allowed, auto is ambiguous and an objdump binding lists objdump's procedures",
  ignore: !READY,
  fn: async () => {
    const { dir, path } = await compiled();
    const { client, close } = await connect({ roots: [dir], allowProcessLaunch: true });
    try {
      const status = (await ok(client, "binary_session")).result;
      assert.equal(status.analysis_provider_candidates[1].availability.status, "available");
      const ambiguous = await fails(client, "open_binary", { path });
      assert.equal(ambiguous.code, "provider_unavailable");
      assert.equal(ambiguous.details.reason, "ambiguous");
      const opened = await ok(client, "open_binary", { path, provider_id: "objdump" });
      assert.equal(opened.result.analysis_provider_binding.provider.id, "objdump");
      const page = await ok(client, "list_procedures", { limit: 500 });
      const names = page.result.items.map((i: Loose) => i.value);
      for (const name of ["main", "visible", "helper"]) assert.ok(names.includes(name), name);
      const record = JSON.parse(
        ((await client.readResource({ uri: page.evidence_uri })).contents[0] as Loose).text,
      );
      assert.equal(record.provider.id, "objdump");
      const unavailable = await fails(client, "analyze_function", { procedure: "main" });
      assert.equal(unavailable.code, "capability_unavailable");
      assert.match(unavailable.message, /objdump does not implement analyze_function/);
      // The file changes on disk: objdump would read other bytes, so the provider refuses.
      const fresh = await connect({ roots: [dir], allowProcessLaunch: true });
      try {
        await ok(fresh.client, "open_binary", { path, provider_id: "objdump" });
        const bytes = await Deno.readFile(path);
        bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
        await Deno.writeFile(path, bytes);
        const changed = await fails(fresh.client, "list_procedures");
        assert.equal(changed.code, "artifact_integrity_mismatch");
      } finally {
        await fresh.close();
      }
    } finally {
      await close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
