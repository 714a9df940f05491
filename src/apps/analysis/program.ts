/**
 * What the analysis knows about one document: procedure lookup by address
 * and name, imports by the address calls go through, the string table, and a
 * bounded reference index built by decoding procedures. The target is
 * immutable while open, so these are computed once and kept with it.
 *
 * @module
 */

import {
  addressToOffset,
  type BinaryImage,
  type ImageFunction,
  type ImageImport,
} from "../image.ts";
import { decodeWithFlow, instructionSetOf } from "./code.ts";
import { type ContainmentBound, ProcedureTable } from "./procedures.ts";
import { scanStrings, type StringTable } from "./strings.ts";

/** Progress and cancellation for long analysis. */
export interface AnalysisControl {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number, message: string) => Promise<void> | void;
}

/** Kinds of reference edges. */
export type EdgeKind = "call" | "jump" | "data";
const KIND_CODE: Record<EdgeKind, number> = { call: 0, jump: 1, data: 2 };
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

/** Default bounds of the reference index. */
export const REFERENCE_INDEX_LIMITS: Readonly<Required<IndexLimits>> = {
  maxInstructions: 4_000_000,
  maxPerProcedure: 20_000,
};

/** Analysis state of one document. */
export class ProgramAnalysis {
  readonly image: BinaryImage;
  #procedures: ProcedureTable | null = null;
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

  /** The procedure table of the document's functions. */
  get procedures(): ProcedureTable {
    this.#procedures ??= new ProcedureTable(this.image.functions);
    return this.#procedures;
  }

  /** The procedure starting exactly at `address`. */
  functionStartingAt(address: bigint): ImageFunction | undefined {
    return this.procedures.functionStartingAt(address);
  }

  /**
   * The procedure containing `address`: the last start at or below it, when
   * the address lies before that procedure's end (its size, or the next start).
   */
  containing(address: bigint): { fn: ImageFunction; bounded: ContainmentBound } | null {
    return this.procedures.containing(address);
  }

  /** Procedures whose name (raw or demangled) equals `name`. */
  functionsNamed(name: string): ImageFunction[] {
    return this.procedures.functionsNamed(name);
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
      maxInstructions: limits.maxInstructions ?? REFERENCE_INDEX_LIMITS.maxInstructions,
      maxPerProcedure: limits.maxPerProcedure ?? REFERENCE_INDEX_LIMITS.maxPerProcedure,
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
    // Compact edges: the procedure's index, the instruction's offset in it, the target, the kind.
    let procedures = new Uint32Array(1024);
    let deltas = new Uint32Array(1024);
    let to = new Float64Array(1024);
    let kinds = new Uint8Array(1024);
    let count = 0;
    const grow = <T extends Float64Array | Uint32Array | Uint8Array>(old: T): T => {
      const next = new (old.constructor as new (n: number) => T)(old.length * 2);
      next.set(old);
      return next;
    };
    const push = (procedure: number, delta: number, target: bigint, kind: EdgeKind): void => {
      if (count === to.length) {
        procedures = grow(procedures);
        deltas = grow(deltas);
        to = grow(to);
        kinds = grow(kinds);
      }
      procedures[count] = procedure;
      deltas[count] = delta;
      to[count] = Number(target);
      kinds[count] = KIND_CODE[kind];
      count++;
    };
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
      const { decoded, flows } = await decodeWithFlow(this.image, fn, {
        maxInstructions: budget,
        maxBytesWhenUnsized: 1 << 20,
        withBytes: false,
      });
      scannedProcedures++;
      scannedInstructions += decoded.instructions.length;
      if (decoded.truncated) complete = false;
      decoded.instructions.forEach((insn, k) => {
        const flow = flows[k]!;
        const delta = Number(insn.address - fn.address);
        if (flow.target !== null) {
          push(i, delta, flow.target, flow.kind === "call" ? "call" : "jump");
        }
        for (const ref of flow.references) push(i, delta, ref, "data");
      });
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
    // Give back the growth headroom, then sort edge indices by target (then source) for lookup.
    procedures = procedures.slice(0, count);
    deltas = deltas.slice(0, count);
    to = to.slice(0, count);
    kinds = kinds.slice(0, count);
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
