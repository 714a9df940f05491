/**
 * What the analysis knows about one document: procedure lookup by address
 * and name, imports by the address calls go through, the string table, and a
 * bounded reference index built by decoding procedures. The target is
 * immutable while open, so these are computed once and kept with it.
 *
 * @module
 */

import { collectGarbageSoon } from "../../core/memory.ts";
import { uncoveredCode } from "./uncovered_code.ts";
import {
  addressToOffset,
  type BinaryImage,
  type ImageFunction,
  type ImageImport,
  type ImageLocalBinding,
} from "../formats/binary_image.ts";
import type { Instruction, InstructionSet } from "../disasm/capstone.ts";
import {
  disassemblerFor,
  firstFlowAt,
  flowCandidates,
  type InstructionFlow,
  instructionSetOf,
  scanProcedure,
} from "./code.ts";
import { type ContainmentBound, ProcedureTable } from "./procedures.ts";
import {
  scanBothEncodings,
  type ScanControl,
  scanStringRuns,
  type StringEncodingName,
  type StringTable,
  stringTableSlice,
} from "./strings.ts";

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

/** Call forms the reference scan could not resolve to a procedure or an import. */
export interface UnresolvedCalls {
  /** Calls through a register or memory whose target is not known statically. */
  indirectCalls: number;
  /** Direct calls to an address that is no known procedure start, import or stub. */
  unknownTargets: number;
  /** Up to {@linkcode UNRESOLVED_SAMPLE} of those call sites, ascending. */
  sample: bigint[];
}

/** Most unresolved call sites a reference index keeps as a sample. */
export const UNRESOLVED_SAMPLE = 20;

/** The references found by decoding procedures, sorted by target. */
export interface ReferenceIndex {
  /** Procedures decoded / procedures known. */
  scannedProcedures: number;
  totalProcedures: number;
  scannedInstructions: number;
  /**
   * True only when every procedure was decoded to its end within the bounds
   * and every call form met was resolved (see `unresolved`).
   */
  complete: boolean;
  /** The calls whose targets stayed unknown. */
  unresolved: UnresolvedCalls;
  /** Why it is not complete, when it is not. */
  limitations: string[];
  count: number;
  /** References to `address` (all of them; the index is in memory). */
  to(address: bigint): Reference[];
  /** References to any address from `start` up to (not including) `end`, by target. */
  within(start: bigint, end: bigint): Reference[];
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
  #localByAddress: Map<bigint, ImageLocalBinding> | null = null;
  /** Thunks found by the reference index: thunk address → what it jumps to. */
  #thunks = new Map<bigint, bigint>();
  #notThunks = new Set<bigint>();
  /** Go's Duff's devices in this image (see {@linkcode duffDevices}), found on first use. */
  #duffDevices: { start: bigint; end: bigint }[] | null = null;
  #strings: Promise<StringTable> | null = null;
  readonly #stringsOf = new Map<StringEncodingName, Promise<StringTable>>();
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
    this.#procedures ??= new ProcedureTable(this.image.functions, this.image);
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

  /** The procedures a versioned name (`memcpy@@GLIBC_2.14`) names. */
  functionsByVersionedName(text: string): ImageFunction[] {
    return this.procedures.functionsByVersionedName(text);
  }

  /** Every versioned spelling of the symbol `name`, with the address it names. */
  versionedNames(name: string): { address: bigint; spelling: string }[] {
    return this.procedures.versionedNames(name);
  }

  /** Procedures whose demangled name without its parameters equals `name` (overloads). */
  functionsByBaseName(name: string): ImageFunction[] {
    return this.procedures.functionsByBaseName(name);
  }

  /** The import a call through `address` (stub or slot) reaches. */
  importAt(address: bigint): ImageImport | undefined {
    if (!this.#importsByAddress) {
      const map = new Map<bigint, ImageImport>();
      for (const i of this.image.imports) {
        for (const at of [...(i.slots ?? []), ...(i.address === null ? [] : [i.address])]) {
          map.set(at, i);
        }
      }
      this.#importsByAddress = map;
    }
    return this.#importsByAddress.get(address);
  }

  /**
   * The image's own function that a call through `address` (a stub or a
   * memory slot relocated against a symbol the image defines) reaches.
   */
  localBindingAt(address: bigint): ImageLocalBinding | undefined {
    if (!this.#localByAddress) {
      const map = new Map<bigint, ImageLocalBinding>();
      for (const b of this.image.localBindings ?? []) {
        for (const at of [...b.slots, ...(b.stub === null ? [] : [b.stub])]) map.set(at, b);
      }
      this.#localByAddress = map;
    }
    return this.#localByAddress.get(address);
  }

  /**
   * Where a call to `address` lands: the function a local stub reaches (or a
   * thunk jumps to), the start of a Go Duff's device entered part-way, else
   * `address` itself.
   */
  callTarget(address: bigint): bigint {
    const local = this.localBindingAt(address);
    if (local !== undefined && local.stub === address) return local.target;
    const thunk = this.#thunks.get(address);
    if (thunk !== undefined) return thunk;
    this.#duffDevices ??= duffDevices(this.image.functions);
    for (const device of this.#duffDevices) {
      if (address > device.start && address < device.end) return device.start;
    }
    return address;
  }

  /**
   * What the thunk at `address` jumps to, when its first instruction is a
   * jump through an import's or local function's slot, or a direct jump to a
   * known procedure or import; null otherwise. Found thunks are remembered, so
   * {@linkcode callTarget} resolves them afterwards.
   */
  async #thunkTarget(set: InstructionSet, address: bigint): Promise<bigint | null> {
    const known = this.#thunks.get(address);
    if (known !== undefined) return known;
    if (this.#notThunks.has(address)) return null;
    let reached: bigint | null = null;
    const flow = await firstFlowAt(this.image, set, address);
    if (flow?.kind === "jump") {
      if (flow.target !== null) {
        const landing = this.callTarget(flow.target);
        if (landing !== address && this.knownCallTarget(landing)) reached = landing;
      } else reached = this.slotTarget(flow.references);
    }
    if (reached === null) this.#notThunks.add(address);
    else this.#thunks.set(address, reached);
    return reached;
  }

  /**
   * The target a call through memory reaches when one of the addresses the
   * instruction reads is a slot of an import (its stub, or the slot when it
   * has none) or of a local binding (the function); null when none is.
   */
  slotTarget(references: readonly bigint[]): bigint | null {
    for (const ref of references) {
      const imported = this.importAt(ref);
      if (imported) return imported.address ?? ref;
      const local = this.localBindingAt(ref);
      if (local && local.stub !== ref) return local.target;
    }
    return null;
  }

  /** Whether a direct call to `address` reaches something known: a procedure, an import or a stub. */
  knownCallTarget(address: bigint): boolean {
    return this.functionStartingAt(address) !== undefined || this.importAt(address) !== undefined ||
      this.localBindingAt(address) !== undefined;
  }

  /**
   * The document's strings of one encoding, or of both (`"any"`: ASCII, then
   * UTF-16LE), each encoding scanned once and only when asked for.
   */
  strings(
    control: AnalysisControl = {},
    encoding: StringEncodingName | "any" = "any",
  ): Promise<StringTable> {
    const scan: ScanControl = {
      signal: control.signal,
      onProgress: control.onProgress &&
        ((done, total) =>
          control.onProgress!(done, total, `scanned ${done} of ${total} bytes for strings`)),
    };
    if (encoding !== "any") return this.#stringRuns(encoding, scan);
    this.#strings ??= (async () => {
      const { table, asciiCount } = await scanBothEncodings(
        this.image.bytes.length,
        scan,
        (one, control) => this.#stringRuns(one, control),
      );
      // Each encoding's table becomes a view of the joined one: the offsets are held once.
      this.#stringsOf.set("ascii", Promise.resolve(stringTableSlice(table, 0, asciiCount)));
      this.#stringsOf.set(
        "utf-16le",
        Promise.resolve(stringTableSlice(table, asciiCount, table.count)),
      );
      return table;
    })();
    this.#strings.catch(() => (this.#strings = null));
    return this.#strings;
  }

  #stringRuns(encoding: StringEncodingName, control: ScanControl): Promise<StringTable> {
    let table = this.#stringsOf.get(encoding);
    if (!table) {
      table = scanStringRuns(this.image.bytes, encoding, control);
      this.#stringsOf.set(encoding, table);
      table.catch(() => this.#stringsOf.delete(encoding));
    }
    return table;
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
      this.#index.then(() => collectGarbageSoon(), () => {
        this.#index = null;
        this.#indexLimits = null;
      });
    }
    return this.#index;
  }

  /**
   * Whether the register a slot's pointer was loaded into still holds it at
   * the call or jump through it: every instruction between the two is
   * decoded, and none writes the register (its first operand), calls, or
   * returns.
   */
  async #registerKept(set: string, c: LoadedCall): Promise<boolean> {
    if (set !== "x86_64" && set !== "x86" && set !== "arm64") return false;
    const start = c.load.address + BigInt(c.load.size);
    const offset = addressToOffset(this.image, start);
    if (offset === null) return false;
    const length = Number(c.use.address - start);
    if (length < 0) return false;
    if (length === 0) return true;
    const disassembler = await disassemblerFor(set);
    const between = disassembler.disassemble(
      this.image.bytes.subarray(offset, offset + length),
      start,
      LOAD_WINDOW,
      { withBytes: false },
    );
    const covered = between.reduce((sum, insn) => sum + insn.size, 0);
    if (covered !== length) return false;
    const register = fullRegister(c.register);
    return between.every((insn) => keepsRegister(insn, register));
  }

  /**
   * For each decoded instruction, the target a call or jump through memory
   * or a register reaches by way of a slot: the slot's import or local
   * function when the instruction reads a slot, or when it goes through a
   * register that a load of a slot filled (within {@linkcode LOAD_WINDOW}
   * bytes, with nothing in between overwriting it); null otherwise.
   */
  slotCallTargets(
    instructions: readonly Instruction[],
    flows: readonly InstructionFlow[],
  ): (bigint | null)[] {
    const loaded = new Map<string, { at: bigint; target: bigint }>();
    return instructions.map((insn, k) => {
      const flow = flows[k]!;
      let reached: bigint | null = null;
      if ((flow.kind === "call" || flow.kind === "jump") && flow.target === null) {
        reached = this.slotTarget(flow.references);
        const register = fullRegister(insn.operands.trim().toLowerCase());
        const load = loaded.get(register);
        if (
          reached === null && load !== undefined &&
          insn.address - load.at <= BigInt(LOAD_WINDOW)
        ) reached = load.target;
      }
      for (const [register] of loaded) {
        if (!keepsRegister(insn, register)) loaded.delete(register);
      }
      const mnemonic = insn.mnemonic.toLowerCase();
      if (flow.kind === "other" && (mnemonic === "mov" || mnemonic === "ldr")) {
        const target = this.slotTarget(flow.references);
        const register = insn.operands.split(",")[0]?.trim().toLowerCase() ?? "";
        if (target !== null && /^[a-z][a-z0-9]*$/.test(register)) {
          loaded.set(fullRegister(register), { at: insn.address, target });
        }
      }
      return reached;
    });
  }

  async #buildIndex(
    limits: Required<IndexLimits>,
    control: AnalysisControl,
  ): Promise<ReferenceIndex> {
    const functions = this.image.functions;
    const set = instructionSetOf(this.image);
    const limitations: string[] = [];
    const edges = new EdgeBuffer();
    const unresolved = new UnresolvedTally();
    const loads = new SlotLoads(set);
    const candidates: LoadedCall[] = [];
    const unknownCalls: { procedure: number; site: bigint; target: bigint }[] = [];
    let scannedInstructions = 0;
    let scannedProcedures = 0;
    let unreadable = 0;
    let cutProcedures = 0;
    let firstCut: bigint | null = null;
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
      // An import's thunk is the import, as a PLT stub is: its jump is no call of the image's.
      if (fn.source === "import-thunk" && this.importAt(fn.address) !== undefined) {
        scannedProcedures++;
        continue;
      }
      if (addressToOffset(this.image, fn.address) === null) {
        // No bytes of the procedure are in the file (a truncated copy, or a start
        // outside every mapped segment): its references are unknown, not absent.
        unreadable++;
        complete = false;
        continue;
      }
      const budget = Math.min(limits.maxPerProcedure, limits.maxInstructions - scannedInstructions);
      const scanned = await scanProcedure(this.image, fn, {
        maxInstructions: budget,
        maxBytesWhenUnsized: 1 << 20,
        withBytes: false,
        select: flowCandidates(instructionSetOf(this.image, fn)!),
      }, (instructions, flows) => {
        for (let k = 0; k < instructions.length; k++) {
          const insn = instructions[k]!;
          const flow = flows[k]!;
          const delta = Number(insn.address - fn.address);
          const kind = flow.kind === "call" ? 0 : 1;
          if (flow.target !== null) {
            edges.push(i, delta, flow.target, kind);
            const landing = this.callTarget(flow.target);
            if (landing !== flow.target) edges.push(i, delta, landing, kind);
            else if (flow.kind === "call" && !this.knownCallTarget(flow.target)) {
              unknownCalls.push({ procedure: i, site: insn.address, target: flow.target });
            }
          } else if (flow.kind === "call" || flow.kind === "jump") {
            const through = this.slotTarget(flow.references);
            if (through !== null) edges.push(i, delta, through, kind);
            else {
              const loaded = loads.take(insn);
              if (loaded !== null) candidates.push({ procedure: i, ...loaded, use: insn, kind });
              else if (flow.kind === "call") unresolved.indirect(insn.address);
            }
          }
          for (const ref of flow.references) {
            edges.push(i, delta, ref, 2);
            if (flow.kind !== "other") continue;
            // Loading a local binding's slot takes its function's address (a call or jump
            // through the slot is the call edge above, not a second reference).
            const local = this.localBindingAt(ref);
            if (local !== undefined && local.stub !== ref) edges.push(i, delta, local.target, 2);
            loads.note(insn, this.slotTarget([ref]));
          }
        }
      });
      loads.clear();
      scannedProcedures++;
      scannedInstructions += scanned.count;
      if (scanned.truncated) {
        complete = false;
        // Cut by the per-procedure bound, not by what was left of the total.
        if (budget === limits.maxPerProcedure) {
          cutProcedures++;
          firstCut ??= fn.address;
        }
      }
      if (i % report === 0) {
        await control.onProgress?.(
          i,
          functions.length,
          `decoded ${i} of ${functions.length} procedures`,
        );
      }
    }
    if (unreadable > 0) {
      limitations.push(
        `${unreadable} procedure(s) start at an address with no bytes in the file (a truncated file, or a start outside every mapped segment); references from them are unknown.`,
      );
    }
    if (cutProcedures > 0) {
      limitations.push(
        `${cutProcedures} procedure(s) were longer than the per-procedure bound of ${limits.maxPerProcedure} instructions (the first at 0x${
          firstCut!.toString(16)
        }); references from their later instructions are unknown.`,
      );
    }
    // A pointer loaded from a slot and then called through its register is a call to
    // the slot's target, when nothing between the two overwrites the register.
    if (set !== null && set !== "wasm") {
      for (const c of candidates) {
        const fn = functions[c.procedure]!;
        if (await this.#registerKept(set, c)) {
          edges.push(c.procedure, Number(c.use.address - fn.address), c.target, c.kind);
        } else if (c.kind === 0) unresolved.indirect(c.use.address);
      }
    }
    // A direct call to a thunk (`jmp [slot]`, `jmp function`) is a call to what it jumps to.
    if (set !== null && set !== "wasm") {
      for (const u of unknownCalls) {
        const reached = await this.#thunkTarget(set, u.target);
        if (reached === null) unresolved.unknown(u.site);
        else {
          const fn = functions[u.procedure]!;
          edges.push(u.procedure, Number(u.site - fn.address), reached, 0);
        }
      }
    }
    // A relocatable object's operands that relocations not applied fill hold placeholders.
    const unrelocated = this.image.unrelocatedSites?.length ?? 0;
    if (set !== null && unrelocated > 0) {
      complete = false;
      limitations.push(
        `${unrelocated} relocation(s) in this object's code were not applied (data references, GOT loads): what those operands name is unknown until the object is linked, so references through them are not listed.`,
      );
    }
    // Code the known procedures do not cover is never decoded: what it calls is unknown.
    const outside = set !== null ? await uncoveredCode(this.image, functions) : null;
    if (outside === null && (set === "arm" || set === "thumb")) {
      complete = false;
      limitations.push(
        `Executable bytes outside every known procedure are not looked for in ${this.image.architecture} code: calls and references from code no procedure covers would not be seen.`,
      );
    }
    if (outside !== null && outside.stretches > 0) {
      complete = false;
      limitations.push(
        `${outside.bytes} byte(s) of code in ${outside.stretches} stretch(es) lie outside every known procedure (the first at 0x${
          outside.first!.toString(16)
        }): calls and references from there are not seen.`,
      );
    }
    const unresolvedCalls = unresolved.result();
    const unresolvedCount = unresolvedCalls.indirectCalls + unresolvedCalls.unknownTargets;
    if (unresolvedCount > 0) {
      complete = false;
      limitations.push(
        `${unresolvedCount} call site(s) stayed unresolved (${unresolvedCalls.indirectCalls} through a register or memory, ${unresolvedCalls.unknownTargets} to an address that is no known procedure or import); callers reached only through them are not listed.`,
      );
    }
    // The edges sorted in place by target, then source, as a stable sort would order them.
    const count = edges.count;
    const starts = new Float64Array(functions.length);
    for (let i = 0; i < functions.length; i++) starts[i] = Number(functions[i]!.address);
    edges.sort(starts);
    const target = (e: number): number => edges.target(e);
    const within = (start: bigint, end: bigint): Reference[] => {
      const key = Number(start);
      const stop = Number(end);
      let lo = 0;
      let hi = count;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (target(mid) < key) lo = mid + 1;
        else hi = mid;
      }
      const found: Reference[] = [];
      for (let e = lo; e < count && target(e) < stop; e++) {
        const procedure = functions[edges.procedure(e)]!.address;
        found.push({
          from: procedure + BigInt(edges.delta(e)),
          procedure,
          to: BigInt(target(e)),
          kind: CODE_KIND[edges.kind(e)]!,
        });
      }
      return found;
    };
    return {
      scannedProcedures,
      totalProcedures: functions.length,
      scannedInstructions,
      complete,
      unresolved: unresolvedCalls,
      limitations,
      count,
      to: (address) => within(address, address + 1n),
      within,
    };
  }
}

/** A load of a slot's pointer into a register, later called or jumped through. */
interface LoadedCall {
  procedure: number;
  load: Instruction;
  register: string;
  target: bigint;
  use: Instruction;
  /** 0 call, 1 jump. */
  kind: number;
}

/** Most bytes between a slot load and the call through its register. */
const LOAD_WINDOW = 64;

/** Counts unresolved call sites and keeps the lowest few. */
class UnresolvedTally {
  #indirect = 0;
  #unknown = 0;
  #sample: bigint[] = [];

  indirect(site: bigint): void {
    this.#indirect++;
    this.#keep(site);
  }

  unknown(site: bigint): void {
    this.#unknown++;
    this.#keep(site);
  }

  #keep(site: bigint): void {
    const sample = this.#sample;
    if (sample.length >= UNRESOLVED_SAMPLE && site >= sample.at(-1)!) return;
    sample.push(site);
    sample.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (sample.length > UNRESOLVED_SAMPLE) sample.pop();
  }

  result(): UnresolvedCalls {
    return { indirectCalls: this.#indirect, unknownTargets: this.#unknown, sample: this.#sample };
  }
}

/**
 * The registers that last received a slot's pointer in the procedure being
 * scanned (x86-64 `mov reg, [rip + slot]`, AArch64 `ldr xN, [xM, #off]`).
 */
class SlotLoads {
  #set: string | null;
  #byRegister = new Map<string, { load: Instruction; register: string; target: bigint }>();

  constructor(set: string | null) {
    this.#set = set;
  }

  /** Records `insn` as loading the pointer to `target` when it is a load into a register. */
  note(insn: Instruction, target: bigint | null): void {
    if (target === null) return;
    const mnemonic = insn.mnemonic.toLowerCase();
    if (mnemonic !== "mov" && mnemonic !== "ldr") return;
    const register = insn.operands.split(",")[0]?.trim().toLowerCase() ?? "";
    if (!/^[a-z][a-z0-9]*$/.test(register)) return;
    this.#byRegister.set(register, { load: insn, register, target });
  }

  /** The load an indirect call or jump `use` goes through, when it names a loaded register. */
  take(use: Instruction): { load: Instruction; register: string; target: bigint } | null {
    if (this.#set === null) return null;
    const register = use.operands.trim().toLowerCase();
    const loaded = this.#byRegister.get(register);
    if (!loaded || use.address - loaded.load.address > BigInt(LOAD_WINDOW)) return null;
    return loaded;
  }

  clear(): void {
    this.#byRegister.clear();
  }
}

/**
 * Whether `insn` leaves `register` (a full register name) as it was: it
 * does not write it (its first operand, unless it only compares), call,
 * return or branch away unconditionally.
 */
function keepsRegister(insn: Instruction, register: string): boolean {
  const mnemonic = insn.mnemonic.toLowerCase();
  if (/^(call|bl|blr|ret|jmp|b|br)$/.test(mnemonic)) return false;
  const operands = insn.operands.toLowerCase().split(",").map((o) => o.trim());
  if (fullRegister(operands[0] ?? "") === register) {
    return /^(cmp|test|cbn?z|tbn?z)$/.test(mnemonic);
  }
  if (mnemonic === "ldp") return fullRegister(operands[1] ?? "") !== register;
  return !/^(xchg|xadd|pop|cpuid|rdtsc|mul|div|cmpxchg|syscall)/.test(mnemonic);
}

/** The 64-bit register an x86 register name is part of (`eax` → `rax`, `r8d` → `r8`). */
function fullRegister(name: string): string {
  const legacy: Record<string, string> = {
    al: "rax",
    ah: "rax",
    ax: "rax",
    eax: "rax",
    bl: "rbx",
    bh: "rbx",
    bx: "rbx",
    ebx: "rbx",
    cl: "rcx",
    ch: "rcx",
    cx: "rcx",
    ecx: "rcx",
    dl: "rdx",
    dh: "rdx",
    dx: "rdx",
    edx: "rdx",
    sil: "rsi",
    si: "rsi",
    esi: "rsi",
    dil: "rdi",
    di: "rdi",
    edi: "rdi",
    bpl: "rbp",
    bp: "rbp",
    ebp: "rbp",
    spl: "rsp",
    sp: "rsp",
    esp: "rsp",
  };
  const extended = /^(r\d+)[dwb]?$/.exec(name);
  if (extended) return extended[1]!;
  const arm = /^[wx](\d+)$/.exec(name);
  if (arm) return `x${arm[1]}`;
  return legacy[name] ?? name;
}

/** Edges per block of an {@linkcode EdgeBuffer}: 2^EDGE_SHIFT. */
const EDGE_SHIFT = 16;
const EDGE_BLOCK = 1 << EDGE_SHIFT;
const EDGE_MASK = EDGE_BLOCK - 1;
const TWO_32 = 2 ** 32;

/**
 * Reference edges as they are found, in fixed-size typed-array blocks (no
 * per-edge object, and no copy of everything each time the store grows,
 * nor at the end):
 * the procedure's index, the instruction's offset in it, the target, the
 * kind (0 call, 1 jump, 2 data).
 */
class EdgeBuffer {
  #procedures: Uint32Array[] = [];
  /** Signed: a procedure's part may lie before its start. */
  #deltas: Int32Array[] = [];
  /** Low 32 bits of each target. */
  #to: Uint32Array[] = [];
  /**
   * High bits of each target, one block per `#to` block, once any target
   * reaches 2^32 (a 64-bit Mach-O executable or PE image lies above it);
   * null while none does.
   */
  #high: Uint32Array[] | null = null;
  #kinds: Uint8Array[] = [];
  /** Edges in the last block. */
  #used = EDGE_BLOCK;
  count = 0;

  push(procedure: number, delta: number, target: bigint, kind: number): void {
    if (this.#used === EDGE_BLOCK) {
      this.#procedures.push(new Uint32Array(EDGE_BLOCK));
      this.#deltas.push(new Int32Array(EDGE_BLOCK));
      this.#to.push(new Uint32Array(EDGE_BLOCK));
      this.#high?.push(new Uint32Array(EDGE_BLOCK));
      this.#kinds.push(new Uint8Array(EDGE_BLOCK));
      this.#used = 0;
    }
    const block = this.#to.length - 1;
    const at = this.#used++;
    this.#procedures[block]![at] = procedure;
    this.#deltas[block]![at] = delta;
    const to = Number(target);
    this.#to[block]![at] = to % TWO_32;
    if (to >= TWO_32) {
      this.#high ??= this.#to.map(() => new Uint32Array(EDGE_BLOCK));
      this.#high[block]![at] = Math.floor(to / TWO_32);
    }
    this.#kinds[block]![at] = kind;
    this.count++;
  }

  procedure(e: number): number {
    return this.#procedures[e >>> EDGE_SHIFT]![e & EDGE_MASK]!;
  }

  delta(e: number): number {
    return this.#deltas[e >>> EDGE_SHIFT]![e & EDGE_MASK]!;
  }

  target(e: number): number {
    const low = this.#to[e >>> EDGE_SHIFT]![e & EDGE_MASK]!;
    const high = this.#high === null ? 0 : this.#high[e >>> EDGE_SHIFT]![e & EDGE_MASK]!;
    return high * TWO_32 + low;
  }

  kind(e: number): number {
    return this.#kinds[e >>> EDGE_SHIFT]![e & EDGE_MASK]!;
  }

  /**
   * Sorts the edges in place by target, then source address (`starts` holds
   * each procedure's start), then procedure, then kind: a heap sort over the
   * blocks, with no per-edge values and no second copy. That is the order a
   * stable sort by target and source gives: procedures were decoded in
   * order, one instruction names at most one branch target, pushed before
   * its data references (kind 0 or 1 before 2), and edges that tie on all
   * four are identical.
   */
  sort(starts: Float64Array): void {
    const n = this.count;
    const compare = (a: number, b: number): number => {
      const byTarget = this.target(a) - this.target(b);
      if (byTarget !== 0) return byTarget;
      const bySource = starts[this.procedure(a)]! + this.delta(a) -
        (starts[this.procedure(b)]! + this.delta(b));
      if (bySource !== 0) return bySource;
      return (this.procedure(a) - this.procedure(b)) || (this.kind(a) - this.kind(b));
    };
    const sift = (root: number, end: number): void => {
      for (let child = 2 * root + 1; child < end; child = 2 * root + 1) {
        if (child + 1 < end && compare(child, child + 1) < 0) child++;
        if (compare(root, child) >= 0) return;
        this.#swap(root, child);
        root = child;
      }
    };
    for (let i = (n >> 1) - 1; i >= 0; i--) sift(i, n);
    for (let end = n - 1; end > 0; end--) {
      this.#swap(0, end);
      sift(0, end);
    }
  }

  #swap(a: number, b: number): void {
    const ba = a >>> EDGE_SHIFT;
    const ia = a & EDGE_MASK;
    const bb = b >>> EDGE_SHIFT;
    const ib = b & EDGE_MASK;
    const procedures = this.#procedures;
    const p = procedures[ba]![ia]!;
    procedures[ba]![ia] = procedures[bb]![ib]!;
    procedures[bb]![ib] = p;
    const deltas = this.#deltas;
    const d = deltas[ba]![ia]!;
    deltas[ba]![ia] = deltas[bb]![ib]!;
    deltas[bb]![ib] = d;
    const kinds = this.#kinds;
    const k = kinds[ba]![ia]!;
    kinds[ba]![ia] = kinds[bb]![ib]!;
    kinds[bb]![ib] = k;
    const to = this.#to;
    const t = to[ba]![ia]!;
    to[ba]![ia] = to[bb]![ib]!;
    to[bb]![ib] = t;
    const high = this.#high;
    if (high !== null) {
      const h = high[ba]![ia]!;
      high[ba]![ia] = high[bb]![ib]!;
      high[bb]![ib] = h;
    }
  }
}

/** Go's Duff's devices, which compiled code calls part-way in, at the offset that does the work. */
const DUFF_DEVICES = new Set(["runtime.duffzero", "runtime.duffcopy"]);

/** The extents of the Duff's devices among `functions` (none outside Go binaries). */
function duffDevices(functions: readonly ImageFunction[]): { start: bigint; end: bigint }[] {
  return functions.filter((fn) => fn.size > 0n && fn.names.some((name) => DUFF_DEVICES.has(name)))
    .map((fn) => ({ start: fn.address, end: fn.address + fn.size }));
}
