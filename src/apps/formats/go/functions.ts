/**
 * A Go binary's functions from its function table, whatever the container:
 * the table is found (ELF's `.gopclntab`, Mach-O's `__gopclntab`, or in a
 * PE file's read-only data, where no section names it), read, and merged
 * into the functions the format's own tables gave ({@linkcode withGoTable},
 * which each format's image adapter ends with).
 *
 * @module
 */

import {
  type BinaryImage,
  holdsCode,
  type ImageFunction,
  type ImageSection,
  sectionAt,
} from "../binary_image.ts";
import { compareCodePoints } from "../../../core/completion.ts";
import { type GoFunction, type GoPclntab, GoPclntabError, readGoPclntab } from "./pclntab.ts";

/**
 * Sections that hold the table by name: ELF's (`.gopclntab`, or
 * `.data.rel.ro.gopclntab` in a position-independent build) and Mach-O's
 * (`__DATA_CONST,__gopclntab`).
 */
const NAMED = /(?:^|\.)gopclntab$|,__gopclntab$/;

/**
 * The named Go functions of a file, or none; a damaged table, or one whose
 * functions do not all lie in code, is noted in `notes` and left out.
 */
function goFunctions(
  sections: readonly ImageSection[],
  bytes: Uint8Array,
  littleEndian: boolean,
  inCode: (address: bigint) => boolean,
  notes: string[],
): GoFunction[] {
  const named = sections.find((s) => NAMED.test(s.name) && s.fileOffset !== null);
  const where = named?.name ?? "pclntab";
  const textStart = textStartOf(sections);
  let table: GoPclntab | null;
  try {
    table = named
      ? readGoPclntab(contents(named, bytes), littleEndian, textStart)
      : searchTable(sections, bytes, littleEndian, textStart, inCode);
  } catch (error) {
    if (!(error instanceof GoPclntabError)) throw error;
    notes.push(`The Go function table (${where}) was not read: ${error.message}.`);
    return [];
  }
  if (table === null) return [];
  // Go's table lists code only: a function outside it means the table's addresses do not fit
  // this file (its text start, say), and then none of them can be trusted.
  const outside = table.functions.filter((fn) => !inCode(fn.address));
  if (outside.length > 0) {
    const first = outside[0]!;
    notes.push(
      `The Go function table (${where}) was not used: ${outside.length} of its ${table.functions.length} functions lie outside the code (the first, ${first.name}, at 0x${
        first.address.toString(16)
      }): its addresses do not fit this file.`,
    );
    return [];
  }
  return table.functions.filter((fn) => fn.name !== "");
}

/**
 * Where a Go binary's text starts, for a table that does not say: the
 * `.text` (ELF, PE) or `__TEXT,__text` (Mach-O) section, else the lowest
 * code section.
 */
function textStartOf(sections: readonly ImageSection[]): bigint | undefined {
  const text = sections.find((s) => s.name === ".text" || s.name === "__TEXT,__text");
  if (text) return text.address;
  let low: bigint | undefined;
  for (const s of sections) {
    if (holdsCode(s) && (low === undefined || s.address < low)) low = s.address;
  }
  return low;
}

/**
 * `functions` with the Go functions merged in, both sorted by address: a
 * start already known takes the Go name when it has none (or adds it to its
 * names: assembly functions' symbols carry an `.abi0` suffix the table
 * leaves out) and the Go extent when it has no size; the others are added.
 */
function withGoFunctions(
  functions: readonly ImageFunction[],
  go: readonly GoFunction[],
): ImageFunction[] {
  const merged: ImageFunction[] = [];
  let i = 0;
  for (const g of go) {
    while (i < functions.length && functions[i]!.address < g.address) merged.push(functions[i++]!);
    const known = i < functions.length && functions[i]!.address === g.address
      ? functions[i++]!
      : null;
    if (known === null) {
      merged.push({
        address: g.address,
        size: g.end - g.address,
        name: g.name,
        names: [g.name],
        source: "gopclntab",
      });
      continue;
    }
    const names = known.names.includes(g.name)
      ? known.names
      : [...known.names, g.name].sort(compareCodePoints);
    merged.push({
      ...known,
      name: known.name === "" ? g.name : known.name,
      names,
      size: known.size === 0n ? g.end - g.address : known.size,
    });
  }
  while (i < functions.length) merged.push(functions[i++]!);
  return merged;
}

/**
 * `image` with its Go functions, when it is a Go binary: the merged
 * functions, `gopclntab` among its function tables, and a warning when the
 * table was there but damaged.
 */
export function withGoTable(image: BinaryImage): BinaryImage {
  const inCode = (address: bigint): boolean => {
    const section = sectionAt(image, address);
    return section !== undefined && holdsCode(section);
  };
  const notes: string[] = [];
  const go = goFunctions(image.sections, image.bytes, image.endianness === "little", inCode, notes);
  if (go.length === 0 && notes.length === 0) return image;
  return {
    ...image,
    functions: withGoFunctions(image.functions, go),
    functionTables: go.length === 0
      ? image.functionTables
      : [...(image.functionTables ?? []), "gopclntab"],
    warnings: [...image.warnings, ...notes],
  };
}

/** A section's bytes in the file. */
function contents(section: ImageSection, bytes: Uint8Array): Uint8Array {
  const start = Math.min(section.fileOffset!, bytes.length);
  return bytes.subarray(start, Math.min(bytes.length, start + section.fileSize));
}

/** What Go's linker writes at the start of the text: `\xff Go build ID: "`. */
const BUILD_ID = Uint8Array.of(0xff, ...new TextEncoder().encode(' Go build ID: "'));

/** Bytes at the start of each code section the build ID is looked for in. */
const BUILD_ID_WINDOW = 4096;

/**
 * Whether Go's build ID is near the start of a code section (only a Go
 * binary's tables are searched for): first on amd64, after the
 * `__x86.get_pc_thunk` helpers on 386.
 */
function hasGoBuildId(sections: readonly ImageSection[], bytes: Uint8Array): boolean {
  return sections.some((s) => {
    if (!s.executable || s.fileOffset === null) return false;
    const head = bytes.subarray(s.fileOffset, s.fileOffset + Math.min(s.fileSize, BUILD_ID_WINDOW));
    for (let at = head.indexOf(0xff); at >= 0; at = head.indexOf(0xff, at + 1)) {
      if (at + BUILD_ID.length > head.length) return false;
      if (BUILD_ID.every((b, k) => head[at + k] === b)) return true;
    }
    return false;
  });
}

/**
 * The table in a Go binary whose sections do not name it (PE): the first
 * spot in a readable, non-executable section where a Go header starts a
 * table that reads whole and whose functions begin and end in code. Null
 * when none does, or when no code section begins with Go's build ID.
 */
function searchTable(
  sections: readonly ImageSection[],
  bytes: Uint8Array,
  littleEndian: boolean,
  textStart: bigint | undefined,
  inCode: (address: bigint) => boolean,
): GoPclntab | null {
  if (!hasGoBuildId(sections, bytes)) return null;
  for (const section of sections) {
    if (section.executable || section.fileOffset === null || section.fileSize < 16) continue;
    const data = contents(section, bytes);
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    for (let at = 0; at + 16 <= data.length; at += 4) {
      // Go's magics are 0xfffffff0, …f1, …fa and …fb, followed by two zero bytes.
      const magic = view.getUint32(at, littleEndian);
      if (magic >>> 4 !== 0x0fffffff || data[at + 4] !== 0 || data[at + 5] !== 0) continue;
      let table: GoPclntab | null = null;
      try {
        table = readGoPclntab(data.subarray(at), littleEndian, textStart);
      } catch (error) {
        if (!(error instanceof GoPclntabError)) throw error;
        continue;
      }
      const first = table?.functions[0];
      const last = table?.functions.at(-1);
      if (first && last && inCode(first.address) && inCode(last.end - 1n)) return table;
    }
  }
  return null;
}
