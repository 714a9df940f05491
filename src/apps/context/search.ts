/**
 * What the search tools (`search_strings`, `search_procedures`) share: the
 * query (our `query` or REA's `pattern`) compiled into a matcher on the
 * linear-time engine, the hits paged, and the page recorded as Evidence
 * with the query echoed.
 *
 * @module
 */

import type { ToolContext } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { stringMatcher } from "../analysis/strings.ts";
import type { BinarySession } from "../session/binary_session.ts";
import { type AnalysisScope, type ObservationOutcome, observe } from "./observation.ts";
import { pageOf } from "./procedure_query.ts";

/** The largest regular expression accepted by the search tools. */
export const MAX_PATTERN_LENGTH = 256;

/** The query of a search tool call, as parsed: `query` (ours) or `pattern` (REA's), or both equal. */
export interface SearchQuery {
  query?: string | undefined;
  pattern?: string | undefined;
  mode: "literal" | "regex";
  case_sensitive: boolean;
}

/** A search call's arguments: its query, its page and its document. */
export interface SearchArgs extends SearchQuery {
  offset: number;
  limit: number;
  document?: string | undefined;
}

/** The text searched for: `query` or REA's `pattern`; refused when neither is given or they differ. */
export function searchText(search: SearchQuery): string {
  const { query, pattern } = search;
  if (query !== undefined && pattern !== undefined && query !== pattern) {
    throw new ToolFailure(
      "invalid_request",
      "query and pattern are the same argument (pattern is REA's name for it) and were given different values.",
      { action: "Pass one of them." },
    );
  }
  const text = query ?? pattern;
  if (text === undefined) {
    throw new ToolFailure(
      "invalid_request",
      "A search needs query (or pattern): the text to find.",
      {
        action: "Pass query, or REA's pattern, with the literal or regular expression to match.",
      },
    );
  }
  return text;
}

/**
 * Compiles a search query; a regex runs on the linear-time (RE2) engine, so no
 * pattern can take exponential time, and one it cannot run is refused.
 */
export function matcherOf(search: SearchQuery): (value: string) => boolean {
  const text = searchText(search);
  const { mode, case_sensitive: caseSensitive } = search;
  if (mode === "regex") {
    if (text.length > MAX_PATTERN_LENGTH) {
      throw new ToolFailure(
        "invalid_request",
        `The pattern is ${text.length} characters; at most ${MAX_PATTERN_LENGTH}.`,
      );
    }
    try {
      return stringMatcher(text, mode, caseSensitive);
    } catch (error) {
      throw new ToolFailure(
        "invalid_request",
        `Invalid regular expression: ${(error as Error).message}`,
      );
    }
  }
  return stringMatcher(text, mode, caseSensitive);
}

/** What one search finds in a document: its hits, in order, and what the tool adds to the result. */
export interface SearchFindings<T> {
  hits: T[];
  /** How one hit of the returned page is reported. */
  describe: (hit: T) => unknown;
  /** Fields of the result beyond the page and the echoed query. */
  extra?: Record<string, unknown>;
  limitations?: string[];
}

/**
 * Runs a search: compiles the query (refusing a bad one before any work),
 * finds the hits in the call's document, pages them and records the page as
 * Evidence, each hit of the page described by the findings' `describe`.
 */
export function searchDocument<T>(
  session: BinarySession,
  call: ToolContext,
  options: {
    operation: string;
    args: SearchArgs;
    find: (scope: AnalysisScope, matches: (value: string) => boolean) => Promise<SearchFindings<T>>;
  },
): Promise<ObservationOutcome> {
  const { operation, args } = options;
  const matches = matcherOf(args);
  return observe(session, { operation, document: args.document, call }, async (scope) => {
    const { hits, describe, extra, limitations } = await options.find(scope, matches);
    const page = pageOf(hits, args.offset, args.limit);
    return {
      result: {
        query: searchText(args),
        mode: args.mode,
        ...page,
        items: page.items.map(describe),
        ...extra,
      },
      limitations: limitations ?? [],
    };
  });
}
