/**
 * Result schemas of the artifact tools: inventory pages, comparisons,
 * extractions, Evidence bundles and reconstruction verification.
 *
 * @module
 */

import { z } from "zod";
import { inventoryPageSchema } from "../artifacts/model.ts";
import { listPageSchema } from "./page.ts";
import { CLAIM_DIMENSIONS, type ClaimKind } from "../reconstruction/specification.ts";

const int = z.number().int();
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** `inventory_artifact`: one page of the scan's nodes, occurrences and edges. */
export const inventoryResultSchema = inventoryPageSchema;

const changeStatus = z.enum(["added", "removed", "changed", "moved", "unchanged", "unknown"]);

const changeSide = z.object({
  occurrence_id: z.string(),
  logical_path: z.string().describe(
    "This side's path (differs from the change's when an enclosing container was renamed).",
  ),
  entry_kind: z.string(),
  content_kind: z.string().nullable(),
  format: z.string().nullable(),
  sha256: sha256.nullable(),
  size: int.nullable(),
  executable: z.boolean(),
  mode: z.string().nullable().describe("Permission bits in octal (0644)."),
  link_target: z.string().nullable(),
  hash_status: z.string(),
});

const symbolSummary = z.object({
  left_procedures: int,
  right_procedures: int,
  added: z.array(z.string()),
  removed: z.array(z.string()),
  resized: z.array(z.object({ name: z.string(), left_size: int, right_size: int })),
  added_count: int,
  removed_count: int,
  resized_count: int,
  ambiguous_names: int.describe(
    "Names seen at more than one address on a side (compared by count).",
  ),
  truncated: z.boolean(),
  recoded: z.array(z.object({ name: z.string(), size: int })).nullable().describe(
    "Named procedures of unchanged size whose instructions differ (addresses masked); null when the code was not decoded.",
  ),
  recoded_count: int,
  unnamed: z.object({
    left_unnamed: int,
    right_unnamed: int,
    matched: int,
    by_confidence: z.object({ high: int, medium: int, low: int }),
    changed: z.array(z.object({
      left_address: z.string(),
      right_address: z.string(),
      left_size: int,
      right_size: int,
      code_changed: z.boolean(),
      confidence: z.enum(["high", "medium", "low"]),
      score: z.number(),
      anchors: z.array(z.object({
        kind: z.enum(["name", "digest", "strings", "callees", "callers", "order"]),
        detail: z.array(z.string()),
      })).describe("The anchors that paired the two procedures, and what matched."),
      strings_gained: z.array(z.string()).describe("Strings only the right version references."),
      strings_lost: z.array(z.string()).describe("Strings only the left version references."),
      callees_gained: z.array(z.string()).describe("Named callees only the right version calls."),
      callees_lost: z.array(z.string()).describe("Named callees only the left version calls."),
    })),
    changed_count: int,
    unmatched_left: z.array(z.string()),
    unmatched_right: z.array(z.string()),
    unmatched_left_count: int,
    unmatched_right_count: int,
    truncated: z.boolean(),
  }).nullable().describe(
    "Unnamed procedures (stripped static functions) paired across the versions by anchors; null when the code was not decoded.",
  ),
});

const inventorySide = z.object({
  manifest_id: z.string(),
  complete: z.boolean(),
  root_sha256: sha256,
});

/** `compare_artifacts`. */
export const compareArtifactsResultSchema = z.object({
  status: z.enum(["truncated", "contradiction", "unknown", "unchanged", "changed"]),
  left: inventorySide,
  right: inventorySide,
  summary: z.object({
    added: int,
    removed: int,
    changed: int,
    moved: int,
    unchanged: int,
    unknown: int,
  }).describe("Paths per status, unchanged included."),
  changes: listPageSchema(z.object({
    logical_path: z.string(),
    status: changeStatus,
    moved_from: z.string().nullable(),
    dimensions: z.array(z.string()),
    left: changeSide.nullable(),
    right: changeSide.nullable(),
    procedures: z.union([symbolSummary, z.object({ unavailable: z.string() })]).nullable()
      .describe("For a changed binary: its procedures compared, or why they could not be."),
  })),
  limitations: z.array(z.string()),
});

/** `extract_artifact`. */
export const extractResultSchema = z.object({
  extraction_manifest: z.object({
    schema_version: z.literal(1),
    extraction_id: z.string(),
    source_manifest_id: z.string(),
    selected_occurrence_ids: z.array(z.string()),
    files_sha256: sha256,
    output_root_alias: z.literal("$OUTPUT_ROOT"),
  }),
  files: listPageSchema(z.object({
    occurrence_id: z.string(),
    logical_path: z.string(),
    sha256,
    size: int,
  })),
  written_files: int.describe(
    "Files this call wrote: the whole selection, whatever offset and limit say (they page only files, the report).",
  ),
  paging_note: z.string().describe("How files pages the report of what was written."),
  containment_verified: z.boolean(),
  cleanup: z.object({
    attempted: z.boolean(),
    verified: z.boolean(),
    residual_paths: z.array(z.string()),
  }),
});

/** `snapshot_evidence_bundle`. */
export const snapshotResultSchema = z.object({
  bundle_digest: sha256,
  bundle_version: z.literal(2),
  bytes: int,
  records: int,
  unknowns: int,
  scope: z.literal("session"),
  survives_session: z.literal(false),
  bundle_uri: z.string(),
});

/** `release_evidence_bundle`. */
export const releaseResultSchema = z.object({ bundle_digest: z.string(), released: z.boolean() });

const claimKinds = Object.keys(CLAIM_DIMENSIONS) as [ClaimKind, ...ClaimKind[]];
const claimStatus = z.enum(["pass", "fail", "unknown"]);

/** `verify_reconstruction`. */
export const verificationResultSchema = z.object({
  status: claimStatus,
  specification_sha256: sha256,
  summary: z.object({
    total: int,
    passed: int,
    failed: int,
    unknown: int,
    behavioral: int,
    structural: int,
  }),
  claims: listPageSchema(z.object({
    claim_id: z.string(),
    kind: z.enum(claimKinds),
    dimension: z.string(),
    status: claimStatus,
    observed_status: z.string(),
    comparison_evidence_id: z.string(),
    left_evidence_ids: z.array(z.string()),
    right_evidence_ids: z.array(z.string()),
    evidence_links: z.array(z.string()),
    unknown_ids: z.array(z.string()),
    limitations: z.array(z.string()),
  })),
  recommended_probes: z.array(z.object({
    operation: z.string(),
    rationale: z.string(),
    claim_ids: z.array(z.string()),
    unknown_ids: z.array(z.string()),
  })),
  evidence_links: z.array(z.string()),
  limitations: z.array(z.string()),
});
