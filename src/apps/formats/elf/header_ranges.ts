/**
 * The byte ranges of an ELF file that `parseElfHeaders` (parse.ts) reads: the
 * ELF header, the program and section header tables, the section name table
 * and the notes. An open that reads only these ranges (and hashes the file
 * as a stream) leaves the rest of a large file for its first use.
 *
 * @module
 */

/** A half-open byte range `[start, end)` of the file. */
export type ByteRange = [start: number, end: number];

const SHT_NOBITS = 8;
const SHT_NOTE = 7;
const PT_NOTE = 4;
const SHN_XINDEX = 0xffff;
const PN_XNUM = 0xffff;

/**
 * The ranges `parseElfHeaders` (parse.ts) reads, as far as the bytes at hand
 * tell: the first call (with only the start of the file filled in) names the
 * header tables, the next one the name table and notes those tables point
 * at. Call again after filling what it returned, until it returns nothing
 * new. Ranges are clamped to the file; null when the headers are unusable or
 * ask for more than `budget` bytes (read the file whole then).
 *
 * @param bytes A buffer of the file's full size, holding the ranges filled so far.
 * @param budget Most bytes the ranges may cover together.
 */
export function elfHeaderRanges(bytes: Uint8Array, budget: number): ByteRange[] | null {
  const size = bytes.length;
  if (size < 64 || bytes[4] !== 1 && bytes[4] !== 2 || bytes[5] !== 1 && bytes[5] !== 2) {
    return null;
  }
  const is64 = bytes[4] === 2;
  const le = bytes[5] === 1;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (o: number): number => o + 2 <= size ? view.getUint16(o, le) : 0;
  const u32 = (o: number): number => o + 4 <= size ? view.getUint32(o, le) : 0;
  const word = (o: number): number => {
    if (!is64) return u32(o);
    if (o + 8 > size) return 0;
    const value = view.getBigUint64(o, le);
    return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
  };
  const ranges: ByteRange[] = [[0, Math.min(size, is64 ? 64 : 52)]];
  const add = (start: number, length: number): void => {
    if (start >= size || length <= 0) return;
    ranges.push([start, Math.min(size, start + length)]);
  };
  const phoff = word(is64 ? 32 : 28);
  const shoff = word(is64 ? 40 : 32);
  const at = is64 ? 52 : 40;
  const phentsize = u16(at + 2);
  let phnum = u16(at + 4);
  const shentsize = u16(at + 6);
  let shnum = u16(at + 8);
  let shstrndx = u16(at + 10);
  // Section 0 holds the real counts when the header's fields overflow.
  if (shoff !== 0 && shentsize > 0) {
    add(shoff, shentsize);
    if (shoff + shentsize <= size) {
      if (shnum === 0) shnum = word(shoff + (is64 ? 32 : 20));
      if (shstrndx === SHN_XINDEX) shstrndx = u32(shoff + (is64 ? 40 : 24));
      if (phnum === PN_XNUM) phnum = u32(shoff + (is64 ? 44 : 28));
    }
  }
  if (phoff !== 0 && phentsize > 0) add(phoff, phentsize * phnum);
  if (shoff !== 0 && shentsize > 0) add(shoff, shentsize * shnum);
  if (covered(ranges) > budget) return null;
  // What the tables point at, as far as they are filled in.
  for (let i = 0; i < phnum && phentsize >= (is64 ? 56 : 32); i++) {
    const o = phoff + i * phentsize;
    if (o + (is64 ? 56 : 32) > size) break;
    if (u32(o) !== PT_NOTE) continue;
    add(word(o + (is64 ? 8 : 4)), word(o + (is64 ? 32 : 16)));
  }
  for (let i = 0; i < shnum && shentsize >= (is64 ? 64 : 40); i++) {
    const o = shoff + i * shentsize;
    if (o + (is64 ? 64 : 40) > size) break;
    const type = u32(o + 4);
    if (type === SHT_NOBITS) continue;
    if (type !== SHT_NOTE && i !== shstrndx) continue;
    add(word(o + (is64 ? 24 : 16)), word(o + (is64 ? 32 : 20)));
  }
  return covered(ranges) > budget ? null : ranges;
}

function covered(ranges: readonly ByteRange[]): number {
  let total = 0;
  for (const [start, end] of ranges) total += end - start;
  return total;
}
