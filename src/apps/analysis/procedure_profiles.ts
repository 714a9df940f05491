/**
 * Procedure profiles: what each procedure of a document looks like apart
 * from its address, so that two versions of one binary can be matched
 * procedure by procedure even where names are missing. A profile holds the
 * procedure's position among the document's procedures (the order of its
 * unwind entries or symbols), its extent, a digest of its instructions with
 * addresses masked, the strings it references, and the targets it calls.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { addressToOffset, sectionAt } from "../formats/binary_image.ts";
import { scanProcedure } from "./code.ts";
import { nameTarget } from "./dossier.ts";
import type { AnalysisControl, ProgramAnalysis } from "./program.ts";
import { readStringAt } from "./strings.ts";

/** One procedure, described without its address. */
export interface ProcedureProfile {
  /** Position among the document's procedures, in address order. */
  index: number;
  address: bigint;
  /** Size in bytes: the recorded size, or the extent up to the next start (0 when unknown). */
  size: number;
  /** "" when unnamed. */
  name: string;
  /** SHA-256 of the instruction sequence with address-sized constants masked; null when not decoded. */
  digest: string | null;
  instructions: number;
  /** Values of the strings its instructions reference. */
  strings: Set<string>;
  /** Names of the named procedures and imports it calls. */
  callees: Set<string>;
  /** Indices of the unnamed procedures it calls. */
  unnamedCallees: Set<number>;
  /** True when the decode stopped at the instruction bound. */
  truncated: boolean;
}

/** Every procedure profile of one document. */
export interface ProfileSet {
  profiles: ProcedureProfile[];
  /** Indices of the procedures calling each procedure (by index). */
  callers: Map<number, Set<number>>;
  /** What was bounded or could not be decoded. */
  limitations: string[];
}

/** Bounds of profiling. */
export interface ProfileLimits {
  /** Most instructions decoded in all. @default 1,000,000 */
  maxInstructions?: number;
  /** Most instructions per procedure. @default 20,000 */
  maxPerProcedure?: number;
}

/** Constants of four or more hex digits: addresses and displacements that move between builds. */
const ADDRESS_LIKE = /0x[0-9a-f]{4,}/gi;
/** PC-relative operands, whose displacement changes whenever code or data moves. */
const RIP_RELATIVE = /\[rip [+-] (?:0x[0-9a-f]+|\d+)\]/gi;

/** Profiles every procedure of a document (decoding each once, within bounds). */
export async function profileProcedures(
  program: ProgramAnalysis,
  limits: ProfileLimits = {},
  control: AnalysisControl = {},
): Promise<ProfileSet> {
  const image = program.image;
  const functions = program.procedures.functions;
  const maxInstructions = limits.maxInstructions ?? 1_000_000;
  const maxPerProcedure = limits.maxPerProcedure ?? 20_000;
  const limitations: string[] = [];
  const profiles: ProcedureProfile[] = [];
  const indexByAddress = new Map<bigint, number>();
  functions.forEach((fn, i) => indexByAddress.set(fn.address, i));
  const callers = new Map<number, Set<number>>();
  let decoded = 0;
  let boundReached = false;
  for (let i = 0; i < functions.length; i++) {
    if (control.signal?.aborted) throw control.signal.reason ?? new Error("aborted");
    const fn = functions[i]!;
    const next = functions[i + 1]?.address ?? null;
    const size = fn.size > 0n ? Number(fn.size) : next !== null ? Number(next - fn.address) : 0;
    const profile: ProcedureProfile = {
      index: i,
      address: fn.address,
      size,
      name: fn.name,
      digest: null,
      instructions: 0,
      strings: new Set(),
      callees: new Set(),
      unnamedCallees: new Set(),
      truncated: false,
    };
    profiles.push(profile);
    if (!program.decodable || addressToOffset(image, fn.address) === null) continue;
    if (decoded >= maxInstructions) {
      boundReached = true;
      continue;
    }
    const hash = createHash("sha256");
    const calls = (target: bigint): void => {
      const at = indexByAddress.get(target);
      const named = nameTarget(program, target);
      if (named.name) profile.callees.add(named.name);
      else if (at !== undefined) profile.unnamedCallees.add(at);
      if (at !== undefined) {
        const set = callers.get(at) ?? new Set<number>();
        set.add(i);
        callers.set(at, set);
      }
    };
    const scanned = await scanProcedure(image, fn, {
      maxInstructions: Math.min(maxPerProcedure, maxInstructions - decoded),
      maxBytesWhenUnsized: 1 << 20,
      withBytes: false,
      select: null,
    }, (instructions, flows) => {
      for (let k = 0; k < instructions.length; k++) {
        const insn = instructions[k]!;
        const flow = flows[k]!;
        const operands = flow.target !== null
          ? "#"
          : insn.operands.replace(RIP_RELATIVE, "[rip]").replace(ADDRESS_LIKE, "#");
        hash.update(`${insn.mnemonic} ${operands}\n`);
        if (flow.kind === "call") {
          if (flow.target !== null) calls(flow.target);
          else {
            const slot = flow.references.find((r) => program.importAt(r) !== undefined);
            if (slot !== undefined) profile.callees.add(program.importAt(slot)!.name);
          }
        }
        for (const ref of flow.references) {
          const offset = addressToOffset(image, ref);
          if (offset === null || sectionAt(image, ref)?.executable) continue;
          const text = readStringAt(image, offset);
          if (text) profile.strings.add(text.value);
        }
      }
    });
    decoded += scanned.count;
    profile.instructions = scanned.count;
    profile.truncated = scanned.truncated;
    profile.digest = hash.digest("hex");
  }
  if (!program.decodable) {
    limitations.push(
      `${image.architecture} code is not disassembled: only names and sizes compare.`,
    );
  }
  if (boundReached) {
    limitations.push(
      `The ${maxInstructions}-instruction bound was reached: later procedures have no digest, strings or callees.`,
    );
  }
  return { profiles, callers, limitations };
}
