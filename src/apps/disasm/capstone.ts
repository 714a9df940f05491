/**
 * Disassembly through Capstone's WebAssembly build, driven directly through
 * its exported C API (`cs_open`, `cs_disasm`, `cs_free`, `cs_close`) with the
 * wasm embedded in `src/_vendor/capstone/capstone_wasm.ts`: no file reads, no permissions, and one
 * engine instance per process, created on first use.
 *
 * @module
 */

import { inflateEmbeddedWasm } from "../../core/embedded_wasm.ts";

/** Instruction sets this wrapper decodes. */
export type InstructionSet = "x86" | "x86_64" | "arm" | "thumb" | "arm64";

/** One decoded instruction. */
export interface Instruction {
  address: bigint;
  size: number;
  bytes: Uint8Array;
  mnemonic: string;
  /** Operand text in Capstone's Intel syntax (x86) or standard syntax (ARM). */
  operands: string;
}

/** Largest code buffer decoded in one call. */
export const MAX_DECODE_BYTES = 4 * 1024 * 1024;
/** Largest wasm heap the engine may grow to. */
const MAX_HEAP_BYTES = 512 * 1024 * 1024;

// Capstone 5 constants (capstone.h).
const ARCH = { arm: 0, arm64: 1, x86: 3 } as const;
const MODE = { arm: 0, thumb: 1 << 4, x86: 1 << 2, x86_64: 1 << 3 } as const;
// Layout of cs_insn in this 32-bit wasm build.
const INSN = { size: 240, address: 8, length: 16, bytes: 18, mnemonic: 42, operands: 74 } as const;

interface CapstoneExports {
  memory: WebAssembly.Memory;
  ctors: () => void;
  open: (arch: number, mode: number, handleOut: number) => number;
  close: (handleIn: number) => number;
  disasm: (
    handle: number,
    code: number,
    size: number,
    address: bigint,
    count: number,
    insnOut: number,
  ) => number;
  free: (insn: number, count: number) => void;
  errno: (handle: number) => number;
  malloc: (size: number) => number;
  release: (pointer: number) => void;
}

let engine: Promise<CapstoneExports> | null = null;

/** Decodes the embedded wasm and instantiates it once. */
function loadEngine(): Promise<CapstoneExports> {
  engine ??= (async () => {
    // The 1.3 MB module is loaded on first use, not at start-up.
    const { CAPSTONE_WASM_BYTES, CAPSTONE_WASM_GZIP_BASE64 } = await import(
      "../../_vendor/capstone/capstone_wasm.ts"
    );
    const wasm = await inflateEmbeddedWasm(CAPSTONE_WASM_GZIP_BASE64, {
      bytes: CAPSTONE_WASM_BYTES,
      label: "Capstone",
    });
    let memory: WebAssembly.Memory | null = null;
    const imports = {
      a: {
        // fd_write: Capstone prints nothing we need; report every byte written.
        a: (_fd: number, iov: number, iovcnt: number, written: number): number => {
          const view = new DataView(memory!.buffer);
          let total = 0;
          for (let i = 0; i < iovcnt; i++) total += view.getUint32(iov + i * 8 + 4, true);
          view.setUint32(written, total, true);
          return 0;
        },
        // emscripten_resize_heap, bounded.
        b: (requested: number): number => {
          const current = memory!.buffer.byteLength;
          const wanted = requested >>> 0;
          if (wanted > MAX_HEAP_BYTES) return 0;
          try {
            memory!.grow(Math.ceil((wanted - current) / 65536));
            return 1;
          } catch {
            return 0;
          }
        },
        // fd_close
        c: (): number => 52,
      },
    };
    const { instance } = await WebAssembly.instantiate(wasm, imports);
    const e = instance.exports as Record<string, unknown>;
    memory = e.d as WebAssembly.Memory;
    const exports: CapstoneExports = {
      memory,
      ctors: e.e as () => void,
      open: e.j as CapstoneExports["open"],
      close: e.k as CapstoneExports["close"],
      disasm: e.m as CapstoneExports["disasm"],
      free: e.n as CapstoneExports["free"],
      errno: e.h as CapstoneExports["errno"],
      malloc: e.z as CapstoneExports["malloc"],
      release: e.A as CapstoneExports["release"],
    };
    exports.ctors();
    return exports;
  })();
  return engine;
}

const EMPTY = new Uint8Array(0);

/**
 * An {@linkcode Instruction} built by a constructor rather than an object
 * literal. V8 tracks how long the objects of each literal live and, when most
 * outlive a young-generation collection (a dossier keeps its 500
 * instructions), allocates that literal's later objects, and what is stored
 * in them, straight in the old generation. A whole-document scan then fills
 * the old generation with short-lived instructions until a full collection
 * (about 100 MB on a large library). Constructor calls carry no such
 * allocation site, so every instruction starts young.
 */
class DecodedInstruction implements Instruction {
  address = 0n;
  size = 0;
  bytes: Uint8Array = EMPTY;
  mnemonic = "";
  operands = "";
}

const decoder = new TextDecoder();

function cString(memory: WebAssembly.Memory, pointer: number, max: number): string {
  const bytes = new Uint8Array(memory.buffer, pointer, max);
  const end = bytes.indexOf(0);
  return decoder.decode(bytes.subarray(0, end < 0 ? max : end));
}

/** A Capstone handle for one instruction set. */
export class Disassembler {
  readonly instructionSet: InstructionSet;
  #cs: CapstoneExports;
  #handle: number;

  private constructor(instructionSet: InstructionSet, cs: CapstoneExports, handle: number) {
    this.instructionSet = instructionSet;
    this.#cs = cs;
    this.#handle = handle;
  }

  /** Opens a handle (the engine loads on first use, ~30 ms). */
  static async open(instructionSet: InstructionSet): Promise<Disassembler> {
    const cs = await loadEngine();
    const arch = instructionSet === "x86" || instructionSet === "x86_64"
      ? ARCH.x86
      : instructionSet === "arm64"
      ? ARCH.arm64
      : ARCH.arm;
    const mode = instructionSet === "arm64" ? 0 : MODE[instructionSet];
    const handleOut = cs.malloc(4);
    try {
      const status = cs.open(arch, mode, handleOut);
      if (status !== 0) {
        throw new Error(`Capstone cs_open failed for ${instructionSet} (error ${status})`);
      }
      const handle = new DataView(cs.memory.buffer).getUint32(handleOut, true);
      return new Disassembler(instructionSet, cs, handle);
    } finally {
      cs.release(handleOut);
    }
  }

  /**
   * Decodes up to `maxInstructions` instructions from `code`, which starts at
   * `address`. Stops early at the first byte sequence that is not an instruction.
   * With `withBytes: false` the instructions carry no copy of their bytes.
   */
  disassemble(
    code: Uint8Array,
    address: bigint,
    maxInstructions: number,
    options: { withBytes?: boolean } = {},
  ): Instruction[] {
    return this.disassembleSelected(code, address, maxInstructions, null, options).instructions;
  }

  /**
   * Decodes like {@linkcode Disassembler.disassemble}, but builds an
   * instruction only when `select` (given Capstone's text of the mnemonic and
   * operands as NUL-terminated bytes at `mnemonic` and `operands` in `heap`)
   * accepts it; `select` null keeps every one. Returns the kept instructions,
   * and the count and bytes of all that were decoded.
   */
  disassembleSelected(
    code: Uint8Array,
    address: bigint,
    maxInstructions: number,
    select: ((heap: Uint8Array, mnemonic: number, operands: number) => boolean) | null,
    options: { withBytes?: boolean } = {},
  ): { instructions: Instruction[]; count: number; bytes: number } {
    const withBytes = options.withBytes ?? true;
    if (this.#handle === 0) throw new Error("Disassembler is closed");
    const cs = this.#cs;
    const length = Math.min(code.length, MAX_DECODE_BYTES);
    if (length === 0 || maxInstructions <= 0) return { instructions: [], count: 0, bytes: 0 };
    const codePointer = cs.malloc(length);
    const insnOut = cs.malloc(4);
    if (codePointer === 0 || insnOut === 0) throw new Error("Capstone could not allocate memory");
    try {
      new Uint8Array(cs.memory.buffer, codePointer, length).set(code.subarray(0, length));
      const count = cs.disasm(this.#handle, codePointer, length, address, maxInstructions, insnOut);
      if (count === 0) return { instructions: [], count: 0, bytes: 0 };
      const base = new DataView(cs.memory.buffer).getUint32(insnOut, true);
      const view = new DataView(cs.memory.buffer);
      const heap = new Uint8Array(cs.memory.buffer);
      const instructions: Instruction[] = select === null ? new Array(count) : [];
      let covered = 0;
      for (let i = 0; i < count; i++) {
        const at = base + i * INSN.size;
        const size = view.getUint16(at + INSN.length, true);
        covered += size;
        if (select !== null && !select(heap, at + INSN.mnemonic, at + INSN.operands)) continue;
        const instruction: Instruction = new DecodedInstruction();
        instruction.address = view.getBigUint64(at + INSN.address, true);
        instruction.size = size;
        if (withBytes) {
          instruction.bytes = new Uint8Array(
            cs.memory.buffer.slice(at + INSN.bytes, at + INSN.bytes + size),
          );
        }
        instruction.mnemonic = cString(cs.memory, at + INSN.mnemonic, 32);
        instruction.operands = cString(cs.memory, at + INSN.operands, 160);
        if (select === null) instructions[i] = instruction;
        else instructions.push(instruction);
      }
      cs.free(base, count);
      return { instructions, count, bytes: covered };
    } finally {
      cs.release(insnOut);
      cs.release(codePointer);
    }
  }

  /**
   * Decodes like {@linkcode Disassembler.disassemble} but builds no objects:
   * calls `visit` with each instruction's offset from `address`, its size and
   * a view of its bytes (valid only during the call). Returns the count and
   * the bytes covered. For sweeps over large code.
   */
  sweep(
    code: Uint8Array,
    address: bigint,
    maxInstructions: number,
    visit: (offset: number, size: number, bytes: Uint8Array) => void,
  ): { count: number; bytes: number } {
    if (this.#handle === 0) throw new Error("Disassembler is closed");
    const cs = this.#cs;
    const length = Math.min(code.length, MAX_DECODE_BYTES);
    if (length === 0 || maxInstructions <= 0) return { count: 0, bytes: 0 };
    const codePointer = cs.malloc(length);
    const insnOut = cs.malloc(4);
    if (codePointer === 0 || insnOut === 0) throw new Error("Capstone could not allocate memory");
    try {
      new Uint8Array(cs.memory.buffer, codePointer, length).set(code.subarray(0, length));
      const count = cs.disasm(this.#handle, codePointer, length, address, maxInstructions, insnOut);
      if (count === 0) return { count: 0, bytes: 0 };
      const base = new DataView(cs.memory.buffer).getUint32(insnOut, true);
      const view = new DataView(cs.memory.buffer);
      const heap = new Uint8Array(cs.memory.buffer);
      let covered = 0;
      for (let i = 0; i < count; i++) {
        const at = base + i * INSN.size;
        const size = view.getUint16(at + INSN.length, true);
        visit(covered, size, heap.subarray(at + INSN.bytes, at + INSN.bytes + size));
        covered += size;
      }
      cs.free(base, count);
      return { count, bytes: covered };
    } finally {
      cs.release(insnOut);
      cs.release(codePointer);
    }
  }

  /** Releases the handle. */
  close(): void {
    if (this.#handle === 0) return;
    const cs = this.#cs;
    const handleIn = cs.malloc(4);
    new DataView(cs.memory.buffer).setUint32(handleIn, this.#handle, true);
    cs.close(handleIn);
    cs.release(handleIn);
    this.#handle = 0;
  }
}
