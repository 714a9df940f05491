/**
 * Runs a query that passed the gate ({@link guardSparql}) on a store and turns
 * the engine's terms into plain JSON: rows for SELECT, an answer for ASK,
 * triples for CONSTRUCT and DESCRIBE. Runs where the store lives (the
 * ontology worker); the time limit is enforced by whoever owns that worker.
 *
 * @module
 */

import { SparqlExecutionError } from "./errors.ts";
import { compactIri, XSD } from "./namespaces.ts";
import type { Quad, Store, Term } from "./oxigraph.ts";
import type { PreparedQuery } from "./sparql_guard.ts";

/** A term rendered as JSON: IRIs and blank nodes as strings, literals as their value. */
export type SparqlValue = string | number | boolean | null;

/** How a variable was bound in the returned rows. */
export type VariableKind = "uri" | "literal" | "bnode" | "triple" | "unbound" | "mixed";

/** Result of a SELECT. */
export interface SparqlSelectResult {
  /** The query form. */
  kind: "select";
  /** Variables, in projection order (for `SELECT *`, in order of first appearance). */
  variables: string[];
  /** Rows, at most `limit`; unbound variables are null. */
  rows: Record<string, SparqlValue>[];
  /** How each variable was bound across the returned rows. */
  variable_kinds: Record<string, VariableKind>;
  /** Rows returned. */
  returned: number;
  /** Whether more rows matched than `limit`. */
  truncated: boolean;
}

/** Result of an ASK. */
export interface SparqlAskResult {
  /** The query form. */
  kind: "ask";
  /** The answer. */
  answer: boolean;
}

/** Result of a CONSTRUCT or DESCRIBE. */
export interface SparqlGraphResult {
  /** The query form. */
  kind: "graph";
  /** Triples, at most `limit`. */
  triples: { subject: SparqlValue; predicate: SparqlValue; object: SparqlValue }[];
  /** Triples returned. */
  returned: number;
  /** Whether the engine produced more than `limit`. */
  truncated: boolean;
}

/** Any query result. */
export type SparqlResult = SparqlSelectResult | SparqlAskResult | SparqlGraphResult;

/** Options of {@link runSparql}. */
export interface RunSparqlOptions {
  /** Shorten IRIs with the ontology prefixes (`cmr:…`, `cm:…`). @default true */
  compactUris?: boolean;
}

const NUMERIC = new Set(
  ["integer", "decimal", "double", "float", "int", "long", "short", "byte"].map((t) => XSD + t),
);

function kindOf(term: Term | undefined): VariableKind {
  switch (term?.termType) {
    case undefined:
      return "unbound";
    case "NamedNode":
      return "uri";
    case "BlankNode":
      return "bnode";
    case "Literal":
      return "literal";
    default:
      return "triple";
  }
}

/** Renders one term. */
export function renderTerm(term: Term | undefined, compact: boolean): SparqlValue {
  if (term === undefined) return null;
  switch (term.termType) {
    case "NamedNode":
      return compact ? compactIri(term.value) : term.value;
    case "BlankNode":
      return `_:${term.value}`;
    case "Literal": {
      const type = term.datatype.value;
      if (NUMERIC.has(type)) {
        const value = Number(term.value);
        if (Number.isFinite(value)) return value;
      }
      if (type === XSD + "boolean") return term.value === "true" || term.value === "1";
      return term.value;
    }
    default:
      return term.toString();
  }
}

/** Moves an engine error position back onto the user's text. */
function executionError(error: unknown, lineOffset: number | null): SparqlExecutionError {
  let message = error instanceof Error ? error.message : String(error);
  if (lineOffset !== null) {
    message = message.replace(
      /error at (\d+):(\d+)/,
      (_, line: string, column: string) =>
        `error at line ${Number(line) - lineOffset}, column ${column}`,
    );
  }
  return new SparqlExecutionError(`The SPARQL engine refused the query: ${message.slice(0, 500)}`);
}

/**
 * Runs a prepared query on the store. Rows (or triples) past
 * `prepared.limit` are dropped and `truncated` is set.
 *
 * @example
 * ```ts
 * import { oxigraphReady, Store } from "./oxigraph.ts";
 * await oxigraphReady();
 * import { guardSparql } from "./sparql_guard.ts";
 * import { runSparql } from "./sparql_run.ts";
 * runSparql(new Store(), guardSparql("ASK { ?s ?p ?o }")); // { kind: "ask", answer: false }
 * ```
 */
export function runSparql(
  store: Store,
  prepared: PreparedQuery,
  options: RunSparqlOptions = {},
): SparqlResult {
  const compact = options.compactUris ?? true;
  let raw: ReturnType<Store["query"]>;
  try {
    raw = store.query(prepared.text);
  } catch (error) {
    throw executionError(error, prepared.lineOffset);
  }
  if (typeof raw === "boolean") return { kind: "ask", answer: raw };
  if (typeof raw === "string") {
    throw new SparqlExecutionError("The SPARQL engine returned serialised results unexpectedly.");
  }
  const limit = prepared.limit;
  if (prepared.queryType === "CONSTRUCT" || prepared.queryType === "DESCRIBE") {
    const quads = raw as Quad[];
    return {
      kind: "graph",
      triples: quads.slice(0, limit).map((q) => ({
        subject: renderTerm(q.subject as Term, compact),
        predicate: renderTerm(q.predicate as Term, compact),
        object: renderTerm(q.object as Term, compact),
      })),
      returned: Math.min(limit, quads.length),
      truncated: quads.length > limit,
    };
  }
  const solutions = (raw as Map<string, Term>[]).slice(0, limit);
  const variables = prepared.variables ? [...prepared.variables] : [];
  if (prepared.variables === null) {
    const seen = new Set<string>();
    for (const row of solutions) {
      for (const name of row.keys()) {
        if (!seen.has(name)) {
          seen.add(name);
          variables.push(name);
        }
      }
    }
  }
  const kinds: Record<string, VariableKind> = {};
  for (const name of variables) kinds[name] = "unbound";
  const rows = solutions.map((solution) => {
    const row: Record<string, SparqlValue> = {};
    for (const name of variables) {
      const term = solution.get(name);
      row[name] = renderTerm(term, compact);
      const kind = kindOf(term);
      const before = kinds[name]!;
      if (kind !== "unbound") {
        kinds[name] = before === "unbound" || before === kind ? kind : "mixed";
      }
    }
    return row;
  });
  return {
    kind: "select",
    variables,
    rows,
    variable_kinds: kinds,
    returned: rows.length,
    truncated: (raw as unknown[]).length > limit,
  };
}
