import assert from "node:assert/strict";
import {
  canonicalJson,
  canonicalJsonByParts,
  freezeCanonical,
} from "../src/core/canonical_json.ts";
import { computeEvidenceId, type EvidenceRecord } from "../src/core/evidence.ts";
import { createEvidence } from "../src/apps/evidence.ts";

const SUBJECT = {
  name: "libx.so",
  digest: { sha256: "b".repeat(64) },
  format: "elf",
  architecture: "x86_64" as const,
  local_path: "/usr/lib/libx.so",
};

function page(n: number): { items: { address: string; value: string }[]; total: number } {
  return {
    items: Array.from(
      { length: n },
      (_, i) => ({ address: `0x${i.toString(16)}`, value: `f${i}` }),
    ),
    total: n,
  };
}

Deno.test("freezeCanonical() freezes a plain value and reports canonical key order", () => {
  const value = page(3);
  const verdict = freezeCanonical(value);
  assert.deepStrictEqual(verdict, { plain: true, canonical: true });
  assert.ok(
    Object.isFrozen(value) && Object.isFrozen(value.items) && Object.isFrozen(value.items[2]),
  );
  assert.equal(canonicalJson(value), JSON.stringify(value));
});

Deno.test("freezeCanonical() reports unsorted keys, and canonicalJson() still sorts them", () => {
  const value = { b: 1, a: [{ d: "x", c: "y" }], "10": true };
  const expected = canonicalJson(structuredClone(value));
  assert.deepStrictEqual(freezeCanonical(value), { plain: true, canonical: false });
  assert.equal(canonicalJson(value), expected);
  assert.equal(expected, '{"10":true,"a":[{"c":"y","d":"x"}],"b":1}');
});

Deno.test("freezeCanonical() refuses values JSON cannot hold", () => {
  assert.equal(freezeCanonical({ when: new Date(0) }).plain, false);
  assert.equal(freezeCanonical([1, Number.NaN]).plain, false);
  assert.equal(freezeCanonical({ f: () => 1 }).plain, false);
});

Deno.test("createEvidence() ids a handed-over result as it ids a copied one", async () => {
  for (const result of [page(50), { z: [{ y: 1, x: 2 }], a: "é" }]) {
    const copied = await createEvidence({
      subject: SUBJECT,
      provider: { id: "native", name: "n", version: "1" },
      operation: "list_procedures",
      parameters: { offset: 0 },
      normalized_result: structuredClone(result),
    });
    const handed = await createEvidence({
      subject: SUBJECT,
      provider: { id: "native", name: "n", version: "1" },
      operation: "list_procedures",
      parameters: { offset: 0 },
      normalized_result: result,
      transferred: true,
    });
    assert.equal(handed.evidence_id, copied.evidence_id);
    const { evidence_id: _id, ...body } = structuredClone(handed) as EvidenceRecord;
    assert.equal(computeEvidenceId(body), handed.evidence_id);
    assert.ok(Object.isFrozen(handed.normalized_result));
  }
});

Deno.test("createEvidence() reads each field of a handed-over page at most twice", async () => {
  // A page of 200 items behind proxies that count property reads: checking,
  // freezing and serialising the page must not walk it once per step.
  let reads = 0;
  const counted = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, key, receiver): unknown {
        if (typeof key === "string" && (key === "address" || key === "value")) reads++;
        return Reflect.get(object, key, receiver);
      },
    });
  const items = page(200).items.map(counted);
  await createEvidence({
    subject: SUBJECT,
    provider: { id: "native", name: "n", version: "1" },
    operation: "list_procedures",
    parameters: { offset: 0 },
    normalized_result: { items, total: items.length },
    transferred: true,
  });
  assert.ok(reads <= 2 * 2 * items.length, `${reads} reads of ${2 * items.length} fields`);
});

Deno.test("freezeCanonical() lets canonicalJson() write the sorted parts of an unsorted value whole", () => {
  // A page whose top-level keys are out of order (offset before limit) but whose items are
  // canonical: serialising it must not walk the items again.
  let reads = 0;
  const items = page(100).items.map((item) =>
    new Proxy(item, {
      get(object, key, receiver): unknown {
        if (key === "address" || key === "value") reads++;
        return Reflect.get(object, key, receiver);
      },
    })
  );
  const value = { document: "d", items, offset: 0, limit: 100 };
  assert.equal(freezeCanonical(value).canonical, false);
  const before = reads;
  const text = canonicalJson(value);
  assert.equal(reads - before, 2 * items.length);
  assert.equal(text, canonicalJson(JSON.parse(JSON.stringify(value))));
});

Deno.test("freezeCanonical() marks only the sorted parts of a value that turns unsorted midway", () => {
  // Each value stops being canonical after some canonical children: an array at an unsorted
  // item, an object at an out-of-order key and at an unsorted child. canonicalJson() writes the
  // parts freezeCanonical() marked whole, so a wrong mark would show in its output.
  const values = [
    [{ a: 1 }, [{ b: 2 }], { d: 1, c: 2 }, { e: [3] }],
    { a: { x: 1 }, c: [{ y: 2 }], b: { z: 3 } },
    { a: [{ x: 1 }], b: { y: 2 }, c: { q: 1, p: 2 }, d: { r: [1] } },
    { "7": { k: 1 }, a: { m: 2 } },
  ];
  for (const value of values) {
    const expected = canonicalJsonByParts(structuredClone(value));
    assert.deepStrictEqual(freezeCanonical(value), { plain: true, canonical: false });
    assert.equal(canonicalJson(value), expected);
  }
});
