/**
 * The function starts of a 32-bit ARM ELF file's exception index table
 * (`.ARM.exidx`, section type `SHT_ARM_EXIDX`): the ARM EHABI's counterpart
 * of `.eh_frame`, which stripped ARM binaries keep. Each 8-byte entry opens
 * with a prel31 offset from the entry to the start of a function (bit 0 of
 * the target marks Thumb code when the linker resolved it against a Thumb
 * symbol; against a section symbol, as for a static function, it is clear
 * whatever the code); the entries are sorted by address, so each function
 * runs up to the next entry's start.
 *
 * @module
 */

import { EM_ARM, SHT_ARM_EXIDX } from "./constants.ts";
import type { ElfRangeTable, ElfSection } from "./model.ts";

export { SHT_ARM_EXIDX };

/** The function ranges of an index table, with which start Thumb code. */
export interface ArmIndexRanges extends ElfRangeTable {
  /** Whether function `k` is Thumb code. */
  thumb(k: number): boolean;
}

/**
 * The functions `.ARM.exidx` lists, or null when the file is not 32-bit ARM
 * or has no such table in its bytes. Starts outside `[codeStart, codeEnd)`
 * ranges (such as the end-of-code sentinel linkers add) are left to the
 * caller, which keeps only starts in code.
 *
 * @param machine The file's `e_machine`.
 * @param sections The section headers.
 * @param bytes The whole file.
 * @param littleEndian The file's byte order.
 */
export function armIndexRanges(
  machine: number,
  sections: readonly ElfSection[],
  bytes: Uint8Array,
  littleEndian: boolean,
): ArmIndexRanges | null {
  if (machine !== EM_ARM) return null;
  const table = sections.find((s) => s.type === SHT_ARM_EXIDX);
  if (!table || table.offset >= bytes.length) return null;
  const count = Math.floor(Math.min(table.size, bytes.length - table.offset) / 8);
  if (count === 0) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset + table.offset, count * 8);
  const starts: number[] = [];
  const thumb: boolean[] = [];
  for (let k = 0; k < count; k++) {
    const word = view.getUint32(k * 8, littleEndian);
    // prel31: the low 31 bits, sign-extended, added to the entry's own address.
    const offset = (word << 1) >> 1;
    const target = (Number(table.address) + k * 8 + offset) >>> 0;
    const start = target - (target & 1);
    // Entries are sorted; one out of order or repeated adds nothing.
    if (starts.length > 0 && start <= starts[starts.length - 1]!) continue;
    starts.push(start);
    thumb.push((target & 1) === 1);
  }
  return {
    count: starts.length,
    address: (k) => BigInt(starts[k]!),
    // The last function's end is not in the table.
    size: (k) => (k + 1 < starts.length ? BigInt(starts[k + 1]! - starts[k]!) : 0n),
    thumb: (k) => thumb[k]!,
  };
}
