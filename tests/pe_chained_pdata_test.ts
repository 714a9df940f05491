/**
 * Chained x64 `.pdata` entries (UNW_FLAG_CHAININFO, the chained
 * RUNTIME_FUNCTION after the unwind codes) are pieces of the function their
 * chain leads to, not procedures. On rollup's x64 Node addon from npm,
 * compared with binutils `objdump -x` (its function table and its
 * `Chain: start:` lines) and `llvm-objdump-14 -d`:
 * - the procedures are the unchained entries (and the exports and entry
 *   point), and every chained entry's start resolves to the function its
 *   chain leads to;
 * - a function whose chained pieces adjoin it spans them: 0x1801ca430 runs to
 *   the end of its last piece, with the instructions and calls llvm-objdump
 *   lists there, and no tail jump into its own pieces;
 * - with one piece's entry removed from a copy of the file, the pieces after
 *   the gap are a part of the function apart from it: its instructions,
 *   calls and callers cover both stretches, containment finds the part, and
 *   the gap belongs to no procedure.
 *
 * Run with `deno test --no-prompt --allow-read --allow-write --allow-run --allow-env
 * tests/pe_chained_pdata_test.ts`; skipped, with the reason printed, without the
 * programs or the package.
 */

import assert from "node:assert/strict";
import type { Loose } from "./helpers/in_memory.ts";
import { connect, fails, hasProgram, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { pagedItems } from "./helpers/procedures.ts";

const OBJDUMP = "objdump";
const LLVM_OBJDUMP = "llvm-objdump-14";
const HAVE = hasProgram(OBJDUMP) && hasProgram(LLVM_OBJDUMP);
if (!HAVE) {
  console.log(`pe_chained_pdata_test: ${OBJDUMP} or ${LLVM_OBJDUMP} not available: skipped`);
}
const FILE = HAVE
  ? await npmFixture("@rollup/rollup-win32-x64-msvc@4.69.3", "rollup.win32-x64-msvc.node")
  : null;

/** The function whose chained pieces the reviewer saw listed as procedures. */
const FUNCTION = 0x1801ca430n;

const hex = (a: bigint): string => `0x${a.toString(16)}`;

/** One `.pdata` entry as objdump -x reads it. */
interface Entry {
  /** Where the entry lies (its vma in .pdata). */
  vma: bigint;
  begin: bigint;
  end: bigint;
  /** Its UnwindData as an address. */
  unwind: bigint;
  /** The begin of the entry its unwind data chains to, or null. */
  parent: bigint | null;
}

/** The function table of `objdump -x`, each entry with the chain its unwind data names. */
async function pdata(
  path: string,
): Promise<{ entries: Entry[]; base: bigint; entry: bigint; pdataFile: bigint; pdataVma: bigint }> {
  const text = await run(OBJDUMP, ["-x", path]);
  const base = BigInt(`0x${/^ImageBase\s+([0-9a-f]+)$/m.exec(text)![1]}`);
  const entryPoint = BigInt(`0x${/^AddressOfEntryPoint\s+([0-9a-f]+)$/m.exec(text)![1]}`);
  const chains = new Map<bigint, bigint>();
  let unwind: bigint | null = null;
  for (const line of text.split("\n")) {
    const header = /^ ([0-9a-f]{16}) \(rva: [0-9a-f]+\): /.exec(line);
    if (header) unwind = BigInt(`0x${header[1]}`);
    const chain = /^\s+Chain: start: ([0-9a-f]+), end:/.exec(line);
    if (chain && unwind !== null) chains.set(unwind, base + BigInt(`0x${chain[1]}`));
  }
  const entries: Entry[] = [];
  const table = text.slice(
    text.indexOf("The Function Table (interpreted .pdata section contents)"),
  );
  for (
    const m of table.slice(0, table.indexOf("\n\n")).matchAll(
      /^ ([0-9a-f]{16}):\s+([0-9a-f]{16}) ([0-9a-f]{16}) ([0-9a-f]{16})$/gm,
    )
  ) {
    const begin = BigInt(`0x${m[2]}`);
    if (begin === 0n) continue;
    entries.push({
      vma: BigInt(`0x${m[1]}`),
      begin,
      end: BigInt(`0x${m[3]}`),
      unwind: BigInt(`0x${m[4]}`),
      parent: chains.get(BigInt(`0x${m[4]}`)) ?? null,
    });
  }
  const section = /^\s*\d+ \.pdata\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/m.exec(
    text,
  )!;
  return {
    entries,
    base,
    entry: base + entryPoint,
    pdataVma: BigInt(`0x${section[1]}`),
    pdataFile: BigInt(`0x${section[2]}`),
  };
}

/** Each chained entry's start → the unchained entry its chain leads to. */
function roots(entries: Entry[]): Map<bigint, bigint> {
  const byBegin = new Map(entries.map((e) => [e.begin, e]));
  const found = new Map<bigint, bigint>();
  for (const e of entries) {
    let at: Entry | undefined = e;
    for (let links = 0; at !== undefined && at.parent !== null && links < 32; links++) {
      at = byBegin.get(at.parent);
    }
    if (e.parent !== null && at !== undefined && at.parent === null) found.set(e.begin, at.begin);
  }
  return found;
}

/** A function's stretches from the peer: its entry's range and its pieces', merged where they adjoin. */
function stretches(entries: Entry[], root: bigint): { start: bigint; end: bigint }[] {
  const owner = roots(entries);
  const ranges = entries.filter((e) => e.begin === root || owner.get(e.begin) === root).map((
    e,
  ) => ({
    start: e.begin,
    end: e.end,
  })).sort((a, b) => (a.start < b.start ? -1 : 1));
  const merged: { start: bigint; end: bigint }[] = [];
  for (const r of ranges) {
    const last = merged.at(-1);
    if (last && r.start <= last.end) last.end = r.end > last.end ? r.end : last.end;
    else merged.push({ ...r });
  }
  return merged;
}

/** `llvm-objdump-14 -d` of `[start, end)`: each instruction's address and text. */
async function disassemble(path: string, start: bigint, end: bigint): Promise<[bigint, string][]> {
  const text = await run(LLVM_OBJDUMP, [
    "-d",
    "--no-show-raw-insn",
    `--start-address=${hex(start)}`,
    `--stop-address=${hex(end)}`,
    path,
  ]);
  return [...text.matchAll(/^[ \t]*([0-9a-f]+):[ \t]+([^\n]*)$/gm)].map((m) => [
    BigInt(`0x${m[1]}`),
    m[2]!.trim(),
  ]);
}

/** The direct call sites among `lines`, by target. */
function callSites(lines: [bigint, string][]): Map<string, string[]> {
  const sites = new Map<string, string[]>();
  for (const [at, text] of lines) {
    const m = /^callq\s+0x([0-9a-f]+)/.exec(text);
    if (m) sites.set(`0x${m[1]}`, [...(sites.get(`0x${m[1]}`) ?? []), hex(at)]);
  }
  return sites;
}

Deno.test({
  name:
    "chained .pdata entries of an x64 PE are parts of their function, as objdump -x chains them, not procedures",
  ignore: FILE === null,
  fn: async () => {
    const path = FILE!;
    const { entries, entry } = await pdata(path);
    const owner = roots(entries);
    const chained = entries.filter((e) => e.parent !== null);
    assert.ok(chained.length > 100, `${chained.length} chained entries`);
    assert.equal(owner.size, chained.length, "every chain leads to an unchained entry");
    const unchained = new Set(entries.filter((e) => e.parent === null).map((e) => e.begin));

    const { client, close } = await connect({ roots: [path.slice(0, path.lastIndexOf("/"))] });
    try {
      await ok(client, "open_binary", { path });
      // Every procedure: no chained entry starts one; every unchained entry does.
      const listed = new Map<bigint, string>();
      for (const item of await pagedItems(client, "list_procedures")) {
        listed.set(BigInt(item.address), item.value);
      }
      const overview = await ok(client, "binary_overview");
      const sources = overview.result.procedures_by_source;
      assert.equal(overview.result.procedure_count, listed.size);
      for (const begin of unchained) assert.ok(listed.has(begin), `${hex(begin)} is no procedure`);
      // The pdata procedures are the unchained entries but those an export, the entry or a TLS
      // callback names.
      const exportsAndEntry = (sources.export ?? 0) + (sources.entry ?? 0) +
        (sources["tls-callback"] ?? 0);
      assert.ok(sources.pdata <= unchained.size, `${sources.pdata} of ${unchained.size}`);
      assert.ok(sources.pdata + exportsAndEntry >= unchained.size);
      assert.ok(listed.has(entry));
      for (const e of chained) {
        assert.ok(!listed.has(e.begin), `chained ${hex(e.begin)} is listed as a procedure`);
        const found = await ok(client, "resolve_containing_procedure", { address: hex(e.begin) });
        assert.equal(found.result.procedure?.address, hex(owner.get(e.begin)!), hex(e.begin));
      }
      // A chained piece's start is inside its (unnamed) function, not a procedure start.
      const piece = chained.find((e) => owner.get(e.begin) === FUNCTION)!;
      const refused = await fails(client, "procedure_address", { procedure: hex(piece.begin) });
      assert.equal(
        refused.message,
        `${hex(piece.begin)} is inside procedure ${hex(FUNCTION)}, not its start.`,
      );
      console.log(
        `${entries.length} .pdata entries, ${chained.length} chained: ${listed.size} procedures ` +
          `(${JSON.stringify(sources)}); each chained start resolves to its chain's function`,
      );

      // The reviewer's function spans its pieces.
      const [span, ...apart] = stretches(entries, FUNCTION);
      assert.deepEqual(apart, []);
      const dossier = await ok(client, "analyze_function", {
        procedure: hex(FUNCTION),
        include_callers: false,
        include_assembly: true,
        max_instructions: 5000,
        limit: 500,
      });
      const procedure = dossier.result.procedure;
      assert.equal(procedure.end, hex(span!.end));
      assert.equal(procedure.size, Number(span!.end - span!.start));
      const lines = await disassemble(path, span!.start, span!.end);
      assert.deepEqual(
        dossier.result.assembly.items.map((i: Loose) => i.address),
        lines.map(([at]) => hex(at)),
      );
      assert.deepEqual(
        new Map(dossier.result.callees.items.map((c: Loose) => [c.address, c.call_sites])),
        callSites(lines),
      );
      for (const t of dossier.result.tail_jumps.items) {
        assert.ok(BigInt(t.address) < span!.start || BigInt(t.address) >= span!.end, t.address);
      }
      console.log(
        `${hex(FUNCTION)}: ${procedure.size} bytes, ${lines.length} instructions, calls ` +
          JSON.stringify([...callSites(lines)]),
      );
    } finally {
      await close();
    }
  },
});

Deno.test({
  name:
    "a chained .pdata piece apart from its function is a part of it: decoded, contained and called from, as llvm-objdump lists it",
  ignore: FILE === null,
  fn: async () => {
    const original = await Deno.readFile(FILE!);
    const { entries, base, pdataFile, pdataVma } = await pdata(FILE!);
    // The first piece after the function's own entry becomes a function of its own (its unwind
    // data made the function's, unchained): the pieces after it stand apart from the function.
    const own = entries.find((e) => e.begin === FUNCTION)!;
    const split = entries.find((e) => e.begin === own.end)!;
    assert.ok(split?.parent === FUNCTION, `${hex(own.end)} is a chained piece of ${hex(FUNCTION)}`);
    await withTempRoot("casefile-pe-parts-", async ({ client, dir }) => {
      const path = `${dir}/parts.node`;
      const bytes = original.slice();
      new DataView(bytes.buffer).setUint32(
        Number(pdataFile + split.vma - pdataVma + 8n),
        Number(own.unwind - base),
        true,
      );
      await Deno.writeFile(path, bytes);
      const peer = await pdata(path);
      assert.equal(peer.entries.find((e) => e.begin === split.begin)?.parent, null);
      const [first, ...parts] = stretches(peer.entries, FUNCTION);
      assert.ok(parts.length > 0, "the pieces after the split stand apart");
      const lines = [
        ...(await disassemble(path, first!.start, first!.end)),
        ...(await Promise.all(parts.map((p) => disassemble(path, p.start, p.end)))).flat(),
      ];

      await ok(client, "open_binary", { path });
      const dossier = await ok(client, "analyze_function", {
        procedure: hex(FUNCTION),
        include_callers: true,
        include_assembly: true,
        max_instructions: 5000,
        limit: 500,
      });
      const result = dossier.result;
      assert.equal(result.procedure.end, hex(first!.end));
      assert.deepEqual(
        result.assembly.items.map((i: Loose) => i.address),
        lines.map(([at]) => hex(at)),
      );
      const calls = callSites(lines);
      assert.deepEqual(
        new Map(result.callees.items.map((c: Loose) => [c.address, c.call_sites])),
        calls,
      );
      // A jump into a part is the function's own flow, not a tail jump.
      const inside = (a: bigint): boolean =>
        [first!, ...parts].some((s) => a >= s.start && a < s.end);
      for (const t of result.tail_jumps.items) assert.ok(!inside(BigInt(t.address)), t.address);
      // The Evidence record says where the stretches are.
      const evidence = await client.readResource({ uri: dossier.evidence_uri });
      const record = JSON.parse((evidence.contents[0] as { text: string }).text);
      assert.ok(
        record.limitations.some((l: string) =>
          l.includes(`${hex(parts[0]!.start)}–${hex(parts[0]!.end)}`)
        ),
        JSON.stringify(record.limitations),
      );
      // Containment: the part belongs to the function, the split piece to itself.
      const inPart = await ok(client, "resolve_containing_procedure", {
        address: hex(parts[0]!.end - 1n),
      });
      assert.equal(inPart.result.procedure?.address, hex(FUNCTION));
      const inSplit = await ok(client, "resolve_containing_procedure", {
        address: hex(split.end - 1n),
      });
      assert.equal(inSplit.result.procedure?.address, hex(split.begin));
      // Callers: the calls in the part are this function's.
      for (const [target, sites] of calls) {
        const callers = await ok(client, "procedure_callers", { procedure: target, limit: 500 });
        const mine = callers.result.items.find((c: Loose) => c.address === hex(FUNCTION));
        assert.deepEqual(mine?.call_sites, sites, target);
      }
      console.log(
        `${hex(FUNCTION)} with ${hex(split.begin)}–${hex(split.end)} split off: ` +
          `${hex(first!.start)}–${hex(first!.end)} and ` +
          parts.map((p) => `${hex(p.start)}–${hex(p.end)}`).join(", ") +
          `, ${lines.length} instructions, calls ${JSON.stringify([...calls])}`,
      );
    });
  },
});
