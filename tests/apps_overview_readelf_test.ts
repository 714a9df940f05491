/**
 * `binary_overview` through a real MCP client against `readelf` on the
 * machine's own libraries: every count and listed field the tool reports
 * (entry, build id, needed libraries, allocated sections, imports, exports,
 * procedures) is recomputed from readelf's output at test time.
 */

import assert from "node:assert/strict";
import { hasProgram, type Loose, ok, run, withClient } from "./helpers/in_memory.ts";
import { findLibc, firstFile } from "./helpers/system_files.ts";
import { readelfImageEnd } from "./helpers/image_end.ts";

const HAS_READELF = hasProgram("readelf");
const LIBRARIES = [
  findLibc(),
  firstFile(["/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1"]),
  firstFile(["/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/lib/x86_64-linux-gnu/libstdc++.so.6"]),
].filter((path): path is string => typeof path === "string");

/** One `readelf -S -W` row. */
interface SectionRow {
  name: string;
  type: string;
  address: bigint;
  size: bigint;
  flags: string;
}

/** The section headers `readelf -S -W` prints (the null section left out). */
async function readelfSections(path: string): Promise<SectionRow[]> {
  const rows: SectionRow[] = [];
  for (const line of (await run("readelf", ["-S", "-W", path])).split("\n")) {
    const m =
      /^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s+\d+/
        .exec(line);
    if (!m || m[1] === "0") continue;
    rows.push({
      name: m[2]!,
      type: m[3]!,
      address: BigInt(`0x${m[4]}`),
      size: BigInt(`0x${m[5]}`),
      flags: m[6]!,
    });
  }
  return rows;
}

/** One `readelf --dyn-syms -W` row. */
interface DynamicSymbol {
  value: bigint;
  type: string;
  bind: string;
  ndx: string;
  /** The name without its version suffix. */
  name: string;
  /** As readelf writes it: `memcpy@@GLIBC_2.14`, `memcpy@GLIBC_2.2.5`, or the name alone. */
  spelled: string;
  /** The version index readelf adds in parentheses (for a needed version), or null. */
  versionIndex: number | null;
}

async function readelfDynamicSymbols(path: string): Promise<DynamicSymbol[]> {
  const symbols: DynamicSymbol[] = [];
  for (const line of (await run("readelf", ["--dyn-syms", "-W", path])).split("\n")) {
    const m = /^\s*\d+:\s+([0-9a-f]+)\s+\S+\s+(\S+)\s+(\S+)\s+\S+\s+(\S+)\s*(.*)$/.exec(line);
    if (!m) continue;
    const index = / \((\d+)\)$/.exec(m[5]!);
    const spelled = m[5]!.replace(/ \(\d+\)$/, "");
    symbols.push({
      value: BigInt(`0x${m[1]}`),
      type: m[2]!,
      bind: m[3]!,
      ndx: m[4]!,
      name: spelled.replace(/@.*$/, ""),
      spelled,
      versionIndex: index ? Number(index[1]) : null,
    });
  }
  return symbols;
}

/** The library `readelf -V` names for each needed version index (`Version needs` section). */
async function readelfNeededFiles(path: string): Promise<Map<number, string>> {
  const files = new Map<number, string>();
  let file: string | null = null;
  for (const line of (await run("readelf", ["-V", "-W", path])).split("\n")) {
    const library = /^\s*[0-9a-fx]+: Version: \d+\s+File: (\S+)/.exec(line);
    if (library) file = library[1]!;
    const version = /^\s*[0-9a-fx]+:\s+Name: \S+\s+Flags: .*Version: (\d+)$/.exec(line);
    if (version && file !== null) files.set(Number(version[1]), file);
  }
  return files;
}

const hex = (value: bigint): string => `0x${value.toString(16)}`;

for (const path of LIBRARIES) {
  Deno.test({
    name: `binary_overview of ${path.split("/").at(-1)} reports what readelf reads`,
    ignore: !HAS_READELF,
    fn: async () => {
      await withClient({ roots: [path.slice(0, path.lastIndexOf("/"))] }, async (client) => {
        await ok(client, "open_binary", { path });
        const overview: Loose = (await ok(client, "binary_overview", {
          detail: "detailed",
          limit: 50,
        })).result;

        const header = await run("readelf", ["-h", "-n", "-d", "-W", path]);
        const entry = BigInt(/Entry point address:\s+(0x[0-9a-f]+)/.exec(header)![1]!);
        assert.equal(overview.entry, entry === 0n ? null : hex(entry));
        assert.equal(overview.build_id, /Build ID: ([0-9a-f]+)/.exec(header)?.[1] ?? null);
        assert.deepEqual(
          overview.libraries,
          [...header.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]),
        );

        // Allocated sections, in header order; thread-local NOBITS (.tbss) has no address space.
        const sections = (await readelfSections(path))
          .filter((s) => s.flags.includes("A") && !(s.type === "NOBITS" && s.flags.includes("T")));
        assert.ok(sections.length > 10, `readelf listed ${sections.length} allocated sections`);
        assert.equal(overview.section_count, sections.length);
        assert.deepEqual(
          overview.sections,
          sections.slice(0, 50).map((s) => ({
            name: s.name,
            address: hex(s.address),
            size: Number(s.size),
            flags: `r${s.flags.includes("W") ? "w" : "-"}${s.flags.includes("X") ? "x" : "-"}`,
          })),
        );

        const symbols = await readelfDynamicSymbols(path);
        const files = await readelfNeededFiles(path);
        assert.ok(files.size > 0, "readelf -V lists no needed versions");
        // Each import once, with the version its first symbol needs and that version's library.
        const imports = new Map<
          string,
          { name: string; library: string | null; version: string | null }
        >();
        for (const s of symbols) {
          if (s.ndx !== "UND" || s.name === "" || imports.has(s.name)) continue;
          if (!["FUNC", "IFUNC", "NOTYPE"].includes(s.type)) continue;
          const version = s.spelled === s.name ? null : s.spelled.slice(s.name.length + 1);
          imports.set(s.name, {
            name: s.name,
            library: s.versionIndex === null ? null : files.get(s.versionIndex) ?? null,
            version,
          });
        }
        assert.ok(imports.size > 0);
        assert.ok([...imports.values()].some((i) => i.library !== null && i.version !== null));
        assert.equal(overview.import_count, imports.size);
        assert.deepEqual(
          overview.imports.map((i: Loose) => ({
            name: i.name,
            library: i.library,
            version: i.version,
          })),
          [...imports.values()].slice(0, 50),
        );
        const exports = new Map<
          string,
          { name: string; address: string; versioned_names: string[] }
        >();
        for (const s of symbols) {
          if (s.ndx === "UND" || s.name === "") continue;
          if (s.bind !== "GLOBAL" && s.bind !== "WEAK" && s.bind !== "UNIQUE") continue;
          if (!["FUNC", "IFUNC", "OBJECT"].includes(s.type)) continue;
          // A version definition (nm -D: type A) is an absolute symbol at 0, not an export.
          if (s.ndx === "ABS" && s.value === 0n) continue;
          const key = `${s.name} ${s.value}`;
          const entry = exports.get(key) ??
            { name: s.name, address: hex(s.value), versioned_names: [] };
          exports.set(key, entry);
          // The same symbol under several versions (libc's aliases): one export, each spelling.
          if (s.spelled !== s.name && !entry.versioned_names.includes(s.spelled)) {
            entry.versioned_names.push(s.spelled);
          }
        }
        assert.equal(overview.export_count, exports.size);
        assert.deepEqual(overview.exports, [...exports.values()].slice(0, 50));

        // Nothing after the image, as readelf places every part of it.
        assert.equal(await readelfImageEnd(path), (await Deno.stat(path)).size);
        assert.equal(overview.overlay, null);

        const listed = await ok(client, "list_procedures", { limit: 1 });
        assert.equal(overview.procedure_count, listed.result.total);
        assert.equal(
          Object.values(overview.procedures_by_source as Record<string, number>)
            .reduce((a, b) => a + b, 0),
          overview.procedure_count,
        );
      });
    },
  });
}
