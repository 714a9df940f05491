/**
 * What the analysis knows about one document: procedure lookup by address
 * and name, imports by the address calls go through, the string table, and a
 * bounded reference index built by decoding procedures. The target is
 * immutable while open, so these are computed once and kept with it.
 *
 * @module
 */

import { demangle } from "../disasm/demangle.ts";
import {
  addressToOffset,
  type BinaryImage,
  type ImageFunction,
  type ImageImport,
} from "../image.ts";
import {
  flowCandidates,
  flowOf,
  instructionSetOf,
  nextFunctionStart,
  scanProcedure,
} from "./code.ts";
import { scanStrings, type StringTable } from "./strings.ts";

/** Progress and cancellation for long analysis. */
export interface AnalysisControl {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number, message: string) => Promise<void> | void;
}

/** Kinds of reference edges. */
export type EdgeKind = "call" | "jump" | "data";
const CODE_KIND: EdgeKind[] = ["call", "jump", "data"];

/** One reference: an instruction at `from` (inside procedure `procedure`) names `to`. */
export interface Reference {
  from: bigint;
  procedure: bigint;
  to: bigint;
  kind: EdgeKind;
}

/** The references found by decoding procedures, sorted by target. */
export interface ReferenceIndex {
  /** Procedures decoded / procedures known. */
  scannedProcedures: number;
  totalProcedures: number;
  scannedInstructions: number;
  /** True only when every procedure was decoded to its end within the bounds. */
  complete: boolean;
  /** Why it is not complete, when it is not. */
  limitations: string[];
  count: number;
  /** References to `address` (all of them; the index is in memory). */
  to(address: bigint): Reference[];
}

/** Bounds of the reference index. */
export interface IndexLimits {
  /** Most instructions decoded in all. @default 4,000,000 */
  maxInstructions?: number;
  /** Most instructions per procedure. @default 20,000 */
  maxPerProcedure?: number;
}

/** Analysis state of one document. */
export class ProgramAnalysis {
  readonly image: BinaryImage;
  #byName: Map<string, ImageFunction[]> | null = null;
  #importsByAddress: Map<bigint, ImageImport> | null = null;
  #strings: Promise<StringTable> | null = null;
  #index: Promise<ReferenceIndex> | null = null;
  #indexLimits: Required<IndexLimits> | null = null;

  constructor(image: BinaryImage) {
    this.image = image;
  }

  /** Whether instructions of this document can be decoded. */
  get decodable(): boolean {
    return instructionSetOf(this.image) !== null;
  }

  /** The procedure starting exactly at `address`. */
  functionStartingAt(address: bigint): ImageFunction | undefined {
    const functions = this.image.functions;
    let lo = 0;
    let hi = functions.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const fn = functions[mid]!;
      if (fn.address === address) return fn;
      if (fn.address < address) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /**
   * The procedure containing `address`: the last start at or below it, when
   * the address lies before that procedure's end (its size, or the next start).
   */
  containing(address: bigint): { fn: ImageFunction; bounded: "size" | "next-start" } | null {
    const functions = this.image.functions;
    let lo = 0;
    let hi = functions.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (functions[mid]!.address <= address) lo = mid + 1;
      else hi = mid;
    }
    const fn = functions[lo - 1];
    if (!fn) return null;
    if (fn.size > 0n) return address < fn.address + fn.size ? { fn, bounded: "size" } : null;
    const next = nextFunctionStart(functions, fn.address);
    if (next !== null && address >= next) return null;
    return { fn, bounded: "next-start" };
  }

  /** Procedures whose name (raw or demangled) equals `name`. */
  functionsNamed(name: string): ImageFunction[] {
    if (!this.#byName) {
      const map = new Map<string, ImageFunction[]>();
      const add = (key: string, fn: ImageFunction): void => {
        const list = map.get(key);
        if (!list) map.set(key, [fn]);
        else if (!list.includes(fn)) list.push(fn);
      };
      for (const fn of this.image.functions) {
        for (const n of fn.names.length > 0 ? fn.names : [fn.name]) {
          if (!n) continue;
          add(n, fn);
          const plain = demangle(n);
          if (plain) add(plain, fn);
        }
      }
      this.#byName = map;
    }
    return this.#byName.get(name) ?? [];
  }

  /** The import a call through `address` (stub or slot) reaches. */
  importAt(address: bigint): ImageImport | undefined {
    if (!this.#importsByAddress) {
      this.#importsByAddress = new Map(
        this.image.imports.filter((i) => i.address !== null).map((i) => [i.address!, i]),
      );
    }
    return this.#importsByAddress.get(address);
  }

  /** The document's strings (scanned once). */
  strings(control: AnalysisControl = {}): Promise<StringTable> {
    this.#strings ??= scanStrings(this.image.bytes, {
      signal: control.signal,
      onProgress: control.onProgress &&
        ((done, total) =>
          control.onProgress!(done, total, `scanned ${done} of ${total} bytes for strings`)),
    });
    this.#strings.catch(() => (this.#strings = null));
    return this.#strings;
  }

  /** The reference index (built once per set of limits; a cancelled build is not kept). */
  references(limits: IndexLimits = {}, control: AnalysisControl = {}): Promise<ReferenceIndex> {
    const wanted = {
      maxInstructions: limits.maxInstructions ?? 4_000_000,
      maxPerProcedure: limits.maxPerProcedure ?? 20_000,
    };
    const same = this.#indexLimits &&
      this.#indexLimits.maxInstructions === wanted.maxInstructions &&
      this.#indexLimits.maxPerProcedure === wanted.maxPerProcedure;
    if (!this.#index || !same) {
      this.#indexLimits = wanted;
      this.#index = this.#buildIndex(wanted, control);
      this.#index.catch(() => {
        this.#index = null;
        this.#indexLimits = null;
      });
    }
    return this.#index;
  }

  async #buildIndex(
    limits: Required<IndexLimits>,
    control: AnalysisControl,
  ): Promise<ReferenceIndex> {
    const functions = this.image.functions;
    const set = instructionSetOf(this.image);
    const limitations: string[] = [];
    const edges = new EdgeBuffer();
    let scannedInstructions = 0;
    let scannedProcedures = 0;
    let complete = set !== null;
    if (set === null) limitations.push(`${this.image.architecture} code is not disassembled.`);
    const report = Math.max(1, Math.floor(functions.length / 50));
    for (let i = 0; set !== null && i < functions.length; i++) {
      if (control.signal?.aborted) throw control.signal.reason ?? new Error("aborted");
      const fn = functions[i]!;
      if (scannedInstructions >= limits.maxInstructions) {
        complete = false;
        limitations.push(
          `The ${limits.maxInstructions}-instruction bound was reached after ${scannedProcedures} of ${functions.length} procedures; references from the rest are unknown.`,
        );
        break;
      }
      if (addressToOffset(this.image, fn.address) === null) continue;
      const budget = Math.min(limits.maxPerProcedure, limits.maxInstructions - scannedInstructions);
      const flowSet = instructionSetOf(this.image, fn.address)!;
      const pages = new Map<string, bigint>();
      const scanned = await scanProcedure(this.image, fn, {
        maxInstructions: budget,
        maxBytesWhenUnsized: 1 << 20,
        withBytes: false,
        select: flowCandidates(flowSet),
      }, (instructions) => {
        const flows = flowOf(flowSet, instructions, pages);
        for (let k = 0; k < instructions.length; k++) {
          const flow = flows[k]!;
          const delta = Number(instructions[k]!.address - fn.address);
          if (flow.target !== null) {
            edges.push(i, delta, flow.target, flow.kind === "call" ? 0 : 1);
          }
          for (const ref of flow.references) edges.push(i, delta, ref, 2);
        }
      });
      scannedProcedures++;
      scannedInstructions += scanned.count;
      if (scanned.truncated) complete = false;
      if (i % report === 0) {
        await control.onProgress?.(
          i,
          functions.length,
          `decoded ${i} of ${functions.length} procedures`,
        );
      }
    }
    if (!complete && !limitations.some((l) => l.includes("bound"))) {
      limitations.push(
        "Some procedures were longer than the per-procedure bound; their later references are unknown.",
      );
    }
    // One exact-size copy of the edges, then edge indices sorted by target (then source).
    const { procedures, deltas, to, kinds, count } = edges.finish();
    const order = new Uint32Array(count);
    for (let i = 0; i < count; i++) order[i] = i;
    const source = (e: number): number => Number(functions[procedures[e]!]!.address) + deltas[e]!;
    order.sort((a, b) => to[a]! - to[b]! || source(a) - source(b));
    return {
      scannedProcedures,
      totalProcedures: functions.length,
      scannedInstructions,
      complete,
      limitations,
      count,
      to: (address) => {
        const key = Number(address);
        let lo = 0;
        let hi = count;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (to[order[mid]!]! < key) lo = mid + 1;
          else hi = mid;
        }
        const found: Reference[] = [];
        for (let i = lo; i < count && to[order[i]!] === key; i++) {
          const e = order[i]!;
          const procedure = functions[procedures[e]!]!.address;
          found.push({
            from: procedure + BigInt(deltas[e]!),
            procedure,
            to: BigInt(to[e]!),
            kind: CODE_KIND[kinds[e]!]!,
          });
        }
        return found;
      },
    };
  }
}

/** Edges per block of an {@linkcode EdgeBuffer}. */
const EDGE_BLOCK = 1 << 16;

/**
 * Reference edges as they are found, in fixed-size typed-array blocks (no
 * per-edge object, and no copy of everything each time the store grows):
 * the procedure's index, the instruction's offset in it, the target, the
 * kind (0 call, 1 jump, 2 data).
 */
class EdgeBuffer {
  #procedures: Uint32Array[] = [];
  #deltas: Uint32Array[] = [];
  #to: Float64Array[] = [];
  #kinds: Uint8Array[] = [];
  /** Edges in the last block. */
  #used = EDGE_BLOCK;
  count = 0;

  push(procedure: number, delta: number, target: bigint, kind: number): void {
    if (this.#used === EDGE_BLOCK) {
      this.#procedures.push(new Uint32Array(EDGE_BLOCK));
      this.#deltas.push(new Uint32Array(EDGE_BLOCK));
      this.#to.push(new Float64Array(EDGE_BLOCK));
      this.#kinds.push(new Uint8Array(EDGE_BLOCK));
      this.#used = 0;
    }
    const block = this.#to.length - 1;
    const at = this.#used++;
    this.#procedures[block]![at] = procedure;
    this.#deltas[block]![at] = delta;
    this.#to[block]![at] = Number(target);
    this.#kinds[block]![at] = kind;
    this.count++;
  }

  /** The edges in exact-size arrays; the blocks are let go one by one as they are copied. */
  finish(): {
    procedures: Uint32Array;
    deltas: Uint32Array;
    to: Float64Array;
    kinds: Uint8Array;
    count: number;
  } {
    const count = this.count;
    const flat = {
      procedures: new Uint32Array(count),
      deltas: new Uint32Array(count),
      to: new Float64Array(count),
      kinds: new Uint8Array(count),
      count,
    };
    const blocks = this.#to.length;
    for (let b = 0; b < blocks; b++) {
      const length = Math.min(EDGE_BLOCK, count - b * EDGE_BLOCK);
      const at = b * EDGE_BLOCK;
      flat.procedures.set(this.#procedures[b]!.subarray(0, length), at);
      flat.deltas.set(this.#deltas[b]!.subarray(0, length), at);
      flat.to.set(this.#to[b]!.subarray(0, length), at);
      flat.kinds.set(this.#kinds[b]!.subarray(0, length), at);
      this.#procedures[b] = this.#deltas[b] = new Uint32Array(0);
      this.#to[b] = new Float64Array(0);
      this.#kinds[b] = new Uint8Array(0);
    }
    return flat;
  }
}
