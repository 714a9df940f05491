/**
 * Finding procedures by address or name, and paging the lists the
 * static-analysis tools return.
 *
 * @module
 */

import { ToolFailure } from "../../core/errors.ts";
import { hex } from "../analysis/dossier.ts";
import type { ProcedureTable } from "../analysis/procedures.ts";
import type { ImageFunction } from "../formats/binary_image.ts";
import { ADDRESS_PATTERN } from "../schemas/inputs.ts";

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
