/**
 * Universal (fat) files: the architecture table and one slice per entry.
 *
 * @module
 */

import { hex, readU32BE, TWO_32 } from "./_util.ts";
import { FAT_MAGIC_64, MAX_FAT_ARCHES } from "./constants.ts";
import { cpuName } from "./cpu.ts";
import { type MachOFile, MachOParseError, type MachOSlice } from "./model.ts";
import { SliceReader } from "./slice.ts";

interface FatArch {
  cputype: number;
  cpusubtype: number;
  offset: number;
  size: number;
  align: number;
}

/** One entry of a universal file's architecture table. */
export function readFatArch(bytes: Uint8Array, at: number, is64: boolean): FatArch {
  if (is64) {
    return {
      cputype: readU32BE(bytes, at),
      cpusubtype: readU32BE(bytes, at + 4),
      offset: readU32BE(bytes, at + 8) * TWO_32 + readU32BE(bytes, at + 12),
      size: readU32BE(bytes, at + 16) * TWO_32 + readU32BE(bytes, at + 20),
      align: readU32BE(bytes, at + 24),
    };
  }
  return {
    cputype: readU32BE(bytes, at),
    cpusubtype: readU32BE(bytes, at + 4),
    offset: readU32BE(bytes, at + 8),
    size: readU32BE(bytes, at + 12),
    align: readU32BE(bytes, at + 16),
  };
}

/** The warnings of a universal file that belong to no slice (they come first). */
export function fileLevelWarnings(file: MachOFile): string[] {
  const sliceCount = file.slices.reduce((n, s) => n + s.warnings.length, 0);
  return file.warnings.slice(0, file.warnings.length - sliceCount);
}

/** Reads a universal file: each architecture as a slice. */
export function parseUniversal(bytes: Uint8Array, maxSymbols: number): MachOFile {
  const length = bytes.length;
  const is64 = readU32BE(bytes, 0) === FAT_MAGIC_64;
  const what = is64 ? "FAT_MAGIC_64" : "FAT_MAGIC";
  if (length < 8) {
    throw new MachOParseError(
      `Cannot parse Mach-O universal header: file is ${length} bytes, needs at least 8`,
      0,
    );
  }
  const count = readU32BE(bytes, 4);
  if (count === 0) {
    throw new MachOParseError("Cannot parse Mach-O universal header: nfat_arch is 0", 4);
  }
  if (count > MAX_FAT_ARCHES) {
    const java = is64 ? "" : `; with ${what} this is most likely a Java class file (class file ` +
      `version ${count & 0xffff}.${count >>> 16})`;
    throw new MachOParseError(
      `Cannot parse Mach-O universal header: nfat_arch is ${count} (${hex(count)}), more than ` +
        `the ${MAX_FAT_ARCHES} any universal file has${java}`,
      4,
    );
  }
  const entrySize = is64 ? 32 : 20;
  const tableEnd = 8 + count * entrySize;
  if (tableEnd > length) {
    throw new MachOParseError(
      `Cannot parse Mach-O universal header: its ${count} architecture entries of ${entrySize} ` +
        `bytes run past the end of the ${length}-byte file`,
      8,
    );
  }
  const warnings: string[] = [];
  const kept: { index: number; arch: FatArch; end: number }[] = [];
  let extent = tableEnd;
  for (let i = 0; i < count; i++) {
    const at = 8 + i * entrySize;
    const arch = readFatArch(bytes, at, is64);
    if (arch.offset < length) extent = Math.max(extent, Math.min(length, arch.offset + arch.size));
    const label = `Universal architecture ${i} (${cpuName(arch.cputype, arch.cpusubtype)})`;
    if (arch.offset < tableEnd) {
      warnings.push(
        `${label} starts at offset ${hex(arch.offset)}, inside the universal header; skipping it`,
      );
      continue;
    }
    if (arch.offset >= length) {
      warnings.push(
        `${label} starts at offset ${hex(arch.offset)}, past the end of the ${length}-byte ` +
          `file; skipping it`,
      );
      continue;
    }
    let end = arch.offset + arch.size;
    if (end > length) {
      warnings.push(
        `${label} (${arch.size} bytes at offset ${hex(arch.offset)}) runs past the end of the ` +
          `${length}-byte file; reading the ${length - arch.offset} bytes that are there`,
      );
      end = length;
    }
    const overlapped = kept.find((k) => arch.offset < k.end && k.arch.offset < end);
    if (overlapped !== undefined) {
      warnings.push(
        `${label} (offset ${hex(arch.offset)}, ${arch.size} bytes) overlaps universal ` +
          `architecture ${overlapped.index} (offset ${hex(overlapped.arch.offset)}, ` +
          `${overlapped.arch.size} bytes); skipping it`,
      );
      continue;
    }
    if (arch.align > 31) {
      warnings.push(`${label} has align ${arch.align}, more than 31`);
    } else if (arch.offset % 2 ** arch.align !== 0) {
      warnings.push(
        `${label} starts at offset ${hex(arch.offset)}, which is not aligned to 2^${arch.align}`,
      );
    }
    kept.push({ index: i, arch, end });
  }
  const slices: MachOSlice[] = [];
  const failures: string[] = [];
  for (const { index, arch, end } of kept) {
    const label = `universal architecture ${index} (${cpuName(arch.cputype, arch.cpusubtype)})`;
    let slice: MachOSlice;
    try {
      slice = new SliceReader(bytes, arch.offset, end, maxSymbols, "slice").parse();
    } catch (error) {
      if (!(error instanceof MachOParseError)) throw error;
      warnings.push(`Skipping ${label}: ${error.message}`);
      failures.push(error.message);
      continue;
    }
    if (slice.cputype !== arch.cputype || slice.cpusubtype !== arch.cpusubtype) {
      slice.warnings.unshift(
        `The universal header says ${cpuName(arch.cputype, arch.cpusubtype)} (cputype ` +
          `${hex(arch.cputype)}, cpusubtype ${hex(arch.cpusubtype)}) but the slice's header ` +
          `says ${slice.cpuName} (cputype ${hex(slice.cputype)}, cpusubtype ` +
          `${hex(slice.cpusubtype)})`,
      );
    }
    slices.push(slice);
  }
  if (slices.length === 0) {
    throw new MachOParseError(
      `Cannot parse Mach-O universal file: none of its ${count} architectures can be read` +
        (failures.length > 0 ? ` (the first: ${failures[0]})` : ""),
      8,
    );
  }
  const all = [...warnings];
  for (const slice of slices) {
    for (const w of slice.warnings) all.push(`${slice.cpuName} slice: ${w}`);
  }
  return { universal: true, slices, warnings: all, extent };
}
