/**
 * A dependency-free WebAssembly binary reader: the section list, types,
 * imports, functions, exports, the start function, the code section's
 * function bodies, data segments, and the `name`, `producers` and `build_id`
 * custom sections of a core module (binary format version 1).
 *
 * It takes bytes and never touches the file system, and it does not use the
 * engine's own `WebAssembly` object. Only a file that cannot be a WebAssembly
 * module at all makes {@linkcode parseWasm} throw {@linkcode WasmParseError};
 * damage inside a section is reported in {@linkcode WasmModule.warnings} and
 * what was read before it is kept. LEB128 numbers are capped at 5 bytes for
 * 32-bit and 10 bytes for 64-bit values, every vector count is checked against
 * the bytes left before anything is allocated for it, and every loop consumes
 * input, so the work is bounded by the size of the file.
 *
 * {@linkcode wasmImage} adapts a module to the format-neutral
 * {@linkcode BinaryImage}, using file offsets as addresses.
 *
 * @module
 */

import { codeMapOf } from "../../disasm/wasm_code.ts";
import type {
  BinaryImage,
  ImageExport,
  ImageFunction,
  ImageImport,
  ImageSection,
} from "../binary_image.ts";

/** Thrown by {@linkcode parseWasm} when the bytes are not a WebAssembly module. */
export class WasmParseError extends Error {
  /** File offset of the offending bytes, or `null` when it concerns the whole file. */
  readonly offset: number | null;

  /**
   * Creates the error.
   *
   * @param message A plain sentence saying what is wrong.
   * @param offset File offset of the offending bytes, if known.
   */
  constructor(message: string, offset: number | null = null) {
    super(message);
    this.name = "WasmParseError";
    this.offset = offset;
  }
}

/** What a section holds, from its id (`"unknown"` for an id this reader does not know). */
export type WasmSectionKind =
  | "custom"
  | "type"
  | "import"
  | "function"
  | "table"
  | "memory"
  | "global"
  | "export"
  | "start"
  | "element"
  | "code"
  | "data"
  | "datacount"
  | "tag"
  | "unknown";

/** One section as it appears in the file. */
export interface WasmSection {
  /** Section id (0 for custom sections). */
  id: number;
  /** What the id means. */
  kind: WasmSectionKind;
  /** Name of a custom section (`""` when it cannot be read); `null` for other sections. */
  name: string | null;
  /** File offset of the id byte. */
  headerOffset: number;
  /** File offset of the contents (after the id and the size). */
  offset: number;
  /** Declared size of the contents, in bytes (it may run past the end of a damaged file). */
  size: number;
  /**
   * File offset of the payload: for a custom section, the first byte after
   * its name; for other sections, the same as {@linkcode offset}.
   */
  payloadOffset: number;
  /**
   * The declared entry count of a vector section (types, imports, functions,
   * tables, memories, globals, exports, elements, bodies, data segments,
   * tags) or the value of the data count section; `null` for the start
   * section, custom sections and when it cannot be read.
   */
  count: number | null;
}

/** A value type as text: `i32`, `f64`, `v128`, `funcref`, `(ref null 3)`, `(ref any)`, … */
export type WasmValueType = string;

/** One entry of the type section (each subtype of a recursion group counts as one). */
export interface WasmType {
  /** Type index. */
  index: number;
  /** A function signature, or a GC struct or array type. */
  form: "func" | "struct" | "array";
  /** Parameter types (empty unless `form` is `"func"`). */
  params: WasmValueType[];
  /** Result types (empty unless `form` is `"func"`). */
  results: WasmValueType[];
}

/** What an import or export refers to. */
export type WasmExternalKind = "func" | "table" | "memory" | "global" | "tag";

/** One import. */
export interface WasmImport {
  /** Module name. */
  module: string;
  /** Field name. */
  name: string;
  /** What is imported. */
  kind: WasmExternalKind;
  /** Index in the index space of its kind (imports come first in each). */
  index: number;
  /** Type index of a function or tag import; `null` for other kinds. */
  typeIndex: number | null;
  /** File offset of the import's entry in the import section. */
  offset: number;
}

/** One function defined by the module (the function section). */
export interface WasmFunction {
  /** Function index (after the imported functions). */
  index: number;
  /** Type index of its signature. */
  typeIndex: number;
}

/** One export. */
export interface WasmExport {
  /** Export name. */
  name: string;
  /** What is exported. */
  kind: WasmExternalKind;
  /** Index in the index space of its kind. */
  index: number;
}

/** One function body of the code section. */
export interface WasmFunctionBody {
  /** Function index (the number of imported functions plus its position in the code section). */
  index: number;
  /** File offset of the body: the first byte after its size, where its local declarations begin. */
  offset: number;
  /** Size of the body in bytes, as declared before it. */
  size: number;
  /** Total number of locals declared (parameters not included), or `null` when they cannot be read. */
  localCount: number | null;
}

/** One data segment. */
export interface WasmDataSegment {
  /** Segment index. */
  index: number;
  /** Active segments are copied into memory at instantiation; passive ones by `memory.init`. */
  mode: "active" | "passive";
  /** Memory index of an active segment; `null` for a passive one. */
  memory: number | null;
  /**
   * The memory offset of an active segment when its offset expression is a
   * single `i32.const` or `i64.const`; `null` otherwise.
   */
  memoryOffset: bigint | null;
  /** File offset of the segment's bytes. */
  offset: number;
  /** Number of bytes. */
  size: number;
}

/** An index with its name. */
export interface WasmName {
  /** Function or local index. */
  index: number;
  /** Its name. */
  name: string;
}

/** The local names of one function. */
export interface WasmLocalNames {
  /** Function index. */
  function: number;
  /** Local index and name pairs, in the order the file lists them. */
  locals: WasmName[];
}

/** The contents of the `name` custom section that this reader decodes. */
export interface WasmNames {
  /** The module name subsection, or `null` when absent. */
  module: string | null;
  /** Function names, in the order the file lists them. */
  functions: WasmName[];
  /** Local names, in the order the file lists them. */
  locals: WasmLocalNames[];
}

/** One field of the `producers` custom section, such as `language` or `processed-by`. */
export interface WasmProducerField {
  /** Field name. */
  name: string;
  /** Tool or language names with their versions. */
  values: { name: string; version: string }[];
}

/** The parsed view of a WebAssembly module. */
export interface WasmModule {
  /** Binary format version (always 1). */
  version: number;
  /** Every section, in file order, including repeated and unknown ones. */
  sections: WasmSection[];
  /** The type section. */
  types: WasmType[];
  /** The import section, in file order. */
  imports: WasmImport[];
  /** The function section: one entry per defined function. */
  functions: WasmFunction[];
  /** Number of tables defined by the table section (imports not included). */
  tableCount: number;
  /** Number of memories defined by the memory section (imports not included). */
  memoryCount: number;
  /** Number of globals defined by the global section (imports not included). */
  globalCount: number;
  /** Number of tags defined by the tag section (imports not included). */
  tagCount: number;
  /** The export section, in file order. */
  exports: WasmExport[];
  /** Function index of the start function, or `null` when there is none. */
  start: number | null;
  /** Number of element segments. */
  elementCount: number;
  /** The value of the data count section, or `null` when there is none. */
  dataCount: number | null;
  /** The code section: one entry per function body read. */
  bodies: WasmFunctionBody[];
  /** The data section. */
  data: WasmDataSegment[];
  /** The `name` custom section, or `null` when there is none. */
  names: WasmNames | null;
  /** The `producers` custom section, or `null` when there is none. */
  producers: WasmProducerField[] | null;
  /** The bytes of the `build_id` custom section as lowercase hex, or `null` when there is none. */
  buildId: string | null;
  /** Human-readable notes about what was skipped or bounded; empty for a sound module. */
  warnings: string[];
}

/** Options for {@linkcode parseWasm}. */
export interface ParseWasmOptions {
  /**
   * Most names to read from the `name` section, function and local names
   * together; the rest are skipped with a warning.
   *
   * @default {4_000_000}
   */
  maxNames?: number;
}

// ---------------------------------------------------------------------------
// Constants

const HEADER_SIZE = 8;
const DEFAULT_MAX_NAMES = 4_000_000;
/** Most warnings kept; the rest are counted in a final warning. */
const MAX_WARNINGS = 100;

const SECTION_KINDS: readonly WasmSectionKind[] = [
  "custom",
  "type",
  "import",
  "function",
  "table",
  "memory",
  "global",
  "export",
  "start",
  "element",
  "code",
  "data",
  "datacount",
  "tag",
];

/** Position of each non-custom section id in the order the format requires. */
const SECTION_ORDER: ReadonlyMap<number, number> = new Map([
  [1, 1],
  [2, 2],
  [3, 3],
  [4, 4],
  [5, 5],
  [13, 6],
  [6, 7],
  [7, 8],
  [8, 9],
  [9, 10],
  [12, 11],
  [10, 12],
  [11, 13],
]);

const EXTERNAL_KINDS: readonly WasmExternalKind[] = ["func", "table", "memory", "global", "tag"];

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

const fatalDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

// ---------------------------------------------------------------------------
// Public functions

/**
 * Tells whether `bytes` starts with a WebAssembly core module header: the
 * magic number `\0asm` followed by version 1 (`01 00 00 00`). Checks nothing
 * else; {@linkcode parseWasm} reads the rest.
 */
export function isWasm(bytes: Uint8Array): boolean {
  return bytes.length >= HEADER_SIZE && bytes[0] === 0x00 && bytes[1] === 0x61 &&
    bytes[2] === 0x73 && bytes[3] === 0x6d && bytes[4] === 0x01 && bytes[5] === 0x00 &&
    bytes[6] === 0x00 && bytes[7] === 0x00;
}

/**
 * Parses a WebAssembly core module held in memory.
 *
 * Reads every section's framing, the contents of the type, import, function,
 * export, start, data count, code and data sections, the entry counts of the
 * table, memory, global, element and tag sections, and the `name` (module,
 * function and local names), `producers` and `build_id` custom sections.
 * Instructions are not decoded: a function body is an offset and a size (its
 * local declarations are read).
 *
 * Damage inside a section (a truncated or malformed entry, an unknown
 * opcode, a count larger than the bytes left) ends the reading of that
 * section with a warning; what was read before it is kept and the next
 * section is read. A section whose size runs past the end of the file is read
 * as far as the file goes. Repeated and out-of-order sections are warned
 * about; a repeated section is not read.
 *
 * @param bytes The whole file.
 * @param options Limits.
 * @returns The parsed module; damage is listed in `warnings`.
 * @throws {WasmParseError} When the file is empty or shorter than the 8-byte
 *   header, does not start with `\0asm`, or has a version other than 1.
 */
export function parseWasm(bytes: Uint8Array, options: ParseWasmOptions = {}): WasmModule {
  const maxNames = options.maxNames ?? DEFAULT_MAX_NAMES;
  if (!Number.isSafeInteger(maxNames) || maxNames < 0) {
    throw new RangeError(`maxNames must be a non-negative integer, got ${maxNames}`);
  }
  return new Parser(bytes, maxNames).parse();
}

/**
 * Parses a WebAssembly module and adapts it to a {@linkcode BinaryImage}.
 *
 * WebAssembly code has no virtual addresses, so **every address in the image
 * is a file offset** (as a bigint): a section's address is the offset of its
 * contents, a function's address is the offset of its body (the first byte
 * after the body's size, where its local declarations begin), and the entry
 * point is the body offset of the start function.
 *
 * - `sections`: one per section in file order, named by kind (`type`,
 *   `import`, `function`, `table`, `memory`, `global`, `export`, `start`,
 *   `element`, `code`, `data`, `datacount`, `tag`, `section-<id>` for an
 *   unknown id) or `custom:<name>` for a custom section; all readable, none
 *   writable, only `code` executable.
 * - `functions`: one per function body, named from the `name` section
 *   (source `"name-section"`), else by its first export (source `"export"`),
 *   else `""` (source `"code-section"`); `names` holds every distinct name.
 * - `imports`: the function imports (`library` is the module name, `address`
 *   the file offset of the import's entry: the address a `call` to it names).
 * - `exports`: the function exports; the address is the body offset of the
 *   exported function, or null for a re-exported import (then `forwardedTo`
 *   is `module.name`) or a function whose body is missing.
 * - `entry`: the start function's body offset, or null.
 * - `libraries`: the distinct module names of all imports, in file order.
 * - `buildId`: the `build_id` section as hex, or null.
 *
 * @param bytes The whole file.
 * @param document A short name for the document, such as the file name.
 * @returns The image; `warnings` are those of {@linkcode parseWasm}.
 * @throws {WasmParseError} As {@linkcode parseWasm}.
 */
export function wasmImage(bytes: Uint8Array, document: string): BinaryImage {
  const module = parseWasm(bytes);
  const length = bytes.length;

  const sections: ImageSection[] = module.sections.map((s) => {
    const name = s.kind === "custom"
      ? `custom:${s.name ?? ""}`
      : s.kind === "unknown"
      ? `section-${s.id}`
      : s.kind;
    return {
      name,
      address: BigInt(s.offset),
      size: BigInt(s.size),
      fileOffset: s.offset,
      fileSize: Math.max(0, Math.min(s.size, length - s.offset)),
      readable: true,
      writable: false,
      executable: s.kind === "code",
    };
  });

  const functionImports = module.imports.filter((i) => i.kind === "func");
  const importedFunctions = functionImports.length;
  const bodyAt = new Map<number, WasmFunctionBody>();
  for (const body of module.bodies) bodyAt.set(body.index, body);

  const sectionNames = new Map<number, string>();
  for (const { index, name } of module.names?.functions ?? []) {
    if (!sectionNames.has(index)) sectionNames.set(index, name);
  }
  const exportNames = new Map<number, string[]>();
  for (const e of module.exports) {
    if (e.kind !== "func") continue;
    const list = exportNames.get(e.index);
    if (list === undefined) exportNames.set(e.index, [e.name]);
    else list.push(e.name);
  }

  const functions: ImageFunction[] = module.bodies.map((body) => {
    const fromSection = sectionNames.get(body.index);
    const fromExports = exportNames.get(body.index) ?? [];
    const names = new Set<string>(fromExports);
    if (fromSection !== undefined) names.add(fromSection);
    names.delete("");
    let name = "";
    let source: ImageFunction["source"] = "code-section";
    if (fromSection !== undefined && fromSection !== "") {
      name = fromSection;
      source = "name-section";
    } else {
      const exported = fromExports.find((n) => n !== "");
      if (exported !== undefined) {
        name = exported;
        source = "export";
      }
    }
    return {
      address: BigInt(body.offset),
      size: BigInt(body.size),
      name,
      names: [...names].sort(),
      source,
    };
  });

  const imports: ImageImport[] = functionImports.map((i) => ({
    library: i.module,
    name: i.name,
    address: BigInt(i.offset),
  }));

  const exports: ImageExport[] = [];
  for (const e of module.exports) {
    if (e.kind !== "func") continue;
    if (e.index < importedFunctions) {
      const target = functionImports[e.index]!;
      exports.push({ name: e.name, address: null, forwardedTo: `${target.module}.${target.name}` });
    } else {
      const body = bodyAt.get(e.index);
      exports.push({ name: e.name, address: body === undefined ? null : BigInt(body.offset) });
    }
  }

  const startBody = module.start === null ? undefined : bodyAt.get(module.start);
  const libraries = [...new Set(module.imports.map((i) => i.module))];

  return {
    format: "wasm",
    document,
    architecture: "wasm32",
    machine: "wasm",
    bits: 32,
    endianness: "little",
    entry: startBody === undefined ? null : BigInt(startBody.offset),
    sections,
    functions,
    imports,
    exports,
    libraries,
    buildId: module.buildId,
    warnings: module.warnings,
    fileBase: 0,
    bytes,
    wasmCode: codeMapOf(module),
  };
}

// ---------------------------------------------------------------------------
// Implementation

/** Counts names that were not valid UTF-8 (decoded with U+FFFD). */
interface Utf8Stats {
  invalid: number;
}

/**
 * A read position over `bytes[pos, end)`. Every read checks the limit and
 * throws {@linkcode WasmParseError} with a message that names what was being
 * read, where, and which limit it ran into.
 */
class Cursor {
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
    return decodeName(this.bytes, start, start + n, this.utf8);
  }

  /** A length-prefixed byte vector. */
  byteVector(what: string): Uint8Array {
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
    return this.bytes.subarray(start, start + n);
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

/** Which sections were read to the end without damage (their contents are complete). */
type Complete = Set<number>;

class Parser {
  readonly bytes: Uint8Array;
  readonly length: number;
  readonly maxNames: number;
  nameBudget: number;
  readonly utf8: Utf8Stats = { invalid: 0 };
  warnings: string[] = [];
  droppedWarnings = 0;

  sections: WasmSection[] = [];
  types: WasmType[] = [];
  imports: WasmImport[] = [];
  functions: WasmFunction[] = [];
  tableCount = 0;
  memoryCount = 0;
  globalCount = 0;
  tagCount = 0;
  exports: WasmExport[] = [];
  start: number | null = null;
  elementCount = 0;
  dataCount: number | null = null;
  bodies: WasmFunctionBody[] = [];
  data: WasmDataSegment[] = [];
  names: WasmNames | null = null;
  producers: WasmProducerField[] | null = null;
  buildId: string | null = null;

  /** Imports per kind: how many of each the import section declared. */
  importCounts: number[] = [0, 0, 0, 0, 0];
  /** Header offsets of the non-custom sections seen, by id. */
  seen: Map<number, number> = new Map();
  /** Header offsets of the custom sections read, by name. */
  seenCustom: Map<string, number> = new Map();
  lastOrder = 0;
  lastOrderId = 0;
  complete: Complete = new Set();
  /** Declared count of the code section, when it could be read. */
  codeCount: number | null = null;
  dataSectionCount: number | null = null;

  constructor(bytes: Uint8Array, maxNames: number) {
    this.bytes = bytes;
    this.length = bytes.length;
    this.maxNames = maxNames;
    this.nameBudget = maxNames;
  }

  warn(message: string): void {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message);
    else this.droppedWarnings++;
  }

  cursor(start: number, end: number, limit: string): Cursor {
    return new Cursor(this.bytes, start, end, limit, this.utf8);
  }

  parse(): WasmModule {
    this.parseHeader();
    this.readSections();
    this.check();
    if (this.utf8.invalid > 0) {
      const n = this.utf8.invalid;
      this.warn(
        `${n} name${n === 1 ? " is" : "s are"} not valid UTF-8; invalid bytes were replaced ` +
          `with U+FFFD`,
      );
    }
    if (this.droppedWarnings > 0) {
      this.warnings.push(`${this.droppedWarnings} more warnings were omitted`);
    }
    return {
      version: 1,
      sections: this.sections,
      types: this.types,
      imports: this.imports,
      functions: this.functions,
      tableCount: this.tableCount,
      memoryCount: this.memoryCount,
      globalCount: this.globalCount,
      tagCount: this.tagCount,
      exports: this.exports,
      start: this.start,
      elementCount: this.elementCount,
      dataCount: this.dataCount,
      bodies: this.bodies,
      data: this.data,
      names: this.names,
      producers: this.producers,
      buildId: this.buildId,
      warnings: this.warnings,
    };
  }

  // ----- Header

  parseHeader(): void {
    const bytes = this.bytes;
    const length = this.length;
    if (length === 0) {
      throw new WasmParseError("Cannot parse WebAssembly header: file is empty", 0);
    }
    const magic = [0x00, 0x61, 0x73, 0x6d];
    for (let i = 0; i < 4 && i < length; i++) {
      if (bytes[i] !== magic[i]) {
        const seen = Array.from(bytes.subarray(0, 4), hex2).join(" ");
        throw new WasmParseError(
          `Cannot parse WebAssembly header: bad magic number ${seen}, expected 00 61 73 6d ` +
            `("\\0asm")`,
          0,
        );
      }
    }
    if (length < HEADER_SIZE) {
      throw new WasmParseError(
        `Cannot parse WebAssembly header: file is ${length} bytes, needs at least ${HEADER_SIZE}`,
        length,
      );
    }
    const version = new DataView(bytes.buffer, bytes.byteOffset + 4, 4).getUint32(0, true);
    if (version !== 1) {
      const layer = version >>> 16;
      const detail = layer === 1
        ? ` (layer 1, version ${version & 0xffff}: a WebAssembly component, not a core module)`
        : "";
      throw new WasmParseError(
        `Cannot parse WebAssembly header: version is ${hex(version)}${detail}, expected 1`,
        4,
      );
    }
  }

  // ----- Sections

  readSections(): void {
    const length = this.length;
    let pos = HEADER_SIZE;
    while (pos < length) {
      const headerOffset = pos;
      const id = this.bytes[pos]!;
      const kind = SECTION_KINDS[id] ?? "unknown";
      const header = this.cursor(pos + 1, length, "the end of the file");
      let size: number;
      try {
        size = header.u32("the section size");
      } catch (error) {
        if (!(error instanceof WasmParseError)) throw error;
        this.warn(
          `Cannot parse WebAssembly ${sectionLabel(id)} at ${hex(headerOffset)}: ` +
            `${error.message}; the rest of the file is not read`,
        );
        return;
      }
      const offset = header.pos;
      const section: WasmSection = {
        id,
        kind,
        name: id === 0 ? "" : null,
        headerOffset,
        offset,
        size,
        payloadOffset: offset,
        count: null,
      };
      this.sections.push(section);
      let end = offset + size;
      let limit = "the end of the section";
      if (end > length) {
        this.warn(
          `Cannot parse WebAssembly ${sectionLabel(id)} at ${hex(headerOffset)}: declared size ` +
            `${hex(size)} runs past the end of the ${length}-byte file; reading the ` +
            `${length - offset} bytes that fit`,
        );
        end = length;
        limit = "the end of the file";
      }
      this.readSection(section, this.cursor(offset, end, limit));
      pos = end;
    }
  }

  readSection(section: WasmSection, c: Cursor): void {
    const id = section.id;
    const label = `${sectionLabel(id)} at ${hex(section.headerOffset)}`;
    if (id === 0) {
      this.readCustom(section, c);
      return;
    }
    if (section.kind === "unknown") {
      this.warn(`WebAssembly ${label} has an unknown id; skipping its ${c.remaining} bytes`);
      return;
    }
    const earlier = this.seen.get(id);
    if (earlier !== undefined) {
      this.warn(
        `WebAssembly ${label} repeats the one at ${hex(earlier)}; ignoring the repeat`,
      );
      return;
    }
    this.seen.set(id, section.headerOffset);
    const order = SECTION_ORDER.get(id)!;
    if (order < this.lastOrder) {
      this.warn(
        `WebAssembly ${label} comes after ${sectionLabel(this.lastOrderId)}, out of the order ` +
          `the format requires; reading it anyway`,
      );
    } else {
      this.lastOrder = order;
      this.lastOrderId = id;
    }
    try {
      this.readKnown(section, c);
      if (c.remaining > 0) {
        this.warn(
          `WebAssembly ${label} has ${c.remaining} unread byte${
            c.remaining === 1 ? "" : "s"
          } after its contents, at ${hex(c.pos)}`,
        );
      } else {
        this.complete.add(id);
      }
    } catch (error) {
      if (!(error instanceof WasmParseError)) throw error;
      this.warn(
        `Cannot parse WebAssembly ${label}: ${error.message}; the rest of the section is skipped`,
      );
    }
  }

  readKnown(section: WasmSection, c: Cursor): void {
    switch (section.id) {
      case 1:
        this.readTypes(section, c);
        break;
      case 2:
        this.readImports(section, c);
        break;
      case 3: {
        const n = section.count = c.count("functions", 1);
        const base = this.importCounts[0]!;
        for (let i = 0; i < n; i++) {
          this.functions.push({ index: base + i, typeIndex: c.u32(`the type of function ${i}`) });
        }
        break;
      }
      case 4:
        // reftype + limits flags + minimum.
        this.tableCount = section.count = c.count("tables", 3);
        c.pos = c.end;
        break;
      case 5:
        // limits flags + minimum.
        this.memoryCount = section.count = c.count("memories", 2);
        c.pos = c.end;
        break;
      case 6:
        // value type + mutability + `end`.
        this.globalCount = section.count = c.count("globals", 3);
        c.pos = c.end;
        break;
      case 7:
        this.readExports(section, c);
        break;
      case 8:
        this.start = c.u32("the start function index");
        break;
      case 9:
        this.elementCount = section.count = c.count("element segments", 1);
        c.pos = c.end;
        break;
      case 10:
        this.readCode(section, c);
        break;
      case 11:
        this.readData(section, c);
        break;
      case 12:
        this.dataCount = section.count = c.u32("the data count");
        break;
      case 13:
        // attribute + type index.
        this.tagCount = section.count = c.count("tags", 2);
        c.pos = c.end;
        break;
    }
  }

  readTypes(section: WasmSection, c: Cursor): void {
    const n = section.count = c.count("types", 1);
    const types = this.types;
    for (let i = 0; i < n; i++) {
      if (c.peek(`type entry ${i}`) === 0x4e) {
        c.pos++;
        const members = c.count(`types in the recursion group at ${hex(c.pos - 1)}`, 1);
        for (let k = 0; k < members; k++) types.push(readSubType(c, types.length));
      } else {
        types.push(readSubType(c, types.length));
      }
    }
  }

  readImports(section: WasmSection, c: Cursor): void {
    // module name length + field name length + kind + descriptor.
    const n = section.count = c.count("imports", 4);
    const counts = this.importCounts;
    for (let i = 0; i < n; i++) {
      const offset = c.pos;
      const module = c.name(`the module name of import ${i}`);
      const name = c.name(`the field name of import ${i}`);
      const kindAt = c.pos;
      const code = c.u8(`the kind of import ${i}`);
      const kind = EXTERNAL_KINDS[code];
      if (kind === undefined) {
        throw new WasmParseError(
          `import ${i} ("${module}" "${name}") has the unknown kind ${hex2(code)} at ` +
            hex(kindAt),
          kindAt,
        );
      }
      let typeIndex: number | null = null;
      switch (code) {
        case 0:
          typeIndex = c.u32(`the type of import ${i}`);
          break;
        case 1: {
          const type = readValueType(c, `the element type of import ${i}`);
          if (!isReference(type)) {
            throw new WasmParseError(
              `table import ${i} has the element type ${type} at ${hex(kindAt + 1)}, which is ` +
                `not a reference type`,
              kindAt + 1,
            );
          }
          readLimits(c, `the limits of import ${i}`);
          break;
        }
        case 2:
          readLimits(c, `the limits of import ${i}`);
          break;
        case 3:
          readValueType(c, `the type of import ${i}`);
          readMutability(c, `the mutability of import ${i}`);
          break;
        case 4:
          readTagAttribute(c, `the attribute of import ${i}`);
          typeIndex = c.u32(`the type of import ${i}`);
          break;
      }
      this.imports.push({ module, name, kind, index: counts[code]!++, typeIndex, offset });
    }
  }

  readExports(section: WasmSection, c: Cursor): void {
    // name length + kind + index.
    const n = section.count = c.count("exports", 3);
    for (let i = 0; i < n; i++) {
      const name = c.name(`the name of export ${i}`);
      const kindAt = c.pos;
      const code = c.u8(`the kind of export ${i}`);
      const kind = EXTERNAL_KINDS[code];
      if (kind === undefined) {
        throw new WasmParseError(
          `export ${i} ("${name}") has the unknown kind ${hex2(code)} at ${hex(kindAt)}`,
          kindAt,
        );
      }
      this.exports.push({ name, kind, index: c.u32(`the index of export ${i}`) });
    }
  }

  readCode(section: WasmSection, c: Cursor): void {
    // body size + at least one byte of body.
    const n = this.codeCount = section.count = c.count("function bodies", 2);
    const base = this.importCounts[0]!;
    for (let i = 0; i < n; i++) {
      const index = base + i;
      const sizeAt = c.pos;
      const size = c.u32(`the size of function body ${i}`);
      if (size > c.remaining) {
        throw new WasmParseError(
          `function body ${i} (function ${index}) at ${hex(sizeAt)} declares ${size} bytes, ` +
            `but only ${c.remaining} remain before ${c.limit}`,
          sizeAt,
        );
      }
      const offset = c.pos;
      c.pos += size;
      const body = this.cursor(offset, offset + size, `the end of function body ${i}`);
      let localCount: number | null = null;
      try {
        localCount = readLocals(body);
      } catch (error) {
        if (!(error instanceof WasmParseError)) throw error;
        this.warn(
          `Cannot read the locals of function ${index} (body at ${hex(offset)}): ${error.message}`,
        );
      }
      this.bodies.push({ index, offset, size, localCount });
    }
  }

  readData(section: WasmSection, c: Cursor): void {
    // flags + byte count.
    const n = this.dataSectionCount = section.count = c.count("data segments", 2);
    for (let i = 0; i < n; i++) {
      const flagsAt = c.pos;
      const flags = c.u32(`the flags of data segment ${i}`);
      let mode: WasmDataSegment["mode"] = "active";
      let memory: number | null = 0;
      let memoryOffset: bigint | null = null;
      switch (flags) {
        case 0:
          memoryOffset = readConstExpr(c, `the offset expression of data segment ${i}`);
          break;
        case 1:
          mode = "passive";
          memory = null;
          break;
        case 2:
          memory = c.u32(`the memory index of data segment ${i}`);
          memoryOffset = readConstExpr(c, `the offset expression of data segment ${i}`);
          break;
        default:
          throw new WasmParseError(
            `data segment ${i} at ${hex(flagsAt)} has the unknown flags ${flags}`,
            flagsAt,
          );
      }
      const sizeAt = c.pos;
      const size = c.u32(`the size of data segment ${i}`);
      if (size > c.remaining) {
        throw new WasmParseError(
          `data segment ${i} at ${hex(sizeAt)} declares ${size} bytes, but only ${c.remaining} ` +
            `remain before ${c.limit}`,
          sizeAt,
        );
      }
      this.data.push({ index: i, mode, memory, memoryOffset, offset: c.pos, size });
      c.pos += size;
    }
  }

  // ----- Custom sections

  readCustom(section: WasmSection, c: Cursor): void {
    const label = `WebAssembly custom section at ${hex(section.headerOffset)}`;
    let name: string;
    try {
      name = c.name("the custom section name");
    } catch (error) {
      if (!(error instanceof WasmParseError)) throw error;
      this.warn(`Cannot parse the ${label}: ${error.message}`);
      return;
    }
    section.name = name;
    section.payloadOffset = c.pos;
    if (name !== "name" && name !== "producers" && name !== "build_id") return;
    const full = `WebAssembly custom section "${name}" at ${hex(section.headerOffset)}`;
    const earlier = this.seenCustom.get(name);
    if (earlier !== undefined) {
      this.warn(`The ${full} repeats the one at ${hex(earlier)}; ignoring the repeat`);
      return;
    }
    this.seenCustom.set(name, section.headerOffset);
    try {
      if (name === "name") this.readNames(c, full);
      else if (name === "producers") this.readProducers(c);
      else {
        const id = c.byteVector("the build id");
        this.buildId = Array.from(id, hex2).join("");
      }
      if (c.remaining > 0 && name !== "name") {
        this.warn(
          `The ${full} has ${c.remaining} unread byte${
            c.remaining === 1 ? "" : "s"
          } after its contents, at ${hex(c.pos)}`,
        );
      }
    } catch (error) {
      if (!(error instanceof WasmParseError)) throw error;
      this.warn(`Cannot parse the ${full}: ${error.message}; the rest of it is skipped`);
    }
  }

  /**
   * The `name` section: a sequence of subsections (id, size, contents).
   * Damage inside one subsection skips the rest of it; the next one is read.
   */
  readNames(c: Cursor, full: string): void {
    const names: WasmNames = this.names = { module: null, functions: [], locals: [] };
    let last = -1;
    const seen = new Set<number>();
    let budgetWarned = false;
    while (c.remaining > 0) {
      const at = c.pos;
      const id = c.u8("a name subsection id");
      const size = c.u32(`the size of name subsection ${id}`);
      const sub = c.take(size, `name subsection ${id}`, `the end of name subsection ${id}`, at);
      if (seen.has(id)) {
        this.warn(
          `The ${full} repeats name subsection ${id} at ${hex(at)}; ignoring the repeat`,
        );
        continue;
      }
      if (id < last) {
        this.warn(
          `The ${full} has name subsection ${id} at ${hex(at)} after subsection ${last}, out ` +
            `of order; reading it anyway`,
        );
      }
      seen.add(id);
      last = Math.max(last, id);
      if (id > 2) continue;
      try {
        if (id === 0) {
          names.module = sub.name("the module name");
        } else if (id === 1) {
          // index + name length.
          const n = sub.count("function names", 2);
          for (let i = 0; i < n; i++) {
            if (this.nameBudget === 0) {
              budgetWarned = this.warnBudget(full, budgetWarned);
              break;
            }
            this.nameBudget--;
            const index = sub.u32(`the function index of function name ${i}`);
            names.functions.push({ index, name: sub.name(`function name ${i}`) });
          }
        } else {
          // function index + local count.
          const n = sub.count("functions with local names", 2);
          outer: for (let i = 0; i < n; i++) {
            const fn = sub.u32(`the function index of local name group ${i}`);
            const m = sub.count(`local names of function ${fn}`, 2);
            const group: WasmLocalNames = { function: fn, locals: [] };
            names.locals.push(group);
            for (let k = 0; k < m; k++) {
              if (this.nameBudget === 0) {
                budgetWarned = this.warnBudget(full, budgetWarned);
                break outer;
              }
              this.nameBudget--;
              const index = sub.u32(`the index of local name ${k} of function ${fn}`);
              group.locals.push({ index, name: sub.name(`local name ${k} of function ${fn}`) });
            }
          }
        }
        if (sub.remaining > 0 && !budgetWarned) {
          this.warn(
            `The ${full} has ${sub.remaining} unread byte${
              sub.remaining === 1 ? "" : "s"
            } at the end of name subsection ${id}, at ${hex(sub.pos)}`,
          );
        }
      } catch (error) {
        if (!(error instanceof WasmParseError)) throw error;
        this.warn(
          `Cannot parse name subsection ${id} of the ${full}: ${error.message}; the rest of ` +
            `the subsection is skipped`,
        );
      }
    }
  }

  warnBudget(full: string, warned: boolean): boolean {
    if (!warned) {
      this.warn(
        `The ${full} has more names than the maxNames limit of ${this.maxNames}; the rest are ` +
          `skipped`,
      );
    }
    return true;
  }

  readProducers(c: Cursor): void {
    const fields: WasmProducerField[] = this.producers = [];
    // field name length + value count.
    const n = c.count("producer fields", 2);
    for (let i = 0; i < n; i++) {
      const name = c.name(`the name of producer field ${i}`);
      // name length + version length.
      const m = c.count(`values of producer field "${name}"`, 2);
      const field: WasmProducerField = { name, values: [] };
      fields.push(field);
      for (let k = 0; k < m; k++) {
        const value = c.name(`value ${k} of producer field "${name}"`);
        const version = c.name(`the version of value ${k} of producer field "${name}"`);
        field.values.push({ name: value, version });
      }
    }
  }

  // ----- Cross-section checks

  check(): void {
    const complete = this.complete;
    // A section's entries are all known when it was read without damage or is absent.
    const known = (id: number): boolean => complete.has(id) || !this.seen.has(id);
    const importedFunctions = this.importCounts[0]!;
    const functionCount = importedFunctions + this.functions.length;
    const declared = this.functions.length;
    const bodies = this.codeCount ?? 0;
    if (known(3) && (this.codeCount !== null || !this.seen.has(10)) && bodies !== declared) {
      const functions = this.seen.has(3)
        ? `The function section declares ${declared} function${declared === 1 ? "" : "s"}`
        : "There is no function section";
      this.warn(
        `${functions} but the code section declares ${bodies} bod${bodies === 1 ? "y" : "ies"}`,
      );
    }
    if (
      this.dataCount !== null && this.dataSectionCount !== null &&
      this.dataCount !== this.dataSectionCount
    ) {
      this.warn(
        `The data count section says ${this.dataCount} but the data section has ` +
          `${this.dataSectionCount} segments`,
      );
    }
    if (known(1)) {
      const typeCount = this.types.length;
      const bad = this.functions.filter((f) => f.typeIndex >= typeCount).length +
        this.imports.filter((i) => i.typeIndex !== null && i.typeIndex >= typeCount).length;
      if (bad > 0) {
        this.warn(
          `${bad} function${bad === 1 ? "" : "s"} or tag${bad === 1 ? "" : "s"} refer to type ` +
            `indices past the ${typeCount} type${typeCount === 1 ? "" : "s"} of the module`,
        );
      }
    }
    const functionsKnown = known(2) && known(3);
    if (this.start !== null && functionsKnown && this.start >= functionCount) {
      this.warn(
        `The start function is ${this.start}, but the module has only ${functionCount} ` +
          `function${functionCount === 1 ? "" : "s"}`,
      );
    }
    const names = this.names?.functions ?? [];
    if (functionsKnown) {
      const bad = names.filter((n) => n.index >= functionCount).length;
      if (bad > 0) {
        this.warn(
          `${bad} function name${bad === 1 ? "" : "s"} in the name section refer to function ` +
            `indices past the ${functionCount} function${functionCount === 1 ? "" : "s"} of the ` +
            `module`,
        );
      }
    }
    const sizes = [
      functionCount,
      this.importCounts[1]! + this.tableCount,
      this.importCounts[2]! + this.memoryCount,
      this.importCounts[3]! + this.globalCount,
      this.importCounts[4]! + this.tagCount,
    ];
    const definingSection = [3, 4, 5, 6, 13];
    for (const e of this.exports) {
      const k = EXTERNAL_KINDS.indexOf(e.kind);
      const size = sizes[k]!;
      // A damaged import or defining section may have hidden the entity.
      if (e.index < size || !known(2) || !known(definingSection[k]!)) continue;
      this.warn(
        `Export "${e.name}" refers to ${e.kind} ${e.index}, but the module has only ${size} ` +
          `${size === 1 ? e.kind : e.kind === "memory" ? "memories" : `${e.kind}s`}`,
      );
    }
  }
}

// ----- Types

function readSubType(c: Cursor, index: number): WasmType {
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

function readValueType(c: Cursor, what: string): WasmValueType {
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

function isReference(type: WasmValueType): boolean {
  return type.startsWith("(ref") || type.endsWith("ref");
}

function readMutability(c: Cursor, what: string): void {
  const at = c.pos;
  const value = c.u8(what);
  if (value > 1) {
    throw new WasmParseError(`${what} at ${hex(at)} is ${value}, expected 0 or 1`, at);
  }
}

function readTagAttribute(c: Cursor, what: string): void {
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
function readLimits(c: Cursor, what: string): void {
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
function readLocals(c: Cursor): number {
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
function readConstExpr(c: Cursor, what: string): bigint | null {
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

function sectionLabel(id: number): string {
  const kind = SECTION_KINDS[id];
  return kind === undefined ? `section ${id}` : `section ${id} (${kind})`;
}

function hex(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}

function hex2(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}
