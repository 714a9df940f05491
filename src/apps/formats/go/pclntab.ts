/**
 * The Go runtime's function table (`pclntab`, the `.gopclntab` section of
 * an ELF file): every Go function's entry, end and name, which the runtime
 * needs for stack traces and therefore keeps when the symbol table is
 * stripped (`go build -ldflags=-s`). Read for the layouts of Go 1.2–1.15,
 * 1.16–1.17, 1.18–1.19 and 1.20 on: a header, then a table of function
 * entries sorted by address, each pointing at a `_func` record whose name
 * offset leads into the table of function names.
 *
 * @module
 */

/** One function the table lists: `[address, end)`. */
export interface GoFunction {
  address: bigint;
  end: bigint;
  name: string;
}

/** A Go function table. */
export interface GoPclntab {
  /** The first Go release writing this layout. */
  version: "1.2" | "1.16" | "1.18" | "1.20";
  /** Bytes per pointer in the binary. */
  pointerSize: 4 | 8;
  /** The functions, sorted by address. */
  functions: GoFunction[];
}

/** A table whose header is Go's but whose contents do not hold together. */
export class GoPclntabError extends Error {
  override name = "GoPclntabError";
}

/** The layouts, by their magic number. */
const LAYOUTS: Readonly<Record<number, GoPclntab["version"]>> = {
  0xfffffffb: "1.2",
  0xfffffffa: "1.16",
  0xfffffff0: "1.18",
  0xfffffff1: "1.20",
};

/** Longest function name read. */
const MAX_NAME_BYTES = 64 * 1024;

const names = new TextDecoder();

/**
 * Reads the function table in `table` (the section's bytes), or null when
 * it does not start with a known Go header. From Go 1.18 on, entries are
 * offsets from the start of the text, which the header records; where the
 * file holds 0 there (a position-independent build, whose loader relocates
 * it, and recent Go releases), `textStart` is taken instead. Throws a
 * {@linkcode GoPclntabError} when a header is there but the table it
 * describes runs out of the section, is out of order, or names nothing.
 */
export function readGoPclntab(
  table: Uint8Array,
  littleEndian: boolean,
  textStart?: bigint,
): GoPclntab | null {
  if (table.length < 16) return null;
  const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
  const version = LAYOUTS[view.getUint32(0, littleEndian)];
  const quantum = view.getUint8(6);
  const pointerSize = view.getUint8(7);
  if (
    version === undefined || view.getUint8(4) !== 0 || view.getUint8(5) !== 0 ||
    (quantum !== 1 && quantum !== 2 && quantum !== 4) || (pointerSize !== 4 && pointerSize !== 8)
  ) {
    return null;
  }
  const inside = (at: number, size: number, what: string): void => {
    if (at < 0 || at + size > table.length) {
      throw new GoPclntabError(
        `Go function table (${version} layout): ${what} at ${at} runs past the table's ${table.length} bytes`,
      );
    }
  };
  const word = (at: number, what: string): bigint => {
    inside(at, pointerSize, what);
    return pointerSize === 8
      ? view.getBigUint64(at, littleEndian)
      : BigInt(view.getUint32(at, littleEndian));
  };
  const offset = (at: number, what: string): number => {
    const value = word(at, what);
    if (value > BigInt(table.length)) {
      throw new GoPclntabError(
        `Go function table (${version} layout): ${what} ${value} lies past the table's ${table.length} bytes`,
      );
    }
    return Number(value);
  };
  const count = offset(8, "the function count");
  // Where the entries, the `_func` records and the names are, and the width of an entry's fields.
  let entries: number;
  let records: number;
  let nameTable: number;
  let field: number;
  let base = 0n;
  const header = (k: number): number => 8 + k * pointerSize;
  if (version === "1.2") {
    entries = header(1);
    records = 0;
    nameTable = 0;
    field = pointerSize;
  } else if (version === "1.16") {
    nameTable = offset(header(2), "the name table's offset");
    entries = records = offset(header(6), "the function entries' offset");
    field = pointerSize;
  } else {
    base = word(header(2), "the text start");
    if (base === 0n && textStart !== undefined) base = textStart;
    nameTable = offset(header(3), "the name table's offset");
    entries = records = offset(header(7), "the function entries' offset");
    field = 4;
  }
  // Entry i is (address, record offset); one more address ends the last function.
  inside(entries, (2 * count + 1) * field, `the ${count} function entries`);
  const entryField = (k: number): bigint =>
    field === 4
      ? BigInt(view.getUint32(entries + k * 4, littleEndian))
      : word(entries + k * field, "an entry");
  const addressOf = (k: number): bigint => base + entryField(2 * k);
  const functions: GoFunction[] = [];
  let address = count > 0 ? addressOf(0) : 0n;
  for (let i = 0; i < count; i++) {
    const end = i + 1 < count ? addressOf(i + 1) : base + entryField(2 * count);
    if (end < address) {
      throw new GoPclntabError(
        `Go function table (${version} layout): function ${i} at 0x${
          address.toString(16)
        } ends before it starts (0x${end.toString(16)})`,
      );
    }
    const record = records + Number(entryField(2 * i + 1));
    // A `_func` record starts with its entry (an offset from the text start from 1.18 on), then
    // the offset of its name.
    const nameAt = record + (version === "1.18" || version === "1.20" ? 4 : pointerSize);
    inside(nameAt, 4, `function ${i}'s record`);
    const name = readName(table, nameTable + view.getInt32(nameAt, littleEndian), i);
    functions.push({ address, end, name });
    address = end;
  }
  return { version, pointerSize, functions };
}

/** The NUL-terminated name at `at`; throws when it is outside the table or unterminated. */
function readName(table: Uint8Array, at: number, index: number): string {
  if (at < 0 || at >= table.length) {
    throw new GoPclntabError(`Go function table: function ${index}'s name lies outside the table`);
  }
  const length = table.subarray(at, at + MAX_NAME_BYTES).indexOf(0);
  if (length < 0) {
    throw new GoPclntabError(`Go function table: function ${index}'s name is not terminated`);
  }
  return names.decode(table.subarray(at, at + length));
}
