/**
 * The dynamic section: DT_NEEDED, DT_SONAME, DT_RUNPATH, DT_RPATH, the flags
 * and the init/fini arrays, read through PT_DYNAMIC or SHT_DYNAMIC.
 *
 * @module
 */

import { hex } from "./_util.ts";
import {
  DT_FINI,
  DT_FINI_ARRAY,
  DT_FINI_ARRAYSZ,
  DT_FLAGS,
  DT_FLAGS_1,
  DT_INIT,
  DT_INIT_ARRAY,
  DT_INIT_ARRAYSZ,
  DT_NEEDED,
  DT_NULL,
  DT_PREINIT_ARRAY,
  DT_PREINIT_ARRAYSZ,
  DT_RPATH,
  DT_RUNPATH,
  DT_SONAME,
  DT_STRSZ,
  DT_STRTAB,
  PT_DYNAMIC,
  SHT_DYNAMIC,
  SHT_STRTAB,
} from "./constants.ts";
import { ExtrasReader, type Region } from "./extras_reader.ts";
import type { ElfAddressRange, ElfDynamic, ElfDynamicEntry } from "./model.ts";

/** Most dynamic entries kept; real files have well under a hundred. */
const MAX_DYNAMIC_ENTRIES = 65536;

const DYNAMIC_TAG_NAMES: ReadonlyMap<number, string> = new Map([
  [0, "DT_NULL"],
  [1, "DT_NEEDED"],
  [2, "DT_PLTRELSZ"],
  [3, "DT_PLTGOT"],
  [4, "DT_HASH"],
  [5, "DT_STRTAB"],
  [6, "DT_SYMTAB"],
  [7, "DT_RELA"],
  [8, "DT_RELASZ"],
  [9, "DT_RELAENT"],
  [10, "DT_STRSZ"],
  [11, "DT_SYMENT"],
  [12, "DT_INIT"],
  [13, "DT_FINI"],
  [14, "DT_SONAME"],
  [15, "DT_RPATH"],
  [16, "DT_SYMBOLIC"],
  [17, "DT_REL"],
  [18, "DT_RELSZ"],
  [19, "DT_RELENT"],
  [20, "DT_PLTREL"],
  [21, "DT_DEBUG"],
  [22, "DT_TEXTREL"],
  [23, "DT_JMPREL"],
  [24, "DT_BIND_NOW"],
  [25, "DT_INIT_ARRAY"],
  [26, "DT_FINI_ARRAY"],
  [27, "DT_INIT_ARRAYSZ"],
  [28, "DT_FINI_ARRAYSZ"],
  [29, "DT_RUNPATH"],
  [30, "DT_FLAGS"],
  [32, "DT_PREINIT_ARRAY"],
  [33, "DT_PREINIT_ARRAYSZ"],
  [34, "DT_SYMTAB_SHNDX"],
  [35, "DT_RELRSZ"],
  [36, "DT_RELR"],
  [37, "DT_RELRENT"],
  [0x6ffffdf5, "DT_GNU_PRELINKED"],
  [0x6ffffef5, "DT_GNU_HASH"],
  [0x6ffffef6, "DT_TLSDESC_PLT"],
  [0x6ffffef7, "DT_TLSDESC_GOT"],
  [0x6ffffff0, "DT_VERSYM"],
  [0x6ffffff9, "DT_RELACOUNT"],
  [0x6ffffffa, "DT_RELCOUNT"],
  [0x6ffffffb, "DT_FLAGS_1"],
  [0x6ffffffc, "DT_VERDEF"],
  [0x6ffffffd, "DT_VERDEFNUM"],
  [0x6ffffffe, "DT_VERNEED"],
  [0x6fffffff, "DT_VERNEEDNUM"],
  [0x7ffffffd, "DT_AUXILIARY"],
  [0x7fffffff, "DT_FILTER"],
]);

/** Reads the dynamic section into the parser's `dynamicInfo` and `dynamicTags`. */
export class DynamicSectionReader extends ExtrasReader {
  readDynamicSection(): void {
    const p = this.p;
    const segment = p.segments.find((s) => s.type === PT_DYNAMIC);
    const section = p.sections.find((s) => s.type === SHT_DYNAMIC);
    let region: Region | null = null;
    if (segment !== undefined && segment.fileSize > 0 && segment.offset < this.length) {
      const end = segment.offset + segment.fileSize;
      if (end > this.length && !p.dynamicSegmentChecked) {
        this.warn(
          `PT_DYNAMIC (${segment.fileSize} bytes at offset ${hex(segment.offset)}) runs past ` +
            `the end of the ${this.length}-byte file; reading what fits`,
        );
      }
      region = {
        offset: segment.offset,
        end: Math.min(end, this.length),
        address: NaN,
        label: "PT_DYNAMIC",
      };
    } else if (section !== undefined) {
      region = this.sectionRegion(section);
    }
    if (region === null) return;
    const entrySize = this.is64 ? 16 : 8;
    const entries: ElfDynamicEntry[] = [];
    const tags = p.dynamicTags;
    let terminated = false;
    let capped = false;
    for (let o = region.offset; o + entrySize <= region.end; o += entrySize) {
      const tag = p.word(o);
      if (tag === DT_NULL) {
        terminated = true;
        break;
      }
      if (entries.length === MAX_DYNAMIC_ENTRIES) {
        this.warn(
          `The dynamic section (${region.label}) has more than ${MAX_DYNAMIC_ENTRIES} entries; ` +
            `reading the first ${MAX_DYNAMIC_ENTRIES}`,
        );
        capped = true;
        break;
      }
      const value = p.addr(o + entrySize / 2);
      entries.push({ tag, tagName: DYNAMIC_TAG_NAMES.get(tag) ?? hex(tag), value });
      if (!tags.has(tag)) tags.set(tag, value);
    }
    if (!terminated && !capped) {
      this.warn(
        `The dynamic section (${region.label}, ${region.end - region.offset} bytes at offset ${
          hex(region.offset)
        }) has no DT_NULL terminator; reading its ${entries.length} entries`,
      );
    }
    // Names come from DT_STRTAB (what the loader uses), else the section's sh_link.
    let strings: { offset: number; end: number } | null = null;
    const strtab = tags.get(DT_STRTAB);
    const strsz = tags.get(DT_STRSZ);
    const strOffset = strtab === undefined ? null : this.offsetOf(strtab);
    if (strOffset !== null) {
      const size = strsz === undefined ? this.length : Number(strsz);
      strings = { offset: strOffset, end: Math.min(strOffset + size, this.length) };
    } else if (section !== undefined) {
      const linked = p.sections[section.link];
      if (linked !== undefined && linked.type === SHT_STRTAB && linked.index !== section.index) {
        const r = this.sectionRegion(linked);
        if (r !== null) strings = { offset: r.offset, end: r.end };
      }
    }
    const needed: string[] = [];
    let soname: string | null = null;
    let runpath: string | null = null;
    let rpath: string | null = null;
    let bad = 0;
    let missing = 0;
    const name = (value: bigint): string | null => {
      if (strings === null) {
        missing++;
        return null;
      }
      if (value >= BigInt(strings.end - strings.offset)) {
        bad++;
        return null;
      }
      return this.cString(strings.offset + Number(value), strings.end);
    };
    for (const { tag, value } of entries) {
      if (tag === DT_NEEDED) {
        const n = name(value);
        if (n !== null) needed.push(n);
      } else if (tag === DT_SONAME && soname === null) soname = name(value);
      else if (tag === DT_RUNPATH && runpath === null) runpath = name(value);
      else if (tag === DT_RPATH && rpath === null) rpath = name(value);
    }
    if (missing > 0) {
      this.warn(
        `Cannot read the names of ${missing} dynamic entr${missing === 1 ? "y" : "ies"} ` +
          `(DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH): DT_STRTAB is missing or not in the file`,
      );
    }
    if (bad > 0) {
      this.warn(
        `${bad} dynamic entr${bad === 1 ? "y has a name offset" : "ies have name offsets"} past ` +
          `the end of the ${strings!.end - strings!.offset}-byte dynamic string table; ` +
          `${bad === 1 ? "it is" : "they are"} skipped`,
      );
    }
    const range = (addressTag: number, sizeTag: number): ElfAddressRange | null => {
      const address = tags.get(addressTag);
      return address === undefined ? null : { address, size: tags.get(sizeTag) ?? 0n };
    };
    p.dynamicInfo = {
      needed,
      soname,
      runpath,
      rpath,
      flags: tags.get(DT_FLAGS) ?? null,
      flags1: tags.get(DT_FLAGS_1) ?? null,
      init: tags.get(DT_INIT) ?? null,
      fini: tags.get(DT_FINI) ?? null,
      initArray: range(DT_INIT_ARRAY, DT_INIT_ARRAYSZ),
      finiArray: range(DT_FINI_ARRAY, DT_FINI_ARRAYSZ),
      preinitArray: range(DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ),
      entries,
    };
  }
}

/** The dynamic section of a file that has none. */
export function emptyDynamic(): ElfDynamic {
  return {
    needed: [],
    soname: null,
    runpath: null,
    rpath: null,
    flags: null,
    flags1: null,
    init: null,
    fini: null,
    initArray: null,
    finiArray: null,
    preinitArray: null,
    entries: [],
  };
}
