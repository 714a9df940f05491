import assert, { deepStrictEqual, strictEqual } from "node:assert/strict";
import { ASSET_TYPES, RELATION_TYPES } from "../src/cloud/model/enums.ts";
import { ontologyInputFromView } from "../src/cloud/ontology/abox.ts";
import { buildOntology } from "../src/cloud/ontology/build.ts";
import { assetClassName, familyClassName } from "../src/cloud/ontology/classes.ts";
import { compactIri, iriSafe, tagIri } from "../src/cloud/ontology/namespaces.ts";
import { guardSparql } from "../src/cloud/ontology/sparql_guard.ts";
import { runSparql, type SparqlSelectResult } from "../src/cloud/ontology/sparql_run.ts";
import { ontologyStats } from "../src/cloud/ontology/stats.ts";
import type { Store } from "../src/cloud/ontology/oxigraph.ts";
import { makeView, smallEstate } from "./helpers/cloud_estate.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";

const input = ontologyInputFromView(makeView(smallEstate()));

function rows(store: Store, query: string, limit = 1000): SparqlSelectResult["rows"] {
  const result = runSparql(store, guardSparql(query, { limit }));
  assert(result.kind === "select");
  return result.rows;
}

Deno.test("buildOntology() reports progress from 0 to the total, batch by batch", async () => {
  const calls: [number, number][] = [];
  const built = await buildOntology(input, {
    batchSize: 10,
    onProgress: (done, total) => calls.push([done, total]),
  });
  const total = 17 + 17 + 4 + 1; // assets + edges + findings + the TBox
  deepStrictEqual(calls, [[0, total], [11, total], [21, total], [31, total], [total, total]]);
  strictEqual(built.triples, built.store.size);
});

Deno.test("buildOntology() yields to the event loop between batches", async () => {
  const big = ontologyInputFromView(makeView(generateEstate(1500, 3).records));
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  try {
    await buildOntology(big, { batchSize: 50 });
  } finally {
    clearInterval(timer);
  }
  assert(ticks > 5, `the timer fired ${ticks} times during the build`);
});

Deno.test("buildOntology() declares a class per asset type under its family and CloudResource", async () => {
  const { store } = await buildOntology(input);
  const parents = new Map<string, Set<string>>();
  for (
    const row of rows(
      store,
      "SELECT ?c ?p WHERE { ?c rdfs:subClassOf ?p }",
      5000,
    )
  ) {
    const list = parents.get(String(row.c)) ?? new Set();
    list.add(String(row.p));
    parents.set(String(row.c), list);
  }
  for (const type of ASSET_TYPES) {
    const got = parents.get(`cm:${assetClassName(type)}`);
    assert(got?.has("cm:CloudResource"), `${type} is under CloudResource`);
  }
  assert(parents.get("cm:ComputeInstance")!.has(`cm:${familyClassName("Compute")}`));
  assert(parents.get("cm:SecretsKeysResource")!.has("cm:CloudResource"));
  strictEqual(assetClassName("EC2"), "ComputeInstance");
  strictEqual(assetClassName("GCS_BUCKET"), "ObjectStorage");
  strictEqual(assetClassName("MESSAGE_QUEUE"), "MessageQueue");
  // The 64 relation types are object properties with a Title Case label and their group.
  const properties = rows(
    store,
    "SELECT ?p ?label ?group WHERE { ?p a owl:ObjectProperty ; rdfs:label ?label ; cm:relationGroup ?group }",
  );
  strictEqual(properties.length, RELATION_TYPES.length);
  const ingress = properties.find((r) => r.p === "cmp:INGRESS_ALLOWED")!;
  deepStrictEqual([ingress.label, ingress.group], ["Ingress Allowed", "NETWORK"]);
  const data = rows(store, "SELECT ?p WHERE { ?p a owl:DatatypeProperty } ORDER BY ?p");
  deepStrictEqual(
    data.map((r) => r.p),
    [
      "cmp:hasARN",
      "cmp:hasAccountId",
      "cmp:hasCIDR",
      "cmp:hasName",
      "cmp:hasPort",
      "cmp:hasProtocol",
      "cmp:hasProvider",
      "cmp:hasRegion",
      "cmp:hasRiskScore",
      "cmp:hasSeverity",
      "cmp:isInternetExposed",
    ],
  );
});

Deno.test("buildOntology() writes assets, tags, placeholders, findings and frameworks", async () => {
  const { store } = await buildOntology(input);
  const web = rows(
    store,
    `SELECT ?type ?name ?provider ?region ?exposed ?account WHERE {
       cmr:web-1 a ?type ; cmp:hasName ?name ; cmp:hasProvider ?provider ; cmp:hasRegion ?region ;
         cmp:isInternetExposed ?exposed ; cmp:hasAccountId ?account }`,
  );
  deepStrictEqual(web, [{
    type: "cm:ComputeInstance",
    name: "web-1",
    provider: "AWS",
    region: "us-east-1",
    exposed: true,
    account: "111111111111",
  }]);
  // Tags: one node per key and value, shared between assets.
  const tags = rows(
    store,
    "SELECT ?asset ?tag ?label WHERE { ?asset cmp:TAGGED_WITH ?tag . ?tag a cm:TagValue ; rdfs:label ?label } ORDER BY ?asset ?label",
  );
  deepStrictEqual(tags.map((r) => [r.asset, r.label]), [
    ["cmr:bastion", "env=prod"],
    ["cmr:bucket-1", "cost-center=cc42"],
    ["cmr:web-1", "env=prod"],
    ["cmr:web-1", "owner=alice"],
  ]);
  strictEqual(compactIri(tagIri("a key", "x/y")), "cmr:tag_a_key_x_y");
  // Placeholders are CloudResources named by their raw id.
  deepStrictEqual(
    rows(
      store,
      "SELECT ?n WHERE { ?x a cm:CloudResource ; cmp:hasName ?n } ORDER BY ?n",
    ).map((r) => r.n),
    ["0.0.0.0/0", "10.0.0.0/8"],
  );
  // Findings: severity, risk (HIGH with CVSS 8.1 → 7.8), the affected asset; an unmapped
  // finding points at its raw resource id.
  deepStrictEqual(
    rows(
      store,
      `SELECT ?f ?sev ?risk ?target WHERE {
         ?f a cm:SecurityFinding ; cmp:hasSeverity ?sev ; cmp:hasRiskScore ?risk ;
           cmp:FINDING_AFFECTS ?target } ORDER BY ?f`,
    ),
    [
      { f: "cmr:finding_f-ghost", sev: "MEDIUM", risk: 5, target: "arn:aws:s3:::ghost-bucket" },
      { f: "cmr:finding_f-ssh-open", sev: "CRITICAL", risk: 9.5, target: "cmr:sg-admin" },
      { f: "cmr:finding_f-versioning", sev: "LOW", risk: 2.5, target: "cmr:bucket-1" },
      { f: "cmr:finding_f-web-cve", sev: "HIGH", risk: 7.8, target: "cmr:web-1" },
    ],
  );
  deepStrictEqual(
    rows(
      store,
      `SELECT ?label ?target WHERE { ?c a cm:ComplianceControl ; rdfs:label ?label ;
         cmp:COMPLIANCE_GOVERNS ?target } ORDER BY ?label ?target`,
    ).map((r) => [r.label, r.target]),
    [
      ["CIS-AWS", "arn:aws:s3:::ghost-bucket"],
      ["CIS-AWS", "cmr:sg-admin"],
      ["PCI-DSS", "cmr:sg-admin"],
    ],
  );
  // Edge metadata nodes carry the rule's CIDR, ports and protocol.
  deepStrictEqual(
    rows(
      store,
      `SELECT ?from ?to ?cidr ?port ?proto WHERE { ?m a cm:EdgeMetadata ; cm:fromNode ?from ;
         cm:toNode ?to ; cmp:hasCIDR ?cidr ; cmp:hasPort ?port ; cmp:hasProtocol ?proto }
       ORDER BY ?port`,
    ),
    [
      { from: "cmr:sg-web", to: "cmr:0.0.0.0/0", cidr: "0.0.0.0/0", port: "*", proto: "-1" },
      { from: "cmr:0.0.0.0/0", to: "cmr:sg-admin", cidr: "0.0.0.0/0", port: "22", proto: "tcp" },
      { from: "cmr:0.0.0.0/0", to: "cmr:sg-web", cidr: "0.0.0.0/0", port: "80,443", proto: "tcp" },
      { from: "cmr:10.0.0.0/8", to: "cmr:sg-web", cidr: "10.0.0.0/8", port: "8080", proto: "tcp" },
    ],
  );
  // Asset-level relations resolve their references to assets, and repeat edge relations once.
  deepStrictEqual(
    rows(store, "SELECT ?s ?o WHERE { ?s cmp:PROTECTED_BY_SG ?o } ORDER BY ?s"),
    [{ s: "cmr:bastion", o: "cmr:sg-admin" }, { s: "cmr:web-1", o: "cmr:sg-web" }],
  );
  deepStrictEqual(
    rows(store, "SELECT ?s ?o WHERE { ?s cmp:ENCRYPTED_BY_KMS ?o }"),
    [{ s: "cmr:db-1", o: "cmr:kms-1" }],
  );
  deepStrictEqual(
    rows(store, "SELECT ?s ?o WHERE { ?s cmp:DEPENDS_ON ?o } ORDER BY ?s"),
    [{ s: "cmr:db-1", o: "cmr:kms-1" }, { s: "cmr:fn-1", o: "cmr:vpc-1" }],
  );
  // An asset name with a space is kept as a literal; ids with IRI-unsafe characters are encoded.
  strictEqual(iriSafe("a b<c>"), "a%20b%3Cc%3E");
});

Deno.test("ontologyStats() counts triples, classes, individuals and relations", async () => {
  const { store } = await buildOntology(input);
  const stats = ontologyStats(store);
  strictEqual(stats.triples, store.size);
  strictEqual(stats.object_properties, 64);
  // 17 assets + 2 placeholders + 3 tags + 4 findings + 2 frameworks.
  strictEqual(stats.individuals, 28);
  // 12 asset classes + CloudResource + TagValue + SecurityFinding + ComplianceControl + EdgeMetadata.
  strictEqual(stats.classes_used, 17);
  deepStrictEqual(stats.relation_groups, {
    NETWORK: 13,
    CONTAINMENT: 3,
    IAM: 3,
    DATA_FLOW: 1,
    SECURITY: 12,
    COMPUTE: 5,
    GOVERNANCE: 6,
  });
  strictEqual(stats.relation_types.INTERNET_REACHABLE, 3);
  strictEqual(stats.relation_types.FINDING_AFFECTS, 4);
  strictEqual(stats.relation_types.VPC_CONTAINS_SUBNET, 1);
  strictEqual(stats.relation_types.LOGS_TO, undefined);
  strictEqual(stats.relation_triples, 43);
});

Deno.test("buildOntology() accepts ids and resource names that are not IRI-safe", async () => {
  const records = smallEstate();
  const odd = ["sg[1]", "a%zz", "a#b c", "q\u{E000}", "tab\there"];
  records.assets = records.assets.slice(0, 3).map((a, i) => ({ ...a, id: odd[i]!, name: odd[i]! }));
  records.assets.push({ ...records.assets[0]!, id: odd[3]! }, {
    ...records.assets[0]!,
    id: odd[4]!,
  });
  records.edges = [{ ...smallEstate().edges[4]!, source_id: odd[0]!, target_id: "x]y" }];
  records.findings = ["http://[bad", "not an iri", "weird:%%", "arn:aws:s3:::ok"].map((id, i) => ({
    ...smallEstate().findings[1]!,
    id: `odd-${i}`,
    resource_id: id,
  }));
  const { store } = await buildOntology(ontologyInputFromView(makeView(records)));
  const names = rows(store, "SELECT ?n WHERE { ?a cmp:hasName ?n ; a cm:CloudResource }");
  deepStrictEqual(names, [{ n: "x]y" }]);
  const targets = rows(store, "SELECT ?t WHERE { ?f cmp:FINDING_AFFECTS ?t } ORDER BY ?t");
  deepStrictEqual(targets.map((r) => r.t), [
    "arn:aws:s3:::ok",
    "http://%5Bbad",
    "cmr:not%20an%20iri",
    "weird:%25%25",
  ]);
  strictEqual(
    rows(store, 'SELECT ?a WHERE { ?a cmp:hasName "a#b c" }')[0]!.a,
    "cmr:a%23b%20c",
  );
});
