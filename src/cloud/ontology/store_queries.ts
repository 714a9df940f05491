/**
 * Small helpers for the ontology's own (trusted) queries on a store.
 *
 * @module
 */

import { ONTOLOGY_PREFIXES } from "./namespaces.ts";
import type { Store, Term } from "./oxigraph.ts";

/** The ontology prefixes as SPARQL declarations. */
export const SPARQL_PREFIXES: string = Object.entries(ONTOLOGY_PREFIXES)
  .map(([prefix, namespace]) => `PREFIX ${prefix}: <${namespace}>`).join("\n") + "\n";

/** Runs a trusted SELECT (prefixes added) and returns its solutions. */
export function select(store: Store, body: string): Map<string, Term>[] {
  const result = store.query(SPARQL_PREFIXES + body);
  if (!Array.isArray(result)) throw new TypeError("Expected SELECT solutions from the store.");
  return result as Map<string, Term>[];
}

/** The number bound to `name` in the first solution of a trusted SELECT, else 0. */
export function count(store: Store, body: string, name = "n"): number {
  const value = select(store, body)[0]?.get(name)?.value;
  return value === undefined ? 0 : Number(value);
}
