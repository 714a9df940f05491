/**
 * A shared library's call through its own PLT stub to a function it exports
 * itself is listed as that function, and the callee list says that the
 * dynamic loader could bind it elsewhere (symbol interposition). Checked on
 * the machine's libstdc++ against objdump: every `call` or `jmp` to
 * `<name@plt>` whose name the library defines (`nm -D --defined-only`) is
 * counted, for a procedure objdump shows making such calls.
 */

import assert from "node:assert/strict";
import { hasProgram, run } from "./helpers/programs.ts";
import { firstFile } from "./helpers/system_files.ts";
import { connect, ok } from "./helpers/in_memory.ts";

const LIBSTDCXX = firstFile([
  "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
  "/usr/lib/aarch64-linux-gnu/libstdc++.so.6",
]);
const READY = LIBSTDCXX !== undefined && hasProgram("objdump") && hasProgram("nm");
if (!READY) console.log("skip: libstdc++, objdump or nm is missing");

Deno.test({
  name:
    "callees through a library's own PLT stubs are its own functions, and said to be interposable",
  ignore: !READY,
  fn: async () => {
    const path = Deno.realPathSync(LIBSTDCXX!);
    const own = new Set(
      (await run("nm", ["-D", "--defined-only", path])).split("\n")
        .map((line) => /^[0-9a-f]+ [TWi] (\S+?)(?:@.*)?$/.exec(line)?.[1])
        .filter((name) => name !== undefined),
    );
    // Every call or jump objdump decodes to a stub of one of the library's own functions, by site.
    const listing = await run("objdump", ["-d", "-w", "--no-show-raw-insn", path]);
    const ownStubSites = new Set<string>();
    /** Those that are jumps (tail calls). */
    const jumps = new Set<string>();
    for (const line of listing.split("\n")) {
      const call = /^\s+([0-9a-f]+):\s+(call|jmp)\s+[0-9a-f]+ <([^>@]+)@plt>$/.exec(line);
      if (!call || !own.has(call[3]!)) continue;
      const site = `0x${BigInt(`0x${call[1]}`).toString(16)}`;
      ownStubSites.add(site);
      if (call[2] === "jmp") jumps.add(site);
    }
    assert.ok(ownStubSites.size > 100, `${ownStubSites.size} sites through libstdc++'s own stubs`);
    const dir = path.slice(0, path.lastIndexOf("/"));
    const { client, close } = await connect({ roots: [dir] });
    try {
      await ok(client, "open_binary", { path });
      // Procedures holding such sites: those of the first sites, one per procedure.
      const checked = new Set<string>();
      // A procedure that tail-calls through such a stub first, then ones that call through one.
      let tailCalling = 0;
      for (const site of [...[...jumps].slice(0, 20), ...[...ownStubSites].slice(0, 40)]) {
        const where = await ok(client, "resolve_containing_procedure", { address: site });
        const address = (where.result as { procedure: { address: string } | null }).procedure
          ?.address;
        if (address === undefined || checked.has(address) || checked.size === 3) continue;
        // The procedure's own instructions, as we decode them; objdump's sites among them.
        const dossier = await ok(client, "analyze_function", {
          procedure: address,
          include_assembly: true,
          include_callers: false,
          limit: 500,
          max_instructions: 5_000,
        });
        const assembly = dossier.result.assembly as { items: { address: string }[]; total: number };
        // Only procedures whose whole listing fits one page are compared.
        if (assembly.items.length !== assembly.total) continue;
        checked.add(address);
        const ours = assembly.items.map((i) => i.address);
        const count = ours.filter((a) => ownStubSites.has(a)).length;
        if (ours.some((a) => jumps.has(a))) tailCalling++;
        const result = await ok(client, "procedure_callees", { procedure: address });
        const record = JSON.parse(
          ((await client.readResource({ uri: result.evidence_uri })).contents[0] as {
            text: string;
          }).text,
        );
        const note = (record.limitations as string[]).find((l) => l.includes("own PLT stubs"));
        assert.ok(note, `${address}: ${JSON.stringify(record.limitations)}`);
        assert.equal(Number(/^(\d+) /.exec(note)![1]), count, `${address}: ${note}`);
        // The items name the functions, never the stubs.
        for (const item of result.result.items as { name: string }[]) {
          assert.ok(!item.name.endsWith("@plt"), item.name);
        }
      }
      assert.equal(checked.size, 3, "three procedures with such sites were checked");
      assert.ok(tailCalling > 0, "one of them tail-calls through such a stub");
    } finally {
      await close();
    }
  },
});
