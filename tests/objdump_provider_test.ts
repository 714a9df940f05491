/**
 * The objdump provider: unavailable (and never started) unless the operator
 * policy and Deno both allow it; `auto` refuses to choose between two usable
 * providers; bound explicitly, it lists, finds and resolves procedures from
 * objdump's symbol tables, builds dossiers and callee lists from objdump's
 * disassembly (checked against objdump run by the test and against the
 * native provider), and reports the operations it does not offer as
 * unavailable.
 */

import assert from "node:assert/strict";
import { parseObjdumpSymbols } from "../src/apps/providers/objdump.ts";
import { versionedExportNames } from "../src/apps/formats/binary_image.ts";
import { connect, fails, type Loose, ok } from "./helpers/in_memory.ts";
import { hasProgram, run } from "./helpers/programs.ts";
import { findLibc, isFile } from "./helpers/system_files.ts";

const READY = hasProgram("objdump") && hasProgram("nm") && hasProgram("cc");
if (!READY) {
  console.log("skip: objdump, nm or cc is missing; the objdump provider tests are ignored");
}

const PROGRAM = `#include <stdio.h>
#include <string.h>
static int helper(int x) { return x + 1; }
int visible(int x) {
  int sum = 0;
  for (int i = 0; i < x; i++) sum += helper(i);
  return sum * 2;
}
int main(int argc, char **argv) {
  printf("%d\\n", visible(argc));
  return (int)strlen(argv[0]);
}
`;

async function compiled(): Promise<{ dir: string; path: string }> {
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "casefile-objdump-" }));
  await Deno.writeTextFile(
    `${dir}/prog.c`,
    PROGRAM,
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
      // Nothing has run objdump yet: its version, and so its profile, are unknown.
      assert.equal(opened.result.analysis_provider_binding.analysis_profile, null);
      const page = await ok(client, "list_procedures", { limit: 500 });
      const names = page.result.items.map((i: Loose) => i.value);
      for (const name of ["main", "visible", "helper"]) assert.ok(names.includes(name), name);
      const record = JSON.parse(
        ((await client.readResource({ uri: page.evidence_uri })).contents[0] as Loose).text,
      );
      assert.equal(record.provider.id, "objdump");
      // Its version, learnt from objdump itself, names the provider and its analysis profile.
      const version = /(\d+\.\d+(?:\.\d+)*)\s*$/.exec(
        (await run("objdump", ["--version"])).split("\n")[0]!,
      )![1];
      assert.equal(record.provider.version, version);
      assert.equal(record.analysis_profile.provider.version, version);
      assert.deepEqual(record.analysis_profile.parameters.symbols_and_sections, [
        "-h",
        "-t",
        "-T",
        "-w",
      ]);
      const bound = (await ok(client, "binary_session")).result.analysis_provider_binding;
      assert.equal(bound.analysis_profile.digest, record.analysis_profile.digest);
      const unavailable = await fails(client, "xrefs", { address: "0x1000" });
      assert.equal(unavailable.code, "capability_unavailable");
      assert.match(unavailable.message, /objdump does not implement xrefs/);
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

/** One instruction line of objdump run by the test itself. */
interface DirectLine {
  address: string;
  text: string;
}

/** Runs objdump on a range as the provider documents it, and keeps the instruction lines. */
async function objdumpDirect(path: string, start: string, end: string): Promise<DirectLine[]> {
  const out = await run("objdump", [
    "-d",
    "-z",
    "-w",
    "-M",
    "intel",
    `--start-address=${start}`,
    `--stop-address=${end}`,
    path,
  ]);
  const lines: DirectLine[] = [];
  for (const line of out.split("\n")) {
    const m = /^\s*([0-9a-f]+):\t[0-9a-f ]+\t(.*)$/.exec(line);
    if (m) lines.push({ address: `0x${m[1]}`, text: m[2]!.trim() });
  }
  return lines;
}

/** Direct call targets objdump printed (`call ADDR <sym>`), as 0x addresses. */
function directCallTargets(lines: DirectLine[]): string[] {
  const targets = new Set<string>();
  for (const { text } of lines) {
    const m = /^call\s+([0-9a-f]+) </.exec(text);
    if (m) targets.add(`0x${m[1]}`);
  }
  return [...targets].sort();
}

/** Symbol sizes and addresses from objdump -t -T run by the test. */
async function objdumpSymbols(
  path: string,
): Promise<Map<string, { address: string; size: number }>> {
  const out = await run("objdump", ["-t", "-T", "-w", path]);
  const symbols = new Map<string, { address: string; size: number }>();
  for (const line of out.split("\n")) {
    const m = /^([0-9a-f]{16}) .{7} (\S+)\s+([0-9a-f]+)\s+(?:\S+\s+)?(\S+)$/.exec(line);
    if (!m || m[2] === "*UND*" || !/F/.test(line.slice(17, 24))) continue;
    symbols.set(m[4]!, {
      address: `0x${BigInt(`0x${m[1]}`).toString(16)}`,
      size: parseInt(m[3]!, 16),
    });
  }
  return symbols;
}

async function evidenceOf(client: Loose, outcome: Loose): Promise<Loose> {
  return JSON.parse(
    ((await client.readResource({ uri: outcome.evidence_uri })).contents[0] as Loose).text,
  );
}

Deno.test({
  name:
    "an objdump binding finds, resolves and analyses procedures from objdump's own output, agreeing with objdump and with the native provider",
  ignore: !READY,
  fn: async () => {
    const { dir, path } = await compiled();
    const bound = await connect({ roots: [dir], allowProcessLaunch: true });
    const native = await connect({ roots: [dir] });
    try {
      await ok(bound.client, "open_binary", { path, provider_id: "objdump" });
      await ok(native.client, "open_binary", { path });
      const symbols = await objdumpSymbols(path);

      const found = await ok(bound.client, "search_procedures", { query: "VISI" });
      assert.deepEqual(found.result.items.map((i: Loose) => i.name), ["visible"]);
      assert.equal(found.result.items[0].size, symbols.get("visible")!.size);
      assert.equal((await evidenceOf(bound.client, found)).provider.id, "objdump");

      for (const name of ["main", "visible", "helper"]) {
        const symbol = symbols.get(name)!;
        const where = await ok(bound.client, "procedure_address", { procedure: name });
        assert.equal(where.result.address, symbol.address, name);
        assert.equal(where.result.size, symbol.size, `${name}: the size is objdump's`);
        assert.equal((await evidenceOf(bound.client, where)).provider.id, "objdump");
        const nativeWhere = await ok(native.client, "procedure_address", { procedure: name });
        assert.equal(nativeWhere.result.address, where.result.address);

        const end = `0x${(BigInt(symbol.address) + BigInt(symbol.size)).toString(16)}`;
        const direct = await objdumpDirect(path, symbol.address, end);
        const dossier = await ok(bound.client, "analyze_function", {
          procedure: name,
          include_assembly: true,
          limit: 500,
        });
        const d = dossier.result;
        const record = await evidenceOf(bound.client, dossier);
        assert.equal(record.provider.id, "objdump", `${name}: the observation is objdump's`);
        assert.equal(d.procedure.end, end);
        assert.equal(d.procedure.extent, "symbol-size");
        assert.equal(d.fingerprint.instruction_count, direct.length, `${name}: objdump's count`);
        assert.deepEqual(
          d.assembly.items.map((i: Loose) => i.address),
          direct.map((l) => l.address),
        );
        assert.equal(d.instruction_scan.truncated, false);
        assert.deepEqual(
          d.callees.items.map((c: Loose) => c.address).sort(),
          directCallTargets(direct),
          `${name}: the callees are objdump's call targets`,
        );
        assert.equal(d.callers, null, "callers are not claimed");
        assert.equal(d.referenced_strings, null, "strings are not claimed");
        assert.ok(record.limitations.some((l: string) => /Callers .* not computed/.test(l)));

        // The same function under the native provider: same count, callees and blocks.
        const n = (await ok(native.client, "analyze_function", { procedure: name, limit: 500 }))
          .result;
        assert.equal(d.fingerprint.instruction_count, n.fingerprint.instruction_count, name);
        assert.deepEqual(
          d.callees.items.map((c: Loose) => [c.address, c.name, c.kind]),
          n.callees.items.map((c: Loose) => [c.address, c.name, c.kind]),
          `${name}: the same direct callees`,
        );
        assert.equal(d.basic_blocks.total, n.basic_blocks.total, `${name}: the same blocks`);
        assert.equal(d.instruction_scan.bytes, symbol.size);

        const callees = await ok(bound.client, "procedure_callees", { procedure: name });
        assert.equal((await evidenceOf(bound.client, callees)).provider.id, "objdump");
        const nativeCallees = await ok(native.client, "procedure_callees", { procedure: name });
        assert.deepEqual(
          callees.result.items.map((c: Loose) => c.name),
          nativeCallees.result.items.map((c: Loose) => c.name),
        );
      }
      const mainCallees = await ok(bound.client, "procedure_callees", { procedure: "main" });
      assert.deepEqual(
        mainCallees.result.items.map((c: Loose) => `${c.kind}:${c.name}`).sort(),
        ["import:printf", "import:strlen", "procedure:visible"],
      );
      const loop = await ok(bound.client, "analyze_function", { procedure: "visible" });
      assert.ok(loop.result.basic_blocks.total >= 3, "the loop gives visible several blocks");

      const inside = `0x${(BigInt(symbols.get("visible")!.address) + 5n).toString(16)}`;
      const containing = await ok(bound.client, "resolve_containing_procedure", {
        address: inside,
      });
      assert.equal(containing.result.procedure.name, "visible");
      assert.equal(containing.result.procedure.offset, 5);
      assert.equal(containing.result.procedure.bounded_by, "size");
      assert.equal(containing.result.section, ".text");
      assert.equal((await evidenceOf(bound.client, containing)).provider.id, "objdump");

      // The instruction cap stops objdump's listing and says so.
      const capped = await ok(bound.client, "analyze_function", {
        procedure: "main",
        max_instructions: 3,
        include_assembly: true,
      });
      assert.equal(capped.result.instruction_scan.truncated, true);
      assert.equal(capped.result.instruction_scan.scanned, 3);
      assert.equal(capped.result.assembly.items.length, 3);
      assert.ok(
        (await evidenceOf(bound.client, capped)).limitations.some((l: string) =>
          /first 3 instructions/.test(l)
        ),
      );

      // Operations objdump does not offer stay unavailable.
      for (
        const [tool, args] of [
          ["search_strings", { query: "%d" }],
          ["xrefs", { address: inside }],
          ["procedure_callers", { procedure: "helper" }],
          ["build_call_path", { from: "main", to: "helper" }],
          ["trace_feature", { query: "visible" }],
          ["binary_overview", {}],
        ] as const
      ) {
        const refused = await fails(bound.client, tool, args);
        assert.equal(refused.code, "capability_unavailable", tool);
        assert.match(refused.message, new RegExp(`objdump does not implement ${tool}`));
      }
      const unknown = await fails(bound.client, "analyze_function", { procedure: "no_such" });
      assert.equal(unknown.code, "invalid_request");
      const notStart = await fails(bound.client, "analyze_function", { procedure: inside });
      assert.match(notStart.message, /inside procedure .* visible/);

      // compare_functions across providers: counts and callees compare, mnemonic spelling and
      // what objdump does not report stay unknown.
      const fromObjdump = await ok(bound.client, "analyze_function", { procedure: "main" });
      await ok(bound.client, "open_binary", { path, provider_id: "native" });
      const fromNative = await ok(bound.client, "analyze_function", { procedure: "main" });
      const compared = await ok(bound.client, "compare_functions", {
        left_evidence_id: fromObjdump.evidence_id,
        right_evidence_id: fromNative.evidence_id,
      });
      const verdicts = Object.fromEntries(
        compared.result.dimensions.map((d: Loose) => [d.name, d.verdict]),
      );
      assert.equal(verdicts.instruction_count, "equal");
      assert.equal(verdicts.callees, "equal");
      assert.equal(verdicts.basic_blocks, "equal");
      assert.equal(verdicts.instruction_sequence, "unknown");
      assert.equal(verdicts.referenced_strings, "unknown");
    } finally {
      await bound.close();
      await native.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "an objdump binding of a stripped binary knows only dynamic symbols and says so; sizeless ranges are bounded",
  ignore: !READY,
  fn: async () => {
    const { dir, path } = await compiled();
    const stripped = `${dir}/stripped`;
    await run("cc", ["-O0", "-s", "-rdynamic", "-o", stripped, `${dir}/prog.c`]);
    const { client, close } = await connect({ roots: [dir], allowProcessLaunch: true });
    try {
      await ok(client, "open_binary", { path: stripped, provider_id: "objdump" });
      const missing = await fails(client, "procedure_address", { procedure: "helper" });
      assert.equal(missing.code, "invalid_request", "a static function is gone once stripped");
      const exported = await ok(client, "procedure_address", { procedure: "visible" });
      const record = await evidenceOf(client, exported);
      assert.ok(record.limitations.some((l: string) => /stripped/.test(l)));
      const dossier = await ok(client, "analyze_function", { procedure: "visible" });
      assert.equal(dossier.result.callees.items.length, 1);
      assert.equal(dossier.result.callees.items[0].kind, "unknown", "helper has no name here");
      assert.ok(dossier.result.instruction_scan.scanned > 5);

      // _fini has no size and no later symbol: the range is byte-capped, and objdump's
      // listing ends with its section, which the dossier says.
      await ok(client, "open_binary", { path, provider_id: "objdump" });
      const fini = await ok(client, "analyze_function", { procedure: "_fini" });
      assert.equal(fini.result.procedure.size, null);
      assert.equal(fini.result.procedure.extent, "byte-cap");
      const start = fini.result.procedure.address;
      const direct = await objdumpDirect(path, start, fini.result.procedure.end);
      assert.equal(fini.result.fingerprint.instruction_count, direct.length);
      const limitations = (await evidenceOf(client, fini)).limitations;
      assert.ok(limitations.some((l: string) => /no size in objdump's symbol table/.test(l)));
      assert.ok(limitations.some((l: string) => /listing ends at/.test(l)));
    } finally {
      await close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const LS = "/usr/bin/ls";

Deno.test({
  name:
    "an objdump binding of /usr/bin/ls agrees with objdump and with the native provider on its exported functions",
  ignore: !READY || !isFile(LS),
  fn: async () => {
    const symbols = await objdumpSymbols(LS);
    const sample = [...symbols].filter(([, s]) => s.size > 0).slice(0, 8);
    assert.ok(sample.length > 0, "/usr/bin/ls exports no sized function symbols to compare");
    const bound = await connect({ roots: ["/usr/bin"], allowProcessLaunch: true });
    const native = await connect({ roots: ["/usr/bin"] });
    try {
      await ok(bound.client, "open_binary", { path: LS, provider_id: "objdump" });
      await ok(native.client, "open_binary", { path: LS });
      for (const [name, symbol] of sample) {
        const end = `0x${(BigInt(symbol.address) + BigInt(symbol.size)).toString(16)}`;
        const direct = await objdumpDirect(LS, symbol.address, end);
        const d = (await ok(bound.client, "analyze_function", {
          procedure: symbol.address,
          limit: 500,
          max_instructions: 5000,
        })).result;
        assert.equal(d.procedure.name, name);
        assert.equal(d.fingerprint.instruction_count, direct.length, name);
        assert.deepEqual(
          d.callees.items.filter((c: Loose) => /@plt$|^[^@]*$/.test(c.annotation))
            .map((c: Loose) => c.address).sort(),
          directCallTargets(direct),
          `${name}: the direct callees are objdump's call targets`,
        );
        const n = (await ok(native.client, "analyze_function", {
          procedure: symbol.address,
          limit: 500,
          max_instructions: 5000,
          include_callers: false,
        })).result;
        assert.equal(d.fingerprint.instruction_count, n.fingerprint.instruction_count, name);
        assert.deepEqual(
          d.callees.items.map((c: Loose) => [c.address, c.name, c.kind]),
          n.callees.items.map((c: Loose) => [c.address, c.name, c.kind]),
          `${name}: the same callees`,
        );
        assert.deepEqual(d.indirect_call_sites.items, n.indirect_call_sites.items, name);
        assert.equal(d.basic_blocks.total, n.basic_blocks.total, name);
      }
    } finally {
      await bound.close();
      await native.close();
    }
  },
});

Deno.test({
  name:
    "an objdump binding does not call main a leaf when max_instructions stopped the listing before objdump's first call",
  ignore: !READY,
  fn: async () => {
    const { dir, path } = await compiled();
    const { client, close } = await connect({ roots: [dir], allowProcessLaunch: true });
    try {
      await ok(client, "open_binary", { path, provider_id: "objdump" });
      const main = (await objdumpSymbols(path)).get("main")!;
      const end = `0x${(BigInt(main.address) + BigInt(main.size)).toString(16)}`;
      const lines = await objdumpDirect(path, main.address, end);
      const firstCall = lines.findIndex(({ text }) => /^call\s/.test(text));
      assert.ok(firstCall > 0, "objdump lists no call after main's first instruction");
      const before = (await ok(client, "analyze_function", {
        procedure: main.address,
        max_instructions: firstCall,
      })).result;
      assert.equal(before.instruction_scan.truncated, true);
      assert.equal(before.procedure.classification, null);
      const through = (await ok(client, "analyze_function", {
        procedure: main.address,
        max_instructions: firstCall + 1,
      })).result;
      assert.equal(through.procedure.classification, "non-leaf");
    } finally {
      await close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const LIBC = findLibc();

Deno.test({
  name:
    "an objdump binding of libc names versioned symbols as nm -D spells them, at nm's addresses",
  ignore: !READY || LIBC === null,
  fn: async () => {
    // nm -D's defined functions with a version: name@@VERSION (default) or name@VERSION.
    const spellings = new Map<string, string>();
    const plain = new Map<string, Set<string>>();
    for (const line of (await run("nm", ["-D", "--defined-only", LIBC!])).split("\n")) {
      const m = /^([0-9a-f]+) [TWi] (\S+@\S+)$/.exec(line);
      if (!m) continue;
      const address = `0x${BigInt(`0x${m[1]}`).toString(16)}`;
      spellings.set(m[2]!, address);
      const name = m[2]!.slice(0, m[2]!.indexOf("@"));
      plain.set(name, (plain.get(name) ?? new Set()).add(address));
    }
    // Every spelling of a name at several addresses (memcpy@@GLIBC_2.14, memcpy@GLIBC_2.2.5, …),
    // and a stride of the rest.
    const shared = [...spellings.keys()].filter((s) =>
      plain.get(s.slice(0, s.indexOf("@")))!.size > 1
    );
    const sample = [...shared, ...[...spellings.keys()].filter((_, k) => k % 97 === 0)];
    assert.ok(shared.length >= 4, `${shared.length} spellings of shared names`);
    const dir = LIBC!.slice(0, LIBC!.lastIndexOf("/"));
    const { client, close } = await connect({ roots: [dir], allowProcessLaunch: true });
    try {
      await ok(client, "open_binary", { path: LIBC!, provider_id: "objdump" });
      for (const spelling of sample) {
        const found = (await ok(client, "procedure_address", { procedure: spelling })).result;
        assert.equal(found.address, spellings.get(spelling), spelling);
      }
      // A name at several addresses is refused, with the spellings that tell them apart.
      const name = shared[0]!.slice(0, shared[0]!.indexOf("@"));
      const refused = await fails(client, "procedure_address", { procedure: name });
      for (const spelling of shared.filter((s) => s.startsWith(`${name}@`))) {
        assert.ok(refused.message.includes(spelling), `${refused.message} names ${spelling}`);
      }
    } finally {
      await close();
    }
  },
});

Deno.test({
  name:
    "parseObjdumpSymbols() gives each dynamic function the version nm -D writes (none for Base)",
  ignore: !READY || LIBC === null,
  fn: async () => {
    const libz = [`${LIBC!.slice(0, LIBC!.lastIndexOf("/"))}/libz.so.1`].filter(isFile);
    for (const path of [LIBC!, ...libz]) {
      const listing = parseObjdumpSymbols(await run("objdump", ["-T", "-w", path]));
      const ours = listing.exports.map((e, i) =>
        `${e.address!.toString(16)} ${versionedExportNames(listing, i).join(" ")}`
      ).sort();
      const nm = (await run("nm", ["-D", "--defined-only", path])).split("\n")
        .map((line) => /^0*([0-9a-f]+) [TWi] (\S+)$/.exec(line))
        .filter((m) => m !== null).map((m) => `${m![1]} ${m![2]}`).sort();
      assert.deepEqual(ours, nm, path);
    }
  },
});
