/**
 * The call and jump relocations of an x86-64 relocatable object, applied to
 * a copy of its bytes so that decoding reads each call's real target.
 *
 * In an object, a call to another function holds `rel32 = -4` (or a section
 * offset) and a relocation says what it reaches: R_X86_64_PLT32 or
 * R_X86_64_PC32 against a symbol, with an addend. A linker writes
 * `S + A - P` into the field; so does {@linkcode applyCallRelocations}, with
 * S from the reading layout (`relocatable_layout.ts`) for defined symbols and
 * a placeholder address per import for undefined ones.
 *
 * @module
 */

import {
  EM_X86_64,
  SHF_EXECINSTR,
  SHN_ABS,
  SHN_LORESERVE,
  SHN_UNDEF,
  SHT_RELA,
} from "./constants.ts";
import type { ElfImage } from "./model.ts";

const R_X86_64_PC32 = 2;
const R_X86_64_PLT32 = 4;
const RELA_ENTRY = 24;

/** What {@linkcode applyCallRelocations} did. */
export interface AppliedCallRelocations {
  /** The file's bytes with the call and jump fields written (the input itself when none was). */
  bytes: Uint8Array;
  /** Relocations written into a call or jump operand. */
  applied: number;
  /** Call or jump relocations left as they are: their symbol has no address here. */
  unresolved: number;
}

/**
 * Whether the 4 bytes at `field` are the rel32 operand of a call (E8), a jump
 * (E9) or a conditional jump (0F 80..8F). The byte before a RIP-relative
 * displacement is a ModRM byte with mod 00, never E8, E9 or 8x.
 */
function isBranchOperand(bytes: Uint8Array, field: number, end: number): boolean {
  if (field < 1 || field + 4 > end) return false;
  const op = bytes[field - 1]!;
  if (op === 0xe8 || op === 0xe9) return true;
  return field >= 2 && bytes[field - 2] === 0x0f && (op & 0xf0) === 0x80;
}

/**
 * Applies the R_X86_64_PLT32 and R_X86_64_PC32 relocations of `elf` that
 * fall on a call or jump rel32 operand in an executable section, to a copy of
 * `bytes`: the operand becomes `S + A - P`, where P is the operand's layout
 * address, S the layout address of a defined symbol (section base plus
 * `st_value`) or `imports.get(name)` for an undefined one. Other relocations
 * (data references, GOT loads) are left alone. Does nothing unless `elf` is
 * an x86-64 relocatable file parsed with `layoutRelocatable`.
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
  const result: AppliedCallRelocations = { bytes, applied: 0, unresolved: 0 };
  const layout = elf.layout;
  const symbols = elf.objectSymbols;
  if (elf.machine !== EM_X86_64 || elf.bits !== 64) return result;
  if (layout === undefined || symbols === undefined) return result;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let out: Uint8Array | null = null;
  let outView: DataView | null = null;
  for (const rela of elf.sections) {
    if (rela.type !== SHT_RELA) continue;
    const target = elf.sections[rela.info];
    const base = layout[rela.info] ?? null;
    if (target === undefined || base === null || (target.flags & SHF_EXECINSTR) === 0n) continue;
    const stride = rela.entrySize >= RELA_ENTRY ? rela.entrySize : RELA_ENTRY;
    const end = Math.min(bytes.length, rela.offset + rela.size);
    const targetEnd = Math.min(bytes.length, target.offset + target.size);
    for (let o = rela.offset; o + RELA_ENTRY <= end; o += stride) {
      const type = view.getUint32(o + 8, true);
      if (type !== R_X86_64_PLT32 && type !== R_X86_64_PC32) continue;
      const offset = view.getBigUint64(o, true);
      if (offset >= BigInt(target.size)) continue;
      const field = target.offset + Number(offset);
      if (!isBranchOperand(bytes, field, targetEnd)) continue;
      const s = symbolAddress(view.getUint32(o + 12, true), { elf, layout, imports });
      if (s === null) {
        result.unresolved++;
        continue;
      }
      const value = s + view.getBigInt64(o + 16, true) - (base + offset);
      if (value < -(1n << 31n) || value >= 1n << 31n) {
        result.unresolved++;
        continue;
      }
      if (out === null) {
        out = bytes.slice();
        outView = new DataView(out.buffer);
      }
      outView!.setInt32(field, Number(value), true);
      result.applied++;
    }
  }
  if (out !== null) result.bytes = out;
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
