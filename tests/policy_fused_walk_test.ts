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
