/**
 * A PE file translated into the format-neutral `BinaryImage`: sections,
 * function starts from exports, the exception table (chained entries read as
 * parts of their function), COFF symbols and the entry point, imports and
 * exports.
 *
 * @module
 */

import { withGoTable } from "../go/functions.ts";
import {
  type BinaryImage,
  type FunctionSource,
  type ImageExport,
  overlayAfter,
} from "../binary_image.ts";
import type { ImageFunction, ImageImport, ImageSection } from "../binary_image.ts";
import type { PeFile, PeSection } from "./model.ts";
import {
  IMAGE_SCN_CNT_CODE,
  IMAGE_SCN_MEM_EXECUTE,
  IMAGE_SCN_MEM_READ,
  IMAGE_SCN_MEM_WRITE,
  MACHINE_ARMNT,
  MACHINE_THUMB,
} from "./constants.ts";
import { chainOwners } from "./exceptions.ts";
import { findImportThunks } from "./import_thunks.ts";
import { parsePe } from "./parse.ts";

/**
 * Reads a PE image into the format-neutral {@linkcode BinaryImage}.
 *
 * Addresses are virtual addresses (image base plus RVA). Functions are the
 * union of the exports that lie in executable sections (source `export`),
 * the `.pdata` function starts (source `pdata`, with their sizes), COFF
 * function symbols in executable sections when the file has any (source
 * `symtab`), the entry point (source `entry`), the TLS callbacks (source
 * `tls-callback`), the FDEs of a MinGW image's `.eh_frame` (source
 * `eh-frame`, with their sizes) and the import thunks (source `import-thunk`: a
 * `jmp [IAT slot]` that starts where a procedure can, sized by its jump and
 * named after its import, see `findImportThunks`), one per address, in
 * ascending order. Where several coincide, the source is the first of
 * export, symtab, entry, tls-callback, pdata, eh-frame, import-thunk; the
 * name comes from the exports, else from the COFF symbols, and the size from
 * `.pdata` or the FDE (the larger). An x64 `.pdata` entry
 * chained to another (UNW_FLAG_CHAININFO) is a piece of the function its
 * chain leads to, not a function: pieces that adjoin the function's first
 * stretch extend its size, the others are its `parts`. Imports name their
 * DLL and the address calls to them go through: their thunk, with the IAT
 * slot in `slots`, when one has a thunk (as an ELF import names its PLT stub
 * and its GOT slots), else the IAT slot; imports by ordinal are named
 * `#<ordinal>`, as are exports by ordinal only.
 *
 * @param bytes The whole file.
 * @param document A short name for the document, e.g. the file name.
 * @returns The image; `warnings` are those of {@linkcode parsePe}.
 * @throws {PeParseError} As {@linkcode parsePe}.
 */
export function peImage(bytes: Uint8Array, document: string): BinaryImage {
  const pe = parsePe(bytes);
  const base = pe.imageBase;
  const va = (rva: number): bigint => base + BigInt(rva);
  const length = bytes.length;

  const sections: ImageSection[] = pe.sections.map((s) => {
    const size = s.virtualSize !== 0 ? s.virtualSize : s.rawDataSize;
    const fileSize = s.rawDataPointer >= length
      ? 0
      : Math.min(s.rawDataSize, size, length - s.rawDataPointer);
    const c = s.characteristics;
    return {
      name: s.name,
      address: va(s.virtualAddress),
      size: BigInt(size),
      fileOffset: fileSize > 0 ? s.rawDataPointer : null,
      fileSize,
      readable: (c & IMAGE_SCN_MEM_READ) !== 0,
      writable: (c & IMAGE_SCN_MEM_WRITE) !== 0,
      executable: (c & IMAGE_SCN_MEM_EXECUTE) !== 0,
    };
  });

  const { functions, thunks } = collectFunctions(pe, bytes);

  const imports: ImageImport[] = [];
  const libraries: string[] = [];
  const seenLibraries = new Set<string>();
  for (const library of pe.imports) {
    if (!seenLibraries.has(library.name)) {
      seenLibraries.add(library.name);
      libraries.push(library.name);
    }
    for (const symbol of library.symbols) {
      const name = symbol.name ?? (symbol.ordinal !== null ? `#${symbol.ordinal}` : null);
      if (name === null) continue;
      const thunk = thunks.get(symbol.slotRva);
      imports.push(
        thunk === undefined
          ? { library: library.name, name, address: va(symbol.slotRva) }
          : { library: library.name, name, address: va(thunk), slots: [va(symbol.slotRva)] },
      );
    }
  }

  const code = codeRva(pe);
  const exports: ImageExport[] = pe.exports.map((e) => {
    const name = e.name ?? `#${e.ordinal}`;
    return e.forwarder !== null
      ? { name, address: null, forwardedTo: e.forwarder }
      : { name, address: va(code(e.rva)) };
  });

  return withGoTable({
    format: "pe",
    document,
    architecture: pe.architecture,
    machine: pe.machineName,
    bits: pe.bits,
    endianness: "little",
    entry: pe.entryRva !== 0 ? va(code(pe.entryRva)) : null,
    sections,
    functions,
    codePointers: pe.codePointers.map((rva) => va(code(rva))),
    imports,
    exports,
    libraries,
    buildId: pe.buildId,
    warnings: pe.warnings,
    fileBase: 0,
    overlay: peOverlay(pe, length),
    bytes,
  });
}

/** What follows the headers and every section's raw data, as pefile's overlay offset says. */
function peOverlay(
  pe: { sizeOfHeaders: number; sections: readonly PeSection[] },
  length: number,
): { offset: number; size: number } | null {
  let end = Math.min(pe.sizeOfHeaders, length);
  for (const s of pe.sections) {
    if (s.rawDataSize === 0 || s.rawDataPointer >= length) continue;
    end = Math.max(end, Math.min(length, s.rawDataPointer + s.rawDataSize));
  }
  return overlayAfter(end, length);
}

/** Which source a function reports when several know it (lower wins). */
const SOURCE_RANK = {
  export: 0,
  symtab: 1,
  entry: 2,
  "tls-callback": 3,
  pdata: 4,
  "eh-frame": 5,
  "import-thunk": 6,
} as const;

const SOURCE_OF_RANK: readonly FunctionSource[] = [
  "export",
  "symtab",
  "entry",
  "tls-callback",
  "pdata",
  "eh-frame",
  "import-thunk",
];

interface FunctionDraft {
  rank: number;
  size: number;
  exportNames: string[];
  symbolNames: string[];
  /** Stretches of the function apart from its first, as `[begin, end)` RVAs. */
  parts?: [number, number][];
}

/** The draft of the function at `rva`, made when there is none; `rank` lowered to the best seen. */
function draftAt(drafts: Map<number, FunctionDraft>, rva: number, rank: number): FunctionDraft {
  let d = drafts.get(rva);
  if (d === undefined) {
    d = { rank, size: 0, exportNames: [], symbolNames: [] };
    drafts.set(rva, d);
  } else if (rank < d.rank) d.rank = rank;
  return d;
}

/** Whether `name` is a better choice than `current`: the shorter, then code-unit order. */
function isBetterName(name: string, current: string): boolean {
  if (name.length !== current.length) return name.length < current.length;
  return name < current;
}

function collectFunctions(
  pe: PeFile,
  bytes: Uint8Array,
): { functions: ImageFunction[]; thunks: Map<number, number> } {
  const inCode = codeTest(pe);
  const thumb = isThumbOnly(pe);
  const code = codeRva(pe, inCode);
  // Keys are RVAs (below 2^33 even for COFF symbols, so exact as numbers).
  const drafts = new Map<number, FunctionDraft>();
  const draft = (rva: number, rank: number): FunctionDraft => draftAt(drafts, rva, rank);
  for (const e of pe.exports) {
    if (e.forwarder !== null || e.rva === 0 || !inCode(e.rva)) continue;
    const d = draft(code(e.rva), SOURCE_RANK.export);
    if (e.name !== null && !d.exportNames.includes(e.name)) d.exportNames.push(e.name);
  }
  for (const s of pe.symbols) {
    if ((s.type >> 4) !== 2 || s.sectionNumber <= 0) continue;
    const section = pe.sections[s.sectionNumber - 1];
    if (section === undefined) continue;
    const rva = section.virtualAddress + s.value;
    if (!inCode(rva)) continue;
    const d = draft(code(rva), SOURCE_RANK.symtab);
    if (s.name !== "" && !d.symbolNames.includes(s.name)) d.symbolNames.push(s.name);
  }
  if (pe.entryRva !== 0) draft(code(pe.entryRva), SOURCE_RANK.entry);
  // The loader calls each TLS callback as it calls the entry point.
  for (const rva of pe.tlsCallbacks) {
    if (rva !== 0 && inCode(rva)) draft(code(rva), SOURCE_RANK["tls-callback"]);
  }
  // An entry chained to another is a piece of the function its chain leads to, unless an
  // export, a COFF symbol or the entry point starts there (parsePe warns about the rest).
  const owners = chainOwners(pe.runtimeFunctions);
  const pieces = new Map<number, [number, number][]>();
  for (const f of pe.runtimeFunctions) {
    const owner = drafts.has(f.begin) ? undefined : owners.get(f);
    if (owner !== undefined) {
      if (f.end !== null && f.end > f.begin) {
        let list = pieces.get(owner);
        if (list === undefined) pieces.set(owner, list = []);
        list.push([f.begin, f.end]);
      }
      continue;
    }
    const d = draft(f.begin, SOURCE_RANK.pdata);
    if (f.end !== null && f.end > f.begin && f.end - f.begin > d.size) d.size = f.end - f.begin;
  }
  // MinGW's `.eh_frame`: one FDE per function it compiled, sized.
  for (const f of pe.frameFunctions) {
    if (!inCode(f.begin)) continue;
    const d = draft(code(f.begin), SOURCE_RANK["eh-frame"]);
    if (f.size > d.size) d.size = f.size;
  }
  // A function's chained pieces: those adjoining its first stretch extend it, the rest are parts.
  for (const [owner, list] of pieces) {
    const d = drafts.get(owner)!;
    list.push([owner, owner + d.size]);
    list.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const [begin, end] of list) {
      const last = merged.at(-1);
      if (last !== undefined && begin <= last[1]) last[1] = Math.max(last[1], end);
      else merged.push([begin, end]);
    }
    const parts: [number, number][] = [];
    for (const range of merged) {
      if (owner >= range[0] && owner < range[1]) d.size = range[1] - owner;
      else if (range[1] > range[0]) parts.push(range);
    }
    if (parts.length > 0) d.parts = parts;
  }
  const thunks = addImportThunks(pe, bytes, drafts);

  const keys = Float64Array.from(drafts.keys()).sort();
  const base = pe.imageBase;
  const functions: ImageFunction[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const rva = keys[i]!;
    const d = drafts.get(rva)!;
    const preferred = d.exportNames.length > 0 ? d.exportNames : d.symbolNames;
    let name = preferred[0] ?? "";
    for (const candidate of preferred) if (isBetterName(candidate, name)) name = candidate;
    const names = d.exportNames.concat(d.symbolNames.filter((n) => !d.exportNames.includes(n)));
    names.sort();
    functions[i] = {
      address: base + BigInt(rva),
      size: BigInt(d.size),
      name,
      names,
      source: SOURCE_OF_RANK[d.rank]!,
      ...(thumb ? { thumb: true } : {}),
      ...(d.parts === undefined ? {} : {
        parts: d.parts.map(([begin, end]) => ({
          address: base + BigInt(begin),
          size: BigInt(end - begin),
        })),
      }),
    };
  }
  return { functions, thunks };
}

/**
 * Adds each import thunk no other function starts at as a function of its
 * own, named after its import (source `import-thunk`, the size of its `jmp`).
 *
 * @returns The first such thunk of each IAT slot, by slot RVA: the address calls to the import go through.
 */
function addImportThunks(
  pe: PeFile,
  bytes: Uint8Array,
  drafts: Map<number, FunctionDraft>,
): Map<number, number> {
  const sized: [number, number][] = [];
  for (const [rva, d] of drafts) if (d.size > 0) sized.push([rva, rva + d.size]);
  for (const d of drafts.values()) for (const part of d.parts ?? []) sized.push(part);
  sized.sort((a, b) => a[0] - b[0]);
  const names = new Map<number, string>();
  for (const library of pe.imports) {
    for (const symbol of library.symbols) {
      const name = symbol.name ?? (symbol.ordinal !== null ? `#${symbol.ordinal}` : null);
      if (name !== null && !names.has(symbol.slotRva)) names.set(symbol.slotRva, name);
    }
  }
  const bySlot = new Map<number, number>();
  for (const thunk of findImportThunks(pe, bytes, sized, new Set(drafts.keys()))) {
    // A function that starts with a jump through a slot is that function (an export, say).
    if (drafts.has(thunk.rva)) continue;
    const d = draftAt(drafts, thunk.rva, SOURCE_RANK["import-thunk"]);
    d.size = thunk.size;
    const name = names.get(thunk.slotRva);
    if (name !== undefined) d.symbolNames.push(name);
    if (!bySlot.has(thunk.slotRva)) bySlot.set(thunk.slotRva, thunk.rva);
  }
  return bySlot;
}

/** Machines whose code Windows runs as Thumb-2 only (ARMNT, THUMB). */
function isThumbOnly(pe: PeFile): boolean {
  return pe.machine === MACHINE_ARMNT || pe.machine === MACHINE_THUMB;
}

/** Whether an RVA lies in an executable (or code) section of `pe`. */
function codeTest(pe: PeFile): (rva: number) => boolean {
  const executable = pe.sections.filter((s) =>
    (s.characteristics & (IMAGE_SCN_MEM_EXECUTE | IMAGE_SCN_CNT_CODE)) !== 0
  );
  return (rva) =>
    executable.some((s) => {
      const size = s.virtualSize !== 0 ? s.virtualSize : s.rawDataSize;
      return rva >= s.virtualAddress && rva - s.virtualAddress < size;
    });
}

/**
 * An RVA as a code address: on a Thumb-only machine, bit 0 of an address in
 * an executable section is the Thumb bit, cleared here; elsewhere unchanged.
 */
function codeRva(
  pe: PeFile,
  inCode: (rva: number) => boolean = codeTest(pe),
): (rva: number) => number {
  if (!isThumbOnly(pe)) return (rva) => rva;
  return (rva) => (inCode(rva) ? rva - (rva % 2) : rva);
}
