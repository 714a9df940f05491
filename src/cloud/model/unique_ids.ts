/**
 * Ids unique within one import: the record builder's edge ids and the
 * scanner importers' finding ids.
 *
 * @module
 */

/** A source of unique ids: an id seen before gets `#2`, `#3`, … appended. */
export function uniqueIds(): (id: string) => string {
  const seen = new Map<string, number>();
  return (id) => {
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    return n > 1 ? `${id}#${n}` : id;
  };
}
