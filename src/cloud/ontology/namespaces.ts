/**
 * The ontology's namespaces and the IRIs of its individuals: classes live in
 * `cm:`, object and data properties in `cmp:`, individuals (assets, tags,
 * findings, compliance frameworks, placeholders) in `cmr:`.
 *
 * @module
 */

/** Classes and helper terms. */
export const CM = "https://cloudg.io/ontology#";
/** Object and data properties. */
export const CMP = "https://cloudg.io/property/";
/** Individuals. */
export const CMR = "https://cloudg.io/resource/";
/** The ontology document itself. */
export const ONTOLOGY_IRI = "https://cloudg.io/ontology";
/** W3C RDF. */
export const RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
/** W3C RDF Schema. */
export const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
/** W3C OWL. */
export const OWL = "http://www.w3.org/2002/07/owl#";
/** W3C XML Schema datatypes. */
export const XSD = "http://www.w3.org/2001/XMLSchema#";

/** Prefixes bound in serialisations, accepted undeclared in SPARQL, and used to compact IRIs. */
export const ONTOLOGY_PREFIXES: Readonly<Record<string, string>> = {
  cm: CM,
  cmp: CMP,
  cmr: CMR,
  owl: OWL,
  rdf: RDF,
  rdfs: RDFS,
  xsd: XSD,
};

// Longest namespace first, so a namespace that prefixes another never wins.
const BY_LENGTH = Object.entries(ONTOLOGY_PREFIXES).sort((a, b) => b[1].length - a[1].length);

/** ASCII characters kept as they are: unreserved, sub-delims, `:`, `@`, `/`, `?`. */
const ASCII_KEPT = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?]/;

/** Whether a non-ASCII code point may appear in an IRI path (RFC 3987 ucschar). */
function isUcsChar(cp: number): boolean {
  if (cp < 0xa0 || (cp >= 0xd800 && cp <= 0xf8ff) || (cp >= 0xfdd0 && cp <= 0xfdef)) return false;
  return (cp & 0xfffe) !== 0xfffe && cp < 0xf0000;
}

function percentEncode(ch: string): string {
  return Array.from(
    new TextEncoder().encode(ch),
    (b) => "%" + b.toString(16).toUpperCase().padStart(2, "0"),
  ).join("");
}

/**
 * Makes a string safe as the local part of an IRI by percent-encoding (UTF-8)
 * only what an IRI path cannot hold (spaces, `<>"{}|\^` and backtick, `#`,
 * `[`, `]`, controls, private-use code points, a `%` not starting an escape);
 * everything else is kept, so ids such as `0.0.0.0/0` or ARNs stay readable.
 *
 * @example
 * ```ts
 * import { iriSafe } from "./namespaces.ts";
 * iriSafe("my bucket"); // "my%20bucket"
 * ```
 */
export function iriSafe(text: string): string {
  let out = "";
  let index = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === "%" && /^[0-9A-Fa-f]{2}$/.test(text.slice(index + 1, index + 3))) out += ch;
    else if (cp < 0x80 ? ASCII_KEPT.test(ch) : isUcsChar(cp)) out += ch;
    else out += percentEncode(ch);
    index += ch.length;
  }
  return out;
}

/** The IRI of an asset or graph placeholder node (`cmr:<id>`). */
export function resourceIri(id: string): string {
  return CMR + iriSafe(id);
}

/** The IRI of a tag value: `cmr:tag_<key>_<value>`, spaces and `/` turned into `_`. */
export function tagIri(key: string, value: string): string {
  return CMR + iriSafe(`tag_${key}_${value}`.replace(/[ /]/g, "_"));
}

/** The IRI of a finding (`cmr:finding_<id>`). */
export function findingIri(id: string): string {
  return CMR + iriSafe(`finding_${id}`);
}

/** The IRI of a compliance framework tag (`cmr:compliance_<framework>`). */
export function complianceIri(framework: string): string {
  return CMR + iriSafe(`compliance_${framework}`);
}

/** The IRI of a class (`cm:<name>`). */
export function classIri(name: string): string {
  return CM + name;
}

/** The IRI of an object or data property (`cmp:<name>`). */
export function propertyIri(name: string): string {
  return CMP + name;
}

/**
 * Shortens an IRI with the ontology prefixes (`https://cloudg.io/resource/x`
 * → `cmr:x`); IRIs outside them are returned unchanged.
 *
 * @example
 * ```ts
 * import { compactIri } from "./namespaces.ts";
 * compactIri("https://cloudg.io/ontology#ComputeInstance"); // "cm:ComputeInstance"
 * ```
 */
export function compactIri(iri: string): string {
  for (const [prefix, namespace] of BY_LENGTH) {
    if (iri.startsWith(namespace) && iri.length > namespace.length) {
      return `${prefix}:${iri.slice(namespace.length)}`;
    }
  }
  return iri;
}

/**
 * Expands a prefixed name using the ontology prefixes (`cmr:x` → full IRI);
 * anything else is returned unchanged.
 */
export function expandIri(name: string): string {
  const colon = name.indexOf(":");
  if (colon > 0) {
    const namespace = ONTOLOGY_PREFIXES[name.slice(0, colon)];
    if (namespace !== undefined) return namespace + name.slice(colon + 1);
  }
  return name;
}
