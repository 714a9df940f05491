import assert from "node:assert/strict";
import { fusedWalk } from "../src/core/policy/pipeline.ts";

Deno.test("fusedWalk() runs each unchanged key through the stages once, not once per object", () => {
  const seen: string[] = [];
  const walk = fusedWalk([(text, key) => {
    if (key === undefined) seen.push(text);
    return text;
  }], {});
  const items = Array.from({ length: 300 }, (_, i) => ({ address: `0x${i}`, value: `f${i}` }));
  const out = walk({ items }) as { items: { address: string; value: string }[] };
  assert.deepStrictEqual(out, { items });
  assert.equal(seen.filter((key) => key === "address").length, 1);
  assert.equal(seen.filter((key) => key === "value").length, 1);
});

Deno.test("fusedWalk() still rewrites a key the stages change in every object", () => {
  const walk = fusedWalk([(text) => text.replaceAll("123456789012", "<account>")], {});
  const out = walk([{ "123456789012": 1 }, { "123456789012": 2 }]);
  assert.deepStrictEqual(out, [{ "<account>": 1 }, { "<account>": 2 }]);
});

Deno.test("fusedWalk() returns a list the stages leave alone as it came, and copies a changed one", () => {
  const walk = fusedWalk([(text) => text.replaceAll("secret", "[REDACTED]")], {
    excludedKeys: new Set(["hidden"]),
  });
  const untouched = Object.freeze([Object.freeze({ address: "0x1", value: "f" })]);
  assert.equal(walk(untouched), untouched);
  const page = { items: [{ a: "x" }, { a: "a secret" }, { a: "y" }], hidden: 1, total: 3 };
  const before = structuredClone(page);
  const out = walk(page) as typeof page;
  assert.deepStrictEqual(out, { items: [{ a: "x" }, { a: "a [REDACTED]" }, { a: "y" }], total: 3 });
  assert.notEqual(out, page);
  assert.equal(out.items[0], page.items[0]);
  assert.deepStrictEqual(page, before);
  assert.deepStrictEqual(walk({ when: new Date(0), n: 1 }), { when: {}, n: 1 });
});
