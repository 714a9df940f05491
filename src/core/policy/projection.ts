/**
 * The project transform: leaves out paths by glob (`*` one key, `**` any
 * depth), caps strings, and shrinks lists until the rendered JSON fits a
 * character budget.
 *
 * @module
 */

import { TextCuts } from "./text_cut.ts";

/** Options of the project transform. */
export interface ProjectOptions {
  /** Dotted path globs to leave out. @default [] */
  exclude?: string[];
  /** Longest string kept whole. @default unlimited */
  max_string?: number;
  /** Character budget of the rendered JSON. @default unlimited */
  max_chars?: number;
  /** Longest list kept whole. @default unlimited */
  max_list?: number;
}

function globToRegex(glob: string): RegExp {
  const body = glob.split(".").map((part) =>
    part === "**"
      ? "(?:[^.]+\\.)*?"
      : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[^.]*") + "\\."
  ).join("");
  return new RegExp(`^${body.replace(/\\\.$/, "")}$`.replace("*?$", "*?[^.]+$"));
}

/** The key a projected object gains when the projection shortened lists inside it. */
export const POLICY_TRUNCATION_KEY = "_policy_truncation";

/** How a projector is called: `overBudget` when the caller knows the value exceeds `max_chars`. */
export interface ProjectCall {
  overBudget?: boolean;
}

/** Makes a projector; long strings are cut through `cuts`. */
export function projector(
  options: ProjectOptions = {},
  cuts: TextCuts = new TextCuts(),
): <T>(value: T, call?: ProjectCall) => T {
  const excluded = (options.exclude ?? []).map((glob) => {
    // `**.raw_data` leaves out every key named raw_data at any depth.
    const m = /^\*\*\.([^.*]+)$/.exec(glob);
    return m ? { key: m[1]!, regex: null } : { key: null, regex: globToRegex(glob) };
  });
  const keyOnly = new Set(excluded.filter((e) => e.key !== null).map((e) => e.key!));
  const regexes = excluded.filter((e) => e.regex !== null).map((e) => e.regex!);
  let shortened = 0;
  const walk = (value: unknown, path: string, maxList: number, maxString: number): unknown => {
    if (typeof value === "string") {
      return value.length > maxString ? cuts.cut(value, maxString) : value;
    }
    if (Array.isArray(value)) {
      if (value.length > maxList) shortened++;
      const kept = value.length > maxList ? value.slice(0, maxList) : value;
      return kept.map((item) => walk(item, path, maxList, maxString));
    }
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (keyOnly.has(k)) continue;
        const next = path === "" ? k : `${path}.${k}`;
        if (regexes.length > 0 && regexes.some((r) => r.test(next))) continue;
        out[k] = walk(v, next, maxList, maxString);
      }
      return out;
    }
    return value;
  };
  return <T>(value: T, call: ProjectCall = {}): T => {
    let maxList = options.max_list ?? Infinity;
    let maxString = options.max_string ?? Infinity;
    if (call.overBudget && maxList === Infinity) maxList = 1000;
    shortened = 0;
    // Each pass walks the value afresh: only the last pass's cuts count.
    const before = cuts.count;
    let out = walk(value, "", maxList, maxString);
    if (options.max_chars !== undefined) {
      for (let pass = 0; pass < 24 && JSON.stringify(out).length > options.max_chars; pass++) {
        maxList = maxList === Infinity ? 1000 : Math.max(1, Math.floor(maxList / 2));
        if (pass > 8) maxString = Math.max(64, Math.floor(Math.min(maxString, 20000) / 2));
        shortened = 0;
        cuts.restore(before);
        out = walk(value, "", maxList, maxString);
      }
    }
    // A shortened list is said, never silent: the reader learns items are missing and why.
    if (shortened > 0) cuts.listsShortened(shortened, maxList);
    if (shortened > 0 && out !== null && typeof out === "object" && !Array.isArray(out)) {
      (out as Record<string, unknown>)[POLICY_TRUNCATION_KEY] = {
        lists_shortened: shortened,
        max_items_per_list: maxList,
        note:
          "The output policy shortened lists to fit its size limits; ask for fewer items (a smaller limit or narrower filters) to see every one.",
      };
    }
    return out as T;
  };
}
