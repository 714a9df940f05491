/**
 * Function discovery from the targets of direct calls: for documents without
 * a function table (a stripped executable with no `.eh_frame`, say), a
 * bounded linear sweep of the executable sections; for x64 and ARM64 PE
 * images listed by their `.pdata`, which leaves out leaf functions, a bounded
 * decode of the known functions.
 *
 * @module
 */

import {
  disassemblerFor,
  firstFlowAt,
  flowOf,
  instructionSetOf,
  procedureEnd,
  procedureStretches,
} from "./code.ts";
import {
  addressToOffset,
  type BinaryImage,
  functionParts,
  holdsCode,
  type ImageFunction,
  type ImageSection,
} from "../formats/binary_image.ts";
import type { AnalysisControl } from "./program.ts";
import { upperBound } from "../../core/sorted.ts";

/** Sources that amount to a function table. */
const TABLE_SOURCES = new Set([
  "symtab",
  "pdata",
  "function-starts",
  "eh-frame",
  "arm-exidx",
  "gopclntab",
  "name-section",
  "code-section",
]);

/** Whether a document has no function table and its code can be swept. */
function hasNoTable(image: BinaryImage): boolean {
  return instructionSetOf(image) !== null &&
    !(image.functionTables ?? []).some((source) => TABLE_SOURCES.has(source)) &&
    image.functions.every((fn) => !TABLE_SOURCES.has(fn.source));
}

/**
 * Whether a document is an x64 or ARM64 PE image, whose function table (its
 * `.pdata`) leaves out leaf functions: they need no unwind data, or an i386
 * PE image with a function table (MinGW's `.eh_frame`), which leaves out
 * what was built without unwind tables (see {@linkcode discoverCallTargets}).
 */
function isPe64(image: BinaryImage): boolean {
  const set = instructionSetOf(image);
  return image.format === "pe" &&
    (set === "x86_64" || set === "arm64" || (set === "x86" && !hasNoTable(image)));
}

/**
 * Whether a document's procedures need call-target discovery: it has no
 * function table and its code can be swept, or it is an x64 or ARM64 PE
 * image listed by its `.pdata`, which leaves out leaf functions.
 */
export function needsDiscovery(image: BinaryImage): boolean {
  return hasNoTable(image) || isPe64(image);
}

/** Whether a document lists functions the loader calls (source `startup`). */
export function hasStartupFunctions(image: BinaryImage): boolean {
  return image.functions.some((fn) => fn.source === "startup");
}

/**
 * Whether a document's procedure list is only final once prepared: it needs
 * call-target discovery ({@linkcode needsDiscovery}), or the code of its
 * startup functions may call functions nothing lists
 * ({@linkcode discoverStartupCallees}).
 */
export function needsPreparation(image: BinaryImage): boolean {
  return needsDiscovery(image) || hasStartupFunctions(image);
}

/** Most instructions decoded from one startup function (up to its first return or jump). */
const STARTUP_INSTRUCTIONS = 64;
/** Rounds of {@linkcode discoverStartupCallees}: the startup functions, then what each added. */
const STARTUP_ROUNDS = 4;

/**
 * Functions the loader's startup code reaches that nothing lists: GCC's
 * crtstuff helpers `deregister_tm_clones` and `register_tm_clones` have no
 * FDE and, in a stripped file, no symbol; `__do_global_dtors_aux` calls the
 * one and `frame_dummy` jumps to the other. Decodes each `startup` function
 * from its start to its first return or unconditional jump (at most
 * {@linkcode STARTUP_INSTRUCTIONS} instructions, within its extent) and adds
 * the target of each direct call or unconditional jump that leaves that
 * extent for function code (a PLT is the imports') outside every sized
 * function and part, where nothing starts (source `call-target`, no size);
 * what is added is decoded the same way, for a few rounds. x86, x86-64 and
 * AArch64; returns how many were added (the overview counts them by source;
 * no warning: nothing is guessed).
 */
export async function discoverStartupCallees(
  image: BinaryImage,
  control: AnalysisControl = {},
): Promise<number> {
  const set = instructionSetOf(image);
  if (set !== "x86" && set !== "x86_64" && set !== "arm64") return 0;
  let queue = image.functions.filter((fn) => fn.source === "startup");
  // Nothing to decode: the disassembler is not even loaded.
  if (queue.length === 0) return 0;
  const sections = functionSections(image);
  const inCode = (address: bigint): boolean =>
    sections.some((s) => address >= s.address && address < s.address + BigInt(s.fileSize));
  // Only a handful of targets are looked up: each by a binary search of the sorted functions
  // and their parts, so no set or copy of a large library's 100,000 functions is made here.
  const starts = (address: bigint): boolean =>
    image.functions[upperBound(image.functions, address, (fn) => fn.address) - 1]?.address ===
      address || image.imports.some((i) => i.address === address);
  const insideKnown = (address: bigint): boolean => {
    const functions = image.functions;
    const at = upperBound(functions, address, (fn) => fn.address);
    // Extents do not nest, but may overlap a little in a damaged table: look back a few.
    for (let k = at - 1; k >= 0 && k >= at - 4; k--) {
      const fn = functions[k]!;
      if (fn.size > 0n && address < fn.address + fn.size) return true;
    }
    const parts = functionParts(functions);
    const p = upperBound(parts, address, (part) => part.start);
    for (let k = p - 1; k >= 0 && k >= p - 4; k--) if (address < parts[k]!.end) return true;
    return false;
  };
  const disassembler = await disassemblerFor(set);
  const added: ImageFunction[] = [];
  for (let round = 0; round < STARTUP_ROUNDS && queue.length > 0; round++) {
    const fresh: ImageFunction[] = [];
    for (const fn of queue) {
      if (control.signal?.aborted) throw control.signal.reason ?? new Error("aborted");
      const { end } = procedureEnd(image, fn, 4096);
      const offset = addressToOffset(image, fn.address);
      if (offset === null || end <= fn.address) continue;
      const code = image.bytes.subarray(offset, offset + Number(end - fn.address));
      const instructions = disassembler.disassemble(code, fn.address, STARTUP_INSTRUCTIONS, {
        withBytes: false,
      });
      for (const flow of flowOf(set, instructions)) {
        const target = flow.target;
        if (
          (flow.kind === "call" || flow.kind === "jump") && target !== null &&
          (target < fn.address || target >= end) && inCode(target) && !starts(target) &&
          !insideKnown(target) && !fresh.some((f) => f.address === target)
        ) {
          fresh.push({ address: target, size: 0n, name: "", names: [], source: "call-target" });
        }
        if (flow.kind === "return" || flow.kind === "jump") break;
      }
    }
    if (fresh.length === 0) break;
    // A new list (what was derived from the old one, keyed by it, stays as it was).
    const functions = image.functions.slice();
    for (const fn of fresh) {
      functions.splice(upperBound(functions, fn.address, (f) => f.address), 0, fn);
    }
    image.functions = functions;
    added.push(...fresh);
    queue = fresh;
  }
  return added.length;
}

/** The sections whose code holds functions: with code and file bytes, and no PLT (imports' stubs). */
function functionSections(image: BinaryImage): ImageSection[] {
  return image.sections.filter((s) =>
    holdsCode(s) && s.fileOffset !== null && s.fileSize > 0 && !/\.i?plt/.test(s.name)
  );
}

/** What a sweep found. */
export interface DiscoveryOutcome {
  /** New starts (not already known), sorted. */
  added: number;
  sweptBytes: number;
  executableBytes: number;
  instructions: number;
  /**
   * True when the sweep ended within its bound: every executable byte was
   * swept (a linear sweep), or every known and added function was decoded
   * (a PE image's `.pdata` functions).
   */
  complete: boolean;
}

/** Default instruction bound of a sweep. */
export const DISCOVERY_MAX_INSTRUCTIONS = 4_000_000;

const CHUNK = 1 << 20;

/**
 * Sweeps the executable sections (PLT stubs excepted) and adds every direct
 * call target that lands in executable code and is not an import's address
 * (a Mach-O symbol stub, say) as a function (source `call-target`), in place.
 * Records what it did in `image.warnings`. For an x64 or ARM64 PE image
 * listed by its `.pdata`, decodes the known functions instead and adds the
 * targets that lie outside every one of them (see
 * {@linkcode discoverLeafFunctions}).
 */
export async function discoverCallTargets(
  image: BinaryImage,
  maxInstructions: number = DISCOVERY_MAX_INSTRUCTIONS,
  control: AnalysisControl = {},
): Promise<DiscoveryOutcome> {
  if (!hasNoTable(image) && isPe64(image)) {
    return await discoverLeafFunctions(image, maxInstructions, control);
  }
  const set = instructionSetOf(image);
  if (set === null || set === "arm" || set === "thumb" || set === "wasm") {
    return { added: 0, sweptBytes: 0, executableBytes: 0, instructions: 0, complete: false };
  }
  const sections = functionSections(image);
  const executableBytes = sections.reduce((n, s) => n + s.fileSize, 0);
  const inCode = (address: number): boolean =>
    sections.some((s) => address >= Number(s.address) && address < Number(s.address) + s.fileSize);
  const disassembler = await disassemblerFor(set);
  const targets = new Set<number>();
  let instructions = 0;
  let swept = 0;
  const step = set === "arm64" ? 4 : 1;
  outer: for (const section of sections) {
    let position = 0;
    while (position < section.fileSize) {
      if (instructions >= maxInstructions) break outer;
      if (control.signal?.aborted) throw control.signal.reason ?? new Error("aborted");
      const start = section.fileOffset! + position;
      const chunk = image.bytes.subarray(
        start,
        Math.min(start + CHUNK, section.fileOffset! + section.fileSize),
      );
      const base = Number(section.address) + position;
      const result = disassembler.sweep(
        chunk,
        BigInt(base),
        maxInstructions - instructions,
        (offset, size, bytes) => {
          if (set === "arm64") {
            const word = bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16) | (bytes[3]! << 24);
            if (word >>> 26 === 0x25) { // BL imm26
              const imm = (word << 6) >> 6;
              targets.add(base + offset + imm * 4);
            }
          } else if (size === 5 && bytes[0] === 0xe8) { // CALL rel32
            const rel = bytes[1]! | (bytes[2]! << 8) | (bytes[3]! << 16) | (bytes[4]! << 24);
            const target = base + offset + 5 + rel;
            targets.add(set === "x86" ? target >>> 0 : target);
          }
        },
      );
      instructions += result.count;
      // A byte sequence that is not an instruction: step over it.
      const advance = result.count === 0 ? step : result.bytes;
      position += advance;
      swept += advance;
      await control.onProgress?.(
        swept,
        executableBytes,
        `swept ${swept} of ${executableBytes} executable bytes`,
      );
    }
  }
  const known = new Set(image.functions.map((fn) => Number(fn.address)));
  // A call to an import's stub (a Mach-O symbol stub, say) calls the import, not a procedure.
  for (const imported of image.imports) {
    if (imported.address !== null) known.add(Number(imported.address));
  }
  const added: ImageFunction[] = [];
  for (const target of targets) {
    if (!known.has(target) && inCode(target)) {
      added.push({ address: BigInt(target), size: 0n, name: "", names: [], source: "call-target" });
    }
  }
  const pointers = pointerCandidates(image, set);
  let pointed = 0;
  for (const pointer of pointers ?? []) {
    const target = Number(pointer);
    if (known.has(target) || targets.has(target) || !inCode(target)) continue;
    known.add(target);
    pointed++;
    added.push({ address: pointer, size: 0n, name: "", names: [], source: "code-pointer" });
  }
  image.functions = [...image.functions, ...added].sort((
    a,
    b,
  ) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const complete = swept >= executableBytes;
  image.warnings.push(
    `No function table: ${
      added.length - pointed
    } procedure starts were discovered from direct call targets in a linear sweep of ${swept} of ${executableBytes} executable bytes (${instructions} instructions${
      complete ? "" : `, stopped at the ${maxInstructions}-instruction bound`
    })${pointers ? `, and ${pointed} from ${POINTED}` : ""}; functions reached only indirectly${
      pointers ? " from code" : ""
    } are not listed.`,
  );
  return { added: added.length, sweptBytes: swept, executableBytes, instructions, complete };
}

/** Rounds of {@linkcode discoverLeafFunctions}: the known functions, then what each round added. */
const LEAF_ROUNDS = 4;

/**
 * Call-target discovery for an x64 or ARM64 PE image whose functions come
 * from its `.pdata`: a leaf function (no stack frame, no call) needs no
 * unwind data, so the table leaves it out, and code that calls it calls an
 * address no procedure starts at. Decodes every known function over its
 * extent (its `.pdata` size and parts; an unsized one up to the next start),
 * from its start, so that no data between functions is read as code, and
 * adds each direct call target (`call rel32`, `bl`) that lies in an
 * executable section, outside every sized function and part, and is no
 * known start or import address, as a function (source `call-target`, no
 * size: it runs to the next start). ARM64 words are read as they are; x64
 * code is decoded from each stretch's start up to the last `e8` byte whose
 * rel32 could reach such a target (past it, no call can), so that only calls
 * at instruction boundaries count. What was added is decoded in turn (a few
 * rounds), all within `maxInstructions`. Records what it did in
 * `image.warnings`.
 */
async function discoverLeafFunctions(
  image: BinaryImage,
  maxInstructions: number,
  control: AnalysisControl,
): Promise<DiscoveryOutcome> {
  const set = instructionSetOf(image) as "x86_64" | "arm64" | "x86";
  const sections = image.sections.filter((s) =>
    holdsCode(s) && s.fileOffset !== null && s.fileSize > 0
  );
  const executableBytes = sections.reduce((n, s) => n + s.fileSize, 0);
  const inCode = (address: number): boolean =>
    sections.some((s) => address >= Number(s.address) && address < Number(s.address) + s.fileSize);
  // What the table covers: every sized function and every part, by start.
  const covered: { start: number; end: number }[] = [];
  for (const fn of image.functions) {
    if (fn.size > 0n) {
      covered.push({ start: Number(fn.address), end: Number(fn.address + fn.size) });
    }
  }
  for (const part of functionParts(image.functions)) {
    covered.push({ start: Number(part.start), end: Number(part.end) });
  }
  covered.sort((a, b) => a.start - b.start);
  const insideKnown = (address: number): boolean => {
    const lo = upperBound(covered, address, (c) => c.start);
    // Extents do not nest, but may overlap a little in a damaged table: look back a few.
    for (let k = lo - 1; k >= 0 && k >= lo - 4; k--) {
      if (address < covered[k]!.end) return true;
    }
    return false;
  };
  const imports = new Set<number>();
  // What a thunk may jump through: an import's slot (an IAT slot, or its `slots` when its
  // address is a thunk of its own).
  const slots = new Set<number>();
  for (const imported of image.imports) {
    if (imported.address !== null) imports.add(Number(imported.address));
    for (
      const at of [
        ...(imported.slots ?? []),
        ...(imported.address === null ? [] : [imported.address]),
      ]
    ) {
      slots.add(Number(at));
    }
  }
  const known = new Set([...image.functions.map((fn) => Number(fn.address)), ...imports]);
  const disassembler = await disassemblerFor(set);
  const thunked = new Set<number>();
  const total = image.functions.reduce((n, fn) => n + Number(fn.size), 0);
  let instructions = 0;
  let swept = 0;
  let bounded = false;
  let rounds = 0;
  const added: ImageFunction[] = [];
  const couldBeNew = (target: number): boolean =>
    !known.has(target) && !thunked.has(target) && inCode(target) && !insideKnown(target);
  // Code that data points at (vtables, function tables) and no function covers is a function
  // reached only through those pointers; its calls are looked for in the rounds, as the known ones'.
  const pointed: ImageFunction[] = [];
  for (const pointer of pointerCandidates(image, set) ?? []) {
    const target = Number(pointer);
    if (!couldBeNew(target)) continue;
    if (await jumpsToKnown(image, set, target, known, slots)) {
      thunked.add(target);
      continue;
    }
    known.add(target);
    pointed.push({ address: pointer, size: 0n, name: "", names: [], source: "code-pointer" });
  }
  if (pointed.length > 0) {
    added.push(...pointed);
    image.functions = [...image.functions, ...pointed].sort(byAddress);
  }
  let queue: readonly ImageFunction[] = image.functions;
  while (queue.length > 0 && rounds < LEAF_ROUNDS && !bounded) {
    rounds++;
    const found = new Set<number>();
    for (const fn of queue) {
      if (control.signal?.aborted) throw control.signal.reason ?? new Error("aborted");
      const { end } = procedureEnd(image, fn, 1 << 16);
      for (const stretch of procedureStretches(fn, end)) {
        const offset = addressToOffset(image, stretch.start);
        if (offset === null) continue;
        const code = image.bytes.subarray(offset, offset + Number(stretch.end - stretch.start));
        const start = Number(stretch.start);
        if (set === "arm64") {
          // Fixed-width instructions: every word from the start is one.
          const words = Math.min(code.length >> 2, maxInstructions - instructions);
          for (let k = 0; k < words; k++) {
            const target = directCallTarget(set, start + 4 * k, 4, code.subarray(4 * k));
            if (target !== null) found.add(target);
          }
          instructions += words;
          swept += 4 * words;
          if (words < code.length >> 2) bounded = true;
        } else {
          // Decode only up to the last `e8` whose rel32 could reach a function not yet known:
          // the decode from the start tells which of them are calls.
          let last = -1;
          for (
            let p = code.indexOf(0xe8);
            p !== -1 && p + 5 <= code.length;
            p = code.indexOf(0xe8, p + 1)
          ) {
            const target = start + p + 5 + rel32(code, p + 1);
            if (couldBeNew(set === "x86" ? target >>> 0 : target)) last = p;
          }
          let position = 0;
          while (position < last + 5) {
            if (instructions >= maxInstructions) {
              bounded = true;
              break;
            }
            const base = start + position;
            const result = disassembler.sweep(
              code.subarray(position, last + 5),
              BigInt(base),
              maxInstructions - instructions,
              (at, size, bytes) => {
                const target = directCallTarget(set, base + at, size, bytes);
                if (target !== null) found.add(target);
              },
            );
            instructions += result.count;
            // A byte sequence that is not an instruction: step over it.
            const advance = result.count === 0 ? 1 : result.bytes;
            position += advance;
            swept += advance;
          }
        }
        if (bounded) break;
      }
      if (bounded) break;
    }
    const fresh: ImageFunction[] = [];
    for (const target of found) {
      if (!couldBeNew(target)) continue;
      // A thunk (a jump through an import's slot, or to a known function) is no procedure:
      // the reference scan reads a call to it as a call to what it jumps to.
      if (await jumpsToKnown(image, set, target, known, slots)) {
        thunked.add(target);
        continue;
      }
      known.add(target);
      fresh.push({ address: BigInt(target), size: 0n, name: "", names: [], source: "call-target" });
    }
    if (fresh.length > 0) {
      added.push(...fresh);
      image.functions = [...image.functions, ...fresh].sort(byAddress);
    }
    queue = fresh;
    await control.onProgress?.(
      Math.min(swept, total),
      Math.max(total, 1),
      `decoded ${swept} bytes of known functions for call targets`,
    );
  }
  const left = queue.length > 0;
  image.warnings.push(
    `${
      set === "x86"
        ? "Code built without unwind tables has no .eh_frame entry"
        : "Leaf functions need no .pdata entry"
    }: ${
      added.length - pointed.length
    } procedure starts were added from direct call targets that lie outside every ${
      set === "x86" ? ".eh_frame" : ".pdata"
    } function, found by decoding the known functions from their starts${
      set === "x86" ? "" : `, and ${pointed.length} from ${POINTED} and no function covers`
    } (${swept} bytes, ${instructions} instructions${
      bounded
        ? `, stopped at the ${maxInstructions}-instruction bound`
        : left
        ? `; the ${queue.length} added in the last of ${LEAF_ROUNDS} rounds were not decoded in turn`
        : ""
    }); functions reached only indirectly${
      set === "x86" ? "" : " from code"
    } or from code outside every known function are not listed${
      thunked.size > 0
        ? `, nor ${thunked.size} thunks (targets whose first instruction jumps through an import's slot or to a known procedure: a call to one is a call to what it jumps to)`
        : ""
    }.`,
  );
  return {
    added: added.length,
    sweptBytes: swept,
    executableBytes,
    instructions,
    complete: !bounded && !left,
  };
}

/**
 * Whether the first instruction at `address` is a jump through an import's
 * slot (`slots`), or a direct jump to a known start or import (`known`): a
 * thunk, as the reference scan resolves them.
 */
async function jumpsToKnown(
  image: BinaryImage,
  set: "x86_64" | "arm64" | "x86",
  address: number,
  known: ReadonlySet<number>,
  slots: ReadonlySet<number>,
): Promise<boolean> {
  const flow = await firstFlowAt(image, set, BigInt(address));
  if (flow?.kind !== "jump") return false;
  if (flow.target !== null) return known.has(Number(flow.target));
  return flow.references.some((ref) => slots.has(Number(ref)));
}

/** The target of a direct call (`call rel32`, `bl imm26`) of `size` bytes at `address`, or null. */
function directCallTarget(
  set: "x86_64" | "arm64" | "x86",
  address: number,
  size: number,
  bytes: Uint8Array,
): number | null {
  if (set === "arm64") {
    const word = bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16) | (bytes[3]! << 24);
    return word >>> 26 === 0x25 ? address + ((word << 6) >> 6) * 4 : null;
  }
  if (size !== 5 || bytes[0] !== 0xe8) return null;
  const target = address + 5 + rel32(bytes, 1);
  return set === "x86" ? target >>> 0 : target;
}

/** The signed little-endian 32-bit value at `at`. */
function rel32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

/** Where procedures found through code pointers come from, as the warnings say. */
const POINTED =
  "code addresses that base-relocated data outside code holds (vtables, function tables)";

/**
 * The code addresses a 64-bit image's base-relocated data holds that may
 * start functions (not padding), or null when the image gives none. Not in
 * 32-bit code: there switch tables hold relocated case labels too; a 64-bit
 * image's hold offsets.
 */
function pointerCandidates(image: BinaryImage, set: string): bigint[] | null {
  const pointers = image.codePointers ?? [];
  if (image.bits !== 64 || pointers.length === 0) return null;
  return pointers.filter((pointer) => !atPadding(image, set, pointer));
}

/**
 * Whether the code at `address` is padding between functions: `int3` on x86,
 * a zero word (`udf #0`) on ARM64. Data can point there (Go's module data
 * holds the end of its text), but no function starts with it.
 */
function atPadding(image: BinaryImage, set: string, address: bigint): boolean {
  const offset = addressToOffset(image, address);
  if (offset === null) return true;
  if (set === "arm64") {
    return offset + 4 > image.bytes.length ||
      (image.bytes[offset]! | image.bytes[offset + 1]! | image.bytes[offset + 2]! |
          image.bytes[offset + 3]!) === 0;
  }
  return image.bytes[offset] === 0xcc;
}

function byAddress(a: ImageFunction, b: ImageFunction): number {
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
}
