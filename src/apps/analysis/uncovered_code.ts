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
  type ImageSection,
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
  const sections = image.sections.filter((section) =>
    holdsCode(section) && section.fileOffset !== null && section.size > 0n &&
    // Mach-O names a section after its segment: `__TEXT,__stubs`.
    !STUB_SECTIONS.test(section.name.slice(section.name.indexOf(",") + 1))
  );
  if (sections.length === 0) return result;
  // Addresses as numbers from the lowest code section's start (exact: an image spans far less
  // than 2^53 bytes), so a hundred thousand extents are two typed arrays, not as many objects
  // of bigints (which held about 18 MiB more at the peak of a reference scan of libLLVM).
  const base = sections.reduce(
    (low, s) => (s.address < low ? s.address : low),
    sections[0]!.address,
  );
  const { starts, ends } = extentsOf(image, functions, base);
  /** Counts the stretch from `start` to `end` (relative to base) when it is code, not padding. */
  const gap = async (section: ImageSection, start: number, end: number): Promise<void> => {
    const into = start - Number(section.address - base);
    const offset = section.fileOffset! + into;
    const length = Math.min(end - start, section.fileSize - into);
    if (length <= 0) return;
    const address = base + BigInt(start);
    let code: boolean;
    if (arm64) {
      code = arm64FillerLength(image.bytes.subarray(offset, offset + length)) < length;
    } else {
      const head = image.bytes.subarray(offset, offset + Math.min(length, MAX_DECODE));
      code = !(fillerLength(head) === head.length && length <= MAX_DECODE) &&
        !(await decodesAsPadding(image, address, length));
    }
    if (!code) return;
    result.stretches++;
    result.bytes += length;
    if (result.first === null || address < result.first) result.first = address;
  };
  for (const section of sections) {
    const sectionStart = Number(section.address - base);
    const sectionEnd = sectionStart + Number(section.size);
    let at = sectionStart;
    // The first extent that may reach into the section (a few before its first start at most).
    let k = upperBound(starts, sectionStart, (start) => start);
    while (k > 0 && ends[k - 1]! > sectionStart) k--;
    for (; k < starts.length; k++) {
      if (starts[k]! >= sectionEnd) break;
      if (ends[k]! <= at) continue;
      if (starts[k]! > at) await gap(section, at, starts[k]!);
      at = ends[k]!;
      if (at >= sectionEnd) break;
    }
    if (at < sectionEnd) await gap(section, at, sectionEnd);
  }
  return result;
}

/**
 * Every procedure's extent (its size or, unsized, up to the next start or its
 * section's end) and every part's, as numbers from `base`, sorted by start.
 */
function extentsOf(
  image: BinaryImage,
  functions: readonly ImageFunction[],
  base: bigint,
): { starts: Float64Array; ends: Float64Array } {
  const parts = functionParts(functions);
  const starts = new Float64Array(functions.length + parts.length);
  const ends = new Float64Array(starts.length);
  // Both lists are sorted by start: merged, not sorted again.
  let f = 0;
  let p = 0;
  for (let n = 0; n < starts.length; n++) {
    if (p >= parts.length || (f < functions.length && functions[f]!.address <= parts[p]!.start)) {
      const fn = functions[f++]!;
      starts[n] = Number(fn.address - base);
      ends[n] = Number(procedureEnd(image, fn, 1 << 20).end - base);
    } else {
      const part = parts[p++]!;
      starts[n] = Number(part.start - base);
      ends[n] = Number(part.end - base);
    }
  }
  return { starts, ends };
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
