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

/** One string stage of the fused walk. */
export type StringStage = (text: string, key: string | undefined) => string | typeof DROP;

const SKIPPED = new Set(["_meta", "_annotations", "cursor", "next_cursor"]);

/**
 * Builds one walk running `stages` on every string (skipping the keys the
 * transforms leave alone), leaving out `excludedKeys`, capping strings at
 * `maxString`, then applying `project`'s budget when one is set.
 */
export function fusedWalk(
  stages: readonly StringStage[],
  options: { excludedKeys?: ReadonlySet<string>; maxString?: number; project?: ProjectOptions },
): (value: unknown) => unknown {
  const excluded = options.excludedKeys ?? new Set<string>();
  const maxString = options.maxString ?? Infinity;
  const budget = options.project?.max_chars;
  const shrink = budget === undefined ? null : projector(options.project!);
  const onString = (text: string, key: string | undefined): string | typeof DROP => {
    let out: string | typeof DROP = text;
    for (const stage of stages) {
      out = stage(out, key);
      if (out === DROP) return DROP;
    }
    return out.length > maxString
      ? `${out.slice(0, maxString)}… [+${out.length - maxString} chars]`
      : out;
  };
  // Keys repeat across the objects of a list: a key the stages leave unchanged is
  // remembered (the stages are pure for a given text, and detectors never widen), so
  // each distinct key is run through them once per walk function, not once per object.
  const plainKeys = new Set<string>();
  // A running estimate of the rendered size, so only results near the budget are stringified.
  let size = 0;
  const walk = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === "string") {
      const out = onString(value, key);
      if (out !== DROP) size += out.length + 3;
      return out;
    }
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const item of value) {
        const next = walk(item, key);
        if (next !== DROP) out.push(next);
      }
      return out;
    }
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const k in value) {
        if (excluded.has(k)) continue;
        const v = (value as Record<string, unknown>)[k];
        if (SKIPPED.has(k)) {
          out[k] = v;
          continue;
        }
        const next = walk(v, k);
        if (next !== DROP) {
          // Keys can carry identifiers too ("111111111111 -> 222222222222", an account id
          // as a map key): they go through the same stages as free text.
          let name = k;
          if (!plainKeys.has(k)) {
            const renamed = onString(k, undefined);
            name = renamed === DROP ? "[REDACTED]" : renamed;
            if (name === k && plainKeys.size < 4096) plainKeys.add(k);
          }
          out[name] = next;
          size += name.length + 4;
        }
      }
      return out;
    }
    size += 6;
    return value;
  };
  return (value) => {
    size = 0;
    const out = walk(value, undefined);
    if (out === DROP) return typeof value === "string" ? "[REDACTED:content]" : null;
    if (!shrink || size <= budget! / 2) return out;
    if (size > budget! * 4) return shrink(out, { overBudget: true });
    return JSON.stringify(out).length > budget! ? shrink(out, { overBudget: true }) : out;
  };
}

/** A redactor as a string stage. */
export function redactStage(redactor: Redactor): StringStage {
  return (text, key) => redactor.redactField(text, key);
}
