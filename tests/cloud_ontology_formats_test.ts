import assert, { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
// @ts-types="@types/n3"
import { Parser as N3Parser } from "n3";
// @ts-types="@types/jsonld"
import jsonld from "jsonld";
import { RdfXmlParser } from "rdfxml-streaming-parser";
import { ontologyInputFromView } from "../src/cloud/ontology/abox.ts";
import { buildOntology } from "../src/cloud/ontology/build.ts";
import { OntologyArgumentError } from "../src/cloud/ontology/errors.ts";
import {
  dumpOntology,
  ONTOLOGY_FORMATS,
  parseOntologyFormat,
} from "../src/cloud/ontology/formats.ts";
import { CM, CMP, CMR, RDF } from "../src/cloud/ontology/namespaces.ts";
import { makeView, smallEstate } from "./helpers/cloud_estate.ts";

const built = await buildOntology(ontologyInputFromView(makeView(smallEstate())));
const store = built.store;

/** A triple as text, blank nodes kept as they are (only ids differ between parsers). */
interface Plain {
  subject: { termType: string; value: string };
  predicate: { value: string };
  object: { termType: string; value: string; datatype?: { value: string } };
}

function key(t: Plain): string {
  const s = t.subject.termType === "BlankNode" ? "_" : t.subject.value;
  const o = t.object.termType === "BlankNode"
    ? "_"
    : t.object.termType === "Literal"
    ? `"${t.object.value}"^^${t.object.datatype?.value}`
    : t.object.value;
  return `${s} ${t.predicate.value} ${o}`;
}

/** The named-node triples a parse must contain, whatever the serialisation. */
const MUST_HOLD = [
  `${CMR}web-1 ${RDF}type ${CM}ComputeInstance`,
  `${CMR}0.0.0.0/0 ${CMP}ONLY_SSH ${CMR}sg-admin`,
  `${CMR}finding_f-web-cve ${CMP}hasRiskScore "7.8"^^http://www.w3.org/2001/XMLSchema#float`,
  `${CMR}web-1 ${CMP}isInternetExposed "true"^^http://www.w3.org/2001/XMLSchema#boolean`,
  `${CMR}compliance_CIS-AWS ${CMP}COMPLIANCE_GOVERNS arn:aws:s3:::ghost-bucket`,
  `_ ${CMP}hasPort "80,443"^^http://www.w3.org/2001/XMLSchema#string`,
];

function checkParsed(name: string, triples: Plain[]): void {
  strictEqual(triples.length, store.size, `${name}: as many triples as the store`);
  const keys = new Set(triples.map(key));
  for (const expected of MUST_HOLD) assert(keys.has(expected), `${name} holds ${expected}`);
}

Deno.test("dumpOntology() writes Turtle that n3 parses back to the same triples", () => {
  const dump = dumpOntology(store, "turtle");
  strictEqual(dump.mimeType, "text/turtle");
  strictEqual(dump.extension, "ttl");
  assert(dump.text.startsWith(`@prefix cm: <${CM}> .\n@prefix cmp: <${CMP}> .`));
  const parsed = new N3Parser({ format: "text/turtle" }).parse(dump.text);
  checkParsed("turtle", parsed as unknown as Plain[]);
});

Deno.test("dumpOntology() writes N-Triples that n3 parses back to the same triples", () => {
  const dump = dumpOntology(store, "nt");
  strictEqual(dump.mimeType, "application/n-triples");
  strictEqual(dump.extension, "nt");
  const parsed = new N3Parser({ format: "N-Triples" }).parse(dump.text);
  checkParsed("nt", parsed as unknown as Plain[]);
  // N-Triples is one triple a line.
  strictEqual(dump.text.trim().split("\n").length, store.size);
});

Deno.test("dumpOntology() writes JSON-LD that jsonld turns back into the same triples", async () => {
  const dump = dumpOntology(store, "json-ld");
  strictEqual(dump.mimeType, "application/ld+json");
  strictEqual(dump.extension, "jsonld");
  const dataset = await jsonld.toRDF(JSON.parse(dump.text)) as unknown as Plain[];
  checkParsed("json-ld", dataset);
});

Deno.test("dumpOntology() writes RDF/XML that rdfxml-streaming-parser reads back", async () => {
  const dump = dumpOntology(store, "xml");
  strictEqual(dump.mimeType, "application/rdf+xml");
  strictEqual(dump.extension, "rdf");
  const triples: Plain[] = [];
  await new Promise<void>((resolve, reject) => {
    const parser = new RdfXmlParser();
    parser.on("data", (q: Plain) => triples.push(q));
    parser.on("error", reject);
    parser.on("end", () => resolve());
    parser.write(dump.text);
    parser.end();
  });
  checkParsed("xml", triples);
});

Deno.test("parseOntologyFormat() accepts the four names and refuses others", () => {
  deepStrictEqual(ONTOLOGY_FORMATS.map(parseOntologyFormat), ["turtle", "json-ld", "xml", "nt"]);
  strictEqual(parseOntologyFormat("JSON-LD"), "json-ld");
  throws(
    () => parseOntologyFormat("rdfa"),
    (e: unknown) =>
      e instanceof OntologyArgumentError && /use one of turtle, json-ld, xml, nt/.test(e.message),
  );
});
