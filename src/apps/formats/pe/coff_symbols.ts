/**
 * The COFF symbol table a PE image may still carry (MinGW builds keep it):
 * each record's name (short, or from the string table), value, section,
 * type and storage class; auxiliary records are skipped.
 *
 * @module
 */

import { SYMBOL_SIZE } from "./constants.ts";
import type { PeSymbol } from "./model.ts";
import { decodeName, hex, type PeReader } from "./reader.ts";

/** The COFF symbol records at file offset `pointer`, as many of `declared` as the file holds. */
export function readSymbols(r: PeReader, pointer: number, declared: number): PeSymbol[] {
  if (pointer === 0 || declared === 0) return [];
  const symbols: PeSymbol[] = [];
  let count = declared;
  const fit = pointer >= r.length ? 0 : Math.floor((r.length - pointer) / SYMBOL_SIZE);
  if (count > fit) {
    r.warn(
      `Cannot read all ${declared} COFF symbols: the table at offset ${hex(pointer)} runs past ` +
        `the end of the ${r.length}-byte file; reading the ${fit} records that fit`,
    );
    count = fit;
  }
  if (count > r.maxEntries) {
    r.warn(`The COFF symbol table has ${count} records; reading ${r.maxEntries}`);
    count = r.maxEntries;
  }
  const strings = r.strings;
  let badNames = 0;
  for (let i = 0; i < count;) {
    const o = pointer + i * SYMBOL_SIZE;
    let name: string;
    if (r.u32(o) === 0) {
      const at = r.u32(o + 4);
      if (strings === null || at < 4 || at >= strings.size) {
        badNames++;
        name = "";
      } else name = r.cString(strings.offset + at, strings.offset + strings.size).text;
    } else {
      const raw = r.bytes.subarray(o, o + 8);
      const end = raw.indexOf(0);
      name = decodeName(end < 0 ? raw : raw.subarray(0, end));
    }
    const auxCount = r.u8(o + 17);
    symbols.push({
      index: i,
      name,
      value: r.u32(o + 8),
      sectionNumber: r.view.getInt16(o + 12, true),
      type: r.u16(o + 14),
      storageClass: r.u8(o + 16),
      auxCount,
    });
    i += 1 + auxCount;
  }
  if (badNames > 0) {
    r.warn(
      `${badNames} COFF symbol${badNames === 1 ? " has a name offset" : "s have name offsets"} ` +
        `outside the string table; ${badNames === 1 ? "its name is" : "their names are"} empty`,
    );
  }
  return symbols;
}
