/**
 * Evidence v2 records and the session ledger that retains them.
 *
 * An Evidence id is `ev_` + SHA-256 of the RFC 8785 canonical JSON of the
 * record's projection (the record without its id, with the subject reduced to
 * its content identity), so the same observation gets the same id in every run.
 *
 * @module
 */

import {
  canonicalJson,
  canonicalJsonInParts,
  freezeCanonical,
  type JsonObject,
  type JsonValue,
  sha256Hex,
} from "./canonical_json.ts";
import { Buffer } from "node:buffer";
import { ToolFailure } from "./errors.ts";

/**
 * What an observation is about: a binary, an artifact, a process capture, a
 * dataset, an asset, a finding… Every field but `name` and `local_path` is
 * part of the subject's identity, and so of the Evidence id. Each workbench
 * narrows this to its own subject kinds.
 */
export interface EvidenceSubject {
  /** A short display name (a file's base name, a dataset's name). Not part of the id. */
  name: string;
  /** The content digest that identifies the subject. */
  digest: { sha256: string };
  /** The subject's format or kind of thing (`elf`, `tar`, `dataset`, `asset`, …). */
  format: string;
  /** Where it was read from, when it is a file (not part of the id). */
  local_path?: string;
  /** Further identity facts a workbench records (for a binary, its architecture). */
  [fact: string]: JsonValue | undefined;
}

/** Who made an observation. */
export interface ProviderIdentity {
  /** A stable provider id such as `native`. */
  id: string;
  /** A human-readable name. */
  name: string;
  /** The provider version, when known. */
  version: string | null;
}

/**
 * How the producing provider was configured for an observation: the
 * settings that shape its answers (engines, bounds), so two records can be
 * known to come from the same analysis.
 */
export interface AnalysisProfile {
  /** Always 1. */
  schema_version: 1;
  /** The provider; it equals the record's provider, with a version. */
  provider: { id: string; name: string; version: string };
  /** The version of this provider's `parameters` layout. */
  provider_profile_schema_version: number;
  /** The settings (bounded JSON). */
  parameters: JsonObject;
  /** SHA-256 of the canonical JSON of the four fields above. */
  digest: string;
}

/** Bounds of an analysis profile's parameters. */
const PROFILE_LIMITS = { bytes: 64 * 1024, depth: 16, stringLength: 16 * 1024, nodes: 4096 };

/**
 * Builds an analysis profile, with its digest. Throws a TypeError when the
 * provider has no version or the parameters exceed the profile bounds
 * (64 KiB canonical, depth 16, strings of 16 Ki units, 4,096 nodes).
 */
export function analysisProfile(
  provider: ProviderIdentity,
  profileSchemaVersion: number,
  parameters: JsonObject,
): AnalysisProfile {
  if (!provider.version) {
    throw new TypeError(`An analysis profile needs the version of provider ${provider.id}.`);
  }
  let nodes = 0;
  const walk = (value: JsonValue, depth: number): void => {
    if (++nodes > PROFILE_LIMITS.nodes) throw new TypeError("Profile parameters: too many nodes.");
    if (depth > PROFILE_LIMITS.depth) throw new TypeError("Profile parameters: too deep.");
    if (typeof value === "string" && value.length > PROFILE_LIMITS.stringLength) {
      throw new TypeError("Profile parameters: a string is too long.");
    }
    if (value !== null && typeof value === "object") {
      for (const child of Object.values(value)) walk(child, depth + 1);
    }
  };
  walk(parameters, 1);
  const body = {
    schema_version: 1 as const,
    provider: { id: provider.id, name: provider.name, version: provider.version },
    provider_profile_schema_version: profileSchemaVersion,
    parameters,
  };
  const canonical = canonicalJson(body);
  if (utf8Length(canonical) > PROFILE_LIMITS.bytes) {
    throw new TypeError("Profile parameters exceed 64 KiB.");
  }
  // Frozen as canonical JSON: the parts already in canonical order (the provider, the
  // parameters) are then written whole into every record that carries this profile.
  const profile = { ...JSON.parse(canonical), digest: sha256Hex(canonical) } as AnalysisProfile;
  freezeCanonical(profile);
  return profile;
}

/** A location an observation points at. */
export type EvidenceLocation =
  | { kind: "address"; address: string }
  | { kind: "address-range"; start: string; end: string }
  | { kind: "artifact-path"; path: string }
  | { kind: "file-offset"; offset: number }
  | { kind: "file-offset-range"; start: number; end: number };

/** An Evidence v2 record. */
export interface EvidenceRecord {
  /** Always 2. */
  schema_version: 2;
  /** `ev_` + 64 lowercase hex. */
  evidence_id: string;
  /** What was observed, or null. */
  subject: EvidenceSubject | null;
  /** Who observed it. */
  provider: ProviderIdentity;
  /** How the provider was configured, when it states it. */
  analysis_profile?: AnalysisProfile;
  /** The kind of statement, such as `rea.analysis/v2`. */
  predicate_type: string;
  /** The tool or operation that produced it. */
  operation: string;
  /** The inputs, with null for absent ones. */
  parameters: JsonObject;
  /** The unprocessed provider output, or null. */
  raw_result: JsonValue;
  /** The validated result. */
  normalized_result: JsonValue;
  /** How directly it was observed. */
  confidence: "observed" | "derived" | "inferred";
  /** Where the observation's authority comes from. */
  authority:
    | "shipped-artifact"
    | "controlled-replay"
    | "historical-reference"
    | "external-service"
    | "analyst-inference";
  /** Where it was observed, or null. */
  environment: JsonObject | null;
  /** What the observation does not cover. */
  limitations: string[];
  /** Addresses, offsets or paths it points at. */
  locations: EvidenceLocation[];
  /** Evidence it was derived from. */
  evidence_links: string[];
}

/** What a producer supplies; everything else takes the documented default. */
export interface EvidenceDraft {
  subject: EvidenceSubject | null;
  provider: ProviderIdentity;
  /** Its provider must equal `provider`. @default absent */
  analysis_profile?: AnalysisProfile;
  operation: string;
  /** The inputs (JSON-serialisable). */
  parameters: Record<string, unknown>;
  /** The validated result (JSON-serialisable). */
  normalized_result: unknown;
  /** The kind of statement, such as `rea.analysis/v2` (each workbench names its own). */
  predicate_type: string;
  /** @default null */
  raw_result?: unknown;
  /** @default "observed" */
  confidence?: EvidenceRecord["confidence"];
  /** @default "shipped-artifact" */
  authority?: EvidenceRecord["authority"];
  /** @default null */
  environment?: JsonObject | null;
  /** @default [] */
  limitations?: string[];
  /** @default [] */
  locations?: EvidenceLocation[];
  /** @default [] */
  evidence_links?: string[];
  /**
   * The producer hands `normalized_result` over and will not touch it again:
   * when it is plain JSON it is frozen in place instead of copied.
   * @default false
   */
  transferred?: boolean;
}

/** Prepended to the limitations of a record that has no subject. */
export const NO_SUBJECT_LIMITATION =
  "The artifact this observation concerns has no content identity: no subject digest was available.";

/** The pattern of an Evidence id. */
export const EVIDENCE_ID_PATTERN: RegExp = /^ev_[0-9a-f]{64}$/;

/** A subject reduced to its identity: everything but its name and where it was read from. */
function subjectIdentity(subject: EvidenceSubject | null): JsonObject | null {
  if (subject === null) return null;
  const { name: _name, local_path: _path, ...identity } = subject;
  return identity as JsonObject;
}

/** The projection an id is computed from. */
function projection(record: Omit<EvidenceRecord, "evidence_id">): JsonObject {
  const { subject, ...rest } = record;
  return { ...(rest as unknown as JsonObject), subject: subjectIdentity(subject) };
}

/** Computes the id of a record from its content. */
export function computeEvidenceId(record: Omit<EvidenceRecord, "evidence_id">): string {
  return `ev_${sha256Hex(canonicalJson(projection(record)))}`;
}

/** Builds a complete record (with its id) from a draft. */
export function createEvidence(draft: EvidenceDraft): Promise<EvidenceRecord> {
  const limitations = [...(draft.limitations ?? [])];
  if (draft.subject === null) limitations.unshift(NO_SUBJECT_LIMITATION);
  const profile = draft.analysis_profile;
  if (
    profile && (profile.provider.id !== draft.provider.id ||
      profile.provider.name !== draft.provider.name ||
      profile.provider.version !== draft.provider.version)
  ) {
    throw new TypeError(
      `The analysis profile's provider ${profile.provider.id} ${profile.provider.version} is not the record's provider ${draft.provider.id} ${draft.provider.version}.`,
    );
  }
  const body = {
    schema_version: 2,
    subject: draft.subject,
    provider: draft.provider,
    ...(profile ? { analysis_profile: profile } : {}),
    predicate_type: draft.predicate_type,
    operation: draft.operation,
    parameters: draft.parameters,
    raw_result: draft.raw_result ?? null,
    normalized_result: draft.normalized_result,
    confidence: draft.confidence ?? "observed",
    authority: draft.authority ?? "shipped-artifact",
    environment: draft.environment ?? null,
    limitations,
    locations: draft.locations ?? [],
    evidence_links: draft.evidence_links ?? [],
  };
  // One canonical pass over the projection gives both the id and, parsed back,
  // a JSON-clean record holding exactly what the id covers. A handed-over result
  // is checked and frozen in one walk, and then serialised without another.
  const subject = draft.subject === null
    ? null
    : JSON.parse(JSON.stringify(draft.subject)) as EvidenceSubject;
  const handedOver = draft.transferred === true &&
    freezeCanonical(draft.normalized_result).plain;
  const projected = { ...body, subject: subjectIdentity(subject) };
  // In parts, so the text of a handed-over result's canonical parts (a page's items) is
  // serialised once, for the id here and again for the result's text block.
  const canonical = handedOver ? canonicalJsonInParts(projected, 2) : canonicalJson(projected);
  const id = `ev_${sha256Hex(canonical)}`;
  let parsed: Omit<EvidenceRecord, "evidence_id">;
  if (handedOver) {
    // Copy only the small parts; the result itself is already JSON-clean (and frozen).
    parsed = {
      ...JSON.parse(canonicalJson({ ...projected, normalized_result: null })),
      normalized_result: draft.normalized_result as JsonValue,
    };
  } else {
    parsed = JSON.parse(canonical) as Omit<EvidenceRecord, "evidence_id">;
  }
  const record = deepFreeze({ evidence_id: id, ...parsed, subject } as EvidenceRecord);
  // JSON length does not depend on key order: the stored record's size is the
  // projection's, with the full subject in place of the reduced one, plus the id member.
  const size = utf8Length(canonical) - utf8Length(JSON.stringify(projected.subject)) +
    utf8Length(JSON.stringify(subject)) + `"evidence_id":"${id}",`.length;
  minted.set(record, size);
  return Promise.resolve(record);
}

// Records built by createEvidence are frozen, so their ids need no re-verification;
// each maps to its JSON size in UTF-8 bytes.
const minted = new WeakMap<EvidenceRecord, number>();

/**
 * UTF-8 length of a string without encoding it (a lone surrogate counts as the three bytes of
 * U+FFFD, as TextEncoder writes it); native, so a page-sized text costs no scan in script.
 */
function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Bounds of a {@linkcode EvidenceLedger}. */
export interface LedgerLimits {
  /** Most records (Evidence plus other counted state). @default 10000 */
  maxRecords?: number;
  /** Most UTF-8 bytes of record JSON. @default 64 MiB */
  maxBytes?: number;
}

/** Options of an {@linkcode EvidenceLedger}. */
export interface LedgerOptions {
  /**
   * How the session's Evidence is cleared, as the remediation of a full
   * ledger says it (the tool that clears it belongs to a workbench).
   * @default "clear the session's Evidence"
   */
  clearHint?: string;
}

/** Outcome of {@linkcode EvidenceLedger.record}. */
export interface RecordOutcome {
  /** Whether the record was new. */
  status: "added" | "duplicate";
  /** The retained record. */
  record: EvidenceRecord;
}

/**
 * The session's retained Evidence. Recording is idempotent; nothing is ever
 * evicted: a full ledger refuses new records with a clear error.
 */
export class EvidenceLedger {
  /** Most records retained. */
  readonly maxRecords: number;
  /** Most bytes retained. */
  readonly maxBytes: number;
  #records = new Map<string, EvidenceRecord>();
  #sizes = new Map<string, number>();
  #bytes = 0;
  #reserved = { records: 0, bytes: 0 };
  #listeners = new Set<(record: EvidenceRecord | null) => void>();
  #clearHint: string;

  /** Creates an empty ledger with the given caps. */
  constructor(limits: LedgerLimits = {}, options: LedgerOptions = {}) {
    this.#clearHint = options.clearHint ?? "clear the session's Evidence";
    this.maxRecords = limits.maxRecords ?? 10_000;
    this.maxBytes = limits.maxBytes ?? 64 * 1024 * 1024;
  }

  /** Records retained. */
  get size(): number {
    return this.#records.size + this.#reserved.records;
  }

  /** UTF-8 bytes of the retained records' JSON. */
  get bytes(): number {
    return this.#bytes + this.#reserved.bytes;
  }

  /**
   * Counts other session state (such as unknown revisions) against the same
   * caps. Later workbenches call this; it is exposed now so the caps are shared.
   */
  reserve(records: number, bytes: number): void {
    this.#assertRoom(records, bytes);
    this.#reserved.records += records;
    this.#reserved.bytes += bytes;
  }

  /** Verifies a record's id and retains it. */
  record(record: EvidenceRecord): Promise<RecordOutcome> {
    try {
      return Promise.resolve(this.#record(record));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #record(record: EvidenceRecord): RecordOutcome {
    const { evidence_id: id, ...body } = record;
    const expected = minted.has(record) ? id : computeEvidenceId(body);
    if (id !== expected) {
      throw new ToolFailure(
        "evidence_integrity_mismatch",
        `Evidence ${id} does not match its content (recomputed ${expected}).`,
      );
    }
    // Both ids are verified against their content, and the id covers everything
    // but subject.name and subject.local_path: the same id means the same record.
    const existing = this.#records.get(id);
    if (existing) return { status: "duplicate", record: existing };
    const size = minted.get(record) ?? new TextEncoder().encode(JSON.stringify(record)).length;
    this.#assertRoom(1, size);
    // Keep a private, immutable copy of anything this module did not mint itself.
    const kept = minted.has(record) ? record : deepFreeze(structuredClone(record));
    this.#records.set(id, kept);
    this.#sizes.set(id, size);
    this.#bytes += size;
    for (const listener of this.#listeners) {
      try {
        listener(kept);
      } catch {
        // An observer's failure never fails the mutation.
      }
    }
    return { status: "added", record: kept };
  }

  /** A retained record, or undefined. */
  get(id: string): EvidenceRecord | undefined {
    return this.#records.get(id);
  }

  /** All records, sorted by id (bundle order). */
  list(): EvidenceRecord[] {
    return [...this.#records.values()].sort((a, b) =>
      a.evidence_id < b.evidence_id ? -1 : a.evidence_id > b.evidence_id ? 1 : 0
    );
  }

  /** Removes everything and resets the counters. */
  clear(): void {
    this.#records.clear();
    this.#sizes.clear();
    this.#bytes = 0;
    this.#reserved = { records: 0, bytes: 0 };
    for (const listener of this.#listeners) {
      try {
        listener(null);
      } catch {
        // contained
      }
    }
  }

  /** Calls `listener` after every added record, and with null after a clear. */
  onChange(listener: (record: EvidenceRecord | null) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #assertRoom(records: number, bytes: number): void {
    if (this.size + records > this.maxRecords) {
      throw new ToolFailure(
        "limit_exceeded",
        `The Evidence ledger is full: it holds ${this.size} of at most ${this.maxRecords} records.`,
        {
          action: `Snapshot what you need, then ${this.#clearHint}.`,
          details: { limit: "records", max: this.maxRecords },
        },
      );
    }
    if (this.bytes + bytes > this.maxBytes) {
      throw new ToolFailure(
        "limit_exceeded",
        `The Evidence ledger is full: adding ${bytes} bytes would pass its ${this.maxBytes}-byte cap (${this.bytes} used).`,
        {
          action: `Ask for smaller pages, or ${this.#clearHint}.`,
          details: { limit: "bytes", max: this.maxBytes },
        },
      );
    }
  }
}
