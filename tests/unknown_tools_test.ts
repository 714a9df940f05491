/**
 * The residual-unknowns tools, completion family and resource through a real
 * MCP client over the in-memory transport, on real binaries under /usr/bin.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { connect, fails, type Loose, ok, withClient } from "./helpers/in_memory.ts";
import type { EvidenceDraft, EvidenceLedger } from "../src/core/evidence.ts";
import { createEvidence } from "../src/apps/evidence.ts";
import { isFile } from "./helpers/system_files.ts";
import { recordUnknownArgs } from "./helpers/unknown_args.ts";

const TRUE = "/usr/bin/true";
const FALSE = "/usr/bin/false";
const ROOTS = ["/usr/bin"];
const HAS_BINARIES = [TRUE, FALSE].every(isFile);
if (!HAS_BINARIES) console.error(`skipping unknown tool tests: ${TRUE} or ${FALSE} is missing`);

const ENV = { id: "linux-x86_64", platform: "linux", architecture: "x86_64", isolation: "process" };

function recordArgs(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return recordUnknownArgs("Does true read any configuration file?", overrides);
}

/** update_unknown arguments carrying a head's full state, with overrides. */
function updateArgs(head: Loose, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    approved: true,
    unknown_id: head.unknown_id,
    expected_revision: head.revision,
    status: head.status,
    severity: head.severity,
    supporting_evidence_ids: head.supporting_evidence_ids,
    contradicting_evidence_ids: head.contradicting_evidence_ids,
    required_authority: head.required_authority,
    required_confidence: head.required_confidence,
    required_environment: head.required_environment,
    recommended_probes: head.recommended_probes,
    relationships: head.relationships,
    resolution: head.resolution,
    ...overrides,
  };
}

/** Puts a record into the session ledger, as a capture tool would. */
async function inject(ledger: EvidenceLedger, overrides: Partial<EvidenceDraft>): Promise<string> {
  const record = await createEvidence({
    subject: null,
    provider: { id: "rea-process", name: "Process capture", version: "3" },
    operation: "capture_process_scenario",
    predicate_type: "rea.process-capture/v4",
    parameters: {},
    normalized_result: { run: crypto.randomUUID() },
    authority: "controlled-replay",
    ...overrides,
  });
  await ledger.record(record);
  return record.evidence_id;
}

async function readUnknown(client: Loose, id: string): Promise<Loose> {
  const { contents } = await client.readResource({ uri: `rea://unknown/${id}` });
  assert.equal(contents[0].mimeType, "application/json");
  return JSON.parse(contents[0].text);
}

Deno.test({
  name: "record_unknown needs approval, is scoped to the target and returns the head with a link",
  ignore: !HAS_BINARIES,
  fn: async () => {
    const { client, casefile, close } = await connect({ roots: ROOTS });
    try {
      await ok(client, "open_binary", { path: TRUE });
      const before = casefile.ledger.size;
      const { approved: _approved, ...unapproved } = recordArgs();
      const refused = await fails(client, "record_unknown", unapproved);
      assert.equal(refused.code, "invalid_request");
      assert.match(refused.message, /approved/);
      const falseApproval = await fails(client, "record_unknown", recordArgs({ approved: false }));
      assert.equal(falseApproval.code, "invalid_request");
      assert.equal(casefile.ledger.size, before, "nothing written");
      assert.equal((await ok(client, "list_unknowns")).result.total, 0);

      const raw = await client.callTool({
        name: "record_unknown",
        arguments: recordArgs({ question: "  Does true read\n any  configuration file? " }),
      });
      assert.notEqual(raw.isError, true, JSON.stringify(raw.structuredContent));
      const structured = raw.structuredContent as Loose;
      const head = structured.result;
      assert.match(head.unknown_id, /^unk_[0-9a-f]{64}$/);
      assert.equal(head.question, "Does true read any configuration file?");
      assert.equal(head.revision, 1);
      assert.equal(head.previous_revision_digest, null);
      assert.equal(head.status, "open");
      assert.deepEqual(head.mutation_evidence_ids, [structured.evidence_id]);
      const overview = await ok(client, "binary_overview");
      assert.equal(head.scope_digest, (await ok(client, "binary_session")).result.target.sha256);
      assert.ok(overview.evidence_id);
      const links = (raw.content as Loose[]).filter((c) => c.type === "resource_link").map((c) =>
        c.uri
      );
      assert.ok(links.includes(`rea://unknown/${head.unknown_id}`), JSON.stringify(links));
      assert.ok(links.includes(`rea://evidence/${structured.evidence_id}`));
      const read = await client.readResource({ uri: structured.evidence_uri });
      const mutation = JSON.parse((read.contents[0] as Loose).text);
      assert.equal(mutation.predicate_type, "rea.residual-unknown-mutation/v1");
      assert.equal(mutation.operation, "record_unknown");

      // Same question (other whitespace), same target: already exists.
      const again = await fails(client, "record_unknown", recordArgs());
      assert.equal(again.details.registry_error, "already-exists");
      assert.equal(again.details.current_revision, 1);
      // Another target: another id, and the first unknown survives the switch.
      await ok(client, "open_binary", { path: FALSE });
      const other = (await ok(client, "record_unknown", recordArgs())).result;
      assert.notEqual(other.unknown_id, head.unknown_id);
      assert.equal((await ok(client, "list_unknowns")).result.total, 2);

      // The resource holds {current, history}; an unknown id is not found.
      assert.deepEqual(await readUnknown(client, head.unknown_id), {
        current: head,
        history: [head],
      });
      await assert.rejects(
        client.readResource({ uri: `rea://unknown/unk_${"0".repeat(64)}` }),
        /not found/,
      );
    } finally {
      await close();
    }
  },
});

Deno.test({
  name: "update_unknown is compare-and-swap and notifies subscribers of rea://unknown/<id>",
  ignore: !HAS_BINARIES,
  fn: async () => {
    await withClient({ roots: ROOTS }, async (client) => {
      await ok(client, "open_binary", { path: TRUE });
      const head = (await ok(client, "record_unknown", recordArgs())).result;
      const uri = `rea://unknown/${head.unknown_id}`;
      const updated: string[] = [];
      const seen = new Promise<void>((resolve) => {
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
          updated.push(note.params.uri);
          resolve();
        });
      });
      await client.subscribeResource({ uri });

      const { approved: _approved, ...unapproved } = updateArgs(head, { status: "blocked" });
      assert.equal((await fails(client, "update_unknown", unapproved)).code, "invalid_request");

      const two =
        (await ok(client, "update_unknown", updateArgs(head, { status: "investigating" })))
          .result;
      await seen;
      assert.deepEqual(updated, [uri]);
      assert.equal(two.revision, 2);
      assert.equal(two.previous_revision_digest, head.revision_digest);

      // A stale writer (based on revision 1) fails and changes nothing.
      const stale = await fails(client, "update_unknown", updateArgs(head, { status: "blocked" }));
      assert.equal(stale.code, "revision_conflict");
      assert.equal(stale.details.current_revision, 2);
      assert.match(stale.message, /revision 2/);
      const { current, history } = await readUnknown(client, head.unknown_id);
      assert.deepEqual(history.map((r: Loose) => r.revision), [1, 2]);
      assert.equal(current.status, "investigating");

      const missing = await fails(
        client,
        "update_unknown",
        updateArgs({ ...head, unknown_id: `unk_${"1".repeat(64)}` }),
      );
      assert.equal(missing.details.registry_error, "not-found");
    });
  },
});

Deno.test({
  name: "a verified resolution needs qualifying Evidence; verify_unknown_resolution reports it",
  ignore: !HAS_BINARIES,
  fn: async () => {
    const { client, casefile, close } = await connect({ roots: ROOTS });
    try {
      await ok(client, "open_binary", { path: TRUE });
      const inferred = await inject(casefile.ledger, { confidence: "inferred", environment: ENV });
      const head = (await ok(
        client,
        "record_unknown",
        recordArgs({
          supporting_evidence_ids: [inferred],
          required_authority: "controlled-replay",
          required_confidence: "observed",
          required_environment: {
            id: null,
            platform: "linux",
            architecture: "x86_64",
            isolation: null,
          },
        }),
      )).result;
      const resolve = (supporting: string[], evidence: string[]) =>
        updateArgs(head, {
          status: "resolved",
          supporting_evidence_ids: supporting,
          resolution: {
            disposition: "verified",
            rationale: "Observed it.",
            evidence_ids: evidence,
          },
        });
      const rejected = await fails(client, "update_unknown", resolve([inferred], [inferred]));
      assert.equal(rejected.details.registry_error, "invalid-transition");
      assert.match(rejected.message, /confidence inferred/);
      assert.equal((await readUnknown(client, head.unknown_id)).current.revision, 1);

      const unresolved = await ok(client, "verify_unknown_resolution", {
        unknown_id: head.unknown_id,
      });
      assert.equal(unresolved.result.valid, false);
      assert.equal(unresolved.result.truthVerified, false);

      const observed = await inject(casefile.ledger, { confidence: "observed", environment: ENV });
      const resolved =
        (await ok(client, "update_unknown", resolve([inferred, observed], [observed])))
          .result;
      assert.equal(resolved.revision, 2);
      const verdict = await ok(client, "verify_unknown_resolution", {
        unknown_id: head.unknown_id,
      });
      assert.equal(verdict.result.valid, true);
      assert.equal(verdict.result.truthVerified, true);
      assert.deepEqual(verdict.result.unknown, resolved);

      const absent = await fails(client, "verify_unknown_resolution", {
        unknown_id: `unk_${"2".repeat(64)}`,
      });
      assert.equal(absent.details.registry_error, "not-found");
    } finally {
      await close();
    }
  },
});

Deno.test({
  name: "references, status invariants and depends-on cycles are refused through the tools",
  ignore: !HAS_BINARIES,
  fn: async () => {
    const { client, casefile, close } = await connect({ roots: ROOTS });
    try {
      await ok(client, "open_binary", { path: TRUE });
      const before = casefile.ledger.size;
      const unknownEvidence = await fails(
        client,
        "record_unknown",
        recordArgs({ supporting_evidence_ids: [`ev_${"3".repeat(64)}`] }),
      );
      assert.equal(unknownEvidence.details.registry_error, "integrity");
      const missingHead = await fails(
        client,
        "record_unknown",
        recordArgs({
          relationships: [{ type: "depends-on", unknown_id: `unk_${"4".repeat(64)}` }],
        }),
      );
      assert.equal(missingHead.details.registry_error, "integrity");
      assert.equal(casefile.ledger.size, before);

      const a = (await ok(client, "record_unknown", recordArgs({ question: "A?" }))).result;
      const b = (await ok(
        client,
        "record_unknown",
        recordArgs({
          question: "B?",
          relationships: [{ type: "depends-on", unknown_id: a.unknown_id }],
        }),
      )).result;
      const cycle = await fails(
        client,
        "update_unknown",
        updateArgs(a, { relationships: [{ type: "depends-on", unknown_id: b.unknown_id }] }),
      );
      assert.equal(cycle.details.registry_error, "integrity");
      assert.match(cycle.message, /cycle/);

      const contradicted = await fails(
        client,
        "update_unknown",
        updateArgs(a, { status: "contradicted" }),
      );
      assert.equal(contradicted.details.registry_error, "invalid-transition");
      const unresolved = await fails(
        client,
        "update_unknown",
        updateArgs(a, { status: "resolved" }),
      );
      assert.equal(unresolved.details.registry_error, "invalid-transition");

      // Withdraw, then reopen: transitions are unrestricted.
      const withdrawn = (await ok(
        client,
        "update_unknown",
        updateArgs(a, {
          status: "resolved",
          resolution: { disposition: "withdrawn", rationale: "Duplicate.", evidence_ids: [] },
        }),
      )).result;
      const reopened = (await ok(
        client,
        "update_unknown",
        updateArgs(withdrawn, { status: "open", resolution: null }),
      )).result;
      assert.equal(reopened.revision, 3);
      assert.equal(reopened.status, "open");
    } finally {
      await close();
    }
  },
});

Deno.test({
  name: "list_unknowns filters exactly and pages with has_more and next_offset",
  ignore: !HAS_BINARIES,
  fn: async () => {
    await withClient({ roots: ROOTS }, async (client) => {
      await ok(client, "open_binary", { path: TRUE });
      const ids: string[] = [];
      for (
        const [question, severity, domain] of [
          ["Q1?", "low", "parsing"],
          ["Q2?", "high", "parsing"],
          ["Q3?", "high", "process-file"],
          ["Q4?", "critical", "parsing-extra"],
        ]
      ) {
        ids.push(
          (await ok(client, "record_unknown", recordArgs({ question, severity, domain })))
            .result.unknown_id,
        );
      }
      const sorted = [...ids].sort();
      const first = await client.callTool({ name: "list_unknowns", arguments: { limit: 3 } });
      const page = (first.structuredContent as Loose).result;
      assert.deepEqual(page.items.map((i: Loose) => i.unknown.unknown_id), sorted.slice(0, 3));
      assert.deepEqual(
        page.items.map((i: Loose) => i.uri),
        sorted.slice(0, 3).map((id) => `rea://unknown/${id}`),
      );
      assert.equal(page.total, 4);
      assert.equal(page.has_more, true);
      assert.equal(page.next_offset, 3);
      assert.equal(
        (first.content as Loose[]).filter((c) => c.type === "resource_link").length,
        3,
        "a resource link per item",
      );
      const last = (await ok(client, "list_unknowns", { limit: 3, offset: 3 })).result;
      assert.deepEqual(last.items.map((i: Loose) => i.unknown.unknown_id), sorted.slice(3));
      assert.equal(last.has_more, false);
      assert.equal(last.next_offset, null);

      assert.equal((await ok(client, "list_unknowns", { severity: "high" })).result.total, 2);
      assert.equal((await ok(client, "list_unknowns", { domain: "parsing" })).result.total, 2);
      assert.equal(
        (await ok(client, "list_unknowns", { domain: "parsing", severity: "high" })).result
          .items[0].unknown.question,
        "Q2?",
      );
      assert.equal((await ok(client, "list_unknowns", { status: "resolved" })).result.total, 0);
      assert.equal((await fails(client, "list_unknowns", { limit: 501 })).code, "invalid_request");
    });
  },
});

Deno.test({
  name:
    "completion offers only non-resolved heads for audit_residual_unknowns and every head for the resource",
  ignore: !HAS_BINARIES,
  fn: async () => {
    await withClient({ roots: ROOTS }, async (client) => {
      await ok(client, "open_binary", { path: TRUE });
      const open = (await ok(client, "record_unknown", recordArgs({ question: "Open?" }))).result;
      const done = (await ok(client, "record_unknown", recordArgs({ question: "Done?" }))).result;
      await ok(
        client,
        "update_unknown",
        updateArgs(done, {
          status: "resolved",
          resolution: { disposition: "out-of-scope", rationale: "Not ours.", evidence_ids: [] },
        }),
      );
      const prompt = await client.complete({
        ref: { type: "ref/prompt", name: "audit_residual_unknowns" },
        argument: { name: "unknown_id", value: "" },
      });
      assert.deepEqual(prompt.completion.values, [open.unknown_id]);
      const prefixed = await client.complete({
        ref: { type: "ref/prompt", name: "audit_residual_unknowns" },
        argument: { name: "unknown_id", value: open.unknown_id.slice(0, 10) },
      });
      assert.deepEqual(prefixed.completion.values, [open.unknown_id]);
      const template = await client.complete({
        ref: { type: "ref/resource", uri: "rea://unknown/{unknownId}" },
        argument: { name: "unknownId", value: "unk_" },
      });
      assert.deepEqual(template.completion.values, [open.unknown_id, done.unknown_id].sort());
    });
  },
});

Deno.test({
  name: "close_binary clears the registry, and Evidence from the closed session cannot resolve",
  ignore: !HAS_BINARIES,
  fn: async () => {
    await withClient({ roots: ROOTS }, async (client) => {
      await ok(client, "open_binary", { path: TRUE });
      const oldEvidence = (await ok(client, "binary_overview")).evidence_id;
      const head = (await ok(
        client,
        "record_unknown",
        recordArgs({
          supporting_evidence_ids: [oldEvidence],
        }),
      )).result;
      await ok(client, "close_binary");
      assert.equal((await ok(client, "list_unknowns")).result.total, 0);
      await assert.rejects(
        client.readResource({ uri: `rea://unknown/${head.unknown_id}` }),
        /not found/,
      );

      await ok(client, "open_binary", { path: TRUE });
      const fresh = (await ok(client, "record_unknown", recordArgs())).result;
      assert.equal(fresh.unknown_id, head.unknown_id, "recorded anew after the clear");
      const stale = await fails(
        client,
        "update_unknown",
        updateArgs(fresh, {
          status: "resolved",
          supporting_evidence_ids: [oldEvidence],
          resolution: { disposition: "verified", rationale: "Seen.", evidence_ids: [oldEvidence] },
        }),
      );
      assert.equal(stale.details.registry_error, "integrity");
      assert.match(stale.message, /does not hold/);
      assert.equal((await readUnknown(client, fresh.unknown_id)).current.revision, 1);
    });
  },
});

Deno.test({
  name: "a full ledger refuses record_unknown and leaves the registry unchanged",
  ignore: !HAS_BINARIES,
  fn: async () => {
    const { client, casefile, close } = await connect({
      roots: ROOTS,
      ledgerLimits: { maxRecords: 3 },
    });
    try {
      await ok(client, "open_binary", { path: TRUE });
      await ok(client, "binary_overview");
      await ok(client, "binary_overview", {});
      assert.equal(casefile.ledger.size, 1, "the repeated overview is the same record");
      await ok(client, "record_unknown", recordArgs({ question: "Fits?" }));
      assert.equal(casefile.ledger.size, 3);
      const full = await fails(client, "record_unknown", recordArgs({ question: "Too many?" }));
      assert.equal(full.code, "limit_exceeded");
      assert.equal(casefile.ledger.size, 3);
      const listed = (await ok(client, "list_unknowns")).result;
      assert.deepEqual(listed.items.map((i: Loose) => i.unknown.question), ["Fits?"]);
    } finally {
      await close();
    }
  },
});
