/**
 * Lists an {@linkcode ElfImage} builds on first use from the parser's compact
 * tables (the `.eh_frame` FDE ranges, the dynamic symbols), so that a reader
 * that only walks a table never makes an object per entry.
 *
 * @module
 */

import type { DynamicSymbols } from "./dynamic_symbols.ts";
import type { FdeRanges } from "./eh_frame.ts";
import type { ElfAddressRange, ElfDynamicSymbol, ElfImage } from "./model.ts";

/** A list built from a compact table on first use, or replaced outright; the table is kept until then. */
export class LazyList<T, Table> {
  /** The compact table, until the list is built or replaced. */
  table: Table | null;
  #list: T[] = [];
  readonly #build: (table: Table) => T[];

  constructor(table: Table, build: (table: Table) => T[]) {
    this.table = table;
    this.#build = build;
  }

  /** The list, built now if it was not yet. */
  get(): T[] {
    if (this.table !== null) {
      this.#list = this.#build(this.table);
      this.table = null;
    }
    return this.#list;
  }

  /** Replaces the list (and drops the table). */
  set(list: T[]): void {
    this.table = null;
    this.#list = list;
  }
}

/** The lazy lists behind each parse's `ehFrameFunctions` and `dynamicSymbols`. */
export const LAZY_TABLES = new WeakMap<ElfImage, {
  fdes: LazyList<ElfAddressRange, FdeRanges>;
  symbols: LazyList<ElfDynamicSymbol, DynamicSymbols>;
}>();
