/**
 * Decoding WebAssembly function bodies: every instruction of the core
 * specification (with the bulk-memory, reference-types, tail-call,
 * exception, SIMD, threads and GC extensions) at its file offset, with the
 * functions it calls and the initialised memory it names.
 *
 * Addresses are file offsets, as everywhere for WebAssembly in this project:
 * a linear-memory address is translated to the file offset of the active data
 * segment bytes that initialise it, when one does.
 *
 * @module
 */

import { upperBound } from "../../core/sorted.ts";

/** What decoding needs to know about the module. */
export interface WasmCodeMap {
  /** Number of imported functions: indices below it are imports. */
  importedFunctions: number;
  /** `module.name` of each imported function, by index. */
  importNames: readonly string[];
  /** File offset of each imported function's import entry (its address), by index. */
  importOffsets: readonly bigint[];
  /** Body offset (the function's address) of each defined function, by function index. */
  bodyOffsets: ReadonlyMap<number, bigint>;
  /** Active data segments of memory 0 with a constant offset, sorted by memory offset. */
  dataSegments: readonly { memoryOffset: bigint; fileOffset: number; size: number }[];
}

/** One decoded instruction. */
export interface WasmInstruction {
  /** File offset of the opcode. */
  address: bigint;
  size: number;
  mnemonic: string;
  /** Immediates as text, e.g. `12` or `align=2 offset=16`. */
  operands: string;
  /** A direct call's (or tail call's) function index. */
  callee?: number;
  /** True for `call_indirect`, `call_ref` and their tail forms. */
  indirectCall?: boolean;
  /** A branch to an enclosing label (`br`, `br_if`, `br_table`, `br_on_*`). */
  branch?: "unconditional" | "conditional";
  /** Ends the function's execution here (`return`, tail calls, `unreachable`, `throw`). */
  exits?: boolean;
  /** A constant (or constant address plus memarg offset) naming initialised memory, as a file offset. */
  reference?: bigint;
}

/** A decoded body. */
export interface DecodedWasmBody {
  instructions: WasmInstruction[];
  /** File offset of the first instruction (after the local declarations). */
  codeStart: number;
  /** True when `maxInstructions` cut the decode short. */
  truncated: boolean;
  /** Why decoding stopped before the body's end, or null when it reached it. */
  stoppedOn: string | null;
}

class Truncated extends Error {}

/** A bounded little cursor over one body. */
class Cursor {
  constructor(readonly bytes: Uint8Array, public at: number, readonly end: number) {}
  /** The next byte without consuming it (throws at the end of the body). */
  peek(): number {
    if (this.at >= this.end) throw new Truncated("the body ends inside an instruction");
    return this.bytes[this.at]!;
  }
  byte(): number {
    if (this.at >= this.end) throw new Truncated("the body ends inside an instruction");
    return this.bytes[this.at++]!;
  }
  u32(): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
    throw new Truncated("an unsigned LEB128 longer than 5 bytes");
  }
  /** An unsigned LEB128 of up to 64 bits (memory64 offsets). */
  u64(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result & 0xffff_ffff_ffff_ffffn;
      shift += 7n;
    }
    throw new Truncated("an unsigned LEB128 longer than 10 bytes");
  }
  /** A signed LEB128 of at most `bits` bits. */
  signed(bits: 32 | 33 | 64): bigint {
    let result = 0n;
    let shift = 0n;
    const maxBytes = Math.ceil(bits / 7);
    for (let i = 0; i < maxBytes; i++) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      shift += 7n;
      if ((b & 0x80) === 0) {
        if (b & 0x40) result -= 1n << shift;
        return result;
      }
    }
    throw new Truncated(`a signed LEB128 longer than ${maxBytes} bytes`);
  }
  skip(n: number): void {
    if (this.at + n > this.end) throw new Truncated("the body ends inside an immediate");
    this.at += n;
  }
}

const LOADS_STORES = [
  "i32.load",
  "i64.load",
  "f32.load",
  "f64.load",
  "i32.load8_s",
  "i32.load8_u",
  "i32.load16_s",
  "i32.load16_u",
  "i64.load8_s",
  "i64.load8_u",
  "i64.load16_s",
  "i64.load16_u",
  "i64.load32_s",
  "i64.load32_u",
  "i32.store",
  "i64.store",
  "f32.store",
  "f64.store",
  "i32.store8",
  "i32.store16",
  "i64.store8",
  "i64.store16",
  "i64.store32",
];

/** Opcodes 0x45–0xc4, which take no immediates. */
const NUMERIC = (() => {
  const compare = (t: string, ops: string[]) => ops.map((op) => `${t}.${op}`);
  const int = ["eqz", "eq", "ne", "lt_s", "lt_u", "gt_s", "gt_u", "le_s", "le_u", "ge_s", "ge_u"];
  const float = ["eq", "ne", "lt", "gt", "le", "ge"];
  const intArith = [
    "clz",
    "ctz",
    "popcnt",
    "add",
    "sub",
    "mul",
    "div_s",
    "div_u",
    "rem_s",
    "rem_u",
    "and",
    "or",
    "xor",
    "shl",
    "shr_s",
    "shr_u",
    "rotl",
    "rotr",
  ];
  const floatArith = [
    "abs",
    "neg",
    "ceil",
    "floor",
    "trunc",
    "nearest",
    "sqrt",
    "add",
    "sub",
    "mul",
    "div",
    "min",
    "max",
    "copysign",
  ];
  return [
    ...compare("i32", int),
    ...compare("i64", int),
    ...compare("f32", float),
    ...compare("f64", float),
    ...compare("i32", intArith),
    ...compare("i64", intArith),
    ...compare("f32", floatArith),
    ...compare("f64", floatArith),
    "i32.wrap_i64",
    "i32.trunc_f32_s",
    "i32.trunc_f32_u",
    "i32.trunc_f64_s",
    "i32.trunc_f64_u",
    "i64.extend_i32_s",
    "i64.extend_i32_u",
    "i64.trunc_f32_s",
    "i64.trunc_f32_u",
    "i64.trunc_f64_s",
    "i64.trunc_f64_u",
    "f32.convert_i32_s",
    "f32.convert_i32_u",
    "f32.convert_i64_s",
    "f32.convert_i64_u",
    "f32.demote_f64",
    "f64.convert_i32_s",
    "f64.convert_i32_u",
    "f64.convert_i64_s",
    "f64.convert_i64_u",
    "f64.promote_f32",
    "i32.reinterpret_f32",
    "i64.reinterpret_f64",
    "f32.reinterpret_i32",
    "f64.reinterpret_i64",
    "i32.extend8_s",
    "i32.extend16_s",
    "i64.extend8_s",
    "i64.extend16_s",
    "i64.extend32_s",
  ];
})();

const BULK = [
  "i32.trunc_sat_f32_s",
  "i32.trunc_sat_f32_u",
  "i32.trunc_sat_f64_s",
  "i32.trunc_sat_f64_u",
  "i64.trunc_sat_f32_s",
  "i64.trunc_sat_f32_u",
  "i64.trunc_sat_f64_s",
  "i64.trunc_sat_f64_u",
  "memory.init",
  "data.drop",
  "memory.copy",
  "memory.fill",
  "table.init",
  "elem.drop",
  "table.copy",
  "table.grow",
  "table.size",
  "table.fill",
];
/** Number of u32 immediates of each 0xfc operation. */
const BULK_IMMEDIATES = [0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 1, 2, 1, 2, 1, 1, 1];

/** Maps a linear-memory address to the file offset of the data segment bytes initialising it. */
export function memoryToFile(map: WasmCodeMap, address: bigint): bigint | null {
  const segments = map.dataSegments;
  const segment = segments[upperBound(segments, address, (s) => s.memoryOffset) - 1];
  if (!segment || address >= segment.memoryOffset + BigInt(segment.size)) return null;
  return BigInt(segment.fileOffset) + (address - segment.memoryOffset);
}

/**
 * Decodes one function body: skips its local declarations, then decodes up to
 * `maxInstructions` instructions. Unknown opcodes and immediates running past
 * the body stop the decode, with the reason.
 *
 * @param bytes The whole module.
 * @param bodyOffset File offset of the body (where its local declarations begin).
 * @param bodySize The body's declared size.
 */
export function decodeWasmBody(
  bytes: Uint8Array,
  bodyOffset: number,
  bodySize: number,
  maxInstructions: number,
  map: WasmCodeMap,
): DecodedWasmBody {
  const end = Math.min(bytes.length, bodyOffset + bodySize);
  const cursor = new Cursor(bytes, bodyOffset, end);
  const instructions: WasmInstruction[] = [];
  let codeStart = bodyOffset;
  try {
    const groups = cursor.u32();
    for (let i = 0; i < groups; i++) {
      cursor.u32();
      valueType(cursor);
    }
    codeStart = cursor.at;
  } catch (error) {
    return {
      instructions,
      codeStart,
      truncated: false,
      stoppedOn: `the local declarations cannot be read: ${(error as Error).message}`,
    };
  }
  let previousConstant: bigint | null = null;
  while (cursor.at < end) {
    if (instructions.length >= maxInstructions) {
      return { instructions, codeStart, truncated: true, stoppedOn: null };
    }
    const start = cursor.at;
    let insn: Omit<WasmInstruction, "address" | "size">;
    try {
      insn = decodeOne(cursor, map, previousConstant);
    } catch (error) {
      const reason = error instanceof Truncated || error instanceof UnknownOpcode
        ? error.message
        : String(error);
      return { instructions, codeStart, truncated: false, stoppedOn: `at ${start}: ${reason}` };
    }
    previousConstant = insn.mnemonic === "i32.const" || insn.mnemonic === "i64.const"
      ? BigInt(insn.operands)
      : null;
    instructions.push({ address: BigInt(start), size: cursor.at - start, ...insn });
  }
  return {
    instructions,
    codeStart,
    truncated: false,
    stoppedOn: end < bodyOffset + bodySize ? "the file ends inside the body" : null,
  };
}

class UnknownOpcode extends Error {}

function valueType(cursor: Cursor): string {
  const code = cursor.signed(33);
  // (ref null ht) and (ref ht) carry a heap type.
  if (code === -29n || code === -28n) cursor.signed(33);
  return code < 0n ? `0x${(Number(code) & 0x7f).toString(16)}` : `type[${code}]`;
}

function blockType(cursor: Cursor): string {
  if (cursor.peek() === 0x40) {
    cursor.at++;
    return "";
  }
  return valueType(cursor);
}

function memarg(cursor: Cursor): { text: string; offset: bigint } {
  let align = cursor.u32();
  let memory = 0;
  if (align & 0x40) {
    align &= ~0x40;
    memory = cursor.u32();
  }
  const offset = cursor.u64();
  return {
    text: `${memory ? `memory=${memory} ` : ""}align=${align} offset=${offset}`,
    offset,
  };
}

function decodeOne(
  cursor: Cursor,
  map: WasmCodeMap,
  previousConstant: bigint | null,
): Omit<WasmInstruction, "address" | "size"> {
  const op = cursor.byte();
  const simple = (mnemonic: string, operands = "") => ({ mnemonic, operands });
  const call = (mnemonic: string, tail: boolean) => {
    const index = cursor.u32();
    const name = index < map.importedFunctions ? ` <${map.importNames[index] ?? "?"}>` : "";
    return { mnemonic, operands: `${index}${name}`, callee: index, exits: tail || undefined };
  };
  if (op >= 0x45 && op <= 0xc4) return simple(NUMERIC[op - 0x45]!);
  if (op >= 0x28 && op <= 0x3e) {
    const m = memarg(cursor);
    const reference = previousConstant === null
      ? undefined
      : memoryToFile(map, previousConstant + m.offset) ?? undefined;
    return { mnemonic: LOADS_STORES[op - 0x28]!, operands: m.text, reference };
  }
  switch (op) {
    case 0x00:
      return { mnemonic: "unreachable", operands: "", exits: true };
    case 0x01:
      return simple("nop");
    case 0x02:
      return simple("block", blockType(cursor));
    case 0x03:
      return simple("loop", blockType(cursor));
    case 0x04:
      return simple("if", blockType(cursor));
    case 0x05:
      return simple("else");
    case 0x06:
      return simple("try", blockType(cursor));
    case 0x07:
      return simple("catch", String(cursor.u32()));
    case 0x08:
      return { mnemonic: "throw", operands: String(cursor.u32()), exits: true };
    case 0x09:
      return { mnemonic: "rethrow", operands: String(cursor.u32()), exits: true };
    case 0x0a:
      return { mnemonic: "throw_ref", operands: "", exits: true };
    case 0x0b:
      return simple("end");
    case 0x0c:
      return { mnemonic: "br", operands: String(cursor.u32()), branch: "unconditional" };
    case 0x0d:
      return { mnemonic: "br_if", operands: String(cursor.u32()), branch: "conditional" };
    case 0x0e: {
      const count = cursor.u32();
      const labels: number[] = [];
      for (let i = 0; i <= count; i++) labels.push(cursor.u32());
      return { mnemonic: "br_table", operands: labels.join(" "), branch: "unconditional" };
    }
    case 0x0f:
      return { mnemonic: "return", operands: "", exits: true };
    case 0x10:
      return call("call", false);
    case 0x11:
    case 0x13: {
      const type = cursor.u32();
      const table = cursor.u32();
      return {
        mnemonic: op === 0x11 ? "call_indirect" : "return_call_indirect",
        operands: `${table} (type ${type})`,
        indirectCall: true,
        exits: op === 0x13 || undefined,
      };
    }
    case 0x12:
      return call("return_call", true);
    case 0x14:
    case 0x15:
      return {
        mnemonic: op === 0x14 ? "call_ref" : "return_call_ref",
        operands: String(cursor.u32()),
        indirectCall: true,
        exits: op === 0x15 || undefined,
      };
    case 0x18:
      return simple("delegate", String(cursor.u32()));
    case 0x19:
      return simple("catch_all");
    case 0x1a:
      return simple("drop");
    case 0x1b:
      return simple("select");
    case 0x1c: {
      const count = cursor.u32();
      const types: string[] = [];
      for (let i = 0; i < count; i++) types.push(valueType(cursor));
      return simple("select", types.join(" "));
    }
    case 0x1f: {
      const type = blockType(cursor);
      const count = cursor.u32();
      for (let i = 0; i < count; i++) {
        const kind = cursor.byte();
        if (kind === 0x00 || kind === 0x01) cursor.u32();
        else if (kind !== 0x02 && kind !== 0x03) {
          throw new UnknownOpcode(`unknown try_table catch kind ${kind}`);
        }
        cursor.u32();
      }
      return simple("try_table", type);
    }
    case 0x20:
      return simple("local.get", String(cursor.u32()));
    case 0x21:
      return simple("local.set", String(cursor.u32()));
    case 0x22:
      return simple("local.tee", String(cursor.u32()));
    case 0x23:
      return simple("global.get", String(cursor.u32()));
    case 0x24:
      return simple("global.set", String(cursor.u32()));
    case 0x25:
      return simple("table.get", String(cursor.u32()));
    case 0x26:
      return simple("table.set", String(cursor.u32()));
    case 0x3f:
      return simple("memory.size", String(cursor.u32()));
    case 0x40:
      return simple("memory.grow", String(cursor.u32()));
    case 0x41:
    case 0x42: {
      const value = cursor.signed(op === 0x41 ? 32 : 64);
      const reference = value > 0n ? memoryToFile(map, value) ?? undefined : undefined;
      return { mnemonic: op === 0x41 ? "i32.const" : "i64.const", operands: `${value}`, reference };
    }
    case 0x43:
      cursor.skip(4);
      return simple(
        "f32.const",
        String(new DataView(cursor.bytes.buffer, cursor.bytes.byteOffset).getFloat32(
          cursor.at - 4,
          true,
        )),
      );
    case 0x44:
      cursor.skip(8);
      return simple(
        "f64.const",
        String(new DataView(cursor.bytes.buffer, cursor.bytes.byteOffset).getFloat64(
          cursor.at - 8,
          true,
        )),
      );
    case 0xd0:
      return simple("ref.null", String(cursor.signed(33)));
    case 0xd1:
      return simple("ref.is_null");
    case 0xd2:
      return simple("ref.func", String(cursor.u32()));
    case 0xd3:
      return simple("ref.eq");
    case 0xd4:
      return simple("ref.as_non_null");
    case 0xd5:
      return { mnemonic: "br_on_null", operands: String(cursor.u32()), branch: "conditional" };
    case 0xd6:
      return { mnemonic: "br_on_non_null", operands: String(cursor.u32()), branch: "conditional" };
    case 0xfb:
      return gcOperation(cursor);
    case 0xfc: {
      const sub = cursor.u32();
      const immediates = BULK_IMMEDIATES[sub];
      if (immediates === undefined) throw new UnknownOpcode(`unknown opcode 0xfc ${sub}`);
      const values: number[] = [];
      for (let i = 0; i < immediates; i++) values.push(cursor.u32());
      return simple(BULK[sub]!, values.join(" "));
    }
    case 0xfd:
      return simdOperation(cursor);
    case 0xfe: {
      const sub = cursor.u32();
      if (sub === 0x03) {
        cursor.byte();
        return simple("atomic.fence");
      }
      if (sub > 0x4e) throw new UnknownOpcode(`unknown opcode 0xfe ${sub}`);
      return simple(`atomic.0x${sub.toString(16)}`, memarg(cursor).text);
    }
    default:
      throw new UnknownOpcode(`unknown opcode 0x${op.toString(16).padStart(2, "0")}`);
  }
}

function simdOperation(cursor: Cursor): { mnemonic: string; operands: string } {
  const sub = cursor.u32();
  const mnemonic = `simd.0x${sub.toString(16)}`;
  if (sub <= 11 || sub === 92 || sub === 93) return { mnemonic, operands: memarg(cursor).text };
  if (sub === 12 || sub === 13) {
    cursor.skip(16);
    return { mnemonic: sub === 12 ? "v128.const" : "i8x16.shuffle", operands: "" };
  }
  if (sub >= 21 && sub <= 34) return { mnemonic, operands: String(cursor.byte()) };
  if (sub >= 84 && sub <= 91) {
    const m = memarg(cursor).text;
    return { mnemonic, operands: `${m} lane=${cursor.byte()}` };
  }
  if (sub > 0x113) throw new UnknownOpcode(`unknown opcode 0xfd ${sub}`);
  return { mnemonic, operands: "" };
}

function gcOperation(
  cursor: Cursor,
): { mnemonic: string; operands: string; branch?: "conditional" } {
  const sub = cursor.u32();
  const mnemonic = `gc.0x${sub.toString(16)}`;
  const indices = (n: number) => {
    const values: number[] = [];
    for (let i = 0; i < n; i++) values.push(cursor.u32());
    return { mnemonic, operands: values.join(" ") };
  };
  switch (sub) {
    case 0:
    case 1:
    case 6:
    case 7:
    case 11:
    case 12:
    case 13:
    case 14:
    case 16:
      return indices(1);
    case 2:
    case 3:
    case 4:
    case 5:
    case 8:
    case 9:
    case 10:
    case 17:
    case 18:
    case 19:
      return indices(2);
    case 15:
    case 26:
    case 27:
    case 28:
    case 29:
    case 30:
      return { mnemonic, operands: "" };
    case 20:
    case 21:
    case 22:
    case 23:
      return { mnemonic, operands: String(cursor.signed(33)) };
    case 24:
    case 25: {
      cursor.byte();
      const label = cursor.u32();
      cursor.signed(33);
      cursor.signed(33);
      return { mnemonic, operands: String(label), branch: "conditional" };
    }
    default:
      throw new UnknownOpcode(`unknown opcode 0xfb ${sub}`);
  }
}

/** The parts of a parsed module that {@linkcode codeMapOf} reads. */
export interface WasmModuleParts {
  imports: readonly { module: string; name: string; kind: string; offset: number }[];
  bodies: readonly { index: number; offset: number }[];
  data: readonly {
    mode: "active" | "passive";
    memory: number | null;
    memoryOffset: bigint | null;
    offset: number;
    size: number;
  }[];
}

/** The code map of a parsed module: imports, body offsets and memory-0 data segments. */
export function codeMapOf(module: WasmModuleParts): WasmCodeMap {
  const functionImports = module.imports.filter((i) => i.kind === "func");
  return {
    importedFunctions: functionImports.length,
    importNames: functionImports.map((i) => `${i.module}.${i.name}`),
    importOffsets: functionImports.map((i) => BigInt(i.offset)),
    bodyOffsets: new Map(module.bodies.map((b) => [b.index, BigInt(b.offset)])),
    dataSegments: module.data
      .filter((d) =>
        d.mode === "active" && (d.memory ?? 0) === 0 && d.memoryOffset !== null && d.size > 0
      )
      .map((d) => ({ memoryOffset: d.memoryOffset!, fileOffset: d.offset, size: d.size }))
      .sort((
        a,
        b,
      ) => (a.memoryOffset < b.memoryOffset ? -1 : a.memoryOffset > b.memoryOffset ? 1 : 0)),
  };
}
