/**
 * A bounds-checked cursor over a module's bytes: LEB128 integers, bytes and
 * names, each read failing with a clear {@linkcode WasmParseError}.
 *
 * @module
 */

import { WasmParseError } from "./model.ts";

const fatalDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

const lenientDecoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Counts names that were not valid UTF-8 (decoded with U+FFFD). */
export interface Utf8Stats {
  invalid: number;
}

/**
 * A read position over `bytes[pos, end)`. Every read checks the limit and
 * throws {@linkcode WasmParseError} with a message that names what was being
 * read, where, and which limit it ran into.
 */
export class Cursor {
  readonly bytes: Uint8Array;
  pos: number;
  readonly end: number;
  /** What `end` is, for messages: "the end of the section", "the end of the file", … */
  readonly limit: string;
  readonly utf8: Utf8Stats;

  constructor(bytes: Uint8Array, pos: number, end: number, limit: string, utf8: Utf8Stats) {
    this.bytes = bytes;
    this.pos = pos;
    this.end = end;
    this.limit = limit;
    this.utf8 = utf8;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /**
   * A cursor over the next `size` bytes (checked), which this one then
   * skips; `at` is the offset named if they do not fit.
   */
  take(size: number, what: string, limit: string, at: number = this.pos): Cursor {
    if (size > this.remaining) {
      throw new WasmParseError(
        `${what} at ${hex(at)} declares ${size} bytes, but only ${this.remaining} remain before ` +
          this.limit,
        at,
      );
    }
    const start = this.pos;
    this.pos += size;
    return new Cursor(this.bytes, start, start + size, limit, this.utf8);
  }

  skip(size: number, what: string): void {
    if (size > this.remaining) {
      throw new WasmParseError(
        `${what} at ${hex(this.pos)} needs ${size} bytes, but only ${this.remaining} remain ` +
          `before ${this.limit}`,
        this.pos,
      );
    }
    this.pos += size;
  }

  u8(what: string): number {
    if (this.pos >= this.end) {
      throw new WasmParseError(`${what} at ${hex(this.pos)} lies past ${this.limit}`, this.pos);
    }
    return this.bytes[this.pos++]!;
  }

  peek(what: string): number {
    if (this.pos >= this.end) {
      throw new WasmParseError(`${what} at ${hex(this.pos)} lies past ${this.limit}`, this.pos);
    }
    return this.bytes[this.pos]!;
  }

  /** An unsigned LEB128 of at most 5 bytes whose value fits in 32 bits. */
  u32(what: string): number {
    const bytes = this.bytes;
    const end = this.end;
    const start = this.pos;
    let pos = start;
    let result = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= end) throw this.unterminated(what, start);
      const b = bytes[pos++]!;
      result |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = pos;
        return result >>> 0;
      }
    }
    if (pos >= end) throw this.unterminated(what, start);
    const last = bytes[pos++]!;
    if (last >= 0x80) throw this.overlong(what, start, 5, "a u32");
    if (last > 0x0f) {
      throw new WasmParseError(
        `${what} at ${hex(start)} is a LEB128 u32 whose value does not fit in 32 bits ` +
          `(last byte ${hex2(last)})`,
        start,
      );
    }
    this.pos = pos;
    return (result >>> 0) + last * 0x10000000;
  }

  /**
   * A signed LEB128 of at most 5 bytes whose value fits in `bits` bits
   * (32 for `i32.const`, 33 for heap and block types).
   */
  s32(what: string, bits: 32 | 33 = 32): number {
    const bytes = this.bytes;
    const end = this.end;
    const start = this.pos;
    let pos = start;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 5; i++) {
      if (pos >= end) throw this.unterminated(what, start);
      const b = bytes[pos++]!;
      if (i === 4) {
        if (b >= 0x80) throw this.overlong(what, start, 5, `an s${bits}`);
        // The bits above the value's sign bit must repeat it.
        const mask = bits === 32 ? 0x78 : 0x70;
        const high = b & mask;
        if (high !== 0 && high !== mask) {
          throw new WasmParseError(
            `${what} at ${hex(start)} is a LEB128 s${bits} whose value does not fit in ` +
              `${bits} bits (last byte ${hex2(b)})`,
            start,
          );
        }
      }
      result += (b & 0x7f) * scale;
      scale *= 128;
      if (b < 0x80) {
        this.pos = pos;
        return (b & 0x40) !== 0 ? result - scale : result;
      }
    }
    // Unreachable: the fifth byte either ends the number or throws.
    throw this.overlong(what, start, 5, `an s${bits}`);
  }

  /** A LEB128 of at most 10 bytes whose value fits in 64 bits, signed or not. */
  leb64(what: string, signed: boolean): bigint {
    const bytes = this.bytes;
    const end = this.end;
    const start = this.pos;
    let pos = start;
    let result = 0n;
    for (let i = 0; i < 10; i++) {
      if (pos >= end) throw this.unterminated(what, start);
      const b = bytes[pos++]!;
      if (i === 9) {
        if (b >= 0x80) throw this.overlong(what, start, 10, signed ? "an s64" : "a u64");
        const valid = signed ? b === 0 || b === 0x7f : b === 0 || b === 1;
        if (!valid) {
          throw new WasmParseError(
            `${what} at ${hex(start)} is a LEB128 ${signed ? "s64" : "u64"} whose value does ` +
              `not fit in 64 bits (last byte ${hex2(b)})`,
            start,
          );
        }
      }
      result |= BigInt(b & 0x7f) << BigInt(7 * i);
      if (b < 0x80) {
        this.pos = pos;
        const bits = BigInt(7 * (i + 1));
        if (signed && (b & 0x40) !== 0) result -= 1n << bits;
        return signed ? BigInt.asIntN(64, result) : BigInt.asUintN(64, result);
      }
    }
    throw this.overlong(what, start, 10, signed ? "an s64" : "a u64");
  }

  unterminated(what: string, start: number): WasmParseError {
    if (start >= this.end) {
      return new WasmParseError(`${what} at ${hex(start)} lies past ${this.limit}`, start);
    }
    return new WasmParseError(
      `${what} at ${hex(start)} is an unterminated LEB128: it runs into ${this.limit} at ` +
        hex(this.end),
      start,
    );
  }

  overlong(what: string, start: number, max: number, type: string): WasmParseError {
    return new WasmParseError(
      `${what} at ${hex(start)} is a LEB128 longer than the ${max} bytes ${type} may take`,
      start,
    );
  }

  /**
   * A vector count, checked against the bytes left: each entry takes at
   * least `minBytes` bytes, so a larger count cannot be genuine.
   */
  count(what: string, minBytes: number): number {
    const at = this.pos;
    const n = this.u32(`the count of ${what}`);
    const remaining = this.remaining;
    if (n * minBytes > remaining) {
      throw new WasmParseError(
        `the count of ${n} ${what} at ${hex(at)} needs at least ${n * minBytes} bytes, but only ` +
          `${remaining} remain before ${this.limit}`,
        at,
      );
    }
    return n;
  }

  /** A length-prefixed UTF-8 name (invalid sequences become U+FFFD and are counted). */
  name(what: string): string {
    const start = this.lengthPrefixed(what);
    return decodeName(this.bytes, start, this.pos, this.utf8);
  }

  /** A length-prefixed byte vector. */
  byteVector(what: string): Uint8Array {
    const start = this.lengthPrefixed(what);
    return this.bytes.subarray(start, this.pos);
  }

  /** Steps over a length-prefixed run of bytes, checked against the bytes left; returns its start. */
  private lengthPrefixed(what: string): number {
    const at = this.pos;
    const n = this.u32(`the length of ${what}`);
    if (n > this.remaining) {
      throw new WasmParseError(
        `${what} at ${hex(at)} is ${n} bytes long, but only ${this.remaining} remain before ` +
          this.limit,
        at,
      );
    }
    const start = this.pos;
    this.pos += n;
    return start;
  }
}

function decodeName(bytes: Uint8Array, start: number, end: number, utf8: Utf8Stats): string {
  if (end - start <= 64) {
    let ascii = true;
    for (let i = start; i < end; i++) {
      if (bytes[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) return String.fromCharCode(...bytes.subarray(start, end));
  }
  const slice = bytes.subarray(start, end);
  try {
    return fatalDecoder.decode(slice);
  } catch {
    utf8.invalid++;
    return lenientDecoder.decode(slice);
  }
}

/** `0x` + lowercase hex. */
export function hex(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}

/** One byte as two lowercase hex digits. */
export function hex2(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}
