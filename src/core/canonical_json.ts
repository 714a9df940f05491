/**
 * RFC 8785 (JSON Canonicalization Scheme) serialisation and SHA-256 helpers.
 *
 * @module
 */

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
  const parts: string[] = [];
  write(value, parts, 0);
  return parts.join("");
}

const MAX_DEPTH = 256;

function write(value: unknown, out: string[], depth: number): void {
  if (depth > MAX_DEPTH) {
    throw new RangeError(`Cannot canonicalise JSON: nesting deeper than ${MAX_DEPTH}`);
  }
  if (value === null) {
    out.push("null");
  } else if (typeof value === "boolean") {
    out.push(value ? "true" : "false");
  } else if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw new TypeError(`Cannot canonicalise JSON: ${value} is not a finite number`);
    }
    out.push(JSON.stringify(value));
  } else if (typeof value === "string") {
    out.push(JSON.stringify(value));
  } else if (Array.isArray(value)) {
    out.push("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(",");
      const item = value[i];
      write(item === undefined ? null : item, out, depth + 1);
    }
    out.push("]");
  } else if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
    out.push("{");
    keys.forEach((key, i) => {
      if (i > 0) out.push(",");
      out.push(JSON.stringify(key), ":");
      write(record[key], out, depth + 1);
    });
    out.push("}");
  } else {
    throw new TypeError(`Cannot canonicalise JSON: unsupported ${typeof value} value`);
  }
}

/** Lowercase hex SHA-256 of a string's UTF-8 bytes or of raw bytes. */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return toHex(new Uint8Array(digest));
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
