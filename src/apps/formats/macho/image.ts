/**
 * The Mach-O reader's view of a file translated into format-neutral
 * `BinaryImage` documents, one per slice.
 *
 * @module
 */

import { withGoTable } from "../go/functions.ts";
import {
  type BinaryImage,
  type FunctionSource,
  type ImageExport,
  type ImageFunction,
  type ImageImport,
  type ImageSection,
  overlayAfter,
} from "../binary_image.ts";
import {
  CPU_TYPE_ARM,
  S_GB_ZEROFILL,
  S_THREAD_LOCAL_ZEROFILL,
  S_ZEROFILL,
  VM_PROT_EXECUTE,
  VM_PROT_READ,
  VM_PROT_WRITE,
} from "./constants.ts";

import type { MachOSlice } from "./model.ts";
import { parseMachO } from "./parse.ts";
import { fileLevelWarnings } from "./universal.ts";

/**
 * One {@linkcode BinaryImage} per slice of a Mach-O file.
 *
 * - `document`: `fileName` for a thin file; `"<fileName> (<cpu>)"` for each
 *   slice of a universal file (such as `fsevents.node (arm64)`), with ` 2`,
 *   ` 3`, … after the CPU name when slices share one, so names are unique.
 * - `fileBase` is the slice's offset in the file and `bytes` the slice's
 *   subarray; section `fileOffset`s are relative to `bytes`.
 * - `sections`: every section, named `segname,sectname` (`__TEXT,__text`),
 *   plus each segment without sections under its own name (`__PAGEZERO`,
 *   `__LINKEDIT`); readable / writable / executable come from the segment's
 *   initial protection, and a section of an executable segment says whether
 *   it holds instructions (`instructions`, from S_ATTR_PURE_INSTRUCTIONS or
 *   S_ATTR_SOME_INSTRUCTIONS). Zero-fill sections have no file offset.
 * - `functions`: the union, unique by address and sorted, of LC_FUNCTION_STARTS
 *   (source `"function-starts"`), N_SECT symbols in executable sections —
 *   sections of an executable segment that hold instructions
 *   (S_ATTR_PURE_INSTRUCTIONS or S_ATTR_SOME_INSTRUCTIONS) — whose value
 *   lies inside their own section (so `__mh_execute_header` is none) (`"symtab"`),
 *   exports-trie entries in such sections (`"export"`) and the entry point
 *   (`"entry"`). The source is the first of symtab, export, entry,
 *   function-starts that knows the address. Names are kept exactly as the
 *   symbol table and the trie store them, leading underscore included
 *   (`_main`); the chosen name prefers an external symbol, then an export,
 *   then a local symbol, then the shorter name. Sizes are 0 (Mach-O records
 *   none). On 32-bit ARM the Thumb bit is cleared.
 * - `imports`: one per undefined external symbol; `library` is the install
 *   name of the dylib its two-level library ordinal names (null in a flat
 *   namespace image and for the self, main-executable and dynamic-lookup
 *   ordinals); `address` is its first symbol stub, else its lazy or non-lazy
 *   symbol pointer, else null.
 * - `exports`: every exports-trie entry; a re-export has a null address and
 *   `forwardedTo` = `<install name of the dylib>.<symbol>`.
 * - `libraries`: install names of the dependent dylibs in ordinal order.
 * - `buildId`: LC_UUID as 32 lower-case hex digits, or null.
 * - `warnings`: the universal header's warnings followed by the slice's.
 *
 * @param bytes The whole file.
 * @param fileName The name to give the documents.
 * @returns The images, in the universal header's order.
 * @throws {MachOParseError} As {@linkcode parseMachO}.
 */
export function machOImages(bytes: Uint8Array, fileName: string): BinaryImage[] {
  const file = parseMachO(bytes);
  const universalWarnings = file.universal ? fileLevelWarnings(file) : [];
  const seen = new Map<string, number>();
  return file.slices.map((slice) => {
    let document = fileName;
    // A thin file's image may be followed by data of its own (an overlay); a universal file's
    // follows its last slice, and each slice's document reports it.
    const overlay = file.universal
      ? universalOverlay(file.extent ?? bytes.length, bytes)
      : machOOverlay(slice, bytes.length);
    if (file.universal) {
      const n = (seen.get(slice.cpuName) ?? 0) + 1;
      seen.set(slice.cpuName, n);
      document = `${fileName} (${slice.cpuName}${n > 1 ? ` ${n}` : ""})`;
    }
    const image = sliceImage(
      slice,
      bytes.subarray(slice.offset, slice.offset + slice.size),
      document,
      universalWarnings,
    );
    return withGoTable(overlay === undefined ? image : { ...image, overlay });
  });
}

/** What follows every architecture of a universal file (its first bytes kept to name it). */
function universalOverlay(
  extent: number,
  bytes: Uint8Array,
): { offset: number; size: number; head: Uint8Array } | null {
  const overlay = overlayAfter(extent, bytes.length);
  return overlay && { ...overlay, head: bytes.slice(extent, extent + OVERLAY_HEAD_BYTES) };
}

/** Bytes of a universal file's overlay kept to tell what it is. */
const OVERLAY_HEAD_BYTES = 4096;

/** Bytes of a `nlist` / `nlist_64` entry. */
const NLIST_BYTES = { 32: 12, 64: 16 } as const;

/**
 * What follows a thin file's image: past the header and load commands, every segment's file
 * content (`__LINKEDIT` holds the symbol and string tables, the dyld information and the code
 * signature) and the symbol and string tables; null when nothing does. Undefined for a
 * relocatable object, whose relocation entries lie outside its one segment and are not measured.
 */
function machOOverlay(
  slice: MachOSlice,
  length: number,
): { offset: number; size: number } | null | undefined {
  if (slice.fileType === "object") return undefined;
  let end = (slice.bits === 64 ? 32 : 28) + slice.sizeofcmds;
  for (const segment of slice.segments) {
    if (segment.fileSize > 0) end = Math.max(end, segment.fileOffset + segment.fileSize);
  }
  const symtab = slice.symtab;
  if (symtab !== null) {
    end = Math.max(
      end,
      symtab.symbolOffset + symtab.symbolCount * NLIST_BYTES[slice.bits],
      symtab.stringOffset + symtab.stringSize,
    );
  }
  return overlayAfter(end, length);
}

const SOURCE_RANK: Readonly<Partial<Record<FunctionSource, number>>> = {
  symtab: 0,
  export: 1,
  entry: 2,
  "function-starts": 3,
};

interface Candidate {
  address: bigint;
  source: FunctionSource;
  name: string;
  /** 0 external symbol, 1 export, 2 local symbol, 3 unnamed. */
  nameRank: number;
  names: Set<string>;
  /** 32-bit ARM: some symbol or start marks the address as Thumb code. */
  thumb: boolean;
}

/** `n_desc` flag of a 32-bit ARM symbol that defines Thumb code. */
const N_ARM_THUMB_DEF = 0x0008;

function sliceImage(
  slice: MachOSlice,
  bytes: Uint8Array,
  document: string,
  universalWarnings: string[],
): BinaryImage {
  const thumb = slice.cputype === CPU_TYPE_ARM;
  const clear = (a: bigint): bigint => (thumb ? a & ~1n : a);
  const sections: ImageSection[] = [];
  /** Executable sections that hold instructions, for classifying symbols and exports. */
  const code: { start: bigint; end: bigint }[] = [];
  /** Ranges of those sections by section ordinal. */
  const codeOrdinals = new Map<number, { start: bigint; end: bigint }>();
  for (const segment of slice.segments) {
    const prot = segment.initialProtection;
    const flags = {
      readable: (prot & VM_PROT_READ) !== 0,
      writable: (prot & VM_PROT_WRITE) !== 0,
      executable: (prot & VM_PROT_EXECUTE) !== 0,
    };
    if (segment.sections.length === 0) {
      const inFile = segment.fileSize > 0 && segment.fileOffset < bytes.length;
      sections.push({
        name: segment.name,
        address: segment.address,
        size: segment.vmSize,
        fileOffset: inFile ? segment.fileOffset : null,
        fileSize: inFile ? Math.min(segment.fileSize, bytes.length - segment.fileOffset) : 0,
        ...flags,
      });
      continue;
    }
    for (const s of segment.sections) {
      const zeroFill = s.type === S_ZEROFILL || s.type === S_GB_ZEROFILL ||
        s.type === S_THREAD_LOCAL_ZEROFILL;
      const inFile = !zeroFill && s.size > 0n && s.offset < bytes.length;
      const fileSize = inFile ? Math.min(Number(s.size), bytes.length - s.offset) : 0;
      sections.push({
        name: `${s.segmentName},${s.name}`,
        address: s.address,
        size: s.size,
        fileOffset: inFile ? s.offset : null,
        fileSize,
        ...flags,
        ...(flags.executable ? { instructions: s.instructions } : {}),
      });
      if (flags.executable && s.instructions) {
        const range = { start: s.address, end: s.address + s.size };
        code.push(range);
        codeOrdinals.set(s.ordinal, range);
      }
    }
  }
  const inCode = (a: bigint): boolean => code.some((c) => a >= c.start && a < c.end);

  const candidates = new Map<bigint, Candidate>();
  const add = (
    address: bigint,
    source: FunctionSource,
    name: string,
    nameRank: number,
    thumbCode = false,
  ): void => {
    const existing = candidates.get(address);
    if (existing === undefined) {
      candidates.set(address, {
        address,
        source,
        name,
        nameRank: name === "" ? 3 : nameRank,
        names: new Set(name === "" ? [] : [name]),
        thumb: thumbCode,
      });
      return;
    }
    if (thumbCode) existing.thumb = true;
    if (SOURCE_RANK[source]! < SOURCE_RANK[existing.source]!) existing.source = source;
    if (name === "") return;
    existing.names.add(name);
    const current = existing.name;
    if (
      nameRank < existing.nameRank ||
      (nameRank === existing.nameRank &&
        (name.length < current.length || (name.length === current.length && name < current)))
    ) {
      existing.name = name;
      existing.nameRank = nameRank;
    }
  };
  for (const s of slice.symbols) {
    if (s.kind !== "section") continue;
    const range = codeOrdinals.get(s.sectionOrdinal);
    // A symbol outside its own section's bytes (__mh_execute_header) is no function.
    if (range === undefined || s.value < range.start || s.value >= range.end) continue;
    const thumbCode = thumb && ((s.desc & N_ARM_THUMB_DEF) !== 0 || (s.value & 1n) === 1n);
    add(clear(s.value), "symtab", s.name, s.external ? 0 : 2, thumbCode);
  }
  // Elsewhere bit 0 of a 32-bit ARM code address marks Thumb code.
  const odd = (a: bigint): boolean => thumb && (a & 1n) === 1n;
  for (const e of slice.exports) {
    if (e.address === null || e.kind === "absolute" || e.kind === "thread-local") continue;
    if (!inCode(e.address)) continue;
    add(clear(e.address), "export", e.name, 1, odd(e.address));
  }
  if (slice.entry !== null) add(clear(slice.entry), "entry", "", 3, odd(slice.entry));
  for (const a of slice.functionStarts) add(clear(a), "function-starts", "", 3, odd(a));

  const functions: ImageFunction[] = [...candidates.values()]
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))
    .map((c) => ({
      address: c.address,
      size: 0n,
      name: c.name,
      names: [...c.names].sort(),
      source: c.source,
      ...(c.thumb ? { thumb: true } : {}),
    }));

  const imports: ImageImport[] = slice.imports.map((i) => ({
    library: i.library,
    name: i.name,
    address: i.stub ?? i.pointer,
  }));
  const exports: ImageExport[] = slice.exports.map((e) => {
    if (e.reexport === null) return { name: e.name, address: e.address };
    return {
      name: e.name,
      address: null,
      forwardedTo: `${e.reexport.library ?? `#${e.reexport.ordinal}`}.${e.reexport.name}`,
    };
  });
  return {
    format: "mach-o",
    document,
    architecture: slice.architecture,
    machine: slice.machine,
    bits: slice.bits,
    endianness: slice.endianness,
    entry: slice.entry === null ? null : clear(slice.entry),
    sections,
    functions,
    imports,
    exports,
    libraries: slice.dylibs.map((d) => d.name),
    buildId: slice.uuid === null ? null : slice.uuid.replaceAll("-", "").toLowerCase(),
    warnings: [...universalWarnings, ...slice.warnings],
    fileBase: slice.offset,
    bytes,
  };
}
