/**
 * The fused output walk: sanitize, redact and the key and string parts of
 * project run in one pass over a value (in that order for every string), so
 * a large result is walked and copied once instead of once per transform.
 * The character budget of project runs after, only when the result exceeds it.
 *
 * @module
 */

import type { ProjectOptions } from "./projection.ts";
import { projector } from "./projection.ts";
import { DROP, type Redactor } from "./redaction.ts";
import type { sanitizer } from "./sanitize.ts";
import { TextCuts } from "./text_cut.ts";

/**
 * A stage's own cheap verdict on a string: that the stage would return it as it is, and
 * change nothing else (no counts), so the walk can skip the stage's full work for it.
 */
export interface QuietCheck {
  /** The longest text {@linkcode QuietCheck.test} speaks for. */
  maxLength: number;
  /** Whether {@linkcode QuietCheck.test} speaks for strings under `key` (for good). */
  appliesTo(key: string | undefined): boolean;
  /**
   * Whether {@linkcode QuietCheck.test} speaks at all right now, for state that may change
   * between walks (such as known names); asked once per walk. @default always
   */
  live?(): boolean;
  /** True only when the stage returns `text` unchanged; depends on the text alone. */
  test(text: string): boolean;
}

/** One string stage of the fused walk, with its quiet check when it has one. */
export type StringStage = ((text: string, key: string | undefined) => string | typeof DROP) & {
  readonly quiet?: QuietCheck;
};

const SKIPPED = new Set(["_meta", "_annotations", "cursor", "next_cursor"]);
// What a member's key is to the walk: left out, copied as it is, walked (its name through the
// stages), or walked with a name the stages are known to leave unchanged.
const EXCLUDED_KEY = 0;
const SKIPPED_KEY = 1;
const WALKED_KEY = 2;
const PLAIN_KEY = 3;

/**
 * Builds one walk running `stages` on every string (skipping the keys the
 * transforms leave alone), leaving out `excludedKeys`, capping strings at
 * `maxString` (through `cuts`), then applying `project`'s budget when one is set.
 */
export function fusedWalk(
  stages: readonly StringStage[],
  options: {
    excludedKeys?: ReadonlySet<string>;
    maxString?: number;
    project?: ProjectOptions;
    cuts?: TextCuts;
  },
): (value: unknown) => unknown {
  const excluded = options.excludedKeys ?? new Set<string>();
  const maxString = options.maxString ?? Infinity;
  const budget = options.project?.max_chars;
  const cuts = options.cuts ?? new TextCuts();
  const shrink = budget === undefined ? null : projector(options.project!, cuts);
  // When every stage has a quiet check, a string all of them pass is left as it is without
  // running the stages: what they would run is those same tests and then return it.
  const checks = stages.length > 0 && stages.every((stage) => stage.quiet !== undefined)
    ? stages.map((stage) => stage.quiet!)
    : null;
  const quietLength = Math.min(...(checks ?? []).map((check) => check.maxLength));
  // Whether the checks speak for strings under each key met so far (a key's answer holds).
  const quietKeys = new Map<string | undefined, boolean>();
  const appliesTo = (key: string | undefined): boolean => {
    let applies = quietKeys.get(key);
    if (applies === undefined) {
      applies = checks!.every((check) => check.appliesTo(key));
      if (quietKeys.size < 4096) quietKeys.set(key, applies);
    }
    return applies;
  };
  // Set at the start of each walk: whether every check speaks right now.
  let live = false;
  const quiet = (text: string, key: string | undefined): boolean => {
    if (!live || text.length > quietLength || !appliesTo(key)) return false;
    for (let i = 0; i < checks!.length; i++) if (!checks![i]!.test(text)) return false;
    return true;
  };
  const onString = (text: string, key: string | undefined): string | typeof DROP => {
    let out: string | typeof DROP = text;
    if (!quiet(text, key)) {
      for (const stage of stages) {
        out = stage(out, key);
        if (out === DROP) return DROP;
      }
    }
    return out.length > maxString ? cuts.cut(out, maxString) : out;
  };
  // Keys repeat across the objects of a list: what each is (excluded, skipped, or left
  // unchanged by the stages) is remembered, in one lookup per member. A key the stages leave
  // unchanged is remembered as such (the stages are pure for a given text, and detectors never
  // widen), so each distinct key is run through them once per walk function, not per object.
  const keyKinds = new Map<string, number>();
  const kindOf = (k: string): number => {
    let kind = keyKinds.get(k);
    if (kind === undefined) {
      kind = excluded.has(k) ? EXCLUDED_KEY : SKIPPED.has(k) ? SKIPPED_KEY : WALKED_KEY;
      if (kind !== WALKED_KEY && keyKinds.size < 4096) keyKinds.set(k, kind);
    }
    return kind;
  };
  // A running estimate of the rendered size, so only results near the budget are stringified.
  let size = 0;
  // Copy on write: a list or object none of whose parts change is returned as it
  // came (results are never mutated downstream), so a large page the stages leave
  // alone costs a walk, not a copy.
  const walk = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === "string") {
      const out = onString(value, key);
      if (out !== DROP) size += out.length + 3;
      return out;
    }
    if (Array.isArray(value)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const item = value[i];
        const next = walk(item, key);
        if (out === null && next !== item) out = value.slice(0, i);
        if (out !== null && next !== DROP) out.push(next);
      }
      return out ?? value;
    }
    if (value !== null && typeof value === "object") {
      const record = value as Record<string, unknown>;
      const prototype = Object.getPrototypeOf(value);
      // Anything but a plain object (a Date, a class instance) is rebuilt as one, as before.
      let out: Record<string, unknown> | null = prototype === Object.prototype || prototype === null
        ? null
        : {};
      const copyUpTo = (stop: string): Record<string, unknown> => {
        const copy: Record<string, unknown> = {};
        for (const k in record) {
          if (k === stop) break;
          if (!excluded.has(k)) copy[k] = record[k];
        }
        return copy;
      };
      for (const k in record) {
        const v = record[k];
        const kind = kindOf(k);
        if (kind === EXCLUDED_KEY) {
          out ??= copyUpTo(k);
          continue;
        }
        if (kind === SKIPPED_KEY) {
          if (out !== null) out[k] = v;
          continue;
        }
        const next = walk(v, k);
        if (next === DROP) {
          out ??= copyUpTo(k);
          continue;
        }
        // Keys can carry identifiers too ("111111111111 -> 222222222222", an account id
        // as a map key): they go through the same stages as free text.
        let name = k;
        if (kind !== PLAIN_KEY) {
          const renamed = onString(k, undefined);
          name = renamed === DROP ? "[REDACTED]" : renamed;
          if (name === k && keyKinds.size < 4096) keyKinds.set(k, PLAIN_KEY);
        }
        if (out === null && (next !== v || name !== k)) out = copyUpTo(k);
        if (out !== null) out[name] = next;
        size += name.length + 4;
      }
      return out ?? value;
    }
    size += 6;
    return value;
  };
  return (value) => {
    size = 0;
    live = checks !== null && checks.every((check) => check.live?.() ?? true);
    const out = walk(value, undefined);
    if (out === DROP) return typeof value === "string" ? "[REDACTED:content]" : null;
    if (!shrink || size <= budget! / 2) return out;
    if (size > budget! * 4) return shrink(out, { overBudget: true });
    return JSON.stringify(out).length > budget! ? shrink(out, { overBudget: true }) : out;
  };
}

/** A redactor as a string stage. */
export function redactStage(redactor: Redactor): StringStage {
  const quiet: QuietCheck = {
    maxLength: Infinity,
    appliesTo: (key) => redactor.quietFor(key),
    live: () => redactor.quietNow,
    test: (text) => redactor.quiet(text),
  };
  return Object.assign((text: string, key: string | undefined) => redactor.redactField(text, key), {
    quiet,
  });
}

/** A sanitizer as a string stage. */
export function sanitizeStage(sanitize: ReturnType<typeof sanitizer>): StringStage {
  const quiet: QuietCheck = {
    maxLength: sanitize.quietLength,
    appliesTo: () => true,
    test: sanitize.quiet,
  };
  return Object.assign((text: string, key: string | undefined) => sanitize.clean(text, key), {
    quiet,
  });
}
