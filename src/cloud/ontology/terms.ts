/**
 * A minimal RDF/JS data factory of plain objects. oxigraph's store accepts
 * any RDF/JS quad and validates every IRI as it adds it; plain objects cost
 * far less to make and to add than oxigraph's own WebAssembly-backed terms
 * (about 5 µs against 20 µs a quad, measured on 130,000 quads), which
 * matters for estates of 100,000 assets.
 *
 * @module
 */

import { XSD } from "./namespaces.ts";
import type { Quad } from "./oxigraph.ts";

/** An IRI term. */
export interface IriTerm {
  /** Kind. */
  readonly termType: "NamedNode";
  /** The IRI. */
  readonly value: string;
}

/** A blank node term. */
export interface BlankTerm {
  /** Kind. */
  readonly termType: "BlankNode";
  /** The label. */
  readonly value: string;
}

/** A literal term. */
export interface LiteralTerm {
  /** Kind. */
  readonly termType: "Literal";
  /** The lexical form. */
  readonly value: string;
  /** Language tag, or "". */
  readonly language: string;
  /** The datatype IRI. */
  readonly datatype: IriTerm;
}

/** A triple in the default graph. */
export interface TripleTerm {
  /** Kind. */
  readonly termType: "Quad";
  /** Always "". */
  readonly value: "";
  /** Subject. */
  readonly subject: IriTerm | BlankTerm;
  /** Predicate. */
  readonly predicate: IriTerm;
  /** Object. */
  readonly object: IriTerm | BlankTerm | LiteralTerm;
  /** The default graph. */
  readonly graph: { readonly termType: "DefaultGraph"; readonly value: "" };
}

const DEFAULT_GRAPH = { termType: "DefaultGraph", value: "" } as const;
const XSD_STRING: IriTerm = { termType: "NamedNode", value: XSD + "string" };

/** An IRI term. */
export function iri(value: string): IriTerm {
  return { termType: "NamedNode", value };
}

/** A blank node term. */
export function blank(value: string): BlankTerm {
  return { termType: "BlankNode", value };
}

/** A literal, `xsd:string` unless a datatype is given. */
export function lit(value: string, datatype: IriTerm = XSD_STRING): LiteralTerm {
  return { termType: "Literal", value, language: "", datatype };
}

/** A triple in the default graph. */
export function triple(
  subject: IriTerm | BlankTerm,
  predicate: IriTerm,
  object: IriTerm | BlankTerm | LiteralTerm,
): TripleTerm {
  return { termType: "Quad", value: "", subject, predicate, object, graph: DEFAULT_GRAPH };
}

/** The same triple typed as oxigraph's quad, for `Store.add`. */
export function asQuad(t: TripleTerm): Quad {
  return t as unknown as Quad;
}
