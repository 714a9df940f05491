/**
 * The bounded function dossier behind `analyze_function`: the procedure's
 * extent, its instructions up to a cap, callees, callers, references to and
 * from it, the strings and names it uses, and its basic blocks — with every
 * bound that cut something short stated.
 *
 * @module
 */

import { sha256Hex } from "../../core/canonical_json.ts";
import { demangle } from "../disasm/demangle.ts";
import {
  addressToOffset,
  holdsCode,
  type ImageFunction,
  markedAsData,
  sectionAt,
} from "../formats/binary_image.ts";
import {
  basicBlocks,
  type DecodedProcedure,
  decodeWithFlow,
  instructionSetOf,
  procedureStretches,
  withinStretches,
} from "./code.ts";
import type { ProgramAnalysis, ReferenceIndex } from "./program.ts";
import { readStringAt } from "./strings.ts";

/** Hex with `0x`. */
export function hex(address: bigint): string {
  return `0x${address.toString(16)}`;
}

/** Limits of a dossier. */
export interface DossierLimits {
  /** Items per collection page. */
  limit: number;
  /** Instructions decoded at most. */
  maxInstructions: number;
  /** Include the instruction listing. */
  includeAssembly: boolean;
  /** First instruction of the listing page. */
  assemblyOffset: number;
  /** First item of every collection page, or of each collection by name (0 for one not named). */
  collectionOffset: number | Readonly<Record<string, number | undefined>>;
}

/** The first item of collection `name`'s page under `limits`. */
export function collectionOffsetOf(
  limits: Pick<DossierLimits, "collectionOffset">,
  name: string,
): number {
  const offset = limits.collectionOffset;
  return typeof offset === "number" ? offset : offset[name] ?? 0;
}

/** A page of a collection. */
export interface Page<T> {
  items: T[];
  total: number | null;
  returned: number;
  truncated: boolean;
  next_offset: number | null;
}

/**
 * Where a decode stopped: after its last instruction (data skipped between
 * runs of code is not counted in `decodedBytes`), or its bytes from the start.
 */
function stoppedAt(start: bigint, decoded: DecodedProcedure): bigint {
  const last = decoded.instructions.at(-1);
  return last === undefined
    ? start + BigInt(decoded.decodedBytes)
    : last.address + BigInt(last.size);
}

function page<T>(all: T[], offset: number, limit: number, totalKnown = true): Page<T> {
  const items = all.slice(offset, offset + limit);
  const more = offset + items.length < all.length;
  return {
    items,
    total: totalKnown ? all.length : null,
    returned: items.length,
    truncated: more,
    next_offset: more ? offset + items.length : null,
  };
}

/** A callee of the procedure. */
export interface CalleeEntry {
  address: string;
  name: string;
  kind: "procedure" | "import" | "unknown";
  call_sites: string[];
}

/** Names a target address: a procedure, an import, or nothing. */
export function nameTarget(
  program: ProgramAnalysis,
  address: bigint,
): { name: string; kind: "procedure" | "import" | "unknown" } {
  const fn = program.functionStartingAt(address);
  const imported = program.importAt(address);
  // An import's thunk stands for the import.
  if (imported && (!fn || fn.source === "import-thunk")) {
    return { name: imported.name, kind: "import" };
  }
  if (fn) return { name: fn.name, kind: "procedure" };
  const local = program.localBindingAt(address);
  if (local) {
    return {
      name: program.functionStartingAt(local.target)?.name || local.name,
      kind: "procedure",
    };
  }
  return { name: "", kind: "unknown" };
}

/** A procedure that calls or tail-jumps to a target, with the sites. */
export interface CallerEntry {
  address: string;
  name: string;
  call_sites: string[];
  /** Jumps to the target from this other procedure: tail calls (also to a `.cold` part). */
  tail_jump_sites?: string[];
}

/**
 * The procedures that reach `address` directly: by a call, or by a jump from
 * another procedure to it (a tail call, or a jump to a split-off `.cold` part),
 * whose sites are listed apart. A jump from inside the procedure itself is a
 * loop, not a caller.
 */
export function callersOf(
  program: ProgramAnalysis,
  index: ReferenceIndex,
  address: bigint,
): CallerEntry[] {
  const grouped = new Map<bigint, { calls: string[]; jumps: string[] }>();
  for (const ref of index.to(address)) {
    if (ref.kind === "data" || (ref.kind === "jump" && ref.procedure === address)) continue;
    let sites = grouped.get(ref.procedure);
    if (!sites) grouped.set(ref.procedure, sites = { calls: [], jumps: [] });
    (ref.kind === "call" ? sites.calls : sites.jumps).push(hex(ref.from));
  }
  return [...grouped].map(([at, { calls, jumps }]) => ({
    address: hex(at),
    name: program.functionStartingAt(at)?.name ?? "",
    call_sites: calls,
    ...(jumps.length > 0 ? { tail_jump_sites: jumps } : {}),
  }));
}

/** The completeness facts of a reference index, as results report them. */
export function referenceScanFacts(index: ReferenceIndex): {
  complete: boolean;
  scanned_procedures: number;
  total_procedures: number;
  scanned_instructions: number;
  unresolved: { indirect_calls: number; unknown_call_targets: number; sample: string[] };
} {
  return {
    complete: index.complete,
    scanned_procedures: index.scannedProcedures,
    total_procedures: index.totalProcedures,
    scanned_instructions: index.scannedInstructions,
    unresolved: {
      indirect_calls: index.unresolved.indirectCalls,
      unknown_call_targets: index.unresolved.unknownTargets,
      sample: index.unresolved.sample.map(hex),
    },
  };
}

/** Builds the dossier. `index` supplies callers and incoming references when given. */
export async function buildDossier(
  program: ProgramAnalysis,
  fn: ImageFunction,
  limits: DossierLimits,
  index: ReferenceIndex | null,
): Promise<Record<string, unknown>> {
  const image = program.image;
  const limitations: string[] = [];
  const set = instructionSetOf(image, fn);
  if (!set) {
    throw new Error(`${image.architecture} code is not disassembled by this provider`);
  }
  const { decoded, flows } = await decodeWithFlow(image, fn, {
    maxInstructions: limits.maxInstructions,
    maxBytesWhenUnsized: 1 << 20,
  });
  if (decoded.truncated) {
    limitations.push(
      `Only the first ${limits.maxInstructions} instructions were decoded; raise max_instructions (at most 5000) for the rest.`,
    );
  }
  if (decoded.stoppedOnInvalid) {
    limitations.push(
      `Decoding stopped at ${hex(stoppedAt(fn.address, decoded))}: ${
        decoded.stopReason ??
          "the bytes there are not an instruction (data in code, or a wrong extent)"
      }.`,
    );
  }
  if (fn.source === "gopclntab") {
    limitations.push(
      "The size is from Go's function table, which ends each function where the next starts: the alignment padding after its code (int3, zeros) is decoded as part of it.",
    );
  } else if (decoded.extent !== "symbol-size") {
    limitations.push(
      decoded.extent === "next-function"
        ? "The procedure has no recorded size; its extent runs to the next known procedure start."
        : "The procedure has no recorded size and no later start is known; decoding stopped at a byte cap.",
    );
  }
  const callees = new Map<bigint, CalleeEntry>();
  const tails = new Map<bigint, CalleeEntry>();
  const indirect: string[] = [];
  const outgoing: { from: string; to: string; target: string; name: string }[] = [];
  const strings = new Map<
    bigint,
    { address: string; value: string; encoding: string; terminated?: false; from: string[] }
  >();
  const names = new Set<string>();
  const parts = procedureStretches(fn, decoded.end).slice(1);
  if (parts.length > 0) {
    limitations.push(
      `The procedure's code is in ${parts.length + 1} stretches apart${
        fn.source === "pdata" ? " (the later ones from its chained .pdata entries)" : ""
      }: ${hex(fn.address)}–${hex(decoded.end)}, then ${
        parts.map((p) => `${hex(p.start)}–${hex(p.end)}`).join(", ")
      }; end and size describe the first, and the instructions, calls and blocks cover them all.`,
    );
  }
  const inside = withinStretches(fn.address, decoded.end, parts);
  /**
   * A branch through memory that names a slot (IAT, GOT), or through a register
   * loaded from one, reaches the slot's import (recorded under its stub when it
   * has one, so both forms meet) or the document's own function.
   */
  const through = program.slotCallTargets(decoded.instructions, flows);
  const recordImportSlot = (
    into: Map<bigint, CalleeEntry>,
    k: number,
    site: bigint,
  ): boolean => {
    const key = through[k] ?? null;
    if (key === null) return false;
    let entry = into.get(key);
    if (!entry) {
      entry = { address: hex(key), ...nameTarget(program, key), call_sites: [] };
      into.set(key, entry);
    }
    entry.call_sites.push(hex(site));
    if (entry.name) names.add(entry.name);
    return true;
  };
  /** Call and tail-jump sites that reach the document's own function through its PLT stub. */
  let throughOwnStubs = 0;
  const ownStub = (target: bigint): boolean =>
    image.format === "elf" && program.localBindingAt(target)?.stub === target;
  decoded.instructions.forEach((insn, k) => {
    const flow = flows[k]!;
    if (flow.kind === "call") {
      if (flow.target !== null) {
        // A call through a stub of the image's own function is a call to that function.
        const landing = program.callTarget(flow.target);
        if (ownStub(flow.target)) throughOwnStubs++;
        let entry = callees.get(landing);
        if (!entry) {
          entry = {
            address: hex(landing),
            ...nameTarget(program, landing),
            call_sites: [],
          };
          callees.set(landing, entry);
        }
        entry.call_sites.push(hex(insn.address));
        if (entry.name) names.add(entry.name);
      } else if (!recordImportSlot(callees, k, insn.address)) {
        indirect.push(hex(insn.address));
      }
    }
    if (flow.kind === "jump" || flow.kind === "conditional-jump") {
      if (flow.target !== null && !inside(flow.target)) {
        const landing = program.callTarget(flow.target);
        if (ownStub(flow.target)) throughOwnStubs++;
        let entry = tails.get(landing);
        if (!entry) {
          entry = {
            address: hex(landing),
            ...nameTarget(program, landing),
            call_sites: [],
          };
          tails.set(landing, entry);
        }
        entry.call_sites.push(hex(insn.address));
      } else if (flow.target === null) {
        recordImportSlot(tails, k, insn.address);
      }
    }
    for (const ref of flow.references) {
      const offset = addressToOffset(image, ref);
      const target = nameTarget(program, ref);
      const section = sectionAt(image, ref);
      // Data in an executable segment (a Mach-O `__TEXT,__cstring`) is still data.
      const code = section !== undefined && holdsCode(section);
      const text = offset !== null && !code ? readStringAt(image, offset) : null;
      let kind = "unmapped";
      if (text) {
        kind = "string";
        const known = strings.get(ref);
        if (known) known.from.push(hex(insn.address));
        else {strings.set(ref, {
            address: hex(ref),
            value: text.value,
            encoding: text.encoding,
            ...(text.terminated ? {} : { terminated: false as const }),
            from: [hex(insn.address)],
          });}
      } else if (target.kind !== "unknown") {
        kind = target.kind;
        if (target.name) names.add(target.name);
      } else if (section) kind = code && !markedAsData(image, ref) ? "code" : "data";
      outgoing.push({ from: hex(insn.address), to: hex(ref), target: kind, name: target.name });
    }
  });
  const blocks = basicBlocks(decoded.instructions, flows, fn.address, decoded.end, parts);
  const callers: CallerEntry[] = [];
  const incoming: { from: string; procedure: string; kind: string }[] = [];
  if (index) {
    for (const ref of index.to(fn.address)) {
      incoming.push({ from: hex(ref.from), procedure: hex(ref.procedure), kind: ref.kind });
    }
    for (const caller of callersOf(program, index, fn.address)) callers.push(caller);
    if (!index.complete) limitations.push(...index.limitations.map((l) => `Callers: ${l}`));
  } else {
    limitations.push(
      "Callers and incoming references were not computed (include_callers was false).",
    );
  }
  if (indirect.length > 0) {
    limitations.push(
      `${indirect.length} indirect call site(s): their targets are unknown statically.`,
    );
  }
  if (throughOwnStubs > 0) {
    limitations.push(
      `${throughOwnStubs} call or jump site(s) go through this object's own PLT stubs to its own ` +
        "exported functions and are listed as those functions: the dynamic loader binds such " +
        "calls by symbol name, so a definition loaded before this object (the executable's, an " +
        "LD_PRELOAD library's) would be called instead.",
    );
  }
  const unterminated = [...strings.values()].filter((s) => s.terminated === false).length;
  if (unterminated > 0) {
    limitations.push(
      `${unterminated} referenced string(s) have no NUL after them (terminated: false; ` +
        "length-delimited strings, as Rust, Go and Swift store them): each value runs to the end " +
        "of its printable run, which may hold the strings packed after it.",
    );
  }
  const { limit } = limits;
  const at = (name: string): number => collectionOffsetOf(limits, name);
  const listing = decoded.instructions.map((insn) => ({
    address: hex(insn.address),
    bytes: [...insn.bytes].map((b) => b.toString(16).padStart(2, "0")).join(""),
    mnemonic: insn.mnemonic,
    operands: insn.operands,
  }));
  const calleeList = [...callees.values()].sort((
    a,
    b,
  ) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
  const mnemonics = decoded.instructions.map((i) => i.mnemonic);
  const counts: Record<string, number> = {};
  for (const m of mnemonics) counts[m] = (counts[m] ?? 0) + 1;
  return {
    procedure: {
      address: hex(fn.address),
      name: fn.name,
      demangled: demangle(fn.name),
      source: fn.source,
      size: fn.size > 0n ? Number(fn.size) : null,
      end: hex(decoded.end),
      extent: decoded.extent,
      signature: null,
      locals: null,
      // A call seen makes it non-leaf; no call seen proves a leaf only when decoding covered it.
      classification: callees.size > 0 || indirect.length > 0
        ? "non-leaf"
        : decoded.truncated || decoded.instructions.length === 0
        ? null
        : "leaf",
    },
    pseudocode: null,
    assembly: limits.includeAssembly
      ? page(listing, limits.assemblyOffset, Math.min(limit * 5, 2500))
      : null,
    callers: page(callers, at("callers"), limit, index?.complete ?? false),
    callees: page(calleeList, at("callees"), limit),
    tail_jumps: page([...tails.values()], at("tail_jumps"), limit),
    indirect_call_sites: page(indirect, at("indirect_call_sites"), limit),
    incoming_references: page(incoming, at("incoming_references"), limit, index?.complete ?? false),
    outgoing_references: page(outgoing, at("outgoing_references"), limit),
    referenced_strings: page([...strings.values()], at("referenced_strings"), limit),
    referenced_names: page([...names].sort(), at("referenced_names"), limit),
    basic_blocks: page(blocks, at("basic_blocks"), limit),
    fingerprint: {
      mnemonics_sha256: sha256Hex(mnemonics.join("\n")),
      mnemonic_counts: counts,
      instruction_count: mnemonics.length,
    },
    instruction_scan: {
      scanned: decoded.instructions.length,
      bytes: decoded.decodedBytes,
      truncated: decoded.truncated,
      stopped_on_invalid: decoded.stoppedOnInvalid,
    },
    limitations: [
      "No decompiler is available: pseudocode, signature and locals are not recovered.",
      ...limitations,
    ],
  };
}
