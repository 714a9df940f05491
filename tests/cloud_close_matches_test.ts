/**
 * closeMatches() and similarity() against Python's difflib, the measure the
 * reference implementation uses for suggestions, run as a peer when python3
 * is on the machine.
 */

import assert from "node:assert/strict";
import { closeMatches, similarity } from "../src/cloud/model/close_matches.ts";
import { hasProgram } from "./helpers/programs.ts";

const PAIRS: [string, string][] = [
  ["hihg", "high"],
  ["HIHG", "HIGH"],
  ["LAMBDA_FUNC", "LAMBDA_FUNCTION"],
  ["web-acl", "web-alb"],
  ["ordrs-db", "orders-db"],
  ["", "x"],
  ["abcdefgh", "hgfedcba"],
  ["prod-data", "prod-logs"],
  ["arn:aws:s3:::ghost", "arn:aws:s3:::ghost-bucket"],
  ["zzz", "abc"],
];

Deno.test({
  name: "similarity() equals difflib.SequenceMatcher(None, a, b).ratio() on short strings",
  ignore: !hasProgram("python3"),
  fn: async () => {
    const script = [
      "import difflib, json, sys",
      "pairs = json.load(sys.stdin)",
      "print(json.dumps([difflib.SequenceMatcher(None, a, b).ratio() for a, b in pairs]))",
    ].join("\n");
    const child = new Deno.Command("python3", {
      args: ["-c", script],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(JSON.stringify(PAIRS)));
    await writer.close();
    const output = await child.output();
    const theirs = JSON.parse(new TextDecoder().decode(output.stdout)) as number[];
    PAIRS.forEach(([a, b], i) => {
      assert.ok(Math.abs(similarity(a, b) - theirs[i]!) < 1e-12, `${a} ~ ${b}`);
    });
  },
});

Deno.test("closeMatches() keeps those above the cutoff, most similar first (ties: greater string first, as difflib), at most n", () => {
  assert.deepEqual(closeMatches("HIHG", ["CRITICAL", "HIGH", "MEDIUM", "LOW"], 3, 0.6), ["HIGH"]);
  assert.deepEqual(closeMatches("web-9", ["web-1", "web-2", "db"], 2, 0.5), ["web-2", "web-1"]);
  assert.deepEqual(closeMatches("zzz", ["abc"], 3, 0.1), []);
});
