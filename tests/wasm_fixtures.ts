/**
 * A small WebAssembly module writer for the tests of `src/apps/formats/wasm/`:
 * LEB128 encoders (optionally padded, as the Go toolchain writes them), a
 * byte builder, a section assembler that records where every section landed,
 * and {@linkcode standardModule}, a valid module exercising every kind of
 * import and export, a start function, element and data segments and the
 * `name`, `producers` and `build_id` custom sections, together with the
 * offsets the writer itself recorded for it.
 *
 * @module
 */

/** Unsigned LEB128 of `value`, padded with continuation bytes to `width` bytes when given. */
export function uleb(value: number | bigint, width = 0): number[] {
  let v = BigInt(value);
  if (v < 0n) throw new RangeError(`uleb of negative ${v}`);
  const out: number[] = [];
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v === 0n ? b : b | 0x80);
  } while (v !== 0n);
  while (out.length < width) {
    out[out.length - 1]! |= 0x80;
    out.push(0);
  }
  return out;
}

/** Signed LEB128 of `value`, in the fewest bytes. */
export function sleb(value: number | bigint): number[] {
  let v = BigInt(value);
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0);
    out.push(done ? b : b | 0x80);
    if (done) return out;
  }
}

const encoder = new TextEncoder();

/** An append-only byte builder. */
export class Bytes {
  readonly out: number[] = [];

  get length(): number {
    return this.out.length;
  }

  byte(...values: number[]): this {
    for (const v of values) this.out.push(v & 0xff);
    return this;
  }

  raw(data: ArrayLike<number>): this {
    for (let i = 0; i < data.length; i++) this.out.push(data[i]! & 0xff);
    return this;
  }

  u32(value: number, width = 0): this {
    return this.raw(uleb(value, width));
  }

  s32(value: number | bigint): this {
    return this.raw(sleb(value));
  }

  /** A length-prefixed UTF-8 name. */
  name(text: string): this {
    const data = encoder.encode(text);
    return this.u32(data.length).raw(data);
  }

  vec<T>(items: readonly T[], write: (w: this, item: T) => void): this {
    this.u32(items.length);
    for (const item of items) write(this, item);
    return this;
  }

  toBytes(): Uint8Array {
    return Uint8Array.from(this.out);
  }
}

/** Where the writer put a section. */
export interface SectionLayout {
  id: number;
  /** Custom section name, else null. */
  name: string | null;
  headerOffset: number;
  /** Offset of the contents. */
  offset: number;
  size: number;
  /** Offset of the payload after a custom section's name (else `offset`). */
  payloadOffset: number;
}

/** Assembles `\0asm` version 1 and sections, recording each section's layout. */
export class ModuleWriter {
  readonly #parts: { id: number; name: string | null; payload: number[]; width: number }[] = [];

  /** Adds a section; `width` pads its size LEB128 to that many bytes. */
  section(id: number, payload: Bytes | ArrayLike<number>, width = 0): this {
    const bytes = payload instanceof Bytes ? payload.out : Array.from(payload);
    this.#parts.push({ id, name: null, payload: bytes, width });
    return this;
  }

  /** Adds a custom section named `name`. */
  custom(name: string, payload: Bytes | ArrayLike<number>, width = 0): this {
    const head = new Bytes().name(name);
    const body = payload instanceof Bytes ? payload.out : Array.from(payload);
    this.#parts.push({ id: 0, name, payload: [...head.out, ...body], width });
    return this;
  }

  finish(): { bytes: Uint8Array; sections: SectionLayout[] } {
    const out = new Bytes().byte(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
    const sections: SectionLayout[] = [];
    for (const part of this.#parts) {
      const headerOffset = out.length;
      out.byte(part.id).u32(part.payload.length, part.width);
      const offset = out.length;
      out.raw(part.payload);
      const payloadOffset = part.name === null
        ? offset
        : offset + new Bytes().name(part.name).length;
      sections.push({
        id: part.id,
        name: part.name,
        headerOffset,
        offset,
        size: part.payload.length,
        payloadOffset,
      });
    }
    return { bytes: out.toBytes(), sections };
  }
}

// Value types.
export const I32 = 0x7f;
export const I64 = 0x7e;
export const F32 = 0x7d;
export const F64 = 0x7c;
export const V128 = 0x7b;
export const FUNCREF = 0x70;
export const EXTERNREF = 0x6f;

/** A function signature entry of the type section. */
export function funcType(w: Bytes, params: number[], results: number[]): void {
  w.byte(0x60).vec(params, (b, t) => b.byte(t)).vec(results, (b, t) => b.byte(t));
}

/** One function body: local declarations (count, type) and instructions (without `end`). */
export interface BodySpec {
  locals: [number, number][];
  code: number[];
}

/** A code section payload, with each body's offset (relative to the payload) and size. */
export function codeSection(
  bodies: readonly BodySpec[],
  sizeWidth = 0,
): { payload: Bytes; bodies: { offset: number; size: number }[] } {
  const payload = new Bytes().u32(bodies.length, sizeWidth);
  const layout: { offset: number; size: number }[] = [];
  for (const spec of bodies) {
    const body = new Bytes()
      .vec(spec.locals, (b, [n, t]) => b.u32(n).byte(t))
      .raw(spec.code)
      .byte(0x0b);
    payload.u32(body.length, sizeWidth);
    layout.push({ offset: payload.length, size: body.length });
    payload.raw(body.out);
  }
  return { payload, bodies: layout };
}

/** What {@linkcode standardModule} wrote, and where. */
export interface StandardModule {
  bytes: Uint8Array;
  sections: SectionLayout[];
  /** Function index, file offset, size and local count of each body. */
  bodies: { index: number; offset: number; size: number; localCount: number }[];
  /** File offset and size of each data segment's bytes. */
  data: { offset: number; size: number }[];
}

/** Options for {@linkcode standardModule}. */
export interface StandardOptions {
  /** Pad every section size and the code section's counts and body sizes to this many bytes. */
  padding?: number;
  /** Re-export the imported function `env.log` as `log_again` (LLVM 14 rejects that). */
  exportedImport?: boolean;
}

/**
 * A valid module with:
 *
 * - types: 0 `() -> ()`, 1 `(i32 i32) -> i32`, 2 `(i64) -> (f32 f64)`,
 *   3 `(i32) -> ()`, 4 `(v128 externref) -> (funcref)`;
 * - imports: func `env.log` (type 3), table `env.table`, memory
 *   `env.memory`, global `env.g`, tag `env.oops` (type 3), func
 *   `js glue.add` (type 1) — so functions 0 and 1 are imported;
 * - defined functions 2 (type 0, the start function), 3 (type 1, three
 *   locals in two groups), 4 (type 2, one local), 5 (type 0), 6 (type 1),
 *   7 (type 4);
 * - a table, two globals, an element segment, a data count section;
 * - exports `add_twice` and `add_twice_alias` (3), `multi` (4),
 *   `exported_only` (6), [`log_again` (0, an import)], `mem`, `tbl`,
 *   `counter`, `oops`, `refs` (7);
 * - data segments: active at 16 (`hello`), passive (3 bytes), active in
 *   memory 0 by index at 1024 (`xyz`);
 * - a `name` section: module `synthetic`, functions 0 `log`, 2 `start`,
 *   3 `add_twice`, 4 `multi_value`, locals of 3 (`a`, `b`, `sum`) and 4 (`x`);
 * - `producers`, `build_id` (`deadbeef0102`) and an unrelated custom section.
 */
export function standardModule(options: StandardOptions = {}): StandardModule {
  const pad = options.padding ?? 0;
  const exportedImport = options.exportedImport ?? true;
  const m = new ModuleWriter();

  const types = new Bytes().u32(5);
  funcType(types, [], []);
  funcType(types, [I32, I32], [I32]);
  funcType(types, [I64], [F32, F64]);
  funcType(types, [I32], []);
  funcType(types, [V128, EXTERNREF], [FUNCREF]);
  m.section(1, types, pad);

  const imports = new Bytes().u32(6);
  imports.name("env").name("log").byte(0x00).u32(3);
  imports.name("env").name("table").byte(0x01, FUNCREF, 0x01).u32(1).u32(10);
  imports.name("env").name("memory").byte(0x02, 0x00).u32(1);
  imports.name("env").name("g").byte(0x03, I32, 0x00);
  imports.name("env").name("oops").byte(0x04, 0x00).u32(3);
  imports.name("js glue").name("add").byte(0x00).u32(1);
  m.section(2, imports, pad);

  const functionTypes = [0, 1, 2, 0, 1, 4];
  m.section(3, new Bytes().vec(functionTypes, (b, t) => b.u32(t)), pad);
  m.section(4, new Bytes().u32(1).byte(FUNCREF, 0x00).u32(2), pad);
  const globals = new Bytes().u32(2);
  globals.byte(I32, 0x01, 0x41).s32(42).byte(0x0b);
  globals.byte(I64, 0x00, 0x42).s32(-5).byte(0x0b);
  m.section(6, globals, pad);

  const exports: [string, number, number][] = [
    ["add_twice", 0, 3],
    ["add_twice_alias", 0, 3],
    ["multi", 0, 4],
    ["exported_only", 0, 6],
    ...(exportedImport ? [["log_again", 0, 0] as [string, number, number]] : []),
    ["mem", 2, 0],
    ["tbl", 1, 1],
    ["counter", 3, 1],
    ["oops", 4, 0],
    ["refs", 0, 7],
  ];
  m.section(
    7,
    new Bytes().vec(exports, (b, [name, kind, index]) => b.name(name).byte(kind).u32(index)),
    pad,
  );
  m.section(8, new Bytes().u32(2), pad);
  // Element segment: active in table 0 at offset 0, function 3.
  m.section(
    9,
    new Bytes().u32(1).u32(0).byte(0x41).s32(0).byte(0x0b).vec([3], (b, f) => b.u32(f)),
    pad,
  );
  m.section(12, new Bytes().u32(3), pad);

  const bodies: BodySpec[] = [
    { locals: [], code: [0x01] }, // nop
    {
      // local.get 0, local.get 1, i32.add, local.tee 2, local.get 2, call 1
      locals: [[2, I32], [1, I64]],
      code: [0x20, 0x00, 0x20, 0x01, 0x6a, 0x22, 0x02, 0x20, 0x02, 0x10, 0x01],
    },
    {
      // f32.const 1, f64.const 2
      locals: [[1, F64]],
      code: [0x43, 0x00, 0x00, 0x80, 0x3f, 0x44, 0, 0, 0, 0, 0, 0, 0, 0x40],
    },
    { locals: [], code: [] },
    { locals: [], code: [0x20, 0x00] }, // local.get 0
    { locals: [], code: [0xd2, 0x03] }, // ref.func 3
  ];
  const code = codeSection(bodies, pad);
  m.section(10, code.payload, pad);

  const data = new Bytes().u32(3);
  const dataRelative: { offset: number; size: number }[] = [];
  const segment = (prefix: number[], bytes: number[]): void => {
    data.raw(prefix).u32(bytes.length);
    dataRelative.push({ offset: data.length, size: bytes.length });
    data.raw(bytes);
  };
  segment([0x00, 0x41, 16, 0x0b], [...encoder.encode("hello")]);
  segment([0x01], [1, 2, 3]);
  segment([0x02, 0x00, 0x41, ...sleb(1024), 0x0b], [...encoder.encode("xyz")]);
  m.section(11, data, pad);

  const names = new Bytes();
  const sub = (id: number, build: (w: Bytes) => void): void => {
    const w = new Bytes();
    build(w);
    names.byte(id).u32(w.length).raw(w.out);
  };
  sub(0, (w) => w.name("synthetic"));
  sub(1, (w) =>
    w.vec(
      [[0, "log"], [2, "start"], [3, "add_twice"], [4, "multi_value"]] as [number, string][],
      (b, [i, n]) => b.u32(i).name(n),
    ));
  sub(2, (w) =>
    w.vec(
      [[3, [[0, "a"], [1, "b"], [2, "sum"]]], [4, [[1, "x"]]]] as [number, [number, string][]][],
      (b, [f, locals]) => b.u32(f).vec(locals, (c, [i, n]) => c.u32(i).name(n)),
    ));
  m.custom("name", names, pad);

  const producers = new Bytes().u32(2);
  producers.name("language").vec([["TypeScript", "6.0"]], (b, [n, v]) => b.name(n!).name(v!));
  producers.name("processed-by").vec(
    [["casefile-test", "1.0"], ["hand", ""]],
    (b, [n, v]) => b.name(n!).name(v!),
  );
  m.custom("producers", producers, pad);
  m.custom(
    "build_id",
    new Bytes().vec([0xde, 0xad, 0xbe, 0xef, 0x01, 0x02], (b, x) => b.byte(x)),
    pad,
  );
  m.custom("casefile.note", [1, 2, 3, 4], pad);

  const { bytes, sections } = m.finish();
  const codeOffset = sections.find((s) => s.id === 10)!.offset;
  const dataOffset = sections.find((s) => s.id === 11)!.offset;
  return {
    bytes,
    sections,
    bodies: code.bodies.map((b, i) => ({
      index: 2 + i,
      offset: codeOffset + b.offset,
      size: b.size,
      localCount: bodies[i]!.locals.reduce((sum, [n]) => sum + n, 0),
    })),
    data: dataRelative.map((d) => ({ offset: dataOffset + d.offset, size: d.size })),
  };
}
