/**
 * The exception table (`.pdata`) of a PE image: the x64, ARM64 and ARM
 * RUNTIME_FUNCTION entries (function starts, and ends where the entry or its
 * unwind data gives them), with the chain of each chained x64 entry, and the
 * function each chained entry is a piece of.
 *
 * @module
 */

import {
  MACHINE_AMD64,
  MACHINE_ARM64,
  MACHINE_ARM64EC,
  MACHINE_ARM64X,
  MACHINE_ARMNT,
  MACHINE_NAMES,
  UNW_FLAG_CHAININFO,
} from "./constants.ts";
import type { PeChainedFunction, PeDataDirectory, PeRuntimeFunction } from "./model.ts";
import { hex, type PeReader, Tally } from "./reader.ts";

/** The entries of the exception table, for the machines whose table layout is known. */
export function readRuntimeFunctions(r: PeReader, directory: PeDataDirectory): PeRuntimeFunction[] {
  const machine = r.machine;
  const kind = machine === MACHINE_AMD64
    ? "x64"
    : machine === MACHINE_ARM64 || machine === MACHINE_ARM64EC || machine === MACHINE_ARM64X
    ? "arm64"
    : machine === MACHINE_ARMNT
    ? "arm"
    : null;
  const functions: PeRuntimeFunction[] = [];
  if (kind === null) {
    r.warn(
      `The exception table of a ${MACHINE_NAMES.get(machine) ?? hex(machine)} image is not ` +
        `read (only x64, ARM64 and ARM function tables are)`,
    );
    return functions;
  }
  const entrySize = kind === "x64" ? 12 : 8;
  if (directory.size % entrySize !== 0) {
    r.warn(
      `The exception table is ${directory.size} bytes, not a multiple of its ${entrySize}-byte ` +
        `entries; ignoring the last ${directory.size % entrySize} bytes`,
    );
  }
  const table = r.table(
    directory.rva,
    Math.floor(directory.size / entrySize),
    entrySize,
    "the exception table (.pdata)",
  );
  if (table === null) return functions;
  const tally = new Tally();
  let padding = 0;
  for (let i = 0; i < table.count; i++) {
    const o = table.offset + i * entrySize;
    const begin = r.u32(o);
    const second = r.u32(o + 4);
    if (kind === "x64") {
      const unwind = r.u32(o + 8);
      if (begin === 0 && second === 0 && unwind === 0) {
        padding++;
        continue;
      }
      if (second <= begin) tally.add("function that ends at or before it begins");
      const chain = chainOf(r, unwind, tally);
      functions.push({
        begin,
        end: second,
        unwindData: unwind,
        packed: false,
        ...(chain === null ? {} : { chain }),
      });
      continue;
    }
    if (begin === 0 && second === 0) {
      padding++;
      continue;
    }
    const flag = second & 3;
    const unit = kind === "arm64" ? 4 : 2;
    const start = kind === "arm" ? (begin & ~1) >>> 0 : begin;
    let length: number | null = null;
    if (flag === 0) {
      const xdata = r.spanAt(second);
      if (xdata === null || xdata.available < 4) {
        tally.add(".xdata RVA with no file data, length unknown");
      } else length = (r.u32(xdata.offset) & 0x3ffff) * unit;
    } else if (flag === 3) {
      tally.add("reserved unwind flag 3, length unknown");
    } else length = ((second >>> 2) & 0x7ff) * unit;
    functions.push({
      begin: start,
      end: length === null ? null : start + length,
      unwindData: second,
      packed: flag !== 0,
    });
  }
  if (padding > 0) {
    r.warn(`The exception table has ${padding} all-zero entries; skipped`);
  }
  r.report(tally, "The exception table");
  const chained = functions.reduce((n, f) => n + (f.chain === undefined ? 0 : 1), 0);
  const unresolved = chained - chainOwners(functions).size;
  if (unresolved > 0) {
    r.warn(
      `The exception table has ${unresolved} chained ${
        unresolved === 1 ? "entry" : "entries"
      } whose chain leads to no unchained entry (a parent missing from the table, a loop, or ` +
        `more than ${MAX_CHAIN} links); each is read as a function of its own`,
    );
  }
  return functions;
}

/**
 * The RUNTIME_FUNCTION an x64 entry's unwind data chains to, or null when
 * it is not chained: bit 0 of `unwind` set makes it the RVA of that entry
 * (an older form); otherwise the UNWIND_INFO there has UNW_FLAG_CHAININFO
 * and the entry follows its unwind codes (padded to an even count).
 */
function chainOf(r: PeReader, unwind: number, tally: Tally): PeChainedFunction | null {
  let at = unwind - 1;
  if ((unwind & 1) === 0) {
    const info = r.spanAt(unwind);
    // Unreadable unwind information: the entry is taken as it stands, unchained.
    if (info === null || info.available < 4) return null;
    if (((r.u8(info.offset) >> 3) & UNW_FLAG_CHAININFO) === 0) return null;
    const codes = r.u8(info.offset + 2);
    at = unwind + 4 + 2 * ((codes + 1) & ~1);
  }
  const entry = r.spanAt(at);
  if (entry === null || entry.available < 12) {
    tally.add("chained unwind information whose RUNTIME_FUNCTION has no file data");
    return null;
  }
  return {
    begin: r.u32(entry.offset),
    end: r.u32(entry.offset + 4),
    unwindData: r.u32(entry.offset + 8),
  };
}

/** Most links followed from a chained `.pdata` entry to the unchained one it belongs to. */
const MAX_CHAIN = 32;

/**
 * For each chained x64 `.pdata` entry (one with a `chain`), the `begin` RVA
 * of the unchained entry its chain leads to: the function it is a piece of.
 * Chained entries whose chain leads nowhere (a parent missing from the table,
 * a loop, more than 32 links) are left out.
 *
 * @param table The exception table, as {@linkcode parsePe} reads it.
 * @returns Owner RVAs by entry.
 */
export function chainOwners(table: readonly PeRuntimeFunction[]): Map<PeRuntimeFunction, number> {
  const owners = new Map<PeRuntimeFunction, number>();
  if (!table.some((f) => f.chain !== undefined)) return owners;
  const byBegin = new Map<number, PeRuntimeFunction>();
  for (const f of table) if (!byBegin.has(f.begin)) byBegin.set(f.begin, f);
  for (const f of table) {
    if (f.chain === undefined) continue;
    let at: PeRuntimeFunction | undefined = f;
    for (let links = 0; at?.chain !== undefined && links < MAX_CHAIN; links++) {
      at = at.chain.begin === at.begin ? undefined : byBegin.get(at.chain.begin);
    }
    if (at !== undefined && at.chain === undefined && at.begin !== f.begin) owners.set(f, at.begin);
  }
  return owners;
}
