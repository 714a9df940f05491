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
  slowPathNeeded = false;
  depths = new WeakMap();
  const text = JSON.stringify(value, canonicalReplacer);
  if (text === undefined) {
    throw new TypeError(`Cannot canonicalise JSON: unsupported ${typeof value} value`);
  }
  if (!slowPathNeeded) return text;
  // An object with array-index keys: property order cannot express code-unit order.
  const parts: string[] = [];
  writeSlow(JSON.parse(text), parts);
  return parts.join("");
}

let slowPathNeeded = false;
let depths = new WeakMap<object, number>();
const MAX_DEPTH = 256;
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

function writeSlow(value: unknown, out: string[]): void {
  if (Array.isArray(value)) {
    out.push("[");
    value.forEach((item, i) => {
      if (i > 0) out.push(",");
      writeSlow(item, out);
    });
    out.push("]");
  } else if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    out.push("{");
    Object.keys(record).sort().forEach((key, i) => {
      if (i > 0) out.push(",");
      out.push(JSON.stringify(key), ":");
      writeSlow(record[key], out);
    });
    out.push("}");
  } else {
    out.push(JSON.stringify(value));
  }
}

// Native JSON.stringify writes numbers and strings exactly as RFC 8785 asks; the
// replacer only orders object keys (copying an object only when its keys are out
// of order) and refuses what JSON cannot represent faithfully.
function canonicalReplacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === "object" && value !== null) {
    const depth = (depths.get(this as object) ?? 0) + 1;
    if (depth > MAX_DEPTH) {
      throw new RangeError(`Cannot canonicalise JSON: nesting deeper than ${MAX_DEPTH}`);
    }
    depths.set(value, depth);
  }
  switch (typeof value) {
    case "number":
      if (!Number.isFinite(value)) {
        throw new TypeError(`Cannot canonicalise JSON: ${value} is not a finite number`);
      }
      return value;
    case "bigint":
    case "function":
    case "symbol":
      throw new TypeError(`Cannot canonicalise JSON: unsupported ${typeof value} value`);
    case "object": {
      if (value === null || Array.isArray(value)) return value;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      // Index-like keys always come first in Object.keys, so the first tells.
      if (keys.length > 1 && INDEX_KEY.test(keys[0]!)) slowPathNeeded = true;
      let sorted = true;
      for (let i = 1; i < keys.length; i++) {
        if (keys[i - 1]! > keys[i]!) {
          sorted = false;
          break;
        }
      }
      if (sorted) return value;
      const copy: Record<string, unknown> = {};
      for (const key of keys.sort()) copy[key] = record[key];
      depths.set(copy, depths.get(value) ?? 1);
      return copy;
    }
    default:
      return value;
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
