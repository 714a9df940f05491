/**
 * Pairing two versions' items by name: a name that stands once on each side
 * pairs its two items; a name repeated on either side is ambiguous and pairs
 * nothing.
 *
 * @module
 */

import { pushTo } from "../../core/multimap.ts";

/** Items with a name, grouped by it in first-seen order; unnamed items are left out. */
export function groupByName<T extends { name: string }>(items: Iterable<T>): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    if (item.name) pushTo(map, item.name, item);
  }
  return map;
}

/** The names found once on both sides, with their items, in the left side's order. */
export interface NamePairs<T> {
  pairs: Array<{ name: string; left: T; right: T }>;
  /** Names on both sides but repeated on at least one of them. */
  ambiguous: number;
}

/**
 * Pairs two {@linkcode groupByName} maps.
 *
 * @example
 * ```ts
 * import { groupByName, pairUniqueNames } from "./name_pairs.ts";
 * const left = groupByName([{ name: "a" }, { name: "b" }, { name: "b" }]);
 * const right = groupByName([{ name: "a" }, { name: "b" }]);
 * pairUniqueNames(left, right); // one pair (a), one ambiguous name (b)
 * ```
 */
export function pairUniqueNames<T>(
  left: ReadonlyMap<string, readonly T[]>,
  right: ReadonlyMap<string, readonly T[]>,
): NamePairs<T> {
  const pairs: NamePairs<T>["pairs"] = [];
  let ambiguous = 0;
  for (const [name, list] of left) {
    const other = right.get(name);
    if (!other) continue;
    if (list.length !== 1 || other.length !== 1) ambiguous++;
    else pairs.push({ name, left: list[0]!, right: other[0]! });
  }
  return { pairs, ambiguous };
}
