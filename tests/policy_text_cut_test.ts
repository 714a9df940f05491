/**
 * A text value the output policy cuts says so in the value (how many
 * characters went, of how many, and where the whole text is) and in the
 * answer's limitations: a real program's 30,002-byte stdout captured under
 * the standard policy, and the same marker from every cutting stage.
 */

import assert from "node:assert/strict";
import { compilePolicy } from "../src/core/policy/compile.ts";
import { loadPolicy } from "../src/core/policy/document.ts";
import type { PolicyRequest } from "../src/core/policy.ts";
import { hasProgram, type Loose } from "./helpers/in_memory.ts";
import { capturedStdout, directStdout, withScriptCaptures } from "./helpers/script_capture.ts";

const LINUX = Deno.build.os === "linux";
const TOOLS = ["head", "tr", "cat"].every((p) => hasProgram(p));
if (!LINUX || !TOOLS) {
  console.log("skip: not Linux or head/tr/cat missing; the capture test is ignored");
}

/** The marker that ends a cut text, with its numbers and where the whole text is. */
const MARKER =
  /… \[\+(\d+) chars: the output policy shows at most (\d+) of the (\d+) characters of this text; ([^\]]+)\]$/;

Deno.test({
  name:
    "capture_process_scenario under the standard policy marks a 30,002-byte stdout cut at 20,000 characters, names the Evidence holding it whole, and says so in limitations",
  ignore: !LINUX || !TOOLS,
  fn: async () => {
    await withScriptCaptures(async ({ dir, script, capture }) => {
      // The file is written first and printed by one cat: one write, so one frame.
      const path = await script(
        "big.sh",
        "head -c 30002 /dev/zero | tr '\\0' a > big.txt && cat big.txt",
      );
      const peer = new TextDecoder().decode(await directStdout(path, dir));
      assert.equal(peer.length, 30002, "the program prints 30,002 characters when run directly");
      const answer: Loose = await capture(path);
      assert.equal(answer.result.streams.stdout.bytes, peer.length, "the record is whole");
      const shown = capturedStdout(answer);
      const marker = MARKER.exec(shown);
      assert.ok(marker, `the cut stdout ends in a marker: ${JSON.stringify(shown.slice(-300))}`);
      const [removed, kept, total] = [marker[1], marker[2], marker[3]].map(Number);
      assert.equal(total, peer.length);
      assert.equal(kept! + removed!, peer.length);
      assert.equal(shown.slice(0, marker.index), peer.slice(0, kept), "the kept part is a prefix");
      assert.equal(marker[4], `the whole text is in the stored Evidence ${answer.evidence_uri}`);
      const limitation = answer.result.limitations.at(-1) as string;
      assert.match(limitation, /^The output policy cut 1 text value of this answer/);
      assert.ok(limitation.includes(`(${removed} characters in all`), limitation);
      assert.ok(limitation.includes(answer.evidence_uri), limitation);
    });
  },
});

const standard = compilePolicy(loadPolicy("standard"), { env: () => "test-vault-key" });

function toolRequest(extra: Partial<PolicyRequest> = {}): PolicyRequest {
  return { kind: "tool", name: "example", effects: {}, ...extra };
}

Deno.test("the standard policy's string cap marks the cut without a source and notes it in limitations", () => {
  const long = "b".repeat(25_000);
  const out = standard.transform(toolRequest(), { text: long, limitations: ["kept"] }) as Loose;
  const marker = MARKER.exec(out.text);
  assert.ok(marker, out.text.slice(-300));
  assert.deepEqual([marker[1], marker[2], marker[3]].map(Number), [5_000, 20_000, 25_000]);
  assert.match(marker[4]!, /^only a policy without this limit shows the whole text$/);
  assert.equal(out.limitations.length, 2);
  assert.equal(out.limitations[0], "kept");
  assert.match(out.limitations[1], /^The output policy cut 1 text value .*5000 characters in all/);
});

Deno.test("the standard policy's free-text cap (sanitize) ends in the same marker, naming the source", () => {
  const long = "c".repeat(2_500);
  const out = standard.transform(toolRequest({ source: "rea://evidence/ev_x" }), {
    description: long,
  }) as Loose;
  const marker = MARKER.exec(out.description);
  assert.ok(marker, out.description.slice(-300));
  assert.deepEqual([marker[1], marker[2], marker[3]].map(Number), [500, 2_000, 2_500]);
  assert.equal(marker[4], "the whole text is in the stored Evidence rea://evidence/ev_x");
  assert.equal(out.limitations, undefined, "no limitations list is made up");
});

Deno.test("a value that fits is left without marker or limitation", () => {
  const value = { text: "short", limitations: ["kept"] };
  assert.deepEqual(standard.transform(toolRequest(), value), value);
});

Deno.test("a list the standard policy shortens to fit its budget is said in limitations, naming the source", () => {
  // 5,000 items of about 40 characters: over the standard budget of about 120,000 characters.
  const items = Array.from({ length: 5_000 }, (_, i) => `item number ${i} of a long listing here`);
  const out = standard.transform(toolRequest({ source: "rea://evidence/ev_y" }), {
    items,
    limitations: [],
  }) as Loose;
  assert.ok(out.items.length < items.length, "the list was shortened");
  assert.equal(out._policy_truncation.lists_shortened, 1);
  assert.equal(out.limitations.length, 1);
  const max = out._policy_truncation.max_items_per_list;
  assert.equal(
    out.limitations[0],
    `The output policy shortened 1 list of this answer to at most ${max} items each (see _policy_truncation): every item is in the stored Evidence rea://evidence/ev_y (fields named truncated describe that record, not this cut).`,
  );
  assert.ok(out.items.length <= max);
});
