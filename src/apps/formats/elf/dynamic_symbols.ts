/**
 * The symbols of the dynamic symbol table, held compactly and listed on
 * demand.
 *
 * @module
 */

import { SHN_UNDEF, STT_GNU_IFUNC } from "./constants.ts";
import { ExtrasReader } from "./extras_reader.ts";
import { LAZY_TABLES } from "./lazy_tables.ts";
import type { ElfDynamicSymbol, ElfImage, ElfSymbolTable } from "./model.ts";
import { symbolName, type SymbolTableRef } from "./symbols.ts";

const SYMBOL_TYPES: readonly ElfDynamicSymbol["type"][] = [
  "notype",
  "object",
  "function",
  "section",
  "file",
  "common",
  "tls",
];

const SYMBOL_BINDINGS: readonly ElfDynamicSymbol["binding"][] = ["local", "global", "weak"];
/** STB_GNU_UNIQUE. */
const STB_GNU_UNIQUE = 10;

/** Reads the dynamic symbol table the symbol reader found (or its static one). */
export class DynamicSymbolReader extends ExtrasReader {
  readDynamicSymbols(): DynamicSymbols {
    return this.readTable(this.p.dynamicTable);
  }

  /** The static symbol table (`.symtab`), for a relocatable file, whose symbols are its imports. */
  readStaticSymbols(): DynamicSymbols {
    return this.readTable(this.p.staticTable);
  }

  readTable(table: SymbolTableRef | null): DynamicSymbols {
    if (table === null) return new DynamicSymbols(this.view, true, true, 0, 0, []);
    const strings = table.strings;
    // Names are read now (string table damage is reported here); the rest of
    // each entry is read from the bytes when asked.
    const names: string[] = new Array(Math.max(0, table.count - 1));
    for (let i = 1, o = table.offset + table.stride; i < table.count; i++, o += table.stride) {
      names[i - 1] = symbolName(strings, this.u32(o));
    }
    if (strings !== null) {
      // Names of function symbols were already checked; report only new damage.
      if (strings.reported) {
        strings.badOffsets = 0;
        strings.cutNames = 0;
        strings.skipped = 0;
      } else this.p.reportStrings(strings, "symbol", ` in ${table.label}`);
    }
    return new DynamicSymbols(
      this.view,
      this.is64,
      this.le,
      table.offset + table.stride,
      table.stride,
      names,
    );
  }
}

/**
 * The dynamic symbol table of a parse: names decoded, everything else read
 * from the file bytes on request; objects only from {@linkcode symbols}.
 */
export class DynamicSymbols implements ElfSymbolTable {
  readonly count: number;
  #view: DataView;
  #is64: boolean;
  #le: boolean;
  /** File offset of symbol 1 (the first after the null symbol). */
  #first: number;
  #stride: number;
  #names: string[];

  constructor(
    view: DataView,
    is64: boolean,
    le: boolean,
    first: number,
    stride: number,
    names: string[],
  ) {
    this.#view = view;
    this.#is64 = is64;
    this.#le = le;
    this.#first = first;
    this.#stride = stride;
    this.#names = names;
    this.count = names.length;
  }

  #at(i: number): number {
    return this.#first + i * this.#stride;
  }

  name(i: number): string {
    return this.#names[i]!;
  }

  value(i: number): bigint {
    const o = this.#at(i);
    return this.#is64
      ? this.#view.getBigUint64(o + 8, this.#le)
      : BigInt(this.#view.getUint32(o + 4, this.#le));
  }

  size(i: number): bigint {
    const o = this.#at(i);
    return this.#is64
      ? this.#view.getBigUint64(o + 16, this.#le)
      : BigInt(this.#view.getUint32(o + 8, this.#le));
  }

  type(i: number): ElfDynamicSymbol["type"] {
    const type = this.#view.getUint8(this.#at(i) + (this.#is64 ? 4 : 12)) & 0xf;
    return type === STT_GNU_IFUNC ? "ifunc" : SYMBOL_TYPES[type] ?? "other";
  }

  binding(i: number): ElfDynamicSymbol["binding"] {
    const bind = this.#view.getUint8(this.#at(i) + (this.#is64 ? 4 : 12)) >> 4;
    return SYMBOL_BINDINGS[bind] ?? (bind === STB_GNU_UNIQUE ? "unique" : "other");
  }

  sectionIndex(i: number): number {
    return this.#view.getUint16(this.#at(i) + (this.#is64 ? 6 : 14), this.#le);
  }

  defined(i: number): boolean {
    return this.sectionIndex(i) !== SHN_UNDEF;
  }

  symbols(): ElfDynamicSymbol[] {
    const symbols: ElfDynamicSymbol[] = new Array(this.count);
    for (let i = 0; i < this.count; i++) {
      const sectionIndex = this.sectionIndex(i);
      symbols[i] = {
        index: i + 1,
        name: this.#names[i]!,
        value: this.value(i),
        size: this.size(i),
        type: this.type(i),
        binding: this.binding(i),
        sectionIndex,
        defined: sectionIndex !== SHN_UNDEF,
      };
    }
    return symbols;
  }
}

/**
 * The dynamic symbols of a parse, read from the parser's compact table when
 * the `dynamicSymbols` list has not been built.
 */
export function dynamicSymbolTable(elf: ElfImage): ElfSymbolTable {
  const table = LAZY_TABLES.get(elf)?.symbols.table;
  if (table) return table;
  const list = elf.dynamicSymbols;
  return {
    count: list.length,
    name: (i) => list[i]!.name,
    value: (i) => list[i]!.value,
    type: (i) => list[i]!.type,
    binding: (i) => list[i]!.binding,
    defined: (i) => list[i]!.defined,
    sectionIndex: (i) => list[i]!.sectionIndex,
  };
}
