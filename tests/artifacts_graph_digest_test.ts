import assert from "node:assert/strict";
import { canonicalJson, sha256Hex } from "../src/core/canonical_json.ts";
import { scanArtifact } from "../src/apps/artifacts/scan.ts";
import { graphDigest } from "../src/apps/artifacts/graph_digest.ts";
import { type ArtifactSnapshot, DEFAULT_LIMITS } from "../src/apps/artifacts/model.ts";

const FIXTURES = new URL("../../shared/fixtures/apps/", import.meta.url).pathname;

/** The shared apps fixtures (nested archives, binaries, links), scanned as one directory. */
function scanFixtures(): Promise<ArtifactSnapshot> {
  return scanArtifact(
    { kind: "directory", realPath: FIXTURES.replace(/\/$/, ""), name: "apps" },
    { limits: DEFAULT_LIMITS },
  );
}

/** A fresh, unfrozen copy of the graph, so canonicalJson() sorts every key itself. */
function graphCopy(snapshot: ArtifactSnapshot): Record<string, unknown[]> {
  return structuredClone({
    nodes: snapshot.nodes,
    occurrences: snapshot.occurrences,
    edges: snapshot.edges,
    integrity_contradictions: snapshot.integrity_contradictions,
  });
}

Deno.test("graphDigest() is the SHA-256 of the graph's canonical JSON and measures every item", async () => {
  const snapshot = await scanFixtures();
  assert.ok(snapshot.occurrences.length > 10, `${snapshot.occurrences.length} occurrences`);
  const copy = graphCopy(snapshot);
  assert.equal(snapshot.manifest.graph_sha256, sha256Hex(canonicalJson(copy)));
  const again = graphDigest(snapshot);
  assert.equal(again.sha256, snapshot.manifest.graph_sha256);
  for (const name of ["nodes", "occurrences", "edges"] as const) {
    const sizes = snapshot.item_chars![name];
    assert.equal(sizes.length, snapshot[name].length);
    snapshot[name].forEach((item, i) => assert.equal(sizes[i], JSON.stringify(item).length));
  }
});

Deno.test("scan items list their keys in code-unit order, so their JSON is already canonical", async () => {
  const snapshot = await scanFixtures();
  const copy = graphCopy(snapshot);
  for (const name of ["nodes", "occurrences", "edges", "integrity_contradictions"] as const) {
    for (const item of copy[name]!) {
      assert.equal(JSON.stringify(item), canonicalJson(item), `a ${name} item`);
    }
  }
  // Snapshots never change once made: their items are frozen.
  assert.ok(Object.isFrozen(snapshot.occurrences[0]));
  assert.throws(() => {
    (snapshot.nodes[0] as { size: number }).size = -1;
  }, TypeError);
});
