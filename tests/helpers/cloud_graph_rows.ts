/**
 * Test helper: the columns of graph-query rows the cloud tests compare, so
 * the domain test and the tool test of one query read a row the same way.
 *
 * @module
 */

/** The fields of a `largest_blast_radius` row the tests rank by. */
export interface BlastRadiusRow {
  id: string;
  transitive_dependents: number;
  accounts_affected: number;
  internet_exposed_dependents: number;
}

/** Each row as `[id, transitive dependents, accounts affected, internet-exposed dependents]`. */
export function blastRadiusRows(
  items: readonly BlastRadiusRow[],
): [string, number, number, number][] {
  return items.map((i) => [
    i.id,
    i.transitive_dependents,
    i.accounts_affected,
    i.internet_exposed_dependents,
  ]);
}
