/**
 * Function discovery for documents without a function table (a stripped
 * executable with no `.eh_frame`, say): a bounded linear sweep of the
 * executable sections that collects the targets of direct calls.
 *
 * @module
 */

import { disassemblerFor, instructionSetOf } from "./code.ts";
import { type BinaryImage, holdsCode, type ImageFunction } from "../formats/binary_image.ts";
import type { AnalysisControl } from "./program.ts";

/** Sources that amount to a function table. */
const TABLE_SOURCES = new Set([
  "symtab",
  "pdata",
  "function-starts",
  "eh-frame",
  "arm-exidx",
  "name-section",
  "code-section",
]);

/** Whether a document has no function table and its code can be swept. */
export function needsDiscovery(image: BinaryImage): boolean {
  return instructionSetOf(image) !== null &&
    !(image.functionTables ?? []).some((source) => TABLE_SOURCES.has(source)) &&
    image.functions.every((fn) => !TABLE_SOURCES.has(fn.source));
}

/** What a sweep found. */
export interface DiscoveryOutcome {
  /** New starts (not already known), sorted. */
  added: number;
  sweptBytes: number;
  executableBytes: number;
  instructions: number;
  /** True when every executable byte was swept within the bound. */
  complete: boolean;
}

/** Default instruction bound of a sweep. */
export const DISCOVERY_MAX_INSTRUCTIONS = 4_000_000;

const CHUNK = 1 << 20;

/**
 * Sweeps the executable sections (PLT stubs excepted) and adds every direct
 * call target that lands in executable code and is not an import's address
 * (a Mach-O symbol stub, say) as a function (source `call-target`), in place. Records what it did in `image.warnings`.
 */
export async function discoverCallTargets(
  image: BinaryImage,
  maxInstructions: number = DISCOVERY_MAX_INSTRUCTIONS,
  control: AnalysisControl = {},
): Promise<DiscoveryOutcome> {
  const set = instructionSetOf(image);
  if (set === null || set === "arm" || set === "thumb" || set === "wasm") {
    return { added: 0, sweptBytes: 0, executableBytes: 0, instructions: 0, complete: false };
  }
  const sections = image.sections.filter((s) =>
    holdsCode(s) && s.fileOffset !== null && s.fileSize > 0 && !/\.i?plt/.test(s.name)
  );
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
  image.functions = [...image.functions, ...added].sort((
    a,
    b,
  ) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const complete = swept >= executableBytes;
  image.warnings.push(
    `No function table: ${added.length} procedure starts were discovered from direct call targets in a linear sweep of ${swept} of ${executableBytes} executable bytes (${instructions} instructions${
      complete ? "" : `, stopped at the ${maxInstructions}-instruction bound`
    }); functions reached only indirectly are not listed.`,
  );
  return { added: added.length, sweptBytes: swept, executableBytes, instructions, complete };
}
