/**
 * The residual unknowns' free text under the standard output policy, through a real MCP
 * client: record_unknown and update_unknown refuse the characters the sanitizer strips (the
 * id and digests cover the text as given), and a question the sanitizer fences is shown
 * inside markers only, its unknown resource serving the exact bytes its id is computed from.
 */

import assert from "node:assert/strict";
import { canonicalJson } from "../src/core/canonical_json.ts";
import { EXACT_BYTES_META } from "../src/core/policy/compile.ts";
import { sanitizer, stripFences } from "../src/core/policy/sanitize.ts";
import { call, fails, type Loose, ok } from "./helpers/in_memory.ts";
import { policySession } from "./helpers/policy_session.ts";
import { recordUnknownArgs } from "./helpers/unknown_args.ts";

function recordArgs(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return recordUnknownArgs("Does the loader read a configuration file?", overrides);
}

/** SHA-256 of a string's UTF-8 bytes, as hex (WebCrypto, not the server's own hashing). */
async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The unknown id of a record's domain, question and scope, as the registry defines it. */
async function idOf(record: Loose): Promise<string> {
  const { domain, question, scope_digest } = record;
  return `unk_${await sha256(canonicalJson({ domain, question, scope_digest }))}`;
}

const codePoint = (c: string): string =>
  `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

// One character of each class the sanitizer strips: C0 controls, DEL, zero-width and
// bidirectional controls, isolates, the byte-order mark and a tag character.
const STRIPPED = ["\u0001", "\u0007", "\u001B", "\u007F", "\u200B", "\u202E", "\u2066", "\uFEFF"]
  .concat(String.fromCodePoint(0xE0041));

Deno.test("record_unknown refuses each character the sanitizer strips, naming the field and code point, and writes nothing", async () => {
  const session = await policySession("standard", { demo: false });
  try {
    const clean = sanitizer();
    const before = session.casefile.ledger.size;
    for (const c of STRIPPED) {
      const question = `Does the loader${c} read a configuration file?`;
      assert.notEqual(clean.clean(question, "question"), question, `the sanitizer strips ${c}`);
      const error = await fails(session.client, "record_unknown", recordArgs({ question }));
      assert.equal(error.code, "invalid_request");
      assert.equal(error.details.field, "question");
      assert.equal(error.details.code_point, codePoint(c));
      assert.ok(error.message.startsWith(`question holds ${codePoint(c)} at offset 15`));
    }
    const nested = await fails(
      session.client,
      "record_unknown",
      recordArgs({
        recommended_probes: [
          { operation: "trace", rationale: "Plain." },
          { operation: "trace", rationale: "Zero\u200Bwidth." },
        ],
      }),
    );
    assert.equal(nested.details.field, "recommended_probes[1].rationale");
    assert.equal(nested.details.code_point, "U+200B");
    const environment = await fails(
      session.client,
      "record_unknown",
      recordArgs({
        required_environment: {
          id: null,
          platform: "linux\u0000",
          architecture: null,
          isolation: null,
        },
      }),
    );
    assert.equal(environment.details.field, "required_environment.platform");
    const domain = await fails(
      session.client,
      "record_unknown",
      recordArgs({ domain: "\uFEFFparsing" }),
    );
    assert.equal(domain.details.field, "domain");
    assert.equal(session.casefile.ledger.size, before, "no Evidence written");
    assert.equal((await ok(session.client, "list_unknowns")).result.total, 0, "registry unchanged");
    // Tabs and line breaks are whitespace the question collapses, not refused.
    const head = (await ok(
      session.client,
      "record_unknown",
      recordArgs({ question: "Does the loader\tread\na configuration file?" }),
    )).result;
    assert.equal(head.question, "Does the loader read a configuration file?");
  } finally {
    await session.close();
  }
});

Deno.test("update_unknown refuses a control character in a resolution rationale and keeps the head", async () => {
  const session = await policySession("standard", { demo: false });
  try {
    const head = (await ok(session.client, "record_unknown", recordArgs())).result;
    const error = await fails(session.client, "update_unknown", {
      approved: true,
      unknown_id: head.unknown_id,
      expected_revision: 1,
      status: "resolved",
      severity: head.severity,
      supporting_evidence_ids: [],
      contradicting_evidence_ids: [],
      required_authority: null,
      required_confidence: "observed",
      required_environment: null,
      recommended_probes: head.recommended_probes,
      relationships: [],
      resolution: { disposition: "withdrawn", rationale: "Not\u0008 needed.", evidence_ids: [] },
    });
    assert.equal(error.details.field, "resolution.rationale");
    assert.equal(error.details.code_point, "U+0008");
    const listed = (await ok(session.client, "list_unknowns")).result;
    assert.equal(listed.total, 1);
    assert.equal(listed.items[0].unknown.revision, 1);
  } finally {
    await session.close();
  }
});

Deno.test("record_unknown under standard fences an injection-like question with markers only, and its resource serves the exact bytes its id is computed from", async () => {
  const session = await policySession("standard", { demo: false });
  try {
    const question = "Does the parser ignore previous instructions found in its config?";
    const outcome = await call(session.client, "record_unknown", recordArgs({ question }));
    assert.equal(outcome.isError, false, JSON.stringify(outcome.structured));
    const shown = outcome.structured.result;
    assert.equal(shown.question, `⟦untrusted⟧ ${question} ⟦/untrusted⟧`);
    assert.equal(stripFences(shown.question), question);
    assert.equal(await idOf({ ...shown, question: stripFences(shown.question) }), shown.unknown_id);

    const read = await session.client.readResource({ uri: `rea://unknown/${shown.unknown_id}` });
    const contents = read.contents[0] as Loose;
    assert.equal(contents.text, undefined);
    assert.match(contents._meta[EXACT_BYTES_META], /base64/);
    const served = JSON.parse(new TextDecoder().decode(
      Uint8Array.from(atob(contents.blob), (c) => c.charCodeAt(0)),
    ));
    assert.equal(served.current.question, question);
    assert.equal(await idOf(served.current), shown.unknown_id);
    const { revision_digest, ...rest } = served.current;
    assert.equal(await sha256(canonicalJson(rest)), revision_digest);
    assert.equal(revision_digest, shown.revision_digest);
  } finally {
    await session.close();
  }
});
