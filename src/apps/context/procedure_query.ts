/**
 * Finding procedures by address or name, and paging the lists the
 * static-analysis tools return.
 *
 * @module
 */

import { ToolFailure } from "../../core/errors.ts";
import { hex } from "../analysis/dossier.ts";
import {
  type ContainmentBound,
  type ProcedureTable,
  versionedNameParts,
} from "../analysis/procedures.ts";
import { demangle } from "../disasm/demangle.ts";
import type { ImageFunction, ImageImport } from "../formats/binary_image.ts";
import type { containingProcedureSchema } from "../schemas/analysis_results.ts";
import { ADDRESS_PATTERN } from "../schemas/inputs.ts";
import {
  type BoundDocument,
  dossierFrom,
  type DossierRequest,
  procedureLookupOf,
} from "../providers/provider.ts";
import type { z } from "zod";

/** One page of a list. */
export interface ListPage<T> {
  items: T[];
  offset: number;
  limit: number;
  total: number;
  has_more: boolean;
  next_offset: number | null;
}

/** The page of `all` starting at `start`. */
export function pageOf<T>(all: T[], start: number, limit: number): ListPage<T> {
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
  | "functionStartingAt"
  | "containing"
  | "functionsNamed"
  | "functionsByBaseName"
  | "functionsByVersionedName"
  | "versionedNames"
>;

/**
 * For procedures that all carry the symbol name `name`: each one's versioned spellings, when
 * every one has a spelling none of the others has; else null.
 */
function versionsTellingApart(
  program: ProcedureFinder,
  name: string,
  named: readonly ImageFunction[],
): string[][] | null {
  const all = program.versionedNames(name);
  const spellings = named.map((f) =>
    all.filter((v) => v.address === f.address).map((v) => v.spelling)
  );
  const owners = new Map<string, number>();
  for (const list of spellings) for (const s of list) owners.set(s, (owners.get(s) ?? 0) + 1);
  const apart = spellings.map((list) => list.filter((s) => owners.get(s) === 1));
  return apart.every((list) => list.length > 0) ? apart : null;
}

/** Finds a procedure by address or name, with clear errors. */
export function findProcedure(program: ProcedureFinder, text: string): ImageFunction {
  if (ADDRESS_PATTERN.test(text)) {
    const at = BigInt(text);
    const fn = program.functionStartingAt(at);
    if (fn) return fn;
    const containing = program.containing(at);
    throw new ToolFailure(
      "invalid_request",
      containing
        ? `${text} is inside procedure ${hex(containing.fn.address)}${
          containing.fn.name ? ` ${containing.fn.name}` : ""
        }, not its start.`
        : `No procedure starts at ${text}.`,
      {
        action:
          "Call resolve_containing_procedure for an address inside a procedure, or procedure_address for a name.",
      },
    );
  }
  const exact = program.functionsNamed(text);
  // `memcpy@@GLIBC_2.14`, as nm -D spells a versioned dynamic symbol, names its version's one.
  const versioned = exact.length === 0 ? program.functionsByVersionedName(text) : [];
  // A C++ name without its parameter list names its overloads.
  const named = exact.length > 0
    ? exact
    : versioned.length > 0
    ? versioned
    : program.functionsByBaseName(text);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    // The symbol table itself holds the name more than once: no other spelling tells them apart,
    // unless the symbol versions do.
    const ownSpelling = exact.length > 0 && named.every((f) => f.name === text);
    const versions = ownSpelling ? versionsTellingApart(program, text, named) : null;
    throw new ToolFailure(
      "invalid_request",
      `${named.length} procedures are named ${JSON.stringify(text)}: ${
        named.slice(0, 10).map((f, k) =>
          versions !== null
            ? `${hex(f.address)} (${versions[k]!.join(", ")})`
            : exact.length > 0
            ? f.name === text ? hex(f.address) : `${hex(f.address)} ${f.name}`
            : `${hex(f.address)} ${demangle(f.name) ?? f.name}`
        ).join(", ")
      }${named.length > 10 ? ", …" : ""}.${
        versions !== null
          ? " The symbol table holds this very name at each of them under different symbol versions."
          : ownSpelling
          ? " The symbol table holds this very name at each of them (symbol versions, or local symbols or compiler clones that share a name), so only the address tells them apart."
          : ""
      }`,
      {
        action: versions !== null
          ? `Pass the 0x address, or the versioned name (such as ${
            JSON.stringify(versions[0]![0])
          }), of the one you mean.`
          : ownSpelling
          ? "Pass the 0x address of the one you mean."
          : exact.length > 0
          ? "Pass the 0x address, or the symbol's own (mangled) name, of the one you mean."
          : "Pass the 0x address, or the whole demangled name, of the one you mean.",
      },
    );
  }
  // A version the symbol does not carry: name the ones it does.
  const base = versionedNameParts(text)?.name;
  const versions = base === undefined ? [] : program.versionedNames(base);
  if (versions.length > 0) {
    throw new ToolFailure(
      "invalid_request",
      `No procedure is named ${JSON.stringify(text)}: the symbol versions of ${
        JSON.stringify(base)
      } are ${versions.slice(0, 10).map((v) => `${v.spelling} (${hex(v.address)})`).join(", ")}${
        versions.length > 10 ? ", …" : ""
      }.`,
      { action: "Pass one of those versioned names, or the 0x address." },
    );
  }
  const other = otherSpelling(program, text);
  if (other !== null) {
    throw new ToolFailure(
      "invalid_request",
      `No procedure is named ${JSON.stringify(text)}; ${JSON.stringify(other.spelling)} is (${
        other.found.slice(0, 10).map((f) => hex(f.address)).join(", ")
      }): ${other.why}.`,
      { action: `Pass ${JSON.stringify(other.spelling)} or the 0x address.` },
    );
  }
  throw new ToolFailure("invalid_request", `No procedure is named ${JSON.stringify(text)}.`, {
    action: "Call search_procedures to find the name, or pass a 0x address.",
  });
}

/**
 * The spelling of `text` the symbol table holds when `text` itself names
 * nothing: without nm -D's symbol version (`name@@VERSION`, `name@VERSION`),
 * or with the leading underscore Mach-O and 32-bit Windows symbols put before
 * a C name (nm lists `_main`), or without one too many. Named, not guessed.
 */
function otherSpelling(
  program: ProcedureFinder,
  text: string,
): { spelling: string; found: ImageFunction[]; why: string } | null {
  const versioned = versionedNameParts(text);
  const candidates = [
    ...(versioned
      ? [{
        spelling: versioned.name,
        why: "procedures are named without the symbol version nm -D appends",
      }]
      : []),
    {
      spelling: text.startsWith("_") ? text.slice(1) : `_${text}`,
      why: `the symbol table spells the name ${
        text.startsWith("_") ? "without" : "with"
      } a leading underscore`,
    },
  ];
  for (const { spelling, why } of candidates) {
    const found = spelling === "" ? [] : program.functionsNamed(spelling);
    if (found.length > 0) return { spelling, found, why };
  }
  return null;
}

/** What a call can reach: a procedure of the document, or one of its imports. */
export interface CallTarget {
  /** The procedure's start, or the address calls to the import go through (stub or slot). */
  address: bigint;
  name: string;
  kind: "procedure" | "import";
  /** The procedure, for kind "procedure". */
  fn?: ImageFunction;
}

/** The lookups {@linkcode findCallTarget} needs beyond {@linkcode findProcedure}'s. */
export type CallTargetFinder = ProcedureFinder & {
  image: { imports: readonly ImageImport[] };
  importAt(address: bigint): ImageImport | undefined;
  localBindingAt(address: bigint): { target: bigint; stub: bigint | null } | undefined;
};

/**
 * Finds a procedure or an import by address or name: a procedure start, an
 * import's stub or slot, or a stub of the document's own function (which
 * stands for that function); a name of a procedure, else of an import.
 */
export function findCallTarget(program: CallTargetFinder, text: string): CallTarget {
  if (ADDRESS_PATTERN.test(text)) {
    const at = BigInt(text);
    if (program.functionStartingAt(at) === undefined) {
      const imported = program.importAt(at);
      if (imported) return importTarget(imported, at);
      const local = program.localBindingAt(at);
      const fn = local ? program.functionStartingAt(local.target) : undefined;
      if (fn) return { address: fn.address, name: fn.name, kind: "procedure", fn };
    }
  } else if (program.functionsNamed(text).length === 0) {
    // nm -D spells an undefined versioned symbol `memcpy@GLIBC_2.14`.
    const imported = program.image.imports.find((i) =>
      i.name === text || (i.version !== undefined && `${i.name}@${i.version}` === text)
    );
    if (imported) return importTarget(imported, imported.address ?? imported.slots?.[0] ?? null);
  }
  const fn = findProcedure(program, text);
  // An import's thunk stands for the import: calls to either are recorded under the thunk.
  const thunked = fn.source === "import-thunk" ? program.importAt(fn.address) : undefined;
  if (thunked) return importTarget(thunked, fn.address);
  return { address: fn.address, name: fn.name, kind: "procedure", fn };
}

function importTarget(imported: ImageImport, at: bigint | null): CallTarget {
  if (at === null) {
    throw new ToolFailure(
      "invalid_request",
      `Import ${JSON.stringify(imported.name)} has no stub or slot address calls could go through.`,
    );
  }
  // Calls through the slot are recorded under the stub when there is one.
  return { address: imported.address ?? at, name: imported.name, kind: "import" };
}

/** The limitation of a containment that assumed the procedure runs to the next start. */
export const NEXT_START_ASSUMED =
  "The procedure has no recorded size: containment assumes it runs to the next known start.";

/** The procedure holding `at`, as the containment results describe it. */
export function containingEntry(
  found: { fn: ImageFunction; bounded: ContainmentBound },
  at: bigint,
): z.infer<typeof containingProcedureSchema> {
  return {
    address: hex(found.fn.address),
    name: found.fn.name,
    demangled: demangle(found.fn.name),
    size: found.fn.size > 0n ? Number(found.fn.size) : null,
    offset: Number(at - found.fn.address),
    bounded_by: found.bounded,
  };
}

/** A dossier of a procedure named in a tool call, and what limits it. */
export interface NamedDossier {
  procedure: ImageFunction;
  dossier: Record<string, unknown>;
  /** What limits the provider's procedure table. */
  tableLimitations: string[];
  /** What limits the dossier. */
  limitations: string[];
}

/**
 * Finds the procedure `text` names (a start address or a name) in the
 * provider's table and builds its dossier.
 */
export async function namedDossier(
  scope: BoundDocument,
  text: string,
  request: Omit<DossierRequest, "procedure">,
): Promise<NamedDossier> {
  const lookup = await procedureLookupOf(scope, request.operation);
  const procedure = findProcedure(lookup.table, text);
  const { dossier, limitations } = await dossierFrom(scope, { ...request, procedure });
  return { procedure, dossier, tableLimitations: lookup.limitations, limitations };
}
