/**
 * GNU symbol versioning: which version each dynamic symbol carries
 * (`.gnu.version`), the versions the object defines (`.gnu.version_d`) and
 * the versions it needs from each library (`.gnu.version_r`). `nm -D` shows
 * the result as `memcpy@@GLIBC_2.14` (the default version of a definition),
 * `memcpy@GLIBC_2.2.5` (a hidden, older one) and, for an undefined symbol,
 * `memcpy@GLIBC_2.14` with the library `readelf -V` names beside it.
 *
 * @module
 */

import {
  DT_VERDEF,
  DT_VERDEFNUM,
  DT_VERNEED,
  DT_VERNEEDNUM,
  DT_VERSYM,
  SHT_GNU_VERDEF,
  SHT_GNU_VERNEED,
  SHT_GNU_VERSYM,
} from "./constants.ts";
import { ExtrasReader, type Region } from "./extras_reader.ts";
import type { StringTable } from "./string_table.ts";

/** The version a dynamic symbol carries. */
export interface ElfSymbolVersion {
  /** The version's name (`GLIBC_2.14`). */
  name: string;
  /**
   * Whether it is the default version of a definition of this object (`nm -D` writes
   * `name@@VERSION`): false for a hidden, older definition, which only references made
   * against that version bind to, and for a version needed from a library (`name@VERSION`).
   */
  isDefault: boolean;
  /** For a version needed from a library, that library (`libc.so.6`), when named; else null. */
  file: string | null;
}

/** A version index's name, and for a needed version, its library. */
interface VersionName {
  name: string;
  needed: boolean;
  file: string | null;
}

/** The highest index that carries no version: 0 is a local symbol, 1 a global unversioned one. */
const VER_NDX_GLOBAL = 1;
const VERSYM_HIDDEN = 0x8000;
const VERSYM_INDEX = 0x7fff;
const VERDEF_SIZE = 20;
const VERDAUX_SIZE = 8;
const VERNEED_SIZE = 16;
const VERNAUX_SIZE = 16;

/**
 * The versions of an image's dynamic symbols, indexed as
 * {@linkcode DynamicSymbols} indexes them (0 is the first symbol after the null one).
 */
export class ElfSymbolVersions {
  readonly #indices: Uint16Array;
  readonly #names: Map<number, VersionName>;

  constructor(indices: Uint16Array, names: Map<number, VersionName>) {
    this.#indices = indices;
    this.#names = names;
  }

  /** The version symbol `i` carries, or null when it carries none (or it is unknown). */
  of(i: number): ElfSymbolVersion | null {
    const raw = this.#indices[i + 1];
    if (raw === undefined) return null;
    const index = raw & VERSYM_INDEX;
    if (index <= VER_NDX_GLOBAL) return null;
    const version = this.#names.get(index);
    if (version === undefined) return null;
    return {
      name: version.name,
      isDefault: !version.needed && (raw & VERSYM_HIDDEN) === 0,
      file: version.file,
    };
  }
}

/**
 * Reads the version tables of the dynamic symbol table: from the sections
 * when the file has them, else through DT_VERSYM, DT_VERDEF and DT_VERNEED.
 */
export class SymbolVersionReader extends ExtrasReader {
  /** The versions of the `count` dynamic symbols, or null when the file has no `.gnu.version`. */
  readSymbolVersions(count: number): ElfSymbolVersions | null {
    const strings = this.p.dynamicTable?.strings ?? null;
    if (count === 0 || strings === null) return null;
    const versym = this.#table(SHT_GNU_VERSYM, DT_VERSYM, null, ".gnu.version");
    if (versym === null) return null;
    const entries = Math.min(count + 1, Math.floor((versym.region.end - versym.region.offset) / 2));
    const indices = new Uint16Array(entries);
    for (let i = 0; i < entries; i++) indices[i] = this.u16(versym.region.offset + 2 * i);
    const names = new Map<number, VersionName>();
    const definitions = this.#table(SHT_GNU_VERDEF, DT_VERDEF, DT_VERDEFNUM, ".gnu.version_d");
    if (definitions !== null) this.#readDefinitions(definitions, strings, names);
    const needs = this.#table(SHT_GNU_VERNEED, DT_VERNEED, DT_VERNEEDNUM, ".gnu.version_r");
    if (needs !== null) this.#readNeeds(needs, strings, names);
    return new ElfSymbolVersions(indices, names);
  }

  /** A version table's bytes and entry count (the section's sh_info, or the DT_*NUM tag). */
  #table(
    type: number,
    addressTag: number,
    countTag: number | null,
    name: string,
  ): { region: Region; count: number } | null {
    const section = this.p.sections.find((s) => s.type === type);
    if (section !== undefined) {
      const region = this.sectionRegion(section);
      return region === null ? null : { region, count: section.info };
    }
    const address = this.p.dynamicTags.get(addressTag);
    if (address === undefined) return null;
    const offset = this.offsetOf(address);
    if (offset === null) {
      this.warn(`Cannot read ${name} through its dynamic tag: its address is not in the file`);
      return null;
    }
    const count = countTag === null ? 0 : Number(this.p.dynamicTags.get(countTag) ?? 0n);
    return {
      region: { offset, end: this.loadEnd(offset), address: NaN, label: name },
      count,
    };
  }

  /** Version definitions: index `vd_ndx` is named by the first auxiliary entry. */
  #readDefinitions(
    table: { region: Region; count: number },
    strings: StringTable,
    names: Map<number, VersionName>,
  ): void {
    const { region } = table;
    // Each entry takes at least its own bytes: a chain that loops ends there.
    const most = Math.min(table.count, Math.floor((region.end - region.offset) / VERDEF_SIZE));
    let at = region.offset;
    for (let k = 0; k < most; k++) {
      if (at + VERDEF_SIZE > region.end) return this.#damaged(region, k, "runs past its end");
      if (this.u16(at) !== 1) return this.#damaged(region, k, "has an unknown vd_version");
      const index = this.u16(at + 4) & VERSYM_INDEX;
      const aux = at + this.u32(at + 12);
      if (this.u16(at + 6) > 0) {
        if (aux + VERDAUX_SIZE > region.end || aux < region.offset) {
          return this.#damaged(region, k, "points past its end");
        }
        const name = strings.get(this.u32(aux));
        if (name !== "" && !names.has(index)) names.set(index, { name, needed: false, file: null });
      }
      const next = this.u32(at + 16);
      if (next === 0) return;
      at += next;
    }
  }

  /** Version needs: each library's auxiliary entries name the indices (`vna_other`) it provides. */
  #readNeeds(
    table: { region: Region; count: number },
    strings: StringTable,
    names: Map<number, VersionName>,
  ): void {
    const { region } = table;
    const size = region.end - region.offset;
    const most = Math.min(table.count, Math.floor(size / VERNEED_SIZE));
    // Auxiliary entries of every library together take at least their own bytes.
    let auxiliaries = Math.floor(size / VERNAUX_SIZE);
    let at = region.offset;
    for (let k = 0; k < most; k++) {
      if (at + VERNEED_SIZE > region.end) return this.#damaged(region, k, "runs past its end");
      if (this.u16(at) !== 1) return this.#damaged(region, k, "has an unknown vn_version");
      const file = strings.get(this.u32(at + 4));
      let aux = at + this.u32(at + 8);
      for (let j = this.u16(at + 2); j > 0 && auxiliaries > 0; j--, auxiliaries--) {
        if (aux + VERNAUX_SIZE > region.end || aux < region.offset) {
          return this.#damaged(region, k, "points past its end");
        }
        const index = this.u16(aux + 6) & VERSYM_INDEX;
        const name = strings.get(this.u32(aux + 8));
        if (name !== "" && !names.has(index)) {
          names.set(index, { name, needed: true, file: file || null });
        }
        const next = this.u32(aux + 12);
        if (next === 0) break;
        aux += next;
      }
      const next = this.u32(at + 12);
      if (next === 0) return;
      at += next;
    }
  }

  #damaged(region: Region, entry: number, what: string): void {
    this.warn(
      `Symbol version table ${region.label}: entry ${entry} ${what}; the versions before it are kept`,
    );
  }
}
