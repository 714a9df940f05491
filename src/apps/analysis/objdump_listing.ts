/**
 * Reading GNU objdump's text output: the section headers of `-h`, the symbol
 * tables of `-t -T`, and the instruction lines of `-d -w`. From a
 * disassembly it builds the same dossier shape the native provider builds
 * from Capstone, reporting as unknown what objdump's listing does not say.
 *
 * @module
 */

import { sha256Hex } from "../../core/canonical_json.ts";
import { demangle } from "../disasm/demangle.ts";
import {
  type ExportVersions,
  HIDDEN_VERSION,
  type ImageExport,
  type ImageFunction,
} from "../formats/binary_image.ts";
import {
  type CalleeEntry,
  collectionOffsetOf,
  type DossierLimits,
  hex,
  type Page,
} from "./dossier.ts";
import type { ProcedureTable } from "./procedures.ts";
import { type BasicBlock, basicBlocks } from "./code.ts";

/** Defined function symbols from `objdump -t -T -w`, one per address. */
export interface SymbolListing {
  /** Ascending. */
  addresses: bigint[];
  /** The preferred (first sorted) name at each address. */
  names: string[];
  /** The procedures, ascending, with every name, the largest size and the table they came from. */
  functions: ImageFunction[];
  /** Whether objdump printed a static symbol table with entries (false: stripped or none). */
  hasStaticSymbols: boolean;
  /** The defined functions of the dynamic symbol table, in its order. */
  exports: ImageExport[];
  /**
   * Their symbol versions, from `-T`'s version column (`GLIBC_2.14` a default version,
   * `(GLIBC_2.2.5)` another; `Base` none); absent when none carries one.
   */
  exportVersions?: ExportVersions;
}

/** An allocated section from `objdump -h -w`. */
export interface ListedSection {
  name: string;
  address: bigint;
  size: bigint;
  code: boolean;
}

const SYMBOL_LINE = /^([0-9a-f]{8,16}) (.{7}) (\S+)\s+([0-9a-f]+)\s+(?:(\(\S+\)|\S+)\s+)?(\S+)$/;

/**
 * Parses `objdump -t -T -w` output: defined function symbols (flag F) and indirect functions
 * (flag i).
 *
 * @example
 * ```ts
 * import { parseObjdumpSymbols } from "./objdump_listing.ts";
 * const text = "SYMBOL TABLE:\n0000000000001149 l     F .text\t000000000000000f              helper\n";
 * parseObjdumpSymbols(text).functions[0]?.size; // 15n
 * ```
 */
export function parseObjdumpSymbols(text: string): SymbolListing {
  const byAddress = new Map<
    bigint,
    { names: string[]; size: bigint; source: "symtab" | "dynsym" }
  >();
  let table: "symtab" | "dynsym" = "symtab";
  let hasStaticSymbols = false;
  const exports: ImageExport[] = [];
  const codes: number[] = [];
  const versionNames: string[] = [];
  const versionIndex = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line.startsWith("DYNAMIC SYMBOL TABLE:")) table = "dynsym";
    else if (line.startsWith("SYMBOL TABLE:")) table = "symtab";
    // address, 7 flag columns, section, size, [version], name
    const m = SYMBOL_LINE.exec(line);
    if (!m) continue;
    if (table === "symtab") hasStaticSymbols = true;
    const [, address, flags, section, size, version] = m;
    // A function (F in the type column) or an indirect function (i: an IFUNC, as memcpy in libc).
    if ((flags![6] !== "F" && flags![4] !== "i") || section === "*UND*") continue;
    const name = m[6]!.replace(/@.*$/, "");
    const key = BigInt(`0x${address}`);
    if (table === "dynsym") {
      exports.push({ name, address: key });
      // "Base" is the file's own base version: nm -D writes no version for it.
      const hidden = version?.startsWith("(") ?? false;
      const named = hidden ? version!.slice(1, -1) : version;
      let code = 0;
      if (named !== undefined && named !== "Base") {
        let at = versionIndex.get(named);
        if (at === undefined) {
          at = versionNames.push(named);
          versionIndex.set(named, at);
        }
        code = at | (hidden ? HIDDEN_VERSION : 0);
      }
      codes.push(code);
    }
    const entry = byAddress.get(key) ?? { names: [], size: 0n, source: table };
    if (!entry.names.includes(name)) entry.names.push(name);
    const bytes = BigInt(`0x${size}`);
    if (bytes > entry.size) entry.size = bytes;
    if (table === "symtab") entry.source = "symtab";
    byAddress.set(key, entry);
  }
  const addresses = [...byAddress.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const functions = addresses.map((address): ImageFunction => {
    const entry = byAddress.get(address)!;
    const names = entry.names.sort();
    return { address, size: entry.size, name: names[0]!, names, source: entry.source };
  });
  return {
    addresses,
    names: functions.map((f) => f.name),
    functions,
    hasStaticSymbols,
    exports,
    ...(versionNames.length > 0
      ? { exportVersions: { names: versionNames, index: Uint16Array.from(codes) } }
      : {}),
  };
}

const SECTION_LINE =
  /^\s*\d+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+[0-9a-f]+\s+2\*\*\d+\s*(.*)$/;

/** Parses the allocated sections of `objdump -h -w` output. */
export function parseObjdumpSections(text: string): ListedSection[] {
  const sections: ListedSection[] = [];
  for (const line of text.split("\n")) {
    const m = SECTION_LINE.exec(line);
    if (!m || !/\bALLOC\b/.test(m[4]!)) continue;
    sections.push({
      name: m[1]!,
      size: BigInt(`0x${m[2]}`),
      address: BigInt(`0x${m[3]}`),
      code: /\bCODE\b/.test(m[4]!),
    });
  }
  return sections;
}

/** One instruction line of `objdump -d -w`. */
export interface ListedInstruction {
  address: bigint;
  /** Raw bytes as objdump prints them (hex pairs, no spaces). */
  bytes: string;
  /** Mnemonic with its prefixes, as objdump spells it. */
  mnemonic: string;
  /** Operands without objdump's trailing comment. */
  operands: string;
  /** The `<symbol>` or `<symbol+0x..>` objdump printed after a branch target, if any. */
  annotation: string | null;
  /** The address in objdump's `# address <symbol>` comment, if any. */
  commentAddress: bigint | null;
  /** The symbol in that comment, if any. */
  commentSymbol: string | null;
}

const INSTRUCTION_LINE = /^\s*([0-9a-f]+):\t((?:[0-9a-f]{2,8} ?)+)\s*(?:\t(.*))?$/;
const X86_PREFIXES = new Set([
  "rep",
  "repz",
  "repe",
  "repnz",
  "repne",
  "lock",
  "bnd",
  "notrack",
  "data16",
  "data32",
  "addr16",
  "addr32",
  "cs",
  "ds",
  "ss",
  "es",
  "fs",
  "gs",
  "xacquire",
  "xrelease",
]);

/**
 * Parses one line of `objdump -d -w` output. Returns an instruction, `"bad"`
 * for objdump's `(bad)` (bytes that are not an instruction), a continuation
 * of the previous instruction's bytes, or null for any other line.
 */
export function parseInstructionLine(
  line: string,
): ListedInstruction | { continuation: string } | "bad" | null {
  const m = INSTRUCTION_LINE.exec(line);
  if (!m) return null;
  const bytes = m[2]!.replace(/\s+/g, "");
  let text = (m[3] ?? "").trim();
  if (text === "") return { continuation: bytes };
  if (text.includes("(bad)")) return "bad";
  let commentAddress: bigint | null = null;
  let commentSymbol: string | null = null;
  const comment = /\s+(?:#|\/\/|@|;)\s*([0-9a-f]+)?\s*(?:<([^>]+)>)?\s*$/.exec(text);
  if (comment && (comment[1] !== undefined || comment[2] !== undefined)) {
    if (comment[1] !== undefined) commentAddress = BigInt(`0x${comment[1]}`);
    commentSymbol = comment[2] ?? null;
    text = text.slice(0, comment.index).trim();
  }
  const words = text.split(/\s+/);
  let k = 0;
  while (k < words.length - 1 && (X86_PREFIXES.has(words[k]!) || /^rex(\.\w+)?$/.test(words[k]!))) {
    k++;
  }
  const mnemonic = words.slice(0, k + 1).join(" ");
  let operands = words.slice(k + 1).join(" ");
  let annotation: string | null = null;
  const annotated = /^(.*?)\s*<([^>]+)>$/.exec(operands);
  if (annotated) {
    operands = annotated[1]!;
    annotation = annotated[2]!;
  }
  return {
    address: BigInt(`0x${m[1]}`),
    bytes,
    mnemonic,
    operands,
    annotation,
    commentAddress,
    commentSymbol,
  };
}

/** What one listed instruction does to control flow. */
export interface ListedFlow {
  kind: "call" | "jump" | "conditional-jump" | "return" | "other";
  /** Direct target objdump printed, or null. */
  target: bigint | null;
  indirect: boolean;
}

/** The instruction families whose branches this module reads. */
export type ListingArchitecture = "x86" | "arm64" | "arm";

const HEX_TARGET = /^(?:0x)?([0-9a-f]+)$/;

/** Reads a listed instruction's control flow from its mnemonic and printed target. */
export function listedFlow(
  architecture: ListingArchitecture,
  insn: ListedInstruction,
): ListedFlow {
  const words = insn.mnemonic.toLowerCase().split(" ");
  const base = words[words.length - 1]!;
  const operands = insn.operands.toLowerCase();
  const last = operands.split(",").pop()?.trim() ?? "";
  const flow: ListedFlow = { kind: "other", target: null, indirect: false };
  const direct = (text: string): void => {
    // objdump prints a direct target as bare hex (then its `<symbol>`); registers are not hex.
    const m = HEX_TARGET.exec(text);
    if (m) flow.target = BigInt(`0x${m[1]}`);
    else flow.indirect = true;
  };
  if (architecture === "x86") {
    if (/^l?callq?$/.test(base)) flow.kind = "call";
    else if (/^l?jmpq?$/.test(base)) flow.kind = "jump";
    else if (/^(j[a-z]+|loop[a-z]*)$/.test(base)) flow.kind = "conditional-jump";
    else if (/^(ret[fqlw]?|iret[dqw]?|sysret[lq]?)$/.test(base)) flow.kind = "return";
    if (flow.kind === "call" || flow.kind === "jump" || flow.kind === "conditional-jump") {
      direct(operands.replace(/^\*/, ""));
      if (operands.startsWith("*") || /\[|\(/.test(operands)) {
        flow.target = null;
        flow.indirect = true;
      }
    }
    return flow;
  }
  if (architecture === "arm64") {
    if (base === "bl") flow.kind = "call";
    else if (base === "b") flow.kind = "jump";
    else if (/^(b\.[a-z]+|cbn?z|tbn?z)$/.test(base)) flow.kind = "conditional-jump";
    else if (/^reta?[ab]?$/.test(base)) flow.kind = "return";
    else if (/^blr/.test(base)) {
      flow.kind = "call";
      flow.indirect = true;
    } else if (/^br/.test(base)) {
      flow.kind = "jump";
      flow.indirect = true;
    }
    if (!flow.indirect && flow.kind !== "other" && flow.kind !== "return") direct(last);
    return flow;
  }
  if (/^blx?$/.test(base)) {
    flow.kind = "call";
    direct(last);
  } else if (/^b(\.w|\.n)?$/.test(base)) {
    flow.kind = "jump";
    direct(last);
  } else if (
    /^b(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)(\.w|\.n)?$/.test(base) ||
    /^cbn?z$/.test(base)
  ) {
    flow.kind = "conditional-jump";
    direct(last);
  } else if (base === "bx" && operands === "lr") flow.kind = "return";
  else if (base === "bx") {
    flow.kind = "jump";
    flow.indirect = true;
  } else if (/^pop/.test(base) && operands.includes("pc")) flow.kind = "return";
  return flow;
}

/** A bounded read of one procedure's disassembly. */
export interface ListedProcedure {
  instructions: ListedInstruction[];
  /** True when objdump listed more instructions than the cap. */
  truncated: boolean;
  /** True when objdump printed `(bad)` before the end of the range. */
  stoppedOnInvalid: boolean;
  /** The end of the range objdump was asked for. */
  end: bigint;
  /** How `end` was determined. */
  extent: "symbol-size" | "next-function" | "byte-cap";
}

/** Collects instruction lines up to a cap; `add` returns false once it needs no more lines. */
export class ListingCollector {
  readonly instructions: ListedInstruction[] = [];
  truncated = false;
  stoppedOnInvalid = false;
  readonly #max: number;

  /** Keeps at most `maxInstructions` instructions. */
  constructor(maxInstructions: number) {
    this.#max = maxInstructions;
  }

  /** Feeds one output line; false once the cap or a `(bad)` line was reached. */
  add(line: string): boolean {
    const parsed = parseInstructionLine(line);
    if (parsed === null) return true;
    if (parsed === "bad") {
      this.stoppedOnInvalid = true;
      return false;
    }
    if ("continuation" in parsed) {
      const last = this.instructions[this.instructions.length - 1];
      if (last) last.bytes += parsed.continuation;
      return true;
    }
    if (this.instructions.length >= this.#max) {
      this.truncated = true;
      return false;
    }
    this.instructions.push(parsed);
    return true;
  }
}

function page<T>(all: T[], offset: number, limit: number): Page<T> {
  const items = all.slice(offset, offset + limit);
  const more = offset + items.length < all.length;
  return {
    items,
    total: all.length,
    returned: items.length,
    truncated: more,
    next_offset: more ? offset + items.length : null,
  };
}

/** A page whose contents objdump's listing does not give. */
function unknownPage(): null {
  return null;
}

/**
 * Builds a dossier from objdump's listing of one procedure. Branches are read
 * from objdump's printed targets and `<symbol>` annotations; callee kinds come
 * from objdump's own symbol table (`table`) and its `@plt` names.
 */
export function listingDossier(
  fn: ImageFunction,
  listed: ListedProcedure,
  options: {
    architecture: ListingArchitecture | null;
    table: ProcedureTable;
    limits: DossierLimits;
  },
): { dossier: Record<string, unknown>; limitations: string[] } {
  const { architecture, table, limits } = options;
  const limitations: string[] = [
    "No decompiler is available: pseudocode, signature and locals are not recovered.",
    "objdump's listing does not classify data references: outgoing references, referenced strings and referenced names are not reported (null).",
    "Callers and incoming references are not computed by the objdump provider (null).",
  ];
  const { instructions } = listed;
  const sizeOf = (k: number): number => instructions[k]!.bytes.length / 2;
  const decodedBytes = instructions.reduce((sum, _i, k) => sum + sizeOf(k), 0);
  const last = instructions[instructions.length - 1];
  const reached = last ? last.address + BigInt(sizeOf(instructions.length - 1)) : fn.address;
  if (listed.truncated) {
    limitations.push(
      `Only the first ${limits.maxInstructions} instructions were read; raise max_instructions (at most 5000) for the rest.`,
    );
  }
  if (listed.stoppedOnInvalid) {
    limitations.push(
      `objdump printed (bad) at ${
        hex(reached)
      }: the bytes there are not an instruction (data in code, or a wrong extent); reading stopped.`,
    );
  } else if (!listed.truncated && reached < listed.end) {
    limitations.push(
      `objdump's listing ends at ${hex(reached)}, before the extent's end ${
        hex(listed.end)
      } (the range leaves the code sections objdump disassembles).`,
    );
  }
  if (listed.extent !== "symbol-size") {
    limitations.push(
      listed.extent === "next-function"
        ? "The procedure has no size in objdump's symbol table; its extent runs to the next symbol objdump lists."
        : "The procedure has no size in objdump's symbol table and no later symbol is listed; the range stopped at a byte cap.",
    );
  }
  const inside = (a: bigint): boolean => a >= fn.address && a < listed.end;
  const callees = new Map<bigint, CalleeEntry & { annotation: string | null }>();
  const tails = new Map<bigint, CalleeEntry & { annotation: string | null }>();
  const indirect: string[] = [];
  const flows = architecture === null ? null : instructions.map((i) => listedFlow(architecture, i));
  const nameOf = (
    target: bigint,
    annotation: string | null,
  ): { name: string; kind: CalleeEntry["kind"] } => {
    const known = table.functionStartingAt(target);
    if (known) return { name: known.name, kind: "procedure" };
    const plt = annotation === null ? null : /^([^+@]+)@plt$/.exec(annotation);
    if (plt) return { name: plt[1]!, kind: "import" };
    return { name: "", kind: "unknown" };
  };
  const record = (
    into: Map<bigint, CalleeEntry & { annotation: string | null }>,
    target: bigint,
    insn: ListedInstruction,
    annotation: string | null,
  ): void => {
    let entry = into.get(target);
    if (!entry) {
      entry = { address: hex(target), ...nameOf(target, annotation), call_sites: [], annotation };
      into.set(target, entry);
    }
    entry.call_sites.push(hex(insn.address));
  };
  instructions.forEach((insn, k) => {
    const flow = flows?.[k];
    if (!flow) return;
    if (flow.kind === "call") {
      if (flow.target !== null) record(callees, flow.target, insn, insn.annotation);
      else {
        // A call through a memory slot objdump names as a versioned import (`name@VERSION`).
        const slot = insn.commentSymbol === null
          ? null
          : /^([^+@]+)@(?!@)[^+]+$/.exec(insn.commentSymbol);
        if (slot && insn.commentAddress !== null) {
          let entry = callees.get(insn.commentAddress);
          if (!entry) {
            entry = {
              address: hex(insn.commentAddress),
              name: slot[1]!,
              kind: "import",
              call_sites: [],
              annotation: insn.commentSymbol,
            };
            callees.set(insn.commentAddress, entry);
          }
          entry.call_sites.push(hex(insn.address));
        } else indirect.push(hex(insn.address));
      }
    }
    if (
      (flow.kind === "jump" || flow.kind === "conditional-jump") && flow.target !== null &&
      !inside(flow.target)
    ) {
      record(tails, flow.target, insn, insn.annotation);
    }
  });
  let blocks: BasicBlock[] | null = null;
  if (flows) {
    const sized = instructions.map((insn, k) => ({ address: insn.address, size: sizeOf(k) }));
    blocks = basicBlocks(sized, flows, fn.address, listed.end);
  } else {
    limitations.push(
      "This architecture's branches are not read from objdump's listing: callees, tail jumps, indirect call sites and basic blocks are unknown (null).",
    );
  }
  if (indirect.length > 0) {
    limitations.push(
      `${indirect.length} indirect call site(s): their targets are unknown statically.`,
    );
  }
  const { limit } = limits;
  const at = (name: string): number => collectionOffsetOf(limits, name);
  const listing = instructions.map((insn) => ({
    address: hex(insn.address),
    bytes: insn.bytes,
    mnemonic: insn.mnemonic,
    operands: insn.operands,
    annotation: insn.annotation,
  }));
  const calleeList = [...callees.values()].sort((a, b) =>
    BigInt(a.address) < BigInt(b.address) ? -1 : 1
  );
  const mnemonics = instructions.map((i) => i.mnemonic);
  const counts: Record<string, number> = {};
  for (const m of mnemonics) counts[m] = (counts[m] ?? 0) + 1;
  return {
    dossier: {
      procedure: {
        address: hex(fn.address),
        name: fn.name,
        demangled: demangle(fn.name),
        source: fn.source,
        size: fn.size > 0n ? Number(fn.size) : null,
        end: hex(listed.end),
        extent: listed.extent,
        signature: null,
        locals: null,
        // No call read proves a leaf only when the listing covered the procedure.
        classification: flows === null
          ? null
          : callees.size > 0 || indirect.length > 0
          ? "non-leaf"
          : listed.truncated || instructions.length === 0
          ? null
          : "leaf",
      },
      pseudocode: null,
      assembly: limits.includeAssembly
        ? page(listing, limits.assemblyOffset, Math.min(limit * 5, 2500))
        : null,
      callers: unknownPage(),
      callees: flows ? page(calleeList, at("callees"), limit) : unknownPage(),
      tail_jumps: flows ? page([...tails.values()], at("tail_jumps"), limit) : unknownPage(),
      indirect_call_sites: flows ? page(indirect, at("indirect_call_sites"), limit) : unknownPage(),
      incoming_references: unknownPage(),
      outgoing_references: unknownPage(),
      referenced_strings: unknownPage(),
      referenced_names: unknownPage(),
      basic_blocks: blocks ? page(blocks, at("basic_blocks"), limit) : unknownPage(),
      fingerprint: {
        mnemonics_sha256: sha256Hex(mnemonics.join("\n")),
        mnemonic_counts: counts,
        instruction_count: mnemonics.length,
        mnemonic_spelling: "objdump",
      },
      instruction_scan: {
        scanned: instructions.length,
        bytes: decodedBytes,
        truncated: listed.truncated,
        stopped_on_invalid: listed.stoppedOnInvalid,
      },
      reference_scan: null,
    },
    limitations,
  };
}
