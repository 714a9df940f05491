/**
 * The read-only gate in front of the SPARQL engine. A query is parsed with a
 * real SPARQL parser (npm `sparqljs`) before anything runs: syntax errors come
 * back with their line and column; updates (INSERT, DELETE, LOAD, CLEAR,
 * CREATE, DROP, COPY, MOVE, ADD), `SERVICE` anywhere in the query, and
 * `FROM` / `FROM NAMED` are refused. What passes is prepared for the engine:
 * the ontology prefixes declared and a row cap of limit + 1 (to tell that
 * rows were cut).
 *
 * @module
 */

// @ts-types="@types/sparqljs"
import sparqljs from "sparqljs";
import { SparqlRefusedError, SparqlSyntaxError } from "./errors.ts";
import { ONTOLOGY_PREFIXES } from "./namespaces.ts";

/** The longest query text accepted. */
export const MAX_QUERY_LENGTH = 20_000;

/** The read query forms. */
export type SparqlQueryType = "SELECT" | "ASK" | "CONSTRUCT" | "DESCRIBE";

/** Options of {@link guardSparql}. */
export interface GuardSparqlOptions {
  /** Rows (or triples) wanted at most; the engine is asked for one more. @default 100 */
  limit?: number;
  /** The longest query text accepted, in characters. @default 20000 */
  maxLength?: number;
}

/** A query that passed the gate, ready for the engine. */
export interface PreparedQuery {
  /** The text the engine runs: prefix declarations, the query, maybe a LIMIT. */
  text: string;
  /** The query form. */
  queryType: SparqlQueryType;
  /** Rows (or triples) wanted at most. */
  limit: number;
  /**
   * Lines added before the user's text (to map engine error positions back),
   * or null when the query had to be rewritten and positions no longer map.
   */
  lineOffset: number | null;
  /** Projected variable names of a SELECT, in order; null for `SELECT *` and other forms. */
  variables: string[] | null;
}

const PREFIX_LINE = Object.entries(ONTOLOGY_PREFIXES)
  .map(([prefix, namespace]) => `PREFIX ${prefix}: <${namespace}>`).join(" ") + "\n";

const UPDATE_KEYWORDS: Readonly<Record<string, string>> = {
  insert: "INSERT DATA",
  delete: "DELETE DATA",
  deletewhere: "DELETE WHERE",
  insertdelete: "INSERT/DELETE … WHERE",
  load: "LOAD",
  clear: "CLEAR",
  create: "CREATE",
  drop: "DROP",
  copy: "COPY",
  move: "MOVE",
  add: "ADD",
};

interface JisonHash {
  text?: string;
  token?: string | null;
  line?: number;
  loc?: { first_line: number; first_column: number };
  expected?: string[];
}

/** 1-based line and column of `offset` in `text`. */
function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

/** Turns a sparqljs error into a syntax error with a position and a short message. */
function syntaxError(query: string, error: Error): SparqlSyntaxError {
  const hash = (error as Error & { hash?: JisonHash }).hash;
  if (hash?.loc || hash?.line !== undefined) {
    const lineNo = hash.loc?.first_line ?? (hash.line ?? 0) + 1;
    const lineText = query.split("\n")[lineNo - 1] ?? "";
    const start = hash.loc?.first_column ?? 0;
    // jison's column may point at the blank before the token; find the token itself.
    const token = (hash.text ?? "").split("\n")[0] ?? "";
    const found = token === "" ? -1 : lineText.indexOf(token, start);
    const column = (found >= 0 ? found : start) + 1;
    const expected = (hash.expected ?? []).map((e) => e.replace(/^'|'$/g, ""));
    const shown = expected.slice(0, 12).join(", ");
    const more = expected.length > 12 ? ` (and ${expected.length - 12} more)` : "";
    const got = token === "" ? "end of query" : `"${token.slice(0, 40)}"`;
    const wanted = expected.length > 0 ? `; expected one of ${shown}${more}` : "";
    return new SparqlSyntaxError(
      `SPARQL syntax error at line ${lineNo}, column ${column}: unexpected ${got}${wanted}.`,
      lineNo,
      column,
    );
  }
  const prefix = /^Unknown prefix: (.*)$/.exec(error.message);
  if (prefix) {
    const at = new RegExp(
      `(^|[^A-Za-z0-9_.-])${prefix[1]!.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")}:`,
    )
      .exec(query);
    const where = at ? position(query, at.index + at[1]!.length) : null;
    const place = where ? ` at line ${where.line}, column ${where.column}` : "";
    return new SparqlSyntaxError(
      `SPARQL syntax error${place}: the prefix "${prefix[1]}:" is not declared (declare it with ` +
        `PREFIX, or use one of the built-in prefixes ${
          Object.keys(ONTOLOGY_PREFIXES).join(", ")
        }).`,
      where?.line ?? null,
      where?.column ?? null,
    );
  }
  return new SparqlSyntaxError(`SPARQL error: ${error.message.slice(0, 300)}`, null, null);
}

/** Whether a parsed query holds a SERVICE pattern anywhere (subqueries, FILTER EXISTS, …). */
function hasService(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasService);
  if (node === null || typeof node !== "object") return false;
  const record = node as Record<string, unknown>;
  if ("termType" in record) return false;
  if (record.type === "service") return true;
  return Object.values(record).some(hasService);
}

/**
 * Parses and checks a query; returns it prepared for the engine, or throws
 * {@link SparqlSyntaxError} / {@link SparqlRefusedError} before anything ran.
 *
 * @example
 * ```ts
 * import { guardSparql } from "./sparql_guard.ts";
 * const prepared = guardSparql("SELECT ?c WHERE { ?c a owl:Class }", { limit: 10 });
 * prepared.queryType; // "SELECT"
 * ```
 */
export function guardSparql(text: string, options: GuardSparqlOptions = {}): PreparedQuery {
  // A byte order mark is not SPARQL; editors add one, the engine refuses it.
  const query = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const limit = Math.max(1, Math.floor(options.limit ?? 100));
  const maxLength = options.maxLength ?? MAX_QUERY_LENGTH;
  if (query.trim() === "") {
    throw new SparqlRefusedError(
      "The SPARQL query is empty: give a SELECT, ASK, CONSTRUCT or DESCRIBE query.",
      "empty",
    );
  }
  if (query.length > maxLength) {
    throw new SparqlRefusedError(
      `The SPARQL query is ${query.length} characters long; at most ${maxLength} are accepted.`,
      "too_long",
    );
  }
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = new sparqljs.Parser({ prefixes: { ...ONTOLOGY_PREFIXES } }).parse(query);
  } catch (error) {
    throw syntaxError(query, error instanceof Error ? error : new Error(String(error)));
  }
  if (parsed.type === "update") {
    const kinds = parsed.updates.map((u) => {
      const key = ("updateType" in u ? u.updateType : u.type) as string;
      return UPDATE_KEYWORDS[key] ?? key.toUpperCase();
    });
    throw new SparqlRefusedError(
      `Only read queries (SELECT, ASK, CONSTRUCT, DESCRIBE) are accepted; this is an update ` +
        `(${[...new Set(kinds)].join(", ")}), which would change the ontology.`,
      "update",
    );
  }
  if (parsed.from && (parsed.from.default.length > 0 || parsed.from.named.length > 0)) {
    throw new SparqlRefusedError(
      "FROM and FROM NAMED are not accepted: queries run over the ontology's default graph only; " +
        "remove the dataset clause.",
      "dataset_clause",
    );
  }
  if (hasService(parsed)) {
    throw new SparqlRefusedError(
      "SERVICE is not accepted: queries cannot call other SPARQL endpoints; remove the SERVICE block.",
      "service",
    );
  }
  const queryType = parsed.queryType as SparqlQueryType;
  const variables = parsed.queryType === "SELECT"
    ? parsed.variables.flatMap((v) =>
      "termType" in v ? (v.termType === "Variable" ? [v.value] : []) : [v.variable.value]
    )
    : null;
  const selectAll = parsed.queryType === "SELECT" && variables !== null &&
    variables.length === 0;
  const cap = limit + 1;
  let prepared = PREFIX_LINE + query;
  let lineOffset: number | null = 1;
  if (queryType !== "ASK") {
    const own = (parsed as { limit?: number }).limit;
    const values = (parsed as { values?: unknown }).values;
    if (own === undefined && values === undefined) {
      prepared += `\nLIMIT ${cap}`;
    } else if (own === undefined || own > cap) {
      (parsed as { limit?: number }).limit = cap;
      prepared = new sparqljs.Generator().stringify(parsed);
      lineOffset = null;
    }
  }
  return {
    text: prepared,
    queryType,
    limit,
    lineOffset,
    variables: selectAll ? null : variables,
  };
}
