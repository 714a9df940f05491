/**
 * Binary search over arrays sorted by a numeric key.
 *
 * @module
 */

/** The index of the first item whose key is greater than `value` (`items.length` when none). */
export function upperBound<T, K extends number | bigint>(
  items: ArrayLike<T>,
  value: K,
  key: (item: T) => K,
): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(items[mid]!) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
