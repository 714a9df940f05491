/**
 * The relation triples around one node of the ontology, hop by hop in both
 * directions, bounded in hops and triples.
 *
 * @module
 */

import { RELATION_TYPES } from "../model/enums.ts";
import { OntologyArgumentError } from "./errors.ts";
import { compactIri, expandIri, propertyIri, RDF, resourceIri } from "./namespaces.ts";
import { type NamedNode, namedNode, type Quad, type Store } from "./oxigraph.ts";

/** Options of {@link ontologyNeighbourhood}. */
export interface NeighbourhoodOptions {
  /** Hops out from the centre, 1 to 3. @default 1 */
  hops?: number;
  /** Triples returned at most. @default 100 */
  limit?: number;
  /** Shorten IRIs with the ontology prefixes. @default true */
  compactUris?: boolean;
}

/** One relation triple of a neighbourhood. */
export interface NeighbourhoodTriple {
  /** Subject IRI. */
  subject: string;
  /** Relation property IRI. */
  predicate: string;
  /** The relation type (the property's local name). */
  relation: string;
  /** Object IRI. */
  object: string;
  /** The hop at which the triple was reached (1 = touches the centre). */
  hop: number;
}

/** A node of a neighbourhood. */
export interface NeighbourhoodNode {
  /** IRI. */
  iri: string;
  /** `hasName`, if any. */
  name: string | null;
  /** Classes (`rdf:type`). */
  types: string[];
  /** Hops from the centre. */
  hop: number;
}

/** What {@link ontologyNeighbourhood} returns. */
export interface Neighbourhood {
  /** The centre's IRI. */
  center: string;
  /** Hops walked. */
  hops: number;
  /** Nodes reached (the centre first), at most those the triples touch. */
  nodes: NeighbourhoodNode[];
  /** Relation triples, by hop. */
  triples: NeighbourhoodTriple[];
  /** Whether the limit cut the walk short. */
  truncated: boolean;
}

const RELATION_IRIS = new Set(RELATION_TYPES.map((t) => propertyIri(t)));

/**
 * The centre given as an IRI, a prefixed name (`cmr:…`) or an asset id.
 */
export function centreIri(ref: string): string {
  if (/^https?:\/\//.test(ref)) return ref;
  const expanded = expandIri(ref);
  return expanded !== ref ? expanded : resourceIri(ref);
}

/**
 * Walks relation triples around a node (both directions) for up to `hops`
 * hops, stopping at `limit` triples.
 *
 * @example
 * ```ts
 * import { buildOntology } from "./build.ts";
 * import { ontologyNeighbourhood } from "./neighbourhood.ts";
 * const { store } = await buildOntology({
 *   assets: [], edges: [], findings: [], findingAssetIds: [], compliance: [],
 * });
 * ontologyNeighbourhood(store, "cm:CloudResource").triples; // []
 * ```
 */
export function ontologyNeighbourhood(
  store: Store,
  ref: string,
  options: NeighbourhoodOptions = {},
): Neighbourhood {
  const hops = Math.floor(options.hops ?? 1);
  if (!(hops >= 1 && hops <= 3)) {
    throw new OntologyArgumentError(`hops must be 1, 2 or 3 (got ${options.hops}).`);
  }
  const limit = Math.max(1, Math.floor(options.limit ?? 100));
  const compact = options.compactUris ?? true;
  const show = (iri: string): string => (compact ? compactIri(iri) : iri);
  const centre = centreIri(ref);
  const centreNode = namedNode(centre);
  if (
    store.match(centreNode, null, null).length === 0 &&
    store.match(null, null, centreNode).length === 0
  ) {
    throw new OntologyArgumentError(
      `"${
        ref.slice(0, 200)
      }" is not a node of the ontology: give an asset id, a cmr: name or a full IRI.`,
    );
  }
  const hopOf = new Map<string, number>([[centre, 0]]);
  const triples: NeighbourhoodTriple[] = [];
  const seen = new Set<string>();
  let frontier: NamedNode[] = [centreNode];
  let truncated = false;
  walk: for (let hop = 1; hop <= hops && frontier.length > 0; hop++) {
    const next: NamedNode[] = [];
    for (const node of frontier) {
      const around: Quad[] = [...store.match(node, null, null), ...store.match(null, null, node)];
      for (const q of around) {
        if (!RELATION_IRIS.has(q.predicate.value)) continue;
        if (q.subject.termType !== "NamedNode" || q.object.termType !== "NamedNode") continue;
        const key = `${q.subject.value} ${q.predicate.value} ${q.object.value}`;
        if (seen.has(key)) continue;
        if (triples.length >= limit) {
          truncated = true;
          break walk;
        }
        seen.add(key);
        triples.push({
          subject: show(q.subject.value),
          predicate: show(q.predicate.value),
          relation: q.predicate.value.slice(q.predicate.value.lastIndexOf("/") + 1),
          object: show(q.object.value),
          hop,
        });
        for (const end of [q.subject, q.object] as NamedNode[]) {
          if (!hopOf.has(end.value)) {
            hopOf.set(end.value, hop);
            next.push(end);
          }
        }
      }
    }
    frontier = next;
  }
  const nodes: NeighbourhoodNode[] = [...hopOf].map(([iri, hop]) => {
    const node = namedNode(iri);
    const name = store.match(node, namedNode(propertyIri("hasName")), null)[0]?.object.value ??
      null;
    const types = store.match(node, namedNode(RDF + "type"), null).map((q) => show(q.object.value))
      .sort();
    return { iri: show(iri), name, types, hop };
  });
  return { center: show(centre), hops, nodes, triples, truncated };
}
