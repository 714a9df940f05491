/**
 * What the WebAssembly reader yields: {@linkcode WasmModule} and its parts,
 * and the error thrown for bytes that are not a WebAssembly module. `parse.ts`
 * is the entry point.
 *
 * @module
 */

import { FormatParseError } from "../format_error.ts";

/** Thrown by {@linkcode parseWasm} when the bytes are not a WebAssembly module. */
export class WasmParseError extends FormatParseError {}

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
