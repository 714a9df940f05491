/**
 * Enumeration arguments: matched case-insensitively with `-` and spaces read
 * as `_`; a miss lists the accepted values and up to three close ones.
 *
 * @module
 */

import { closeMatches } from "./close_matches.ts";
import { InvalidEnumError } from "./errors.ts";

/** How many accepted values an error message shows; `data.valid` holds all. */
export const ENUM_VALUES_IN_MESSAGE = 30;

/** Options of {@linkcode parseEnum}. */
export interface ParseEnumOptions {
  /** What the argument is called in the message ("severity", "asset type"). @default "value" */
  label?: string;
}

/** The comparison form: upper case, runs of `-`, `_` and white space as one `_`, trimmed. */
export function enumKey(value: string): string {
  return value.trim().toUpperCase().replace(/[-_\s]+/g, "_");
}

/**
 * Returns the accepted value matching `value` (case-insensitive, `-`/space as
 * `_`), or throws {@linkcode InvalidEnumError} with `data.value`,
 * `data.valid` and `data.close_matches` (at most three, closest first).
 *
 * @example
 * ```ts
 * import { parseEnum } from "./parse_enum.ts";
 * parseEnum("high", ["CRITICAL", "HIGH"]); // "HIGH"
 * parseEnum("JSON LD", ["turtle", "json-ld"]); // "json-ld"
 * ```
 */
export function parseEnum<T extends string>(
  value: string,
  valid: readonly T[],
  options: ParseEnumOptions = {},
): T {
  const label = options.label ?? "value";
  const key = typeof value === "string" ? enumKey(value) : "";
  const byKey = new Map<string, T>();
  for (const candidate of valid) {
    if (!byKey.has(enumKey(candidate))) byKey.set(enumKey(candidate), candidate);
  }
  const hit = byKey.get(key);
  if (hit !== undefined && key !== "") return hit;
  const close = key === ""
    ? []
    : closeMatches(key, [...byKey.keys()], 3, 0.6).map((k: string) => byKey.get(k)!);
  const shown = valid.slice(0, ENUM_VALUES_IN_MESSAGE).join(", ");
  const more = valid.length > ENUM_VALUES_IN_MESSAGE
    ? ` and ${valid.length - ENUM_VALUES_IN_MESSAGE} more (see data.valid)`
    : "";
  const hint = close.length > 0 ? ` Close matches are in data.close_matches.` : "";
  throw new InvalidEnumError(
    `The ${label} is not one of the ${valid.length} accepted values: ${shown}${more}.${hint}`,
    { value, valid: [...valid], close_matches: close },
  );
}
