/**
 * Evidence records passed inline, as REA's comparison and path tools take
 * them (`functions`, `comparisons`, `static_comparisons`, …): each is
 * accepted only when its id matches its content, so an inline record is as
 * trustworthy as a retained one.
 *
 * @module
 */

import { z } from "zod";
import { ToolFailure } from "../../core/errors.ts";
import { computeEvidenceId, type EvidenceRecord } from "../../core/evidence.ts";

/** An Evidence record given inline (checked for integrity when used). */
export const inlineEvidenceSchema = z.looseObject({
  evidence_id: z.string().regex(/^ev_[0-9a-f]{64}$/),
  operation: z.string().min(1),
  predicate_type: z.string().min(1),
  parameters: z.record(z.string(), z.unknown()),
  normalized_result: z.unknown(),
}).describe("A whole Evidence record, as an evidence resource returns it.");

/** An inline Evidence record as parsed. */
export type InlineEvidence = z.output<typeof inlineEvidenceSchema>;

/** `value`, checked: its id must be the digest of its content. */
export function verifiedInlineRecord(value: z.output<typeof inlineEvidenceSchema>): EvidenceRecord {
  const { evidence_id, ...body } = value as unknown as EvidenceRecord;
  const expected = computeEvidenceId(body);
  if (expected !== evidence_id) {
    throw new ToolFailure(
      "evidence_integrity_mismatch",
      `The inline Evidence record ${evidence_id} does not match its content (its digest is ${expected}).`,
      { action: "Pass the record exactly as its evidence resource returned it." },
    );
  }
  return value as unknown as EvidenceRecord;
}
