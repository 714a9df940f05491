/**
 * The export directory of a PE image: the DLL's own name and every export
 * address table entry with its ordinal, names and forwarder string.
 *
 * @module
 */

import { EXPORT_DIRECTORY_SIZE } from "./constants.ts";
import type { PeDataDirectory, PeExport } from "./model.ts";
import { hex, MAX_STRING_BYTES, type PeReader, Tally } from "./reader.ts";

/**
 * The exports: one entry per name of a named export address table entry,
 * one unnamed entry per entry with no name (by ordinal); forwarders are
 * entries whose RVA lies inside the export directory.
 */
export function readExports(
  r: PeReader,
  directory: PeDataDirectory,
): { name: string | null; exports: PeExport[] } {
  const none = { name: null, exports: [] };
  const span = r.locate(directory.rva, EXPORT_DIRECTORY_SIZE, "the export directory");
  if (span === null) return none;
  const o = span.offset;
  const nameRva = r.u32(o + 12);
  const base = r.u32(o + 16);
  const functionCount = r.u32(o + 20);
  const nameCount = r.u32(o + 24);
  const functionsRva = r.u32(o + 28);
  const namesRva = r.u32(o + 32);
  const ordinalsRva = r.u32(o + 36);
  let name: string | null = null;
  if (nameRva !== 0) {
    const read = r.stringAt(nameRva);
    if (read === null) {
      r.warn(`Cannot read the DLL name of the export directory: ${r.whyUnmapped(nameRva)}`);
    } else {
      if (read.status === "cut") {
        r.warn(
          `The DLL name of the export directory at RVA ${hex(nameRva)} has no NUL within ` +
            `${MAX_STRING_BYTES} bytes or the file data; it was cut`,
        );
      }
      name = read.text;
    }
  }
  const functions = r.table(
    functionsRva,
    functionCount,
    4,
    "the export address table",
  );
  if (functions === null) return { name, exports: [] };
  const functionsAt = functions.offset;
  const eatCount = functions.count;

  // Names per export address table index.
  const namesOf = new Map<number, string[]>();
  const tally = new Tally();
  if (nameCount > 0) {
    const names = r.table(namesRva, nameCount, 4, "the export name pointer table");
    const ordinals = r.table(ordinalsRva, nameCount, 2, "the export ordinal table");
    const count = names === null || ordinals === null ? 0 : Math.min(names.count, ordinals.count);
    for (let i = 0; i < count; i++) {
      const index = r.u16(ordinals!.offset + i * 2);
      if (index >= eatCount) {
        tally.add(
          index >= functionCount
            ? `name table entry pointing past the ${functionCount} entries of the export ` +
              `address table, skipped`
            : "name table entry pointing at an export address table entry that was not read, " +
              "skipped",
        );
        continue;
      }
      const at = r.u32(names!.offset + i * 4);
      const read = r.stringAt(at);
      if (read === null) {
        tally.add("export name RVA with no file data, skipped");
        continue;
      }
      if (read.status === "cut") tally.add("export name without a NUL, cut");
      let list = namesOf.get(index);
      if (list === undefined) namesOf.set(index, list = []);
      list.push(read.text);
    }
  }

  const exports: PeExport[] = [];
  const forwarderStart = directory.rva;
  const forwarderEnd = directory.rva + directory.size;
  for (let i = 0; i < eatCount; i++) {
    const rva = r.u32(functionsAt + i * 4);
    const names = namesOf.get(i);
    if (rva === 0) {
      if (names !== undefined) tally.add("named export with RVA 0, skipped");
      continue;
    }
    let forwarder: string | null = null;
    if (rva >= forwarderStart && rva < forwarderEnd) {
      const read = r.stringAt(rva);
      if (read === null) {
        tally.add("forwarder string with no file data, left empty");
        forwarder = "";
      } else {
        if (read.status === "cut") {
          tally.add(
            `forwarder string without a NUL within ${MAX_STRING_BYTES} bytes or the file data, ` +
              "cut",
          );
        }
        forwarder = read.text;
      }
    }
    const ordinal = base + i;
    if (names === undefined) exports.push({ ordinal, name: null, rva, forwarder });
    else for (const n of names) exports.push({ ordinal, name: n, rva, forwarder });
  }
  r.report(tally, "The export table");
  return { name, exports };
}
