import assert from "node:assert/strict";
import {
  canonicalJson,
  canonicalJsonInParts,
  freezeCanonical,
  jsonText,
} from "../src/core/canonical_json.ts";
import { analysisProfile, createEvidence } from "../src/core/evidence.ts";
import { call, connect, type Loose } from "./helpers/in_memory.ts";

const LIBC = Deno.realPathSync("/lib/x86_64-linux-gnu/libc.so.6");

/** A page whose items count the reads of their fields. */
function countedPage(n: number): { page: Record<string, unknown>; reads: () => number } {
  let reads = 0;
  const items = Array.from(
    { length: n },
    (_, i) =>
      new Proxy({ address: `0x${i.toString(16)}`, value: `f${i}` }, {
        get(object, key, receiver): unknown {
          if (key === "address" || key === "value") reads++;
          return Reflect.get(object, key, receiver);
        },
      }),
  );
  // Keys out of canonical order, as list_procedures writes them.
  const page = { document: "d", items, offset: 0, limit: n, total: n, has_more: false };
  return { page, reads: () => reads };
}

Deno.test("canonicalJsonInParts() writes what canonicalJson() writes", () => {
  const values: unknown[] = [
    { b: 1, a: { d: [1, { f: 2, e: 3 }], c: "x" }, "10": null, u: undefined },
    [{ b: 1, a: 2 }],
    "text",
    { z: { y: { x: { w: 1 } } } },
  ];
  for (const value of values) {
    const expected = canonicalJson(structuredClone(value));
    freezeCanonical(value);
    for (const depth of [0, 1, 2, 5]) assert.equal(canonicalJsonInParts(value, depth), expected);
  }
});

Deno.test("jsonText() writes what JSON.stringify() writes", () => {
  const { page } = countedPage(3);
  freezeCanonical(page);
  canonicalJsonInParts({ result: page }, 2);
  const values: unknown[] = [
    { result: page, evidence_id: "ev_1", skipped: undefined, f: () => 1 },
    { when: new Date(0), n: -0, list: [undefined, 1], nested: { "2": "b", "1": "a" } },
    [1, "a", null],
    "plain",
  ];
  for (const value of values) {
    for (const depth of [0, 1, 2, 4]) assert.equal(jsonText(value, depth), JSON.stringify(value));
  }
});

Deno.test("jsonText() takes a frozen page's items from canonicalJsonInParts() instead of reading them again", () => {
  const { page, reads } = countedPage(200);
  freezeCanonical(page);
  const canonical = canonicalJsonInParts({ normalized_result: page, operation: "x" }, 2);
  assert.equal(canonical, canonicalJson({ normalized_result: page, operation: "x" }));
  const before = reads();
  const text = jsonText({ result: page, evidence_id: "ev_1" }, 2);
  assert.equal(reads(), before, "the items were serialised again");
  const after = reads();
  assert.equal(text, JSON.stringify({ result: page, evidence_id: "ev_1" }));
  assert.ok(reads() > after, "JSON.stringify reads the items");
  // Each remembered text is used once: a second text serialises the items again.
  const again = reads();
  assert.equal(jsonText({ result: page }, 2), JSON.stringify({ result: page }));
  assert.ok(reads() > again);
});

Deno.test("jsonText() takes a page's items after an Evidence record whose analysis profile and provider are frozen parts", async () => {
  const provider = { id: "native", name: "n", version: "1" };
  const profile = analysisProfile(provider, 1, {
    strings: { encodings: ["ascii"], min_length: 4 },
    reference_index: { max_instructions: 10 },
  });
  const { page, reads } = countedPage(200);
  const record = await createEvidence({
    subject: null,
    provider: profile.provider,
    analysis_profile: profile,
    predicate_type: "test/v1",
    operation: "list_procedures",
    parameters: { offset: 0 },
    normalized_result: page,
    transferred: true,
  });
  assert.ok(Object.isFrozen(profile.parameters.strings), "the profile is frozen through");
  const before = reads();
  const text = jsonText({ result: record.normalized_result, evidence_id: record.evidence_id }, 2);
  assert.equal(reads(), before, "the items were serialised again");
  assert.equal(text, JSON.stringify({ result: page, evidence_id: record.evidence_id }));
});

Deno.test("list_procedures pages carry the serialized structured content as their first text block", async () => {
  const { client, close } = await connect({ roots: ["/lib/x86_64-linux-gnu"] });
  try {
    await call(client, "open_binary", { path: LIBC });
    for (const args of [{ offset: 0, limit: 500 }, { offset: 7, limit: 3 }]) {
      const { isError, raw }: { isError: boolean; raw: Loose } = await call(
        client,
        "list_procedures",
        args,
      );
      assert.equal(isError, false);
      assert.equal(raw.content[0].type, "text");
      assert.equal(raw.content[0].text, JSON.stringify(raw.structuredContent));
      assert.equal(raw.structuredContent.result.items.length, args.limit);
    }
  } finally {
    await close();
  }
});
