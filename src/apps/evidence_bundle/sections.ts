/**
 * The named sections of an Evidence record, as the record section resource
 * serves them: grouped names for process captures, otherwise the top-level
 * keys of the normalized result.
 *
 * @module
 */

import type { JsonValue } from "../../core/canonical_json.ts";
import { compareCodePoints } from "../../core/completion.ts";
import type { EvidenceRecord } from "../../core/evidence.ts";

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
