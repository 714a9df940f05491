/**
 * The reading layout of a relocatable ELF file (ET_REL): its sections all
 * have `sh_addr` 0 and its symbols hold offsets into their section, so the
 * reader places the allocated sections one after another, as a linker would,
 * to give every function its own address.
 *
 * @module
 */

import { SHF_ALLOC } from "./constants.ts";
import type { ElfSection } from "./model.ts";
import { RELOCATABLE_BASE } from "./model.ts";

/** Beyond this the layout stops: only a damaged file's section sizes reach it. */
const LAYOUT_LIMIT = 1n << 48n;

/**
 * The address of each section of a relocatable file, by section index: the
 * SHF_ALLOC sections in section header order, the first at
 * {@linkcode RELOCATABLE_BASE}, each at the end of the previous one rounded up
 * to its `sh_addralign` (0 and 1 mean none); null for the other sections and
 * for any that would end past 2^48 (sizes only a damaged file has).
 *
 * @param sections The section headers, in table order.
 * @param alignments `sh_addralign` of each section, by index.
 */
export function relocatableLayout(
  sections: readonly ElfSection[],
  alignments: readonly number[],
): (bigint | null)[] {
  const layout: (bigint | null)[] = [];
  let next = RELOCATABLE_BASE;
  for (const section of sections) {
    if ((section.flags & SHF_ALLOC) === 0n) {
      layout.push(null);
      continue;
    }
    const align = alignments[section.index] ?? 1;
    const alignment = Number.isSafeInteger(align) && align > 1 ? BigInt(align) : 1n;
    const address = (next + alignment - 1n) / alignment * alignment;
    const end = address + BigInt(section.size);
    if (end > LAYOUT_LIMIT) {
      layout.push(null);
      continue;
    }
    layout.push(address);
    next = end;
  }
  return layout;
}
