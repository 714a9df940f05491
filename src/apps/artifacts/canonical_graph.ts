/**
 * Canonical JSON of a whole content graph, fast: the records are copied with
 * their keys in code-unit order and written by the native `JSON.stringify`
 * in one call, which gives exactly what `canonicalJson` writes piece by
 * piece (RFC 8785: sorted keys, no whitespace, ECMAScript numbers and
 * strings). Anything that copy cannot express the same way (index-like keys,
 * which the engine orders numerically; `toJSON`; non-plain objects;
 * non-finite numbers) is left to `canonicalJson`.
 *
 * @module
 */

import { canonicalJson } from "../../core/canonical_json.ts";

const UNSUPPORTED: unique symbol = Symbol("unsupported");
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;
const MAX_DEPTH = 256;

/** A copy of `value` whose `JSON.stringify` is its canonical JSON, or UNSUPPORTED. */
function sortedCopy(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return UNSUPPORTED;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : UNSUPPORTED;
    case "object": {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const out: unknown[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          const item = value[i];
          if (item === undefined) {
            out[i] = null;
            continue;
          }
          const copy = sortedCopy(item, depth + 1);
          if (copy === UNSUPPORTED) return UNSUPPORTED;
          out[i] = copy;
        }
        return out;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return UNSUPPORTED;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      const out: Record<string, unknown> = {};
      for (const key of keys) {
        const first = key.charCodeAt(0);
        if (first >= 48 && first <= 57 && INDEX_KEY.test(key)) return UNSUPPORTED;
        const child = record[key];
        if (child === undefined) continue;
        const copy = sortedCopy(child, depth + 1);
        if (copy === UNSUPPORTED) return UNSUPPORTED;
        out[key] = copy;
      }
      return out;
    }
    default:
      return UNSUPPORTED;
  }
}

/**
 * The RFC 8785 canonical JSON of `value`, the same string `canonicalJson`
 * returns, written in one native pass when the value is plain JSON data.
 */
export function canonicalGraphJson(value: unknown): string {
  const copy = sortedCopy(value, 0);
  return copy === UNSUPPORTED ? canonicalJson(value) : JSON.stringify(copy);
}
