/**
 * Test helper: the columns of graph-query rows the cloud tests compare, so
 * the domain test and the tool test of one query read a row the same way.
 *
 * @module
 */

import type { BlastRadiusRow } from "../../src/cloud/graph/dependencies.ts";

/** The fields of a `largest_blast_radius` row the tests rank by. */
type RankedRow = Pick<
  BlastRadiusRow,
  "id" | "transitive_dependents" | "accounts_affected" | "internet_exposed_dependents"
>;

/** Each row as `[id, transitive dependents, accounts affected, internet-exposed dependents]`. */
export function blastRadiusRows(
  items: readonly RankedRow[],
): [string, number, number, number][] {
  return items.map((i) => [
    i.id,
    i.transitive_dependents,
    i.accounts_affected,
    i.internet_exposed_dependents,
  ]);
}
