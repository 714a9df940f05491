/**
 * RFC 8785 (JSON Canonicalization Scheme) serialisation and SHA-256 helpers.
 *
 * @module
 */

import { createHash } from "node:crypto";

/** A JSON value as this project stores it. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Serialises a value as RFC 8785 canonical JSON: object keys sorted by UTF-16
 * code units, no whitespace, numbers and strings as ECMAScript `JSON.stringify`
 * writes them. Properties whose value is `undefined` are omitted, as in JSON.
 *
 * @example
 * ```ts
 * import { canonicalJson } from "./canonical_json.ts";
 * canonicalJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) throw new TypeError("Cannot canonicalise JSON: undefined value");
  if (typeof value === "object" && value !== null && FROZEN_CANONICAL.has(value)) {
    return JSON.stringify(value);
  }
  // Plain JSON data: copied with sorted keys and written in one native pass.
  const copy = sortedCopy(value, 0);
  return copy === UNSUPPORTED ? canonicalJsonByParts(value) : JSON.stringify(copy);
}

/**
 * The piece-by-piece writer behind {@linkcode canonicalJson}, for what the
 * one-pass copy cannot express the same way (index-like keys, which the
 * engine orders numerically; `toJSON`; non-plain objects; non-finite
 * numbers, which it refuses). The same string as `canonicalJson` for any value.
 */
export function canonicalJsonByParts(value: unknown): string {
  if (value === undefined) throw new TypeError("Cannot canonicalise JSON: undefined value");
  const out: string[] = [];
  write(value, out, 0);
  return out.join("");
}

const UNSUPPORTED: unique symbol = Symbol("unsupported");

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
      // Frozen and already in canonical order: written as it is, without a copy.
      if (FROZEN_CANONICAL.has(value)) return value;
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

const MAX_DEPTH = 256;
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

// Subtrees whose objects already list their keys in order are written by the
// native JSON.stringify, whose numbers and strings are RFC 8785's; the rest
// are written here with sorted keys.
function write(value: unknown, out: string[], depth: number): void {
  if (depth > MAX_DEPTH) {
    throw new RangeError(`Cannot canonicalise JSON: nesting deeper than ${MAX_DEPTH}`);
  }
  if (
    (typeof value === "object" && value !== null && FROZEN_CANONICAL.has(value)) ||
    alreadyCanonical(value, depth)
  ) {
    out.push(JSON.stringify(value));
    return;
  }
  if (typeof value === "number") {
    throw new TypeError(`Cannot canonicalise JSON: ${value} is not a finite number`);
  }
  if (typeof value !== "object" || value === null) {
    throw new TypeError(`Cannot canonicalise JSON: unsupported ${typeof value} value`);
  }
  const json = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof json === "function") {
    write(json.call(value), out, depth);
    return;
  }
  if (Array.isArray(value)) {
    out.push("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(",");
      const item = value[i];
      if (item === undefined) out.push("null");
      else write(item, out, depth + 1);
    }
    out.push("]");
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
  out.push("{");
  keys.forEach((key, i) => {
    if (i > 0) out.push(",");
    out.push(JSON.stringify(key), ":");
    write(record[key], out, depth + 1);
  });
  out.push("}");
}

/**
 * Whether a value is plain JSON data: null, booleans, finite numbers, strings,
 * arrays and plain objects of those, with no `undefined`, at most 256 deep.
 */
export function isPlainJson(value: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
        return true;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) if (!isPlainJson(record[key], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

// Frozen values that freezeCanonical found plain and already in canonical key order: they
// cannot change any more, so write() serialises them without walking them again.
const FROZEN_CANONICAL = new WeakSet<object>();

/**
 * Freezes a value deeply and reports whether it is plain JSON (see
 * {@linkcode isPlainJson}) whose `JSON.stringify` is already RFC 8785 output,
 * in one walk. The value, or else each largest part of it that is, is
 * remembered, so {@linkcode canonicalJson} serialises those parts later
 * without walking them again. A value that is not plain JSON may be left
 * partly frozen: call this only on values handed over for good.
 */
export function freezeCanonical(value: unknown): { plain: boolean; canonical: boolean } {
  const state = { plain: true };
  const canonical = freezeWalk(value, 0, state);
  if (state.plain && canonical && typeof value === "object" && value !== null) {
    FROZEN_CANONICAL.add(value);
  }
  return { plain: state.plain, canonical: state.plain && canonical };
}

/** Freezes `value`; returns whether it is canonical, marking the canonical children of a non-canonical node. */
function freezeWalk(value: unknown, depth: number, state: { plain: boolean }): boolean {
  if (!state.plain) return false;
  if (depth > MAX_DEPTH) {
    state.plain = false;
    return false;
  }
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      if (!Number.isFinite(value)) state.plain = false;
      return state.plain;
    case "object": {
      if (value === null) return true;
      // Already frozen and known canonical (a part handed over before): nothing to walk.
      if (FROZEN_CANONICAL.has(value)) return true;
      const record = value as Record<string, unknown>;
      const isArray = Array.isArray(value);
      if (!isArray && Object.getPrototypeOf(value) !== Object.prototype) {
        state.plain = false;
        return false;
      }
      const keys = isArray ? null : Object.keys(value);
      const length = isArray ? (value as unknown[]).length : keys!.length;
      let canonical = true;
      let marks: object[] | null = null;
      for (let i = 0; i < length; i++) {
        const key = isArray ? i : keys![i]!;
        if (!isArray && canonical) {
          const name = key as string;
          if (i > 0 && keys![i - 1]! >= name) canonical = false;
          else if (i === 0) {
            const first = name.charCodeAt(0);
            if (first >= 48 && first <= 57 && INDEX_KEY.test(name)) canonical = false;
          }
        }
        const child = record[key as string];
        const good = freezeWalk(child, depth + 1, state);
        if (!state.plain) return false;
        if (good && typeof child === "object" && child !== null) (marks ??= []).push(child);
        else if (!good) canonical = false;
      }
      Object.freeze(value);
      // A canonical node is marked by its parent (or the caller); otherwise mark its
      // canonical children, the largest parts canonicalJson can then write whole.
      if (!canonical && marks) { for (const child of marks) FROZEN_CANONICAL.add(child); }
      return canonical;
    }
    default:
      state.plain = false;
      return false;
  }
}

/** True when `JSON.stringify(value)` is already RFC 8785 output. */
function alreadyCanonical(value: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null) return true;
      if (FROZEN_CANONICAL.has(value)) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const item = value[i];
          if (item === undefined || !alreadyCanonical(item, depth + 1)) return false;
        }
        return true;
      }
      if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      const keys = Object.keys(value);
      const record = value as Record<string, unknown>;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        if (i > 0 && keys[i - 1]! >= key) return false;
        // Index-like keys are ordered numerically by the engine, not by code unit.
        if (i === 0) {
          const first = key.charCodeAt(0);
          if (first >= 48 && first <= 57 && INDEX_KEY.test(key)) return false;
        }
        const child = record[key];
        if (child === undefined || !alreadyCanonical(child, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/** Lowercase hex SHA-256 of a string's UTF-8 bytes or of raw bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  const hash = createHash("sha256");
  if (typeof data === "string") return hash.update(data).digest("hex");
  // Feed large buffers in slices: the hash copies what it is given.
  for (let offset = 0; offset < data.length; offset += HASH_SLICE) {
    hash.update(data.subarray(offset, Math.min(data.length, offset + HASH_SLICE)));
  }
  return hash.digest("hex");
}

const HASH_SLICE = 8 * 1024 * 1024;

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
