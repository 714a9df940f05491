import assert, { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import { ontologyInputFromView } from "../src/cloud/ontology/abox.ts";
import { buildOntology } from "../src/cloud/ontology/build.ts";
import {
  SparqlExecutionError,
  SparqlRefusedError,
  SparqlSyntaxError,
} from "../src/cloud/ontology/errors.ts";
import { guardSparql } from "../src/cloud/ontology/sparql_guard.ts";
import { runSparql } from "../src/cloud/ontology/sparql_run.ts";
import { makeView, smallEstate } from "./helpers/cloud_estate.ts";

const { store } = await buildOntology(ontologyInputFromView(makeView(smallEstate())));

function refused(query: string, reason: string): void {
  throws(
    () => guardSparql(query),
    (e: unknown) => e instanceof SparqlRefusedError && e.reason === reason,
    query,
  );
}

Deno.test("guardSparql() refuses every update form before anything runs", () => {
  const updates = [
    "INSERT DATA { <http://a> <http://b> <http://c> }",
    "DELETE DATA { <http://a> <http://b> <http://c> }",
    "DELETE WHERE { ?s ?p ?o }",
    "DELETE { ?s ?p ?o } INSERT { ?s ?p 1 } WHERE { ?s ?p ?o }",
    "LOAD <http://example.org/data.ttl>",
    "CLEAR ALL",
    "CREATE GRAPH <http://g>",
    "DROP DEFAULT",
    "COPY DEFAULT TO <http://g>",
    "MOVE DEFAULT TO <http://g>",
    "ADD DEFAULT TO <http://g>",
    "PREFIX x: <http://x/> INSERT DATA { x:a x:b x:c } ; CLEAR ALL",
  ];
  for (const update of updates) refused(update, "update");
  const sizeBefore = store.size;
  throws(() => guardSparql("CLEAR ALL"), /Only read queries .* this is an update \(CLEAR\)/);
  strictEqual(store.size, sizeBefore);
});

Deno.test("guardSparql() refuses SERVICE anywhere and FROM / FROM NAMED", () => {
  refused("SELECT * WHERE { SERVICE <http://remote/sparql> { ?s ?p ?o } }", "service");
  refused(
    "SELECT * WHERE { ?s ?p ?o FILTER EXISTS { SERVICE SILENT <http://r> { ?s ?p ?o } } }",
    "service",
  );
  refused(
    "SELECT * WHERE { { SELECT ?s WHERE { OPTIONAL { SERVICE <http://r> { ?s ?p ?o } } } } }",
    "service",
  );
  refused("SELECT * FROM <http://g> WHERE { ?s ?p ?o }", "dataset_clause");
  refused("SELECT * FROM NAMED <http://g> WHERE { GRAPH ?g { ?s ?p ?o } }", "dataset_clause");
  refused("CONSTRUCT { ?s ?p ?o } FROM <http://g> WHERE { ?s ?p ?o }", "dataset_clause");
  refused("   ", "empty");
  refused("SELECT * WHERE { ?s ?p ?o } #" + "x".repeat(20_000), "too_long");
  // The word SERVICE inside a literal is not a SERVICE block.
  guardSparql('SELECT * WHERE { ?s ?p "SERVICE <http://r>" }');
});

Deno.test("guardSparql() reports syntax errors with their line and column", () => {
  const cases: [string, number, number][] = [
    ["SELECT * WHERE { ?s ?p }", 1, 24],
    ["SELECT * WHERE {\n ?s ?p ?o .\n ?s <a b> ?c }", 3, 5],
    ["SELECT * WHERE { ?s ?p ?o } LIMT 5", 1, 29],
    ["SELECT * WHERE {\n  ?s foo:bar ?o }", 2, 6],
  ];
  for (const [query, line, column] of cases) {
    throws(
      () => guardSparql(query),
      (e: unknown) => {
        assert(e instanceof SparqlSyntaxError, String(e));
        deepStrictEqual([e.line, e.column], [line, column], query);
        assert(e.message.includes(`line ${line}, column ${column}`), e.message);
        return true;
      },
    );
  }
  throws(() => guardSparql("SELECT * WHERE { ?s ?p }"), /unexpected "}"; expected one of/);
  throws(() => guardSparql("SELECT * WHERE { ?s foo:x ?o }"), /prefix "foo:" is not declared/);
  // Errors the parser finds without a position are still syntax errors.
  throws(
    () => guardSparql("SELECT ?x WHERE { ?s ?p ?o } GROUP BY ?s"),
    (e: unknown) => e instanceof SparqlSyntaxError && /ungrouped/.test(e.message),
  );
});

Deno.test("runSparql() answers SELECT, ASK, CONSTRUCT and DESCRIBE with known results", () => {
  const exposed = runSparql(
    store,
    guardSparql(
      "SELECT ?name WHERE { ?a cmp:isInternetExposed true ; cmp:hasName ?name } ORDER BY ?name",
    ),
  );
  assert(exposed.kind === "select");
  deepStrictEqual(exposed.rows.map((r) => r.name), ["alb-web", "bastion", "public gcs", "web-1"]);
  deepStrictEqual(exposed.variable_kinds, { name: "literal" });
  strictEqual(exposed.truncated, false);

  // Who can reach sg-admin from the internet on SSH, and which findings affect it.
  const ssh = runSparql(
    store,
    guardSparql(`SELECT ?from ?f ?sev WHERE {
      ?from cmp:ONLY_SSH ?sg . ?sg cmp:hasName "sg-admin" .
      ?f cmp:FINDING_AFFECTS ?sg ; cmp:hasSeverity ?sev }`),
  );
  assert(ssh.kind === "select");
  deepStrictEqual(ssh.rows, [{
    from: "cmr:0.0.0.0/0",
    f: "cmr:finding_f-ssh-open",
    sev: "CRITICAL",
  }]);

  // Counting per group through the TBox, with a property path over subclasses.
  const perGroup = runSparql(
    store,
    guardSparql(`SELECT ?g (COUNT(*) AS ?n) WHERE { ?s ?p ?o . ?p cm:relationGroup ?g }
      GROUP BY ?g ORDER BY DESC(?n) ?g`),
  );
  assert(perGroup.kind === "select");
  deepStrictEqual(perGroup.rows[0], { g: "NETWORK", n: 13 });
  const computeFamily = runSparql(
    store,
    guardSparql(`SELECT (COUNT(DISTINCT ?a) AS ?n) WHERE {
      ?a a ?c . ?c rdfs:subClassOf* cm:ComputeResource }`),
  );
  assert(computeFamily.kind === "select");
  deepStrictEqual(computeFamily.rows, [{ n: 4 }]); // web-1, bastion, jump-vm, api-handler

  // A byte order mark, a comment, BASE after the built-in prefixes, a prefix redeclared.
  const edited = runSparql(
    store,
    guardSparql(
      "\uFEFF# roles\nBASE <https://cloudg.io/resource/>\nPREFIX cm: <https://cloudg.io/property/>\n" +
        "SELECT ?o WHERE { <app-role> cm:ROLE_HAS_POLICY ?o }",
    ),
  );
  assert(edited.kind === "select");
  deepStrictEqual(edited.rows, [{ o: "cmr:policy-admin" }]);

  const ask = runSparql(store, guardSparql("ASK { cmr:app-role cmp:CROSS_ACCOUNT_TRUST ?x }"));
  deepStrictEqual(ask, { kind: "ask", answer: true });

  const construct = runSparql(
    store,
    guardSparql("CONSTRUCT { ?s cmp:RUNS_ON ?o } WHERE { ?s cmp:RUNS_ON ?o }"),
  );
  deepStrictEqual(construct, {
    kind: "graph",
    triples: [{ subject: "cmr:web-1", predicate: "cmp:RUNS_ON", object: "cmr:app-role" }],
    returned: 1,
    truncated: false,
  });
  const describe = runSparql(store, guardSparql("DESCRIBE cmr:kms-1"));
  assert(describe.kind === "graph");
  assert(describe.triples.some((t) => t.predicate === "cmp:ROTATES_SECRET"));
});

Deno.test("runSparql() caps rows at the limit and says so", () => {
  const all = runSparql(store, guardSparql("SELECT ?s ?p ?o WHERE { ?s ?p ?o }", { limit: 25 }));
  assert(all.kind === "select");
  strictEqual(all.returned, 25);
  strictEqual(all.truncated, true);
  deepStrictEqual(all.variables, ["s", "p", "o"]);
  // The query's own smaller LIMIT wins and is not reported as truncation.
  const own = runSparql(store, guardSparql("SELECT * WHERE { ?s ?p ?o } LIMIT 3", { limit: 25 }));
  assert(own.kind === "select");
  deepStrictEqual([own.returned, own.truncated], [3, false]);
  // A larger LIMIT and a trailing VALUES block are rewritten, still capped.
  const large = guardSparql(
    "SELECT ?s WHERE { ?s a ?c } LIMIT 100000 VALUES ?c { cm:TagValue cm:SecurityFinding }",
    { limit: 5 },
  );
  strictEqual(large.lineOffset, null);
  const capped = runSparql(store, large);
  assert(capped.kind === "select");
  deepStrictEqual([capped.returned, capped.truncated], [5, true]);
  // CONSTRUCT results are capped too.
  const triples = runSparql(
    store,
    guardSparql("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", { limit: 7 }),
  );
  assert(triples.kind === "graph");
  deepStrictEqual([triples.returned, triples.truncated], [7, true]);
});

Deno.test("runSparql() compacts IRIs only when asked and keeps types of values", () => {
  const query =
    "SELECT ?f ?risk ?b WHERE { ?f cmp:hasRiskScore ?risk . BIND(bnode() AS ?b) } ORDER BY DESC(?risk) LIMIT 1";
  const short = runSparql(store, guardSparql(query));
  const long = runSparql(store, guardSparql(query), { compactUris: false });
  assert(short.kind === "select" && long.kind === "select");
  strictEqual(short.rows[0]!.f, "cmr:finding_f-ssh-open");
  strictEqual(long.rows[0]!.f, "https://cloudg.io/resource/finding_f-ssh-open");
  strictEqual(short.rows[0]!.risk, 9.5);
  assert(String(short.rows[0]!.b).startsWith("_:"));
  deepStrictEqual(short.variable_kinds, { f: "uri", risk: "literal", b: "bnode" });
  const mixed = runSparql(
    store,
    guardSparql("SELECT ?x WHERE { VALUES ?x { cm:TagValue 1 } }"),
  );
  assert(mixed.kind === "select");
  deepStrictEqual(mixed.variable_kinds, { x: "mixed" });
  const optional = runSparql(
    store,
    guardSparql(
      "SELECT ?a ?arn WHERE { ?a a cm:SecurityGroup OPTIONAL { ?a cmp:hasARN ?arn } } LIMIT 1",
    ),
  );
  assert(optional.kind === "select");
  deepStrictEqual(optional.rows[0]!.arn, null);
  deepStrictEqual(optional.variable_kinds.arn, "unbound");
});

Deno.test("runSparql() turns what the engine refuses into SparqlExecutionError", () => {
  // Parses for sparqljs, but the engine rejects the unknown function call.
  throws(
    () =>
      runSparql(
        store,
        guardSparql("SELECT * WHERE {\n ?s ?p ?o FILTER(<http://example.org/fn>(?o)) }"),
      ),
    (e: unknown) =>
      e instanceof SparqlExecutionError && /custom function .* not supported/.test(e.message),
  );
});
