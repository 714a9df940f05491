/**
 * The content-graph ids a scan writes directly are the SHA-256 of exactly the
 * canonical JSON of their objects, for any strings (escapes, astral and lone
 * surrogates included).
 */

import assert from "node:assert/strict";
import { canonicalJson, sha256Hex } from "../src/core/canonical_json.ts";
import { artifactId, edgeId, occurrenceId, rootOccurrenceId } from "../src/apps/artifacts/ids.ts";
import { mulberry32 } from "./helpers/random.ts";

const ALPHABET = [
  "a",
  "/",
  ".",
  " ",
  '"',
  "\\",
  "\n",
  "\u0000",
  "\u001f",
  "\u007f",
  "é",
  "€",
  "😀",
  "\ud800",
  "\udc00",
  "\u2028",
  "%",
];

function randomString(next: () => number): string {
  const length = Math.floor(next() * 12);
  let text = "";
  for (let i = 0; i < length; i++) text += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return text;
}

const expected = (prefix: string, value: unknown): string =>
  `${prefix}_${sha256Hex(canonicalJson(value))}`;

Deno.test("artifactId(), occurrenceId(), rootOccurrenceId() and edgeId() hash exactly the canonical JSON of their objects (seed 4)", () => {
  const next = mulberry32(4);
  for (let i = 0; i < 2000; i++) {
    const [a, b, c, d, e] = [0, 1, 2, 3, 4].map(() => randomString(next)) as [
      string,
      string,
      string,
      string,
      string,
    ];
    assert.equal(artifactId(a), expected("art", { schema_version: 1, sha256: a }));
    assert.equal(
      occurrenceId(a, b, c),
      expected("occ", { root_artifact_id: a, logical_path: b, entry_kind: c }),
    );
    assert.equal(rootOccurrenceId(a), expected("occ", { root: a }));
    for (const logicalPath of [e, null]) {
      const edge = {
        parent_artifact_id: a,
        child_artifact_id: b,
        relation: c,
        occurrence_id: d,
        logical_path: logicalPath,
      };
      assert.equal(edgeId(edge), expected("edge", edge));
    }
  }
});
