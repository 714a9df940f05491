/**
 * A dependency-free Mach-O reader: thin 32- and 64-bit files in either byte
 * order and universal ("fat") files, their load commands, segments and
 * sections, the nlist symbol table, the indirect symbol table (for the stub
 * and pointer of each import), LC_FUNCTION_STARTS, the exports trie, the
 * entry point, the linked dylibs, the UUID and the platform.
 *
 * It takes bytes and never touches the file system. Damage in optional parts
 * of a file is reported in warnings; only bytes that cannot be a Mach-O image
 * at all make {@linkcode parseMachO} throw {@linkcode MachOParseError}. Every
 * walk is bounded by the size of the input: load commands by `sizeofcmds`,
 * tables by the slice that holds them, ULEB128 numbers by 10 bytes, and the
 * exports trie by a depth limit and a set of visited nodes.
 *
 * The reading is split in this folder: `model.ts` (what a parse yields),
 * `universal.ts` (fat files), `slice.ts` (one image), `cpu.ts`,
 * `constants.ts`; `image.ts` adapts the result to `BinaryImage`.
 *
 * @module
 */

import { readU32BE } from "./_util.ts";
import {
  FAT_MAGIC,
  FAT_MAGIC_64,
  MAX_FAT_ARCHES,
  MH_CIGAM,
  MH_CIGAM_64,
  MH_MAGIC,
  MH_MAGIC_64,
} from "./constants.ts";
import { plausibleCpu } from "./cpu.ts";
import { type MachOFile, MachOParseError, type ParseMachOOptions } from "./model.ts";
import { SliceReader } from "./slice.ts";
import { parseUniversal, readFatArch } from "./universal.ts";

const DEFAULT_MAX_SYMBOLS = 4_000_000;

/**
 * Tells whether `bytes` starts like a Mach-O file: a thin header magic
 * (MH_MAGIC or MH_MAGIC_64, in either byte order), or a universal header
 * (FAT_MAGIC or FAT_MAGIC_64, big-endian) whose architecture count is between
 * 1 and 44 and whose architecture table fits in the bytes, with each entry
 * plausible (a known CPU family, an alignment of at most 2^20, a slice that
 * starts after the table and inside the bytes). A Java class file, which also
 * starts with 0xCAFEBABE, has a class-file version of at least 45 where the
 * architecture count would be, and so is not taken for a universal file.
 */
export function isMachO(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  const magic = readU32BE(bytes, 0);
  if (magic === MH_MAGIC || magic === MH_MAGIC_64) return true; // fe ed fa ce / cf: big-endian
  if (magic === MH_CIGAM || magic === MH_CIGAM_64) return true; // ce / cf fa ed fe: little-endian
  if (magic !== FAT_MAGIC && magic !== FAT_MAGIC_64) return false;
  if (bytes.length < 8) return false;
  const count = readU32BE(bytes, 4);
  if (count === 0 || count > MAX_FAT_ARCHES) return false;
  const entrySize = magic === FAT_MAGIC ? 20 : 32;
  const tableEnd = 8 + count * entrySize;
  if (tableEnd > bytes.length) return false;
  for (let i = 0; i < count; i++) {
    const arch = readFatArch(bytes, 8 + i * entrySize, magic === FAT_MAGIC_64);
    if (!plausibleCpu(arch.cputype) || arch.align > 20) return false;
    if (arch.offset < tableEnd || arch.offset >= bytes.length) return false;
  }
  return true;
}

/**
 * A universal Mach-O header, plausible in every respect but that some slice
 * starts at or past the end of the file: the file was cut short. Returns the
 * slice count and the first offset past the end, or null for anything else.
 */
export function truncatedUniversal(
  bytes: Uint8Array,
): { slices: number; offset: number } | null {
  if (bytes.length < 8 || isMachO(bytes)) return null;
  const magic = readU32BE(bytes, 0);
  if (magic !== FAT_MAGIC && magic !== FAT_MAGIC_64) return null;
  const count = readU32BE(bytes, 4);
  const entrySize = magic === FAT_MAGIC ? 20 : 32;
  const tableEnd = 8 + count * entrySize;
  if (count === 0 || count > MAX_FAT_ARCHES || tableEnd > bytes.length) return null;
  let past: number | null = null;
  for (let i = 0; i < count; i++) {
    const arch = readFatArch(bytes, 8 + i * entrySize, magic === FAT_MAGIC_64);
    if (!plausibleCpu(arch.cputype) || arch.align > 20 || arch.offset < tableEnd) return null;
    if (arch.offset >= bytes.length) past ??= arch.offset;
  }
  return past === null ? null : { slices: count, offset: past };
}

/**
 * Parses a thin or universal Mach-O file held in memory.
 *
 * For each slice it reads the header and the load commands, and decodes
 * LC_SEGMENT(_64) with their sections, LC_SYMTAB (nlist / nlist_64, N_STAB
 * entries skipped), LC_DYSYMTAB with the indirect symbol table (to find each
 * import's stub and symbol pointer), LC_FUNCTION_STARTS, the exports trie of
 * LC_DYLD_EXPORTS_TRIE or LC_DYLD_INFO(_ONLY), LC_MAIN and LC_UNIXTHREAD,
 * the dylib commands, LC_UUID, LC_LOAD_DYLINKER, LC_RPATH, LC_BUILD_VERSION
 * and LC_VERSION_MIN_*.
 *
 * In a universal file, a slice that is unreadable is skipped with a warning;
 * the file is rejected only when no slice can be read.
 *
 * @param bytes The whole file.
 * @param options Limits.
 * @returns The slices; damage in optional parts is listed in warnings.
 * @throws {MachOParseError} When the bytes are not a Mach-O file, the header
 *   is truncated, the load command area does not fit in the file or cannot
 *   hold `ncmds` commands, or (universal) the architecture table is unusable
 *   or no slice can be read.
 */
export function parseMachO(bytes: Uint8Array, options: ParseMachOOptions = {}): MachOFile {
  const maxSymbols = options.maxSymbols ?? DEFAULT_MAX_SYMBOLS;
  if (!Number.isSafeInteger(maxSymbols) || maxSymbols < 0) {
    throw new RangeError(`maxSymbols must be a non-negative integer, got ${maxSymbols}`);
  }
  const length = bytes.length;
  if (length === 0) throw new MachOParseError("Cannot parse Mach-O header: file is empty", 0);
  if (length < 4) {
    throw new MachOParseError(
      `Cannot parse Mach-O header: file is ${length} bytes, needs at least 4 for the magic number`,
      0,
    );
  }
  const magic = readU32BE(bytes, 0);
  if (magic === FAT_MAGIC || magic === FAT_MAGIC_64) return parseUniversal(bytes, maxSymbols);
  const slice = new SliceReader(bytes, 0, length, maxSymbols, "file").parse();
  return { universal: false, slices: [slice], warnings: [...slice.warnings] };
}
