/**
 * Caller-supplied regular expressions, compiled with RE2 (the `re2js` port):
 * matching takes time linear in the input whatever the pattern, so no
 * pattern such as `^(a|a)*$` or `(a|aa)+$` can hold the event loop. Patterns
 * RE2 cannot express (backreferences, lookahead, lookbehind) are refused.
 *
 * @module
 */

import { RE2JS } from "re2js";

/** Longest pattern accepted, in UTF-16 code units. */
export const MAX_PATTERN_LENGTH = 1_000;

/** A pattern that was refused; the message says why and what is accepted. */
export class PatternError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "PatternError";
  }
}

/** Options of {@linkcode compileLinearRegex}. */
export interface LinearRegexOptions {
  /** Match letters regardless of case. @default false */
  ignoreCase?: boolean;
  /** `.` also matches a newline. @default false */
  dotAll?: boolean;
  /** `^` and `$` match at line boundaries. @default false */
  multiline?: boolean;
}

/** A compiled linear-time pattern. */
export interface LinearRegex {
  /** The pattern as the caller gave it. */
  readonly source: string;
  /** Whether the pattern matches anywhere in `input`. */
  test(input: string): boolean;
  /**
   * Every match in `input` replaced by `replacement`, expanded as
   * `String.prototype.replace` expands it (`$1`, `$&`, `$$`, ...).
   */
  replaceAll(input: string, replacement: string): string;
}

const UNSUPPORTED: ReadonlyArray<[RegExp, string]> = [
  [/\\[1-9]/, "backreferences (\\1 ...)"],
  [/\\k</, "named backreferences (\\k<name>)"],
  [/\(\?<?[=!]/, "lookahead and lookbehind ((?=, (?!, (?<=, (?<!)"],
];

/**
 * Compiles a caller-supplied JavaScript-syntax pattern into a linear-time
 * matcher, translating the flags. Throws {@linkcode PatternError} for a
 * pattern that is too long, uses a feature RE2 cannot run in linear time, or
 * is not a valid expression.
 */
export function compileLinearRegex(pattern: string, options: LinearRegexOptions = {}): LinearRegex {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new PatternError(
      `The pattern is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH} are accepted.`,
    );
  }
  for (const [probe, what] of UNSUPPORTED) {
    if (probe.test(stripEscapedBackslashes(pattern))) {
      throw new PatternError(
        `The pattern ${JSON.stringify(pattern)} uses ${what}, which the linear-time (RE2) ` +
          "engine does not support; rewrite it with groups, alternation, classes and quantifiers.",
      );
    }
  }
  let flags = 0;
  if (options.ignoreCase) flags |= RE2JS.CASE_INSENSITIVE;
  if (options.dotAll) flags |= RE2JS.DOTALL;
  if (options.multiline) flags |= RE2JS.MULTILINE;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), flags);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PatternError(
      `The pattern ${JSON.stringify(pattern)} is invalid (RE2 syntax): ${reason}.`,
    );
  }
  return {
    source: pattern,
    test: (input) => compiled.test(input),
    replaceAll: (input, replacement) => compiled.matcher(input).replaceAll(replacement),
  };
}

/** The pattern with `\\` pairs removed, so an escaped backslash is not read as an escape. */
function stripEscapedBackslashes(pattern: string): string {
  return pattern.replaceAll("\\\\", "");
}
