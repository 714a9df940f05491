/**
 * Field projection of finding lists: the caller names the brief fields it
 * wants, the id always comes first.
 *
 * @module
 */

import type { FindingBrief } from "../model/briefs.ts";
import { parseEnum } from "../model/parse_enum.ts";

/** The fields of a finding brief, in brief order. */
export const FINDING_FIELDS = [
  "id",
  "title",
  "severity",
  "risk_score",
  "source_tool",
  "resource_id",
  "resource_arn",
  "asset_id",
  "asset_name",
  "compliance_frameworks",
  "is_suppressed",
  "cvss_score",
  "detected_at",
  "uri",
] as const;

/** One field of a finding brief. */
export type FindingField = typeof FINDING_FIELDS[number];

/**
 * Reads requested field names (case-insensitive) into the projection: `id`
 * first, then the rest in the order asked, each once. An empty request means
 * every field. An unknown name is an `InvalidEnumError` listing the fields.
 */
export function parseFindingFields(fields: readonly string[]): FindingField[] {
  if (fields.length === 0) return [...FINDING_FIELDS];
  const out: FindingField[] = ["id"];
  for (const name of fields) {
    const field = parseEnum(name, FINDING_FIELDS, { label: "field" });
    if (!out.includes(field)) out.push(field);
  }
  return out;
}

/** The brief cut down to `fields` (as {@linkcode parseFindingFields} returns them). */
export function projectFinding(
  brief: FindingBrief,
  fields: readonly FindingField[],
): Partial<FindingBrief> & { id: string } {
  const out: Record<string, unknown> = {};
  for (const field of fields) out[field] = brief[field];
  return out as Partial<FindingBrief> & { id: string };
}
