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
 * `wasmImage` (in `image.ts`) adapts a module to the format-neutral
 * `BinaryImage`, using file offsets as addresses.
 *
 * The reading is split in this folder: `model.ts` (what a parse yields),
 * `cursor.ts` (bounded reads), `types.ts` (types and constant expressions);
 * `image.ts` adapts the result to `BinaryImage`.
 *
 * @module
 */

import { Cursor, hex, hex2, type Utf8Stats } from "./cursor.ts";
import {
  type ParseWasmOptions,
  type WasmDataSegment,
  type WasmExport,
  type WasmExternalKind,
  type WasmFunction,
  type WasmFunctionBody,
  type WasmImport,
  type WasmLocalNames,
  type WasmModule,
  type WasmNames,
  WasmParseError,
  type WasmProducerField,
  type WasmSection,
  type WasmSectionKind,
  type WasmType,
} from "./model.ts";
import {
  isReference,
  readConstExpr,
  readLimits,
  readLocals,
  readMutability,
  readSubType,
  readTagAttribute,
  readValueType,
} from "./types.ts";

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

/** Which sections were read to the end without damage (their contents are complete). */
type Complete = Set<number>;

/**
 * The sections read only for their entry count: what they hold, the fewest
 * bytes an entry takes, and the count it sets.
 */
const COUNTED_SECTIONS: ReadonlyMap<number, {
  what: string;
  minBytes: number;
  field: "tableCount" | "memoryCount" | "globalCount" | "elementCount" | "tagCount";
}> = new Map([
  // reftype + limits flags + minimum.
  [4, { what: "tables", minBytes: 3, field: "tableCount" }],
  // limits flags + minimum.
  [5, { what: "memories", minBytes: 2, field: "memoryCount" }],
  // value type + mutability + `end`.
  [6, { what: "globals", minBytes: 3, field: "globalCount" }],
  [9, { what: "element segments", minBytes: 1, field: "elementCount" }],
  // attribute + type index.
  [13, { what: "tags", minBytes: 2, field: "tagCount" }],
]);

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
    const counted = COUNTED_SECTIONS.get(section.id);
    if (counted) {
      this[counted.field] = section.count = c.count(counted.what, counted.minBytes);
      c.pos = c.end;
      return;
    }
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
      case 7:
        this.readExports(section, c);
        break;
      case 8:
        this.start = c.u32("the start function index");
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

function sectionLabel(id: number): string {
  const kind = SECTION_KINDS[id];
  return kind === undefined ? `section ${id}` : `section ${id} (${kind})`;
}
