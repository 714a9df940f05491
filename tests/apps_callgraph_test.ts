/**
 * The call and reference graph on real inputs, with objdump and readelf as
 * the oracle: calls through a library's own PLT stubs and GOT slots reach the
 * defined function, imports are targets of callers and call paths, and the
 * reference scan is complete only when every call form was resolved.
 */

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { type Loose, ok, withClient, withTempRoot } from "./helpers/in_memory.ts";
import { hasProgram, run } from "./helpers/programs.ts";
import { haveJqFixtures, OLD } from "./helpers/jq_fixtures.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { peerStartupCallees, peerStartupFunctions } from "./helpers/elf_startup.ts";
import { readerFor } from "../src/apps/formats/readers.ts";

const TOOLS = ["objdump", "readelf", "dpkg-deb", "tar"].every(hasProgram);
const HAVE_JQ = haveJqFixtures("apps_callgraph_test");
const HAS_CC = hasProgram("cc");

/** One instruction line of `objdump -d`, with the section it is in. */
interface ObjdumpLine {
  address: bigint;
  section: string;
  text: string;
}

/** The instruction lines of `objdump -d path`. */
async function objdumpLines(path: string): Promise<ObjdumpLine[]> {
  const lines: ObjdumpLine[] = [];
  let section = "";
  for (const line of (await run("objdump", ["-d", "--no-show-raw-insn", path])).split("\n")) {
    const heading = /^Disassembly of section (\S+):/.exec(line);
    if (heading) section = heading[1]!;
    const m = /^\s+([0-9a-f]+):\s+(.*)$/.exec(line);
    if (m) lines.push({ address: BigInt(`0x${m[1]}`), section, text: m[2]!.trim() });
  }
  return lines;
}

/** Call sites (hex) of `call` lines objdump names `<name>` (e.g. `jv_mem_alloc@plt`). */
function callsNaming(lines: ObjdumpLine[], name: string): string[] {
  return lines.filter((l) => /^call\s/.test(l.text) && l.text.endsWith(`<${name}>`))
    .map((l) => `0x${l.address.toString(16)}`);
}

/** The GOT slots readelf lists as GLOB_DAT relocations against `symbol`. */
async function globDatSlots(path: string, symbol: string): Promise<bigint[]> {
  return (await run("readelf", ["-r", "-W", path])).split("\n")
    .filter((l) => /R_[A-Z0-9_]+_GLOB_DAT/.test(l) && l.trim().split(/\s+/)[4] === symbol)
    .map((l) => BigInt(`0x${l.trim().split(/\s+/)[0]}`));
}

/** Every call site in `sites` across the callers of a `procedure_callers` result. */
function callSites(result: Loose): string[] {
  return result.items.flatMap((c: Loose) => c.call_sites).sort();
}

/** Unpacks libjq.so.1 from the deb12u2 package into `dir`; returns its path. */
async function extractLibjq(dir: string): Promise<string> {
  const tarball = `${dir}/data.tar`;
  const fsys = await new Deno.Command("dpkg-deb", {
    args: ["--fsys-tarfile", OLD],
    stdout: "piped",
  })
    .output();
  await Deno.writeFile(tarball, fsys.stdout);
  await run("tar", ["-xf", tarball, "-C", dir, "./usr/lib/x86_64-linux-gnu/libjq.so.1.0.4"]);
  return `${dir}/usr/lib/x86_64-linux-gnu/libjq.so.1.0.4`;
}

/** Runs `body` on a fresh server with libjq.so.1 (unpacked into its temporary root) open. */
async function withOpenLibjq(body: (client: Client, path: string) => Promise<void>): Promise<void> {
  await withTempRoot("casefile-callgraph-", async ({ client, dir }) => {
    const path = await extractLibjq(dir);
    await ok(client, "open_binary", { path });
    await body(client, path);
  });
}

Deno.test({
  name: "procedure_callers and build_call_path follow calls through libjq's own PLT stubs",
  ignore: !TOOLS || !HAVE_JQ,
  fn: async () => {
    await withOpenLibjq(async (client, path) => {
      const lines = await objdumpLines(path);

      for (const name of ["jv_mem_alloc", "jv_string_value"]) {
        const expected = callsNaming(lines, `${name}@plt`).sort();
        assert.ok(expected.length > 10, `objdump shows ${expected.length} calls to ${name}@plt`);
        const callers = await ok(client, "procedure_callers", { procedure: name, limit: 500 });
        assert.equal(callers.result.procedure.kind, "procedure");
        assert.deepEqual(callSites(callers.result), expected, name);
        const callees = await ok(client, "procedure_callees", {
          procedure: callers.result.items[0].address,
        });
        assert.ok(
          callees.result.items.some((c: Loose) =>
            c.name === name && c.kind === "procedure" &&
            c.address === callers.result.procedure.address
          ),
          JSON.stringify(callees.result.items),
        );
      }

      const path0 = await ok(client, "build_call_path", { from: "0xc7e0", to: "jv_mem_alloc" });
      assert.equal(path0.result.found, true, JSON.stringify(path0.result));
      assert.equal(path0.result.path.at(-1).name, "jv_mem_alloc");
    });
  },
});

Deno.test({
  name: "procedure_callers, build_call_path and xrefs take an import by name or PLT address",
  ignore: !TOOLS || !HAVE_JQ,
  fn: async () => {
    await withOpenLibjq(async (client, path) => {
      const lines = await objdumpLines(path);
      const expected = callsNaming(lines, "__assert_fail@plt").sort();
      assert.ok(expected.length > 0);
      const stub = lines.find((l) => l.section === ".plt" && /<__assert_fail@plt>/.test(l.text));
      const stubLine = (await run("objdump", ["-d", path])).split("\n")
        .find((l) => /^[0-9a-f]+ <__assert_fail@plt>:/.test(l));
      assert.ok(stubLine, `objdump names no __assert_fail@plt stub (${stub?.text})`);
      const stubAddress = `0x${BigInt(`0x${stubLine.split(" ")[0]}`).toString(16)}`;

      const byName = await ok(client, "procedure_callers", {
        procedure: "__assert_fail",
        limit: 500,
      });
      assert.deepEqual(byName.result.procedure, {
        address: stubAddress,
        name: "__assert_fail",
        kind: "import",
      });
      assert.deepEqual(callSites(byName.result), expected);
      const byAddress = await ok(client, "procedure_callers", {
        procedure: stubAddress,
        limit: 500,
      });
      assert.deepEqual(callSites(byAddress.result), expected);

      const refs = await ok(client, "xrefs", { address: stubAddress, limit: 500 });
      assert.deepEqual(
        refs.result.items.filter((r: Loose) => r.kind === "call").map((r: Loose) => r.from)
          .sort(),
        expected,
      );

      const caller = byName.result.items[0].address;
      const path0 = await ok(client, "build_call_path", { from: caller, to: "__assert_fail" });
      assert.equal(path0.result.found, true, JSON.stringify(path0.result));
      assert.deepEqual(path0.result.to, {
        address: stubAddress,
        name: "__assert_fail",
        kind: "import",
      });
      assert.equal(path0.result.path.length, 2);
    });
  },
});

Deno.test({
  name: "reference_scan is complete only when every call form was resolved, and lists the rest",
  ignore: !TOOLS || !HAVE_JQ,
  fn: async () => {
    await withOpenLibjq(async (client, path) => {
      const lines = (await objdumpLines(path)).filter((l) => l.section === ".text");
      // Calls through a register or memory that no GOT slot names: objdump cannot resolve them.
      const indirect = lines.filter((l) => /^call\s+\*/.test(l.text) && !/\(%rip\)/.test(l.text))
        .map((l) => `0x${l.address.toString(16)}`);
      assert.ok(indirect.length > 0);
      // Direct calls to an address where no function starts (no FDE, not a function the loader
      // calls: crt's __do_global_dtors_aux calling its helper deregister_tm_clones), in the
      // procedures the scan decodes: the FDEs' extents and the loader's functions' stretches.
      const frames = await run("readelf", ["--debug-dump=frames", path]);
      const fdes = [...frames.matchAll(/ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)/g)]
        .map((m) => [BigInt(`0x${m[1]}`), BigInt(`0x${m[2]}`)] as const);
      const inFde = (at: bigint): boolean => fdes.some(([start, end]) => at >= start && at < end);
      // The loader's functions, and what they call or jump to that no FDE covers (crt's
      // deregister_tm_clones, register_tm_clones): procedures too.
      const loaderCalls = await peerStartupFunctions(path);
      const callees = await peerStartupCallees(
        path,
        loaderCalls,
        new Set([...fdes.map(([start]) => start), ...loaderCalls]),
        inFde,
      );
      const startup = [...loaderCalls, ...callees];
      const starts = new Set([...fdes.map(([start]) => start), ...startup]);
      const unknown = lines.filter((l) => {
        const call = /^call\s+([0-9a-f]+) <([^>]+)>/.exec(l.text);
        if (!call || call[2]!.includes("@plt")) return false;
        const target = BigInt(`0x${call[1]}`);
        // The site is in a loader-called function (before any FDE start past it) or an FDE.
        const inStartup = startup.some((s) =>
          l.address >= s && ![...starts].some((n) => n > s && n <= l.address)
        );
        return !starts.has(target) && (inFde(l.address) || inStartup);
      });
      const callers = await ok(client, "procedure_callers", { procedure: "jv_mem_alloc" });
      const scan = callers.result.reference_scan;
      assert.equal(scan.complete, false);
      assert.equal(scan.unresolved.indirect_calls, indirect.length);
      assert.equal(scan.unresolved.unknown_call_targets, unknown.length);
      // The sample: the first unresolved sites of either kind, in address order.
      const unresolved = [...indirect.map(BigInt), ...unknown.map((l) => l.address)]
        .sort((a, b) => (a < b ? -1 : 1)).map((a) => `0x${a.toString(16)}`);
      assert.deepEqual(scan.unresolved.sample, unresolved.slice(0, 20));
      const record = JSON.parse(
        ((await client.readResource({ uri: callers.evidence_uri })).contents[0] as Loose).text,
      );
      assert.ok(
        record.limitations.some((l: string) =>
          l.includes(
            `${unresolved.length} call site(s) stayed unresolved (${indirect.length} through`,
          )
        ),
        JSON.stringify(record.limitations),
      );
    });
  },
});

Deno.test({
  name: "xrefs names libjq's loads of its own function's GOT slot as references to the function",
  ignore: !TOOLS || !HAVE_JQ,
  fn: async () => {
    await withOpenLibjq(async (client, path) => {
      const [slot] = await globDatSlots(path, "jq_util_input_next_input_cb");
      assert.ok(slot !== undefined, "readelf lists no GLOB_DAT slot for the callback");
      const loads = (await objdumpLines(path))
        .filter((l) => l.text.includes(`# ${slot.toString(16)} `))
        .map((l) => `0x${l.address.toString(16)}`).sort();
      assert.ok(loads.length > 0);
      const where = await ok(client, "procedure_address", {
        procedure: "jq_util_input_next_input_cb",
      });
      const refs = await ok(client, "xrefs", { address: where.result.address, limit: 500 });
      assert.deepEqual(
        refs.result.items.filter((r: Loose) => r.kind === "data").map((r: Loose) => r.from)
          .sort(),
        loads,
      );
    });
  },
});

const GOT_SOURCE = `
typedef int (*fn_t)(int);
__attribute__((noinline)) int target_fn(int x) { return x * 3 + 1; }
__attribute__((noinline)) int direct_user(int x) { return target_fn(x) + 2; }
__attribute__((noinline)) int loaded_user(int x) {
  fn_t f = target_fn;
  __asm__ volatile("" : "+r"(f));
  return f(x) + 5;
}
`;

Deno.test({
  name: "calls through a GOT slot of the library's own function are callers of that function",
  ignore: !TOOLS || !HAS_CC,
  fn: async () => {
    await withTempRoot("casefile-callgraph-", async ({ client, dir }) => {
      await Deno.writeTextFile(`${dir}/got.c`, GOT_SOURCE);
      const path = `${dir}/libgot.so`;
      await run("cc", ["-O1", "-fPIC", "-shared", "-fno-plt", "-o", path, `${dir}/got.c`]);
      const [slot] = await globDatSlots(path, "target_fn");
      if (slot === undefined) throw new Error("the linker resolved target_fn without a GOT slot");
      const slotText = `# ${slot.toString(16)} `;
      const lines = await objdumpLines(path);
      // objdump's own reading: a call through the slot, or through the register a load of it filled.
      const expected: string[] = [];
      lines.forEach((l, k) => {
        if (/^call\s+\*/.test(l.text) && l.text.includes(slotText)) {
          expected.push(`0x${l.address.toString(16)}`);
        }
        const load = /^mov\s+\S+\(%rip\),(%\w+)/.exec(l.text);
        const next = lines[k + 1];
        if (load && l.text.includes(slotText) && next?.text === `call   *${load[1]}`) {
          expected.push(`0x${next.address.toString(16)}`);
        }
      });
      assert.equal(expected.length, 2, JSON.stringify(lines.map((l) => l.text)));
      await ok(client, "open_binary", { path });
      const callers = await ok(client, "procedure_callers", { procedure: "target_fn" });
      assert.deepEqual(callSites(callers.result), expected.sort());
      assert.deepEqual(
        callers.result.items.map((c: Loose) => c.name).sort(),
        ["direct_user", "loaded_user"],
      );
      const path0 = await ok(client, "build_call_path", { from: "loaded_user", to: "target_fn" });
      assert.equal(path0.result.found, true, JSON.stringify(path0.result));
    });
  },
});

Deno.test({
  name:
    "a stripped library with .dynsym and .eh_frame is not described as having no function table",
  ignore: !TOOLS || !HAS_CC || !hasProgram("strip"),
  fn: async () => {
    await withTempRoot("casefile-callgraph-", async ({ client, dir }) => {
      await Deno.writeTextFile(`${dir}/got.c`, GOT_SOURCE);
      const path = `${dir}/libstripped.so`;
      await run("cc", ["-O1", "-fPIC", "-shared", "-o", `${dir}/libfull.so`, `${dir}/got.c`]);
      await run("strip", ["--strip-all", "-o", path, `${dir}/libfull.so`]);
      const headers = await run("readelf", ["-S", "-W", path]);
      assert.match(headers, /\.dynsym/);
      assert.match(headers, /\.eh_frame /);
      assert.doesNotMatch(headers, /\.symtab/);
      // readelf's FDE starts inside .text: the function table the file has.
      const text = /\.text\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/.exec(headers)!;
      const [start, size] = [BigInt(`0x${text[1]}`), BigInt(`0x${text[2]}`)];
      const fdes = [...(await run("readelf", ["--debug-dump=frames", path]))
        .matchAll(/FDE cie=\S+ pc=([0-9a-f]+)\.\./g)]
        .map((m) => BigInt(`0x${m[1]}`)).filter((a) => a >= start && a < start + size)
        .map((a) => `0x${a.toString(16)}`);
      assert.ok(fdes.length >= 3);

      const opened = await ok(client, "open_binary", { path });
      const said = JSON.stringify(opened);
      assert.doesNotMatch(said, /function table/i, said);
      const listed = await ok(client, "list_procedures", { limit: 500 });
      const record = JSON.parse(
        ((await client.readResource({ uri: listed.evidence_uri })).contents[0] as Loose).text,
      );
      assert.ok(
        !record.limitations.some((l: string) => /function table/i.test(l)),
        JSON.stringify(record.limitations),
      );
      const addresses = new Set(listed.result.items.map((p: Loose) => p.address));
      for (const fde of fdes) assert.ok(addresses.has(fde), `${fde} is not listed`);
    });
  },
});

const UNIVERSAL = await npmFixture("fsevents@2.3.3", "fsevents.node");

/** The text of a C-escaped string as llvm-objdump prints it (`\"`, `\n`, `\t`, `\\`, octal). */
function unescapeC(text: string): string {
  const named: Record<string, string> = { n: "\n", t: "\t", r: "\r", '"': '"', "\\": "\\" };
  return text.replace(
    /\\([0-7]{1,3}|.)/g,
    (_, c: string) => /^[0-7]/.test(c) ? String.fromCharCode(parseInt(c, 8)) : named[c] ?? c,
  );
}

/** `[site, string]` pairs llvm-objdump prints as literal-pool strings in one slice of `path`. */
async function literalPoolStrings(path: string, arch: string): Promise<string[]> {
  const listing = await run("llvm-objdump-14", ["--macho", `--arch=${arch}`, "-d", path]);
  const pairs: string[] = [];
  for (const line of listing.split("\n")) {
    const m = /^\s*([0-9a-f]+):.*literal pool for: "(.*)"$/.exec(line);
    if (m) pairs.push(`0x${BigInt(`0x${m[1]}`).toString(16)} ${unescapeC(m[2]!)}`);
  }
  return pairs.sort();
}

Deno.test({
  name:
    "analyze_function lists the __cstring strings llvm-objdump names as literal pools, on both slices of a universal Mach-O",
  ignore: UNIVERSAL === null || !hasProgram("llvm-objdump-14"),
  fn: async () => {
    const path = UNIVERSAL!;
    await withClient({ roots: [path.slice(0, path.lastIndexOf("/"))] }, async (client) => {
      const opened = await ok(client, "open_binary", { path });
      const documents: string[] = opened.result.target.documents;
      assert.equal(documents.length, 2, JSON.stringify(documents));
      for (const arch of ["x86_64", "arm64"]) {
        const document = documents.find((d) => d.includes(`(${arch})`));
        assert.ok(document, `no ${arch} slice in ${JSON.stringify(documents)}`);
        const expected = await literalPoolStrings(path, arch);
        assert.ok(expected.length > 50, `llvm-objdump names ${expected.length} literal pools`);
        const procedures = await ok(client, "list_procedures", { document, limit: 500 });
        assert.equal(procedures.result.has_more, false);
        const seen: string[] = [];
        for (const procedure of procedures.result.items) {
          const dossier = await ok(client, "analyze_function", {
            procedure: procedure.address,
            document,
            limit: 500,
            max_instructions: 5000,
          });
          for (const s of dossier.result.referenced_strings.items) {
            for (const from of s.from) seen.push(`${from} ${s.value}`);
          }
        }
        // Every literal pool llvm-objdump names is a referenced string here.
        const missing = expected.filter((pair) => !seen.includes(pair));
        assert.deepEqual(missing, [], `${arch}: ${missing.length} of ${expected.length} missing`);
      }
    });
  },
});

const PE = await npmFixture("7zip-bin@5.2.0", "win/x64/7za.exe");

Deno.test({
  name:
    "calls to an import thunk (jmp through the IAT) are callers of the import, as objdump shows",
  ignore: PE === null || !hasProgram("objdump"),
  fn: async () => {
    const path = PE!;
    const lines = await objdumpLines(path);
    // objdump's thunks: a jump through a memory slot, `jmp *disp(%rip)  # 0xSLOT`.
    const slotOfThunk = new Map<bigint, bigint>();
    for (const l of lines) {
      const m = /^(?:rex\.W )?jmp\s+\*0x[0-9a-f]+\(%rip\)\s+# 0x([0-9a-f]+)$/.exec(l.text);
      if (m) slotOfThunk.set(l.address, BigInt(`0x${m[1]}`));
    }
    const callsBySlot = new Map<bigint, bigint[]>();
    for (const l of lines) {
      const thunk = /^call\s+0x([0-9a-f]+)$/.exec(l.text);
      const direct = /^call\s+\*0x[0-9a-f]+\(%rip\)\s+# 0x([0-9a-f]+)$/.exec(l.text);
      const slot = thunk
        ? slotOfThunk.get(BigInt(`0x${thunk[1]}`))
        : direct
        ? BigInt(`0x${direct[1]}`)
        : undefined;
      if (slot !== undefined) callsBySlot.set(slot, [...(callsBySlot.get(slot) ?? []), l.address]);
    }
    const [slot, sites] = [...callsBySlot].sort((a, b) => b[1].length - a[1].length)[0]!;
    // The call sites inside the procedures the reference scan decodes.
    const [image] = readerFor(await Deno.readFile(path))!.read(await Deno.readFile(path), "7za");
    const inside = (site: bigint): boolean =>
      image!.functions.some((f) => f.size > 0n && site >= f.address && site < f.address + f.size);
    const expected = sites.filter(inside).map((a) => `0x${a.toString(16)}`).sort();
    assert.ok(expected.length > 100, `${expected.length} calls reach slot 0x${slot.toString(16)}`);

    await withClient({ roots: [path.slice(0, path.lastIndexOf("/"))] }, async (client) => {
      await ok(client, "open_binary", { path });
      const callers = await ok(client, "procedure_callers", {
        procedure: `0x${slot.toString(16)}`,
        limit: 500,
      });
      assert.equal(callers.result.procedure.kind, "import");
      const seen: string[] = [];
      for (let offset: number | null = 0; offset !== null;) {
        const page: Loose = await ok(client, "procedure_callers", {
          procedure: `0x${slot.toString(16)}`,
          offset,
          limit: 500,
        });
        seen.push(...page.result.items.flatMap((c: Loose) => c.call_sites));
        offset = page.result.next_offset;
      }
      assert.deepEqual(seen.sort(), expected);
    });
  },
});

/** RELATIVE-relocated GOT slots readelf lists: slot address → the address it is filled with. */
async function relativeGotSlots(path: string): Promise<Map<bigint, bigint>> {
  const got = (await run("readelf", ["-S", "-W", path])).split("\n")
    .map((l) => /\]\s+(\.got(?:\.plt)?)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/.exec(l))
    .filter((m) => m !== null)
    .map((m) => [BigInt(`0x${m![2]}`), BigInt(`0x${m![2]}`) + BigInt(`0x${m![3]}`)] as const);
  const slots = new Map<bigint, bigint>();
  for (const line of (await run("readelf", ["-r", "-W", path])).split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f[2] !== "R_X86_64_RELATIVE") continue;
    const slot = BigInt(`0x${f[0]}`);
    if (got.some(([start, end]) => slot >= start && slot < end)) {
      slots.set(slot, BigInt(`0x${f[3]}`));
    }
  }
  return slots;
}

// A Rust library from npm: rustc calls the functions of other crates through GOT slots that a
// RELATIVE relocation fills (no PLT, no symbol), which objdump prints as `call *…(%rip) # slot`.
const RUST_NODE = TOOLS
  ? await npmFixture("lightningcss-linux-x64-gnu@1.33.0", "lightningcss.linux-x64-gnu.node")
  : null;

Deno.test({
  name:
    "calls through GOT slots a RELATIVE relocation fills are callers of the function (rustc's code, lightningcss)",
  ignore: RUST_NODE === null,
  fn: async () => {
    const path = RUST_NODE!;
    const slots = await relativeGotSlots(path);
    assert.ok(slots.size >= 5, `readelf lists ${slots.size} RELATIVE GOT slots`);
    // Every call or jump objdump shows through one of those slots, by the slot's target.
    const sitesOf = new Map<bigint, string[]>();
    for (const line of await objdumpLines(path)) {
      const m = /^(call|jmp)\s+\*0x[0-9a-f]+\(%rip\)\s+# ([0-9a-f]+)/.exec(line.text);
      const target = m ? slots.get(BigInt(`0x${m[2]}`)) : undefined;
      if (target === undefined) continue;
      let sites = sitesOf.get(target);
      if (!sites) sitesOf.set(target, sites = []);
      sites.push(`0x${line.address.toString(16)}`);
    }
    const busiest = [...sitesOf].sort((a, b) => b[1].length - a[1].length).slice(0, 3);
    assert.ok(busiest[0]![1].length >= 100, `${busiest[0]![1].length} sites`);
    await withClient({ roots: [path.slice(0, path.lastIndexOf("/"))] }, async (client) => {
      await ok(client, "open_binary", { path });
      for (const [target, sites] of busiest) {
        const address = `0x${target.toString(16)}`;
        const callers = await ok(client, "procedure_callers", { procedure: address, limit: 500 });
        assert.equal(callers.result.procedure.address, address);
        // Through-slot sites are all found; other sites are direct calls or jumps to the target.
        const found = new Set(callSites(callers.result));
        assert.deepEqual(sites.filter((s) => !found.has(s)), [], address);
        const lines = await objdumpLines(path);
        const direct = new Set(
          lines.filter((l) =>
            /^(call|jmp)\s/.test(l.text) &&
            l.text.startsWith(`${l.text.split(/\s+/)[0]} ${target.toString(16)} `)
          )
            .map((l) => `0x${l.address.toString(16)}`),
        );
        assert.deepEqual(
          [...found].filter((s) => !sites.includes(s) && !direct.has(s)),
          [],
          address,
        );
      }
    });
  },
});
