/**
 * Content-graph identifiers: every id is a prefix plus the SHA-256 of the
 * RFC 8785 canonical JSON of a small object, so the same content, path or
 * relation gets the same id in every run.
 *
 * @module
 */

import { canonicalJson, sha256Hex } from "../../core/canonical_json.ts";

/** `<prefix>_` + 64 lowercase hex. */
export const idPattern = (prefix: string): RegExp => new RegExp(`^${prefix}_[0-9a-f]{64}$`);

/** Manifest ids. */
export const MANIFEST_ID_PATTERN: RegExp = idPattern("agm");
/** Occurrence ids. */
export const OCCURRENCE_ID_PATTERN: RegExp = idPattern("occ");

const hashed = (prefix: string, value: unknown): string =>
  `${prefix}_${sha256Hex(canonicalJson(value))}`;

/** The artifact id of content with this SHA-256. */
export function artifactId(sha256: string): string {
  return hashed("art", { schema_version: 1, sha256 });
}

/** The occurrence id of a path inside a root artifact. */
export function occurrenceId(
  rootArtifactId: string,
  logicalPath: string,
  entryKind: string,
): string {
  return hashed("occ", {
    root_artifact_id: rootArtifactId,
    logical_path: logicalPath,
    entry_kind: entryKind,
  });
}

/** The occurrence id of the root itself (logical path `.`). */
export function rootOccurrenceId(rootArtifactId: string): string {
  return hashed("occ", { root: rootArtifactId });
}

/** An edge id. */
export function edgeId(edge: {
  parent_artifact_id: string;
  child_artifact_id: string;
  relation: string;
  occurrence_id: string;
  logical_path: string | null;
}): string {
  return hashed("edge", {
    parent_artifact_id: edge.parent_artifact_id,
    child_artifact_id: edge.child_artifact_id,
    relation: edge.relation,
    occurrence_id: edge.occurrence_id,
    logical_path: edge.logical_path,
  });
}

/** A manifest id. */
export function manifestId(rootArtifactId: string, graphSha256: string): string {
  return hashed("agm", {
    schema_version: 1,
    root_artifact_id: rootArtifactId,
    graph_sha256: graphSha256,
  });
}

/** An integrity-contradiction id. */
export function contradictionId(value: {
  root_artifact_id: string;
  logical_path: string;
  declared: string;
  observed: string;
}): string {
  return hashed("ic", value);
}

/** An extraction id. */
export function extractionId(value: unknown): string {
  return hashed("aex", value);
}
