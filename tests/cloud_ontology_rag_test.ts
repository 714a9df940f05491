import assert, { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import { type OntologyInput, ontologyInputFromView } from "../src/cloud/ontology/abox.ts";
import { buildOntology } from "../src/cloud/ontology/build.ts";
import { louvainCommunities } from "../src/cloud/ontology/communities.ts";
import { OntologyArgumentError } from "../src/cloud/ontology/errors.ts";
import { RagChunkIndex } from "../src/cloud/ontology/rag_chunks.ts";
import { ontologyStats } from "../src/cloud/ontology/stats.ts";
import { makeView, smallEstate } from "./helpers/cloud_estate.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";
import { mulberry32 } from "./helpers/random.ts";

const input = ontologyInputFromView(makeView(smallEstate()));

/** The same input with assets, edges and findings in another order. */
function shuffled(source: OntologyInput, seed: number): OntologyInput {
  const random = mulberry32(seed);
  const shuffle = <T>(list: T[]): T[] => {
    const copy = [...list];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy;
  };
  const order = shuffle(source.findings.map((_, i) => i));
  return {
    assets: shuffle(source.assets),
    edges: shuffle(source.edges),
    findings: order.map((i) => source.findings[i]!),
    findingAssetIds: order.map((i) => source.findingAssetIds[i]!),
    compliance: source.compliance,
  };
}

Deno.test("RagChunkIndex gives one entity chunk per asset with stable ids, paged", () => {
  const index = new RagChunkIndex(input);
  const first = index.page({ limit: 5 });
  deepStrictEqual([first.total, first.offset, first.returned, first.truncated], [17, 0, 5, true]);
  deepStrictEqual(first.items.map((c) => c.chunk_id), [
    "entity::alb",
    "entity::app-role",
    "entity::az-vm",
    "entity::bastion",
    "entity::bucket-1",
  ]);
  const last = index.page({ offset: 15, limit: 5 });
  deepStrictEqual([last.returned, last.truncated], [2, false]);
  deepStrictEqual(last.items.map((c) => c.chunk_id), ["entity::web-1", "entity::waf-1"].sort());
  const web = index.page({ assetId: "web-1" }).items[0]!;
  strictEqual(web.chunk_type, "entity");
  for (
    const fact of [
      "Asset web-1 (EC2, class ComputeInstance, family Compute)",
      "Tags: env=prod, owner=alice",
      "RUNS_ON → app-role (IAM_ROLE)",
      "SUBNET_CONTAINS_INSTANCE ← public-a (SUBNET)",
      "[HIGH 7.8] Outdated web server (f-web-cve)",
    ]
  ) {
    assert(web.content.includes(fact), `${fact} in\n${web.content}`);
  }
  strictEqual(web.metadata.ontology_class, "cm:ComputeInstance");
  strictEqual(web.metadata.max_severity, "HIGH");
  // A suppressed finding is not an open one.
  const bucket = index.page({ assetId: "bucket-1" }).items[0]!;
  strictEqual(bucket.metadata.open_findings, 0);
  throws(() => index.page({ assetId: "ghost" }), OntologyArgumentError);
  throws(
    () => index.page({ chunkType: "topic" as "entity" }),
    /use one of entity, community, relation_group/,
  );
});

Deno.test("RagChunkIndex filters by words of the text and by severity", () => {
  const index = new RagChunkIndex(input);
  deepStrictEqual(
    index.page({ query: "internet exposed: YES class ComputeInstance" }).items.map((c) =>
      c.chunk_id
    ),
    ["entity::bastion", "entity::web-1"],
  );
  deepStrictEqual(
    index.page({ minSeverity: "HIGH" }).items.map((c) => c.chunk_id),
    ["entity::sg-admin", "entity::web-1"],
  );
  deepStrictEqual(
    index.page({ minSeverity: "CRITICAL" }).items.map((c) => c.chunk_id),
    ["entity::sg-admin"],
  );
  const communities = index.page({ chunkType: "community", minSeverity: "CRITICAL", limit: 100 });
  deepStrictEqual(
    communities.items.map((c) => (c.metadata.members as string[]).includes("sg-admin")),
    [true],
  );
});

Deno.test("RagChunkIndex community chunks are Louvain communities, the same for any input order", () => {
  const index = new RagChunkIndex(input);
  const all = index.page({ chunkType: "community", limit: 100 });
  // Every asset in exactly one community, numbered largest first.
  const members = all.items.flatMap((c) => c.metadata.members as string[]);
  deepStrictEqual([...members].sort(), input.assets.map((a) => a.id).sort());
  const sizes = all.items.map((c) => c.metadata.size as number);
  deepStrictEqual(sizes, [...sizes].sort((a, b) => b - a));
  deepStrictEqual(all.items.map((c) => c.chunk_id), all.items.map((_, i) => `community::${i}`));
  // Assets joined by edges share a community; the isolated Azure VM is alone.
  const of = (id: string): number => index.communities.byAsset.get(id)!;
  strictEqual(of("web-1"), of("alb"));
  strictEqual(of("db-1"), of("kms-1"));
  strictEqual(index.communities.members[of("az-vm")]!.length, 1);
  for (const seed of [1, 2, 3]) {
    const again = new RagChunkIndex(shuffled(input, seed)).page({
      chunkType: "community",
      limit: 100,
    });
    deepStrictEqual(again, all, `input order ${seed}`);
  }
});

Deno.test("louvainCommunities() is deterministic on a generated estate and follows the seed", () => {
  const estate = generateEstate(600, 5).records;
  const first = louvainCommunities(estate);
  const second = louvainCommunities({
    assets: [...estate.assets].reverse(),
    edges: [...estate.edges].reverse(),
  });
  deepStrictEqual(second.members, first.members);
  strictEqual(second.modularity, first.modularity);
  assert(first.members.length > 1 && first.members.length < 600);
  assert(first.modularity > 0.3, `modularity ${first.modularity}`);
  const other = louvainCommunities(estate, { seed: 99 });
  deepStrictEqual(louvainCommunities(estate, { seed: 99 }).members, other.members);
});

Deno.test("RagChunkIndex relation-group chunks agree with the ontology's counts", async () => {
  const index = new RagChunkIndex(input);
  const groups = index.page({ chunkType: "relation_group", limit: 10 });
  deepStrictEqual(groups.items.map((c) => c.chunk_id), [
    "relation_group::NETWORK",
    "relation_group::CONTAINMENT",
    "relation_group::IAM",
    "relation_group::DATA_FLOW",
    "relation_group::SECURITY",
    "relation_group::COMPUTE",
    "relation_group::GOVERNANCE",
  ]);
  const stats = ontologyStats((await buildOntology(input)).store);
  for (const chunk of groups.items) {
    const group = chunk.metadata.group as keyof typeof stats.relation_groups;
    strictEqual(chunk.metadata.relations, stats.relation_groups[group], group);
  }
  const network = groups.items[0]!;
  assert(network.content.includes("0.0.0.0/0 ONLY_SSH sg-admin (SECURITY_GROUP)"), network.content);
  // Only the groups an asset takes part in.
  deepStrictEqual(
    index.page({ chunkType: "relation_group", assetId: "kms-1" }).items.map((c) => c.chunk_id),
    ["relation_group::SECURITY", "relation_group::COMPUTE"],
  );
});
