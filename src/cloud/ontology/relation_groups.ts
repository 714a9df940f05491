/**
 * Relation triples by group: an overview of the seven groups with counts per
 * relation type, or the triples of one group, paged.
 *
 * @module
 */

import { RELATION_GROUPS, type RelationGroup } from "../model/enums.ts";
import { OntologyArgumentError } from "./errors.ts";
import { CMP, compactIri } from "./namespaces.ts";
import { literal, type Store } from "./oxigraph.ts";
import { relationTypeCounts } from "./stats.ts";
import { count, select } from "./store_queries.ts";

/** One group in the overview. */
export interface RelationGroupSummary {
  /** The group. */
  group: RelationGroup;
  /** Triples whose relation is in the group. */
  triples: number;
  /** Triples per relation type of the group (every type listed). */
  relation_types: Record<string, number>;
}

/** One relation triple of a group. */
export interface RelationGroupTriple {
  /** Subject IRI. */
  subject: string;
  /** Subject `hasName`, if any. */
  subject_name: string | null;
  /** The relation type. */
  relation: string;
  /** Object IRI. */
  object: string;
  /** Object `hasName`, if any. */
  object_name: string | null;
}

/** Options of {@link relationGroups}. */
export interface RelationGroupsOptions {
  /** A group name (case-insensitive; `-` and spaces read as `_`); empty for the overview. @default "" */
  group?: string;
  /** Triples skipped (group listing only). @default 0 */
  offset?: number;
  /** Triples returned at most (group listing only). @default 100 */
  limit?: number;
  /** Shorten IRIs with the ontology prefixes. @default true */
  compactUris?: boolean;
}

/** The overview of all groups. */
export interface RelationGroupsOverview {
  /** Overview form. */
  kind: "overview";
  /** Relation triples in all groups. */
  total: number;
  /** The seven groups in vocabulary order. */
  groups: RelationGroupSummary[];
}

/** One page of one group's triples. */
export interface RelationGroupListing {
  /** Listing form. */
  kind: "group";
  /** The group. */
  group: RelationGroup;
  /** Triples in the group. */
  total: number;
  /** Triples skipped. */
  offset: number;
  /** Triples in this page. */
  returned: number;
  /** Whether more follow. */
  truncated: boolean;
  /** Triples in the group's order (relation, subject, object). */
  items: RelationGroupTriple[];
}

/** Reads a group name; throws naming the seven groups otherwise. */
export function parseRelationGroup(value: string): RelationGroup {
  const name = value.trim().toUpperCase().replace(/[- ]+/g, "_");
  if (name in RELATION_GROUPS) return name as RelationGroup;
  throw new OntologyArgumentError(
    `Unknown relation group "${value.slice(0, 40)}": use one of ${
      Object.keys(RELATION_GROUPS).join(", ")
    }.`,
  );
}

/**
 * The overview of the relation groups, or one group's triples.
 *
 * @example
 * ```ts
 * import { buildOntology } from "./build.ts";
 * import { relationGroups } from "./relation_groups.ts";
 * const { store } = await buildOntology({
 *   assets: [], edges: [], findings: [], findingAssetIds: [], compliance: [],
 * });
 * relationGroups(store); // { kind: "overview", total: 0, groups: [...7 groups] }
 * ```
 */
export function relationGroups(
  store: Store,
  options: RelationGroupsOptions = {},
): RelationGroupsOverview | RelationGroupListing {
  const compact = options.compactUris ?? true;
  const show = (iri: string): string => (compact ? compactIri(iri) : iri);
  if ((options.group ?? "").trim() === "") {
    const perType = relationTypeCounts(store);
    let total = 0;
    const groups = (Object.entries(RELATION_GROUPS) as [RelationGroup, readonly string[]][]).map(
      ([group, types]) => {
        const relationTypes: Record<string, number> = {};
        let triples = 0;
        for (const type of types) {
          relationTypes[type] = perType.get(type) ?? 0;
          triples += relationTypes[type];
        }
        total += triples;
        return { group, triples, relation_types: relationTypes };
      },
    );
    return { kind: "overview", total, groups };
  }
  const group = parseRelationGroup(options.group!);
  const offset = Math.max(0, Math.floor(options.offset ?? 0));
  const limit = Math.max(1, Math.floor(options.limit ?? 100));
  const groupLiteral = literal(group).toString();
  const pattern = `?s ?p ?o . ?p cm:relationGroup ${groupLiteral} .`;
  const total = count(store, `SELECT (COUNT(*) AS ?n) WHERE { ${pattern} }`);
  const rows = select(
    store,
    `SELECT ?s ?p ?o ?sn ?on WHERE { ${pattern}
       OPTIONAL { ?s cmp:hasName ?sn } OPTIONAL { ?o cmp:hasName ?on } }
     ORDER BY ?p ?s ?o OFFSET ${offset} LIMIT ${limit}`,
  );
  const items = rows.map((row) => ({
    subject: show(row.get("s")!.value),
    subject_name: row.get("sn")?.value ?? null,
    relation: row.get("p")!.value.slice(CMP.length),
    object: show(row.get("o")!.value),
    object_name: row.get("on")?.value ?? null,
  }));
  return {
    kind: "group",
    group,
    total,
    offset,
    returned: items.length,
    truncated: offset + items.length < total,
    items,
  };
}
