/**
 * Ontology serialisations (`turtle`, `nt`, `xml`, `json-ld`), written by
 * oxigraph's own serialisers from the store.
 *
 * @module
 */

import { OntologyArgumentError } from "./errors.ts";
import { ONTOLOGY_PREFIXES } from "./namespaces.ts";
import { defaultGraph, type Store } from "./oxigraph.ts";

/** The format names, as in `cloudg://ontology/{format}` and `export_ontology`. */
export const ONTOLOGY_FORMATS = ["turtle", "json-ld", "xml", "nt"] as const;

/** An ontology format name. */
export type OntologyFormat = (typeof ONTOLOGY_FORMATS)[number];

/** Per format: MIME type (also the oxigraph format) and file extension. */
export const ONTOLOGY_FORMAT_INFO: Readonly<
  Record<OntologyFormat, { mimeType: string; extension: string }>
> = {
  turtle: { mimeType: "text/turtle", extension: "ttl" },
  "json-ld": { mimeType: "application/ld+json", extension: "jsonld" },
  xml: { mimeType: "application/rdf+xml", extension: "rdf" },
  nt: { mimeType: "application/n-triples", extension: "nt" },
};

/**
 * Reads a format name (case-insensitive); throws {@link OntologyArgumentError}
 * naming the accepted ones otherwise.
 */
export function parseOntologyFormat(value: string): OntologyFormat {
  const name = value.trim().toLowerCase();
  if ((ONTOLOGY_FORMATS as readonly string[]).includes(name)) return name as OntologyFormat;
  throw new OntologyArgumentError(
    `Unknown ontology format "${value.slice(0, 40)}": use one of ${ONTOLOGY_FORMATS.join(", ")}.`,
  );
}

/** One serialisation. */
export interface OntologyDump {
  /** The format name. */
  format: OntologyFormat;
  /** Its MIME type. */
  mimeType: string;
  /** Its usual file extension (no dot). */
  extension: string;
  /** The document. */
  text: string;
}

/**
 * Serialises the store's default graph. Turtle starts with `@prefix` lines
 * binding the ontology prefixes (cm, cmp, cmr, owl, rdf, rdfs, xsd); the
 * triples themselves are written by oxigraph.
 *
 * @example
 * ```ts
 * import { oxigraphReady, Store } from "./oxigraph.ts";
 * await oxigraphReady();
 * import { dumpOntology } from "./formats.ts";
 * dumpOntology(new Store(), "nt").mimeType; // "application/n-triples"
 * ```
 */
export function dumpOntology(store: Store, format: OntologyFormat): OntologyDump {
  const info = ONTOLOGY_FORMAT_INFO[format];
  let text = store.dump({ format: info.mimeType, from_graph_name: defaultGraph() });
  if (format === "turtle") {
    const header = Object.entries(ONTOLOGY_PREFIXES)
      .map(([prefix, namespace]) => `@prefix ${prefix}: <${namespace}> .\n`).join("");
    text = `${header}\n${text}`;
  }
  return { format, mimeType: info.mimeType, extension: info.extension, text };
}
