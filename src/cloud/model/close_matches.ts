/**
 * Close matches of a misspelt value among the accepted ones, for error data
 * (`close_matches`, `suggestions`). Similarity is the Ratcliff/Obershelp
 * ratio (twice the matched characters over the total length, matching the
 * longest common block first and recursing on both sides), the measure
 * Python's difflib uses, so transposed letters still score high. (The npm
 * port of difflib cannot be bundled: it writes to a function's read-only
 * `name` in strict mode.)
 *
 * @module
 */

/** The matched characters of `a` and `b` (longest common block, then both sides of it). */
function matched(a: string, b: string): number {
  if (a.length === 0 || b.length === 0) return 0;
  // Longest common substring by dynamic programming over one row.
  let best = 0;
  let endA = 0;
  let endB = 0;
  let previous = new Uint16Array(b.length + 1);
  let current = new Uint16Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      current[j] = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? previous[j - 1]! + 1 : 0;
      if (current[j]! > best) {
        best = current[j]!;
        endA = i;
        endB = j;
      }
    }
    [previous, current] = [current, previous];
    current.fill(0);
  }
  if (best === 0) return 0;
  return best +
    matched(a.slice(0, endA - best), b.slice(0, endB - best)) +
    matched(a.slice(endA), b.slice(endB));
}

/** Similarity of two strings, 0 (nothing alike) to 1 (equal). */
export function similarity(a: string, b: string): number {
  const total = a.length + b.length;
  return total === 0 ? 1 : (2 * matched(a, b)) / total;
}

/**
 * Up to `n` candidates at least `cutoff` similar to `word`, most similar
 * first; ties go to the greater string, as difflib's `get_close_matches`
 * orders them.
 *
 * @example
 * ```ts
 * import { closeMatches } from "./close_matches.ts";
 * closeMatches("HIHG", ["CRITICAL", "HIGH", "MEDIUM"], 3, 0.6); // ["HIGH"]
 * ```
 */
export function closeMatches(
  word: string,
  candidates: readonly string[],
  n: number,
  cutoff: number,
): string[] {
  return candidates
    .map((candidate) => ({ candidate, score: similarity(word, candidate) }))
    .filter((entry) => entry.score >= cutoff)
    .sort((a, b) =>
      b.score - a.score || (a.candidate < b.candidate ? 1 : a.candidate > b.candidate ? -1 : 0)
    )
    .slice(0, n)
    .map((entry) => entry.candidate);
}
