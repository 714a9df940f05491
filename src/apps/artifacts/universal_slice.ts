/**
 * The kind of a universal (fat) Mach-O, read from its first slice's header
 * as the bytes stream past: the fat header only names CPU types, and the
 * first slice usually starts beyond the head an inventory sniffs (at 4 or 16
 * KiB), so the slice's `filetype` is picked out of the stream instead.
 *
 * @module
 */

/** Bytes of a Mach-O header that hold its magic, CPU and file type. */
const HEADER_BYTES = 16;
const FAT_MAGIC = 0xcafebabe;
const FAT_MAGIC_64 = 0xcafebabf;
const MH_MAGIC = 0xfeedface;
const MH_MAGIC_64 = 0xfeedfacf;
const MH_CIGAM = 0xcefaedfe;
const MH_CIGAM_64 = 0xcffaedfe;

/** What a Mach-O file type makes of a binary. */
export type SliceKind = "executable" | "dynamic-library" | "object" | "unknown";

/** Collects the first slice's header of a universal Mach-O from the chunks of its stream. */
export class UniversalSliceProbe {
  readonly #offset: number;
  readonly #header = new Uint8Array(HEADER_BYTES);
  #filled = 0;

  private constructor(offset: number) {
    this.#offset = offset;
  }

  /** A probe for the first slice named by a fat header, or null when `head` is not one. */
  static from(head: Uint8Array): UniversalSliceProbe | null {
    if (head.length < 8) return null;
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    const magic = view.getUint32(0, false);
    if ((magic !== FAT_MAGIC && magic !== FAT_MAGIC_64) || view.getUint32(4, false) === 0) {
      return null;
    }
    // fat_arch: cputype, cpusubtype, offset (32-bit; 64-bit in fat_arch_64), size, align.
    let offset: number;
    if (magic === FAT_MAGIC) {
      if (head.length < 8 + 12) return null;
      offset = view.getUint32(8 + 8, false);
    } else {
      if (head.length < 8 + 16) return null;
      offset = Number(view.getBigUint64(8 + 8, false));
    }
    return Number.isSafeInteger(offset) && offset > 0 ? new UniversalSliceProbe(offset) : null;
  }

  /** Takes what it needs from `chunk`, which starts at byte `at` of the stream. */
  feed(chunk: Uint8Array, at: number): void {
    if (this.#filled === HEADER_BYTES) return;
    const from = this.#offset + this.#filled;
    const end = at + chunk.length;
    if (from < at || from >= end) return;
    const take = Math.min(HEADER_BYTES - this.#filled, end - from);
    this.#header.set(chunk.subarray(from - at, from - at + take), this.#filled);
    this.#filled += take;
  }

  /** The first slice's kind from its `filetype`, or null before its header has streamed past. */
  kind(): SliceKind | null {
    if (this.#filled < HEADER_BYTES) return null;
    const view = new DataView(this.#header.buffer);
    const magic = view.getUint32(0, false);
    const little = magic === MH_CIGAM || magic === MH_CIGAM_64;
    if (!little && magic !== MH_MAGIC && magic !== MH_MAGIC_64) return null;
    const type = view.getUint32(12, little);
    // MH_EXECUTE; MH_DYLIB and MH_BUNDLE (loadable, not runnable); MH_OBJECT.
    return type === 2
      ? "executable"
      : type === 6 || type === 8
      ? "dynamic-library"
      : type === 1
      ? "object"
      : "unknown";
  }
}
