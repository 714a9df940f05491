/**
 * The format-neutral view of a binary that providers and analysis read: one
 * `BinaryImage` per analysis document (an ELF or PE file, one slice of a
 * universal Mach-O, a WebAssembly module). Each format reader translates its
 * own structures into this shape; nothing here knows a file format.
 *
 * @module
 */

import type { WasmCodeMap } from "../disasm/wasm_code.ts";
import { upperBound } from "../../core/sorted.ts";

/** Processor families this project names. */
export type Architecture = "x86" | "x86_64" | "arm" | "arm64" | "wasm32" | "other";

/** A mapped region of the image. */
export interface ImageSection {
  /** Section (or segment) name as the format spells it, e.g. `.text`, `__TEXT,__text`. */
  name: string;
  /** Virtual address of the first byte (for WebAssembly: the file offset). */
  address: bigint;
  /** Size in memory. */
  size: bigint;
  /** File offset of the bytes, or null when the region has none in the file (bss). */
  fileOffset: number | null;
  /** Bytes present in the file. */
  fileSize: number;
  readable: boolean;
  writable: boolean;
  executable: boolean;
  /**
   * Whether the section holds instructions, when the format says so apart
   * from the protection: a Mach-O section of an executable segment without
   * the instruction attributes (`__TEXT,__cstring`, `__TEXT,__const`) is
   * executable but holds data. Absent when only the protection is known.
   */
  instructions?: boolean;
}

/** A function's part as a `[start, end)` range, with the function it belongs to. */
export interface FunctionPartRange {
  start: bigint;
  end: bigint;
  fn: ImageFunction;
}

const partsByList = new WeakMap<readonly ImageFunction[], readonly FunctionPartRange[]>();
const NO_PARTS: readonly FunctionPartRange[] = Object.freeze([]);

/**
 * Every part of `functions` (see {@linkcode ImageFunction.parts}) ascending
 * by start, with its owner; worked out once per list.
 */
export function functionParts(functions: readonly ImageFunction[]): readonly FunctionPartRange[] {
  let parts = partsByList.get(functions);
  if (parts === undefined) {
    const found: FunctionPartRange[] = [];
    for (const fn of functions) {
      for (const part of fn.parts ?? []) {
        found.push({ start: part.address, end: part.address + part.size, fn });
      }
    }
    parts = found.length === 0
      ? NO_PARTS
      : found.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    partsByList.set(functions, parts);
  }
  return parts;
}

/** Whether a section holds code: executable, and not marked as holding no instructions. */
export function holdsCode(section: ImageSection): boolean {
  return section.executable && section.instructions !== false;
}

/**
 * Where a function start was learned. `import-thunk` is a PE `jmp [IAT slot]`
 * stub: it stands for its import (the import's `address`), as an ELF PLT
 * stub does, and calls to it are calls to the import.
 */
export type FunctionSource =
  | "symtab"
  | "dynsym"
  | "dynamic"
  | "entry"
  | "export"
  | "pdata"
  | "function-starts"
  | "eh-frame"
  | "arm-exidx"
  | "gopclntab"
  | "name-section"
  | "code-section"
  | "call-target"
  | "code-pointer"
  | "startup"
  | "import-thunk"
  | "tls-callback";

/**
 * A stretch of a function's code apart from its first one: a PE x64
 * `.pdata` entry chained to the function's entry (UNW_FLAG_CHAININFO) that
 * does not adjoin it, say.
 */
export interface ImageFunctionPart {
  address: bigint;
  /** Size in bytes (never 0). */
  size: bigint;
}

/** One function start: a procedure. */
export interface ImageFunction {
  address: bigint;
  /**
   * Size in bytes when known (0 when not): of the stretch that starts at
   * `address`; further stretches are in `parts`.
   */
  size: bigint;
  /**
   * The function's code that does not adjoin the stretch at `address`, in
   * ascending order, each part lying outside every other function. Absent
   * when the function is one stretch (or its other parts are not known).
   */
  parts?: readonly ImageFunctionPart[];
  /** Preferred name, possibly mangled; "" when unnamed. */
  name: string;
  /** Every distinct name seen at this address (sorted). */
  names: string[];
  source: FunctionSource;
  /** 32-bit ARM: the function is Thumb code (its symbol's address had bit 0 set). */
  thumb?: true;
}

/**
 * What the bytes from a {@linkcode ImageCodeMark} up to the next mark hold:
 * instructions of the image's own set (`code`), 32-bit ARM or Thumb
 * instructions (`arm`, `thumb`), or data among the code (`data`: a literal
 * pool, a switch's jump table).
 */
export type CodeMarkKind = "code" | "arm" | "thumb" | "data";

/**
 * Where the bytes of code sections change between instructions and data, or
 * between instruction sets: ELF mapping symbols (`$a`, `$t`, `$x`, `$d`).
 */
export interface ImageCodeMark {
  address: bigint;
  kind: CodeMarkKind;
}

/** An imported function or data symbol. */
export interface ImageImport {
  /**
   * The library it comes from, when the format says: for ELF (whose DT_NEEDED list is not per
   * symbol), the library a versioned import's version requirement names; else null.
   */
  library: string | null;
  /** The symbol version it needs (ELF symbol versioning: `GLIBC_2.14`), when it has one. */
  version?: string;
  /** Symbol name, or `#<ordinal>` for an import by ordinal. */
  name: string;
  /** Address a call goes through: PLT stub, IAT slot, symbol stub; null when unknown. */
  address: bigint | null;
  /** Memory slots the loader fills with its address (ELF GOT entries), when they differ from `address`. */
  slots?: bigint[];
}

/**
 * A stub or memory slot through which code reaches a function of this same
 * image (an ELF PLT stub or GOT slot relocated against a symbol the object
 * defines): calls through it are calls to `target`.
 */
export interface ImageLocalBinding {
  /** The symbol's name. */
  name: string;
  /** The function the stub or slot reaches. */
  target: bigint;
  /** The stub a call goes through, or null when none does. */
  stub: bigint | null;
  /** Memory slots the loader fills with `target`. */
  slots: bigint[];
}

/** An exported symbol. */
export interface ImageExport {
  name: string;
  /** Null for a forwarder or re-export. */
  address: bigint | null;
  /** `library.symbol` a forwarder or re-export points at. */
  forwardedTo?: string;
}

/**
 * The symbol versions of an image's exports (ELF symbol versioning), parallel to
 * {@linkcode BinaryImage.exports}: `index[i]` is 0 when export `i` has no version, else one
 * more than its version's position in `names`, with {@linkcode HIDDEN_VERSION} set when that is
 * not the symbol's default version (`nm -D` writes `name@VERSION`, not `name@@VERSION`).
 */
export interface ExportVersions {
  names: string[];
  index: Uint16Array;
  /** Further versions of an export the image defines under several (coded as in `index`). */
  more?: { export: number; code: number }[];
}

/** The bit of an {@linkcode ExportVersions} index that marks a non-default version. */
export const HIDDEN_VERSION = 0x8000;

/**
 * Export `i` of `image` spelled as `nm -D` spells it, once per version it carries:
 * `name@@VERSION` for a default version, `name@VERSION` for another; the plain name alone
 * when it has none.
 */
export function versionedExportNames(
  image: Pick<BinaryImage, "exports" | "exportVersions">,
  i: number,
): string[] {
  const name = image.exports[i]!.name;
  const versions = image.exportVersions;
  const first = versions?.index[i] ?? 0;
  if (first === 0) return [name];
  const spell = (code: number): string =>
    `${name}${(code & HIDDEN_VERSION) !== 0 ? "@" : "@@"}${
      versions!.names[(code & ~HIDDEN_VERSION) - 1]
    }`;
  const out = [spell(first)];
  for (const more of versions!.more ?? []) if (more.export === i) out.push(spell(more.code));
  return out;
}

/** The overlay of a `length`-byte file whose image ends at `end`: what follows, or null. */
export function overlayAfter(end: number, length: number): { offset: number; size: number } | null {
  return end < length ? { offset: end, size: length - end } : null;
}

/** The format-neutral view of one analysis document. */
export interface BinaryImage {
  format: "elf" | "pe" | "mach-o" | "wasm";
  /** A short document name, e.g. the file name or `7za (arm64)` for a universal slice. */
  document: string;
  architecture: Architecture;
  /** Machine name as the format spells it (`x86-64`, `AMD64`, `CPU_TYPE_ARM64`, …). */
  machine: string;
  bits: 32 | 64;
  endianness: "little" | "big";
  /** Entry point address, or null when the image has none. */
  entry: bigint | null;
  sections: ImageSection[];
  /** Unique by address, ascending. */
  functions: ImageFunction[];
  /**
   * The function tables the file has, even when every start one lists is also
   * named by a symbol (and so carries the symbol's source): e.g. `eh-frame`
   * for an ELF file with FDEs in its code. Absent when the reader does not say.
   */
  functionTables?: FunctionSource[];
  /**
   * Addresses in code that data outside code holds as absolute pointers the
   * loader relocates (a PE image's base relocations): vtable entries,
   * callback and dispatch tables. Ascending; absent when the reader does not
   * say. Call-target discovery takes the ones no function covers as starts
   * (source `code-pointer`).
   */
  codePointers?: bigint[];
  imports: ImageImport[];
  /**
   * A relocatable object's relocation sites in code that were not applied
   * (ascending addresses): the operands there hold placeholders, so what they
   * seem to name is no reference.
   */
  unrelocatedSites?: readonly bigint[];
  /** Stubs and slots that reach the image's own functions (absent when the format has none). */
  localBindings?: ImageLocalBinding[];
  exports: ImageExport[];
  /** The exports' symbol versions, when the format has them and some export carries one. */
  exportVersions?: ExportVersions;
  /**
   * Marks in the executable sections, sorted by address, one per address:
   * each says what the bytes up to the next mark are. Absent when the file
   * has none (then every byte of a procedure is read as code of its set).
   */
  codeMarks?: ImageCodeMark[];
  /** Libraries the image links against. */
  libraries: string[];
  /** Build or UUID identity when the format records one (hex). */
  buildId: string | null;
  /** What was skipped or bounded while reading (partial results). */
  warnings: string[];
  /** Byte offset of this document inside the opened file (non-zero for universal slices). */
  fileBase: number;
  /**
   * The bytes after the executable image (an installer's payload, a self-extractor's archive,
   * a PE's Authenticode certificate table, appended data), as file offset and size: for ELF past
   * every header table, section and segment, for PE past the headers and every section's raw
   * data (as pefile defines it, the certificate table being in it), for Mach-O past every
   * segment and the symbol tables (for a universal file, past its last architecture). Null when
   * there are none; absent when the reader does not say (a Mach-O relocatable object,
   * WebAssembly).
   */
  overlay?: {
    offset: number;
    size: number;
    /** Its first bytes, when they lie outside `bytes` (after a universal file's slices). */
    head?: Uint8Array;
  } | null;
  /**
   * Bytes of this document (a subarray of the opened file; for an x86-64 ELF
   * relocatable object, a copy with its call and jump relocations applied).
   */
  bytes: Uint8Array;
  /** For WebAssembly: what decoding function bodies needs (imports, bodies, data segments). */
  wasmCode?: WasmCodeMap;
}

/**
 * Whether the image's code marks say the bytes at `address` are data among
 * code: the last mark at or before it is `data`, in the same section.
 */
export function markedAsData(image: BinaryImage, address: bigint): boolean {
  const marks = image.codeMarks;
  if (marks === undefined) return false;
  const mark = marks[upperBound(marks, address, (m) => m.address) - 1];
  if (mark?.kind !== "data") return false;
  const section = sectionAt(image, address);
  return section !== undefined && mark.address >= section.address;
}

/** Maps a virtual address to an offset into `image.bytes`, or null when no section holds it in the file. */
export function addressToOffset(image: BinaryImage, address: bigint): number | null {
  for (const section of image.sections) {
    if (section.fileOffset === null) continue;
    if (address >= section.address && address < section.address + BigInt(section.fileSize)) {
      return section.fileOffset + Number(address - section.address);
    }
  }
  return null;
}

/** The section holding `address` in memory, or undefined. */
export function sectionAt(image: BinaryImage, address: bigint): ImageSection | undefined {
  return image.sections.find((s) => address >= s.address && address < s.address + s.size);
}

/** Maps an offset into `image.bytes` to a virtual address, or null when no section maps it. */
export function offsetToAddress(image: BinaryImage, offset: number): bigint | null {
  for (const section of image.sections) {
    if (section.fileOffset === null || section.fileSize === 0) continue;
    if (offset >= section.fileOffset && offset < section.fileOffset + section.fileSize) {
      return section.address + BigInt(offset - section.fileOffset);
    }
  }
  return null;
}
