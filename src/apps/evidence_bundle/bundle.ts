/**
 * Evidence bundle v2: the session's Evidence and unknown revisions as one
 * canonical document with derived manifests. `store.ts` retains bundles by
 * their SHA-256 so they can be read back byte for byte.
 *
 * @module
 */

import { canonicalJson, type JsonValue } from "../../core/canonical_json.ts";
import type { EvidenceRecord } from "../../core/evidence.ts";
import { compareCodePoints } from "../../core/completion.ts";

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
