/**
 * The residual-unknowns registry (`registry_version: 1`): the questions an
 * investigation has not settled, kept as hash-linked revisions. Every write is
 * a compare-and-swap on the head's revision and is committed atomically with
 * one mutation Evidence record in the session ledger; a resolution that claims
 * truth must cite qualifying, uncontradicted Evidence.
 *
 * Domain code only: the MCP tools in `../unknown_tools.ts` translate.
 *
 * @module
 */

import { z } from "zod";
import { canonicalJson, type JsonObject, sha256Hex } from "../../core/canonical_json.ts";
import {
  computeEvidenceId,
  createEvidence,
  EVIDENCE_ID_PATTERN,
  type EvidenceLedger,
  type EvidenceRecord,
  type EvidenceSubject,
  type ProviderIdentity,
} from "../../core/evidence.ts";
import { ToolFailure } from "../../core/errors.ts";
import { RECORD_UNKNOWN, UPDATE_UNKNOWN } from "../tool_names.ts";
import { pushTo } from "../../core/multimap.ts";

/** The registry format version every record carries. */
export const REGISTRY_VERSION = 1;
/** The pattern of an unknown id: `unk_` + 64 lowercase hex. */
export const UNKNOWN_ID_PATTERN: RegExp = /^unk_[0-9a-f]{64}$/;
/** The predicate type of mutation Evidence. */
export const MUTATION_PREDICATE_TYPE = "rea.residual-unknown-mutation/v1";
/** Who records mutation Evidence. */
export const REGISTRY_PROVIDER: ProviderIdentity = {
  id: "rea-unknown-registry",
  name: "Residual-unknown registry",
  version: "1",
};
/** The fixed limitation of every mutation Evidence record. */
export const MUTATION_LIMITATION =
  "Records an analyst's statement about a residual unknown (intent and bookkeeping), not proof of any behaviour of the target.";

/** Most Evidence ids in each list of a record. */
export const MAX_EVIDENCE_IDS = 100;
/** Most recommended probes. */
export const MAX_PROBES = 20;
/** Most relationships. */
export const MAX_RELATIONSHIPS = 100;
/** Longest question, after trimming and collapsing whitespace. */
export const MAX_QUESTION_LENGTH = 1000;
/** Longest domain, after trimming. */
export const MAX_DOMAIN_LENGTH = 100;
/** Longest resolution rationale (the reference leaves it unbounded; this registry caps it). */
export const MAX_RATIONALE_LENGTH = 1000;

/** The resource URI of an unknown. */
export function unknownUri(unknownId: string): string {
  return `rea://unknown/${unknownId}`;
}

const HEX64 = /^[0-9a-f]{64}$/;
const isTrimmed = (text: string): boolean => text === text.trim();

/** Statuses; transitions between them are unrestricted. */
export const unknownStatusSchema = z.enum([
  "open",
  "investigating",
  "blocked",
  "contradicted",
  "resolved",
]);
/** Severities. */
export const unknownSeveritySchema = z.enum(["low", "medium", "high", "critical"]);
/** The five Evidence authorities. */
export const authoritySchema = z.enum([
  "shipped-artifact",
  "controlled-replay",
  "historical-reference",
  "external-service",
  "analyst-inference",
]);
/** The three Evidence confidences. */
export const confidenceSchema = z.enum(["observed", "derived", "inferred"]);
/** An Evidence id. */
export const evidenceIdSchema = z.string().regex(
  EVIDENCE_ID_PATTERN,
  "an Evidence id is ev_ + 64 hex",
);
/** An unknown id. */
export const unknownIdSchema = z.string().regex(
  UNKNOWN_ID_PATTERN,
  "an unknown id is unk_ + 64 hex",
);
/** Where qualifying Evidence must have been observed; null fields are unconstrained. */
export const requiredEnvironmentSchema = z.strictObject({
  id: z.string().max(200).nullable(),
  platform: z.string().max(100).nullable(),
  architecture: z.string().max(100).nullable(),
  isolation: z.enum(["none", "process", "container", "virtual-machine"]).nullable(),
});
/** A probe that would help settle the question. */
export const probeSchema = z.strictObject({
  operation: z.string().min(1).max(200),
  rationale: z.string().min(1).max(1000),
});
/** A link to another unknown's head. */
export const relationshipSchema = z.strictObject({
  type: z.enum(["depends-on", "related-to", "contradicts"]),
  unknown_id: unknownIdSchema,
});
const resolutionWith = (rationale: z.ZodType<string>) =>
  z.union([
    z.strictObject({
      disposition: z.literal("verified"),
      rationale,
      evidence_ids: z.array(evidenceIdSchema).min(1).max(MAX_EVIDENCE_IDS),
    }),
    z.strictObject({
      disposition: z.enum(["withdrawn", "out-of-scope"]),
      rationale,
      evidence_ids: z.array(evidenceIdSchema).max(MAX_EVIDENCE_IDS),
    }),
  ]);
/** A stored resolution: `verified` is a truth claim; `withdrawn` and `out-of-scope` are not. */
export const resolutionSchema = resolutionWith(
  z.string().min(1).max(MAX_RATIONALE_LENGTH).refine(isTrimmed, {
    message: "the rationale must be trimmed",
  }),
);
/** A resolution as callers give it: the rationale is trimmed before it is checked. */
export const resolutionInputSchema = resolutionWith(z.string().max(4 * MAX_RATIONALE_LENGTH));

/** One stored revision. */
export const unknownRecordSchema = z.strictObject({
  registry_version: z.literal(REGISTRY_VERSION),
  unknown_id: unknownIdSchema,
  revision: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  previous_revision_digest: z.string().regex(HEX64).nullable(),
  revision_digest: z.string().regex(HEX64),
  scope_digest: z.string().regex(HEX64).nullable(),
  question: z.string().min(1).max(MAX_QUESTION_LENGTH).refine(isTrimmed, {
    message: "the question must be trimmed",
  }),
  status: unknownStatusSchema,
  severity: unknownSeveritySchema,
  domain: z.string().min(1).max(MAX_DOMAIN_LENGTH).refine(isTrimmed, {
    message: "the domain must be trimmed",
  }),
  supporting_evidence_ids: z.array(evidenceIdSchema).max(MAX_EVIDENCE_IDS),
  contradicting_evidence_ids: z.array(evidenceIdSchema).max(MAX_EVIDENCE_IDS),
  required_authority: authoritySchema.nullable(),
  required_confidence: confidenceSchema,
  required_environment: requiredEnvironmentSchema.nullable(),
  recommended_probes: z.array(probeSchema).max(MAX_PROBES),
  relationships: z.array(relationshipSchema).max(MAX_RELATIONSHIPS),
  resolution: resolutionSchema.nullable(),
  mutation_evidence_ids: z.array(evidenceIdSchema).min(1).max(MAX_EVIDENCE_IDS),
});

/** A status. */
export type UnknownStatus = z.infer<typeof unknownStatusSchema>;
/** A severity. */
export type UnknownSeverity = z.infer<typeof unknownSeveritySchema>;
/** An Evidence authority. */
export type Authority = z.infer<typeof authoritySchema>;
/** An Evidence confidence. */
export type Confidence = z.infer<typeof confidenceSchema>;
/** An environment requirement. */
export type RequiredEnvironment = z.infer<typeof requiredEnvironmentSchema>;
/** A recommended probe. */
export type RecommendedProbe = z.infer<typeof probeSchema>;
/** A relationship. */
export type UnknownRelationship = z.infer<typeof relationshipSchema>;
/** A resolution. */
export type UnknownResolution = z.infer<typeof resolutionSchema>;
/** One stored revision of an unknown. */
export type UnknownRecord = z.infer<typeof unknownRecordSchema>;

/** What a caller supplies to record a new unknown; the rest is derived. */
export interface RecordUnknownInput {
  /** Trimmed, with whitespace runs collapsed; 1 to 1000 characters after that. */
  question: string;
  /** Trimmed; 1 to 100 characters. */
  domain: string;
  severity: UnknownSeverity;
  /** @default [] */
  supporting_evidence_ids?: readonly string[];
  /** @default [] */
  contradicting_evidence_ids?: readonly string[];
  required_authority: Authority | null;
  required_confidence: Confidence;
  required_environment: RequiredEnvironment | null;
  recommended_probes: readonly RecommendedProbe[];
  relationships: readonly UnknownRelationship[];
}

/** The full mutable state an update replaces. */
export interface UnknownState {
  status: UnknownStatus;
  severity: UnknownSeverity;
  supporting_evidence_ids: readonly string[];
  contradicting_evidence_ids: readonly string[];
  required_authority: Authority | null;
  required_confidence: Confidence;
  required_environment: RequiredEnvironment | null;
  recommended_probes: readonly RecommendedProbe[];
  relationships: readonly UnknownRelationship[];
  resolution: UnknownResolution | null;
}

/** A compare-and-swap update: the head's expected revision and its full new state. */
export interface UpdateUnknownInput extends UnknownState {
  unknown_id: string;
  expected_revision: number;
}

/** Why the registry refused an operation. */
export type UnknownRegistryErrorKind =
  | "already-exists"
  | "not-found"
  | "revision-conflict"
  | "invalid-transition"
  | "integrity";

/** A refused registry operation; nothing was written. */
export class UnknownRegistryError extends Error {
  /** Why. */
  readonly kind: UnknownRegistryErrorKind;
  /** The unknown concerned, when there is one. */
  readonly unknownId: string | null;
  /** The head's revision when it exists (set for already-exists and revision-conflict). */
  readonly currentRevision: number | null;

  /** Creates an error; the message says what was wrong. */
  constructor(
    kind: UnknownRegistryErrorKind,
    message: string,
    options: { unknownId?: string | null; currentRevision?: number | null } = {},
  ) {
    super(message);
    this.name = "UnknownRegistryError";
    this.kind = kind;
    this.unknownId = options.unknownId ?? null;
    this.currentRevision = options.currentRevision ?? null;
  }
}

/** Read access to Evidence records by id (a ledger, or a staged copy of one). */
export interface EvidenceLookup {
  get(id: string): EvidenceRecord | undefined;
}

/** The result of a record or update: the new head and its mutation Evidence. */
export interface UnknownMutation {
  head: UnknownRecord;
  evidence: EvidenceRecord;
}

/** One entry of {@linkcode UnknownRegistry.recordDerived}. */
export interface DerivedRecording {
  unknown_id: string;
  /** `already-exists` leaves the existing head untouched. */
  status: "recorded" | "already-exists";
  head: UnknownRecord;
}

/** What {@linkcode UnknownRegistry.verify} reports. */
export interface UnknownVerification {
  /** `status === "resolved"`. */
  valid: boolean;
  /** The resolution's disposition is `verified` (a truth claim backed by qualifying Evidence). */
  truthVerified: boolean;
  unknown: UnknownRecord;
}

/** What an import committed. */
export interface UnknownImportOutcome {
  /** Revisions that were new. */
  added: UnknownRecord[];
  /** Revisions already present with the same digest. */
  unchanged: number;
  /** Ids whose head moved (new unknowns included), sorted. */
  changed: string[];
}

/** The result of {@linkcode mergeUnknownRevisions}. */
export interface UnknownMerge {
  /** Every revision, sorted by `(unknown_id, revision)`. */
  revisions: UnknownRecord[];
  /** Incoming revisions not in the base, sorted the same way. */
  added: UnknownRecord[];
  /** Incoming revisions identical to one in the base (or repeated in the import). */
  unchanged: number;
}

// ---------------------------------------------------------------------------
// Identity, digests, canonical forms

/** Trims a question and collapses every whitespace run to one space. */
export function normalizeQuestion(question: string): string {
  return question.trim().replace(/\s+/g, " ");
}

/** `unk_` + SHA-256 of the JCS of `{domain, question, scope_digest}` (values as stored). */
export function unknownIdFor(domain: string, question: string, scopeDigest: string | null): string {
  return `unk_${sha256Hex(canonicalJson({ domain, question, scope_digest: scopeDigest }))}`;
}

/** SHA-256 of the JCS of every field but `revision_digest`. */
export function revisionDigestOf(record: Omit<UnknownRecord, "revision_digest">): string {
  const { revision_digest: _ignored, ...rest } = record as UnknownRecord;
  return sha256Hex(canonicalJson(rest));
}

const compareUnits = (a: string, b: string): number => a < b ? -1 : a > b ? 1 : 0;

function sortedUnique(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort(compareUnits);
}

const relationshipKey = (r: UnknownRelationship): string => `${r.type}:${r.unknown_id}`;

function canonicalRelationships(
  relationships: readonly UnknownRelationship[],
): UnknownRelationship[] {
  const byKey = new Map<string, UnknownRelationship>();
  for (const r of relationships) {
    byKey.set(relationshipKey(r), { type: r.type, unknown_id: r.unknown_id });
  }
  return [...byKey.entries()].sort(([a], [b]) => compareUnits(a, b)).map(([, r]) => r);
}

function copyEnvironment(env: RequiredEnvironment | null): RequiredEnvironment | null {
  return env === null ? null : {
    id: env.id,
    platform: env.platform,
    architecture: env.architecture,
    isolation: env.isolation,
  };
}

function canonicalResolution(resolution: UnknownResolution | null): UnknownResolution | null {
  if (resolution === null) return null;
  return {
    disposition: resolution.disposition,
    rationale: resolution.rationale.trim(),
    evidence_ids: sortedUnique(resolution.evidence_ids),
  } as UnknownResolution;
}

/** Canonical mutable state: lists sorted and deduplicated, relationships sorted by `type:unknown_id`. */
function canonicalState(state: UnknownState): UnknownState {
  return {
    status: state.status,
    severity: state.severity,
    supporting_evidence_ids: sortedUnique(state.supporting_evidence_ids),
    contradicting_evidence_ids: sortedUnique(state.contradicting_evidence_ids),
    required_authority: state.required_authority,
    required_confidence: state.required_confidence,
    required_environment: copyEnvironment(state.required_environment),
    recommended_probes: state.recommended_probes.map((p) => ({
      operation: p.operation,
      rationale: p.rationale,
    })),
    relationships: canonicalRelationships(state.relationships),
    resolution: canonicalResolution(state.resolution),
  };
}

interface Identity {
  unknown_id: string;
  scope_digest: string | null;
  question: string;
  domain: string;
}

/** Assembles a revision in field order and seals it with its digest. */
function seal(
  identity: Identity,
  revision: number,
  previousDigest: string | null,
  state: UnknownState,
  mutationIds: readonly string[],
): UnknownRecord {
  const body = {
    registry_version: REGISTRY_VERSION,
    unknown_id: identity.unknown_id,
    revision,
    previous_revision_digest: previousDigest,
    scope_digest: identity.scope_digest,
    question: identity.question,
    status: state.status,
    severity: state.severity,
    domain: identity.domain,
    supporting_evidence_ids: [...state.supporting_evidence_ids],
    contradicting_evidence_ids: [...state.contradicting_evidence_ids],
    required_authority: state.required_authority,
    required_confidence: state.required_confidence,
    required_environment: state.required_environment,
    recommended_probes: [...state.recommended_probes],
    relationships: [...state.relationships],
    resolution: state.resolution,
    mutation_evidence_ids: sortedUnique(mutationIds),
  } as Omit<UnknownRecord, "revision_digest">;
  const digest = revisionDigestOf(body);
  const { registry_version, unknown_id, revision: rev, previous_revision_digest, ...rest } = body;
  return deepFreeze({
    registry_version,
    unknown_id,
    revision: rev,
    previous_revision_digest,
    revision_digest: digest,
    ...rest,
  } as UnknownRecord);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

// ---------------------------------------------------------------------------
// Validation

function schemaFailure(error: z.ZodError, unknownId: string | null): UnknownRegistryError {
  return new UnknownRegistryError(
    "invalid-transition",
    `The unknown is not a valid registry record: ${z.prettifyError(error).replaceAll("\n", "; ")}`,
    { unknownId },
  );
}

/**
 * Checks the invariants one revision must satisfy on its own (§6.5): resolved
 * iff a resolution, contradicted only with contradicting Evidence, unique
 * sorted lists, no id both supporting and contradicting, no self-relationship.
 * Throws {@linkcode UnknownRegistryError}.
 */
export function checkRevisionInvariants(record: UnknownRecord): void {
  const id = record.unknown_id;
  const invalid = (message: string): UnknownRegistryError =>
    new UnknownRegistryError("invalid-transition", message, { unknownId: id });
  if ((record.status === "resolved") !== (record.resolution !== null)) {
    throw invalid(
      record.status === "resolved"
        ? `Unknown ${id} cannot be resolved without a resolution: give {disposition, rationale, evidence_ids}.`
        : `Unknown ${id} has a resolution but status ${record.status}: a resolution requires status resolved (set resolution to null to reopen).`,
    );
  }
  if (record.status === "contradicted" && record.contradicting_evidence_ids.length === 0) {
    throw invalid(
      `Unknown ${id} cannot be contradicted without at least one contradicting_evidence_ids entry.`,
    );
  }
  const lists: Array<[string, readonly string[]]> = [
    ["supporting_evidence_ids", record.supporting_evidence_ids],
    ["contradicting_evidence_ids", record.contradicting_evidence_ids],
    ["mutation_evidence_ids", record.mutation_evidence_ids],
    ["resolution.evidence_ids", record.resolution?.evidence_ids ?? []],
  ];
  for (const [name, list] of lists) {
    const canonical = sortedUnique(list);
    if (canonical.length !== list.length || canonical.some((v, i) => v !== list[i])) {
      throw invalid(`Unknown ${id}: ${name} must be sorted and free of duplicates.`);
    }
  }
  const contradicting = new Set(record.contradicting_evidence_ids);
  const both = record.supporting_evidence_ids.find((e) => contradicting.has(e));
  if (both !== undefined) {
    throw invalid(`Unknown ${id}: ${both} cannot be both supporting and contradicting.`);
  }
  const keys = record.relationships.map(relationshipKey);
  if (new Set(keys).size !== keys.length || keys.some((k, i) => i > 0 && keys[i - 1]! >= k)) {
    throw invalid(`Unknown ${id}: relationships must be unique and sorted by type:unknown_id.`);
  }
  if (record.relationships.some((r) => r.unknown_id === id)) {
    throw new UnknownRegistryError(
      "integrity",
      `Unknown ${id} cannot have a relationship with itself.`,
      { unknownId: id },
    );
  }
}

/** Every Evidence id a revision references, in first-seen order. */
function referencedEvidence(record: UnknownRecord): string[] {
  return [
    ...new Set([
      ...record.supporting_evidence_ids,
      ...record.contradicting_evidence_ids,
      ...(record.resolution?.evidence_ids ?? []),
      ...record.mutation_evidence_ids,
    ]),
  ];
}

function checkEvidenceExists(record: UnknownRecord, lookup: EvidenceLookup): void {
  const missing = referencedEvidence(record).filter((id) => lookup.get(id) === undefined);
  if (missing.length > 0) {
    throw new UnknownRegistryError(
      "integrity",
      `Unknown ${record.unknown_id} references Evidence this session does not hold: ${
        missing.slice(0, 5).join(", ")
      }${
        missing.length > 5 ? ` and ${missing.length - 5} more` : ""
      }. Evidence from a closed session is gone; cite retained records (completion family evidence).`,
      { unknownId: record.unknown_id },
    );
  }
}

const CONFIDENCE_RANK: Record<Confidence, number> = { inferred: 1, derived: 2, observed: 3 };

/** Why one Evidence record does or does not qualify a verified resolution; null when it does. */
export function disqualification(
  record: Pick<
    UnknownRecord,
    | "supporting_evidence_ids"
    | "required_authority"
    | "required_confidence"
    | "required_environment"
  >,
  evidenceId: string,
  lookup: EvidenceLookup,
): string | null {
  if (!record.supporting_evidence_ids.includes(evidenceId)) {
    return `${evidenceId} is not among supporting_evidence_ids`;
  }
  const evidence = lookup.get(evidenceId);
  if (!evidence) return `${evidenceId} is not retained in this session`;
  if (evidence.predicate_type === MUTATION_PREDICATE_TYPE) {
    return `${evidenceId} is registry mutation Evidence, which records intent, not proof`;
  }
  if (record.required_authority !== null && evidence.authority !== record.required_authority) {
    return `${evidenceId} has authority ${evidence.authority}, not the required ${record.required_authority}`;
  }
  const rank = CONFIDENCE_RANK[evidence.confidence] ?? 0;
  if (rank < CONFIDENCE_RANK[record.required_confidence]) {
    return `${evidenceId} has confidence ${evidence.confidence}, below the required ${record.required_confidence}`;
  }
  const required = record.required_environment;
  if (required !== null) {
    const env: JsonObject | null = evidence.environment;
    if (env === null) return `${evidenceId} has no environment, but one is required`;
    for (const field of ["id", "platform", "architecture", "isolation"] as const) {
      const want = required[field];
      if (want !== null && env[field] !== want) {
        return `${evidenceId} has environment ${field} ${JSON.stringify(env[field] ?? null)}, not ${
          JSON.stringify(want)
        }`;
      }
    }
  }
  return null;
}

/**
 * Checks the Evidence qualification of a `verified` resolution (§6.6): no
 * contradicting Evidence, and at least one resolution id that is supporting,
 * retained, not mutation Evidence, and matches the authority, confidence and
 * environment requirements. Throws `invalid-transition`.
 */
export function checkQualification(record: UnknownRecord, lookup: EvidenceLookup): void {
  const resolution = record.resolution;
  if (resolution?.disposition !== "verified") return;
  const id = record.unknown_id;
  if (record.contradicting_evidence_ids.length > 0) {
    throw new UnknownRegistryError(
      "invalid-transition",
      `Unknown ${id} cannot be resolved as verified while contradicting_evidence_ids is not empty: settle or drop the contradiction first.`,
      { unknownId: id },
    );
  }
  const reasons: string[] = [];
  for (const evidenceId of resolution.evidence_ids) {
    const reason = disqualification(record, evidenceId, lookup);
    if (reason === null) return;
    reasons.push(reason);
  }
  throw new UnknownRegistryError(
    "invalid-transition",
    `Unknown ${id} cannot be resolved as verified: no resolution Evidence qualifies (${
      reasons.slice(0, 5).join("; ")
    }${reasons.length > 5 ? `; and ${reasons.length - 5} more` : ""}).`,
    { unknownId: id },
  );
}

/**
 * Finds a `depends-on` cycle among heads, searching from `starts` (all heads
 * when omitted); returns the cycle as ids, or null.
 */
export function findDependencyCycle(
  heads: ReadonlyMap<string, UnknownRecord>,
  starts?: Iterable<string>,
): string[] | null {
  const done = new Set<string>();
  const edges = (id: string): string[] =>
    (heads.get(id)?.relationships ?? []).filter((r) => r.type === "depends-on").map((r) =>
      r.unknown_id
    ).filter((target) => heads.has(target));
  for (const start of starts ?? heads.keys()) {
    if (done.has(start) || !heads.has(start)) continue;
    // Iterative depth-first search; `path` is the gray chain.
    const path: string[] = [start];
    const onPath = new Set<string>([start]);
    const pending: string[][] = [edges(start)];
    while (pending.length > 0) {
      const next = pending[pending.length - 1]!.pop();
      if (next === undefined) {
        pending.pop();
        const left = path.pop()!;
        onPath.delete(left);
        done.add(left);
        continue;
      }
      if (onPath.has(next)) return [...path.slice(path.indexOf(next)), next];
      if (done.has(next)) continue;
      path.push(next);
      onPath.add(next);
      pending.push(edges(next));
    }
  }
  return null;
}

function checkGraph(
  heads: ReadonlyMap<string, UnknownRecord>,
  changed: readonly UnknownRecord[],
): void {
  for (const record of changed) {
    const missing = record.relationships.find((r) => !heads.has(r.unknown_id));
    if (missing) {
      throw new UnknownRegistryError(
        "integrity",
        `Unknown ${record.unknown_id} has a ${missing.type} relationship with ${missing.unknown_id}, which is not a current head: record that unknown first.`,
        { unknownId: record.unknown_id },
      );
    }
  }
  const cycle = findDependencyCycle(heads, changed.map((r) => r.unknown_id));
  if (cycle) {
    throw new UnknownRegistryError(
      "integrity",
      `The depends-on graph would have a cycle: ${cycle.join(" → ")}.`,
      { unknownId: changed[0]?.unknown_id ?? null },
    );
  }
}

/**
 * Parses one stored revision: schema, identity (`unknown_id` recomputed from
 * domain, question and scope), digest recomputation, the `previous_revision_digest`
 * null-iff-revision-1 rule, and the revision's own invariants.
 * Throws `integrity` (or `invalid-transition` for invariant failures).
 */
export function parseUnknownRecord(value: unknown): UnknownRecord {
  const parsed = unknownRecordSchema.safeParse(value);
  if (!parsed.success) {
    throw new UnknownRegistryError(
      "integrity",
      `An unknown revision does not match the registry schema: ${
        z.prettifyError(parsed.error).replaceAll("\n", "; ")
      }`,
    );
  }
  const record = parsed.data;
  const id = record.unknown_id;
  const expectedId = unknownIdFor(record.domain, record.question, record.scope_digest);
  if (id !== expectedId) {
    throw new UnknownRegistryError(
      "integrity",
      `Unknown ${id} does not match its domain, question and scope (recomputed ${expectedId}).`,
      { unknownId: id },
    );
  }
  if ((record.revision === 1) !== (record.previous_revision_digest === null)) {
    throw new UnknownRegistryError(
      "integrity",
      `Unknown ${id} revision ${record.revision}: previous_revision_digest must be null exactly for revision 1.`,
      { unknownId: id },
    );
  }
  const digest = revisionDigestOf(record);
  if (digest !== record.revision_digest) {
    throw new UnknownRegistryError(
      "integrity",
      `Unknown ${id} revision ${record.revision} does not match its revision_digest (recomputed ${digest}).`,
      { unknownId: id },
    );
  }
  checkRevisionInvariants(record);
  return deepFreeze(record);
}

/** Checks one unknown's history: revisions 1..n without gaps, each linked to the one before. */
export function checkHistory(history: readonly UnknownRecord[]): void {
  history.forEach((record, index) => {
    const id = record.unknown_id;
    if (record.revision !== index + 1) {
      throw new UnknownRegistryError(
        "integrity",
        `The history of unknown ${id} has a gap: revision ${index + 1} is missing.`,
        { unknownId: id },
      );
    }
    const previous = history[index - 1];
    if (previous && record.previous_revision_digest !== previous.revision_digest) {
      throw new UnknownRegistryError(
        "integrity",
        `Unknown ${id} revision ${record.revision} does not link to revision ${previous.revision}'s digest.`,
        { unknownId: id },
      );
    }
  });
}

const byIdThenRevision = (a: UnknownRecord, b: UnknownRecord): number =>
  compareUnits(a.unknown_id, b.unknown_id) || a.revision - b.revision;

/**
 * Merges imported revisions into a base set (§6.10), keyed by
 * `(unknown_id, revision)`: an identical digest is a no-op; a different digest
 * for the same key — divergent heads included — rejects the whole merge with
 * `revision-conflict`; every incoming revision is parsed and every merged
 * history must be gap-free and linked. Independent histories commute. Pure.
 */
export function mergeUnknownRevisions(
  base: readonly UnknownRecord[],
  incoming: readonly unknown[],
): UnknownMerge {
  const byKey = new Map<string, UnknownRecord>();
  for (const record of base) byKey.set(`${record.unknown_id}#${record.revision}`, record);
  const added: UnknownRecord[] = [];
  let unchanged = 0;
  for (const value of incoming) {
    const record = parseUnknownRecord(value);
    const key = `${record.unknown_id}#${record.revision}`;
    const existing = byKey.get(key);
    if (existing) {
      if (existing.revision_digest !== record.revision_digest) {
        throw new UnknownRegistryError(
          "revision-conflict",
          `Unknown ${record.unknown_id} revision ${record.revision} exists with digest ${existing.revision_digest}, and the import has ${record.revision_digest}: divergent histories cannot be merged, so nothing was imported.`,
          { unknownId: record.unknown_id, currentRevision: record.revision },
        );
      }
      unchanged++;
      continue;
    }
    byKey.set(key, record);
    added.push(record);
  }
  const revisions = [...byKey.values()].sort(byIdThenRevision);
  for (const history of groupHistories(revisions).values()) checkHistory(history);
  return { revisions, added: added.sort(byIdThenRevision), unchanged };
}

function groupHistories(sorted: readonly UnknownRecord[]): Map<string, UnknownRecord[]> {
  const histories = new Map<string, UnknownRecord[]>();
  for (const record of sorted) {
    pushTo(histories, record.unknown_id, record);
  }
  return histories;
}

/**
 * Validates a whole registry state against a set of Evidence: each history
 * linked, each revision's invariants, every referenced Evidence id present,
 * every relationship target an existing unknown, verified resolutions
 * qualified, and the heads' depends-on graph acyclic. Pure.
 */
export function validateRegistryState(
  revisions: readonly UnknownRecord[],
  evidence: EvidenceLookup,
): void {
  const histories = groupHistories([...revisions].sort(byIdThenRevision));
  const heads = new Map<string, UnknownRecord>();
  for (const [id, history] of histories) {
    checkHistory(history);
    heads.set(id, history[history.length - 1]!);
  }
  for (const history of histories.values()) {
    for (const record of history) {
      checkRevisionInvariants(record);
      checkEvidenceExists(record, evidence);
      checkQualification(record, evidence);
    }
  }
  checkGraph(heads, [...heads.values()]);
}

// ---------------------------------------------------------------------------
// Input normalisation

function normalizeRecordInput(input: RecordUnknownInput): {
  question: string;
  domain: string;
  state: UnknownState;
} {
  const parsed = recordInputSchema.safeParse(input);
  if (!parsed.success) throw schemaFailure(parsed.error, null);
  input = parsed.data;
  const question = normalizeQuestion(input.question);
  const domain = input.domain.trim();
  if (question.length < 1 || question.length > MAX_QUESTION_LENGTH) {
    throw new UnknownRegistryError(
      "invalid-transition",
      `The question must be 1 to ${MAX_QUESTION_LENGTH} characters after trimming and collapsing whitespace (it is ${question.length}).`,
    );
  }
  if (domain.length < 1 || domain.length > MAX_DOMAIN_LENGTH) {
    throw new UnknownRegistryError(
      "invalid-transition",
      `The domain must be 1 to ${MAX_DOMAIN_LENGTH} characters after trimming (it is ${domain.length}).`,
    );
  }
  const contradicting = input.contradicting_evidence_ids ?? [];
  const state = canonicalState({
    status: contradicting.length > 0 ? "contradicted" : "open",
    severity: input.severity,
    supporting_evidence_ids: input.supporting_evidence_ids ?? [],
    contradicting_evidence_ids: contradicting,
    required_authority: input.required_authority,
    required_confidence: input.required_confidence,
    required_environment: input.required_environment,
    recommended_probes: input.recommended_probes,
    relationships: input.relationships,
    resolution: null,
  });
  return { question, domain, state };
}

/** First-seen union of the supporting, contradicting and resolution ids. */
function mutationLinks(state: UnknownState): string[] {
  return [
    ...new Set([
      ...state.supporting_evidence_ids,
      ...state.contradicting_evidence_ids,
      ...(state.resolution?.evidence_ids ?? []),
    ]),
  ];
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** Evidence lookup over the ledger plus records about to be written with the change. */
function withPending(ledger: EvidenceLookup, pending: readonly EvidenceRecord[]): EvidenceLookup {
  const extra = new Map(pending.map((r) => [r.evidence_id, r]));
  return { get: (id) => ledger.get(id) ?? extra.get(id) };
}

// ---------------------------------------------------------------------------
// The registry

/**
 * One session's registry. Revisions count against the ledger's caps (through
 * `reserve`); `clear()` belongs beside `ledger.clear()`, which resets those
 * reservations.
 *
 * @example
 * ```ts
 * import { EvidenceLedger } from "../../core/evidence.ts";
 * import { UnknownRegistry } from "./registry.ts";
 * const registry = new UnknownRegistry(new EvidenceLedger());
 * const { head } = await registry.record({
 *   question: "Does the parser accept   nested archives?",
 *   domain: "parsing",
 *   severity: "medium",
 *   required_authority: null,
 *   required_confidence: "observed",
 *   required_environment: null,
 *   recommended_probes: [],
 *   relationships: [],
 * }, { subject: null });
 * // head.question === "Does the parser accept nested archives?", head.revision === 1
 * ```
 */
export class UnknownRegistry {
  #ledger: EvidenceLedger;
  #histories = new Map<string, UnknownRecord[]>();
  #listeners = new Set<(unknownIds: readonly string[]) => void>();

  /** Creates an empty registry writing its mutation Evidence to `ledger`. */
  constructor(ledger: EvidenceLedger) {
    this.#ledger = ledger;
  }

  /** Number of unknowns (heads). */
  get size(): number {
    return this.#histories.size;
  }

  /** Current heads (the highest revision of each id), sorted by `unknown_id`. */
  heads(): UnknownRecord[] {
    return [...this.#histories.entries()].sort(([a], [b]) => compareUnits(a, b)).map((
      [, history],
    ) => history[history.length - 1]!);
  }

  /** Every revision, sorted by `unknown_id` then `revision` (bundle order). */
  revisions(): UnknownRecord[] {
    return [...this.#histories.entries()].sort(([a], [b]) => compareUnits(a, b)).flatMap((
      [, history],
    ) => history);
  }

  /** The head of an unknown, or undefined. */
  get(unknownId: string): UnknownRecord | undefined {
    const history = this.#histories.get(unknownId);
    return history?.[history.length - 1];
  }

  /** Every revision of an unknown, oldest first (empty when unknown). */
  history(unknownId: string): UnknownRecord[] {
    return [...(this.#histories.get(unknownId) ?? [])];
  }

  /**
   * Removes every unknown. Call it together with `ledger.clear()` (close_binary
   * does), which releases the revisions' reservations.
   */
  clear(): void {
    const ids = [...this.#histories.keys()].sort(compareUnits);
    this.#histories.clear();
    if (ids.length > 0) this.#notify(ids);
  }

  /** Calls `listener` with the ids whose head changed after every commit and clear. */
  onChange(listener: (unknownIds: readonly string[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Records a new unknown at revision 1 (§6.3), atomically with one mutation
   * Evidence record whose subject is `options.subject` (the active target);
   * its digest becomes the `scope_digest`. Fails with `already-exists`,
   * `invalid-transition` or `integrity`, or a ledger `limit_exceeded`
   * {@linkcode ToolFailure}; a failure writes nothing.
   */
  async record(
    input: RecordUnknownInput,
    options: { subject: EvidenceSubject | null },
  ): Promise<UnknownMutation> {
    const { question, domain, state } = normalizeRecordInput(input);
    const evidence = await this.#recordEvidence(question, domain, state, options.subject);
    const scope = options.subject?.digest.sha256 ?? null;
    const id = unknownIdFor(domain, question, scope);
    // From here to the commit nothing awaits, so the head cannot move underneath.
    const existing = this.get(id);
    if (existing) throw alreadyExists(existing);
    const head = this.#build(
      { unknown_id: id, scope_digest: scope, question, domain },
      null,
      state,
      [
        evidence.evidence_id,
      ],
    );
    this.#validate([head], [evidence]);
    this.#commit([head], [evidence]);
    return { head, evidence };
  }

  /**
   * Replaces an unknown's state by compare-and-swap (§6.4): `expected_revision`
   * must equal the head's revision. The new revision links to the head's
   * digest and accumulates the new mutation Evidence id. Fails with
   * `not-found`, `revision-conflict`, `invalid-transition` or `integrity`, or a
   * ledger `limit_exceeded`; a failure writes nothing.
   */
  async update(
    input: UpdateUnknownInput,
    options: { subject: EvidenceSubject | null },
  ): Promise<UnknownMutation> {
    const parsedState = stateSchema.safeParse(input);
    if (!parsedState.success) throw schemaFailure(parsedState.error, input.unknown_id ?? null);
    const state = canonicalState(parsedState.data);
    const id = input.unknown_id;
    const expected = input.expected_revision;
    if (!Number.isSafeInteger(expected) || expected < 1) {
      throw new UnknownRegistryError(
        "invalid-transition",
        `expected_revision must be an integer of at least 1, not ${JSON.stringify(expected)}.`,
        { unknownId: id },
      );
    }
    const evidence = await createEvidence({
      subject: options.subject,
      provider: REGISTRY_PROVIDER,
      predicate_type: MUTATION_PREDICATE_TYPE,
      operation: UPDATE_UNKNOWN,
      parameters: { unknown_id: id, expected_revision: expected },
      normalized_result: { action: "update", status: state.status },
      confidence: "derived",
      authority: "analyst-inference",
      limitations: [MUTATION_LIMITATION],
      evidence_links: mutationLinks(state),
    });
    const current = this.get(id);
    if (!current) throw notFound(id);
    if (expected !== current.revision) {
      throw new UnknownRegistryError(
        "revision-conflict",
        `Unknown ${id} is at revision ${current.revision}, not the expected ${expected}: another write came first. Read rea://unknown/${id}, merge your change into revision ${current.revision} and retry with expected_revision ${current.revision}.`,
        { unknownId: id, currentRevision: current.revision },
      );
    }
    const head = this.#build(
      current,
      current,
      state,
      [...current.mutation_evidence_ids, evidence.evidence_id],
    );
    this.#validate([head], [evidence]);
    this.#commit([head], [evidence]);
    return { head, evidence };
  }

  /**
   * Opt-in automatic recording (§6.9) for other tools: records each unknown
   * with `scope_digest` null and a subject-less mutation Evidence record,
   * tolerating `already-exists` (the head is returned untouched). Records in
   * `options.derived` (the derived Evidence the unknowns cite) are written in
   * the same atomic commit, so a caller can keep its result and its unknowns
   * together. Any other failure — an invalid entry, a missing reference, a
   * full ledger — writes nothing, derived records included.
   */
  async recordDerived(
    inputs: readonly RecordUnknownInput[],
    options: { derived?: readonly EvidenceRecord[] } = {},
  ): Promise<DerivedRecording[]> {
    const derived = [...(options.derived ?? [])];
    for (const record of derived) {
      const { evidence_id, ...body } = record;
      const expected = computeEvidenceId(body);
      if (evidence_id !== expected) {
        throw new ToolFailure(
          "evidence_integrity_mismatch",
          `Evidence ${evidence_id} does not match its content (recomputed ${expected}).`,
        );
      }
    }
    const prepared = [];
    for (const input of inputs) {
      const { question, domain, state } = normalizeRecordInput(input);
      const evidence = await this.#recordEvidence(question, domain, state, null);
      prepared.push({
        question,
        domain,
        state,
        evidence,
        id: unknownIdFor(domain, question, null),
      });
    }
    const outcomes: DerivedRecording[] = [];
    const heads: UnknownRecord[] = [];
    const staged = new Map<string, UnknownRecord>();
    const writes = [...derived];
    for (const entry of prepared) {
      const existing = staged.get(entry.id) ?? this.get(entry.id);
      if (existing) {
        outcomes.push({ unknown_id: entry.id, status: "already-exists", head: existing });
        continue;
      }
      const head = this.#build(
        {
          unknown_id: entry.id,
          scope_digest: null,
          question: entry.question,
          domain: entry.domain,
        },
        null,
        entry.state,
        [entry.evidence.evidence_id],
      );
      staged.set(entry.id, head);
      heads.push(head);
      writes.push(entry.evidence);
      outcomes.push({ unknown_id: entry.id, status: "recorded", head });
    }
    if (heads.length > 0) this.#validate(heads, writes);
    this.#commit(heads, writes);
    return outcomes;
  }

  /** Reports whether an unknown is resolved, and whether as a verified truth claim (§6.7). */
  verify(unknownId: string): UnknownVerification {
    const head = this.get(unknownId);
    if (!head) throw notFound(unknownId);
    return {
      valid: head.status === "resolved",
      truthVerified: head.resolution?.disposition === "verified",
      unknown: head,
    };
  }

  /**
   * Merges imported revisions (§6.10) and validates the combined state against
   * `options.evidence` (default: the ledger; pass a staged view when the
   * Evidence is imported in the same step), then commits atomically or not at
   * all. New revisions are reserved against the ledger's caps.
   */
  importRevisions(
    incoming: readonly unknown[],
    options: { evidence?: EvidenceLookup } = {},
  ): UnknownImportOutcome {
    const merge = mergeUnknownRevisions(this.revisions(), incoming);
    validateRegistryState(merge.revisions, options.evidence ?? this.#ledger);
    if (merge.added.length > 0) {
      const bytes = merge.added.reduce((sum, r) => sum + utf8Length(JSON.stringify(r)), 0);
      this.#ledger.reserve(merge.added.length, bytes);
    }
    const histories = groupHistories(merge.revisions);
    const changed = [...new Set(merge.added.map((r) => r.unknown_id))].sort(compareUnits);
    for (const id of changed) this.#histories.set(id, histories.get(id)!);
    if (changed.length > 0) this.#notify(changed);
    return { added: merge.added, unchanged: merge.unchanged, changed };
  }

  #recordEvidence(
    question: string,
    domain: string,
    state: UnknownState,
    subject: EvidenceSubject | null,
  ): Promise<EvidenceRecord> {
    return createEvidence({
      subject,
      provider: REGISTRY_PROVIDER,
      predicate_type: MUTATION_PREDICATE_TYPE,
      operation: RECORD_UNKNOWN,
      parameters: { domain, severity: state.severity },
      normalized_result: {
        action: "record",
        question,
        required_authority: state.required_authority,
        required_confidence: state.required_confidence,
      },
      confidence: "derived",
      authority: "analyst-inference",
      limitations: [MUTATION_LIMITATION],
      evidence_links: mutationLinks(state),
    });
  }

  #build(
    identity: Identity,
    previous: UnknownRecord | null,
    state: UnknownState,
    mutationIds: readonly string[],
  ): UnknownRecord {
    const record = seal(
      identity,
      previous ? previous.revision + 1 : 1,
      previous?.revision_digest ?? null,
      state,
      mutationIds,
    );
    const parsed = unknownRecordSchema.safeParse(record);
    if (!parsed.success) throw schemaFailure(parsed.error, identity.unknown_id);
    return record;
  }

  /** Validates new heads against the registry as it would be after the change. */
  #validate(heads: readonly UnknownRecord[], pending: readonly EvidenceRecord[]): void {
    const lookup = withPending(this.#ledger, pending);
    for (const head of heads) {
      checkRevisionInvariants(head);
      checkEvidenceExists(head, lookup);
      checkQualification(head, lookup);
    }
    const staged = new Map<string, UnknownRecord>();
    for (const [id, history] of this.#histories) staged.set(id, history[history.length - 1]!);
    for (const head of heads) staged.set(head.unknown_id, head);
    checkGraph(staged, heads);
  }

  /**
   * Writes Evidence and revisions in one synchronous step: the room for all of
   * it is checked first, so either everything lands or nothing does.
   */
  #commit(heads: readonly UnknownRecord[], evidence: readonly EvidenceRecord[]): void {
    const fresh = new Map<string, EvidenceRecord>();
    for (const record of evidence) {
      if (!this.#ledger.get(record.evidence_id)) fresh.set(record.evidence_id, record);
    }
    const evidenceBytes = [...fresh.values()].reduce(
      (sum, r) => sum + utf8Length(JSON.stringify(r)),
      0,
    );
    const revisionBytes = heads.reduce((sum, r) => sum + utf8Length(JSON.stringify(r)), 0);
    const records = fresh.size + heads.length;
    const bytes = evidenceBytes + revisionBytes;
    const ledger = this.#ledger;
    if (ledger.size + records > ledger.maxRecords || ledger.bytes + bytes > ledger.maxBytes) {
      throw new ToolFailure(
        "limit_exceeded",
        `The Evidence ledger is full: this registry write needs ${records} records and ${bytes} bytes, but the ledger holds ${ledger.size} of at most ${ledger.maxRecords} records and ${ledger.bytes} of ${ledger.maxBytes} bytes. Nothing was written.`,
        {
          action: "Snapshot what you need, then call close_binary to clear the session's Evidence.",
          details: { needed_records: records, needed_bytes: bytes },
        },
      );
    }
    // Verified records in a ledger with room: recording cannot fail, and its
    // effect is synchronous (the returned promise only reports it).
    for (const record of fresh.values()) ledger.record(record).catch(() => {});
    const refused = [...fresh.keys()].find((id) => !ledger.get(id));
    if (refused !== undefined) {
      throw new ToolFailure(
        "execution_failure",
        `The ledger refused Evidence ${refused} after its room was checked; the registry was not changed.`,
        { action: "This is a server fault; report it with the arguments you used." },
      );
    }
    if (heads.length > 0) ledger.reserve(heads.length, revisionBytes);
    for (const head of heads) pushTo(this.#histories, head.unknown_id, head);
    if (heads.length > 0) this.#notify(heads.map((h) => h.unknown_id));
  }

  #notify(ids: readonly string[]): void {
    for (const listener of this.#listeners) {
      try {
        listener(ids);
      } catch {
        // An observer's failure never fails the mutation.
      }
    }
  }
}

/** The mutable state as callers give it (canonicalised and re-checked before storing). */
const stateSchema = z.object({
  status: unknownStatusSchema,
  severity: unknownSeveritySchema,
  supporting_evidence_ids: z.array(evidenceIdSchema).max(MAX_EVIDENCE_IDS),
  contradicting_evidence_ids: z.array(evidenceIdSchema).max(MAX_EVIDENCE_IDS),
  required_authority: authoritySchema.nullable(),
  required_confidence: confidenceSchema,
  required_environment: requiredEnvironmentSchema.nullable(),
  recommended_probes: z.array(probeSchema).max(MAX_PROBES),
  relationships: z.array(relationshipSchema).max(MAX_RELATIONSHIPS),
  resolution: resolutionInputSchema.nullable(),
});

/** A new unknown as callers give it. */
const recordInputSchema = z.object({
  question: z.string().max(4 * MAX_QUESTION_LENGTH),
  domain: z.string().max(4 * MAX_DOMAIN_LENGTH),
  severity: unknownSeveritySchema,
  supporting_evidence_ids: z.array(evidenceIdSchema).max(MAX_EVIDENCE_IDS).optional(),
  contradicting_evidence_ids: z.array(evidenceIdSchema).max(MAX_EVIDENCE_IDS).optional(),
  required_authority: authoritySchema.nullable(),
  required_confidence: confidenceSchema,
  required_environment: requiredEnvironmentSchema.nullable(),
  recommended_probes: z.array(probeSchema).max(MAX_PROBES),
  relationships: z.array(relationshipSchema).max(MAX_RELATIONSHIPS),
});

function alreadyExists(head: UnknownRecord): UnknownRegistryError {
  return new UnknownRegistryError(
    "already-exists",
    `Unknown ${head.unknown_id} already exists (the same domain and question under the same scope) at revision ${head.revision}. Read rea://unknown/${head.unknown_id} and change it with update_unknown and expected_revision ${head.revision}.`,
    { unknownId: head.unknown_id, currentRevision: head.revision },
  );
}

function notFound(unknownId: string): UnknownRegistryError {
  return new UnknownRegistryError(
    "not-found",
    `Unknown ${unknownId} is not in this session's registry: list_unknowns gives the current ids (close_binary clears the registry).`,
    { unknownId },
  );
}
