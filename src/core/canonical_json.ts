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
  const out: string[] = [];
  write(value, out, 0);
  return out.join("");
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
 * in one walk. When it is, {@linkcode canonicalJson} serialises it later
 * without walking it again. A value that is not plain JSON may be left partly
 * frozen: call this only on values handed over for good.
 */
export function freezeCanonical(value: unknown): { plain: boolean; canonical: boolean } {
  const verdict = { plain: true, canonical: true };
  freezeWalk(value, 0, verdict);
  if (verdict.plain && verdict.canonical && typeof value === "object" && value !== null) {
    FROZEN_CANONICAL.add(value);
  }
  return verdict;
}

function freezeWalk(
  value: unknown,
  depth: number,
  verdict: { plain: boolean; canonical: boolean },
): void {
  if (!verdict.plain) return;
  if (depth > MAX_DEPTH) {
    verdict.plain = false;
    return;
  }
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) verdict.plain = false;
      return;
    case "object": {
      if (value === null) return;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) freezeWalk(value[i], depth + 1, verdict);
        Object.freeze(value);
        return;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) {
        verdict.plain = false;
        return;
      }
      const keys = Object.keys(value);
      const record = value as Record<string, unknown>;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        if (verdict.canonical) {
          if (i > 0 && keys[i - 1]! >= key) verdict.canonical = false;
          else if (i === 0) {
            const first = key.charCodeAt(0);
            if (first >= 48 && first <= 57 && INDEX_KEY.test(key)) verdict.canonical = false;
          }
        }
        freezeWalk(record[key], depth + 1, verdict);
      }
      Object.freeze(value);
      return;
    }
    default:
      verdict.plain = false;
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
