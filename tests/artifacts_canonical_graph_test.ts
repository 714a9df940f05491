import assert from "node:assert/strict";
import {
  canonicalJson,
  canonicalJsonByParts,
  freezeCanonical,
} from "../src/core/canonical_json.ts";
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

/** An object whose `value` getter counts its reads. */
function counted(): { part: Record<string, unknown>; reads: () => number } {
  let reads = 0;
  const part = {};
  Object.defineProperty(part, "value", {
    enumerable: true,
    get: () => {
      reads++;
      return "x";
    },
  });
  return { part, reads: () => reads };
}

Deno.test("canonicalJson() writes a frozen canonical part natively, without walking it to copy it", () => {
  const part = { a: 1, b: ["x", { c: null }] };
  assert.deepEqual(freezeCanonical(part), { plain: true, canonical: true });
  // A copy with sorted keys lists each object's keys; the native writer does not.
  const keys = Object.keys;
  let listed = 0;
  Object.keys = ((value: object) => {
    if (value === part) listed++;
    return keys(value);
  }) as typeof Object.keys;
  try {
    assert.equal(canonicalJson({ z: 1, y: [part] }), '{"y":[{"a":1,"b":["x",{"c":null}]}],"z":1}');
  } finally {
    Object.keys = keys;
  }
  assert.equal(listed, 0, "the frozen part was not walked");
});

Deno.test("freezeCanonical() does not walk again a part it already froze as canonical", () => {
  const { part, reads } = counted();
  freezeCanonical(part);
  const before = reads();
  assert.deepEqual(freezeCanonical({ z: [part], a: 1 }), { plain: true, canonical: false });
  assert.equal(reads(), before);
  assert.equal(canonicalJson({ z: [part], a: 1 }), '{"a":1,"z":[{"value":"x"}]}');
});
