/**
 * The static-analysis tools through a real MCP client, on programs the test
 * compiles (so the expected structure is known) and on real third-party PE,
 * Mach-O and WebAssembly files.
 */

import assert from "node:assert/strict";
import { fails, type Loose, ok, withClient, withTempRoot } from "./helpers/in_memory.ts";
import { hasProgram, run } from "./helpers/programs.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";

const HAS_CC = hasProgram("cc");
const HAS_CXX = hasProgram("c++");

const C_SOURCE = `
#include <stdio.h>
#include <string.h>
__attribute__((noinline)) int leaf(int x) { return x * 7 + 1; }
__attribute__((noinline)) int middle(int x) { return leaf(x) + leaf(x + 1); }
__attribute__((noinline)) const char *uses_marker(int x) {
  static const char *marker = "CASEFILE-MARKER-7731";
  return x > 3 ? marker : "short";
}
__attribute__((noinline)) int prints(const char *s) { return puts(s); }
int main(int argc, char **argv) {
  (void)argv;
  int v = middle(argc);
  prints(uses_marker(v));
  return (int)strlen(uses_marker(argc));
}
`;

async function compileC(dir: string, name: string, flags: string[]): Promise<string> {
  await Deno.writeTextFile(`${dir}/prog.c`, C_SOURCE);
  await run("cc", [...flags, "-fno-inline", "-o", `${dir}/${name}`, `${dir}/prog.c`]);
  return `${dir}/${name}`;
}

Deno.test({
  name: "analysis tools follow a compiled program from a string to the procedures that use it",
  ignore: !HAS_CC,
  fn: async () => {
    await withTempRoot("casefile-analysis-", async ({ client, dir }) => {
      const path = await compileC(dir, "prog", ["-O1"]);
      await ok(client, "open_binary", { path });

      const overview = await ok(client, "binary_overview");
      assert.equal(overview.result.format, "elf");
      assert.equal(overview.result.disassembly, "x86_64");
      assert.ok(overview.result.string_count > 10);
      assert.ok(overview.result.libraries.some((l: string) => l.startsWith("libc.so")));

      const strings = await ok(client, "search_strings", { query: "casefile-marker" });
      assert.equal(strings.result.total, 1);
      const marker = strings.result.items[0];
      assert.equal(marker.value, "CASEFILE-MARKER-7731");
      assert.match(marker.address, /^0x[0-9a-f]+$/);
      const regex = await ok(client, "search_strings", {
        query: "^CASEFILE-[A-Z]+-\\d+$",
        mode: "regex",
        case_sensitive: true,
      });
      assert.equal(regex.result.total, 1);

      const found = await ok(client, "search_procedures", { query: "uses_mark" });
      assert.deepEqual(found.result.items.map((i: Loose) => i.name), ["uses_marker"]);
      const usesMarker = found.result.items[0].address;
      const addressOf = await ok(client, "procedure_address", { procedure: "middle" });
      assert.match(addressOf.result.address, /^0x/);

      const refs = await ok(client, "xrefs", { address: marker.address });
      assert.ok(
        refs.result.items.some((r: Loose) => r.procedure === usesMarker),
        JSON.stringify(refs.result),
      );
      assert.equal(refs.result.reference_scan.complete, true);

      const callers = await ok(client, "procedure_callers", { procedure: "leaf" });
      assert.deepEqual(callers.result.items.map((c: Loose) => c.name), ["middle"]);
      assert.equal(callers.result.items[0].call_sites.length, 2);

      const callees = await ok(client, "procedure_callees", { procedure: "main" });
      const calleeNames = callees.result.items.map((c: Loose) => c.name);
      for (const name of ["middle", "uses_marker", "prints"]) {
        assert.ok(calleeNames.includes(name), name);
      }
      const printsCallees = await ok(client, "procedure_callees", { procedure: "prints" });
      assert.ok(
        printsCallees.result.items.some((c: Loose) => c.kind === "import" && c.name === "puts") ||
          printsCallees.result.items.some((c: Loose) => c.name === "puts"),
        JSON.stringify(printsCallees.result),
      );

      const dossier = await ok(client, "analyze_function", {
        procedure: "uses_marker",
        include_assembly: true,
      });
      assert.ok(
        dossier.result.referenced_strings.items.some((s: Loose) =>
          s.value === "CASEFILE-MARKER-7731"
        ),
      );
      assert.ok(dossier.result.assembly.items.length > 0);
      assert.ok(dossier.result.basic_blocks.total >= 1);
      assert.equal(dossier.result.instruction_scan.truncated, false);
      assert.ok(dossier.result.callers.items.some((c: Loose) => c.name === "main"));
      const inside = BigInt(dossier.result.procedure.address) + 1n;
      const containing = await ok(client, "resolve_containing_procedure", {
        address: `0x${inside.toString(16)}`,
      });
      assert.equal(containing.result.procedure.name, "uses_marker");
      assert.equal(containing.result.procedure.offset, 1);

      const path1 = await ok(client, "build_call_path", { from: "main", to: "leaf" });
      assert.equal(path1.result.found, true);
      assert.deepEqual(path1.result.path.map((p: Loose) => p.name), ["main", "middle", "leaf"]);
      const none = await ok(client, "build_call_path", { from: "leaf", to: "main" });
      assert.equal(none.result.found, false);

      const trace = await ok(client, "trace_feature", { query: "CASEFILE-MARKER" });
      assert.equal(trace.result.string_hit_total, 1);
      assert.ok(trace.result.procedures.some((p: Loose) => p.name === "uses_marker" && p.dossier));

      const small = await ok(client, "analyze_function", {
        procedure: "main",
        max_instructions: 2,
      });
      assert.equal(small.result.instruction_scan.truncated, true);
      const record = JSON.parse(
        ((await client.readResource({ uri: small.evidence_uri })).contents[0] as Loose).text,
      );
      assert.ok(record.limitations.some((l: string) => /first 2 instructions/.test(l)));
    });
  },
});

Deno.test({
  name:
    "compare_functions tells equal, different and incomparable dossiers apart across two targets",
  ignore: !HAS_CC,
  fn: async () => {
    await withTempRoot("casefile-compare-", async ({ client, dir }) => {
      const a = await compileC(dir, "a", ["-O0"]);
      const b = await compileC(dir, "b", ["-O2"]);
      await ok(client, "open_binary", { path: a });
      const left = await ok(client, "analyze_function", { procedure: "middle" });
      const leftAgain = await ok(client, "analyze_function", {
        procedure: "middle",
        include_callers: false,
      });
      const leftSmall = await ok(client, "analyze_function", {
        procedure: "middle",
        max_instructions: 3,
      });
      await ok(client, "open_binary", { path: b });
      const right = await ok(client, "analyze_function", { procedure: "middle" });
      const same = await ok(client, "compare_functions", {
        left_evidence_id: left.evidence_id,
        right_evidence_id: leftAgain.evidence_id,
      });
      assert.equal(same.result.verdict, "equal-in-every-dimension");
      const different = await ok(client, "compare_functions", {
        left_evidence_id: left.evidence_id,
        right_evidence_id: right.evidence_id,
      });
      assert.equal(different.result.verdict, "different");
      assert.equal(
        different.result.dimensions.find((d: Loose) => d.name === "instruction_sequence").verdict,
        "different",
      );
      const mismatched = await fails(client, "compare_functions", {
        left_evidence_id: left.evidence_id,
        right_evidence_id: leftSmall.evidence_id,
      });
      assert.match(mismatched.message, /different limits/);
      const wrongKind = await fails(client, "compare_functions", {
        left_evidence_id: left.evidence_id,
        right_evidence_id: `ev_${"0".repeat(64)}`,
      });
      assert.match(wrongKind.message, /not retained/);
      const record = JSON.parse(
        ((await client.readResource({ uri: different.evidence_uri })).contents[0] as Loose).text,
      );
      assert.deepEqual(record.evidence_links, [left.evidence_id, right.evidence_id]);
      assert.equal(record.predicate_type, "rea.function-comparison/v1");
    });
  },
});

Deno.test({
  name: "search_procedures matches demangled C++ names and procedure_address accepts them",
  ignore: !HAS_CXX,
  fn: async () => {
    await withTempRoot("casefile-cxx-", async ({ client, dir }) => {
      await Deno.writeTextFile(
        `${dir}/prog.cc`,
        "namespace casefile { struct Probe { __attribute__((noinline)) int measure(int x) const { return x * 3; } }; }\n" +
          "int main(int argc, char**) { casefile::Probe p; return p.measure(argc); }\n",
      );
      await run("c++", ["-O1", "-o", `${dir}/prog`, `${dir}/prog.cc`]);
      await ok(client, "open_binary", { path: `${dir}/prog` });
      const found = await ok(client, "search_procedures", { query: "casefile::Probe::measure" });
      assert.equal(found.result.items.length, 1);
      assert.equal(found.result.items[0].demangled, "casefile::Probe::measure(int) const");
      assert.match(found.result.items[0].name, /^_ZNK8casefile5Probe7measureEi$/);
      const resolved = await ok(client, "procedure_address", {
        procedure: "casefile::Probe::measure(int) const",
      });
      assert.equal(resolved.result.address, found.result.items[0].address);
    });
  },
});

Deno.test({
  name:
    "search_procedures finds a procedure by every name nm lists at its address, aliases included",
  ignore: !HAS_CC || !hasProgram("nm"),
  fn: async () => {
    await withTempRoot("casefile-alias-", async ({ client, dir }) => {
      await Deno.writeTextFile(
        `${dir}/alias.c`,
        "__attribute__((noinline)) int casefile_target(int x) { return x * 7 + 1; }\n" +
          'int casefile_zz_alias(int x) __attribute__((alias("casefile_target")));\n' +
          'int casefile_aa_alias(int x) __attribute__((alias("casefile_target")));\n',
      );
      const path = `${dir}/libalias.so`;
      await run("cc", ["-O1", "-shared", "-fPIC", "-o", path, `${dir}/alias.c`]);
      // nm is the oracle: the names it lists at casefile_target's address.
      const listed = (await run("nm", ["--defined-only", path])).split("\n")
        .map((line) => line.split(" "))
        .filter((f) => f.length === 3 && /^[Tt]$/.test(f[1]!));
      const at = listed.find((f) => f[2] === "casefile_target")![0]!;
      const names = listed.filter((f) => f[0] === at).map((f) => f[2]!).sort();
      assert.ok(names.length >= 3, names.join(", "));
      await ok(client, "open_binary", { path });
      for (const name of names) {
        const found = await ok(client, "search_procedures", { query: name, case_sensitive: true });
        assert.deepEqual(
          found.result.items.map((i: Loose) => [i.address, i.name]),
          [[`0x${BigInt(`0x${at}`).toString(16)}`, name]],
          name,
        );
      }
    });
  },
});

Deno.test("analysis tools refuse bad queries and unknown procedures clearly", async () => {
  await withClient({ roots: ["/usr/bin"] }, async (client) => {
    await ok(client, "open_binary", { path: "/usr/bin/ls" });
    // Nested quantifiers are safe with the linear-time engine; backreferences it cannot run.
    await ok(client, "search_strings", { query: "(a+)+$", mode: "regex", limit: 1 });
    assert.match(
      (await fails(client, "search_strings", { query: "(a)\\1", mode: "regex" })).message,
      /backreference|not support/i,
    );
    assert.match(
      (await fails(client, "search_strings", { query: "[unclosed", mode: "regex" })).message,
      /Invalid regular expression/,
    );
    assert.match(
      (await fails(client, "analyze_function", { procedure: "no_such_function_here" })).message,
      /No procedure is named/,
    );
    assert.match(
      (await fails(client, "xrefs", { address: "not-an-address" })).message,
      /Invalid arguments/,
    );
    assert.match(
      (await fails(client, "search_strings", { query: "x", limit: 101 })).message,
      /Invalid arguments/,
    );
    const status = await ok(client, "binary_session");
    assert.equal(status.result.target.name, "ls");
  });
});

const REAL_PE = await npmFixture("7zip-bin@5.2.0", "win/x64/7za.exe");
const REAL_MACHO = await npmFixture("7zip-bin@5.2.0", "mac/arm64/7za");
const REAL_WASM = await npmFixture("gecko-profiler-demangle@0.4.0", "index_bg.wasm");

Deno.test({
  name: "analysis tools work on real PE, Mach-O and WebAssembly files",
  ignore: REAL_PE === null && REAL_MACHO === null && REAL_WASM === null,
}, async () => {
  const [pe, macho, wasm] = [REAL_PE, REAL_MACHO, REAL_WASM];
  const roots = [pe, macho, wasm].filter((p): p is string => p !== null).map((p) =>
    p.replace(/\/[^/]+$/, "")
  );
  await withClient({ roots }, async (client) => {
    if (pe) {
      const opened = await ok(client, "open_binary", { path: pe });
      assert.equal(opened.result.target.format, "pe");
      assert.equal(opened.result.target.architecture, "x86_64");
      const overview = await ok(client, "binary_overview");
      assert.ok(overview.result.procedures_by_source.pdata > 100);
      const entry = await ok(client, "resolve_containing_procedure", {
        address: opened.result.target.entry,
      });
      assert.ok(entry.result.procedure);
      const dossier = await ok(client, "analyze_function", {
        procedure: entry.result.procedure.address,
        include_callers: false,
      });
      assert.ok(dossier.result.instruction_scan.scanned > 0);
    }
    if (macho) {
      const opened = await ok(client, "open_binary", { path: macho });
      assert.equal(opened.result.target.format, "mach-o");
      assert.equal(opened.result.target.architecture, "arm64");
      const list = await ok(client, "list_procedures", { limit: 5 });
      const first = list.result.items.find((i: Loose) => i.address);
      const dossier = await ok(client, "analyze_function", {
        procedure: first.address,
        include_callers: false,
      });
      assert.ok(dossier.result.instruction_scan.scanned > 0);
    }
    if (wasm) {
      const opened = await ok(client, "open_binary", { path: wasm });
      assert.equal(opened.result.target.format, "wasm");
      const list = await ok(client, "list_procedures", { limit: 3 });
      assert.ok(list.result.total > 10);
      const dossier = await ok(client, "analyze_function", {
        procedure: list.result.items[0].address,
      });
      assert.ok(dossier.result.instruction_scan.scanned > 0);
      assert.equal(dossier.result.assembly, null);
      const strings = await ok(client, "search_strings", { query: "demangle" });
      assert.ok(strings.result.total >= 0);
    }
  });
});

Deno.test("analysis Evidence carries the native provider's analysis profile, as binary_session reports it", async () => {
  await withClient({ roots: ["/usr/bin"] }, async (client) => {
    const opened = await ok(client, "open_binary", { path: "/usr/bin/ls" });
    const profile = opened.result.analysis_provider_binding.analysis_profile;
    assert.equal(profile.provider.id, "native");
    const overview = await ok(client, "binary_overview", {});
    const record = JSON.parse(
      ((await client.readResource({ uri: overview.evidence_uri })).contents[0] as Loose).text,
    );
    assert.deepEqual(record.analysis_profile, profile);
    assert.deepEqual(record.analysis_profile.provider, record.provider);
    // The profile names what shapes the answers, as the build pins it.
    const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
    assert.equal(
      `npm:${profile.parameters.demangler}`,
      config.imports["gecko-profiler-demangle"],
    );
    const vendored = await Deno.readTextFile(
      new URL("../src/_vendor/capstone/capstone_wasm.ts", import.meta.url),
    );
    const from = /from (@alexaltea\/capstone-js@[\d.]+)/.exec(vendored)![1]!;
    assert.ok(profile.parameters.machine_code.includes(from), profile.parameters.machine_code);
    assert.equal(profile.parameters.reference_index.max_instructions, 4_000_000);
  });
});

Deno.test({
  name:
    "analyze_function names an import called through its GOT slot (-fno-plt) as it does through the PLT",
  ignore: !HAS_CC || !hasProgram("objdump"),
  fn: async () => {
    await withTempRoot("casefile-objdump-", async ({ client, dir }) => {
      const plt = await compileC(dir, "plt", ["-O1"]);
      const got = await compileC(dir, "got", ["-O1", "-fno-plt"]);
      // At -O2 the call becomes a tail jump through the slot.
      const tail = await compileC(dir, "tail", ["-O2", "-fno-plt"]);
      // The peer: objdump shows the -fno-plt build calling through memory, not a stub.
      const listing = await run("objdump", ["-d", "--no-show-raw-insn", got]);
      const prints = listing.slice(listing.indexOf("<prints>:"));
      assert.match(prints.slice(0, prints.indexOf("\n\n")), /(call|jmp)\s+\*0x[0-9a-f]+\(%rip\)/);
      const tailListing = await run("objdump", ["-d", "--no-show-raw-insn", tail]);
      const tailPrints = tailListing.slice(tailListing.indexOf("<prints>:"));
      assert.match(tailPrints.slice(0, tailPrints.indexOf("\n\n")), /jmp\s+\*0x[0-9a-f]+\(%rip\)/);
      for (const path of [plt, got, tail]) {
        await ok(client, "open_binary", { path });
        const dossier = await ok(client, "analyze_function", {
          procedure: "prints",
          include_callers: false,
        });
        const tails = dossier.result.tail_jumps.items.map((t: Loose) => t.name);
        const callees = dossier.result.callees.items.map((c: Loose) => [c.name, c.kind]);
        const indirect = dossier.result.indirect_call_sites.total;
        // puts is reached by a call or a tail jump; through the GOT it is still the import.
        assert.ok(
          callees.some(([name, kind]: string[]) => name === "puts" && kind === "import") ||
            tails.includes("puts"),
          `${path}: ${JSON.stringify({ callees, tails, indirect })}`,
        );
      }
    });
  },
});
