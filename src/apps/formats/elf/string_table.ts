/**
 * ELF string tables (section and symbol names), decoded lazily under a
 * per-parse budget.
 *
 * @module
 */

import { decoder } from "./_util.ts";
import { MAX_NAME_BYTES } from "./constants.ts";

/**
 * A string table, decoded lazily. Finding the NUL that ends a name costs at
 * most the distance to it; once one search runs longer than
 * {@linkcode MAX_NAME_BYTES} (a damaged or hostile table), a next-NUL index is
 * built in one pass so that later lookups are constant time.
 */
export class StringTable {
  readonly size: number;
  readonly label: string;
  badOffsets = 0;
  cutNames = 0;
  /** Whether {@linkcode HeaderReader.reportStrings} has warned about this table. */
  reported = false;
  #bytes: Uint8Array;
  /** The whole table decoded, when byte offsets equal code-unit offsets in it. */
  #text: string | null | undefined = undefined;
  #cache: Map<number, string> | null = null;
  #nextNul: Int32Array | null = null;

  /** Lookups answered with `""` because the parse's string budget ran out. */
  skipped = 0;
  #budget: StringBudget;
  #exhausted = false;

  constructor(bytes: Uint8Array, label: string, budget: StringBudget) {
    this.#bytes = bytes;
    this.size = bytes.length;
    this.label = label;
    this.#budget = budget;
  }

  /** Takes `bytes` from the shared budget, or marks this table exhausted. */
  #charge(bytes: number): boolean {
    if (this.#budget.remaining < bytes) {
      this.#exhausted = true;
      return false;
    }
    this.#budget.remaining -= bytes;
    return true;
  }

  /**
   * The decoded table when names can be sliced from it directly: it decodes
   * byte for byte, no next-NUL index was needed, and the budget allowed the
   * decode. Callers must use {@linkcode get} for offsets past the end and
   * for names longer than {@linkcode MAX_NAME_BYTES}, then ask again.
   */
  fastText(): string | null {
    if (this.#text === undefined && this.size > 0) this.get(0);
    if (this.#exhausted || this.#nextNul !== null) return null;
    return this.#text ?? null;
  }

  /** Name at `offset`, or `""` (counted in `badOffsets`) when out of range. */
  get(offset: number): string {
    const size = this.size;
    if (offset >= size) {
      this.badOffsets++;
      return "";
    }
    if (this.#exhausted) {
      this.skipped++;
      return "";
    }
    let text = this.#text;
    if (text === undefined) {
      if (!this.#charge(size)) return this.get(offset);
      // One decode of the whole table. If its length equals the byte count,
      // every non-ASCII byte became exactly one U+FFFD in place (only valid
      // multi-byte sequences and multi-byte invalid runs decode to fewer code
      // units than bytes, and nothing decodes to more), so slicing by byte
      // offset gives exactly what decoding each name on its own would.
      const decoded = decoder.decode(this.#bytes);
      text = this.#text = decoded.length === size ? decoded : null;
      if (text === null) this.#cache = new Map();
    }
    let end: number;
    const nextNul = this.#nextNul;
    if (nextNul !== null) end = nextNul[offset]!;
    else {
      end = text !== null ? text.indexOf("\0", offset) : this.#bytes.indexOf(0, offset);
      if (end < 0) end = size;
      if (end - offset > MAX_NAME_BYTES) {
        if (!this.#charge(size)) return this.get(offset);
        this.#nextNul = buildNextNul(this.#bytes);
      }
    }
    if (end - offset > MAX_NAME_BYTES) {
      this.cutNames++;
      end = offset + MAX_NAME_BYTES;
    }
    if (text !== null) return text.substring(offset, end);
    const cache = this.#cache!;
    let name = cache.get(offset);
    if (name === undefined) {
      name = decoder.decode(this.#bytes.subarray(offset, end));
      cache.set(offset, name);
    }
    return name;
  }
}

/**
 * Bytes of string tables a parse may decode or index in total. Every table is
 * decoded at most once, but a hostile file can declare many tables over the
 * same bytes; this keeps the total work proportional to the file size.
 */
export interface StringBudget {
  remaining: number;
}

/** For each position, the position of the next NUL byte (or the length). */
function buildNextNul(bytes: Uint8Array): Int32Array {
  const next = new Int32Array(bytes.length);
  let at = bytes.length;
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] === 0) at = i;
    next[i] = at;
  }
  return next;
}
