/**
 * Finding procedures by address or name, compiling search queries, and
 * paging the lists the static-analysis tools return.
 *
 * @module
 */

import { ToolFailure } from "../../core/errors.ts";
import { hex } from "../analysis/dossier.ts";
import type { ProcedureTable } from "../analysis/procedures.ts";
import { stringMatcher } from "../analysis/strings.ts";
import type { ImageFunction } from "../formats/binary_image.ts";
import { ADDRESS_PATTERN } from "../schemas/inputs.ts";

/** The largest regular expression accepted by the search tools. */
export const MAX_PATTERN_LENGTH = 256;

/** The query of a search tool. */
export interface SearchQuery {
  query: string;
  mode: "literal" | "regex";
  case_sensitive: boolean;
}

/**
 * Compiles a search query; a regex runs on the linear-time (RE2) engine, so no
 * pattern can take exponential time, and one it cannot run is refused.
 */
export function matcherOf(search: SearchQuery): (value: string) => boolean {
  const { query, mode, case_sensitive: caseSensitive } = search;
  if (mode === "regex") {
    if (query.length > MAX_PATTERN_LENGTH) {
      throw new ToolFailure(
        "invalid_request",
        `The pattern is ${query.length} characters; at most ${MAX_PATTERN_LENGTH}.`,
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
  "functionStartingAt" | "containing" | "functionsNamed"
>;

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
