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
        if (excluded.has(k)) {
          out ??= copyUpTo(k);
          continue;
        }
        if (SKIPPED.has(k)) {
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
        if (!plainKeys.has(k)) {
          const renamed = onString(k, undefined);
          name = renamed === DROP ? "[REDACTED]" : renamed;
          if (name === k && plainKeys.size < 4096) plainKeys.add(k);
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
