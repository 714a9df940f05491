import assert, { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import { ontologyInputFromView } from "../src/cloud/ontology/abox.ts";
import { buildOntology } from "../src/cloud/ontology/build.ts";
import { OntologyArgumentError } from "../src/cloud/ontology/errors.ts";
import { centreIri, ontologyNeighbourhood } from "../src/cloud/ontology/neighbourhood.ts";
import { parseRelationGroup, relationGroups } from "../src/cloud/ontology/relation_groups.ts";
import { makeView, smallEstate } from "./helpers/cloud_estate.ts";

const { store } = await buildOntology(ontologyInputFromView(makeView(smallEstate())));

Deno.test("ontologyNeighbourhood() walks relation triples hop by hop in both directions", () => {
  const one = ontologyNeighbourhood(store, "app-role");
  deepStrictEqual(
    one.triples.map((t) => `${t.subject} ${t.relation} ${t.object} ${t.hop}`).sort(),
    [
      "cmr:app-role CROSS_ACCOUNT_TRUST cmr:deploy-role 1",
      "cmr:app-role ROLE_ASSUMES_ROLE cmr:deploy-role 1",
      "cmr:app-role ROLE_HAS_POLICY cmr:policy-admin 1",
      "cmr:web-1 RUNS_ON cmr:app-role 1",
    ],
  );
  deepStrictEqual(one.nodes[0], {
    iri: "cmr:app-role",
    name: "app-role",
    types: ["cm:IAMRole"],
    hop: 0,
  });
  strictEqual(one.truncated, false);
  const two = ontologyNeighbourhood(store, "cmr:app-role", { hops: 2 });
  assert(
    two.triples.some((t) =>
      t.hop === 2 && t.object === "cmr:web-1" && t.relation === "SUBNET_CONTAINS_INSTANCE"
    ),
  );
  assert(two.triples.every((t) => t.hop <= 2));
  const web = two.nodes.find((n) => n.iri === "cmr:web-1")!;
  strictEqual(web.hop, 1);
  const capped = ontologyNeighbourhood(store, "app-role", { hops: 3, limit: 5 });
  deepStrictEqual([capped.triples.length, capped.truncated], [5, true]);
  const full = ontologyNeighbourhood(store, "https://cloudg.io/resource/app-role", {
    compactUris: false,
  });
  strictEqual(full.center, "https://cloudg.io/resource/app-role");
  strictEqual(centreIri("0.0.0.0/0"), "https://cloudg.io/resource/0.0.0.0/0");
  throws(() => ontologyNeighbourhood(store, "app-role", { hops: 4 }), /hops must be 1, 2 or 3/);
  throws(() => ontologyNeighbourhood(store, "missing"), OntologyArgumentError);
});

Deno.test("relationGroups() gives every group's counts, or one group's triples in pages", () => {
  const overview = relationGroups(store);
  assert(overview.kind === "overview");
  deepStrictEqual(overview.groups.map((g) => [g.group, g.triples]), [
    ["NETWORK", 13],
    ["CONTAINMENT", 3],
    ["IAM", 3],
    ["DATA_FLOW", 1],
    ["SECURITY", 12],
    ["COMPUTE", 5],
    ["GOVERNANCE", 6],
  ]);
  strictEqual(overview.total, 43);
  strictEqual(Object.keys(overview.groups[0]!.relation_types).length, 16);
  strictEqual(overview.groups[0]!.relation_types.ONLY_RDP, 0);
  const page1 = relationGroups(store, { group: "iam", limit: 2 });
  assert(page1.kind === "group");
  deepStrictEqual([page1.total, page1.returned, page1.truncated], [3, 2, true]);
  const page2 = relationGroups(store, { group: "IAM", offset: 2, limit: 2 });
  assert(page2.kind === "group");
  deepStrictEqual([page2.returned, page2.truncated], [1, false]);
  deepStrictEqual(
    [...page1.items, ...page2.items].map((t) => `${t.subject_name} ${t.relation} ${t.object_name}`),
    [
      "app-role CROSS_ACCOUNT_TRUST deploy-role",
      "app-role ROLE_ASSUMES_ROLE deploy-role",
      "app-role ROLE_HAS_POLICY admin-policy",
    ],
  );
  strictEqual(parseRelationGroup("data-flow"), "DATA_FLOW");
  throws(() => parseRelationGroup("storage"), /use one of NETWORK, CONTAINMENT, IAM/);
});
