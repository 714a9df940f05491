/**
 * Evidence bundle v2: the session's Evidence and unknown revisions as one
 * canonical document with derived manifests, retained by its SHA-256 so it
 * can be read back byte for byte through `rea://evidence-bundle/<digest>`.
 *
 * @module
 */

import { canonicalJson, type JsonValue, sha256Hex } from "../core/canonical_json.ts";
import type { EvidenceRecord } from "../core/evidence.ts";
import { ToolFailure } from "../core/errors.ts";
import { compareCodePoints } from "../core/completion.ts";

/** A bundle as serialised. */
export interface EvidenceBundle {
  bundle_version: 2;
  artifacts: Array<{ digest: string; format: string; architecture: string | null }>;
  providers: Array<{ id: string; name: string; version: string | null }>;
  environments: JsonValue[];
  scenarios: Array<{ evidence_id: string; operation: string; authority: string }>;
  captures: Array<{ evidence_id: string; predicate_type: string }>;
  unknowns: JsonValue[];
  records: EvidenceRecord[];
}

/** Unique values in the order of their canonical JSON. */
function uniqueCanonical<T>(values: T[]): T[] {
  const seen = new Map<string, T>();
  for (const value of values) {
    const key = canonicalJson(value);
    if (!seen.has(key)) seen.set(key, value);
  }
  return [...seen.entries()].sort((a, b) => compareCodePoints(a[0], b[0])).map(([, v]) => v);
}

/** Builds the bundle of the given records and unknown revisions. */
export function buildBundle(
  records: readonly EvidenceRecord[],
  unknownRevisions: readonly JsonValue[],
): EvidenceBundle {
  const sorted = [...records].sort((a, b) => compareCodePoints(a.evidence_id, b.evidence_id));
  return {
    bundle_version: 2,
    artifacts: uniqueCanonical(
      sorted.filter((r) => r.subject !== null).map((r) => ({
        digest: r.subject!.digest.sha256,
        format: r.subject!.format,
        architecture: (r.subject!.architecture ?? null) as string | null,
      })),
    ),
    providers: uniqueCanonical(sorted.map((r) => ({ ...r.provider }))),
    environments: uniqueCanonical(
      sorted.filter((r) => r.environment !== null).map((r) => r.environment as JsonValue),
    ),
    scenarios: sorted.filter((r) => r.authority === "controlled-replay").map((r) => ({
      evidence_id: r.evidence_id,
      operation: r.operation,
      authority: r.authority,
    })),
    captures: sorted.filter((r) => r.predicate_type.startsWith("rea.process-capture/")).map((
      r,
    ) => ({
      evidence_id: r.evidence_id,
      predicate_type: r.predicate_type,
    })),
    unknowns: [...unknownRevisions],
    records: sorted,
  };
}

/**
 * Checks a parsed bundle: its manifests must equal their recomputation and
 * its record ids must be unique. Returns the problems (empty when valid).
 */
export function bundleProblems(bundle: EvidenceBundle): string[] {
  const problems: string[] = [];
  if (bundle.bundle_version !== 2) problems.push("bundle_version is not 2");
  const ids = new Set<string>();
  for (const record of bundle.records) {
    if (ids.has(record.evidence_id)) problems.push(`duplicate record ${record.evidence_id}`);
    ids.add(record.evidence_id);
  }
  const again = buildBundle(bundle.records, bundle.unknowns);
  for (const key of ["artifacts", "providers", "environments", "scenarios", "captures"] as const) {
    if (canonicalJson(again[key]) !== canonicalJson(bundle[key])) {
      problems.push(`${key} differ from their recomputation`);
    }
  }
  return problems;
}

/** A retained bundle. */
export interface RetainedBundle {
  digest: string;
  text: string;
  bytes: number;
  records: number;
  unknowns: number;
}

/** Bundle URIs. */
export const bundleUri = (digest: string): string => `rea://evidence-bundle/${digest}`;

/** The session's retained bundles: at most 16 and 64 MiB. */
export class BundleStore {
  readonly maxBundles: number;
  readonly maxBytes: number;
  #bundles = new Map<string, RetainedBundle>();
  #bytes = 0;

  constructor(limits: { maxBundles?: number; maxBytes?: number } = {}) {
    this.maxBundles = limits.maxBundles ?? 16;
    this.maxBytes = limits.maxBytes ?? 64 * 1024 * 1024;
  }

  /** Serialises and retains; an unchanged snapshot returns the bundle already held. */
  snapshot(bundle: EvidenceBundle): { bundle: RetainedBundle; created: boolean } {
    const text = canonicalJson(bundle);
    const digest = sha256Hex(text);
    const existing = this.#bundles.get(digest);
    if (existing) return { bundle: existing, created: false };
    const bytes = new TextEncoder().encode(text).length;
    if (this.#bundles.size >= this.maxBundles) {
      throw new ToolFailure(
        "limit_exceeded",
        `The session already retains ${this.#bundles.size} bundles, the most it keeps.`,
        { action: "Call release_evidence_bundle for a bundle you no longer need." },
      );
    }
    if (this.#bytes + bytes > this.maxBytes) {
      throw new ToolFailure(
        "limit_exceeded",
        `A ${bytes}-byte bundle would take the retained bundles past ${this.maxBytes} bytes (${this.#bytes} held).`,
        { action: "Release bundles you no longer need with release_evidence_bundle." },
      );
    }
    const retained = {
      digest,
      text,
      bytes,
      records: bundle.records.length,
      unknowns: bundle.unknowns.length,
    };
    this.#bundles.set(digest, retained);
    this.#bytes += bytes;
    return { bundle: retained, created: true };
  }

  get(digest: string): RetainedBundle | undefined {
    return this.#bundles.get(digest);
  }

  list(): RetainedBundle[] {
    return [...this.#bundles.values()];
  }

  release(digest: string): boolean {
    const bundle = this.#bundles.get(digest);
    if (!bundle) return false;
    this.#bundles.delete(digest);
    this.#bytes -= bundle.bytes;
    return true;
  }

  clear(): void {
    this.#bundles.clear();
    this.#bytes = 0;
  }
}

/**
 * The sections of a record the section resource serves: grouped names for
 * process captures, otherwise the top-level keys of the result.
 */
export const SECTION_GROUPS: Record<string, readonly string[]> = {
  terminal: ["frames", "rendered_frames", "interactions", "terminal"],
  filesystem: ["checkpoints", "effects", "before", "after", "filesystem", "files"],
  process: ["samples", "exit", "settlement", "cleanup", "process", "processes"],
  protocol: ["protocol_events", "replay_transitions", "shim_events", "protocol", "network"],
};

/** The section names a record offers. */
export function sectionsOf(record: EvidenceRecord): string[] {
  const result = record.normalized_result;
  if (result === null || typeof result !== "object" || Array.isArray(result)) return [];
  const keys = Object.keys(result);
  const names = new Set<string>();
  for (const [group, members] of Object.entries(SECTION_GROUPS)) {
    if (members.some((m) => keys.includes(m))) names.add(group);
  }
  for (const key of keys) names.add(key);
  return [...names].sort(compareCodePoints);
}

/** One section of a record, or undefined when it has none of that name. */
export function sectionOf(record: EvidenceRecord, section: string): JsonValue | undefined {
  const result = record.normalized_result as Record<string, JsonValue> | null;
  if (result === null || typeof result !== "object" || Array.isArray(result)) return undefined;
  const group = SECTION_GROUPS[section];
  if (group) {
    const picked: Record<string, JsonValue> = {};
    for (const key of group) if (key in result) picked[key] = result[key]!;
    if (Object.keys(picked).length > 0) return picked;
  }
  return Object.hasOwn(result, section) ? result[section] : undefined;
}
