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
 * {@linkcode canonicalJson}, written member by member through the first `depth` levels of
 * plain objects, so that each part {@linkcode freezeCanonical} marked is serialised on its
 * own; that text is remembered, and {@linkcode jsonText} then reuses it instead of
 * serialising the same part again (an Evidence digest and the result's text block).
 */
export function canonicalJsonInParts(value: unknown, depth: number): string {
  if (typeof value === "object" && value !== null && FROZEN_CANONICAL.has(value)) {
    const text = JSON.stringify(value);
    remember(value, text);
    return text;
  }
  if (depth <= 0 || !isPlainRecord(value)) return canonicalJson(value);
  const keys = Object.keys(value).filter((key) => value[key] !== undefined).sort();
  // Concatenated, not joined: the engine links the parts instead of copying a large one, and
  // whoever reads the text (the hash) flattens it once.
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (i > 0) out += ",";
    out += JSON.stringify(key) + ":" + canonicalJsonInParts(value[key], depth - 1);
  }
  return out + "}";
}

/**
 * `JSON.stringify(value)`, the same string, taking the text of a part that
 * {@linkcode canonicalJsonInParts} serialised a moment ago instead of writing it again:
 * plain objects are written member by member (in their own key order) through the first
 * `depth` levels to find such parts. Each remembered text is used once.
 */
export function jsonText(value: unknown, depth: number): string {
  if (typeof value === "object" && value !== null) {
    const known = recall(value);
    if (known !== undefined) return known;
  }
  if (depth <= 0 || remembered.length === 0 || !isPlainRecord(value)) return JSON.stringify(value);
  let out = "{";
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (child === undefined || typeof child === "function" || typeof child === "symbol") continue;
    // A child's toJSON would be called with its key by JSON.stringify: leave those to it.
    if (isObject(child) && typeof (child as { toJSON?: unknown }).toJSON === "function") {
      return JSON.stringify(value);
    }
    if (out.length > 1) out += ",";
    out += JSON.stringify(key) + ":" + jsonText(child, depth - 1);
  }
  return out + "}";
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

/** A plain object (not an array) without a toJSON of its own. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype &&
    typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

// The last few texts canonicalJsonInParts wrote for frozen canonical parts, newest last: the
// parts cannot change, so their texts stay right. Small and bounded, so nothing large is kept.
const remembered: { value: object; text: string }[] = [];
const REMEMBERED = 2;
const REMEMBERED_CHARS = 4 * 1024 * 1024;
const REMEMBERED_MIN_CHARS = 1024;

function remember(value: object, text: string): void {
  // A short text is cheaper to write again than to keep: only large parts take a slot.
  if (text.length < REMEMBERED_MIN_CHARS || text.length > REMEMBERED_CHARS) return;
  if (remembered.length >= REMEMBERED) remembered.shift();
  remembered.push({ value, text });
}

function recall(value: object): string | undefined {
  for (let i = 0; i < remembered.length; i++) {
    if (remembered[i]!.value === value) return remembered.splice(i, 1)[0]!.text;
  }
  return undefined;
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
  const leaf = jsonLeaf(value);
  if (leaf !== null) return leaf ? value : UNSUPPORTED;
  const object = value as object;
  // A frozen part already in canonical order is written as it is: no copy.
  if (FROZEN_CANONICAL.has(object)) return object;
  if (Array.isArray(object)) {
    const out: unknown[] = new Array(object.length);
    for (let i = 0; i < object.length; i++) {
      const item = object[i];
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
  if (Object.getPrototypeOf(object) !== Object.prototype) return UNSUPPORTED;
  const record = object as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (isIndexKey(key)) return UNSUPPORTED;
    const child = record[key];
    if (child === undefined) continue;
    const copy = sortedCopy(child, depth + 1);
    if (copy === UNSUPPORTED) return UNSUPPORTED;
    out[key] = copy;
  }
  return out;
}

/**
 * What a value is before its contents are looked at: true for a JSON scalar (null, a
 * boolean, a finite number, a string), false for what JSON cannot hold (a non-finite
 * number, undefined, a function, a symbol, a bigint), null for an object or array.
 */
function jsonLeaf(value: unknown): boolean | null {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      return value === null ? true : null;
    default:
      return false;
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
  const leaf = jsonLeaf(value);
  if (leaf !== null) return leaf;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!isPlainJson(record[key], depth + 1)) return false;
  return true;
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
  const verdict = freezeWalk(value, 0);
  if (verdict === CANONICAL && typeof value === "object" && value !== null) {
    FROZEN_CANONICAL.add(value);
  }
  return { plain: verdict !== NOT_PLAIN, canonical: verdict === CANONICAL };
}

/** Verdicts of {@linkcode freezeWalk}. */
const NOT_PLAIN = 0;
const PLAIN = 1;
const CANONICAL = 2;

/**
 * Freezes `value` and returns its verdict. A plain node that is not canonical marks its
 * canonical object children, the largest parts canonicalJson can then write whole: up to the
 * child where the node stops being canonical, every child was canonical, so they are marked
 * then, and each later one as it is found (no node keeps a list of its children).
 */
function freezeWalk(value: unknown, depth: number): number {
  const leaf = jsonLeaf(value);
  if (leaf !== null || !isObject(value)) return leaf ? CANONICAL : NOT_PLAIN;
  // Already frozen and known canonical (a part handed over before): nothing to walk.
  if (FROZEN_CANONICAL.has(value)) return CANONICAL;
  if (depth > MAX_DEPTH) return NOT_PLAIN;
  let state = CANONICAL;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      // A string is canonical and no object to mark: the common leaf costs no call.
      if (typeof child === "string") continue;
      state = foldChild(state, child, depth, value, i);
      if (state === NOT_PLAIN) return NOT_PLAIN;
    }
  } else {
    if (Object.getPrototypeOf(value) !== Object.prototype) return NOT_PLAIN;
    const record = value as Record<string, unknown>;
    let previous: string | null = null;
    // A plain object inherits no enumerable keys, so for-in visits its own keys in
    // Object.keys order (the order JSON.stringify writes), without allocating them.
    for (const key in record) {
      // Index-like keys come first and are ordered numerically, not by code unit.
      if (state === CANONICAL && (previous === null ? isIndexKey(key) : previous >= key)) {
        state = PLAIN;
        markChildrenBefore(record, key);
      }
      previous = key;
      const child = record[key];
      if (typeof child === "string") continue;
      state = foldChild(state, child, depth, record, key);
      if (state === NOT_PLAIN) return NOT_PLAIN;
    }
  }
  Object.freeze(value);
  return state;
}

/**
 * Walks one child of a container whose verdict so far is `state` and returns the
 * container's verdict after it. When the container stops being canonical here, its
 * (canonical) children before `at` are marked; once it is not, a canonical child is.
 */
function foldChild(
  state: number,
  child: unknown,
  depth: number,
  container: unknown[] | Record<string, unknown>,
  at: number | string,
): number {
  const verdict = freezeWalk(child, depth + 1);
  if (verdict === NOT_PLAIN) return NOT_PLAIN;
  if (verdict === PLAIN) {
    if (state === CANONICAL) markChildrenBefore(container, at);
    return PLAIN;
  }
  if (state !== CANONICAL) markObject(child);
  return state;
}

/** Remembers a canonical child as written whole, when it is an object. */
function markObject(child: unknown): void {
  if (typeof child === "object" && child !== null) FROZEN_CANONICAL.add(child);
}

/** Marks the (canonical) children of an array or plain object before index or key `stop`. */
function markChildrenBefore(
  container: unknown[] | Record<string, unknown>,
  stop: number | string,
): void {
  if (Array.isArray(container)) {
    for (let i = 0; i < (stop as number); i++) markObject(container[i]);
    return;
  }
  for (const key in container) {
    if (key === stop) return;
    markObject(container[key]);
  }
}

function isIndexKey(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && INDEX_KEY.test(key);
}

/** True when `JSON.stringify(value)` is already RFC 8785 output. */
function alreadyCanonical(value: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  const leaf = jsonLeaf(value);
  if (leaf !== null) return leaf;
  const object = value as object;
  if (FROZEN_CANONICAL.has(object)) return true;
  if (Array.isArray(object)) {
    for (let i = 0; i < object.length; i++) {
      const item = object[i];
      if (item === undefined || !alreadyCanonical(item, depth + 1)) return false;
    }
    return true;
  }
  if (typeof (object as { toJSON?: unknown }).toJSON === "function") return false;
  if (Object.getPrototypeOf(object) !== Object.prototype) return false;
  const keys = Object.keys(object);
  const record = object as Record<string, unknown>;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (i > 0 && keys[i - 1]! >= key) return false;
    // Index-like keys are ordered numerically by the engine, not by code unit.
    if (i === 0 && isIndexKey(key)) return false;
    const child = record[key];
    if (child === undefined || !alreadyCanonical(child, depth + 1)) return false;
  }
  return true;
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
