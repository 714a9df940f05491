/**
 * PLT stubs (`.plt`, `.plt.sec`, `.plt.got`) and the imports resolved through
 * JUMP_SLOT, GLOB_DAT and IRELATIVE relocations, for x86-64, i386, AArch64
 * and ARM32; and the GOT slots a RELATIVE relocation fills with one of the
 * object's own code addresses (code built without a PLT, as rustc's is,
 * calls the functions of other crates through such slots).
 *
 * @module
 */

import { firstAtOrAfter, hex, sectionLabel } from "./_util.ts";
import {
  DT_JMPREL,
  DT_PLTREL,
  DT_PLTRELSZ,
  DT_REL,
  DT_RELA,
  DT_RELAENT,
  DT_RELASZ,
  DT_RELENT,
  DT_RELSZ,
  EM_386,
  EM_AARCH64,
  EM_ARM,
  EM_X86_64,
  SHF_ALLOC,
  SHF_EXECINSTR,
  SHT_REL,
  SHT_RELA,
} from "./constants.ts";
import type { DynamicSymbols } from "./dynamic_symbols.ts";
import { ExtrasReader, type Region } from "./extras_reader.ts";
import type { ElfImport, ElfLocalBinding, ElfPltStub, ElfSection } from "./model.ts";

/** One relocated GOT slot. */
interface Slot {
  symbol: number;
  type: number;
  kind: "jump-slot" | "glob-dat" | "irelative" | "relative";
  /** RELA addend; for REL, read from the slot when needed. */
  addend: bigint | null;
}

/** JUMP_SLOT, GLOB_DAT, IRELATIVE and RELATIVE relocation types by e_machine. */
interface RelocationTypes {
  jumpSlot: number;
  globDat: number;
  irelative: number;
  relative: number;
}

const RELOCATION_TYPES: ReadonlyMap<number, RelocationTypes> = new Map([
  [EM_X86_64, { jumpSlot: 7, globDat: 6, irelative: 37, relative: 8 }],
  [EM_386, { jumpSlot: 7, globDat: 6, irelative: 42, relative: 8 }],
  [EM_AARCH64, { jumpSlot: 1026, globDat: 1025, irelative: 1032, relative: 1027 }],
  [EM_ARM, { jumpSlot: 22, globDat: 21, irelative: 160, relative: 23 }],
]);

/** The sections of the loader's start-up arrays, when the dynamic section does not place them. */
const STARTUP_SECTIONS: ReadonlySet<string> = new Set([
  ".init_array",
  ".fini_array",
  ".preinit_array",
]);
/** Most start-up array slots read (real files have a few dozen). */
const MAX_STARTUP_SLOTS = 4096;

/** The sections whose RELATIVE-relocated slots are read: the GOT (other slots are data tables). */
const GOT_SECTIONS: ReadonlySet<string> = new Set([".got", ".got.plt"]);

/**
 * Reads the PLT stubs and the imports resolved through JUMP_SLOT and
 * GLOB_DAT relocations, for x86-64, i386, AArch64 and ARM32.
 */
export class PltReader extends ExtrasReader {
  /**
   * What RELA RELATIVE relocations put in the slots of the loader's start-up arrays
   * (DT_INIT_ARRAY, DT_FINI_ARRAY, DT_PREINIT_ARRAY, else `.init_array`, `.fini_array`,
   * `.preinit_array`): linkers for AArch64 leave those slots 0 in the file.
   */
  readonly startupTargets: bigint[] = [];

  readPlt(
    symbols: DynamicSymbols,
  ): {
    pltStubs: ElfPltStub[];
    imports: ElfImport[];
    localBindings: ElfLocalBinding[];
    startupTargets: bigint[];
  } {
    const p = this.p;
    const types = RELOCATION_TYPES.get(p.machine) ?? null;
    const slots = this.readSlots(types);
    const startupTargets = this.startupTargets;
    if (slots.size === 0) return { pltStubs: [], imports: [], localBindings: [], startupTargets };
    const symbolAt = (index: number): { name: string; defined: boolean } | undefined =>
      index >= 1 && index <= symbols.count
        ? { name: symbols.name(index - 1), defined: symbols.defined(index - 1) }
        : undefined;
    const pltStubs: ElfPltStub[] = [];
    const stubOfSlot = new Map<number, bigint>();
    if (types !== null) {
      for (const section of p.sections) {
        if (section.name !== ".plt" && section.name !== ".plt.sec" && section.name !== ".plt.got") {
          continue;
        }
        const region = this.sectionRegion(section);
        if (region === null || Number.isNaN(region.address)) continue;
        if (!this.charge(region)) break;
        for (const [address, slot] of this.decodeStubs(section, region)) {
          const relocation = slots.get(slot);
          if (relocation === undefined) continue;
          let name = "";
          let irelative: bigint | null = null;
          if (relocation.kind === "irelative") {
            irelative = relocation.addend ?? this.readSlot(slot);
            if (irelative !== null) name = this.functionAt(irelative);
          } else name = symbolAt(relocation.symbol)?.name ?? "";
          if (relocation.kind !== "irelative" && name === "") continue;
          pltStubs.push({
            address: BigInt(address),
            name,
            gotAddress: BigInt(slot),
            section: section.name,
            irelative,
          });
          if (!stubOfSlot.has(slot)) stubOfSlot.set(slot, BigInt(address));
        }
      }
      pltStubs.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
    }
    const imports: ElfImport[] = [];
    const localBindings: ElfLocalBinding[] = [];
    const order = [...slots.keys()].sort((a, b) => a - b);
    let missing = 0;
    for (const slot of order) {
      const relocation = slots.get(slot)!;
      if (relocation.kind === "relative") {
        // The slot holds one of this object's own addresses: a call through it reaches that
        // code, as one through a GLOB_DAT slot of a defined function does.
        const target = relocation.addend ?? this.readSlot(slot);
        if (target === null || !this.inCode(target)) continue;
        const address = p.machine === EM_ARM ? target & ~1n : target;
        localBindings.push({
          name: this.functionAt(address),
          address,
          gotAddress: BigInt(slot),
          stubAddress: stubOfSlot.get(slot) ?? null,
          kind: "relative",
        });
        continue;
      }
      if (relocation.kind === "irelative" || relocation.symbol === 0) continue;
      const symbol = symbolAt(relocation.symbol);
      if (symbol === undefined) {
        missing++;
        continue;
      }
      if (symbol.name === "") continue;
      if (symbol.defined) {
        const type = symbols.type(relocation.symbol - 1);
        if (type !== "function" && type !== "notype") continue;
        const value = symbols.value(relocation.symbol - 1);
        if (value === 0n) continue;
        localBindings.push({
          name: symbol.name,
          address: p.machine === EM_ARM ? value & ~1n : value,
          gotAddress: BigInt(slot),
          stubAddress: stubOfSlot.get(slot) ?? null,
          kind: relocation.kind,
        });
        continue;
      }
      imports.push({
        name: symbol.name,
        gotAddress: BigInt(slot),
        stubAddress: stubOfSlot.get(slot) ?? null,
        kind: relocation.kind,
      });
    }
    if (missing > 0) {
      this.warn(
        `${missing} PLT/GOT relocation${missing === 1 ? " names a symbol" : "s name symbols"} ` +
          `past the end of the ${symbols.count + 1}-entry dynamic symbol table; ` +
          `${missing === 1 ? "it is" : "they are"} skipped`,
      );
    }
    return { pltStubs, imports, localBindings, startupTargets };
  }

  /** Whether `address` lies in an executable section. */
  inCode(address: bigint): boolean {
    for (const s of this.p.sections) {
      if ((s.flags & SHF_EXECINSTR) === 0n || (s.flags & SHF_ALLOC) === 0n) continue;
      if (address >= s.address && address < s.address + BigInt(s.size)) return true;
    }
    return false;
  }

  /** Name of the function symbol starting at `address`, or `""`. */
  functionAt(address: bigint): string {
    const f = this.functions[firstAtOrAfter(this.functions, address)];
    return f !== undefined && f.address === address ? f.name : "";
  }

  /** The pointer stored in the GOT slot at `address` (REL relocations keep the addend there). */
  readSlot(address: number): bigint | null {
    const offset = this.offsetOf(address);
    if (offset === null || offset + this.pointerSize > this.length) return null;
    return this.is64 ? this.view.getBigUint64(offset, this.le) : BigInt(this.u32(offset));
  }

  /**
   * The GOT slots that JUMP_SLOT, GLOB_DAT and IRELATIVE relocations fill,
   * and RELATIVE ones inside `.got` and `.got.plt`, keyed by address: from
   * DT_JMPREL and DT_RELA / DT_REL, else from the `.rela.plt` / `.rel.plt`
   * and other allocated relocation sections.
   */
  readSlots(types: RelocationTypes | null): Map<number, Slot> {
    const p = this.p;
    // RELATIVE relocations are mostly data (vtables, pointer tables): only the GOT's are kept.
    const got = p.sections
      .filter((s) => GOT_SECTIONS.has(s.name) && s.size > 0)
      .map((s) => [Number(s.address), Number(s.address) + s.size] as const);
    const inGot = (slot: number): boolean =>
      got.some(([start, end]) => slot >= start && slot < end);
    const startup = this.#startupArrays();
    const inStartup = (slot: number): boolean =>
      startup.some(([start, end]) => slot >= start && slot < end);
    const tags = p.dynamicTags;
    const slots = new Map<number, Slot>();
    const tables: { region: Region; rela: boolean; plt: boolean; entrySize: number | null }[] = [];
    const fromTags = (
      addressTag: number,
      sizeTag: number,
      entryTag: number | null,
      rela: boolean,
      plt: boolean,
      label: string,
    ): void => {
      const address = tags.get(addressTag);
      const size = tags.get(sizeTag);
      if (address === undefined || size === undefined || size === 0n) return;
      const offset = this.offsetOf(address);
      if (offset === null) {
        this.warn(`Cannot read ${label}: its address ${hex(address)} is not in the file`);
        return;
      }
      const end = offset + Number(size);
      if (end > this.length) {
        this.warn(
          `${label} (${size} bytes at offset ${hex(offset)}) runs past the end of the ` +
            `${this.length}-byte file; reading what fits`,
        );
      }
      const entry = entryTag === null ? undefined : tags.get(entryTag);
      tables.push({
        region: { offset, end: Math.min(end, this.length), address: NaN, label },
        rela,
        plt,
        entrySize: entry === undefined ? null : Number(entry),
      });
    };
    if (tags.has(DT_JMPREL) || tags.has(DT_RELA) || tags.has(DT_REL)) {
      const pltRel = tags.get(DT_PLTREL);
      const pltIsRela = pltRel === undefined ? this.is64 : pltRel === BigInt(DT_RELA);
      fromTags(DT_JMPREL, DT_PLTRELSZ, null, pltIsRela, true, "DT_JMPREL");
      fromTags(DT_RELA, DT_RELASZ, DT_RELAENT, true, false, "DT_RELA");
      fromTags(DT_REL, DT_RELSZ, DT_RELENT, false, false, "DT_REL");
    } else {
      for (const s of p.sections) {
        if ((s.type !== SHT_RELA && s.type !== SHT_REL) || (s.flags & SHF_ALLOC) === 0n) continue;
        const region = this.sectionRegion(s);
        if (region === null) continue;
        tables.push({
          region,
          rela: s.type === SHT_RELA,
          plt: s.name === ".rela.plt" || s.name === ".rel.plt",
          entrySize: s.entrySize === 0 ? null : s.entrySize,
        });
      }
    }
    const is64 = this.is64;
    const le = this.le;
    const view = this.view;
    for (const { region, rela, plt, entrySize } of tables) {
      if (!this.charge(region)) break;
      const standard = rela ? (is64 ? 24 : 12) : (is64 ? 16 : 8);
      if (entrySize !== null && entrySize !== standard) {
        this.warn(
          `Cannot read ${region.label}: its entries are ${entrySize} bytes, expected ${standard}`,
        );
        continue;
      }
      const size = region.end - region.offset;
      if (size % standard !== 0 && region.end < this.length) {
        this.warn(
          `${region.label} is ${size} bytes, not a multiple of its ${standard}-byte entries; ` +
            `ignoring the last ${size % standard} bytes`,
        );
      }
      for (let o = region.offset; o + standard <= region.end; o += standard) {
        let type: number;
        let symbol: number;
        let slot: number;
        if (is64) {
          const a = view.getUint32(o + 8, le);
          const b = view.getUint32(o + 12, le);
          type = le ? a : b;
          symbol = le ? b : a;
          slot = this.p.word(o);
        } else {
          const info = view.getUint32(o + 4, le);
          type = info & 0xff;
          symbol = info >>> 8;
          slot = view.getUint32(o, le);
        }
        let kind: Slot["kind"];
        if (types === null) {
          if (!plt || symbol === 0) continue;
          kind = "jump-slot";
        } else if (type === types.jumpSlot) kind = "jump-slot";
        else if (type === types.globDat) kind = "glob-dat";
        else if (type === types.irelative) kind = "irelative";
        else if (type === types.relative && got.length > 0 && inGot(slot)) kind = "relative";
        else {
          if (rela && type === types.relative && startup.length > 0 && inStartup(slot)) {
            const target = is64 ? view.getBigUint64(o + 16, le) : BigInt(view.getUint32(o + 8, le));
            if (this.startupTargets.length < MAX_STARTUP_SLOTS) this.startupTargets.push(target);
          }
          continue;
        }
        if (slot >= 2 ** 53) continue;
        const addend = rela
          ? (is64 ? view.getBigInt64(o + 16, le) : BigInt(view.getInt32(o + 8, le)))
          : null;
        if (!slots.has(slot)) {
          slots.set(slot, {
            symbol,
            type,
            kind,
            addend: addend === null ? null : BigInt.asUintN(is64 ? 64 : 32, addend),
          });
        }
      }
    }
    return slots;
  }

  /** The address ranges of the loader's start-up arrays (see {@linkcode startupTargets}). */
  #startupArrays(): (readonly [number, number])[] {
    const { initArray, finiArray, preinitArray } = this.p.dynamicInfo;
    const ranges = [initArray, finiArray, preinitArray]
      .filter((r) => r !== null && r.size > 0n && r.address + r.size < 2n ** 53n)
      .map((r) => [Number(r!.address), Number(r!.address + r!.size)] as const);
    if (ranges.length > 0) return ranges;
    return this.p.sections
      .filter((s) => STARTUP_SECTIONS.has(s.name) && s.size > 0 && s.address < 2n ** 53n)
      .map((s) => [Number(s.address), Number(s.address) + s.size] as const);
  }

  /** [stub address, GOT slot] for each stub of a PLT section the decoder recognises. */
  decodeStubs(section: ElfSection, region: Region): [number, number][] {
    const machine = this.p.machine;
    const stubs: [number, number][] = [];
    const size = region.end - region.offset;
    if (machine === EM_X86_64 || machine === EM_386) {
      const endbr = machine === EM_X86_64 ? 0xfa : 0xfb;
      const startsWithEndbr = size >= 4 && this.bytes[region.offset] === 0xf3 &&
        this.bytes[region.offset + 1] === 0x0f && this.bytes[region.offset + 2] === 0x1e &&
        this.bytes[region.offset + 3] === endbr;
      const stride = section.entrySize === 8 || section.entrySize === 16
        ? section.entrySize
        : section.name === ".plt.got" && !startsWithEndbr
        ? 8
        : 16;
      if (size % stride !== 0) {
        this.warn(
          `PLT section ${sectionLabel(section)} is ${size} bytes, not a multiple of its ` +
            `${stride}-byte entries; ignoring the last ${size % stride} bytes`,
        );
      }
      for (let o = region.offset; o + stride <= region.end; o += stride) {
        const slot = this.x86Slot(o, o + stride, endbr, machine === EM_X86_64, region);
        if (slot !== null) stubs.push([region.address + (o - region.offset), slot]);
      }
      return stubs;
    }
    if (machine !== EM_AARCH64 && machine !== EM_ARM) return stubs;
    if (size % 4 !== 0) {
      this.warn(
        `PLT section ${sectionLabel(section)} is ${size} bytes, not a multiple of 4-byte ` +
          `instructions; ignoring the last ${size % 4} bytes`,
      );
    }
    const end = region.offset + (size - (size % 4));
    for (let o = region.offset; o + 4 <= end;) {
      const address = region.address + (o - region.offset);
      const found = machine === EM_AARCH64
        ? this.aarch64Stub(o, end, address)
        : this.armStub(o, end, address);
      if (found === null) {
        o += 4;
        continue;
      }
      stubs.push([address, found.slot]);
      o = found.next;
    }
    return stubs;
  }

  /**
   * The GOT slot an x86 PLT entry at `o` jumps through: `[endbr] [bnd] jmp
   * *slot`, where the slot is `disp32(%rip)` on x86-64 and either an absolute
   * `disp32` or `disp32(%ebx)` (relative to the GOT) on i386.
   */
  x86Slot(o: number, end: number, endbr: number, is64: boolean, region: Region): number | null {
    const b = this.bytes;
    let at = o;
    if (b[at] === 0xf3 && b[at + 1] === 0x0f && b[at + 2] === 0x1e && b[at + 3] === endbr) at += 4;
    if (b[at] === 0xf2) at++; // bnd (MPX)
    if (at + 6 > end || b[at] !== 0xff) return null;
    const modrm = b[at + 1];
    const disp = this.view.getInt32(at + 2, this.le);
    if (is64) {
      if (modrm !== 0x25) return null;
      return region.address + (at + 6 - region.offset) + disp;
    }
    if (modrm === 0x25) return disp >>> 0;
    if (modrm === 0xa3) {
      const got = this.gotBase();
      return Number.isNaN(got) ? null : (got + disp) >>> 0;
    }
    return null;
  }

  /**
   * An AArch64 PLT stub at `o`: `[bti c] adrp x16, page; ldr x17, [x16, #off];
   * add x16, x16, #off; [autia1716 | autib1716] br x17`.
   */
  aarch64Stub(o: number, end: number, address: number): { slot: number; next: number } | null {
    let at = o;
    let pc = address;
    if (at + 4 <= end && this.u32(at) === 0xd503245f) { // bti c
      at += 4;
      pc += 4;
    }
    if (at + 16 > end) return null;
    const adrp = this.u32(at);
    const ldr = this.u32(at + 4);
    const add = this.u32(at + 8);
    if (((adrp & 0x9f00001f) >>> 0) !== 0x90000010) return null; // adrp x16
    if (((ldr & 0xffc003ff) >>> 0) !== 0xf9400211) return null; // ldr x17, [x16, #imm]
    if (((add & 0xffc003ff) >>> 0) !== 0x91000210) return null; // add x16, x16, #imm
    let brAt = at + 12;
    const maybeAuth = this.u32(brAt);
    if (maybeAuth === 0xd503219f || maybeAuth === 0xd50321df) brAt += 4; // autia1716 / autib1716
    if (brAt + 4 > end || this.u32(brAt) !== 0xd61f0220) return null; // br x17
    const immlo = (adrp >>> 29) & 3;
    const immhi = (adrp >>> 5) & 0x7ffff;
    let pages = immhi * 4 + immlo;
    if (pages >= 0x100000) pages -= 0x200000; // 21-bit signed
    const page = Math.floor(pc / 4096) * 4096 + pages * 4096;
    const slot = page + ((ldr >>> 10) & 0xfff) * 8;
    return slot < 0 ? null : { slot, next: brAt + 4 };
  }

  /**
   * An ARM (A32) PLT stub at `o`: `add ip, pc, #imm; [add ip, ip, #imm]…;
   * ldr pc, [ip, #imm]!`, the slot being pc + 8 plus the immediates.
   */
  armStub(o: number, end: number, address: number): { slot: number; next: number } | null {
    if (o + 12 > end) return null;
    const first = this.u32(o);
    if (((first & 0xfffff000) >>> 0) !== 0xe28fc000) return null; // add ip, pc, #imm
    let sum = address + 8 + armImmediate(first);
    let at = o + 4;
    for (let i = 0; i < 2 && at + 4 <= end; i++) {
      const insn = this.u32(at);
      if (((insn & 0xfffff000) >>> 0) !== 0xe28cc000) break; // add ip, ip, #imm
      sum += armImmediate(insn);
      at += 4;
    }
    if (at + 4 > end) return null;
    const load = this.u32(at);
    if (((load & 0xfffff000) >>> 0) !== 0xe5bcf000) return null; // ldr pc, [ip, #imm]!
    return { slot: (sum + (load & 0xfff)) >>> 0, next: at + 4 };
  }
}

/** The value of an A32 data-processing modified immediate (imm8 rotated right by 2 * rot). */
function armImmediate(insn: number): number {
  const rotation = ((insn >>> 8) & 0xf) * 2;
  const imm8 = insn & 0xff;
  return ((imm8 >>> rotation) | (imm8 << (32 - rotation))) >>> 0;
}
