/**
 * The base relocation table of a PE image (`.reloc`): every slot the loader
 * adjusts when the image is not loaded at its preferred base holds an
 * absolute address. The slots outside code that hold an address in code are
 * the image's code pointers: vtable entries, callback and dispatch tables,
 * function pointers in initialised data. A function reached only through
 * them has no call to it anywhere, so they are its only trace.
 *
 * @module
 */

import { IMAGE_SCN_CNT_CODE, IMAGE_SCN_MEM_EXECUTE } from "./constants.ts";
import type { PeDataDirectory, PeSection } from "./model.ts";
import { hex, type PeReader } from "./reader.ts";

/** IMAGE_REL_BASED_HIGHLOW: a 32-bit address. */
const REL_HIGHLOW = 3;
/** IMAGE_REL_BASED_DIR64: a 64-bit address. */
const REL_DIR64 = 10;
/** Bytes of a block's header: its page RVA and its size. */
const BLOCK_HEADER = 8;

/** Whether a section holds code (executable, or marked as code). */
function isCode(section: PeSection): boolean {
  return (section.characteristics & (IMAGE_SCN_MEM_EXECUTE | IMAGE_SCN_CNT_CODE)) !== 0;
}

/**
 * Reads the base relocations and returns the RVAs of code that relocated
 * slots outside code point at (sorted, unique). Slots inside code sections
 * are left out: there they are instruction operands and the jump tables of
 * switches, whose entries point into the middle of a function. A block or
 * slot outside the file's bytes ends the reading with a warning; more than
 * `maxEntries` entries are cut with one.
 */
export function readCodePointers(
  r: PeReader,
  directory: PeDataDirectory,
  sections: readonly PeSection[],
): number[] {
  const code = sections.filter(isCode).map((s) => {
    const size = s.virtualSize !== 0 ? s.virtualSize : s.rawDataSize;
    return [s.virtualAddress, s.virtualAddress + size] as const;
  });
  if (code.length === 0) return [];
  const inCode = (rva: number): boolean => code.some(([start, end]) => rva >= start && rva < end);
  const span = r.locate(
    directory.rva,
    Math.min(directory.size, BLOCK_HEADER),
    "the base relocations",
  );
  if (span === null) return [];
  const length = Math.min(directory.size, span.available);
  if (length < directory.size) {
    r.warn(
      `The base relocation table at RVA ${hex(directory.rva)} runs past the file bytes of its ` +
        `section; reading the ${length} of its ${directory.size} bytes that are there`,
    );
  }
  const targets = new Set<number>();
  let entries = 0;
  let at = 0;
  while (at + BLOCK_HEADER <= length) {
    const page = r.u32(span.offset + at);
    const blockSize = r.u32(span.offset + at + 4);
    if (blockSize < BLOCK_HEADER || at + blockSize > length) {
      if (blockSize !== 0 || page !== 0) {
        r.warn(
          `A base relocation block at RVA ${hex(directory.rva + at)} has an impossible size ` +
            `(${blockSize} bytes); the blocks after it are not read`,
        );
      }
      break;
    }
    for (let k = BLOCK_HEADER; k + 2 <= blockSize; k += 2) {
      if (++entries > r.maxEntries) {
        r.warn(
          `The base relocation table has more than ${r.maxEntries} entries; reading the first ` +
            `${r.maxEntries} (maxEntries)`,
        );
        return [...targets].sort((a, b) => a - b);
      }
      const entry = r.u16(span.offset + at + k);
      const type = entry >> 12;
      if (type !== REL_HIGHLOW && type !== REL_DIR64) continue;
      const slot = page + (entry & 0xfff);
      if (inCode(slot)) continue;
      const width = type === REL_DIR64 ? 8 : 4;
      const held = r.spanAt(slot);
      if (held === null || held.available < width) continue;
      const value = type === REL_DIR64
        ? r.view.getBigUint64(held.offset, true)
        : BigInt(r.u32(held.offset));
      const target = r.rvaOf(value);
      if (target !== null && inCode(target)) targets.add(target);
    }
    at += blockSize;
  }
  return [...targets].sort((a, b) => a - b);
}
