/**
 * The static-analysis tools of the apps workbench: overview, string and
 * procedure search, address resolution, the function dossier, references,
 * callers and callees, call paths, feature traces and function comparison.
 * Handlers translate arguments and results; the analysis lives in `analysis/`.
 *
 * @module
 */

import { z } from "zod";
import type { ToolContext, ToolDefinition, ToolOutcome } from "../core/catalog.ts";
import { ToolFailure } from "../core/errors.ts";
import type { EvidenceDraft, EvidenceLedger, EvidenceRecord } from "../core/evidence.ts";
import {
  buildDossier,
  callersOf,
  hex,
  nameTarget,
  referenceScanFacts,
} from "./analysis/dossier.ts";
import type { ProcedureTable } from "./analysis/procedures.ts";
import { decodeWithFlow, instructionSetOf } from "./analysis/code.ts";
import type { AnalysisControl, ProgramAnalysis, ReferenceIndex } from "./analysis/program.ts";
import { describeString, stringEncoding, stringMatcher, stringValue } from "./analysis/strings.ts";
import { demangle } from "./disasm/demangle.ts";
import type { BinaryImage, ImageFunction } from "./formats/binary_image.ts";
import {
  type AnalysisProvider,
  dossierFrom,
  notDisassembled,
  procedureLookupOf,
} from "./providers/provider.ts";
import type { BinarySession } from "./session/binary_session.ts";
import type { LoadedTarget } from "./session/target.ts";
import {
  ANALYZE_FUNCTION,
  BINARY_OVERVIEW,
  BUILD_CALL_PATH,
  COMPARE_FUNCTIONS,
  PROCEDURE_ADDRESS,
  PROCEDURE_CALLEES,
  PROCEDURE_CALLERS,
  RESOLVE_CONTAINING_PROCEDURE,
  SEARCH_PROCEDURES,
  SEARCH_STRINGS,
  TRACE_FEATURE,
  XREFS,
} from "./tool_names.ts";

/** What the analysis tools need from the workbench. */
export interface AnalysisToolDeps {
  session: BinarySession;
  ledger: EvidenceLedger;
  /** Builds the Evidence outcome of an observation about one document. */
  observation(
    operation: string,
    provider: AnalysisProvider,
    target: LoadedTarget,
    image: BinaryImage,
    parameters: Record<string, unknown>,
    result: Record<string, unknown>,
  ): { kind: "evidence"; draft: EvidenceDraft & { limitations: string[] } };
}

const ADDRESS = /^0x[0-9a-fA-F]{1,16}$/;

const document = z.string().max(4096).optional().describe(
  "A document from list_documents; the current document when left out.",
);
const address = z.string().regex(ADDRESS, "an address is 0x followed by 1 to 16 hex digits")
  .describe(
    "An address: 0x followed by hex digits.",
  );
const procedure = z.string().min(1).max(4096).describe(
  "A procedure: its 0x start address, or its name (raw or demangled).",
);
const offset = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).describe(
  "Index of the first item to return.",
);
const limitOf = (max: number, fallback: number) =>
  z.number().int().min(1).max(max).default(fallback).describe(`Items per page (1 to ${max}).`);
const anyResult = z.record(z.string(), z.unknown());

/** The query fields shared by the search tools. */
const searchFields = {
  query: z.string().min(1).max(4096).describe("The text, or the pattern when mode is regex."),
  mode: z.enum(["literal", "regex"]).default("literal").describe("literal (substring) or regex."),
  case_sensitive: z.boolean().default(false).describe("Match case exactly."),
};

/** The largest regular expression accepted by the search tools. */
export const MAX_PATTERN_LENGTH = 256;
// Nested quantifiers such as (a+)+ can take exponential time; JavaScript cannot interrupt a regex.
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{]/;

function compileQuery(
  query: string,
  mode: "literal" | "regex",
  caseSensitive: boolean,
): (value: string) => boolean {
  if (mode === "regex") {
    if (query.length > MAX_PATTERN_LENGTH) {
      throw new ToolFailure(
        "invalid_request",
        `The pattern is ${query.length} characters; at most ${MAX_PATTERN_LENGTH}.`,
      );
    }
    if (NESTED_QUANTIFIER.test(query)) {
      throw new ToolFailure(
        "invalid_request",
        "The pattern nests quantifiers (like (a+)+), which can take exponential time; rewrite it without nesting.",
      );
    }
    try {
      return stringMatcher(query, mode, caseSensitive);
    } catch (error) {
      throw new ToolFailure(
        "invalid_request",
        `Invalid regular expression: ${(error as Error).message}`,
      );
    }
  }
  return stringMatcher(query, mode, caseSensitive);
}

interface ListPage<T> {
  items: T[];
  offset: number;
  limit: number;
  total: number;
  has_more: boolean;
  next_offset: number | null;
}

function matcherOf(args: Record<string, unknown>): (value: string) => boolean {
  return compileQuery(
    args.query as string,
    args.mode as "literal" | "regex",
    args.case_sensitive as boolean,
  );
}

function pageOf<T>(all: T[], start: number, limit: number): ListPage<T> {
  const items = all.slice(start, start + limit);
  const end = start + items.length;
  return {
    items,
    offset: start,
    limit,
    total: all.length,
    has_more: end < all.length,
    next_offset: end < all.length ? end : null,
  };
}

/** The lookups `findProcedure` needs: a `ProcedureTable`, or a `ProgramAnalysis`. */
export type ProcedureFinder = Pick<
  ProcedureTable,
  "functionStartingAt" | "containing" | "functionsNamed"
>;

/** Finds a procedure by address or name, with clear errors. */
export function findProcedure(program: ProcedureFinder, text: string): ImageFunction {
  if (ADDRESS.test(text)) {
    const at = BigInt(text);
    const fn = program.functionStartingAt(at);
    if (fn) return fn;
    const containing = program.containing(at);
    throw new ToolFailure(
      "invalid_request",
      containing
        ? `${text} is inside procedure ${
          hex(containing.fn.address)
        } ${containing.fn.name}, not its start.`
        : `No procedure starts at ${text}.`,
      {
        action:
          "Call resolve_containing_procedure for an address inside a procedure, or procedure_address for a name.",
      },
    );
  }
  const named = program.functionsNamed(text);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    throw new ToolFailure(
      "invalid_request",
      `${named.length} procedures are named ${JSON.stringify(text)}: ${
        named.slice(0, 10).map((f) => hex(f.address)).join(", ")
      }.`,
      { action: "Pass the 0x address of the one you mean." },
    );
  }
  throw new ToolFailure("invalid_request", `No procedure is named ${JSON.stringify(text)}.`, {
    action: "Call search_procedures to find the name, or pass a 0x address.",
  });
}

function progressOf(context: ToolContext): AnalysisControl {
  return {
    signal: context.signal,
    onProgress: (done: number, total: number, message: string) =>
      context.progress(done, total, message),
  };
}

async function indexFor(program: ProgramAnalysis, context: ToolContext): Promise<ReferenceIndex> {
  return await program.references({}, progressOf(context));
}

const indexFacts = referenceScanFacts;

/** The parts of a retained dossier that comparison reads. */
interface Dossier {
  procedure?: { size?: number | null; address?: string; name?: string };
  fingerprint?: { mnemonics_sha256?: string; instruction_count?: number };
  instruction_scan?: { truncated?: boolean };
  /** Null when the provider does not report the collection. */
  callees?: { items: { name?: string; address?: string }[]; truncated?: boolean } | null;
  referenced_strings?:
    | { items: { value?: string; address?: string }[]; truncated?: boolean }
    | null;
  basic_blocks?: { total?: number | null } | null;
}

/** Builds the analysis tools. */
export function analysisTools(deps: AnalysisToolDeps): ToolDefinition[] {
  const { session, ledger, observation } = deps;

  const observe = (
    operation: string,
    documentName: string | undefined,
    parameters: Record<string, unknown>,
    compute: (
      scope: ReturnType<BinarySession["analysis"]>,
    ) => Promise<{ result: Record<string, unknown>; limitations?: string[] }>,
  ): Promise<ToolOutcome> =>
    (async () => {
      await session.idle();
      const scope = session.analysis(operation, documentName);
      const { result, limitations } = await compute(scope);
      const outcome = observation(
        operation,
        scope.provider,
        scope.target,
        scope.image,
        parameters,
        {
          document: scope.document,
          ...result,
        },
      );
      outcome.draft.limitations.push(...(limitations ?? []));
      return outcome;
    })();

  return [
    {
      name: BINARY_OVERVIEW,
      description:
        "Summarise a document: format, architecture, entry point, procedure counts by source, imports, exports, libraries, a sample of sections and the string count. Scans the strings once (progress is reported).",
      input: z.strictObject({ document }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context) =>
        observe(
          BINARY_OVERVIEW,
          args.document as string | undefined,
          context.parameters,
          async ({ image, program }) => {
            const strings = await program.strings(progressOf(context));
            const bySource: Record<string, number> = {};
            for (const fn of image.functions) bySource[fn.source] = (bySource[fn.source] ?? 0) + 1;
            return {
              result: {
                format: image.format,
                architecture: image.architecture,
                machine: image.machine,
                bits: image.bits,
                endianness: image.endianness,
                entry: image.entry === null ? null : hex(image.entry),
                build_id: image.buildId,
                procedure_count: image.functions.length,
                procedures_by_source: bySource,
                import_count: image.imports.length,
                export_count: image.exports.length,
                libraries: image.libraries.slice(0, 100),
                string_count: strings.count,
                section_count: image.sections.length,
                sections: image.sections.slice(0, 32).map((s) => ({
                  name: s.name,
                  address: hex(s.address),
                  size: Number(s.size),
                  flags: `${s.readable ? "r" : "-"}${s.writable ? "w" : "-"}${
                    s.executable ? "x" : "-"
                  }`,
                })),
                disassembly: instructionSetOf(image) ?? "unavailable",
              },
              limitations: [
                ...(image.sections.length > 32
                  ? [`Only the first 32 of ${image.sections.length} sections are listed.`]
                  : []),
                ...(image.libraries.length > 100
                  ? [`Only the first 100 of ${image.libraries.length} libraries are listed.`]
                  : []),
              ],
            };
          },
        ),
    },
    {
      name: SEARCH_STRINGS,
      description:
        "Search the document's strings (printable ASCII and UTF-16LE runs of 4 or more, anywhere in the file, as `strings -a` finds them) by literal substring (default) or regular expression; case-insensitive unless case_sensitive. Paged, at most 100 per page; total counts every match.",
      input: z.strictObject({
        ...searchFields,
        encoding: z.enum(["any", "ascii", "utf-16le"]).default("any").describe(
          "Restrict to one encoding.",
        ),
        offset,
        limit: limitOf(100, 20),
        document,
      }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context) => {
        const matcher = matcherOf(args);
        return observe(
          SEARCH_STRINGS,
          args.document as string | undefined,
          context.parameters,
          async ({ image, program }) => {
            const table = await program.strings(progressOf(context));
            const wanted = args.encoding === "ascii" ? 0 : args.encoding === "utf-16le" ? 1 : -1;
            const hits: number[] = [];
            for (let i = 0; i < table.count; i++) {
              if (wanted >= 0 && stringEncoding(image.bytes, table, i) !== wanted) continue;
              if (matcher(stringValue(image.bytes, table, i, 4096))) hits.push(i);
              if ((i & 0xffff) === 0 && context.signal.aborted) {
                throw new ToolFailure(
                  "cancelled",
                  "search_strings was cancelled.",
                );
              }
            }
            const page = pageOf(hits, args.offset as number, args.limit as number);
            return {
              result: {
                query: args.query,
                mode: args.mode,
                ...page,
                items: page.items.map((i) => describeString(image, table, i)),
                scanned_strings: table.count,
              },
              limitations: [
                "Strings longer than 4,096 characters are matched on their first 4,096 only.",
              ],
            };
          },
        );
      },
    },
    {
      name: SEARCH_PROCEDURES,
      description:
        "Search procedure names (raw and demangled C++/Rust) by literal substring (default) or regular expression; case-insensitive unless case_sensitive. Paged, at most 100 per page.",
      input: z.strictObject({
        ...searchFields,
        offset,
        limit: limitOf(100, 20),
        document,
      }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context) => {
        const matcher = matcherOf(args);
        return observe(
          SEARCH_PROCEDURES,
          args.document as string | undefined,
          context.parameters,
          async (scope) => {
            const lookup = await procedureLookupOf(scope, SEARCH_PROCEDURES);
            const hits = lookup.table.functions.filter((fn) => {
              if (!fn.name) return false;
              if (matcher(fn.name)) return true;
              const plain = demangle(fn.name);
              return plain !== null && matcher(plain);
            });
            const page = pageOf(hits, args.offset as number, args.limit as number);
            return {
              result: {
                query: args.query,
                mode: args.mode,
                ...page,
                items: page.items.map((fn) => ({
                  address: hex(fn.address),
                  name: fn.name,
                  demangled: demangle(fn.name),
                  source: fn.source,
                  size: fn.size > 0n ? Number(fn.size) : null,
                })),
              },
              limitations: lookup.limitations,
            };
          },
        );
      },
    },
    {
      name: PROCEDURE_ADDRESS,
      description:
        "Turn a procedure name (raw or demangled) or start address into its canonical entry: address, names, source and size. Ambiguous names are refused with the candidates.",
      input: z.strictObject({ procedure, document }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context) =>
        observe(
          PROCEDURE_ADDRESS,
          args.document as string | undefined,
          context.parameters,
          async (scope) => {
            const lookup = await procedureLookupOf(scope, PROCEDURE_ADDRESS);
            const fn = findProcedure(lookup.table, args.procedure as string);
            return {
              limitations: lookup.limitations,
              result: {
                address: hex(fn.address),
                name: fn.name,
                names: fn.names,
                demangled: demangle(fn.name),
                source: fn.source,
                size: fn.size > 0n ? Number(fn.size) : null,
                matched_by: ADDRESS.test(args.procedure as string) ? "address" : "name",
              },
            };
          },
        ),
    },
    {
      name: RESOLVE_CONTAINING_PROCEDURE,
      description:
        "Find the procedure that contains an address (such as a crash PC): the last procedure start at or below it whose extent (its size, or up to the next start) covers it. Says how the extent was bounded.",
      input: z.strictObject({ address, document }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context) =>
        observe(
          RESOLVE_CONTAINING_PROCEDURE,
          args.document as string | undefined,
          context.parameters,
          async (scope) => {
            const lookup = await procedureLookupOf(scope, RESOLVE_CONTAINING_PROCEDURE);
            const at = BigInt(args.address as string);
            const found = lookup.table.containing(at);
            return {
              result: {
                address: hex(at),
                section: lookup.sectionAt(at),
                procedure: found
                  ? {
                    address: hex(found.fn.address),
                    name: found.fn.name,
                    demangled: demangle(found.fn.name),
                    size: found.fn.size > 0n ? Number(found.fn.size) : null,
                    offset: Number(at - found.fn.address),
                    bounded_by: found.bounded,
                  }
                  : null,
              },
              limitations: [
                ...lookup.limitations,
                ...(found?.bounded === "next-start"
                  ? [
                    "The procedure has no recorded size: containment assumes it runs to the next known start.",
                  ]
                  : found
                  ? []
                  : [
                    "No known procedure contains this address; the listing may be incomplete for this document.",
                  ]),
              ],
            };
          },
        ),
    },
    {
      name: ANALYZE_FUNCTION,
      description:
        "The bounded dossier of one procedure: extent, instructions (up to max_instructions), callees, callers and incoming references (from a bounded whole-document scan, reported with its completeness), outgoing references, referenced strings and names, basic blocks, and every truncation. No decompiler: pseudocode is not recovered.",
      input: z.strictObject({
        procedure,
        limit: limitOf(500, 100),
        max_instructions: z.number().int().min(1).max(5000).default(500).describe(
          "Instructions decoded at most (1 to 5000).",
        ),
        include_assembly: z.boolean().default(false).describe("Include the instruction listing."),
        assembly_offset: offset,
        collection_offset: offset,
        include_callers: z.boolean().default(true).describe(
          "Compute callers and incoming references (scans the whole document once; progress is reported).",
        ),
        document,
      }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context) => {
        return observe(
          ANALYZE_FUNCTION,
          args.document as string | undefined,
          context.parameters,
          async (scope) => {
            const lookup = await procedureLookupOf(scope, ANALYZE_FUNCTION);
            const fn = findProcedure(lookup.table, args.procedure as string);
            const { dossier, limitations } = await dossierFrom(scope, {
              operation: ANALYZE_FUNCTION,
              procedure: fn,
              control: progressOf(context),
              limit: args.limit as number,
              maxInstructions: args.max_instructions as number,
              includeAssembly: args.include_assembly as boolean,
              assemblyOffset: args.assembly_offset as number,
              collectionOffset: args.collection_offset as number,
              includeCallers: args.include_callers as boolean,
            });
            return { result: dossier, limitations: [...lookup.limitations, ...limitations] };
          },
        );
      },
    },
    {
      name: XREFS,
      description:
        "References to an address (a procedure, string or data item) from decoded code across the whole document: direct calls, jumps and computed data addresses, each with the procedure it is in. The scan is bounded; completeness is reported.",
      input: z.strictObject({ address, offset, limit: limitOf(500, 100), document }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context) =>
        observe(
          XREFS,
          args.document as string | undefined,
          context.parameters,
          async ({ image, program }) => {
            if (!program.decodable) throw notDisassembled(image, XREFS);
            const index = await indexFor(program, context);
            const refs = index.to(BigInt(args.address as string)).map((r) => ({
              from: hex(r.from),
              procedure: hex(r.procedure),
              procedure_name: program.functionStartingAt(r.procedure)?.name ?? "",
              kind: r.kind,
            }));
            return {
              result: {
                address: args.address,
                ...pageOf(refs, args.offset as number, args.limit as number),
                reference_scan: indexFacts(index),
              },
              limitations: [
                ...index.limitations,
                "References through registers, jump tables or relocations resolved at load time are not seen.",
              ],
            };
          },
        ),
    },
    {
      name: PROCEDURE_CALLERS,
      description:
        "Procedures that call a procedure directly, with their call sites, from a bounded scan of the whole document (completeness reported). Indirect callers are not seen.",
      input: z.strictObject({ procedure, offset, limit: limitOf(500, 100), document }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context) =>
        observe(
          PROCEDURE_CALLERS,
          args.document as string | undefined,
          context.parameters,
          async ({ image, program }) => {
            if (!program.decodable) throw notDisassembled(image, PROCEDURE_CALLERS);
            const fn = findProcedure(program, args.procedure as string);
            const index = await indexFor(program, context);
            const callers = callersOf(program, index, fn.address);
            return {
              result: {
                procedure: { address: hex(fn.address), name: fn.name },
                ...pageOf(callers, args.offset as number, args.limit as number),
                reference_scan: indexFacts(index),
              },
              limitations: [
                ...index.limitations,
                "Calls through pointers, vtables or import thunks of other modules are not seen.",
              ],
            };
          },
        ),
    },
    {
      name: PROCEDURE_CALLEES,
      description:
        "Procedures and imports a procedure calls directly (decoding up to max_instructions), with call sites; indirect call sites are listed separately because their targets are unknown statically.",
      input: z.strictObject({
        procedure,
        offset,
        limit: limitOf(500, 100),
        max_instructions: z.number().int().min(1).max(5000).default(2000).describe(
          "Instructions decoded at most.",
        ),
        document,
      }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context) =>
        observe(
          PROCEDURE_CALLEES,
          args.document as string | undefined,
          context.parameters,
          async (scope) => {
            const lookup = await procedureLookupOf(scope, PROCEDURE_CALLEES);
            const fn = findProcedure(lookup.table, args.procedure as string);
            const { dossier, limitations } = await dossierFrom(scope, {
              operation: PROCEDURE_CALLEES,
              procedure: fn,
              control: progressOf(context),
              limit: 100_000,
              maxInstructions: args.max_instructions as number,
              includeAssembly: false,
              assemblyOffset: 0,
              collectionOffset: 0,
              includeCallers: false,
            });
            if (dossier.callees === null) {
              throw new ToolFailure(
                "capability_unavailable",
                `Provider ${scope.provider.identity.id} cannot read calls in ${scope.image.architecture} code.`,
                { details: { limitations } },
              );
            }
            const callees = (dossier.callees as { items: unknown[] }).items;
            const indirect = (dossier.indirect_call_sites as { items: string[] }).items;
            const scan = dossier.instruction_scan as Record<string, unknown>;
            return {
              result: {
                procedure: { address: hex(fn.address), name: fn.name },
                ...pageOf(callees, args.offset as number, args.limit as number),
                indirect_call_sites: indirect,
                instruction_scan: scan,
              },
              limitations: [
                ...lookup.limitations,
                ...limitations.filter((l) => !l.startsWith("Callers")),
              ],
            };
          },
        ),
    },
    {
      name: BUILD_CALL_PATH,
      description:
        "Search for a chain of direct calls from one procedure to another (breadth-first, bounded by depth and procedures visited). Frontiers the search could not cross — indirect calls, undecodable code, depth or node limits — are reported as unknowns, never as absence.",
      input: z.strictObject({
        from: procedure.describe("The starting procedure (address or name)."),
        to: procedure.describe("The procedure to reach (address or name)."),
        max_depth: z.number().int().min(1).max(12).default(6).describe(
          "Longest chain of calls (1 to 12).",
        ),
        max_nodes: z.number().int().min(1).max(20_000).default(2000).describe(
          "Most procedures visited (1 to 20000).",
        ),
        document,
      }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context) =>
        observe(
          BUILD_CALL_PATH,
          args.document as string | undefined,
          context.parameters,
          async ({ image, program }) => {
            if (!program.decodable) throw notDisassembled(image, BUILD_CALL_PATH);
            const start = findProcedure(program, args.from as string);
            const goal = findProcedure(program, args.to as string);
            const maxDepth = args.max_depth as number;
            const maxNodes = args.max_nodes as number;
            const parent = new Map<bigint, bigint | null>([[start.address, null]]);
            let frontier: bigint[] = [start.address];
            const unknowns: { procedure: string; reason: string }[] = [];
            let depth = 0;
            let found = start.address === goal.address;
            let stopped: string | null = null;
            while (!found && frontier.length > 0 && depth < maxDepth) {
              const next: bigint[] = [];
              for (const at of frontier) {
                if (context.signal.aborted) {
                  throw new ToolFailure("cancelled", "build_call_path was cancelled.");
                }
                const fn = program.functionStartingAt(at);
                if (!fn) continue;
                const { decoded, flows } = await decodeWithFlow(image, fn, {
                  maxInstructions: 5000,
                  maxBytesWhenUnsized: 1 << 20,
                });
                if (decoded.truncated) {
                  unknowns.push({ procedure: hex(at), reason: "instruction-limit" });
                }
                if (flows.some((f) => f.kind === "call" && f.indirect)) {
                  unknowns.push({ procedure: hex(at), reason: "indirect-call" });
                }
                for (const flow of flows) {
                  if ((flow.kind !== "call" && flow.kind !== "jump") || flow.target === null) {
                    continue;
                  }
                  if (
                    flow.kind === "jump" && program.functionStartingAt(flow.target) === undefined
                  ) {
                    continue;
                  }
                  if (parent.has(flow.target)) continue;
                  if (parent.size >= maxNodes) {
                    stopped = "node-limit";
                    break;
                  }
                  parent.set(flow.target, at);
                  if (flow.target === goal.address) {
                    found = true;
                    break;
                  }
                  if (program.functionStartingAt(flow.target)) next.push(flow.target);
                  else if (!program.importAt(flow.target)) {
                    unknowns.push({ procedure: hex(flow.target), reason: "not-a-known-procedure" });
                  }
                }
                if (found || stopped) break;
              }
              if (found || stopped) break;
              frontier = next;
              depth++;
              await context.progress(
                depth,
                maxDepth,
                `searched depth ${depth}, ${parent.size} procedures`,
              );
            }
            if (!found && !stopped && frontier.length > 0 && depth >= maxDepth) {
              stopped = "depth-limit";
            }
            const path: { address: string; name: string }[] = [];
            if (found) {
              for (let at: bigint | null = goal.address; at !== null; at = parent.get(at) ?? null) {
                path.unshift({ address: hex(at), name: nameTarget(program, at).name });
              }
            }
            return {
              result: {
                from: { address: hex(start.address), name: start.name },
                to: { address: hex(goal.address), name: goal.name },
                found,
                path,
                depth: found ? path.length - 1 : depth,
                visited: parent.size,
                stopped_by: found ? null : stopped,
                unknowns: unknowns.slice(0, 200),
                unknown_count: unknowns.length,
              },
              limitations: found ? [] : [
                "No direct-call path was found within the bounds. That is not evidence of absence: " +
                (stopped ? `the search stopped at its ${stopped}; ` : "") +
                `${unknowns.length} frontier(s) could not be followed (indirect calls, instruction limits, unknown targets).`,
              ],
            };
          },
        ),
    },
    {
      name: TRACE_FEATURE,
      description:
        "Follow a literal seed through the binary: strings containing it, the code that references those strings, the procedures containing that code, and a compact dossier of each — bounded by limit (hits kept) and max_operations (dossiers built), with every cut reported.",
      input: z.strictObject({
        query: z.string().min(1).max(4096).describe(
          "A literal seed: a message, a key, a symbol fragment.",
        ),
        limit: limitOf(100, 20),
        max_operations: z.number().int().min(1).max(100).default(20).describe(
          "Most dossiers built (1 to 100).",
        ),
        document,
      }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context) =>
        observe(
          TRACE_FEATURE,
          args.document as string | undefined,
          context.parameters,
          async ({ image, program }) => {
            const table = await program.strings(progressOf(context));
            const matcher = stringMatcher(args.query as string, "literal", false);
            const hits: number[] = [];
            for (let i = 0; i < table.count; i++) {
              if (matcher(stringValue(image.bytes, table, i, 4096))) hits.push(i);
            }
            const kept = hits.slice(0, args.limit as number);
            const limitations: string[] = [];
            if (hits.length > kept.length) {
              limitations.push(
                `${
                  hits.length - kept.length
                } further string hits were not followed (limit ${args.limit}).`,
              );
            }
            const strings = kept.map((i) => describeString(image, table, i));
            const procedures = new Map<bigint, { address: string; name: string; via: string[] }>();
            let indexFactsValue: Record<string, unknown> | null = null;
            const named = program.functionsNamed(args.query as string);
            if (program.decodable) {
              const index = await indexFor(program, context);
              indexFactsValue = indexFacts(index);
              limitations.push(...index.limitations);
              for (const hit of strings) {
                if (hit.address === null) continue;
                for (const ref of index.to(BigInt(hit.address))) {
                  const entry = procedures.get(ref.procedure) ??
                    {
                      address: hex(ref.procedure),
                      name: program.functionStartingAt(ref.procedure)?.name ?? "",
                      via: [],
                    };
                  entry.via.push(`${hex(ref.from)} → ${hit.address}`);
                  procedures.set(ref.procedure, entry);
                }
              }
            } else {
              limitations.push(
                `${image.architecture} code is not disassembled: references to the strings cannot be followed.`,
              );
            }
            for (const fn of named) {
              if (!procedures.has(fn.address)) {
                procedures.set(fn.address, {
                  address: hex(fn.address),
                  name: fn.name,
                  via: ["name"],
                });
              }
            }
            const maxOps = args.max_operations as number;
            const list = [...procedures.values()];
            if (list.length > maxOps) {
              limitations.push(
                `${
                  list.length - maxOps
                } procedures were found but not analysed (max_operations ${maxOps}).`,
              );
            }
            const dossiers = [];
            for (const entry of list.slice(0, maxOps)) {
              const fn = program.functionStartingAt(BigInt(entry.address));
              if (!fn || !program.decodable) {
                dossiers.push({ ...entry, dossier: null });
                continue;
              }
              const d = await buildDossier(program, fn, {
                limit: 20,
                maxInstructions: 1000,
                includeAssembly: false,
                assemblyOffset: 0,
                collectionOffset: 0,
              }, null);
              dossiers.push({
                ...entry,
                dossier: {
                  procedure: d.procedure,
                  callees: (d.callees as { items: { address: string; name: string }[] }).items.map((
                    c,
                  ) => ({ address: c.address, name: c.name })),
                  referenced_strings: (d.referenced_strings as { items: { value: string }[] }).items
                    .map((s) => s.value),
                  instruction_scan: d.instruction_scan,
                },
              });
            }
            return {
              result: {
                query: args.query,
                string_hits: strings,
                string_hit_total: hits.length,
                named_procedures: named.map((fn) => ({ address: hex(fn.address), name: fn.name })),
                procedures: dossiers,
                procedure_total: list.length,
                reference_scan: indexFactsValue,
                operations_used: Math.min(list.length, maxOps),
              },
              limitations,
            };
          },
        ),
    },
    {
      name: COMPARE_FUNCTIONS,
      description:
        "Compare two retained analyze_function Evidence records (from this target or another opened earlier in the session) dimension by dimension: size, instruction sequence, callees, referenced strings, basic blocks. Both must use identical limits; a truncated side, a dimension a provider does not report, and the instruction sequence of dossiers from two different providers are unknown.",
      input: z.strictObject({
        left_evidence_id: z.string().regex(/^ev_[0-9a-f]{64}$/).describe(
          "An analyze_function Evidence id.",
        ),
        right_evidence_id: z.string().regex(/^ev_[0-9a-f]{64}$/).describe(
          "Another analyze_function Evidence id.",
        ),
      }),
      result: anyResult,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args) => {
        const pick = (id: string): EvidenceRecord => {
          const record = ledger.get(id);
          if (!record) {
            throw new ToolFailure(
              "invalid_request",
              `Evidence ${id} is not retained in this session.`,
              {
                action:
                  "Call analyze_function for the procedure, then pass the evidence_id it returns.",
              },
            );
          }
          if (record.operation !== ANALYZE_FUNCTION) {
            throw new ToolFailure(
              "invalid_request",
              `Evidence ${id} records ${record.operation}, not analyze_function.`,
            );
          }
          return record;
        };
        const left = pick(args.left_evidence_id as string);
        const right = pick(args.right_evidence_id as string);
        const limitKeys = [
          "limit",
          "max_instructions",
          "include_assembly",
          "assembly_offset",
          "collection_offset",
        ];
        const differing = limitKeys.filter((k) =>
          JSON.stringify(left.parameters[k]) !== JSON.stringify(right.parameters[k])
        );
        if (differing.length > 0) {
          throw new ToolFailure(
            "invalid_request",
            `The two dossiers were built under different limits (${
              differing.join(", ")
            }); compare only dossiers with identical limits.`,
            { action: "Call analyze_function again on one side with the other side's limits." },
          );
        }
        const l = left.normalized_result as Dossier;
        const r = right.normalized_result as Dossier;
        const truncated = Boolean(l.instruction_scan?.truncated || r.instruction_scan?.truncated);
        // Providers spell mnemonics differently (Capstone, objdump): sequences compare only within one.
        const sameProvider = left.provider.id === right.provider.id;
        const unreported = (key: "callees" | "referenced_strings" | "basic_blocks"): boolean =>
          l[key] === null || l[key] === undefined || r[key] === null || r[key] === undefined;
        const setOf = (
          page: { items: { name?: string; address?: string; value?: string }[] } | null | undefined,
          key: "name" | "value",
        ) => new Set((page?.items ?? []).map((item) => item[key] || item.address || ""));
        const diffSets = (a: Set<string>, b: Set<string>) => ({
          only_left: [...a].filter((x) => !b.has(x)).sort(),
          only_right: [...b].filter((x) => !a.has(x)).sort(),
        });
        const callees = diffSets(setOf(l.callees, "name"), setOf(r.callees, "name"));
        const strings = diffSets(
          setOf(l.referenced_strings, "value"),
          setOf(r.referenced_strings, "value"),
        );
        const pagesTruncated = Boolean(l.callees?.truncated || r.callees?.truncated);
        const stringsTruncated = Boolean(
          l.referenced_strings?.truncated || r.referenced_strings?.truncated,
        );
        const verdict = (equal: boolean, unknown: boolean) =>
          unknown ? "unknown" : equal ? "equal" : "different";
        const dimensions = [
          {
            name: "size",
            left: l.procedure?.size ?? null,
            right: r.procedure?.size ?? null,
            verdict: verdict(
              l.procedure?.size === r.procedure?.size,
              l.procedure?.size === undefined || l.procedure?.size === null ||
                r.procedure?.size === undefined || r.procedure?.size === null,
            ),
          },
          {
            name: "instruction_sequence",
            left: l.fingerprint?.mnemonics_sha256 ?? null,
            right: r.fingerprint?.mnemonics_sha256 ?? null,
            verdict: verdict(
              l.fingerprint?.mnemonics_sha256 === r.fingerprint?.mnemonics_sha256,
              truncated || !sameProvider,
            ),
          },
          {
            name: "instruction_count",
            left: l.fingerprint?.instruction_count ?? null,
            right: r.fingerprint?.instruction_count ?? null,
            verdict: verdict(
              l.fingerprint?.instruction_count === r.fingerprint?.instruction_count,
              truncated,
            ),
          },
          {
            name: "callees",
            ...callees,
            verdict: verdict(
              callees.only_left.length === 0 && callees.only_right.length === 0,
              truncated || pagesTruncated || unreported("callees"),
            ),
          },
          {
            name: "referenced_strings",
            ...strings,
            verdict: verdict(
              strings.only_left.length === 0 && strings.only_right.length === 0,
              truncated || stringsTruncated || unreported("referenced_strings"),
            ),
          },
          {
            name: "basic_blocks",
            left: l.basic_blocks?.total ?? null,
            right: r.basic_blocks?.total ?? null,
            verdict: verdict(
              l.basic_blocks?.total === r.basic_blocks?.total,
              truncated || unreported("basic_blocks"),
            ),
          },
        ];
        const overall = dimensions.some((d) => d.verdict === "different")
          ? "different"
          : dimensions.some((d) => d.verdict === "unknown")
          ? "unknown"
          : "equal-in-every-dimension";
        return Promise.resolve({
          kind: "evidence",
          draft: {
            subject: null,
            provider: {
              id: "casefile-function-comparison",
              name: "Casefile function comparison",
              version: "1",
            },
            operation: COMPARE_FUNCTIONS,
            predicate_type: "rea.function-comparison/v1",
            confidence: "derived",
            parameters: {
              left_evidence_id: left.evidence_id,
              right_evidence_id: right.evidence_id,
            },
            normalized_result: {
              left: {
                evidence_id: left.evidence_id,
                subject: left.subject?.digest.sha256 ?? null,
                procedure: l.procedure ?? null,
              },
              right: {
                evidence_id: right.evidence_id,
                subject: right.subject?.digest.sha256 ?? null,
                procedure: r.procedure ?? null,
              },
              dimensions,
              verdict: overall,
            },
            evidence_links: [left.evidence_id, right.evidence_id],
            limitations: [
              "Equal fingerprints mean the same mnemonic sequence within the decoded range, not equal semantics; operands and data are not compared.",
              ...(sameProvider ? [] : [
                `The dossiers come from different providers (${left.provider.id}, ${right.provider.id}), which spell mnemonics differently: the instruction sequence is unknown.`,
              ]),
              ...(truncated
                ? [
                  "At least one dossier was truncated: sequence, counts, callees and strings are unknown.",
                ]
                : []),
            ],
          },
        } as ToolOutcome);
      },
    },
  ];
}
