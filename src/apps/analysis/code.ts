/**
 * Decoding a procedure's code and reading its control flow and references
 * from the decoded instructions: direct and indirect calls and jumps,
 * returns, and the addresses instructions compute (RIP-relative operands,
 * AArch64 `adrp`+`add`/`ldr` pairs, ARM literal-pool loads).
 *
 * @module
 */

import {
  Disassembler,
  type Instruction,
  type InstructionSet,
  MAX_DECODE_BYTES,
} from "../disasm/capstone.ts";
import { decodeWasmBody, type WasmCodeMap, type WasmInstruction } from "../disasm/wasm_code.ts";
import {
  addressToOffset,
  type BinaryImage,
  functionParts,
  type ImageFunction,
  sectionAt,
} from "../formats/binary_image.ts";
import { upperBound } from "../../core/sorted.ts";

/** What decodes an image's code: a Capstone instruction set, or the WebAssembly body decoder. */
export type CodeSet = InstructionSet | "wasm";

/**
 * The instruction set of an image (of one of its functions, for 32-bit ARM,
 * whose functions may be Thumb code), or null when it is not one we decode.
 */
export function instructionSetOf(
  image: BinaryImage,
  fn?: Pick<ImageFunction, "thumb">,
): CodeSet | null {
  switch (image.architecture) {
    case "x86":
      return "x86";
    case "x86_64":
      return "x86_64";
    case "arm64":
      return "arm64";
    case "arm":
      // Readers clear the Thumb bit of a function's address and mark the function instead.
      return fn?.thumb ? "thumb" : "arm";
    case "wasm32":
      return image.wasmCode ? "wasm" : null;
    default:
      return null;
  }
}

const handles = new Map<InstructionSet, Promise<Disassembler>>();

/** A shared Capstone handle per instruction set. */
export function disassemblerFor(set: InstructionSet): Promise<Disassembler> {
  let handle = handles.get(set);
  if (!handle) {
    handle = Disassembler.open(set);
    handles.set(set, handle);
    handle.catch(() => handles.delete(set));
  }
  return handle;
}

/** Bounds of one procedure decode. */
export interface DecodeLimits {
  /** Most instructions decoded. */
  maxInstructions: number;
  /** Most bytes read when the procedure's size is unknown. */
  maxBytesWhenUnsized: number;
  /** Keep each instruction's bytes (for listings). @default true */
  withBytes?: boolean;
}

/** A decoded procedure. */
export interface DecodedProcedure {
  instructions: Instruction[];
  /** Bytes covered by the decoded instructions. */
  decodedBytes: number;
  /** The procedure's extent: from its size, or up to the next known start. */
  end: bigint;
  /** True when the instruction cap cut the decode short. */
  truncated: boolean;
  /** True when decoding stopped on bytes that are not an instruction before the end. */
  stoppedOnInvalid: boolean;
  /** Why decoding stopped early, when the decoder says. */
  stopReason?: string;
  /** How `end` was determined. */
  extent: "symbol-size" | "next-function" | "section-end" | "byte-cap";
}

/**
 * The end of a procedure: its size when known, else the next function start,
 * else a cap; a guessed end never runs past the end of the section the
 * procedure starts in (`_init` in .init does not take in the PLT after it).
 */
export function procedureEnd(
  image: BinaryImage,
  fn: ImageFunction,
  cap: number,
): { end: bigint; extent: DecodedProcedure["extent"] } {
  if (fn.size > 0n) return { end: fn.address + fn.size, extent: "symbol-size" };
  const next = nextFunctionStart(image.functions, fn.address);
  const guess: { end: bigint; extent: DecodedProcedure["extent"] } =
    next !== null && next - fn.address <= BigInt(cap)
      ? { end: next, extent: "next-function" }
      : { end: fn.address + BigInt(cap), extent: "byte-cap" };
  const section = sectionAt(image, fn.address);
  const sectionEnd = section !== undefined && section.size > 0n
    ? section.address + section.size
    : null;
  return sectionEnd !== null && sectionEnd < guess.end
    ? { end: sectionEnd, extent: "section-end" }
    : guess;
}

/** The first function start (or start of a function's part) after `address`, or null. */
export function nextFunctionStart(
  functions: readonly ImageFunction[],
  address: bigint,
): bigint | null {
  const next = functions[upperBound(functions, address, (fn) => fn.address)]?.address ?? null;
  const parts = functionParts(functions);
  if (parts.length === 0) return next;
  const part = parts[upperBound(parts, address, (p) => p.start)]?.start ?? null;
  return part !== null && (next === null || part < next) ? part : next;
}

/** A stretch `[start, end)` of a procedure's code. */
export interface CodeStretch {
  start: bigint;
  end: bigint;
}

/**
 * The stretches of a procedure's code: `[address, end)` (its extent, see
 * {@linkcode procedureEnd}), then each of its parts in order.
 */
export function procedureStretches(fn: ImageFunction, end: bigint): CodeStretch[] {
  const stretches = [{ start: fn.address, end }];
  if (fn.parts !== undefined) {
    for (const part of fn.parts) {
      stretches.push({ start: part.address, end: part.address + part.size });
    }
  }
  return stretches;
}

/** Whether `address` lies in the stretch `[start, end)` or one of `parts`. */
export function withinStretches(
  start: bigint,
  end: bigint,
  parts: readonly CodeStretch[],
): (address: bigint) => boolean {
  return (a) => (a >= start && a < end) || parts.some((p) => a >= p.start && a < p.end);
}

/** The code runs ({@linkcode codeRuns}) of each of a procedure's stretches, in order. */
function procedureRuns(
  image: BinaryImage,
  fn: ImageFunction,
  end: bigint,
  set: InstructionSet,
): CodeRun[] {
  return procedureStretches(fn, end).flatMap((stretch) =>
    codeRuns(image, stretch.start, stretch.end, set)
  );
}

/** A stretch of a procedure's bytes read as instructions of one set. */
export interface CodeRun {
  start: bigint;
  end: bigint;
  set: InstructionSet;
}

/**
 * The stretches of `[start, end)` that hold instructions, and their sets:
 * one run in `set` unless the image's code marks (ELF mapping symbols) put
 * data or another instruction set inside. The procedure's first bytes are
 * always read in `set`; a `data` mark ends a run, the next code mark starts
 * one in its set.
 */
export function codeRuns(
  image: BinaryImage,
  start: bigint,
  end: bigint,
  set: InstructionSet,
): CodeRun[] {
  const marks = image.codeMarks;
  let k = marks === undefined ? 0 : upperBound(marks, start, (m) => m.address);
  if (marks === undefined || k === marks.length || marks[k]!.address >= end) {
    return [{ start, end, set }];
  }
  const runs: CodeRun[] = [];
  let from = start;
  let current: InstructionSet | null = set;
  const close = (to: bigint): void => {
    if (current === null || to <= from) return;
    const last = runs.at(-1);
    if (last !== undefined && last.end === from && last.set === current) last.end = to;
    else runs.push({ start: from, end: to, set: current });
  };
  for (; k < marks.length && marks[k]!.address < end; k++) {
    const mark = marks[k]!;
    close(mark.address);
    from = mark.address;
    current = mark.kind === "data" ? null : mark.kind === "code" ? set : mark.kind;
  }
  close(end);
  return runs;
}

/**
 * Decodes one procedure of machine code (in `set`, or in the sets its code
 * marks give) within limits, skipping the data its code marks show, and
 * reads its flow.
 */
async function decodeMachineCode(
  image: BinaryImage,
  fn: ImageFunction,
  set: InstructionSet,
  limits: DecodeLimits,
): Promise<{ decoded: DecodedProcedure; flows: InstructionFlow[] }> {
  const { end, extent } = procedureEnd(image, fn, limits.maxBytesWhenUnsized);
  let instructions: Instruction[] = [];
  let flows: InstructionFlow[] = [];
  let decodedBytes = 0;
  let truncated = false;
  let stoppedOnInvalid = false;
  // AArch64 adrp pages carry across runs of one procedure.
  const pages = new Map<string, bigint>();
  const runs = procedureRuns(image, fn, end, set);
  for (const run of runs) {
    const offset = addressToOffset(image, run.start);
    if (offset === null) {
      stoppedOnInvalid = true;
      break;
    }
    const wanted = Number(run.end - run.start);
    const code = image.bytes.subarray(
      offset,
      Math.min(image.bytes.length, offset + Math.max(0, wanted)),
    );
    const left = limits.maxInstructions - instructions.length;
    if (left <= 0) {
      truncated = code.length > 0;
      break;
    }
    const disassembler = await disassemblerFor(run.set);
    const got = disassembler.disassemble(code, run.start, left, {
      withBytes: limits.withBytes ?? true,
    });
    const bytes = got.reduce((sum, i) => sum + i.size, 0);
    decodedBytes += bytes;
    const gotFlows = imageFlows(image, run.set, got, pages);
    instructions = instructions.length === 0 ? got : instructions.concat(got);
    flows = flows.length === 0 ? gotFlows : flows.concat(gotFlows);
    if (bytes < code.length) {
      truncated = got.length >= left;
      stoppedOnInvalid = !truncated;
      break;
    }
  }
  return {
    decoded: { instructions, decodedBytes, end, truncated, stoppedOnInvalid, extent },
    flows,
  };
}

/** What {@linkcode scanProcedure} decoded. */
export interface ScannedProcedure {
  /** Instructions decoded (kept or not). */
  count: number;
  /** True when the instruction cap cut the decode short. */
  truncated: boolean;
}

/** Instructions decoded per batch by {@linkcode scanProcedure}. */
const SCAN_BATCH = 1024;

/** Lowercase ASCII of a byte. */
function lower(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte;
}

/** Whether the NUL-terminated text at `at` (at most `max` bytes) starts with lowercase `prefix`. */
function startsWith(heap: Uint8Array, at: number, prefix: string): boolean {
  for (let i = 0; i < prefix.length; i++) {
    if (lower(heap[at + i]!) !== prefix.charCodeAt(i)) return false;
  }
  return true;
}

/** Whether the NUL-terminated text at `at` (at most `max` bytes) holds lowercase `needle`. */
function holds(heap: Uint8Array, at: number, max: number, needle: string): boolean {
  const first = needle.charCodeAt(0);
  for (let i = at; i < at + max && heap[i] !== 0; i++) {
    if (lower(heap[i]!) === first && startsWith(heap, i, needle)) return true;
  }
  return false;
}

/**
 * For x86 code, a test on Capstone's text that keeps every instruction
 * {@linkcode flowOf} could give a branch target or a reference: a mnemonic
 * that may be a call, jump or loop, or operands naming `rip` (or, for 32-bit
 * code, holding a hexadecimal number). Null (keep all) for other sets, whose
 * flows depend on earlier instructions.
 */
export function flowCandidates(
  set: CodeSet,
): ((heap: Uint8Array, mnemonic: number, operands: number) => boolean) | null {
  if (set !== "x86" && set !== "x86_64") return null;
  return (heap, mnemonic, operands) =>
    lower(heap[mnemonic]!) === 0x6a /* j */ || startsWith(heap, mnemonic, "call") ||
    startsWith(heap, mnemonic, "loop") ||
    // Prefixed branches: Capstone spells the prefix into the mnemonic ("notrack call").
    startsWith(heap, mnemonic, "notrack ") || startsWith(heap, mnemonic, "bnd ") ||
    holds(heap, operands, 160, "rip") || (set === "x86" && holds(heap, operands, 160, "0x"));
}

/**
 * Decodes one procedure like {@linkcode decodeWithFlow} (the same
 * instructions, the same `truncated`), but hands them to `visit` in batches
 * of at most {@linkcode SCAN_BATCH} instead of returning them all, so a long
 * procedure never holds more than one batch in memory; with `select`, only
 * the instructions it accepts (see {@linkcode flowCandidates}) are built and
 * visited. Thumb code is decoded in one batch, since an IT block's state
 * does not carry across decodes.
 */
export async function scanProcedure(
  image: BinaryImage,
  fn: ImageFunction,
  limits: DecodeLimits & {
    select?: ((heap: Uint8Array, mnemonic: number, operands: number) => boolean) | null;
  },
  visit: (instructions: Instruction[], flows: InstructionFlow[]) => void,
): Promise<ScannedProcedure> {
  const set = instructionSetOf(image, fn);
  if (!set) throw new Error(`${image.architecture} code is not disassembled`);
  if (set === "wasm") {
    // A body is one bounded decode; its structured branches need it whole.
    const { decoded, flows } = await decodeWithFlow(image, fn, limits);
    if (decoded.instructions.length > 0) visit(decoded.instructions, flows);
    return { count: decoded.instructions.length, truncated: decoded.truncated };
  }
  // AArch64 adrp pages carry across batches and runs of one procedure.
  const pages = new Map<string, bigint>();
  const { end } = procedureEnd(image, fn, limits.maxBytesWhenUnsized);
  let count = 0;
  let truncated = false;
  const runs = procedureRuns(image, fn, end, set);
  for (const run of runs) {
    const offset = addressToOffset(image, run.start);
    if (offset === null) break;
    const wanted = Number(run.end - run.start);
    // decodeMachineCode hands the whole run to Capstone, which reads at most
    // MAX_DECODE_BYTES of it; `truncated` compares with the whole run.
    const extent = Math.min(image.bytes.length, offset + Math.max(0, wanted)) - offset;
    if (count >= limits.maxInstructions) {
      truncated = extent > 0;
      break;
    }
    const code = image.bytes.subarray(offset, offset + Math.min(extent, MAX_DECODE_BYTES));
    const disassembler = await disassemblerFor(run.set);
    const batch = run.set === "thumb" ? limits.maxInstructions : SCAN_BATCH;
    let position = 0;
    while (count < limits.maxInstructions && position < code.length) {
      const decoded = disassembler.disassembleSelected(
        code.subarray(position),
        run.start + BigInt(position),
        Math.min(batch, limits.maxInstructions - count),
        limits.select ?? null,
        { withBytes: limits.withBytes ?? true },
      );
      if (decoded.count === 0) break;
      count += decoded.count;
      position += decoded.bytes;
      if (decoded.instructions.length > 0) {
        visit(decoded.instructions, imageFlows(image, run.set, decoded.instructions, pages));
      }
      if (decoded.count < batch) break;
    }
    if (position < extent) {
      truncated = count >= limits.maxInstructions;
      break;
    }
  }
  return { count, truncated };
}

/** What one instruction does to control flow and which addresses it names. */
export interface InstructionFlow {
  kind: "call" | "jump" | "conditional-jump" | "return" | "other";
  /** Direct branch target, when the operand is an address. */
  target: bigint | null;
  /** True for a call or jump through a register or memory. */
  indirect: boolean;
  /** Every target of a multiway branch (WebAssembly `br_table`), when there are several. */
  targets?: bigint[];
  /** Addresses the instruction computes or reads (data references, memory slots). */
  references: bigint[];
}

/** The references of a flow that names none: one shared, frozen empty array. */
const NO_REFERENCES = Object.freeze([]) as unknown as bigint[];

/**
 * An {@linkcode InstructionFlow} built by a constructor rather than an object
 * literal, with its references array made only for an instruction that names
 * an address (by `Array.of`, not a literal). V8 tracks how long the objects
 * of each literal live and, once most of them outlive a young-generation
 * collection (a dossier keeps its instructions and flows), allocates that
 * literal's later objects straight in the old generation; a whole-document
 * scan then fills the old generation with millions of short-lived flows until
 * a full collection. Constructor and builtin calls carry no such allocation
 * site, so every flow starts young.
 */
class Flow implements InstructionFlow {
  kind: InstructionFlow["kind"] = "other";
  target: bigint | null = null;
  indirect = false;
  references: bigint[] = NO_REFERENCES;

  /** Adds an address the instruction names. */
  refer(address: bigint): void {
    if (this.references === NO_REFERENCES) this.references = Array.of(address);
    else this.references.push(address);
  }
}

const HEX = /^#?(-?0x[0-9a-f]+|-?\d+)$/i;
/** An absolute 32-bit value in an x86 operand: an immediate, or a memory operand's displacement. */
const X86_ABSOLUTE = /(?:^|[\s,[])(0x[0-9a-f]{5,8})(?:\]|$|,)/g;
const RIP = /\[rip ([+-]) (0x[0-9a-f]+|\d+)\]/i;
/** A pc-relative load, `[pc, #offset]`, or `[pc]` for offset 0. */
const ARM_PC_LITERAL = /\[pc(?:, #(-?0x[0-9a-f]+|-?\d+))?\]/i;
/**
 * A 32-bit ARM or Thumb mnemonic that may change control flow: the operation,
 * its condition code when it has one, and its width suffix.
 */
const ARM_BRANCH =
  /^(bl|blx|b|bx|tbb|tbh|pop|ldr|mov|add)(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?(\.w|\.n)?$/;

function parseNumber(text: string): bigint | null {
  const m = HEX.exec(text.trim());
  if (!m) return null;
  const raw = m[1]!;
  const negative = raw.startsWith("-");
  const value = BigInt(negative ? raw.slice(1) : raw);
  return negative ? -value : value;
}

/**
 * The flows of `instructions` of `image` ({@linkcode flowOf}) with only the
 * references that hold there: none through a relocation not applied
 * ({@linkcode withoutPlaceholders}), and 32-bit x86 numbers only where the
 * image maps them ({@linkcode withMappedReferences}).
 */
function imageFlows(
  image: BinaryImage,
  set: InstructionSet,
  instructions: readonly Instruction[],
  pages: Map<string, bigint>,
): InstructionFlow[] {
  const flows = withoutPlaceholders(image, instructions, flowOf(set, instructions, pages));
  return withMappedReferences(image, set, flows);
}

/**
 * The flows of `instructions` without what an operand seems to name when a
 * relocation of a relocatable object that was not applied sits in the
 * instruction's bytes: its operand is the assembler's placeholder (an
 * `adrp`/`add` pair of zeros names the code's own first page), so it names
 * nothing; a branch there has an unknown target.
 */
function withoutPlaceholders(
  image: Pick<BinaryImage, "unrelocatedSites">,
  instructions: readonly Instruction[],
  flows: InstructionFlow[],
): InstructionFlow[] {
  const sites = image.unrelocatedSites;
  if (sites === undefined || sites.length === 0) return flows;
  for (let k = 0; k < instructions.length; k++) {
    const insn = instructions[k]!;
    const next = upperBound(sites, insn.address - 1n, (site) => site);
    if (next >= sites.length || sites[next]! >= insn.address + BigInt(insn.size)) continue;
    const flow = flows[k]!;
    flow.references = NO_REFERENCES;
    if (flow.target !== null) {
      flow.target = null;
      flow.indirect = true;
    }
  }
  return flows;
}

/**
 * The flows of 32-bit x86 `instructions` with only the references that name
 * an address of the image (inside one of its sections): a 32-bit number in an
 * operand is an address only where the image maps one (`0xffffffff` as `-1`,
 * a hash constant, a mask are not), as a disassembler names a symbol for an
 * operand only when some section holds it. Other sets' flows are returned
 * unchanged.
 */
function withMappedReferences(
  image: BinaryImage,
  set: InstructionSet,
  flows: InstructionFlow[],
): InstructionFlow[] {
  if (set !== "x86") return flows;
  const mapped = (address: bigint): boolean => sectionAt(image, address) !== undefined;
  for (const flow of flows) {
    const references = flow.references;
    if (references.length === 0 || references.every(mapped)) continue;
    const kept = references.filter(mapped);
    flow.references = kept.length === 0 ? NO_REFERENCES : kept;
  }
  return flows;
}

/**
 * The flow of the one instruction at `address` of `image` (a stub's or
 * thunk's first), or null when no section maps the address or its bytes are
 * no instruction.
 */
export async function firstFlowAt(
  image: BinaryImage,
  set: InstructionSet,
  address: bigint,
): Promise<InstructionFlow | null> {
  const offset = addressToOffset(image, address);
  if (offset === null) return null;
  const disassembler = await disassemblerFor(set);
  const [insn] = disassembler.disassemble(
    image.bytes.subarray(offset, offset + 16),
    address,
    1,
    { withBytes: false },
  );
  return insn ? flowOf(set, [insn])[0]! : null;
}

/**
 * Reads control flow and references from a decoded procedure, instruction by
 * instruction, tracking AArch64 `adrp` pages per register. To read one
 * procedure in several batches, pass the same `pages` map for each batch.
 */
export function flowOf(
  set: InstructionSet,
  instructions: readonly Instruction[],
  pages: Map<string, bigint> = new Map(),
): InstructionFlow[] {
  return instructions.map((insn) => {
    let mnemonic = insn.mnemonic.toLowerCase();
    const operands = insn.operands.toLowerCase();
    const flow = new Flow();
    if (set === "x86" || set === "x86_64") {
      // Capstone spells prefixes into the mnemonic ("notrack jmp", "bnd call", "repz ret"):
      // what the instruction does is its last word.
      mnemonic = mnemonic.slice(mnemonic.lastIndexOf(" ") + 1);
      const rip = RIP.exec(operands);
      if (rip) {
        const displacement = BigInt(rip[2]!);
        const next = insn.address + BigInt(insn.size);
        flow.refer(rip[1] === "+" ? next + displacement : next - displacement);
      }
      if (mnemonic === "call" || mnemonic.startsWith("call")) flow.kind = "call";
      else if (mnemonic === "jmp" || mnemonic.startsWith("jmp")) flow.kind = "jump";
      else if (/^(j[a-z]+|loop[a-z]*|jrcxz|jecxz)$/.test(mnemonic)) flow.kind = "conditional-jump";
      else if (/^(ret|retf|retn|iret[dq]?)$/.test(mnemonic)) flow.kind = "return";
      if (flow.kind === "call" || flow.kind === "jump" || flow.kind === "conditional-jump") {
        const direct = parseNumber(operands);
        if (direct !== null) flow.target = direct;
        else flow.indirect = true;
      }
      // 32-bit code names absolute addresses in immediates and memory operands, an indirect
      // call's or jump's too (`call dword ptr [IAT slot]`, `jmp dword ptr [eax*4 + table]`).
      // Which of them are addresses the image maps is for the caller to say
      // (`withMappedReferences`).
      if (set === "x86" && flow.target === null) {
        for (const m of operands.matchAll(X86_ABSOLUTE)) flow.refer(BigInt(m[1]!));
      }
      return flow;
    }
    if (set === "arm64") {
      const parts = operands.split(",").map((p) => p.trim());
      if (mnemonic === "bl") flow.kind = "call";
      else if (mnemonic === "b") flow.kind = "jump";
      else if (/^(b\.[a-z]+|cbn?z|tbn?z)$/.test(mnemonic)) flow.kind = "conditional-jump";
      else if (mnemonic === "ret" || mnemonic === "retaa" || mnemonic === "retab") {
        flow.kind = "return";
      } else if (/^blr/.test(mnemonic)) {
        flow.kind = "call";
        flow.indirect = true;
      } else if (/^br/.test(mnemonic)) {
        flow.kind = "jump";
        flow.indirect = true;
      }
      if (
        (flow.kind === "call" || flow.kind === "jump" || flow.kind === "conditional-jump") &&
        !flow.indirect
      ) {
        flow.target = parseNumber(parts[parts.length - 1] ?? "");
      }
      if (mnemonic === "adrp") {
        const page = parseNumber(parts[1] ?? "");
        if (page !== null && parts[0]) pages.set(parts[0], page);
      } else if (mnemonic === "adr") {
        const address = parseNumber(parts[1] ?? "");
        if (address !== null) flow.refer(address);
      } else if (mnemonic === "add" && parts.length === 3) {
        const page = pages.get(parts[1]!);
        const offset = parseNumber(parts[2]!);
        if (page !== undefined && offset !== null) flow.refer(page + offset);
      } else if (/^(ldr|ldrb|ldrh|ldrsw|ldrsb|ldrsh|str|strb|strh|ldp|stp)$/.test(mnemonic)) {
        const memory = /\[(x\d+|sp), #(-?0x[0-9a-f]+|-?\d+)\]/.exec(operands);
        if (memory) {
          const page = pages.get(memory[1]!);
          const offset = parseNumber(memory[2]!);
          if (page !== undefined && offset !== null) flow.refer(page + offset);
        } else if (mnemonic.startsWith("ldr")) {
          const literal = parseNumber(parts[parts.length - 1] ?? "");
          if (literal !== null && !(parts[parts.length - 1] ?? "").includes("[")) {
            flow.refer(literal);
          }
        }
      }
      return flow;
    }
    // ARM and Thumb. A condition code (ARM mode, or a Thumb IT block) is spelled into the
    // mnemonic: a conditional return or indirect branch may also fall through.
    const last = operands.split(",").pop()?.trim() ?? "";
    const arm = ARM_BRANCH.exec(mnemonic);
    const conditional = arm !== null && arm[2] !== undefined && arm[2] !== "al";
    const returns = arm !== null && (
      (arm[1] === "bx" && operands === "lr") ||
      (arm[1] === "pop" && /\bpc\b/.test(operands)) ||
      (arm[1] === "ldr" && /^pc, \[sp\], #4$/.test(operands)) ||
      (arm[1] === "mov" && operands === "pc, lr")
    );
    if (arm?.[1] === "bl" || arm?.[1] === "blx") {
      flow.kind = "call";
      const direct = parseNumber(last);
      if (direct !== null) flow.target = direct;
      else flow.indirect = true;
    } else if (arm?.[1] === "b") {
      flow.kind = conditional ? "conditional-jump" : "jump";
      flow.target = parseNumber(last);
    } else if (/^cbn?z$/.test(mnemonic)) {
      flow.kind = "conditional-jump";
      flow.target = parseNumber(last);
    } else if (returns) {
      // A conditional return leaves, or goes on to the next instruction.
      flow.kind = conditional ? "conditional-jump" : "return";
    } else if (
      arm?.[1] === "bx" || arm?.[1] === "tbb" || arm?.[1] === "tbh" ||
      ((arm?.[1] === "ldr" || arm?.[1] === "mov" || arm?.[1] === "add") && /^pc,/.test(operands))
    ) {
      // A branch through a register, a table branch or a computed write to pc (a switch):
      // targets unknown here.
      flow.kind = conditional ? "conditional-jump" : "jump";
      flow.indirect = true;
    }
    const literal = ARM_PC_LITERAL.exec(operands);
    if (literal && mnemonic.startsWith("ldr")) {
      const pc = (insn.address + (set === "thumb" ? 4n : 8n)) & ~3n;
      flow.refer(pc + BigInt(literal[1] ?? 0));
    }
    return flow;
  });
}

/** A basic block: `[start, end)` and the blocks control may pass to (hex addresses). */
export interface BasicBlock {
  start: string;
  end: string;
  successors: string[];
}

/**
 * The basic blocks of a procedure's decoded instructions. Leaders are the
 * start, every branch target inside `[start, end)` and every instruction after
 * a branch or return; a block ends at a branch, a return or before a leader.
 */
export function basicBlocks(
  instructions: readonly { address: bigint; size: number }[],
  flows: readonly Pick<InstructionFlow, "kind" | "target" | "targets">[],
  start: bigint,
  end: bigint,
  parts: readonly CodeStretch[] = [],
): BasicBlock[] {
  const hex = (a: bigint): string => `0x${a.toString(16)}`;
  const inside = withinStretches(start, end, parts);
  const branches = (flow: Pick<InstructionFlow, "target" | "targets">): bigint[] =>
    (flow.targets ?? (flow.target === null ? [] : [flow.target])).filter(inside);
  const leaders = new Set<bigint>([start, ...parts.map((p) => p.start)]);
  instructions.forEach((insn, k) => {
    const flow = flows[k]!;
    if (flow.kind === "jump" || flow.kind === "conditional-jump" || flow.kind === "return") {
      for (const target of branches(flow)) leaders.add(target);
      leaders.add(insn.address + BigInt(insn.size));
    }
  });
  const blocks: BasicBlock[] = [];
  let blockStart: bigint | null = null;
  instructions.forEach((insn, k) => {
    const flow = flows[k]!;
    const next = insn.address + BigInt(insn.size);
    blockStart ??= insn.address;
    const branching = flow.kind === "jump" || flow.kind === "conditional-jump";
    // The next instruction decoded starts one of the procedure's parts: a block ends.
    const following = instructions[k + 1];
    if (
      !branching && flow.kind !== "return" && !leaders.has(next) && following !== undefined &&
      !(following.address !== next && parts.some((p) => p.start === following.address))
    ) {
      return;
    }
    const successors = new Set<string>();
    if (flow.kind !== "return" && flow.kind !== "jump" && inside(next)) successors.add(hex(next));
    if (branching) { for (const target of branches(flow)) successors.add(hex(target)); }
    blocks.push({ start: hex(blockStart), end: hex(next), successors: [...successors] });
    blockStart = null;
  });
  return blocks;
}

/**
 * Decodes one procedure and reads its flow: Capstone and {@linkcode flowOf}
 * for machine code, the body decoder for WebAssembly.
 */
export async function decodeWithFlow(
  image: BinaryImage,
  fn: ImageFunction,
  limits: DecodeLimits,
): Promise<{ decoded: DecodedProcedure; flows: InstructionFlow[] }> {
  const set = instructionSetOf(image, fn);
  if (!set) throw new Error(`${image.architecture} code is not disassembled`);
  if (set !== "wasm") return await decodeMachineCode(image, fn, set, limits);
  const map = image.wasmCode!;
  const body = decodeWasmBody(
    image.bytes,
    Number(fn.address),
    Number(fn.size),
    limits.maxInstructions,
    map,
  );
  const withBytes = limits.withBytes ?? true;
  const instructions: Instruction[] = body.instructions.map((insn) => {
    const at = Number(insn.address);
    return {
      address: insn.address,
      size: insn.size,
      bytes: withBytes ? image.bytes.subarray(at, at + insn.size) : NO_BYTES,
      mnemonic: insn.mnemonic,
      operands: insn.operands,
    };
  });
  const last = body.instructions.at(-1);
  const reached = last ? Number(last.address) + last.size : body.codeStart;
  return {
    decoded: {
      instructions,
      decodedBytes: reached - Number(fn.address),
      end: fn.address + fn.size,
      truncated: body.truncated,
      stoppedOnInvalid: body.stoppedOn !== null,
      ...(body.stoppedOn === null ? {} : { stopReason: body.stoppedOn }),
      extent: "symbol-size",
    },
    flows: wasmFlows(map, body.instructions),
  };
}

const NO_BYTES = new Uint8Array(0);
const OPENERS = new Set(["block", "loop", "if", "try", "try_table"]);

/**
 * The flow of a decoded WebAssembly body. Structured branches name label
 * depths; each is resolved to an address by matching every block, loop, if
 * and try with its `end`: a loop's label is its first instruction, any other
 * label is the instruction after its `end`. A branch to the function's own
 * label returns. Labels of blocks whose `end` was not decoded stay unknown.
 */
function wasmFlows(map: WasmCodeMap, instructions: readonly WasmInstruction[]): InstructionFlow[] {
  const next = (k: number): bigint | null => {
    const insn = instructions[k];
    return insn ? insn.address + BigInt(insn.size) : null;
  };
  const closeOf = new Map<number, number>();
  const elseOf = new Map<number, number>();
  const open: number[] = [];
  instructions.forEach((insn, k) => {
    if (OPENERS.has(insn.mnemonic)) open.push(k);
    else if (insn.mnemonic === "else" && open.length > 0) elseOf.set(open.at(-1)!, k);
    else if ((insn.mnemonic === "end" || insn.mnemonic === "delegate") && open.length > 0) {
      closeOf.set(open.pop()!, k);
    }
  });
  const labels: (bigint | null)[] = [];
  /** The label `depth` levels out, `"function"` for the function's own label. */
  const label = (depth: number): bigint | null | "function" =>
    depth < labels.length ? labels[labels.length - 1 - depth]! : "function";
  const depthOf = (operand: string | undefined): number => Number(operand ?? "0");
  return instructions.map((insn, k): InstructionFlow => {
    const flow: InstructionFlow = {
      kind: "other",
      target: null,
      indirect: false,
      references: insn.reference === undefined ? [] : [insn.reference],
    };
    const mnemonic = insn.mnemonic;
    if (insn.callee !== undefined) {
      flow.kind = "call";
      flow.target = insn.callee < map.importedFunctions
        ? map.importOffsets[insn.callee] ?? null
        : map.bodyOffsets.get(insn.callee) ?? null;
    } else if (insn.indirectCall) {
      flow.kind = "call";
      flow.indirect = true;
    } else if (OPENERS.has(mnemonic)) {
      const close = closeOf.get(k);
      labels.push(mnemonic === "loop" ? next(k) : close === undefined ? null : next(close));
      if (mnemonic === "if") {
        flow.kind = "conditional-jump";
        const skip = elseOf.get(k) ?? close;
        flow.target = skip === undefined ? null : next(skip);
      }
    } else if (mnemonic === "else") {
      flow.kind = "jump";
      flow.target = labels.at(-1) ?? null;
    } else if (mnemonic === "end" || mnemonic === "delegate") {
      if (labels.length > 0) labels.pop();
      else flow.kind = "return";
    } else if (insn.branch) {
      const depths = mnemonic === "br_table"
        ? insn.operands.split(" ").map(Number)
        : [depthOf(insn.operands.split(" ")[0])];
      const resolved = depths.map(label);
      const fallback = resolved.at(-1)!;
      if (insn.branch === "unconditional" && depths.length === 1 && fallback === "function") {
        flow.kind = "return";
      } else {
        flow.kind = insn.branch === "conditional" ? "conditional-jump" : "jump";
        flow.target = fallback === "function" ? null : fallback;
        if (depths.length > 1) {
          flow.targets = resolved.filter((t): t is bigint => typeof t === "bigint");
        }
      }
    } else if (insn.exits) flow.kind = "return";
    return flow;
  });
}
