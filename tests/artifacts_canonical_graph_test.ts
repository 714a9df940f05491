import assert from "node:assert/strict";
import { canonicalJson, canonicalJsonByParts } from "../src/core/canonical_json.ts";
import { scanArtifact } from "../src/apps/artifacts/scan.ts";
import { DEFAULT_LIMITS } from "../src/apps/artifacts/model.ts";

const FIXTURES = new URL("../../shared/fixtures/apps/", import.meta.url).pathname;

Deno.test("canonicalJson() writes in one pass exactly what canonicalJsonByParts() writes for a scanned graph", async () => {
  const snapshot = await scanArtifact(
    { kind: "directory", realPath: FIXTURES.replace(/\/$/, ""), name: "apps" },
    { limits: DEFAULT_LIMITS },
  );
  assert.ok(snapshot.occurrences.length > 10, `${snapshot.occurrences.length} occurrences`);
  const graph = {
    nodes: snapshot.nodes,
    occurrences: snapshot.occurrences,
    edges: snapshot.edges,
    integrity_contradictions: snapshot.integrity_contradictions,
  };
  assert.equal(canonicalJson(graph), canonicalJsonByParts(graph));
});

Deno.test("canonicalJson() matches canonicalJsonByParts() on awkward values", () => {
  const values: unknown[] = [
    { b: 1, a: [true, null, "x\u2028\ud800"], "é": { z: -0, y: 1e21, x: 0.1 } },
    { "10": 1, "9": 2, a: 3 }, // index-like keys: the engine would order them numerically
    { nested: { "2": "two", "1": "one" } },
    [undefined, { u: undefined, v: 1 }],
    { when: { toJSON: () => "later" } },
    { date: new Date(0) },
    Object.assign(Object.create(null), { b: 2, a: 1 }),
    "plain",
    42,
    [],
    {},
  ];
  for (const value of values) {
    assert.equal(canonicalJson(value), canonicalJsonByParts(value), JSON.stringify(value));
  }
  for (const bad of [{ n: NaN }, { i: Infinity }, undefined]) {
    assert.throws(() => canonicalJson(bad), TypeError);
  }
});
