/**
 * The artifact content graph: nodes (unique contents), occurrences (paths
 * where content appears) and edges (containment and extraction), with the
 * schema every inventory page is validated against, on output and again when
 * completion or comparison reads a retained page.
 *
 * @module
 */

import { z } from "zod";
import type { ItemChars } from "./graph_digest.ts";

import type { TraversalLimits } from "./limits.ts";

export { DEFAULT_LIMITS, LIMIT_BOUNDS, type TraversalLimits } from "./limits.ts";

export const NODE_KINDS = [
  "container",
  "executable",
  "dynamic-library",
  "object",
  "script",
  "javascript",
  "resource",
  "package-metadata",
  "unknown",
] as const;

export const NODE_FORMATS = [
  "directory",
  "tar",
  "ar",
  "deb",
  "gzip",
  "xz",
  "zstd",
  "bzip2",
  "zip",
  "jar",
  "apk",
  "whl",
  "ipa",
  "nupkg",
  "elf",
  "pe",
  "mach-o",
  "mach-o-universal",
  "wasm",
  "file",
  "unknown",
] as const;

/** What the bytes of a file are, judged from their first bytes. */
export const CONTENT_KINDS = [
  "elf",
  "pe",
  "mach-o",
  "mach-o-universal",
  "wasm",
  "script",
  "text",
  "data",
  "directory",
] as const;

export const ENTRY_KINDS = ["file", "directory", "symlink", "hardlink", "special"] as const;

export const HASH_STATUSES = ["verified", "mismatched", "not-hashed-limit", "unavailable"] as const;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const prefixed = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9a-f]{64}$`));

/** A unique content. */
export const nodeSchema = z.object({
  artifact_id: prefixed("art"),
  kind: z.enum(NODE_KINDS),
  format: z.enum(NODE_FORMATS),
  content_kind: z.enum(CONTENT_KINDS),
  sha256: hex64,
  size: z.number().int().min(0),
  media_type: z.string().nullable(),
  architecture: z.string().nullable(),
  executable: z.boolean(),
  content_state: z.enum(["materialized", "embedded", "virtual"]),
  limitations: z.array(z.string()),
});
export type ArtifactNode = z.infer<typeof nodeSchema>;

/**
 * `.`, or segments joined by `/`, each non-empty, without `\` or NUL, and
 * neither `.` nor `..` (so no leading, trailing or doubled `/` either).
 */
const NORMALISED_PATH = /^(?:\.|(?!\.\.?(?:\/|$))[^/\\\0]+(?:\/(?!\.\.?(?:\/|$))[^/\\\0]+)*)$/;

/** Whether `path` is a normalised relative POSIX path (see {@linkcode logicalPathSchema}). */
export function isNormalisedPath(path: string): boolean {
  return NORMALISED_PATH.test(path);
}

/** A normalised relative POSIX path: no leading `/`, no `\`, no empty, `.` or `..` segment. */
export const logicalPathSchema = z.string().min(1).max(65_535).refine(
  isNormalisedPath,
  "not a normalised relative path",
);

/** Permission bits (set-id and sticky included, file type left out) as four octal digits: 0644. */
export function octalMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

/** A path where content appears. */
export const occurrenceSchema = z.object({
  occurrence_id: prefixed("occ"),
  artifact_id: prefixed("art").nullable(),
  parent_occurrence_id: prefixed("occ").nullable(),
  logical_path: logicalPathSchema,
  entry_kind: z.enum(ENTRY_KINDS),
  content_kind: z.enum(CONTENT_KINDS).nullable(),
  sha256: hex64.nullable(),
  size: z.number().int().min(0).nullable(),
  declared_size: z.number().int().min(0).nullable(),
  compressed_size: z.number().int().min(0).nullable(),
  mode: z.string().regex(/^[0-7]{4}$/).nullable().describe(
    "Permission bits in octal, as ls and chmod spell them (0644).",
  ),
  link_target: z.string().nullable(),
  executable: z.boolean(),
  encrypted: z.boolean(),
  hash_status: z.enum(HASH_STATUSES),
  source_location: z.object({ offset: z.number().int().min(0), length: z.number().int().min(0) })
    .nullable(),
  original_name_hex: z.string().nullable(),
  limitations: z.array(z.string()),
});
export type ArtifactOccurrence = z.infer<typeof occurrenceSchema>;

/** A relation between a parent and a child content. */
export const edgeSchema = z.object({
  edge_id: prefixed("edge"),
  ordinal: z.number().int().min(0),
  parent_artifact_id: prefixed("art"),
  child_artifact_id: prefixed("art"),
  relation: z.enum(["contains", "extracts"]),
  occurrence_id: prefixed("occ"),
  logical_path: z.string().nullable(),
  producer: z.null(),
});
export type ArtifactEdge = z.infer<typeof edgeSchema>;

/** A checksum the archive declared that its content did not match. */
export const contradictionSchema = z.object({
  contradiction_id: prefixed("ic"),
  logical_path: logicalPathSchema,
  check: z.enum([
    "crc32",
    "gzip-crc32",
    "gzip-isize",
    "bzip2-crc32",
    "zstd-checksum",
    "root-digest",
  ]),
  declared: z.string(),
  observed: z.string(),
});
export type IntegrityContradiction = z.infer<typeof contradictionSchema>;

export const manifestSchema = z.object({
  schema_version: z.literal(1),
  manifest_id: prefixed("agm"),
  root_artifact_id: prefixed("art"),
  root_sha256: hex64,
  root_format: z.enum(NODE_FORMATS),
  graph_sha256: hex64,
  node_count: z.number().int().min(1),
  occurrence_count: z.number().int().min(1),
  edge_count: z.number().int().min(0),
  complete: z.boolean(),
});
export type ArtifactManifest = z.infer<typeof manifestSchema>;

const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item).max(500),
    offset: z.number().int().min(0),
    limit: z.number().int().min(1).max(500),
    total: z.number().int().min(0),
    next_offset: z.number().int().min(1).nullable(),
  }).refine(
    (page) =>
      page.next_offset ===
        (page.offset + page.limit < page.total ? page.offset + page.limit : null) &&
      page.items.length === Math.max(0, Math.min(page.limit, page.total - page.offset)),
    "page bounds do not agree with total",
  );

export const limitsSchema = z.object({
  max_entries: z.number().int(),
  max_total_bytes: z.number().int(),
  max_entry_bytes: z.number().int(),
  max_compression_ratio: z.number().int(),
  max_depth: z.number().int(),
  max_path_bytes: z.number().int(),
});

/** One `inventory_artifact` page: what its Evidence records and what completion re-validates. */
export const inventoryPageSchema = z.object({
  manifest: manifestSchema,
  nodes: pageOf(nodeSchema),
  occurrences: pageOf(occurrenceSchema),
  edges: pageOf(edgeSchema),
  limits: limitsSchema,
  integrity_contradictions: z.array(contradictionSchema).max(100),
  limitations: z.array(z.string()),
}).refine(
  (page) =>
    page.nodes.total === page.manifest.node_count &&
    page.occurrences.total === page.manifest.occurrence_count &&
    page.edges.total === page.manifest.edge_count,
  "page totals do not match the manifest",
);
export type InventoryPage = z.infer<typeof inventoryPageSchema>;

/** A finished scan: the immutable snapshot every page projects. */
export interface ArtifactSnapshot {
  manifest: ArtifactManifest;
  nodes: ArtifactNode[];
  occurrences: ArtifactOccurrence[];
  edges: ArtifactEdge[];
  integrity_contradictions: IntegrityContradiction[];
  limits: TraversalLimits;
  limitations: string[];
  /** Bytes read, decompressed bytes included. */
  bytes_read: number;
  /**
   * Characters of each item's JSON, which pages are bounded by; absent on a
   * snapshot not made by a scan (its items are measured as pages take them).
   */
  item_chars?: ItemChars;
}

/** A page of a sorted collection. */
export function pageOfItems<T>(
  items: readonly T[],
  offset: number,
  limit: number,
): { items: T[]; offset: number; limit: number; total: number; next_offset: number | null } {
  const total = items.length;
  return {
    items: items.slice(offset, offset + limit),
    offset,
    limit,
    total,
    next_offset: offset + limit < total ? offset + limit : null,
  };
}
