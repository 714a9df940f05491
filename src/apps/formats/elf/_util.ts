/**
 * Small helpers shared by the ELF readers: exact number bounds, the UTF-8
 * decoder, and how offsets, bytes and sections are written in warnings.
 *
 * @module
 */

import type { ElfSection } from "./model.ts";

/** 2^32, to combine two 32-bit words into a number. */
export const TWO_32 = 4294967296;

/** Values read as numbers are exact below this (2^53 = 2^21 * 2^32). */
export const SAFE_HIGH_WORD = 0x200000;

/** Shared bigints for small sizes, which repeat a lot. */
export const SMALL_BIGINTS: (bigint | undefined)[] = new Array(16384);

/** UTF-8 with U+FFFD for bad bytes, as names are read. */
export const decoder: TextDecoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** A section as warnings name it: its name (if any) and index. */
export function sectionLabel(section: ElfSection): string {
  return section.name === ""
    ? `(section ${section.index})`
    : `${section.name} (section ${section.index})`;
}

/** `0x` + lowercase hex. */
export function hex(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}

/** One byte as two lowercase hex digits. */
export function hex2(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}

/** The index of the first of `functions` (sorted by address) at or after `address`. */
export function firstAtOrAfter(
  functions: readonly { address: bigint }[],
  address: bigint,
): number {
  let low = 0;
  let high = functions.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (functions[mid]!.address < address) low = mid + 1;
    else high = mid;
  }
  return low;
}
