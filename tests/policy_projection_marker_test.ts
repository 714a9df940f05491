/**
 * The project transform never shortens a list silently: a result whose lists
 * it had to cut says so, and one that fits is left as it was.
 */

import assert from "node:assert/strict";
import { POLICY_TRUNCATION_KEY, projector } from "../src/core/policy/projection.ts";

Deno.test("projector() marks a result whose lists it shortened to fit max_chars", () => {
  const project = projector({ max_chars: 2_000 });
  const value = { total: 500, items: Array.from({ length: 500 }, (_, i) => `item-${i}`) };
  const out = project(value) as Record<string, unknown>;
  const items = out.items as string[];
  assert.ok(items.length < 500 && JSON.stringify(out).length < 2_500);
  assert.deepEqual(items, value.items.slice(0, items.length), "a prefix, in order");
  const marker = out[POLICY_TRUNCATION_KEY] as Record<string, unknown>;
  assert.equal(marker.lists_shortened, 1);
  assert.equal(marker.max_items_per_list, items.length);
  assert.equal(value.items.length, 500, "the input is not changed");
});

Deno.test("projector() leaves a result that fits without a marker", () => {
  const out = projector({ max_chars: 2_000 })({ items: ["a", "b"] }) as Record<string, unknown>;
  assert.deepEqual(out, { items: ["a", "b"] });
});

Deno.test("projector() marks lists cut by max_list too", () => {
  const out = projector({ max_list: 2 })({ a: [1, 2, 3], b: { c: [1, 2, 3, 4] } }) as Record<
    string,
    unknown
  >;
  assert.deepEqual(out.a, [1, 2]);
  assert.equal((out[POLICY_TRUNCATION_KEY] as { lists_shortened: number }).lists_shortened, 2);
});
