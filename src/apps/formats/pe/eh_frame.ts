/**
 * The `.eh_frame` of a PE image: MinGW's GCC writes DWARF call frame
 * information into PE images as ELF compilers do, and each FDE covers one
 * function. Read by the ELF reader's `.eh_frame` decoder.
 *
 * @module
 */

import { readEhFrameSection } from "../elf/eh_frame.ts";
import type { PeFrameFunction, PeSection } from "./model.ts";
import type { PeReader } from "./reader.ts";

/**
 * Reads the FDEs of the image's `.eh_frame` section (named `.eh_frame`, or
 * `.eh_fram` where the linker cut section names to 8 bytes), in address
 * order. FDEs that begin outside the image (those of discarded code, with a
 * pc_begin of 0) are left out; damage is warned about.
 */
export function readEhFrame(r: PeReader, sections: readonly PeSection[]): PeFrameFunction[] {
  const section = sections.find((s) => s.name === ".eh_frame" || s.name === ".eh_fram");
  if (section === undefined) return [];
  const span = r.spanAt(section.virtualAddress);
  if (span === null) return [];
  const memory = section.virtualSize !== 0 ? section.virtualSize : section.rawDataSize;
  const base = r.imageBase;
  const { ranges, warnings } = readEhFrameSection({
    bytes: r.bytes,
    offset: span.offset,
    end: span.offset + Math.min(span.available, memory),
    address: Number(base + BigInt(section.virtualAddress)),
    label: section.name,
    pointerSize: r.is64 ? 8 : 4,
    maxFdes: r.maxEntries,
    offsetOf: (address) => {
      const rva = address - base;
      return rva >= 0n && rva < 1n << 32n ? r.spanAt(Number(rva))?.offset ?? null : null;
    },
  });
  for (const warning of warnings) r.warn(warning);
  const functions: PeFrameFunction[] = [];
  for (let k = 0; k < ranges.count; k++) {
    const rva = ranges.address(k) - base;
    const size = ranges.size(k);
    if (rva <= 0n || rva >= 1n << 32n || size >= 1n << 32n) continue;
    functions.push({ begin: Number(rva), size: Number(size) });
  }
  return functions;
}
