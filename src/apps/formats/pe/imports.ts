/**
 * The import and delay-load import tables of a PE image: each DLL with the
 * symbols it is asked for (by name and hint, or by ordinal) and the address
 * table slot of each. The thunks read are bounded over all tables together.
 *
 * @module
 */

import { DELAY_DESCRIPTOR_SIZE, IMPORT_DESCRIPTOR_SIZE } from "./constants.ts";
import type { PeDataDirectory, PeImportedSymbol, PeImportLibrary } from "./model.ts";
import { hex, MAX_STRING_BYTES, type PeReader, type ReadString, Tally } from "./reader.ts";

/** What the import tables of one parse share. */
class ImportState {
  /** Import thunks that may still be read, over all descriptors. */
  thunkBudget: number;
  thunkBudgetReported = false;
  /** Problems inside import lookup tables, over all descriptors. */
  importTally: Tally = new Tally();
  /** Hint/name entries already read, by RVA (tables often share them). */
  hintNames: Map<number, { hint: number; read: ReadString } | null> = new Map();

  constructor(maxEntries: number) {
    this.thunkBudget = maxEntries;
  }
}

/**
 * The imported DLLs of the import directory, then those of the delay-load
 * import directory (either may be null: the image has none).
 */
export function readImportTables(
  r: PeReader,
  imports: PeDataDirectory | null,
  delayImports: PeDataDirectory | null,
): PeImportLibrary[] {
  const s = new ImportState(r.maxEntries);
  const out: PeImportLibrary[] = [];
  if (imports !== null) readImports(r, s, imports, out);
  if (delayImports !== null) readDelayImports(r, s, delayImports, out);
  r.report(s.importTally, "The import lookup tables");
  return out;
}

function readImports(
  r: PeReader,
  s: ImportState,
  directory: PeDataDirectory,
  out: PeImportLibrary[],
): void {
  const span = r.locate(directory.rva, IMPORT_DESCRIPTOR_SIZE, "the import directory");
  if (span === null) return;
  const fit = Math.floor(span.available / IMPORT_DESCRIPTOR_SIZE);
  let terminated = false;
  let skipped = 0;
  let read = 0;
  let i = 0;
  for (; i < fit; i++) {
    const o = span.offset + i * IMPORT_DESCRIPTOR_SIZE;
    const lookupRva = r.u32(o);
    const nameRva = r.u32(o + 12);
    const addressRva = r.u32(o + 16);
    if (nameRva === 0 && addressRva === 0) {
      terminated = true;
      break;
    }
    if (read >= r.maxEntries) {
      r.warn(
        `The import directory has more than ${r.maxEntries} descriptors; reading the first ${r.maxEntries}`,
      );
      terminated = true;
      break;
    }
    read++;
    if (nameRva === 0 || addressRva === 0) {
      skipped++;
      continue;
    }
    const name = libraryName(r, nameRva, `import descriptor ${i}`);
    const symbols = readThunks(
      r,
      s,
      lookupRva !== 0 ? lookupRva : addressRva,
      addressRva,
      name,
      false,
      false,
    );
    out.push({
      name,
      delayLoad: false,
      lookupTableRva: lookupRva !== 0 ? lookupRva : addressRva,
      addressTableRva: addressRva,
      symbols,
    });
  }
  if (skipped > 0) {
    r.warn(
      `${skipped} import descriptor${skipped === 1 ? " has" : "s have"} a zero Name or ` +
        `FirstThunk; skipped`,
    );
  }
  if (!terminated) {
    r.warn(
      `The import directory at RVA ${hex(directory.rva)} has no null descriptor before the end ` +
        `of its file data; read ${i} descriptors`,
    );
  }
}

function readDelayImports(
  r: PeReader,
  s: ImportState,
  directory: PeDataDirectory,
  out: PeImportLibrary[],
): void {
  const span = r.locate(
    directory.rva,
    DELAY_DESCRIPTOR_SIZE,
    "the delay-load import directory",
  );
  if (span === null) return;
  const fit = Math.floor(span.available / DELAY_DESCRIPTOR_SIZE);
  let terminated = false;
  let skipped = 0;
  let i = 0;
  for (; i < fit; i++) {
    const o = span.offset + i * DELAY_DESCRIPTOR_SIZE;
    const attributes = r.u32(o);
    let nameRva = r.u32(o + 4);
    let addressRva = r.u32(o + 12);
    let namesRva = r.u32(o + 16);
    if (nameRva === 0 && addressRva === 0 && namesRva === 0) {
      terminated = true;
      break;
    }
    if (i >= r.maxEntries) {
      r.warn(
        `The delay-load import directory has more than ${r.maxEntries} descriptors; ` +
          `reading the first ${r.maxEntries}`,
      );
      terminated = true;
      break;
    }
    // Attribute bit 0 clear: an old (Visual C++ 6) table of virtual addresses.
    const vaBased = (attributes & 1) === 0;
    if (vaBased) {
      const toRva = (value: number): number => value === 0 ? 0 : r.rvaOf(BigInt(value)) ?? 0;
      nameRva = toRva(nameRva);
      addressRva = toRva(addressRva);
      namesRva = toRva(namesRva);
    }
    if (nameRva === 0 || addressRva === 0 || namesRva === 0) {
      skipped++;
      continue;
    }
    const name = libraryName(r, nameRva, `delay-load import descriptor ${i}`);
    const symbols = readThunks(r, s, namesRva, addressRva, name, true, vaBased);
    out.push({
      name,
      delayLoad: true,
      lookupTableRva: namesRva,
      addressTableRva: addressRva,
      symbols,
    });
  }
  if (skipped > 0) {
    r.warn(
      `${skipped} delay-load import descriptor${skipped === 1 ? " has" : "s have"} a zero or ` +
        `unusable DLL name, address table or name table; skipped`,
    );
  }
  if (!terminated) {
    r.warn(
      `The delay-load import directory at RVA ${hex(directory.rva)} has no null descriptor ` +
        `before the end of its file data; read ${i} descriptors`,
    );
  }
}

function libraryName(r: PeReader, rva: number, what: string): string {
  const read = r.stringAt(rva);
  if (read === null) {
    r.warn(`Cannot read the DLL name of ${what}: ${r.whyUnmapped(rva)}; it is empty`);
    return "";
  }
  if (read.status === "cut") {
    r.warn(
      `The DLL name of ${what} at RVA ${hex(rva)} has no NUL within ${MAX_STRING_BYTES} bytes ` +
        `or the file data; it was cut`,
    );
  }
  return read.text;
}

/**
 * Reads an import lookup (or name) table up to its null entry, within the
 * file data of its section and the shared thunk budget.
 */
function readThunks(
  r: PeReader,
  s: ImportState,
  lookupRva: number,
  slotRva: number,
  library: string,
  delayLoad: boolean,
  vaBased: boolean,
): PeImportedSymbol[] {
  const label = `the ${delayLoad ? "delay-load import name table" : "import lookup table"} of ` +
    `${library === "" ? "an unnamed DLL" : library}`;
  const symbols: PeImportedSymbol[] = [];
  const span = r.spanAt(lookupRva);
  if (span === null) {
    r.warn(`Cannot read ${label}: ${r.whyUnmapped(lookupRva)}`);
    return symbols;
  }
  const is64 = r.is64;
  const entrySize = is64 ? 8 : 4;
  const fit = Math.floor(span.available / entrySize);
  const tally = s.importTally;
  const place = library === "" ? "an unnamed DLL" : library;
  let terminated = false;
  let k = 0;
  for (; k < fit; k++) {
    if (s.thunkBudget === 0) {
      if (!s.thunkBudgetReported) {
        s.thunkBudgetReported = true;
        r.warn(
          `Stopped reading imports at ${label}: the import tables add up to more than ` +
            `${r.maxEntries} entries (maxEntries); later imports are missing`,
        );
      }
      terminated = true;
      break;
    }
    s.thunkBudget--;
    const o = span.offset + k * entrySize;
    const low = r.u32(o);
    const high = is64 ? r.u32(o + 4) : 0;
    if (low === 0 && high === 0) {
      terminated = true;
      break;
    }
    const slot = slotRva + k * entrySize;
    const byOrdinal = is64 ? (high & 0x80000000) !== 0 : (low & 0x80000000) !== 0;
    if (byOrdinal) {
      symbols.push({ name: null, hint: null, ordinal: low & 0xffff, slotRva: slot });
      continue;
    }
    let hintRva = low;
    if (is64 && high !== 0) hintRva = -1;
    else if (vaBased) hintRva = r.rvaOf(BigInt(low)) ?? -1;
    const entry = hintRva < 0 ? null : hintName(r, s, hintRva);
    if (entry === null) {
      tally.add("hint/name RVA with no file data, name unknown", place);
      symbols.push({ name: null, hint: null, ordinal: null, slotRva: slot });
      continue;
    }
    if (entry.read.status === "cut") tally.add("import name without a NUL, cut", place);
    symbols.push({ name: entry.read.text, hint: entry.hint, ordinal: null, slotRva: slot });
  }
  if (!terminated) {
    r.warn(
      `${label[0]!.toUpperCase()}${label.slice(1)} at RVA ${hex(lookupRva)} has no null entry ` +
        `before the end of its file data; read ${k} entries`,
    );
  }
  return symbols;
}

/** The hint and name at `rva` (cached), or null when no file data backs them. */
function hintName(
  r: PeReader,
  s: ImportState,
  rva: number,
): { hint: number; read: ReadString } | null {
  const cached = s.hintNames.get(rva);
  if (cached !== undefined) return cached;
  const span = r.spanAt(rva);
  const entry = span === null || span.available < 2 ? null : {
    hint: r.u16(span.offset),
    read: r.cString(span.offset + 2, span.offset + span.available, span.zeroFilled),
  };
  s.hintNames.set(rva, entry);
  return entry;
}
