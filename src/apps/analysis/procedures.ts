/**
 * A table of procedure starts, whoever listed them: lookup by start address,
 * by containing address (the symbol size, or up to the next start) and by raw
 * or demangled name. The native provider builds one from the format readers,
 * the objdump provider from objdump's symbol tables.
 *
 * @module
 */

import { demangle } from "../disasm/demangle.ts";
import {
  type BinaryImage,
  functionParts,
  type ImageFunction,
  versionedExportNames,
} from "../formats/binary_image.ts";
import { nextFunctionStart } from "./code.ts";
import { upperBound } from "../../core/sorted.ts";

/** How a containing procedure's extent was bounded. */
export type ContainmentBound = "size" | "next-start";

/** Procedure lookups over functions sorted by address, unique by address. */
export class ProcedureTable {
  /** The procedures, ascending by address. */
  readonly functions: readonly ImageFunction[];
  #byName: Map<string, ImageFunction[]> | null = null;
  #byBaseName: Map<string, ImageFunction[]> | null = null;
  readonly #exports: Pick<BinaryImage, "exports" | "exportVersions"> | null;

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
  constructor(
    functions: readonly ImageFunction[],
    exports: Pick<BinaryImage, "exports" | "exportVersions"> | null = null,
  ) {
    this.functions = functions;
    this.#exports = exports?.exportVersions === undefined ? null : exports;
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
   * The procedure containing `address`: the one with a part holding it, else
   * the last start at or below it, when the address lies before that
   * procedure's end (its size, or the next start of a procedure or part).
   */
  containing(address: bigint): { fn: ImageFunction; bounded: ContainmentBound } | null {
    const functions = this.functions;
    // A part lies outside every other procedure: its owner contains it, bounded by its size.
    const parts = functionParts(functions);
    if (parts.length > 0) {
      const part = parts[upperBound(parts, address, (p) => p.start) - 1];
      if (part !== undefined && address < part.end) return { fn: part.fn, bounded: "size" };
    }
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
          if (!plain) continue;
          add(plain, fn);
          // A legacy Rust name as a backtrace prints it: the demangled path and its hash.
          const hash = RUST_LEGACY_HASH.exec(n);
          if (hash) add(`${plain}::${hash[1]}`, fn);
        }
      }
      this.#byName = map;
    }
    return this.#byName.get(name) ?? [];
  }

  /**
   * The procedures `name@@VERSION` or `name@VERSION` names, as `nm -D` spells a versioned
   * dynamic symbol (ELF symbol versioning): the export of that name carrying that version.
   * `name@VERSION` is also how a reference names it (`nm -D` of a program that imports it), so
   * it names the default definition `name@@VERSION` too; `name@@VERSION` names a default one only.
   */
  functionsByVersionedName(text: string): ImageFunction[] {
    const parts = versionedNameParts(text);
    if (this.#exports === null || parts === null) return [];
    const asDefault = parts.isDefault ? null : `${parts.name}@@${parts.version}`;
    const found: ImageFunction[] = [];
    this.#eachVersion(parts.name, (address, spelling) => {
      if (spelling !== text && spelling !== asDefault) return;
      const fn = this.functionStartingAt(address);
      if (fn !== undefined && !found.includes(fn)) found.push(fn);
    });
    return found;
  }

  /**
   * Every versioned spelling of the symbol `name` (`name@@VERSION`, `name@VERSION`) with the
   * address it names, in export order; empty when the image has no symbol versions.
   */
  versionedNames(name: string): { address: bigint; spelling: string }[] {
    const out: { address: bigint; spelling: string }[] = [];
    this.#eachVersion(name, (address, spelling) => out.push({ address, spelling }));
    return out;
  }

  #eachVersion(name: string, visit: (address: bigint, spelling: string) => void): void {
    const image = this.#exports;
    if (image === null) return;
    const exports = image.exports;
    for (let i = 0; i < exports.length; i++) {
      const entry = exports[i]!;
      if (entry.name !== name || entry.address === null) continue;
      for (const spelling of versionedExportNames(image, i)) {
        if (spelling !== name) visit(entry.address, spelling);
      }
    }
  }

  /**
   * Procedures whose demangled name without its parameter list (and trailing
   * qualifiers) equals `name`: `icu_72::UnicodeString::doExtract` for each
   * overload. Consulted when no name is equal.
   */
  functionsByBaseName(name: string): ImageFunction[] {
    if (!this.#byBaseName) {
      const map = new Map<string, ImageFunction[]>();
      for (const fn of this.functions) {
        for (const n of fn.names.length > 0 ? fn.names : [fn.name]) {
          const plain = n ? demangle(n) : null;
          const base = plain ? withoutParameters(plain) : null;
          if (!base) continue;
          const list = map.get(base);
          if (!list) map.set(base, [fn]);
          else if (!list.includes(fn)) list.push(fn);
        }
      }
      this.#byBaseName = map;
    }
    return this.#byBaseName.get(name) ?? [];
  }
}

/**
 * A name with a symbol version as `nm -D` writes it (`memcpy@@GLIBC_2.14`, the default version;
 * `memcpy@GLIBC_2.2.5`), split into its parts; null for any other text.
 */
export function versionedNameParts(
  text: string,
): { name: string; version: string; isDefault: boolean } | null {
  const m = /^([^@]+)(@@?)([^@]+)$/.exec(text);
  return m === null ? null : { name: m[1]!, version: m[3]!, isDefault: m[2] === "@@" };
}

/** The hash element that ends a legacy Rust symbol name (`…17h<16 hex digits>E`). */
const RUST_LEGACY_HASH = /^_ZN.*17(h[0-9a-f]{16})E$/;

/**
 * A demangled name without its parameter list and the qualifiers after it
 * (`const`, `&`, `&&`, `volatile`, `noexcept`), or null when it has none.
 */
export function withoutParameters(demangled: string): string | null {
  let text = demangled.trimEnd();
  for (;;) {
    const qualifier = /\s*(?:const|volatile|noexcept|&&|&)$/.exec(text);
    if (!qualifier || qualifier.index === 0) break;
    text = text.slice(0, qualifier.index);
  }
  if (!text.endsWith(")")) return null;
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text[i];
    if (c === ")") depth++;
    else if (c === "(" && --depth === 0) {
      const base = text.slice(0, i).trimEnd();
      return base === "" ? null : base;
    }
  }
  return null;
}
