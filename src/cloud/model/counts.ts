/**
 * Counting per key: how many items have each key, and those counts as an
 * object, largest first.
 *
 * @module
 */

/** How many items have each key, in the order the keys first appear. */
export function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) {
    const k = key(item);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

/** Counts as an object, largest first (stable for ties), optionally the top `n`. */
export function rankedCounts(counts: Map<string, number>, top?: number): Record<string, number> {
  const entries = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(top === undefined ? entries : entries.slice(0, top));
}
