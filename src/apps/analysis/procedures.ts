/**
 * A table of procedure starts, whoever listed them: lookup by start address,
 * by containing address (the symbol size, or up to the next start) and by raw
 * or demangled name. The native provider builds one from the format readers,
 * the objdump provider from objdump's symbol tables.
 *
 * @module
 */

import { demangle } from "../disasm/demangle.ts";
import type { ImageFunction } from "../formats/binary_image.ts";
import { nextFunctionStart } from "./code.ts";
import { upperBound } from "../../core/sorted.ts";

/** How a containing procedure's extent was bounded. */
export type ContainmentBound = "size" | "next-start";

/** Procedure lookups over functions sorted by address, unique by address. */
export class ProcedureTable {
  /** The procedures, ascending by address. */
  readonly functions: readonly ImageFunction[];
  #byName: Map<string, ImageFunction[]> | null = null;

  /**
   * Wraps `functions`, which must be sorted by address with one entry per address.
   *
   * @example
   * ```ts
   * import { ProcedureTable } from "./procedures.ts";
   * const table = new ProcedureTable([
   *   { address: 0x1000n, size: 0x20n, name: "main", names: ["main"], source: "symtab" },
   * ]);
   * table.containing(0x1010n)?.fn.name; // "main"
   * ```
   */
  constructor(functions: readonly ImageFunction[]) {
    this.functions = functions;
  }

  /** The procedure starting exactly at `address`. */
  functionStartingAt(address: bigint): ImageFunction | undefined {
    const functions = this.functions;
    let lo = 0;
    let hi = functions.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const fn = functions[mid]!;
      if (fn.address === address) return fn;
      if (fn.address < address) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /**
   * The procedure containing `address`: the last start at or below it, when
   * the address lies before that procedure's end (its size, or the next start).
   */
  containing(address: bigint): { fn: ImageFunction; bounded: ContainmentBound } | null {
    const functions = this.functions;
    const fn = functions[upperBound(functions, address, (f) => f.address) - 1];
    if (!fn) return null;
    if (fn.size > 0n) return address < fn.address + fn.size ? { fn, bounded: "size" } : null;
    const next = nextFunctionStart(functions, fn.address);
    if (next !== null && address >= next) return null;
    return { fn, bounded: "next-start" };
  }

  /** Procedures whose name (raw or demangled) equals `name`. */
  functionsNamed(name: string): ImageFunction[] {
    if (!this.#byName) {
      const map = new Map<string, ImageFunction[]>();
      const add = (key: string, fn: ImageFunction): void => {
        const list = map.get(key);
        if (!list) map.set(key, [fn]);
        else if (!list.includes(fn)) list.push(fn);
      };
      for (const fn of this.functions) {
        for (const n of fn.names.length > 0 ? fn.names : [fn.name]) {
          if (!n) continue;
          add(n, fn);
          const plain = demangle(n);
          if (plain) add(plain, fn);
        }
      }
      this.#byName = map;
    }
    return this.#byName.get(name) ?? [];
  }
}
