/**
 * Small helpers shared by the Mach-O readers: LEB128 and big-endian reads,
 * C strings, and how versions, flags and numbers are written.
 *
 * @module
 */

import {
  HEADER_FLAG_NAMES,
  MAX_NAME_BYTES,
  MAX_ULEB_BYTES,
  MH_DYLIB_IN_CACHE,
} from "./constants.ts";

/** 2^32, to combine two 32-bit words into a number. */
export const TWO_32 = 4294967296;

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Reads a ULEB128 number; the position after it is left in `uleb.next`. */
export const uleb = { next: 0, big: 0n };

/**
 * The ULEB128 at `pos` (bytes before `end`): a number when below 2^53, NaN
 * when larger (the value, cut to 64 bits, is then in `uleb.big`), or -1 when
 * it does not end before `end` or within {@linkcode MAX_ULEB_BYTES} bytes.
 */
export function readUleb(bytes: Uint8Array, pos: number, end: number): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < MAX_ULEB_BYTES; i++) {
    const p = pos + i;
    if (p >= end) {
      uleb.next = end;
      return -1;
    }
    const b = bytes[p]!;
    value += (b & 0x7f) * scale;
    scale *= 128;
    if ((b & 0x80) === 0) {
      uleb.next = p + 1;
      if (value <= Number.MAX_SAFE_INTEGER) return value;
      let big = 0n;
      for (let k = i; k >= 0; k--) big = (big << 7n) | BigInt(bytes[pos + k]! & 0x7f);
      uleb.big = BigInt.asUintN(64, big);
      return NaN;
    }
  }
  uleb.next = pos + MAX_ULEB_BYTES;
  return -1;
}

/** A big-endian 32-bit word (universal headers are big-endian). */
export function readU32BE(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>>
    0;
}

/**
 * The NUL-terminated string at `start`, read no further than `end` and at
 * most {@linkcode MAX_NAME_BYTES} bytes. `cut` in the result says whether it
 * ended for lack of a NUL; `stop` is the offset where it ended (of the NUL, if any).
 */
export function cString(
  bytes: Uint8Array,
  start: number,
  end: number,
): { text: string; cut: boolean; stop: number } {
  const limit = Math.min(end, start + MAX_NAME_BYTES);
  let stop = start;
  let ascii = true;
  while (stop < limit) {
    const b = bytes[stop]!;
    if (b === 0) break;
    if (b >= 0x80) ascii = false;
    stop++;
  }
  const cut = stop === limit && !(stop < end && bytes[stop] === 0);
  if (stop === start) return { text: "", cut, stop };
  if (ascii && stop - start <= 1024) {
    return {
      text: String.fromCharCode.apply(null, bytes.subarray(start, stop) as unknown as number[]),
      cut,
      stop,
    };
  }
  return { text: decoder.decode(bytes.subarray(start, stop)), cut, stop };
}

/** `X.Y.Z` from a packed `xxxx.yy.zz` version. */
export function dylibVersion(v: number): string {
  return `${v >>> 16}.${(v >>> 8) & 0xff}.${v & 0xff}`;
}

/** `X.Y`, or `X.Y.Z` when Z is not 0, from a packed `xxxx.yy.zz` version. */
export function osVersion(v: number): string {
  const z = v & 0xff;
  return `${v >>> 16}.${(v >>> 8) & 0xff}${z === 0 ? "" : `.${z}`}`;
}

/** The names of the `mh_flags` bits that are set. */
export function flagNames(flags: number): string[] {
  const names: string[] = [];
  for (let bit = 0; bit < 32; bit++) {
    const mask = 2 ** bit;
    if (Math.floor(flags / mask) % 2 === 0) continue;
    if (mask === MH_DYLIB_IN_CACHE) names.push("MH_DYLIB_IN_CACHE");
    else names.push(HEADER_FLAG_NAMES[bit] ?? hex(mask));
  }
  return names;
}

/** `0x` + lowercase hex. */
export function hex(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}

/** One byte as two lowercase hex digits. */
export function hex2(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}

/** `n` and the noun, plural unless `n` is 1. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
