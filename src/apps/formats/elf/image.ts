/**
 * The ELF reader's view of a file ({@linkcode ElfImage}) translated into the
 * format-neutral {@linkcode BinaryImage}.
 *
 * @module
 */

import { dynamicSymbolTable } from "./dynamic_symbols.ts";
import { armIndexRanges } from "./arm_exidx.ts";
import { EM_ARM, SHN_ABS } from "./constants.ts";
import { firstAtOrAfter } from "./_util.ts";
import type { ElfSymbolVersions } from "./symbol_versions.ts";
import { ehFrameRanges } from "./eh_frame.ts";
import { withGoTable } from "../go/functions.ts";
import { appliesCallRelocations, applyCallRelocations } from "./object_relocations.ts";
import {
  type ElfHeaders,
  type ElfImage,
  type ElfRangeTable,
  type ParseElfOptions,
  RELOCATABLE_BASE,
} from "./model.ts";
import { parseElf, parseElfHeaders } from "./parse.ts";
import { elfHeaderRanges } from "./header_ranges.ts";
import { deferredImage, type ImageHead, type ImageRest } from "../deferred_image.ts";
import {
  type BinaryImage,
  type CodeMarkKind,
  type ExportVersions,
  type FunctionSource,
  HIDDEN_VERSION,
  type ImageCodeMark,
  type ImageExport,
  type ImageFunction,
  type ImageImport,
  type ImageLocalBinding,
  type ImageSection,
  overlayAfter,
} from "../binary_image.ts";

/** Options for {@linkcode elfImage}. */
export interface ElfImageOptions extends ParseElfOptions {
  /** The result of `parseElf(bytes)` when the caller already has it (the limits are then unused). */
  parsed?: ElfImage;
  /**
   * Whether to add the `.eh_frame` function starts that no symbol names.
   *
   * @default {true}
   */
  ehFrameFunctions?: boolean;
}

const SHF_WRITE = 1n;
const SHF_ALLOC = 2n;
const SHF_EXECINSTR = 4n;
const SHF_TLS = 0x400n;
const SHT_NOBITS = 8;
const PT_LOAD = 1;
const PF_X = 1;
const PF_W = 2;
const PF_R = 4;
/** The names of every unnamed function: one shared, frozen empty list. */
const NO_NAMES: string[] = Object.freeze([]) as unknown as string[];

/**
 * Reads an ELF file into a {@linkcode BinaryImage}.
 *
 * - `sections`: the allocated sections (SHF_ALLOC) of the section header
 *   table, except `.tbss`-like SHT_NOBITS TLS sections, which take no address
 *   space of their own; without section headers, the PT_LOAD segments,
 *   named `LOAD[0]`, `LOAD[1]`, … in program header order.
 * - `functions`: the symbol functions and the entry point, plus one function
 *   per `.eh_frame` FDE whose start no symbol names (source `"eh-frame"`,
 *   unnamed, sized by the FDE's pc_range) when it lies in an executable
 *   section or segment; unless `options.ehFrameFunctions` is false. A symbol
 *   function of size 0 takes the size of an FDE starting at the same address.
 * - `functionTables`: `symtab` when a `.symtab` symbol gave a function,
 *   `eh-frame` when an FDE starts in code (named by a symbol or not), and for
 *   32-bit ARM without FDEs `arm-exidx` when an exception index entry does
 *   (its entries also mark Thumb code).
 * - `imports`: undefined dynamic symbols (for a relocatable file, undefined
 *   `.symtab` symbols) of type STT_FUNC, STT_GNU_IFUNC or STT_NOTYPE, or of
 *   any type with a JUMP_SLOT relocation (Go types them all STT_OBJECT), with
 *   the PLT stub address when one calls through their GOT slot and their GOT
 *   slots (`slots`, for calls that go through the slot directly); `version`
 *   is the symbol version it needs (`.gnu.version`) and `library` the library
 *   that version's requirement names (`.gnu.version_r`), null for an
 *   unversioned import, since ELF binds no other symbol to a library.
 * - `localBindings`: JUMP_SLOT and GLOB_DAT relocations against function
 *   symbols the object defines, and RELATIVE relocations of GOT slots to its
 *   code, with their PLT stub and GOT slots: calls through them reach the
 *   function.
 * - `exports`: defined global, weak and unique (STB_GNU_UNIQUE) dynamic STT_FUNC, STT_GNU_IFUNC and
 *   STT_OBJECT symbols in dynamic symbol table order (not the absolute
 *   symbols at 0 that name version definitions), each name and address
 *   once (Thumb bit cleared for ARM functions); `exportVersions` their
 *   symbol versions, when any carries one.
 * - `codeMarks`: the ARM and AArch64 mapping symbols of `.symtab` in
 *   executable sections (`$a` ARM, `$t` Thumb, `$x` code, `$d` data).
 * - `entry`: null for relocatable files and when `e_entry` is 0.
 * - Relocatable files (ET_REL): the allocated sections are laid out one after
 *   another from 0x1000 (`relocatable_layout.ts`) and the functions placed in
 *   them; for x86-64, i386, AArch64 and 32-bit ARM (little-endian), each
 *   import takes a placeholder address after the last section, and `bytes`
 *   is a copy of the file with the relocations of call and jump operands
 *   applied (`object_relocations.ts`), so decoding reaches the called import
 *   or function. A warning says so.
 *
 * @param bytes The whole file.
 * @param document A short name for the document, such as the file name.
 * @param options Parser limits, or an existing parse of `bytes`.
 * @throws {ElfParseError} When the bytes are not an ELF file (see {@linkcode parseElf}).
 */
export function elfImage(
  bytes: Uint8Array,
  document: string,
  options: ElfImageOptions = {},
): BinaryImage {
  const given = options.parsed;
  const elf = given !== undefined && (given.type !== "relocatable" || given.layout !== undefined)
    ? given
    : parseElf(bytes, { ...options, layoutRelocatable: true });
  const sections = imageSections(elf, bytes.length);
  const tables: FunctionSource[] = [];
  const notes: string[] = [];
  const functions = imageFunctions(elf, bytes, sections, options.ehFrameFunctions ?? true, {
    tables,
    notes,
  });
  addStartupFunctions(elf, bytes, sections, functions, tables);
  const head = imageHead(elf, bytes, document, sections);
  let imports = imageImports(elf);
  let unrelocatedSites: bigint[] | undefined;
  if (elf.layout !== undefined) {
    const linked = linkObjectCalls(elf, bytes, { sections, imports });
    imports = linked.imports;
    head.bytes = linked.bytes;
    notes.unshift(linked.note);
    if (linked.unrelocated.length > 0) unrelocatedSites = linked.unrelocated;
  }
  return withGoTable({
    ...head,
    warnings: notes.length === 0 ? head.warnings : [...head.warnings, ...notes],
    functions,
    functionTables: tables,
    ...(unrelocatedSites === undefined ? {} : { unrelocatedSites }),
    imports,
    localBindings: imageLocalBindings(elf),
    ...imageExports(elf),
    ...codeMarksOf(elf, sections),
    libraries: [...elf.dynamic.needed],
  });
}

const MARK_KINDS: Readonly<Record<"a" | "t" | "x" | "d", CodeMarkKind>> = {
  a: "arm",
  t: "thumb",
  x: "code",
  d: "data",
};

/**
 * The mapping symbols that lie in executable sections as code marks (none
 * when there are none), dropping a mark that repeats the one before it in
 * the same section.
 */
function codeMarksOf(
  elf: ElfImage,
  sections: ImageSection[],
): { codeMarks?: ImageCodeMark[] } {
  if (elf.mappingSymbols.length === 0) return {};
  const code = sections.filter((s) => s.executable);
  const marks: ImageCodeMark[] = [];
  let section: ImageSection | undefined;
  for (const symbol of elf.mappingSymbols) {
    const inSection = section !== undefined && symbol.address >= section.address &&
      symbol.address < section.address + section.size;
    const previous = inSection ? marks.at(-1) : undefined;
    if (!inSection) {
      section = code.find((s) =>
        symbol.address >= s.address && symbol.address < s.address + s.size
      );
      if (section === undefined) continue;
    }
    const kind = MARK_KINDS[symbol.kind];
    if (previous?.kind === kind) continue;
    marks.push({ address: symbol.address, kind });
  }
  return marks.length === 0 ? {} : { codeMarks: marks };
}

/**
 * An ELF file as a deferred {@linkcode BinaryImage}: only the headers and the
 * build id note are read now ({@linkcode parseElfHeaders}); the symbol
 * tables, `.eh_frame`, the dynamic section and the PLT are read by
 * {@linkcode elfImage} on the first use of a deferred field (see
 * `deferred_image.ts`). The identifying fields equal `elfImage`'s, and a file
 * `elfImage` refuses is refused here, now.
 *
 * @param bytes The whole file.
 * @param document A short name for the document, such as the file name.
 * @param options Parser limits (`parsed` is not used).
 * @throws {ElfParseError} When the bytes are not an ELF file (see {@linkcode parseElf}).
 */
export function deferredElfImage(
  bytes: Uint8Array,
  document: string,
  options: ElfImageOptions = {},
): BinaryImage {
  const headers = parseElfHeaders(bytes, { ...options, layoutRelocatable: true });
  // An object is read whole at once: its call relocations change the bytes decoding reads.
  if (headers.layout !== undefined) {
    const { parsed: _, ...limits } = options;
    return elfImage(bytes, document, limits);
  }
  const head = imageHead(headers, bytes, document, imageSections(headers, bytes.length));
  return deferredImage(head, () => {
    const { parsed: _, ...limits } = options;
    return elfImage(bytes, document, limits) as ImageRest;
  });
}

/** The identifying fields of the image (every field but the deferred ones). */
function imageHead(
  elf: ElfHeaders,
  bytes: Uint8Array,
  document: string,
  sections: ImageSection[],
): ImageHead {
  return {
    format: "elf",
    document,
    architecture: elf.architecture ?? "other",
    machine: elf.machineName,
    bits: elf.bits,
    endianness: elf.endianness,
    entry: elf.type === "relocatable" || elf.entry === 0n
      ? null
      : elf.machine === EM_ARM
      ? elf.entry & ~1n
      : elf.entry,
    sections,
    buildId: elf.buildId,
    warnings: [...elf.warnings],
    fileBase: 0,
    overlay: elfOverlay(elf, bytes),
    bytes,
  };
}

/**
 * What follows the ELF image: past the ELF header, the program and section header tables (the
 * ranges {@linkcode elfHeaderRanges} names), every section with file contents and every
 * segment's file bytes.
 */
function elfOverlay(
  elf: ElfHeaders,
  bytes: Uint8Array,
): { offset: number; size: number } | null {
  const length = bytes.length;
  // The ELF header itself, even when too short for the ranges to be read.
  let end = Math.min(length, elf.bits === 64 ? 64 : 52);
  const reach = (offset: number, size: number): void => {
    if (offset < length && size > 0) end = Math.max(end, Math.min(length, offset + size));
  };
  for (const [start, stop] of elfHeaderRanges(bytes, Infinity) ?? []) reach(start, stop - start);
  for (const s of elf.sections) if (s.type !== SHT_NOBITS) reach(s.offset, s.size);
  for (const s of elf.segments) reach(s.offset, s.fileSize);
  return overlayAfter(end, length);
}

/**
 * The warning that says a relocatable file's addresses are the reader's
 * layout, ending with what became of its relocations.
 */
function layoutNote(sections: ImageSection[], relocations: string): string {
  const first = sections[0]?.address ?? RELOCATABLE_BASE;
  return `This is a relocatable object (ET_REL): its sections have no addresses, so the ` +
    `addresses shown are a layout made for reading, not taken from the file (the allocated ` +
    `sections one after another from 0x${first.toString(16)}, each aligned to its ` +
    `sh_addralign), and ${relocations}`;
}

/**
 * For a relocatable object: a placeholder address for each import (16 bytes
 * apart, after the last section), and the file's bytes with the call and jump
 * relocations applied against the layout and those addresses (x86-64, i386,
 * AArch64 and 32-bit ARM, little-endian), with the warning that says so.
 */
function linkObjectCalls(
  elf: ElfImage,
  bytes: Uint8Array,
  given: { sections: ImageSection[]; imports: ImageImport[] },
): { imports: ImageImport[]; bytes: Uint8Array; note: string; unrelocated: bigint[] } {
  const { sections } = given;
  if (!appliesCallRelocations(elf)) {
    return {
      imports: given.imports,
      bytes,
      note: layoutNote(sections, "its relocations are not applied."),
      unrelocated: applyCallRelocations(elf, bytes, new Map()).unapplied,
    };
  }
  let end = RELOCATABLE_BASE;
  for (const s of sections) if (s.address + s.size > end) end = s.address + s.size;
  const first = (end + 15n) / 16n * 16n;
  const addresses = new Map<string, bigint>();
  const imports = given.imports.map((entry, k) => {
    const address = first + 16n * BigInt(k);
    addresses.set(entry.name, address);
    return { ...entry, address };
  });
  const applied = applyCallRelocations(elf, bytes, addresses);
  const placeholders = imports.length === 0
    ? ""
    : ` Each import has a placeholder address, 16 bytes apart from 0x${first.toString(16)}.`;
  const note = layoutNote(
    sections,
    `only the relocations of call and jump operands are applied (${applied.applied}` +
      `${
        applied.unresolved > 0 ? `, ${applied.unresolved} left unresolved` : ""
      }), to the code that is decoded; other relocations are not.${placeholders}`,
  );
  return { imports, bytes: applied.bytes, note, unrelocated: applied.unapplied };
}

function imageSections(
  elf: Pick<ElfHeaders, "sections" | "segments" | "layout">,
  fileLength: number,
): ImageSection[] {
  const sections: ImageSection[] = [];
  for (const s of elf.sections) {
    if ((s.flags & SHF_ALLOC) === 0n) continue;
    const nobits = s.type === SHT_NOBITS;
    if (nobits && (s.flags & SHF_TLS) !== 0n) continue;
    const inFile = !nobits && s.offset < fileLength;
    sections.push({
      name: s.name,
      address: elf.layout?.[s.index] ?? s.address,
      size: BigInt(s.size),
      fileOffset: inFile ? s.offset : null,
      fileSize: inFile ? Math.min(s.size, fileLength - s.offset) : 0,
      readable: true,
      writable: (s.flags & SHF_WRITE) !== 0n,
      executable: (s.flags & SHF_EXECINSTR) !== 0n,
    });
  }
  if (sections.length > 0) return sections;
  let index = 0;
  for (const segment of elf.segments) {
    if (segment.type !== PT_LOAD) continue;
    const inFile = segment.fileSize > 0 && segment.offset < fileLength;
    sections.push({
      name: `LOAD[${index++}]`,
      address: segment.virtualAddress,
      size: BigInt(segment.memorySize),
      fileOffset: inFile ? segment.offset : null,
      fileSize: inFile ? Math.min(segment.fileSize, fileLength - segment.offset) : 0,
      readable: (segment.flags & PF_R) !== 0,
      writable: (segment.flags & PF_W) !== 0,
      executable: (segment.flags & PF_X) !== 0,
    });
  }
  return sections;
}

function imageFunctions(
  elf: ElfImage,
  bytes: Uint8Array,
  sections: ImageSection[],
  withEhFrame: boolean,
  out: { tables: FunctionSource[]; notes: string[] },
): ImageFunction[] {
  const { tables } = out;
  const inCode = functionCode(sections);
  // Both lists are sorted by address: merge them. Several FDEs may share a
  // start; the largest pc_range wins. 32-bit ARM code unwinds through its
  // exception index table (.ARM.exidx) instead, whose entries also mark Thumb code.
  const unwind = unwindTable(elf, bytes, withEhFrame);
  const fdes = unwind.ranges;
  const unwindSource = unwind.source;
  // Index-only functions whose entry leaves their instruction set open.
  let unmarked = 0;
  const symbols = elf.functions;
  const functions: ImageFunction[] = [];
  let j = 0;
  // The address of FDE j (read once per FDE), or null past the last.
  let next: bigint | null = fdes.count > 0 ? fdes.address(0) : null;
  const advance = (): void => {
    j++;
    next = j < fdes.count ? fdes.address(j) : null;
  };
  for (let i = 0; i <= symbols.length; i++) {
    const f = symbols[i];
    // FDE starts below this symbol function (or all that remain).
    while (next !== null && (f === undefined || next < f.address)) {
      const address: bigint = next;
      let size = fdes.size(j);
      const marked = unwind.thumbBit?.(j);
      advance();
      while (next === address) {
        const other = fdes.size(j);
        if (other > size) size = other;
        advance();
      }
      if (inCode(address)) {
        const fn: ImageFunction = {
          address,
          size,
          name: "",
          names: NO_NAMES,
          source: unwindSource,
        };
        if (marked === false) unmarked++;
        if (marked || (marked === false && unwind.unmarkedThumb)) fn.thumb = true;
        functions.push(fn);
        if (!tables.includes(unwindSource)) tables.push(unwindSource);
      }
    }
    if (f === undefined) break;
    let size = f.size;
    if (f.source === "symtab" && !tables.includes("symtab")) tables.push("symtab");
    if (next === f.address && !tables.includes(unwindSource)) tables.push(unwindSource);
    // The index table marks Thumb code too (a symbol may not, e.g. a dynamic one without it).
    const thumbByIndex = next === f.address && (unwind.thumbBit?.(j) ?? false);
    while (next === f.address) {
      const other = fdes.size(j);
      if (size === 0n || (f.size === 0n && other > size)) size = other;
      advance();
    }
    const fn: ImageFunction = {
      address: f.address,
      size,
      name: f.name,
      names: f.names.length === 0 ? NO_NAMES : f.names,
      source: f.source,
    };
    if (f.thumb || thumbByIndex) fn.thumb = true;
    functions.push(fn);
  }
  if (unmarked > 0) {
    const { named, unmarkedThumb } = unwind;
    out.notes.push(
      named === 0
        ? `${unmarked} procedure(s) known only from .ARM.exidx are read as ARM code: neither the table nor a symbol says whether they are ARM or Thumb.`
        : `${unmarked} procedure(s) known only from .ARM.exidx are read as ${
          unmarkedThumb ? "Thumb" : "ARM"
        } code, the instruction set of most of the ${named} named functions: the table does not say.`,
    );
  }
  return functions;
}

/**
 * Whether an address lies in code that holds functions: an executable
 * section other than a PLT, whose stubs are imports (the linker's FDE that
 * covers a whole .plt would otherwise read as one procedure).
 */
function functionCode(sections: readonly ImageSection[]): (address: bigint) => boolean {
  const code = sections.filter((s) => s.executable && !/^\.i?plt/.test(s.name))
    .map((s) => [s.address, s.address + s.size] as const);
  return (address) => code.some(([start, end]) => address >= start && address < end);
}

/** Most entries read from one DT_INIT_ARRAY, DT_FINI_ARRAY or DT_PREINIT_ARRAY. */
const MAX_STARTUP_ENTRIES = 4096;

/**
 * Adds the functions the loader calls that nothing else may name: DT_INIT,
 * DT_FINI and the entries of DT_INIT_ARRAY, DT_FINI_ARRAY and DT_PREINIT_ARRAY
 * (a stripped program's `frame_dummy` and `__do_global_dtors_aux` have no FDE
 * and no symbol), each in code, where no function starts and none covers it
 * by an FDE's or a symbol's size (source `startup`; an `.ARM.exidx` extent,
 * which only runs to the next entry, ends there). Array entries are read from
 * the file, where x86 and ARM linkers leave the address the RELATIVE
 * relocation restores, and from the RELA RELATIVE relocations of their slots,
 * which AArch64 linkers leave 0 in the file. A file without a dynamic section
 * (a static executable) is read from its `.init`, `.fini`, `.init_array`,
 * `.fini_array` and `.preinit_array` sections, which its own start-up code
 * runs.
 */
function addStartupFunctions(
  elf: ElfImage,
  bytes: Uint8Array,
  sections: ImageSection[],
  functions: ImageFunction[],
  tables: readonly FunctionSource[],
): void {
  let { init, fini, initArray, finiArray, preinitArray } = elf.dynamic;
  if (
    init === null && fini === null && initArray === null && finiArray === null &&
    preinitArray === null
  ) {
    // No dynamic section (a static executable): its start-up code runs the same sections.
    const named = (name: string) => sections.find((s) => s.name === name && s.size > 0n);
    init = named(".init")?.address ?? null;
    fini = named(".fini")?.address ?? null;
    const range = (name: string) => {
      const section = named(name);
      return section ? { address: section.address, size: section.size } : null;
    };
    initArray = range(".init_array");
    finiArray = range(".fini_array");
    preinitArray = range(".preinit_array");
  }
  const targets: bigint[] = [];
  if (init !== null) targets.push(init);
  if (fini !== null) targets.push(fini);
  const word = elf.bits === 64 ? 8 : 4;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const little = elf.endianness === "little";
  // Slots a RELATIVE relocation fills (0 in the file: AArch64 linkers leave them so).
  targets.push(...elf.startupTargets);
  for (const range of [initArray, finiArray, preinitArray]) {
    if (range === null) continue;
    const section = sections.find((s) =>
      s.fileOffset !== null && range.address >= s.address &&
      range.address < s.address + BigInt(s.fileSize)
    );
    if (section === undefined) continue;
    const offset = section.fileOffset! + Number(range.address - section.address);
    const end = Math.min(offset + Number(range.size), section.fileOffset! + section.fileSize);
    for (let at = offset, k = 0; at + word <= end && k < MAX_STARTUP_ENTRIES; at += word, k++) {
      const value = word === 8 ? view.getBigUint64(at, little) : BigInt(view.getUint32(at, little));
      // 0 and -1 mark the ends of the older __CTOR_LIST__ style; 0 is also an unapplied slot.
      if (value !== 0n && value !== (word === 8 ? 0xffffffffffffffffn : 0xffffffffn)) {
        targets.push(value);
      }
    }
  }
  const inCode = functionCode(sections);
  for (const target of targets) {
    const thumb = elf.machine === EM_ARM && (target & 1n) === 1n;
    const address = elf.machine === EM_ARM ? target & ~1n : target;
    if (!inCode(address)) continue;
    const at = firstAtOrAfter(functions, address);
    if (functions[at]?.address === address) continue;
    const before = functions[at - 1];
    if (before !== undefined && before.size > 0n && address < before.address + before.size) {
      // An FDE's or a symbol's size is the function's: the address lies inside it. A size taken
      // from the next .ARM.exidx entry only runs up to the next start, which this is.
      const inferred = tables.includes("arm-exidx") && before.source !== "symtab" &&
        before.source !== "dynsym";
      if (!inferred) continue;
      before.size = address - before.address;
    }
    const fn: ImageFunction = { address, size: 0n, name: "", names: NO_NAMES, source: "startup" };
    if (thumb) fn.thumb = true;
    functions.splice(at, 0, fn);
  }
}

/** The function starts an unwind table gives, where they come from, and their Thumb marks. */
interface UnwindTable {
  ranges: ElfRangeTable;
  source: FunctionSource;
  /** `.ARM.exidx` only: whether entry `k` has the Thumb bit (a clear bit says nothing). */
  thumbBit: ((k: number) => boolean) | null;
  /** `.ARM.exidx` only: the instruction set entries without the bit take (most named functions'). */
  unmarkedThumb: boolean;
  /** `.ARM.exidx` only: how many named functions that choice rests on. */
  named: number;
}

/**
 * The `.eh_frame` FDEs (none unless `withEhFrame`), or for 32-bit ARM code
 * without them, its exception index table (.ARM.exidx).
 */
function unwindTable(elf: ElfImage, bytes: Uint8Array, withEhFrame: boolean): UnwindTable {
  const none: UnwindTable = {
    ranges: { count: 0, address: () => 0n, size: () => 0n },
    source: "eh-frame",
    thumbBit: null,
    unmarkedThumb: false,
    named: 0,
  };
  if (!withEhFrame) return none;
  const fdes = ehFrameRanges(elf);
  const index = fdes.count === 0
    ? armIndexRanges(elf.machine, elf.sections, bytes, elf.endianness === "little")
    : null;
  if (index === null) return { ...none, ranges: fdes };
  // A clear bit says nothing (a static function's entry is resolved against its section):
  // such functions take the instruction set most named functions have.
  const named = elf.functions.filter((f) => f.kind !== "entry");
  const thumbNamed = named.filter((f) => f.thumb).length;
  return {
    ranges: index,
    source: "arm-exidx",
    thumbBit: (k) => index.thumb(k),
    unmarkedThumb: named.length > 0 && thumbNamed * 2 > named.length,
    named: named.length,
  };
}

function imageImports(elf: ElfImage): ImageImport[] {
  const stubs = new Map<string, bigint>();
  const slots = new Map<string, bigint[]>();
  // Go's linker types every undefined symbol STT_OBJECT, its libc functions too: a symbol the
  // loader binds through a JUMP_SLOT (a PLT slot) is a function whatever its type says.
  const jumpSlots = new Set<string>();
  for (const i of elf.imports) {
    if (i.kind === "jump-slot") jumpSlots.add(i.name);
    if (i.stubAddress !== null && !stubs.has(i.name)) stubs.set(i.name, i.stubAddress);
    const known = slots.get(i.name);
    if (!known) slots.set(i.name, [i.gotAddress]);
    else if (!known.includes(i.gotAddress)) known.push(i.gotAddress);
  }
  const imports: ImageImport[] = [];
  const seen = new Set<string>();
  // A relocatable object has no dynamic symbols: its undefined static symbols are its imports.
  const symbols = elf.objectSymbols ?? dynamicSymbolTable(elf);
  for (let i = 0; i < symbols.count; i++) {
    const name = symbols.name(i);
    if (symbols.defined(i) || name === "") continue;
    const type = symbols.type(i);
    if (type !== "function" && type !== "ifunc" && type !== "notype" && !jumpSlots.has(name)) {
      continue;
    }
    if (seen.has(name)) continue;
    seen.add(name);
    const got = slots.get(name);
    const version = elf.objectSymbols === undefined ? elf.symbolVersions?.of(i) : null;
    imports.push({
      library: version?.file ?? null,
      name,
      ...(version ? { version: version.name } : {}),
      address: stubs.get(name) ?? null,
      ...(got ? { slots: got } : {}),
    });
  }
  return imports;
}

/** The PLT stubs and GOT slots relocated against functions the object defines, one per symbol. */
function imageLocalBindings(elf: ElfImage): ImageLocalBinding[] {
  const byKey = new Map<string, ImageLocalBinding>();
  for (const b of elf.localBindings ?? []) {
    const key = `${b.name}@${b.address}`;
    const known = byKey.get(key);
    if (!known) {
      byKey.set(key, {
        name: b.name,
        target: b.address,
        stub: b.stubAddress,
        slots: [b.gotAddress],
      });
      continue;
    }
    known.stub ??= b.stubAddress;
    if (!known.slots.includes(b.gotAddress)) known.slots.push(b.gotAddress);
  }
  return [...byKey.values()];
}

function imageExports(elf: ElfImage): { exports: ImageExport[]; exportVersions?: ExportVersions } {
  const exports: ImageExport[] = [];
  const symbols = dynamicSymbolTable(elf);
  const versions = elf.symbolVersions === null
    ? null
    : new ExportVersionCodes(elf.symbolVersions, symbols.count);
  // Exports seen per address (their positions in `exports`), to drop exact duplicates (the
  // same name and address twice). Names are not used as keys: a Map would keep an
  // internalised copy of every one, and hashing every name costs more than comparing the few
  // names that share an address.
  const seen = new Map<number, number | number[]>();
  const sameAs = (k: number, name: string, address: bigint): boolean =>
    exports[k]!.name === name && exports[k]!.address === address;
  for (let i = 0; i < symbols.count; i++) {
    if (!symbols.defined(i)) continue;
    const binding = symbols.binding(i);
    if (binding !== "global" && binding !== "weak" && binding !== "unique") continue;
    const type = symbols.type(i);
    const isFunction = type === "function" || type === "ifunc";
    if (!isFunction && type !== "object") continue;
    const name = symbols.name(i);
    if (name === "") continue;
    const value = symbols.value(i);
    // A version definition (`ZLIB_1.2.2`, `GLIBCXX_3.4`) is an absolute object at 0, no export.
    if (value === 0n && symbols.sectionIndex(i) === SHN_ABS) continue;
    const address = isFunction && elf.machine === EM_ARM ? value & ~1n : value;
    // Above 2^53 distinct addresses may share a key; names and addresses are compared exactly.
    const key = Number(address);
    const known = seen.get(key);
    // The same symbol again (libc defines __libc_start_main under two versions): one export,
    // with each version it carries.
    const same = known === undefined
      ? undefined
      : typeof known === "number"
      ? sameAs(known, name, address) ? known : undefined
      : known.find((k) => sameAs(k, name, address));
    if (same !== undefined) {
      versions?.alias(same, i);
      continue;
    }
    const index = exports.length;
    if (known === undefined) seen.set(key, index);
    else if (typeof known === "number") seen.set(key, [known, index]);
    else known.push(index);
    versions?.add(index, i);
    exports.push({ name, address });
  }
  const exportVersions = versions?.finish(exports.length);
  return exportVersions === undefined ? { exports } : { exports, exportVersions };
}

/** The {@linkcode ExportVersions} of exports as {@linkcode imageExports} lists them. */
class ExportVersionCodes {
  readonly #versions: ElfSymbolVersions;
  /** One code per export so far (there are at most as many exports as symbols). */
  readonly #codes: Uint16Array;
  #any = false;
  readonly #names: string[] = [];
  readonly #byName = new Map<string, number>();
  readonly #more: { export: number; code: number }[] = [];

  constructor(versions: ElfSymbolVersions, symbols: number) {
    this.#versions = versions;
    this.#codes = new Uint16Array(symbols);
  }

  /** Export number `index` is dynamic symbol `symbol`. */
  add(index: number, symbol: number): void {
    const code = this.#code(symbol);
    this.#codes[index] = code;
    if (code !== 0) this.#any = true;
  }

  /** Dynamic symbol `symbol` is export `index` again, perhaps under another version. */
  alias(index: number, symbol: number): void {
    const code = this.#code(symbol);
    if (code === 0 || this.#codes[index] === 0 || this.#codes[index] === code) return;
    if (!this.#more.some((m) => m.export === index && m.code === code)) {
      this.#more.push({ export: index, code });
    }
  }

  finish(count: number): ExportVersions | undefined {
    if (!this.#any) return undefined;
    return {
      names: this.#names,
      index: this.#codes.slice(0, count),
      ...(this.#more.length === 0 ? {} : { more: this.#more }),
    };
  }

  #code(symbol: number): number {
    const version = this.#versions.of(symbol);
    if (version === null) return 0;
    let code = this.#byName.get(version.name);
    if (code === undefined) {
      // Past what an index holds, no more versions are told apart.
      if (this.#names.length >= HIDDEN_VERSION - 1) return 0;
      this.#names.push(version.name);
      code = this.#names.length;
      this.#byName.set(version.name, code);
    }
    return version.isDefault ? code : code | HIDDEN_VERSION;
  }
}
