/**
 * Executable bytes no known procedure covers: code a stripped binary's
 * function tables do not describe (crt's `__do_global_dtors_aux` has no FDE,
 * a PE leaf function has no `.pdata` entry), which a scan of the known
 * procedures never reads. Alignment padding between procedures (zeros, `nop`
 * of any length, `int3`) is not counted.
 *
 * @module
 */

import {
  addressToOffset,
  type BinaryImage,
  functionParts,
  holdsCode,
  type ImageFunction,
} from "../formats/binary_image.ts";
import { procedureEnd, scanProcedure } from "./code.ts";
import { upperBound } from "../../core/sorted.ts";

/** What lies outside every known procedure. */
export interface UncoveredCode {
  /** Stretches of executable bytes that are not padding. */
  stretches: number;
  /** Their bytes. */
  bytes: number;
  /** The first stretch's start, or null. */
  first: bigint | null;
}

/** Sections of import stubs: what they reach is read as imports, not as procedures. */
const STUB_SECTIONS = /^(?:\.plt(?:\.got|\.sec)?|\.iplt|__stubs|__stub_helper|__auth_stubs)$/;
/** Mnemonics of padding: alignment filler between procedures. */
const PADDING = new Set(["nop", "int3", "nopw", "nopl", "xchg"]);
/** Most bytes of one stretch decoded to tell padding from code. */
const MAX_DECODE = 4096;

/**
 * The code of `image`'s executable sections outside every procedure of
 * `functions` (sorted by address) and their parts, for x86, x86-64 and
 * AArch64: x86 padding is told from code by decoding it, AArch64 padding is
 * words of zeros (`udf #0`) and `nop`s. Null for other architectures (not
 * checked).
 */
export async function uncoveredCode(
  image: BinaryImage,
  functions: readonly ImageFunction[],
): Promise<UncoveredCode | null> {
  const arm64 = image.architecture === "arm64";
  if (image.architecture !== "x86" && image.architecture !== "x86_64" && !arm64) return null;
  const result: UncoveredCode = { stretches: 0, bytes: 0, first: null };
  // Every procedure's extent, its size or (unsized) up to the next start or its section's end,
  // and its parts.
  const extents = functions.map((fn) => ({
    start: fn.address,
    end: procedureEnd(image, fn, 1 << 20).end,
  }));
  const parts = functionParts(functions);
  if (parts.length > 0) {
    extents.push(...parts);
    extents.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  }
  const sections = image.sections.filter((section) =>
    holdsCode(section) && section.fileOffset !== null && section.size > 0n &&
    // Mach-O names a section after its segment: `__TEXT,__stubs`.
    !STUB_SECTIONS.test(section.name.slice(section.name.indexOf(",") + 1))
  );
  for (const section of sections) {
    const sectionEnd = section.address + section.size;
    let at = section.address;
    const gaps: { start: bigint; end: bigint }[] = [];
    // The first extent that may reach into the section (a few before its first start at most).
    let k = upperBound(extents, section.address, (e) => e.start);
    while (k > 0 && extents[k - 1]!.end > section.address) k--;
    for (; k < extents.length; k++) {
      const e = extents[k]!;
      if (e.start >= sectionEnd) break;
      if (e.end <= at) continue;
      if (e.start > at) gaps.push({ start: at, end: e.start });
      at = e.end;
      if (at >= sectionEnd) break;
    }
    if (at < sectionEnd) gaps.push({ start: at, end: sectionEnd });
    for (const gap of gaps) {
      const offset = section.fileOffset! + Number(gap.start - section.address);
      const length = Math.min(
        Number(gap.end - gap.start),
        section.fileSize - Number(gap.start - section.address),
      );
      if (length <= 0) continue;
      if (arm64) {
        if (arm64FillerLength(image.bytes.subarray(offset, offset + length)) < length) {
          result.stretches++;
          result.bytes += length;
          if (result.first === null || gap.start < result.first) result.first = gap.start;
        }
        continue;
      }
      const head = image.bytes.subarray(offset, offset + Math.min(length, MAX_DECODE));
      if (fillerLength(head) === head.length && length <= MAX_DECODE) continue;
      if (!(await decodesAsPadding(image, gap.start, length))) {
        result.stretches++;
        result.bytes += length;
        if (result.first === null || gap.start < result.first) result.first = gap.start;
      }
    }
  }
  return result;
}

/** Whether `length` bytes from `start` decode as padding instructions only, to the end. */
async function decodesAsPadding(
  image: BinaryImage,
  start: bigint,
  length: number,
): Promise<boolean> {
  if (addressToOffset(image, start) === null) return true;
  const wanted = Math.min(length, MAX_DECODE);
  let padding = true;
  let covered = 0n;
  await scanProcedure(
    image,
    {
      address: start,
      size: BigInt(wanted),
      name: "",
      names: [],
      source: "symtab",
    },
    { maxInstructions: MAX_DECODE, maxBytesWhenUnsized: MAX_DECODE, withBytes: false },
    (
      instructions,
    ) => {
      for (const insn of instructions) {
        if (!PADDING.has(insn.mnemonic.toLowerCase())) padding = false;
        covered = insn.address + BigInt(insn.size) - start;
      }
    },
  );
  // Bytes left undecoded at the end are not instructions: not padding either.
  return padding && covered >= BigInt(wanted);
}

/**
 * How many leading bytes of `bytes` are filler: zeros, `int3`, and the `nop`
 * forms assemblers pad with (`90`, `66 90`, `0f 1f /0` with any ModRM form,
 * behind any `66` / `2e` prefixes), read without a decoder (padding sits
 * between most procedures, so this runs often).
 */
export function fillerLength(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b === 0x00 || b === 0xcc || b === 0x90) {
      i++;
      continue;
    }
    let j = i;
    while (j < bytes.length && (bytes[j] === 0x66 || bytes[j] === 0x2e)) j++;
    if (j < bytes.length && bytes[j] === 0x90 && j > i) {
      i = j + 1;
      continue;
    }
    if (j + 2 >= bytes.length || bytes[j] !== 0x0f || bytes[j + 1] !== 0x1f) break;
    const modrm = bytes[j + 2]!;
    if (((modrm >> 3) & 7) !== 0) break;
    const mod = modrm >> 6;
    const rm = modrm & 7;
    if (mod === 3) break;
    let length = 3 + (rm === 4 ? 1 : 0);
    if (mod === 1) length += 1;
    else if (mod === 2) length += 4;
    else if (rm === 5) length += 4;
    if (j + length > bytes.length) break;
    i = j + length;
  }
  return i;
}

/** AArch64 `nop`. */
const ARM64_NOP = 0xd503201f;

/**
 * How many leading bytes of `bytes` are AArch64 filler: whole little-endian
 * words of zeros (`udf #0`, what linkers pad with) or `nop`, and a last
 * partial word of zeros.
 */
export function arm64FillerLength(bytes: Uint8Array): number {
  let i = 0;
  for (; i + 4 <= bytes.length; i += 4) {
    const word =
      (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)) >>>
      0;
    if (word !== 0 && word !== ARM64_NOP) return i;
  }
  while (i < bytes.length && bytes[i] === 0) i++;
  return i;
}
