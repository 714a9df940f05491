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

/**
 * The rows as one line, each `id dependents/accounts/exposed` (transitive
 * dependents, accounts affected, internet-exposed dependents), `; ` between.
 */
export function blastRadiusRows(items: readonly RankedRow[]): string {
  return items.map((i) =>
    `${i.id} ${i.transitive_dependents}/${i.accounts_affected}/${i.internet_exposed_dependents}`
  ).join("; ");
}

/** The `network` part of a blast radius that reaches nothing over the network. */
export const NO_NETWORK_REACH = {
  reachable_assets: 0,
  reachable_nodes: 0,
  max_depth: 0,
  risk_score: 0,
  sensitive_reachable: [],
  truncated: false,
} as const;
