/**
 * Value, reference, heap and sub-types, limits, locals and constant
 * expressions, read from a {@linkcode Cursor}.
 *
 * @module
 */

import { type Cursor, hex, hex2 } from "./cursor.ts";
import { WasmParseError, type WasmType, type WasmValueType } from "./model.ts";

const NUMERIC_TYPES: ReadonlyMap<number, string> = new Map([
  [0x7f, "i32"],
  [0x7e, "i64"],
  [0x7d, "f32"],
  [0x7c, "f64"],
  [0x7b, "v128"],
]);

/** Abstract heap types by their one-byte code. */
const HEAP_TYPES: ReadonlyMap<number, string> = new Map([
  [0x70, "func"],
  [0x6f, "extern"],
  [0x6e, "any"],
  [0x6d, "eq"],
  [0x6c, "i31"],
  [0x6b, "struct"],
  [0x6a, "array"],
  [0x69, "exn"],
  [0x71, "none"],
  [0x72, "noextern"],
  [0x73, "nofunc"],
  [0x74, "noexn"],
]);

/** The shorthand reference types (`funcref` is `(ref null func)`), by the same codes. */
const SHORTHAND_REFS: ReadonlyMap<number, string> = new Map(
  [...HEAP_TYPES].map(([code, heap]) => [code, shorthandName(heap)]),
);

function shorthandName(heap: string): string {
  switch (heap) {
    case "none":
      return "nullref";
    case "noextern":
      return "nullexternref";
    case "nofunc":
      return "nullfuncref";
    case "noexn":
      return "nullexnref";
    default:
      return `${heap}ref`;
  }
}

/** One entry of the type section (a function, struct or array type, possibly with supertypes). */
export function readSubType(c: Cursor, index: number): WasmType {
  const at = c.pos;
  const form = c.peek(`type ${index}`);
  if (form === 0x50 || form === 0x4f) {
    c.pos++;
    const supers = c.count(`supertypes of type ${index}`, 1);
    for (let i = 0; i < supers; i++) c.u32(`supertype ${i} of type ${index}`);
  }
  const typeAt = c.pos;
  const code = c.u8(`the form of type ${index}`);
  switch (code) {
    case 0x60: {
      const params = readValueTypes(c, `parameters of type ${index}`);
      const results = readValueTypes(c, `results of type ${index}`);
      return { index, form: "func", params, results };
    }
    case 0x5f: {
      const fields = c.count(`fields of type ${index}`, 2);
      for (let i = 0; i < fields; i++) {
        readStorageType(c, `field ${i} of type ${index}`);
        readMutability(c, `the mutability of field ${i} of type ${index}`);
      }
      return { index, form: "struct", params: [], results: [] };
    }
    case 0x5e:
      readStorageType(c, `the element type of type ${index}`);
      readMutability(c, `the mutability of the elements of type ${index}`);
      return { index, form: "array", params: [], results: [] };
    default:
      throw new WasmParseError(
        `type ${index} at ${hex(at)} has the unknown form ${hex2(code)} at ${hex(typeAt)}`,
        typeAt,
      );
  }
}

function readValueTypes(c: Cursor, what: string): WasmValueType[] {
  const n = c.count(what, 1);
  const types: WasmValueType[] = [];
  for (let i = 0; i < n; i++) types.push(readValueType(c, `${what}, number ${i},`));
  return types;
}

function readStorageType(c: Cursor, what: string): void {
  const code = c.peek(what);
  if (code === 0x78 || code === 0x77) c.pos++;
  else readValueType(c, what);
}

/** One value type, as text. */
export function readValueType(c: Cursor, what: string): WasmValueType {
  const at = c.pos;
  const code = c.u8(what);
  const numeric = NUMERIC_TYPES.get(code);
  if (numeric !== undefined) return numeric;
  const shorthand = SHORTHAND_REFS.get(code);
  if (shorthand !== undefined) return shorthand;
  if (code === 0x63 || code === 0x64) {
    const heap = readHeapType(c, `the heap type of ${what}`);
    return code === 0x63 ? `(ref null ${heap})` : `(ref ${heap})`;
  }
  throw new WasmParseError(`${what} at ${hex(at)} is the unknown value type ${hex2(code)}`, at);
}

function readHeapType(c: Cursor, what: string): string {
  const at = c.pos;
  const value = c.s32(what, 33);
  if (value >= 0) return String(value);
  // A negative one-byte value is an abstract heap type, named by its byte.
  const name = value >= -64 ? HEAP_TYPES.get(value + 0x80) : undefined;
  if (name === undefined) {
    throw new WasmParseError(`${what} at ${hex(at)} is the unknown heap type ${value}`, at);
  }
  return name;
}

/** Whether a value type is a reference type. */
export function isReference(type: WasmValueType): boolean {
  return type.startsWith("(ref") || type.endsWith("ref");
}

/** A global's mutability byte (0 or 1). */
export function readMutability(c: Cursor, what: string): void {
  const at = c.pos;
  const value = c.u8(what);
  if (value > 1) {
    throw new WasmParseError(`${what} at ${hex(at)} is ${value}, expected 0 or 1`, at);
  }
}

/** A tag's attribute byte (0: exception). */
export function readTagAttribute(c: Cursor, what: string): void {
  const at = c.pos;
  const value = c.u8(what);
  if (value !== 0) {
    throw new WasmParseError(`${what} at ${hex(at)} is ${value}, expected 0 (exception)`, at);
  }
}

/**
 * Table or memory limits: a flags byte (bit 0 a maximum follows, bit 1
 * shared, bit 2 64-bit, bit 3 a custom page size follows), the minimum and
 * the maximum (u64 when 64-bit), and the page size exponent.
 */
export function readLimits(c: Cursor, what: string): void {
  const at = c.pos;
  const flags = c.u8(`the flags of ${what}`);
  if (flags > 0x0f) {
    throw new WasmParseError(
      `the flags of ${what} at ${hex(at)} are the unknown ${hex2(flags)}`,
      at,
    );
  }
  const wide = (flags & 4) !== 0;
  const read = (name: string): void => {
    if (wide) c.leb64(`the ${name} of ${what}`, false);
    else c.u32(`the ${name} of ${what}`);
  };
  read("minimum");
  if ((flags & 1) !== 0) read("maximum");
  if ((flags & 8) !== 0) c.u32(`the page size of ${what}`);
}

/** The local declarations at the start of a body: the total number of locals. */
export function readLocals(c: Cursor): number {
  // count + value type.
  const groups = c.count("local declarations", 2);
  let total = 0;
  for (let i = 0; i < groups; i++) {
    total += c.u32(`the count of local declaration ${i}`);
    readValueType(c, `the type of local declaration ${i}`);
  }
  return total;
}

/**
 * Skips a constant expression up to and including its `end`. Returns the
 * value when the expression is a single `i32.const` or `i64.const`, else null.
 */
export function readConstExpr(c: Cursor, what: string): bigint | null {
  const start = c.pos;
  let value: bigint | null = null;
  let instructions = 0;
  for (;;) {
    const at = c.pos;
    const op = c.u8(`an instruction of ${what}`);
    if (op === 0x0b) return instructions === 1 ? value : null;
    instructions++;
    value = null;
    switch (op) {
      case 0x41:
        value = BigInt(c.s32("an i32.const immediate"));
        break;
      case 0x42:
        value = c.leb64("an i64.const immediate", true);
        break;
      case 0x43:
        c.skip(4, "an f32.const immediate");
        break;
      case 0x44:
        c.skip(8, "an f64.const immediate");
        break;
      case 0x23:
        c.u32("a global.get index");
        break;
      case 0xd0:
        readHeapType(c, "a ref.null heap type");
        break;
      case 0xd2:
        c.u32("a ref.func index");
        break;
      case 0x6a: // i32.add
      case 0x6b: // i32.sub
      case 0x6c: // i32.mul
      case 0x7c: // i64.add
      case 0x7d: // i64.sub
      case 0x7e: // i64.mul
        break;
      case 0xfd: {
        const sub = c.u32("a SIMD opcode");
        if (sub !== 12) throw notConstant(what, start, `0xfd ${sub}`, at);
        c.skip(16, "a v128.const immediate");
        break;
      }
      case 0xfb: {
        const sub = c.u32("a GC opcode");
        switch (sub) {
          case 0: // struct.new
          case 1: // struct.new_default
          case 6: // array.new
          case 7: // array.new_default
            c.u32("a type index");
            break;
          case 8: // array.new_fixed
            c.u32("a type index");
            c.u32("an element count");
            break;
          case 26: // any.convert_extern
          case 27: // extern.convert_any
          case 28: // ref.i31
            break;
          default:
            throw notConstant(what, start, `0xfb ${sub}`, at);
        }
        break;
      }
      default:
        throw notConstant(what, start, hex2(op), at);
    }
  }
}

function notConstant(what: string, start: number, op: string, at: number): WasmParseError {
  return new WasmParseError(
    `${what} at ${hex(start)} has the opcode ${op} at ${hex(at)}, which is not allowed in a ` +
      `constant expression`,
    at,
  );
}
