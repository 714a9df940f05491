/**
 * Import thunks: the `jmp [IAT slot]` stubs a linker places in code for
 * functions called without `__declspec(dllimport)` (MinGW's import
 * libraries, MSVC's and lld's), one per import, often as a table at the end
 * of `.text`. A call to a thunk is a call to its import.
 *
 * @module
 */

import {
  IMAGE_SCN_CNT_CODE,
  IMAGE_SCN_MEM_EXECUTE,
  MACHINE_AMD64,
  MACHINE_I386,
} from "./constants.ts";
import type { PeFile } from "./model.ts";

/** One `jmp [slot]` thunk. */
export interface PeImportThunk {
  /** RVA of the `jmp`. */
  rva: number;
  /** RVA of the IAT slot it jumps through. */
  slotRva: number;
  /** Bytes: 6, or 7 with a REX.W prefix. */
  size: number;
}

/** Bytes of a thunk's jump: `FF 25` and a 32-bit operand. */
export const THUNK_SIZE = 6;

/** Padding a linker puts between functions: `int3` and one-byte `nop`. */
function isPadding(byte: number): boolean {
  return byte === 0xcc || byte === 0x90;
}

/**
 * Whether the bytes before `p` are padding that ends a procedure: at least
 * two padding bytes (one could be the last byte of an instruction: the
 * displacement of `lea ecx, [ebp-0x34]` is `cc`), or nothing but padding back
 * to the end of the previous thunk (`lastEnd`), which is then also the case
 * when the thunks adjoin.
 */
function afterPadding(bytes: Uint8Array, p: number, start: number, lastEnd: number): boolean {
  if (lastEnd >= start && p >= lastEnd && p - lastEnd <= 16) {
    let q = lastEnd;
    while (q < p && isPadding(bytes[q]!)) q++;
    if (q === p) return true;
  }
  return p - 2 >= start && isPadding(bytes[p - 1]!) && isPadding(bytes[p - 2]!);
}

/**
 * Finds the import thunks of an x64 or i386 image: a `jmp [slot]` (`FF 25`
 * with a RIP-relative 32-bit displacement on x64, there also with a REX.W
 * prefix, an absolute 32-bit address on i386) whose slot is an import address table slot of `pe`'s imports,
 * that starts where a procedure can start and lies inside no function of
 * known size. It can start there when a known function starts at it, when it
 * begins its section, when two or more padding bytes (`int3`, `nop`) come
 * just before it, or when only padding (or nothing: a table of thunks)
 * separates it from the thunk before it. A `jmp [slot]` right after other
 * code is a tail jump of that code, not a thunk.
 *
 * @param pe The parsed image.
 * @param bytes The whole file.
 * @param sized Known functions of known size, as `[begin, end)` RVAs, sorted by begin.
 * @param starts RVAs where known functions start.
 * @returns The thunks in ascending order.
 */
export function findImportThunks(
  pe: PeFile,
  bytes: Uint8Array,
  sized: readonly (readonly [number, number])[],
  starts: ReadonlySet<number>,
): PeImportThunk[] {
  const x64 = pe.machine === MACHINE_AMD64;
  if (!x64 && pe.machine !== MACHINE_I386) return [];
  const slots = new Set<number>();
  for (const library of pe.imports) {
    for (const symbol of library.symbols) slots.add(symbol.slotRva);
  }
  if (slots.size === 0) return [];
  const base = Number(pe.imageBase);
  const thunks: PeImportThunk[] = [];
  let k = 0;
  const inside = (rva: number): boolean => {
    while (k < sized.length && sized[k]![1] <= rva) k++;
    // Extents may overlap in a damaged table: look at the few that start at or before `rva`.
    for (let j = k; j < sized.length && sized[j]![0] < rva; j++) {
      if (rva < sized[j]![1]) return true;
      if (j - k > 4) break;
    }
    return false;
  };
  const sections = pe.sections
    .filter((s) => (s.characteristics & (IMAGE_SCN_MEM_EXECUTE | IMAGE_SCN_CNT_CODE)) !== 0)
    .sort((a, b) => a.virtualAddress - b.virtualAddress);
  for (const s of sections) {
    const memory = s.virtualSize !== 0 ? s.virtualSize : s.rawDataSize;
    const start = s.rawDataPointer;
    if (start >= bytes.length) continue;
    const end = Math.min(start + s.rawDataSize, start + memory, bytes.length);
    let lastEnd = -1;
    for (let p = bytes.indexOf(0xff, start); p !== -1 && p + THUNK_SIZE <= end;) {
      if (bytes[p + 1] === 0x25) {
        const operand = bytes[p + 2]! | (bytes[p + 3]! << 8) | (bytes[p + 4]! << 16) |
          (bytes[p + 5]! << 24);
        // x64 code may give the jump a REX.W prefix (`48 FF 25`), which changes nothing.
        const at = x64 && p > start && bytes[p - 1] === 0x48 ? p - 1 : p;
        const rva = s.virtualAddress + (at - start);
        const slot = x64
          ? s.virtualAddress + (p - start) + THUNK_SIZE + operand
          : (operand >>> 0) - base;
        if (
          slots.has(slot) &&
          (starts.has(rva) || at === start || afterPadding(bytes, at, start, lastEnd)) &&
          (starts.has(rva) || !inside(rva))
        ) {
          thunks.push({ rva, slotRva: slot, size: p + THUNK_SIZE - at });
          lastEnd = p + THUNK_SIZE;
          p = bytes.indexOf(0xff, lastEnd);
          continue;
        }
      }
      p = bytes.indexOf(0xff, p + 1);
    }
  }
  return thunks;
}
