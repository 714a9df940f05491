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
import { iri, type IriTerm, lit, triple, type TripleTerm } from "./terms.ts";

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
export const RDF_TYPE: IriTerm = iri(RDF + "type");
/** `rdfs:label`. */
export const RDFS_LABEL: IriTerm = iri(RDFS + "label");
/** `rdfs:subClassOf`. */
export const RDFS_SUBCLASS: IriTerm = iri(RDFS + "subClassOf");
/** `owl:Class`. */
export const OWL_CLASS: IriTerm = iri(OWL + "Class");
/** `owl:ObjectProperty`. */
export const OWL_OBJECT_PROPERTY: IriTerm = iri(OWL + "ObjectProperty");
/** `owl:DatatypeProperty`. */
export const OWL_DATATYPE_PROPERTY: IriTerm = iri(OWL + "DatatypeProperty");
/** `cm:relationGroup`: the group literal on each relation property. */
export const RELATION_GROUP: IriTerm = iri(CM + "relationGroup");

/**
 * Every TBox quad, in a stable order (default graph).
 *
 * @example
 * ```ts
 * import { tboxQuads } from "./tbox.ts";
 * tboxQuads().length > 64 * 3; // true: at least three triples per relation property
 * ```
 */
export function tboxQuads(): TripleTerm[] {
  const out: TripleTerm[] = [];
  const add = (s: string, p: IriTerm, o: TripleTerm["object"]): void => {
    out.push(triple(iri(s), p, o));
  };
  const ontology = ONTOLOGY_IRI;
  add(ontology, RDF_TYPE, iri(OWL + "Ontology"));
  add(ontology, RDFS_LABEL, lit("Cloud estate ontology"));

  const declared = new Set<string>();
  const declareClass = (name: string, label: string): string => {
    const node = classIri(name);
    if (!declared.has(node)) {
      declared.add(node);
      add(node, RDF_TYPE, OWL_CLASS);
      add(node, RDFS_LABEL, lit(label));
    }
    return node;
  };
  const root = declareClass("CloudResource", "Cloud Resource");
  for (const name of HELPER_CLASSES) declareClass(name, classLabel(name));

  const subclass = new Set<string>();
  const addSubclass = (child: string, parent: string): void => {
    const key = `${child} ${parent}`;
    if (child === parent || subclass.has(key)) return;
    subclass.add(key);
    add(child, RDFS_SUBCLASS, iri(parent));
  };
  for (const [family, types] of Object.entries(ASSET_TYPE_FAMILIES)) {
    const familyIri = declareClass(familyClassName(family), family);
    addSubclass(familyIri, root);
    for (const type of types) {
      const name = assetClassName(type);
      const node = declareClass(name, classLabel(name));
      addSubclass(node, root);
      addSubclass(node, familyIri);
    }
  }

  for (const [group, relations] of Object.entries(RELATION_GROUPS)) {
    for (const relation of relations) {
      const node = propertyIri(relation);
      add(node, RDF_TYPE, OWL_OBJECT_PROPERTY);
      add(node, RDFS_LABEL, lit(relationLabel(relation)));
      add(node, RELATION_GROUP, lit(group));
    }
  }
  for (const [name, type] of Object.entries(DATA_PROPERTIES)) {
    const node = propertyIri(name);
    add(node, RDF_TYPE, OWL_DATATYPE_PROPERTY);
    add(node, RDFS_LABEL, lit(name));
    add(node, iri(RDFS + "range"), iri(XSD + type));
  }
  for (const helper of ["fromNode", "toNode"]) {
    add(CM + helper, RDF_TYPE, iri(RDF + "Property"));
  }
  add(CM + "relationGroup", RDF_TYPE, iri(OWL + "AnnotationProperty"));
  return out;
}
