/**
 * GNU symbol versions (`.gnu.version`, `.gnu.version_d`, `.gnu.version_r`)
 * as the ELF reader gives them to exports and imports, against `readelf`'s
 * spelling of every dynamic symbol on the machine's own files; and damaged
 * version tables: each read stops at the damage with a warning, keeps what
 * came before, and changes nothing else the reader gives.
 */

import assert from "node:assert/strict";
import { versionedExportNames } from "../src/apps/formats/binary_image.ts";
import { elfImage } from "../src/apps/formats/elf/image.ts";
import { parseElf } from "../src/apps/formats/elf/parse.ts";
import { hasProgram, run } from "./helpers/in_memory.ts";
import { findLibc, firstFile } from "./helpers/system_files.ts";

const FILES = [
  findLibc(),
  firstFile(["/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1"]),
  firstFile(["/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/lib/x86_64-linux-gnu/libstdc++.so.6"]),
  firstFile(["/usr/bin/ls", "/bin/ls"]),
].filter((path): path is string => typeof path === "string");
const LIBZ = FILES.find((path) => path.endsWith("/libz.so.1")) ?? null;
const READELF = hasProgram("readelf");
if (!READELF) console.log("elf_symbol_versions_test: needs readelf: skipped");

/** `readelf --dyn-syms -W`: each symbol's name as readelf spells it (version and all). */
async function readelfSpellings(
  path: string,
): Promise<{ defined: Set<string>; undefined: Map<string, string> }> {
  const defined = new Set<string>();
  const undefinedSymbols = new Map<string, string>();
  for (const line of (await run("readelf", ["--dyn-syms", "-W", path])).split("\n")) {
    const m = /^\s*\d+:\s+([0-9a-f]+)\s+\S+\s+(\S+)\s+(\S+)\s+\S+\s+(\S+)\s+(\S+)/.exec(line);
    if (!m || !["FUNC", "IFUNC", "OBJECT", "NOTYPE"].includes(m[2]!)) continue;
    const spelled = m[5]!;
    const name = spelled.replace(/@.*$/, "");
    if (m[4] === "UND") {
      if (!undefinedSymbols.has(name)) undefinedSymbols.set(name, spelled);
      continue;
    }
    if (!["GLOBAL", "WEAK", "UNIQUE"].includes(m[3]!) || m[2] === "NOTYPE") continue;
    if (m[4] === "ABS" && BigInt(`0x${m[1]}`) === 0n) continue;
    defined.add(`0x${BigInt(`0x${m[1]}`).toString(16)} ${spelled}`);
  }
  return { defined, undefined: undefinedSymbols };
}

for (const path of FILES) {
  Deno.test({
    name: `${path.split("/").at(-1)}: every export's and import's symbol version is readelf's`,
    ignore: !READELF,
    fn: async () => {
      const image = elfImage(Deno.readFileSync(path), path);
      const peer = await readelfSpellings(path);
      const ours = new Set<string>();
      image.exports.forEach((entry, i) => {
        for (const spelled of versionedExportNames(image, i)) {
          ours.add(`0x${entry.address!.toString(16)} ${spelled}`);
        }
      });
      assert.deepEqual([...ours].sort(), [...peer.defined].sort());
      let versioned = 0;
      for (const entry of image.imports) {
        const spelled = peer.undefined.get(entry.name);
        assert.ok(spelled !== undefined, entry.name);
        assert.equal(
          entry.version === undefined ? entry.name : `${entry.name}@${entry.version}`,
          spelled,
        );
        if (entry.version !== undefined) versioned++;
      }
      assert.ok(versioned > 0, "no versioned import");
    },
  });
}

/** The section of `type` in `bytes`: its file offset and size, and where its header is. */
function sectionOf(
  bytes: Uint8Array,
  type: number,
): { offset: number; size: number; header: number } {
  const elf = parseElf(bytes);
  const section = elf.sections.find((s) => s.type === type);
  assert.ok(section !== undefined, `no section of type ${type.toString(16)}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const headers = Number(view.getBigUint64(0x28, true));
  const entrySize = view.getUint16(0x3a, true);
  return {
    offset: section.offset,
    size: section.size,
    header: headers + section.index * entrySize,
  };
}

const VERDEF = 0x6ffffffd;
const VERNEED = 0x6ffffffe;
const VERSYM = 0x6fffffff;

/** Exports and imports with their versions, as the reader gives them. */
function versionsOf(bytes: Uint8Array): {
  exports: string[];
  imports: string[];
  warnings: string[];
} {
  const image = elfImage(bytes, "libz.so.1");
  return {
    exports: image.exports.map((_, i) => versionedExportNames(image, i).join(" ")),
    imports: image.imports.map((i) => `${i.name} ${i.version ?? "-"} ${i.library ?? "-"}`),
    warnings: image.warnings,
  };
}

Deno.test({
  name: "damaged version tables: each read stops at the damage with a warning and keeps the rest",
  ignore: LIBZ === null,
  fn: () => {
    const intact = Deno.readFileSync(LIBZ!);
    const sound = versionsOf(intact);
    assert.deepEqual(sound.warnings, []);
    assert.ok(sound.exports.some((e) => e.includes("@@ZLIB_")), "libz carries no versions");
    const plain = (list: string[]): string[] => list.map((e) => e.replace(/@\S*/g, ""));

    // A definition chain pointing far past its section: versions defined later are unknown.
    const definitions = intact.slice();
    const verdef = sectionOf(definitions, VERDEF);
    new DataView(definitions.buffer).setUint32(verdef.offset + 16, 0xfffffff0, true);
    const cut = versionsOf(definitions);
    assert.ok(
      cut.warnings.some((w) =>
        /^Symbol version table .*version_d.*: entry 1 runs past its end/.test(w)
      ),
      cut.warnings.join("\n"),
    );
    assert.deepEqual(plain(cut.exports), plain(sound.exports));
    assert.deepEqual(cut.imports, sound.imports);
    assert.ok(
      cut.exports.filter((e) => e.includes("@")).length <
        sound.exports.filter((e) => e.includes("@")).length,
    );

    // A library's auxiliary entries pointing past the section: its versions are unknown.
    const needs = intact.slice();
    const verneed = sectionOf(needs, VERNEED);
    new DataView(needs.buffer).setUint32(verneed.offset + 8, 0xfffffff0, true);
    const lost = versionsOf(needs);
    assert.ok(lost.warnings.some((w) => /version_r.*: entry 0 points past its end/.test(w)));
    assert.deepEqual(lost.exports, sound.exports);
    assert.deepEqual(
      lost.imports.map((i) => i.split(" ")[0]),
      sound.imports.map((i) => i.split(" ")[0]),
    );
    assert.ok(lost.imports.every((i) => i.endsWith(" - -")), lost.imports.join("\n"));

    // An unknown structure version: nothing of that table is read.
    const odd = intact.slice();
    new DataView(odd.buffer).setUint16(sectionOf(odd, VERDEF).offset, 7, true);
    const unknown = versionsOf(odd);
    assert.ok(
      unknown.warnings.some((w) => /version_d.*: entry 0 has an unknown vd_version/.test(w)),
    );
    assert.ok(unknown.exports.every((e) => !e.includes("@")));
    assert.deepEqual(unknown.imports, sound.imports);

    // The symbol version array moved past the end of the file: no versions, no error.
    const moved = intact.slice();
    const versym = sectionOf(moved, VERSYM);
    new DataView(moved.buffer).setBigUint64(versym.header + 0x18, BigInt(moved.length + 64), true);
    const none = versionsOf(moved);
    assert.ok(none.exports.every((e) => !e.includes("@")));
    assert.ok(none.imports.every((i) => i.endsWith(" - -")));
    assert.ok(!none.warnings.some((w) => /Internal error/.test(w)), none.warnings.join("\n"));
  },
});

Deno.test({
  name: "without section headers, the versions come through DT_VERSYM, DT_VERDEF and DT_VERNEED",
  ignore: LIBZ === null,
  fn: () => {
    const intact = Deno.readFileSync(LIBZ!);
    const bare = intact.slice();
    const view = new DataView(bare.buffer);
    view.setBigUint64(0x28, 0n, true); // e_shoff
    view.setUint16(0x3c, 0, true); // e_shnum
    view.setUint16(0x3e, 0, true); // e_shstrndx
    assert.equal(parseElf(bare).sections.length, 0);
    const sound = versionsOf(intact);
    const through = versionsOf(bare);
    assert.deepEqual(through.exports, sound.exports);
    assert.deepEqual(through.imports, sound.imports);
  },
});

Deno.test({
  name: "bytes flipped in the version tables never make the reader fail",
  ignore: LIBZ === null,
  fn: () => {
    const intact = Deno.readFileSync(LIBZ!);
    const regions = [VERDEF, VERNEED, VERSYM].map((type) => sectionOf(intact, type));
    let seed = 0x5eed;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const bytes = intact.slice();
      const region = regions[round % regions.length]!;
      for (let k = 0; k < 1 + random(4); k++) {
        bytes[region.offset + random(region.size)] = random(256);
      }
      const { exports, warnings } = versionsOf(bytes);
      assert.equal(exports.length, versionsOf(intact).exports.length);
      assert.ok(!warnings.some((w) => /Internal error/.test(w)), warnings.join("\n"));
    }
  },
});
