/**
 * The SPARQL queries both ontology benches time (the in-process
 * `cloud_ontology_bench.ts` and the client bench `cloud_ontology`), by label,
 * so the two measure the same texts. The ontology prefixes (`cm:`, `cmp:`)
 * are declared by the SPARQL gate.
 *
 * @module
 */

/** The benchmarked queries, by label. */
export const ONTOLOGY_BENCH_QUERIES: Readonly<Record<string, string>> = {
  "count triples": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
  "exposed instances with SSH open": `SELECT DISTINCT ?vm ?name WHERE {
      ?vm a cm:ComputeInstance ; cmp:hasName ?name ; cmp:PROTECTED_BY_SG ?sg .
      ?internet cmp:ONLY_SSH ?sg ; cmp:INTERNET_REACHABLE ?sg }`,
  "critical findings by account": `SELECT ?account (COUNT(?f) AS ?n) WHERE {
      ?f cmp:hasSeverity "CRITICAL" ; cmp:FINDING_AFFECTS ?a . ?a cmp:hasAccountId ?account }
    GROUP BY ?account ORDER BY DESC(?n)`,
  "roles reachable over trust (path)":
    "SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE { ?start cmp:ROLE_ASSUMES_ROLE+ ?r }",
  "triples per relation group": `SELECT ?g (COUNT(*) AS ?n) WHERE { ?s ?p ?o .
      ?p cm:relationGroup ?g } GROUP BY ?g`,
};
