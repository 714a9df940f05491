import assert from "node:assert/strict";
import { sanitizer } from "../src/core/policy/sanitize.ts";

Deno.test("sanitizer() strips invisible characters from every string, wherever they sit", () => {
  const s = sanitizer();
  // Each string's invisible character sits before where the previous one's did: a test that
  // kept its position between strings would miss them.
  const inputs = ["abcdefgh\u200Bij", "abc\u202Edef", "\u0007x", "plain", "y\u{E0041}z", "\uFEFF"];
  const out = inputs.map((text) => s.clean(text, "value"));
  assert.deepStrictEqual(out, ["abcdefghij", "abcdef", "x", "plain", "yz", ""]);
  assert.equal(s.report.stripped_chars, 6);
  assert.deepStrictEqual(s.apply({ items: [{ value: "a\u200Cb" }, { value: "\u200Dc" }] }), {
    items: [{ value: "ab" }, { value: "c" }],
  });
});
