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

// The ids a scan computes for every member are written as canonical JSON
// directly: keys already in code-unit order, strings as JSON.stringify writes
// them, exactly what canonicalJson() gives for these objects.
const str = JSON.stringify;

/** The artifact id of content with this SHA-256. */
export function artifactId(sha256: string): string {
  if (typeof sha256 !== "string") return hashed("art", { schema_version: 1, sha256 });
  return `art_${sha256Hex(`{"schema_version":1,"sha256":${str(sha256)}}`)}`;
}

/** The occurrence id of a path inside a root artifact. */
export function occurrenceId(
  rootArtifactId: string,
  logicalPath: string,
  entryKind: string,
): string {
  if (
    typeof rootArtifactId !== "string" || typeof logicalPath !== "string" ||
    typeof entryKind !== "string"
  ) {
    return hashed("occ", {
      root_artifact_id: rootArtifactId,
      logical_path: logicalPath,
      entry_kind: entryKind,
    });
  }
  return `occ_${
    sha256Hex(
      `{"entry_kind":${str(entryKind)},"logical_path":${str(logicalPath)},"root_artifact_id":${
        str(rootArtifactId)
      }}`,
    )
  }`;
}

/** The occurrence id of the root itself (logical path `.`). */
export function rootOccurrenceId(rootArtifactId: string): string {
  if (typeof rootArtifactId !== "string") return hashed("occ", { root: rootArtifactId });
  return `occ_${sha256Hex(`{"root":${str(rootArtifactId)}}`)}`;
}

/** An edge id. */
export function edgeId(edge: {
  parent_artifact_id: string;
  child_artifact_id: string;
  relation: string;
  occurrence_id: string;
  logical_path: string | null;
}): string {
  const { parent_artifact_id, child_artifact_id, relation, occurrence_id, logical_path } = edge;
  if (
    typeof parent_artifact_id !== "string" || typeof child_artifact_id !== "string" ||
    typeof relation !== "string" || typeof occurrence_id !== "string" ||
    (typeof logical_path !== "string" && logical_path !== null)
  ) {
    return hashed("edge", {
      parent_artifact_id,
      child_artifact_id,
      relation,
      occurrence_id,
      logical_path,
    });
  }
  return `edge_${
    sha256Hex(
      `{"child_artifact_id":${str(child_artifact_id)},"logical_path":${
        str(logical_path)
      },"occurrence_id":${str(occurrence_id)},"parent_artifact_id":${
        str(parent_artifact_id)
      },"relation":${str(relation)}}`,
    )
  }`;
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
