/**
 * The shared base of the readers that run after the headers and symbols:
 * the dynamic section, the notes, `.eh_frame`, the dynamic symbols and the
 * PLT.
 *
 * @module
 */

import { decoder, sectionLabel } from "./_util.ts";
import {
  DT_PLTGOT,
  MAX_NAME_BYTES,
  PT_LOAD,
  SHF_ALLOC,
  SHT_NOBITS,
  STRING_BUDGET_FACTOR,
} from "./constants.ts";
import type { ElfFunction, ElfSection } from "./model.ts";
import type { Parser } from "./parse.ts";

/** A byte range of the file and the address its first byte has (when mapped). */
export interface Region {
  offset: number;
  end: number;
  /** Address of `offset`, or NaN when unknown. */
  address: number;
  label: string;
}

/**
 * Bytes of note, PLT and relocation sections a parse may still scan, shared
 * by every {@linkcode ExtrasReader} of the parse: a hostile file can declare
 * thousands of such sections over the same bytes, and this keeps the work
 * proportional to the file size.
 */
export interface ScanBudget {
  remaining: number;
  /** Whether running out has been reported. */
  warned: boolean;
}

/**
 * What {@linkcode ExtrasReader} itself reads of the parser: the bytes, the
 * headers, the address map and the warnings. A reader of a lone table (a PE
 * image's `.eh_frame`, say) can provide these without an ELF parse.
 */
export type ExtrasHost = Pick<
  Parser,
  | "bytes"
  | "view"
  | "length"
  | "le"
  | "is64"
  | "sections"
  | "segments"
  | "toFileOffset"
  | "warn"
  | "dynamicTags"
>;

/**
 * What the readers of the dynamic section, the notes, `.eh_frame`, the
 * dynamic symbols and the PLT share: the parser's headers and helpers, reads
 * checked against the file, and damage reported through the parser's warnings.
 */
export class ExtrasReader<P extends ExtrasHost = Parser> {
  readonly p: P;
  readonly functions: ElfFunction[];
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly length: number;
  readonly le: boolean;
  readonly is64: boolean;
  readonly pointerSize: 4 | 8;
  #gotBase: number | null | undefined = undefined;
  #budget: ScanBudget;

  constructor(p: P, functions: ElfFunction[], budget: ScanBudget) {
    this.p = p;
    this.functions = functions;
    this.bytes = p.bytes;
    this.view = p.view;
    this.length = p.length;
    this.le = p.le;
    this.is64 = p.is64;
    this.pointerSize = p.is64 ? 8 : 4;
    this.#budget = budget;
  }

  /** Takes `region`'s bytes from the scan budget; false (warned once) when it has run out. */
  charge(region: Region): boolean {
    const bytes = region.end - region.offset;
    if (bytes <= this.#budget.remaining) {
      this.#budget.remaining -= bytes;
      return true;
    }
    if (!this.#budget.warned) {
      this.#budget.warned = true;
      this.warn(
        `Skipped ${region.label} and later note, PLT and relocation sections: together they ` +
          `add up to more than ${STRING_BUDGET_FACTOR} times the size of the file`,
      );
    }
    return false;
  }

  /**
   * Runs `read`, turning an unexpected exception into a warning. Every read
   * is checked first, so this is a last line of defence, not the mechanism.
   */
  guard<T>(what: string, read: () => T, fallback: T): T {
    try {
      return read();
    } catch (error) {
      this.p.warn(
        `Internal error while reading ${what}: ${
          error instanceof Error ? error.message : String(error)
        }; it is skipped`,
      );
      return fallback;
    }
  }

  warn(message: string): void {
    this.p.warn(message);
  }

  u8(at: number): number {
    return this.bytes[at]!;
  }

  u16(at: number): number {
    return this.view.getUint16(at, this.le);
  }

  u32(at: number): number {
    return this.view.getUint32(at, this.le);
  }

  /** File offset of `address` through PT_LOAD, else through an allocated section. */
  offsetOf(address: bigint | number): number | null {
    const a = typeof address === "bigint" ? address : BigInt(address);
    const viaSegment = this.p.toFileOffset(a);
    if (viaSegment !== null || this.p.segments.length > 0) return viaSegment;
    for (const s of this.p.sections) {
      if (s.type === SHT_NOBITS || (s.flags & SHF_ALLOC) === 0n) continue;
      if (a >= s.address && a - s.address < BigInt(s.size)) {
        const offset = s.offset + Number(a - s.address);
        return offset < this.length ? offset : null;
      }
    }
    return null;
  }

  /** End (exclusive) of the PT_LOAD file bytes holding file offset `offset`. */
  loadEnd(offset: number): number {
    for (const s of this.p.segments) {
      if (s.type !== PT_LOAD) continue;
      if (offset >= s.offset && offset < s.offset + s.fileSize) {
        return Math.min(s.offset + s.fileSize, this.length);
      }
    }
    return this.length;
  }

  /** The file bytes of a section as a region, or null when it has none. */
  sectionRegion(section: ElfSection): Region | null {
    if (section.type === SHT_NOBITS || section.size === 0 || section.offset >= this.length) {
      return null;
    }
    const address = section.address < 2n ** 53n ? Number(section.address) : NaN;
    return {
      offset: section.offset,
      end: Math.min(section.offset + section.size, this.length),
      address,
      label: sectionLabel(section),
    };
  }

  /** A NUL-terminated string at `at`, not past `end` nor longer than MAX_NAME_BYTES. */
  cString(at: number, end: number): string {
    const limit = Math.min(end, at + MAX_NAME_BYTES);
    let stop = this.bytes.subarray(at, limit).indexOf(0);
    stop = stop < 0 ? limit : at + stop;
    return decoder.decode(this.bytes.subarray(at, stop));
  }

  /** The datarel base of `.eh_frame` pointers: the GOT (DT_PLTGOT, else .got.plt or .got). */
  gotBase(): number {
    if (this.#gotBase === undefined) {
      let base: bigint | undefined = this.p.dynamicTags.get(DT_PLTGOT);
      if (base === undefined) {
        base = (this.p.sections.find((s) => s.name === ".got.plt") ??
          this.p.sections.find((s) => s.name === ".got"))?.address;
      }
      this.#gotBase = base !== undefined && base < 2n ** 53n ? Number(base) : null;
    }
    return this.#gotBase ?? NaN;
  }
}
