/**
 * Counts over a built ontology: triples, classes declared and used,
 * individuals, and triples per relation type and group.
 *
 * @module
 */

import { RELATION_GROUPS, type RelationGroup, type RelationType } from "../model/enums.ts";
import { CMP } from "./namespaces.ts";
import type { Store } from "./oxigraph.ts";
import { count, select } from "./store_queries.ts";

/** What {@link ontologyStats} reports. */
export interface OntologyStats {
  /** Triples in the store. */
  triples: number;
  /** Classes declared (`owl:Class`). */
  classes: number;
  /** Classes with at least one typed node. */
  classes_used: number;
  /** Named nodes typed with an ontology class (assets, placeholders, tags, findings, frameworks). */
  individuals: number;
  /** Relation properties declared (the 64 relation types). */
  object_properties: number;
  /** Triples whose predicate is a relation property. */
  relation_triples: number;
  /** Triples per relation type (only types that occur), in the vocabulary's order. */
  relation_types: Partial<Record<RelationType, number>>;
  /** Triples per relation group, every group listed. */
  relation_groups: Record<RelationGroup, number>;
}

/** How many triples use each relation type (relation types with none are absent). */
export function relationTypeCounts(store: Store): Map<string, number> {
  const perType = new Map<string, number>();
  for (
    const row of select(
      store,
      "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o . ?p cm:relationGroup ?g } GROUP BY ?p",
    )
  ) {
    perType.set(row.get("p")!.value.slice(CMP.length), Number(row.get("n")!.value));
  }
  return perType;
}

/**
 * Counts the store's content with SPARQL.
 *
 * @example
 * ```ts
 * import { buildOntology } from "./build.ts";
 * import { ontologyStats } from "./stats.ts";
 * const { store } = await buildOntology({
 *   assets: [], edges: [], findings: [], findingAssetIds: [], compliance: [],
 * });
 * ontologyStats(store).object_properties; // 64
 * ```
 */
export function ontologyStats(store: Store): OntologyStats {
  const perType = relationTypeCounts(store);
  const relationTypes: Partial<Record<RelationType, number>> = {};
  const relationGroups = {} as Record<RelationGroup, number>;
  let relationTriples = 0;
  for (
    const [group, types] of Object.entries(RELATION_GROUPS) as [
      RelationGroup,
      readonly RelationType[],
    ][]
  ) {
    relationGroups[group] = 0;
    for (const type of types) {
      const n = perType.get(type) ?? 0;
      if (n > 0) relationTypes[type] = n;
      relationGroups[group] += n;
      relationTriples += n;
    }
  }
  return {
    triples: store.size,
    classes: count(store, "SELECT (COUNT(?c) AS ?n) WHERE { ?c a owl:Class }"),
    classes_used: count(
      store,
      "SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { ?s a ?c . ?c a owl:Class }",
    ),
    individuals: count(
      store,
      "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?c . ?c a owl:Class . FILTER(isIRI(?s)) }",
    ),
    object_properties: count(
      store,
      "SELECT (COUNT(?p) AS ?n) WHERE { ?p a owl:ObjectProperty ; cm:relationGroup ?g }",
    ),
    relation_triples: relationTriples,
    relation_types: relationTypes,
    relation_groups: relationGroups,
  };
}
