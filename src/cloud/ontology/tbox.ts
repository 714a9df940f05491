/**
 * The ontology's TBox: the class per asset type under its family class and
 * `cm:CloudResource`, the helper classes, the 64 relation types as object
 * properties labelled with their group, and the data properties.
 *
 * @module
 */

import { ASSET_TYPE_FAMILIES, RELATION_GROUPS } from "../model/enums.ts";
import {
  assetClassName,
  classLabel,
  familyClassName,
  HELPER_CLASSES,
  relationLabel,
} from "./classes.ts";
import { classIri, CM, ONTOLOGY_IRI, OWL, propertyIri, RDF, RDFS, XSD } from "./namespaces.ts";
import { literal, namedNode, type Quad, quad } from "./oxigraph.ts";

/** Data properties (local names under `cmp:`) and the XSD datatype of their values. */
export const DATA_PROPERTIES: Readonly<Record<string, "string" | "boolean" | "float">> = {
  hasARN: "string",
  hasName: "string",
  hasRegion: "string",
  hasProvider: "string",
  hasAccountId: "string",
  hasCIDR: "string",
  hasPort: "string",
  hasProtocol: "string",
  hasSeverity: "string",
  hasRiskScore: "float",
  isInternetExposed: "boolean",
};

/** `rdf:type`. */
export const RDF_TYPE = namedNode(RDF + "type");
/** `rdfs:label`. */
export const RDFS_LABEL = namedNode(RDFS + "label");
/** `rdfs:subClassOf`. */
export const RDFS_SUBCLASS = namedNode(RDFS + "subClassOf");
/** `owl:Class`. */
export const OWL_CLASS = namedNode(OWL + "Class");
/** `owl:ObjectProperty`. */
export const OWL_OBJECT_PROPERTY = namedNode(OWL + "ObjectProperty");
/** `owl:DatatypeProperty`. */
export const OWL_DATATYPE_PROPERTY = namedNode(OWL + "DatatypeProperty");
/** `cm:relationGroup`: the group literal on each relation property. */
export const RELATION_GROUP = namedNode(CM + "relationGroup");

/**
 * Every TBox quad, in a stable order (default graph).
 *
 * @example
 * ```ts
 * import { tboxQuads } from "./tbox.ts";
 * tboxQuads().length > 64 * 3; // true: at least three triples per relation property
 * ```
 */
export function tboxQuads(): Quad[] {
  const out: Quad[] = [];
  const add = (s: string, p: ReturnType<typeof namedNode>, o: Quad["object"]): void => {
    out.push(quad(namedNode(s), p, o));
  };
  const ontology = ONTOLOGY_IRI;
  add(ontology, RDF_TYPE, namedNode(OWL + "Ontology"));
  add(ontology, RDFS_LABEL, literal("Cloud estate ontology"));

  const declared = new Set<string>();
  const declareClass = (name: string, label: string): string => {
    const iri = classIri(name);
    if (!declared.has(iri)) {
      declared.add(iri);
      add(iri, RDF_TYPE, OWL_CLASS);
      add(iri, RDFS_LABEL, literal(label));
    }
    return iri;
  };
  const root = declareClass("CloudResource", "Cloud Resource");
  for (const name of HELPER_CLASSES) declareClass(name, classLabel(name));

  const subclass = new Set<string>();
  const addSubclass = (child: string, parent: string): void => {
    const key = `${child} ${parent}`;
    if (child === parent || subclass.has(key)) return;
    subclass.add(key);
    add(child, RDFS_SUBCLASS, namedNode(parent));
  };
  for (const [family, types] of Object.entries(ASSET_TYPE_FAMILIES)) {
    const familyIri = declareClass(familyClassName(family), family);
    addSubclass(familyIri, root);
    for (const type of types) {
      const name = assetClassName(type);
      const iri = declareClass(name, classLabel(name));
      addSubclass(iri, root);
      addSubclass(iri, familyIri);
    }
  }

  for (const [group, relations] of Object.entries(RELATION_GROUPS)) {
    for (const relation of relations) {
      const iri = propertyIri(relation);
      add(iri, RDF_TYPE, OWL_OBJECT_PROPERTY);
      add(iri, RDFS_LABEL, literal(relationLabel(relation)));
      add(iri, RELATION_GROUP, literal(group));
    }
  }
  for (const [name, type] of Object.entries(DATA_PROPERTIES)) {
    const iri = propertyIri(name);
    add(iri, RDF_TYPE, OWL_DATATYPE_PROPERTY);
    add(iri, RDFS_LABEL, literal(name));
    add(iri, namedNode(RDFS + "range"), namedNode(XSD + type));
  }
  for (const helper of ["fromNode", "toNode"]) {
    add(CM + helper, RDF_TYPE, namedNode(RDF + "Property"));
  }
  add(CM + "relationGroup", RDF_TYPE, namedNode(OWL + "AnnotationProperty"));
  return out;
}
