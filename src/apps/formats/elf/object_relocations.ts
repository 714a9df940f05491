/**
 * The call and jump relocations of a relocatable object, applied to a copy of
 * its bytes so that decoding reads each call's real target.
 *
 * In an object, a call to another function holds a placeholder offset (`-4`
 * on x86, `-8` or `-4` in ARM and Thumb, 0 on AArch64, or an offset in a
 * section) and a relocation says what it reaches: a symbol and an addend,
 * given in the entry (SHT_RELA) or held by the branch itself (SHT_REL). A
 * linker writes `S + A - P` into the branch; so does
 * {@linkcode applyCallRelocations}, with S from the reading layout
 * (`relocatable_layout.ts`) for defined symbols and a placeholder address
 * per import for undefined ones. Which relocation types are branches, and
 * how each kind of branch holds its offset, is the table
 * {@linkcode CALL_RELOCATIONS}: x86-64 and i386 (rel32 of call, jmp, jcc),
 * AArch64 (B and BL) and 32-bit ARM (ARM B, BL, BLX and Thumb BL, BLX, B.W),
 * little-endian files only.
 *
 * @module
 */

import {
  EM_386,
  EM_AARCH64,
  EM_ARM,
  EM_X86_64,
  SHF_EXECINSTR,
  SHN_ABS,
  SHN_LORESERVE,
  SHN_UNDEF,
  SHT_REL,
  SHT_RELA,
} from "./constants.ts";
import type { ElfHeaders, ElfImage } from "./model.ts";

/** What {@linkcode applyCallRelocations} did. */
export interface AppliedCallRelocations {
  /** The file's bytes with the call and jump fields written (the input itself when none was). */
  bytes: Uint8Array;
  /** Relocations written into a call or jump operand. */
  applied: number;
  /**
   * Call or jump relocations left as they are: their symbol has no address
   * here, or the branch cannot encode the distance to it.
   */
  unresolved: number;
  /**
   * The layout address of every relocation in an executable section that was
   * not written (data references, GOT loads, unresolved branches), ascending:
   * the operand there still holds the assembler's placeholder.
   */
  unapplied: bigint[];
}

/** How one kind of branch holds its target offset (4 bytes at `field`, little-endian). */
interface BranchField {
  /** Whether the 4 bytes at `field` are this branch's operand (not a data reference). */
  holds(bytes: Uint8Array, field: number): boolean;
  /** The addend the branch itself holds (for SHT_REL). */
  addend(view: DataView, field: number): bigint;
  /**
   * Writes the offset `value` (`S + A - P`, bit 0 set for a Thumb target)
   * into the branch; false, leaving it, when the branch cannot encode it.
   */
  write(view: DataView, field: number, value: bigint): boolean;
}

/** Whether `value` fits a signed field of `bits` bits. */
function fits(value: bigint, bits: bigint): boolean {
  return value >= -(1n << (bits - 1n)) && value < 1n << (bits - 1n);
}

/** `value`'s low `bits` bits as a signed number. */
function signed(value: number, bits: number): number {
  const shift = 32 - bits;
  return (value << shift) >> shift;
}

/**
 * The rel32 of an x86 call (E8), jump (E9) or conditional jump (0F 80..8F).
 * The byte before a RIP-relative displacement is a ModRM byte with mod 00,
 * never E8, E9 or 8x.
 */
const X86_REL32: BranchField = {
  holds(bytes, field): boolean {
    if (field < 1) return false;
    const op = bytes[field - 1]!;
    if (op === 0xe8 || op === 0xe9) return true;
    return field >= 2 && bytes[field - 2] === 0x0f && (op & 0xf0) === 0x80;
  },
  addend: (view, field) => BigInt(view.getInt32(field, true)),
  write(view, field, value): boolean {
    if (!fits(value, 32n)) return false;
    view.setInt32(field, Number(value), true);
    return true;
  },
};

/** The imm26 of an AArch64 B or BL: the offset in words. */
const A64_BRANCH26: BranchField = {
  holds: (bytes, field) => (bytes[field + 3]! & 0x7c) === 0x14,
  addend: (view, field) => BigInt(signed(view.getUint32(field, true), 26) * 4),
  write(view, field, value): boolean {
    if ((value & 3n) !== 0n || !fits(value, 28n)) return false;
    const word = view.getUint32(field, true);
    view.setUint32(field, ((word & 0xfc000000) | (Number(value >> 2n) & 0x3ffffff)) >>> 0, true);
    return true;
  },
};

/**
 * The imm24 of an ARM B, BL or BLX (immediate): the offset from the
 * branch's address plus 8, in words (BLX adds a halfword, its H bit). A BL
 * whose target is Thumb becomes a BLX, as a linker makes it.
 */
const ARM_BRANCH24: BranchField = {
  holds: (bytes, field) => (bytes[field + 3]! & 0x0e) === 0x0a,
  addend(view, field): bigint {
    const word = view.getUint32(field, true);
    const h = word >>> 28 === 0xf ? (word >>> 23) & 2 : 0;
    return BigInt(signed(word, 24) * 4 + h);
  },
  write(view, field, value): boolean {
    const word = view.getUint32(field, true);
    const blx = word >>> 28 === 0xf;
    const call = blx || (word & 0xff000000) >>> 0 === 0xeb000000;
    const thumb = (value & 1n) !== 0n;
    if ((thumb || (value & 2n) !== 0n) && !(thumb && call)) return false;
    if (!fits(value, 26n)) return false;
    const imm = Number((value >> 2n) & 0xffffffn);
    const next = thumb
      ? 0xfa000000 | (Number(value & 2n) << 23) | imm
      : ((blx ? 0xeb000000 : word & 0xff000000) | imm);
    view.setUint32(field, next >>> 0, true);
    return true;
  },
};

/**
 * The offset of a Thumb-2 BL, BLX or B.W (encoding T4): S:I1:I2:imm10:imm11
 * over two halfwords, from the branch's address plus 4, in halfwords.
 */
const THUMB_BRANCH24: BranchField = {
  holds(bytes, field): boolean {
    const second = bytes[field + 3]!;
    return (bytes[field + 1]! & 0xf8) === 0xf0 && ((second & 0xc0) === 0xc0 ||
      (second & 0xd0) === 0x90);
  },
  addend(view, field): bigint {
    const first = view.getUint16(field, true);
    const second = view.getUint16(field + 2, true);
    const s = (first >> 10) & 1;
    const i1 = ~(((second >> 13) & 1) ^ s) & 1;
    const i2 = ~(((second >> 11) & 1) ^ s) & 1;
    const imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((first & 0x3ff) << 12) |
      ((second & 0x7ff) << 1);
    return BigInt(signed(imm, 25));
  },
  write(view, field, value): boolean {
    const offset = value & ~1n;
    if (!fits(offset, 25n)) return false;
    const v = Number(BigInt.asUintN(25, offset));
    const s = (v >> 24) & 1;
    const j1 = (~(v >> 23) & 1) ^ s;
    const j2 = (~(v >> 22) & 1) ^ s;
    const first = view.getUint16(field, true);
    const second = view.getUint16(field + 2, true);
    view.setUint16(field, (first & 0xf800) | (s << 10) | ((v >> 12) & 0x3ff), true);
    view.setUint16(
      field + 2,
      (second & 0xd000) | (j1 << 13) | (j2 << 11) | ((v >> 1) & 0x7ff),
      true,
    );
    return true;
  },
};

/**
 * The relocation types of each machine that a linker writes into a call or
 * jump, and the branch each one relocates (numbers from the processor
 * supplements: x86-64, i386, AArch64 and ARM ELF).
 */
export const CALL_RELOCATIONS: ReadonlyMap<number, ReadonlyMap<number, BranchField>> = new Map([
  [EM_X86_64, new Map([[2, X86_REL32], [4, X86_REL32]])], // R_X86_64_PC32, R_X86_64_PLT32
  [EM_386, new Map([[2, X86_REL32], [4, X86_REL32]])], // R_386_PC32, R_386_PLT32
  [EM_AARCH64, new Map([[282, A64_BRANCH26], [283, A64_BRANCH26]])], // JUMP26, CALL26
  [
    EM_ARM,
    new Map([
      [27, ARM_BRANCH24], // R_ARM_PLT32
      [28, ARM_BRANCH24], // R_ARM_CALL
      [29, ARM_BRANCH24], // R_ARM_JUMP24
      [10, THUMB_BRANCH24], // R_ARM_THM_CALL
      [30, THUMB_BRANCH24], // R_ARM_THM_JUMP24
    ]),
  ],
]);

/** The branch relocations {@linkcode applyCallRelocations} applies to `elf`, if any. */
function branchTypes(
  elf: Pick<ElfHeaders, "machine" | "endianness">,
): ReadonlyMap<number, BranchField> | null {
  return elf.endianness === "little" ? CALL_RELOCATIONS.get(elf.machine) ?? null : null;
}

/** Whether {@linkcode applyCallRelocations} applies the call relocations of `elf`'s machine. */
export function appliesCallRelocations(elf: Pick<ElfHeaders, "machine" | "endianness">): boolean {
  return branchTypes(elf) !== null;
}

/** One relocation entry. */
interface Relocation {
  offset: bigint;
  type: number;
  symbol: number;
  /** The entry's addend (SHT_RELA), or null when the field holds it (SHT_REL). */
  addend: bigint | null;
}

/** The entries of relocation section `rel` (SHT_REL or SHT_RELA, 32- or 64-bit). */
function* relocations(
  view: DataView,
  rel: { type: number; offset: number; size: number; entrySize: number },
  wide: boolean,
): Generator<Relocation> {
  const word = wide ? 8 : 4;
  const size = (rel.type === SHT_RELA ? 3 : 2) * word;
  const stride = rel.entrySize >= size ? rel.entrySize : size;
  const end = Math.min(view.byteLength, rel.offset + rel.size);
  for (let o = rel.offset; o + size <= end; o += stride) {
    const offset = wide ? view.getBigUint64(o, true) : BigInt(view.getUint32(o, true));
    const info = wide ? view.getBigUint64(o + 8, true) : BigInt(view.getUint32(o + 4, true));
    const [type, symbol] = wide
      ? [Number(info & 0xffffffffn), Number(info >> 32n)]
      : [Number(info & 0xffn), Number(info >> 8n)];
    const addend = rel.type !== SHT_RELA
      ? null
      : wide
      ? view.getBigInt64(o + 16, true)
      : BigInt(view.getInt32(o + 8, true));
    yield { offset, type, symbol, addend };
  }
}

/**
 * Applies the relocations of `elf` that a linker writes into a call or jump
 * ({@linkcode CALL_RELOCATIONS}) and that fall on such a branch in an
 * executable section, to a copy of `bytes`: the branch's offset becomes
 * `S + A - P`, where P is the branch's layout address, S the layout address
 * of a defined symbol (section base plus `st_value`, whose bit 0 marks a
 * Thumb function) or `imports.get(name)` for an undefined one, and A the
 * entry's addend or, in an SHT_REL section, the one the branch holds. Other
 * relocations (data references, GOT loads) are left alone. Does nothing
 * unless `elf` is a relocatable file of a machine in the table, parsed with
 * `layoutRelocatable`.
 *
 * @param elf The parse of `bytes`.
 * @param bytes The whole file.
 * @param imports The placeholder address of each import, by name.
 */
export function applyCallRelocations(
  elf: ElfImage,
  bytes: Uint8Array,
  imports: ReadonlyMap<string, bigint>,
): AppliedCallRelocations {
  const result: AppliedCallRelocations = { bytes, applied: 0, unresolved: 0, unapplied: [] };
  const layout = elf.layout;
  const types = branchTypes(elf) ?? new Map();
  if (layout === undefined) return result;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let out: Uint8Array | null = null;
  let outView: DataView | null = null;
  for (const rel of elf.sections) {
    if (rel.type !== SHT_RELA && rel.type !== SHT_REL) continue;
    const target = elf.sections[rel.info];
    const base = layout[rel.info] ?? null;
    if (target === undefined || base === null || (target.flags & SHF_EXECINSTR) === 0n) continue;
    const targetEnd = Math.min(bytes.length, target.offset + target.size);
    for (const entry of relocations(view, rel, elf.bits === 64)) {
      if (entry.offset >= BigInt(target.size)) continue;
      const branch = types.get(entry.type);
      const field = target.offset + Number(entry.offset);
      if (
        branch === undefined || elf.objectSymbols === undefined || field + 4 > targetEnd ||
        !branch.holds(bytes, field)
      ) {
        result.unapplied.push(base + entry.offset);
        continue;
      }
      const s = symbolAddress(entry.symbol, { elf, layout, imports });
      if (out === null) {
        out = bytes.slice();
        outView = new DataView(out.buffer);
      }
      const a = entry.addend ?? branch.addend(outView!, field);
      if (s === null || !branch.write(outView!, field, s + a - (base + entry.offset))) {
        result.unresolved++;
        result.unapplied.push(base + entry.offset);
        continue;
      }
      result.applied++;
    }
  }
  if (out !== null && result.applied > 0) result.bytes = out;
  result.unapplied.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return result;
}

/** The address of relocation symbol `index` (1-based), or null when it has none here. */
function symbolAddress(
  index: number,
  context: {
    elf: ElfImage;
    layout: readonly (bigint | null)[];
    imports: ReadonlyMap<string, bigint>;
  },
): bigint | null {
  const symbols = context.elf.objectSymbols!;
  const i = index - 1;
  if (i < 0 || i >= symbols.count) return null;
  const shndx = symbols.sectionIndex(i);
  if (shndx === SHN_UNDEF) return context.imports.get(symbols.name(i)) ?? null;
  if (shndx === SHN_ABS) return symbols.value(i);
  if (shndx >= SHN_LORESERVE) return null;
  const base = context.layout[shndx] ?? null;
  return base === null ? null : base + symbols.value(i);
}
