/**
 * The residual-unknowns registry as a domain module: identity and digests,
 * compare-and-swap, invariants, Evidence-qualified resolution, atomicity
 * against the ledger's caps, opt-in derived recording, and import merge.
 */

import assert from "node:assert/strict";
import { canonicalJson, sha256Hex } from "../src/core/canonical_json.ts";
import {
  type EvidenceDraft,
  EvidenceLedger,
  type EvidenceRecord,
  type EvidenceSubject,
} from "../src/core/evidence.ts";
import { createEvidence } from "../src/apps/evidence.ts";
import { ToolFailure } from "../src/core/errors.ts";
import {
  findDependencyCycle,
  mergeUnknownRevisions,
  MUTATION_LIMITATION,
  MUTATION_PREDICATE_TYPE,
  parseUnknownRecord,
  type RecordUnknownInput,
  revisionDigestOf,
  type UnknownRecord,
  UnknownRegistry,
  UnknownRegistryError,
  type UnknownRegistryErrorKind,
  type UnknownState,
  validateRegistryState,
} from "../src/apps/unknowns/registry.ts";

function subject(sha: string = "a".repeat(64)): EvidenceSubject {
  return {
    name: "prog",
    digest: { sha256: sha },
    format: "elf",
    architecture: "x86_64",
    local_path: "/tmp/prog",
  };
}

const SUBJECT = subject();
const OTHER_SUBJECT = subject("b".repeat(64));
const LINUX_ENV = {
  id: "linux-x86_64",
  platform: "linux",
  architecture: "x86_64",
  isolation: "process",
};

async function evidence(
  ledger: EvidenceLedger,
  overrides: Partial<EvidenceDraft> = {},
): Promise<EvidenceRecord> {
  const record = await createEvidence({
    subject: SUBJECT,
    provider: { id: "native", name: "Native", version: "1" },
    operation: "binary_overview",
    parameters: {},
    normalized_result: { note: crypto.randomUUID() },
    ...overrides,
  });
  await ledger.record(record);
  return record;
}

function input(overrides: Partial<RecordUnknownInput> = {}): RecordUnknownInput {
  return {
    question: "Does the parser accept nested archives?",
    domain: "parsing",
    severity: "medium",
    required_authority: null,
    required_confidence: "observed",
    required_environment: null,
    recommended_probes: [{ operation: "capture_process_scenario", rationale: "Run it once." }],
    relationships: [],
    ...overrides,
  };
}

function stateOf(head: UnknownRecord, overrides: Partial<UnknownState> = {}): UnknownState {
  return {
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

async function rejects(
  work: () => unknown,
  kind: UnknownRegistryErrorKind,
  message?: RegExp,
): Promise<UnknownRegistryError> {
  try {
    await work();
  } catch (error) {
    assert.ok(error instanceof UnknownRegistryError, `expected ${kind}, got ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    if (message) assert.match(error.message, message);
    return error;
  }
  throw new assert.AssertionError({ message: `expected UnknownRegistryError ${kind}` });
}

function fresh(limits?: ConstructorParameters<typeof EvidenceLedger>[0]): {
  ledger: EvidenceLedger;
  registry: UnknownRegistry;
} {
  const ledger = new EvidenceLedger(limits);
  return { ledger, registry: new UnknownRegistry(ledger) };
}

Deno.test("record() derives the id from domain, normalised question and the target's digest", async () => {
  const { registry } = fresh();
  const { head } = await registry.record(
    input({ question: "  Does the parser\taccept \n nested   archives? " }),
    { subject: SUBJECT },
  );
  assert.equal(head.question, "Does the parser accept nested archives?");
  assert.equal(head.scope_digest, SUBJECT.digest.sha256);
  const expected = "unk_" +
    sha256Hex(canonicalJson({
      domain: "parsing",
      question: "Does the parser accept nested archives?",
      scope_digest: SUBJECT.digest.sha256,
    }));
  assert.equal(head.unknown_id, expected);
  assert.equal(head.registry_version, 1);
  assert.equal(head.revision, 1);
  assert.equal(head.status, "open");
  assert.equal(head.resolution, null);

  // Same question, other whitespace: the same unknown.
  const again = await rejects(
    () =>
      registry.record(input({ question: "Does the parser accept nested archives?" }), {
        subject: SUBJECT,
      }),
    "already-exists",
  );
  assert.equal(again.currentRevision, 1);
  // Another target: another unknown.
  const other = await registry.record(input(), { subject: OTHER_SUBJECT });
  assert.notEqual(other.head.unknown_id, head.unknown_id);
  assert.equal(registry.size, 2);
});

Deno.test("record() writes one mutation Evidence record with the fields of the reference table", async () => {
  const { ledger, registry } = fresh();
  const support = await evidence(ledger);
  const contra = await evidence(ledger);
  const { head, evidence: mutation } = await registry.record(
    input({
      supporting_evidence_ids: [support.evidence_id, support.evidence_id],
      contradicting_evidence_ids: [contra.evidence_id],
      required_authority: "controlled-replay",
    }),
    { subject: SUBJECT },
  );
  assert.equal(head.status, "contradicted", "contradicting Evidence makes the initial status");
  assert.deepEqual(head.supporting_evidence_ids, [support.evidence_id], "deduplicated");
  assert.deepEqual(head.mutation_evidence_ids, [mutation.evidence_id]);
  assert.equal(ledger.get(mutation.evidence_id), mutation);
  assert.equal(mutation.provider.id, "rea-unknown-registry");
  assert.equal(mutation.provider.version, "1");
  assert.equal(mutation.predicate_type, MUTATION_PREDICATE_TYPE);
  assert.equal(mutation.operation, "record_unknown");
  assert.equal(mutation.confidence, "derived");
  assert.equal(mutation.authority, "analyst-inference");
  assert.deepEqual(mutation.subject?.digest, SUBJECT.digest);
  assert.deepEqual(mutation.limitations, [MUTATION_LIMITATION]);
  assert.deepEqual(mutation.parameters, { domain: "parsing", severity: "medium" });
  assert.deepEqual(mutation.normalized_result, {
    action: "record",
    question: head.question,
    required_authority: "controlled-replay",
    required_confidence: "observed",
  });
  assert.deepEqual(mutation.evidence_links, [support.evidence_id, contra.evidence_id]);
});

Deno.test("update() is compare-and-swap: a stale concurrent writer fails atomically and history stays [1, 2]", async () => {
  const { ledger, registry } = fresh();
  const { head } = await registry.record(input(), { subject: SUBJECT });
  const id = head.unknown_id;
  const [first, second] = await Promise.allSettled([
    registry.update({
      unknown_id: id,
      expected_revision: 1,
      ...stateOf(head, { status: "investigating" }),
    }, {
      subject: SUBJECT,
    }),
    registry.update({
      unknown_id: id,
      expected_revision: 1,
      ...stateOf(head, { status: "blocked" }),
    }, {
      subject: SUBJECT,
    }),
  ]);
  assert.equal(first.status, "fulfilled");
  assert.equal(second.status, "rejected");
  const error = (second as PromiseRejectedResult).reason;
  assert.ok(error instanceof UnknownRegistryError);
  assert.equal(error.kind, "revision-conflict");
  assert.equal(error.currentRevision, 2);
  assert.match(error.message, /revision 2/);
  assert.deepEqual(registry.history(id).map((r) => r.revision), [1, 2]);
  assert.equal(registry.get(id)?.status, "investigating");
  assert.equal(ledger.size, 4, "two mutation records and two revisions, nothing from the loser");

  const two = registry.get(id)!;
  assert.equal(two.previous_revision_digest, head.revision_digest);
  assert.equal(two.mutation_evidence_ids.length, 2);
  assert.deepEqual(two.mutation_evidence_ids, [...two.mutation_evidence_ids].sort());
  assert.ok(two.mutation_evidence_ids.includes(head.mutation_evidence_ids[0]!));
  // Immutable fields are carried over.
  assert.equal(two.question, head.question);
  assert.equal(two.scope_digest, head.scope_digest);
  const mutation = ledger.get(
    two.mutation_evidence_ids.find((m) => m !== head.mutation_evidence_ids[0])!,
  )!;
  assert.equal(mutation.operation, "update_unknown");
  assert.deepEqual(mutation.parameters, { unknown_id: id, expected_revision: 1 });
  assert.deepEqual(mutation.normalized_result, { action: "update", status: "investigating" });

  await rejects(
    () =>
      registry.update({
        unknown_id: "unk_" + "0".repeat(64),
        expected_revision: 1,
        ...stateOf(head),
      }, {
        subject: SUBJECT,
      }),
    "not-found",
  );
});

Deno.test("revision digests recompute, and previous_revision_digest is null exactly for revision 1", async () => {
  const { registry } = fresh();
  const { head } = await registry.record(input(), { subject: SUBJECT });
  assert.equal(head.previous_revision_digest, null);
  const { revision_digest, ...rest } = head;
  assert.equal(revision_digest, sha256Hex(canonicalJson(rest)));
  assert.equal(revisionDigestOf(head), head.revision_digest);
  const { head: two } = await registry.update(
    { unknown_id: head.unknown_id, expected_revision: 1, ...stateOf(head, { severity: "high" }) },
    { subject: SUBJECT },
  );
  assert.match(two.previous_revision_digest ?? "", /^[0-9a-f]{64}$/);
  assert.equal(revisionDigestOf(two), two.revision_digest);
  assert.deepEqual(parseUnknownRecord(structuredClone(two)), two);

  // Tampering is caught.
  await rejects(
    () => parseUnknownRecord({ ...two, severity: "low" }),
    "integrity",
    /revision_digest/,
  );
  await rejects(
    () => parseUnknownRecord({ ...head, question: "Other?" }),
    "integrity",
    /domain, question/,
  );
  const linked = { ...head, previous_revision_digest: "c".repeat(64) };
  await rejects(
    () => parseUnknownRecord({ ...linked, revision_digest: revisionDigestOf(linked) }),
    "integrity",
    /null exactly for revision 1/,
  );
  const orphan = { ...two, previous_revision_digest: null };
  await rejects(
    () => parseUnknownRecord({ ...orphan, revision_digest: revisionDigestOf(orphan) }),
    "integrity",
    /null exactly for revision 1/,
  );
});

Deno.test("status invariants: resolved iff a resolution, contradicted needs contradicting Evidence, no overlap", async () => {
  const { ledger, registry } = fresh();
  const support = await evidence(ledger);
  const { head } = await registry.record(
    input({ supporting_evidence_ids: [support.evidence_id] }),
    {
      subject: SUBJECT,
    },
  );
  const update = (overrides: Partial<UnknownState>) =>
    registry.update({
      unknown_id: head.unknown_id,
      expected_revision: 1,
      ...stateOf(head, overrides),
    }, {
      subject: SUBJECT,
    });
  const before = ledger.size;
  await rejects(() => update({ status: "resolved" }), "invalid-transition", /without a resolution/);
  await rejects(
    () =>
      update({
        resolution: { disposition: "withdrawn", rationale: "Not needed.", evidence_ids: [] },
      }),
    "invalid-transition",
    /requires status resolved/,
  );
  await rejects(() => update({ status: "contradicted" }), "invalid-transition", /contradicting/);
  await rejects(
    () => update({ contradicting_evidence_ids: [support.evidence_id] }),
    "invalid-transition",
    /both supporting and contradicting/,
  );
  await rejects(
    () => update({ resolution: null, status: "resolved", severity: "urgent" as never }),
    "invalid-transition",
  );
  assert.equal(ledger.size, before, "failed updates write nothing");
  assert.equal(registry.get(head.unknown_id)?.revision, 1);
});

Deno.test("references: unknown Evidence ids, missing heads, self-links and depends-on cycles are rejected", async () => {
  const { ledger, registry } = fresh();
  const missingEvidence = "ev_" + "e".repeat(64);
  await rejects(
    () =>
      registry.record(input({ supporting_evidence_ids: [missingEvidence] }), { subject: SUBJECT }),
    "integrity",
    /does not hold/,
  );
  const missingHead = "unk_" + "f".repeat(64);
  await rejects(
    () =>
      registry.record(input({ relationships: [{ type: "related-to", unknown_id: missingHead }] }), {
        subject: SUBJECT,
      }),
    "integrity",
    /not a current head/,
  );
  assert.equal(registry.size, 0);
  assert.equal(ledger.size, 0);

  const a = (await registry.record(input({ question: "A?" }), { subject: SUBJECT })).head;
  const b = (await registry.record(
    input({ question: "B?", relationships: [{ type: "depends-on", unknown_id: a.unknown_id }] }),
    { subject: SUBJECT },
  )).head;
  const c = (await registry.record(
    input({ question: "C?", relationships: [{ type: "depends-on", unknown_id: b.unknown_id }] }),
    { subject: SUBJECT },
  )).head;
  const cycle = await rejects(
    () =>
      registry.update({
        unknown_id: a.unknown_id,
        expected_revision: 1,
        ...stateOf(a, { relationships: [{ type: "depends-on", unknown_id: c.unknown_id }] }),
      }, { subject: SUBJECT }),
    "integrity",
    /cycle/,
  );
  assert.ok(cycle.message.includes(a.unknown_id) && cycle.message.includes(c.unknown_id));
  assert.equal(registry.get(a.unknown_id)?.revision, 1);
  // related-to may close a loop: only depends-on must be acyclic.
  await registry.update({
    unknown_id: a.unknown_id,
    expected_revision: 1,
    ...stateOf(a, { relationships: [{ type: "related-to", unknown_id: c.unknown_id }] }),
  }, { subject: SUBJECT });
  await rejects(
    () =>
      registry.update({
        unknown_id: b.unknown_id,
        expected_revision: 1,
        ...stateOf(b, { relationships: [{ type: "contradicts", unknown_id: b.unknown_id }] }),
      }, { subject: SUBJECT }),
    "integrity",
    /itself/,
  );
  // Relationships are stored unique and sorted by type:unknown_id.
  const { head: c2 } = await registry.update({
    unknown_id: c.unknown_id,
    expected_revision: 1,
    ...stateOf(c, {
      relationships: [
        { type: "related-to", unknown_id: a.unknown_id },
        { type: "depends-on", unknown_id: b.unknown_id },
        { type: "related-to", unknown_id: a.unknown_id },
      ],
    }),
  }, { subject: SUBJECT });
  assert.deepEqual(c2.relationships.map((r) => r.type), ["depends-on", "related-to"]);
});

Deno.test("findDependencyCycle() names the cycle and ignores other relationship types", () => {
  const head = (id: string, deps: string[], type = "depends-on") =>
    ({ unknown_id: id, relationships: deps.map((d) => ({ type, unknown_id: d })) }) as never;
  const acyclic = new Map([["x", head("x", ["y"])], ["y", head("y", ["z"])], ["z", head("z", [])]]);
  assert.equal(findDependencyCycle(acyclic), null);
  const cyclic = new Map([...acyclic, ["z", head("z", ["x"])]]);
  assert.deepEqual(findDependencyCycle(cyclic, ["y"]), ["y", "z", "x", "y"]);
  const related = new Map([...acyclic, ["z", head("z", ["x"], "related-to")]]);
  assert.equal(findDependencyCycle(related), null);
});

Deno.test("a verified resolution needs qualifying Evidence: inferred against observed is rejected, matching observed is accepted", async () => {
  const { ledger, registry } = fresh();
  const inferred = await evidence(ledger, {
    confidence: "inferred",
    authority: "controlled-replay",
    environment: LINUX_ENV,
  });
  const { head } = await registry.record(
    input({
      supporting_evidence_ids: [inferred.evidence_id],
      required_authority: "controlled-replay",
      required_confidence: "observed",
      required_environment: {
        id: null,
        platform: "linux",
        architecture: "x86_64",
        isolation: null,
      },
    }),
    { subject: SUBJECT },
  );
  const id = head.unknown_id;
  const resolve = (supporting: string[], resolutionIds: string[], expected = 1) =>
    registry.update({
      unknown_id: id,
      expected_revision: expected,
      ...stateOf(head, {
        status: "resolved",
        supporting_evidence_ids: supporting,
        resolution: {
          disposition: "verified",
          rationale: " Observed it. ",
          evidence_ids: resolutionIds,
        },
      }),
    }, { subject: SUBJECT });
  await rejects(
    () => resolve([inferred.evidence_id], [inferred.evidence_id]),
    "invalid-transition",
    /confidence inferred/,
  );
  assert.equal(registry.get(id)?.revision, 1, "the revision stays 1");

  const wrongEnv = await evidence(ledger, {
    authority: "controlled-replay",
    environment: { ...LINUX_ENV, architecture: "arm64" },
  });
  await rejects(
    () => resolve([wrongEnv.evidence_id], [wrongEnv.evidence_id]),
    "invalid-transition",
    /architecture/,
  );
  const noEnv = await evidence(ledger, { authority: "controlled-replay" });
  await rejects(
    () => resolve([noEnv.evidence_id], [noEnv.evidence_id]),
    "invalid-transition",
    /no environment/,
  );
  const shipped = await evidence(ledger, { environment: LINUX_ENV });
  await rejects(
    () => resolve([shipped.evidence_id], [shipped.evidence_id]),
    "invalid-transition",
    /authority/,
  );

  const observed = await evidence(ledger, {
    authority: "controlled-replay",
    environment: LINUX_ENV,
  });
  await rejects(
    () => resolve([inferred.evidence_id], [observed.evidence_id]),
    "invalid-transition",
    /not among supporting/,
  );
  const mutationId = head.mutation_evidence_ids[0]!;
  await rejects(
    () => resolve([mutationId], [mutationId]),
    "invalid-transition",
    /mutation Evidence/,
  );
  assert.equal(registry.get(id)?.revision, 1);

  const { head: resolved } = await resolve(
    [inferred.evidence_id, observed.evidence_id],
    [observed.evidence_id, inferred.evidence_id],
  );
  assert.equal(resolved.revision, 2);
  assert.equal(resolved.resolution?.rationale, "Observed it.");
  assert.deepEqual(registry.verify(id), { valid: true, truthVerified: true, unknown: resolved });

  // Contradicting Evidence blocks a verified resolution.
  const contra = await evidence(ledger);
  await rejects(
    () =>
      registry.update({
        unknown_id: id,
        expected_revision: 2,
        ...stateOf(resolved, { contradicting_evidence_ids: [contra.evidence_id] }),
      }, { subject: SUBJECT }),
    "invalid-transition",
    /contradicting_evidence_ids is not empty/,
  );
});

Deno.test("a resolved unknown can be reopened; withdrawn is valid but not a truth claim", async () => {
  const { registry } = fresh();
  const { head } = await registry.record(input(), { subject: SUBJECT });
  const { head: withdrawn } = await registry.update({
    unknown_id: head.unknown_id,
    expected_revision: 1,
    ...stateOf(head, {
      status: "resolved",
      resolution: { disposition: "withdrawn", rationale: "Duplicate question.", evidence_ids: [] },
    }),
  }, { subject: SUBJECT });
  assert.deepEqual(registry.verify(head.unknown_id), {
    valid: true,
    truthVerified: false,
    unknown: withdrawn,
  });
  const { head: reopened } = await registry.update({
    unknown_id: head.unknown_id,
    expected_revision: 2,
    ...stateOf(withdrawn, { status: "open", resolution: null }),
  }, { subject: SUBJECT });
  assert.equal(reopened.revision, 3);
  assert.equal(registry.verify(head.unknown_id).valid, false);
  await rejects(() => registry.verify("unk_" + "0".repeat(64)), "not-found");
});

Deno.test("Evidence from a cleared (closed) session cannot resolve an unknown", async () => {
  const { ledger, registry } = fresh();
  const observed = await evidence(ledger);
  ledger.clear();
  registry.clear();
  const { head } = await registry.record(input(), { subject: SUBJECT });
  await rejects(
    () =>
      registry.update({
        unknown_id: head.unknown_id,
        expected_revision: 1,
        ...stateOf(head, {
          status: "resolved",
          supporting_evidence_ids: [observed.evidence_id],
          resolution: {
            disposition: "verified",
            rationale: "Seen.",
            evidence_ids: [observed.evidence_id],
          },
        }),
      }, { subject: SUBJECT }),
    "integrity",
    /closed session/,
  );
  assert.equal(registry.get(head.unknown_id)?.revision, 1);
});

Deno.test("a full ledger refuses a registry write and neither the ledger nor the registry changes", async () => {
  // Measure what one record needs in an unbounded ledger.
  const probe = fresh();
  await probe.registry.record(input(), { subject: SUBJECT });
  const needed = { records: probe.ledger.size, bytes: probe.ledger.bytes };
  assert.equal(needed.records, 2, "one mutation Evidence record and one revision");

  for (const limits of [{ maxRecords: 1 }, { maxBytes: needed.bytes - 1 }]) {
    const { ledger, registry } = fresh(limits);
    await assert.rejects(
      () => registry.record(input(), { subject: SUBJECT }),
      (error: unknown) => error instanceof ToolFailure && error.code === "limit_exceeded",
    );
    assert.equal(registry.size, 0);
    assert.equal(ledger.size, 0);
    assert.equal(ledger.bytes, 0);
  }
  // Exactly enough room: the precheck counts what the ledger counts.
  const exact = fresh({ maxRecords: needed.records, maxBytes: needed.bytes });
  await exact.registry.record(input(), { subject: SUBJECT });
  assert.equal(exact.ledger.bytes, needed.bytes);

  // An update at the cap changes nothing either.
  const { ledger, registry } = fresh({ maxRecords: 3 });
  const { head } = await registry.record(input(), { subject: SUBJECT });
  await assert.rejects(
    () =>
      registry.update({
        unknown_id: head.unknown_id,
        expected_revision: 1,
        ...stateOf(head, { status: "blocked" }),
      }, {
        subject: SUBJECT,
      }),
    (error: unknown) => error instanceof ToolFailure && error.code === "limit_exceeded",
  );
  assert.deepEqual(registry.history(head.unknown_id), [head]);
  assert.equal(ledger.size, 2);
});

Deno.test("recordDerived() records with a null scope, tolerates already-exists and commits derived Evidence atomically", async () => {
  const { ledger, registry } = fresh();
  const derived = await createEvidence({
    subject: null,
    provider: { id: "casefile-call-path", name: "Call path", version: "1" },
    operation: "build_call_path",
    confidence: "derived",
    parameters: {},
    normalized_result: { complete: false },
  });
  const entry = input({
    question: "Is the call path from main to leaf complete?",
    domain: "call-path",
    severity: "high",
    supporting_evidence_ids: [derived.evidence_id],
    required_confidence: "derived",
  });
  const [first, repeat] = await registry.recordDerived([entry, entry], { derived: [derived] });
  assert.equal(first?.status, "recorded");
  assert.equal(repeat?.status, "already-exists");
  assert.equal(first?.head.scope_digest, null);
  assert.equal(ledger.get(derived.evidence_id)?.evidence_id, derived.evidence_id);
  const mutation = ledger.get(first!.head.mutation_evidence_ids[0]!)!;
  assert.equal(mutation.subject, null);
  assert.equal(mutation.operation, "record_unknown");
  const [again] = await registry.recordDerived([entry]);
  assert.equal(again?.status, "already-exists");
  assert.equal(registry.history(first!.unknown_id).length, 1);

  // A failing entry writes nothing, not even the derived record.
  const other = await createEvidence(
    { ...derived, normalized_result: { complete: "no" } } as never,
  );
  const sizeBefore = ledger.size;
  await rejects(
    () =>
      registry.recordDerived([
        input({ question: "New?", supporting_evidence_ids: [other.evidence_id] }),
        input({ question: "Bad?", supporting_evidence_ids: ["ev_" + "9".repeat(64)] }),
      ], { derived: [other] }),
    "integrity",
  );
  assert.equal(ledger.size, sizeBefore);
  assert.equal(ledger.get(other.evidence_id), undefined);
  assert.equal(registry.size, 1);
});

Deno.test("heads(), revisions(), history(), onChange() and clear()", async () => {
  const { registry } = fresh();
  const changes: string[][] = [];
  registry.onChange((ids) => changes.push([...ids]));
  const a = (await registry.record(input({ question: "A?" }), { subject: SUBJECT })).head;
  const b = (await registry.record(input({ question: "B?" }), { subject: SUBJECT })).head;
  const a2 =
    (await registry.update({ unknown_id: a.unknown_id, expected_revision: 1, ...stateOf(a) }, {
      subject: SUBJECT,
    })).head;
  const sorted = [a2, b].sort((x, y) => x.unknown_id < y.unknown_id ? -1 : 1);
  assert.deepEqual(registry.heads(), sorted);
  assert.deepEqual(
    registry.revisions().map((r) => [r.unknown_id, r.revision]),
    [a, a2, b].sort((x, y) =>
      x.unknown_id < y.unknown_id ? -1 : x.unknown_id > y.unknown_id ? 1 : x.revision - y.revision
    )
      .map((r) => [r.unknown_id, r.revision]),
  );
  assert.deepEqual(registry.history(a.unknown_id), [a, a2]);
  assert.deepEqual(changes, [[a.unknown_id], [b.unknown_id], [a.unknown_id]]);
  registry.clear();
  assert.equal(registry.size, 0);
  assert.deepEqual(registry.heads(), []);
  assert.deepEqual(changes.at(-1), [a.unknown_id, b.unknown_id].sort());
});

/** Two sessions that recorded the same question, then diverged, plus an independent one. */
async function histories(): Promise<{
  left: { ledger: EvidenceLedger; registry: UnknownRegistry };
  right: { ledger: EvidenceLedger; registry: UnknownRegistry };
  lookup: { get(id: string): EvidenceRecord | undefined };
}> {
  const left = fresh();
  const right = fresh();
  const shared = input({ question: "Shared?" });
  const l1 = (await left.registry.record(shared, { subject: SUBJECT })).head;
  const r1 = (await right.registry.record(shared, { subject: SUBJECT })).head;
  assert.deepEqual(l1, r1, "the same write in two sessions gives the same revision");
  await left.registry.record(input({ question: "Only left?" }), { subject: SUBJECT });
  await right.registry.record(input({ question: "Only right?" }), { subject: SUBJECT });
  const lookup = { get: (id: string) => left.ledger.get(id) ?? right.ledger.get(id) };
  return { left, right, lookup };
}

Deno.test("mergeUnknownRevisions(): identical revisions are a no-op and independent histories commute", async () => {
  const { left, right, lookup } = await histories();
  const leftRevisions = left.registry.revisions();
  const rightRevisions = right.registry.revisions();
  const same = mergeUnknownRevisions(leftRevisions, leftRevisions);
  assert.deepEqual(same.added, []);
  assert.equal(same.unchanged, leftRevisions.length);
  assert.deepEqual(same.revisions, leftRevisions);

  const lr = mergeUnknownRevisions(leftRevisions, rightRevisions);
  const rl = mergeUnknownRevisions(rightRevisions, leftRevisions);
  assert.deepEqual(lr.revisions, rl.revisions);
  assert.equal(lr.revisions.length, 3);
  assert.equal(lr.unchanged, 1, "the shared revision 1");
  validateRegistryState(lr.revisions, lookup);

  // Through the registry: committed, reserved and notified.
  const changed: string[] = [];
  left.registry.onChange((ids) => changed.push(...ids));
  const before = left.ledger.size;
  const outcome = left.registry.importRevisions(rightRevisions, { evidence: lookup });
  assert.equal(outcome.added.length, 1);
  assert.equal(outcome.unchanged, 1);
  assert.deepEqual(outcome.changed, changed);
  assert.equal(left.ledger.size, before + 1, "the new revision counts against the ledger");
  assert.deepEqual(left.registry.revisions(), lr.revisions);
  // Importing it again changes nothing.
  assert.deepEqual(left.registry.importRevisions(rightRevisions, { evidence: lookup }).added, []);
});

Deno.test("mergeUnknownRevisions(): a conflicting digest or divergent heads reject the whole import", async () => {
  const { left, right, lookup } = await histories();
  const sharedId = left.registry.heads().find((h) => h.question === "Shared?")!.unknown_id;
  const l1 = left.registry.get(sharedId)!;
  await left.registry.update({
    unknown_id: sharedId,
    expected_revision: 1,
    ...stateOf(l1, { status: "investigating" }),
  }, {
    subject: SUBJECT,
  });
  await right.registry.update({
    unknown_id: sharedId,
    expected_revision: 1,
    ...stateOf(l1, { status: "blocked" }),
  }, {
    subject: SUBJECT,
  });
  const before = left.registry.revisions();
  const sizeBefore = left.ledger.size;
  // Divergent heads: two different revision-2s.
  const divergent = await rejects(
    () => left.registry.importRevisions(right.registry.revisions(), { evidence: lookup }),
    "revision-conflict",
    /divergent/,
  );
  assert.equal(divergent.currentRevision, 2);
  assert.deepEqual(
    left.registry.revisions(),
    before,
    "nothing imported, not even the independent unknown",
  );
  assert.equal(left.ledger.size, sizeBefore);

  // A conflicting digest for revision 1 (validly sealed, other content) is rejected too.
  const forged = { ...l1, severity: "critical" as const };
  const resealed = { ...forged, revision_digest: revisionDigestOf(forged) };
  await rejects(() => mergeUnknownRevisions(before, [resealed]), "revision-conflict");
  // A tampered record is an integrity failure.
  await rejects(
    () => mergeUnknownRevisions(before, [{ ...l1, severity: "critical" }]),
    "integrity",
  );
  // A history with a gap is rejected.
  const right2 = right.registry.history(sharedId)[1]!;
  await rejects(() => mergeUnknownRevisions([], [right2]), "integrity", /gap/);
});
