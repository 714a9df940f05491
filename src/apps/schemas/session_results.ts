/**
 * Result schemas of the session tools: the open target, the artifact target,
 * the provider binding and the session status.
 *
 * @module
 */

import { z } from "zod";

/** A provider identity. */
export const providerSchema = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string().nullable(),
});

/** The analysis provider bound to the open binary. */
export const bindingSchema = z.object({
  provider: providerSchema,
  selection_source: z.string(),
  analysis_profile: z.object({
    schema_version: z.literal(1),
    provider: z.object({ id: z.string(), name: z.string(), version: z.string() }),
    provider_profile_schema_version: z.number().int(),
    parameters: z.record(z.string(), z.unknown()),
    digest: z.string(),
  }).nullable().describe(
    "The settings the bound provider's answers depend on, recorded in its Evidence; null until its version is known.",
  ),
});

/** The open binary target, described from its current document. */
export const targetSchema = z.object({
  path: z.string().describe("The path as requested."),
  real_path: z.string().describe("The resolved real path."),
  name: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  format: z.string().describe("elf, pe, mach-o or wasm."),
  documents: z.array(z.string()).describe(
    "Analysis documents: one per file, one per universal slice.",
  ),
  document: z.string().describe("The document the following fields describe (the current one)."),
  architecture: z.string(),
  machine: z.string(),
  bits: z.number().int(),
  endianness: z.string(),
  entry: z.string().nullable(),
  procedure_count: z.number().int().nullable().describe(
    "Procedures of the document; null until its first use (list_procedures, binary_overview or another analysis tool) reads its symbol and function tables.",
  ),
  import_count: z.number().int().nullable().describe(
    "Imported functions of the document (data imports such as environ are not counted); null until its first use, like procedure_count.",
  ),
  export_count: z.number().int().nullable().describe(
    "Exported symbols of the document; null until its first use, like procedure_count.",
  ),
  build_id: z.string().nullable(),
  warnings: z.array(z.string()),
  origin: z.object({
    artifact_path: z.string(),
    artifact_sha256: z.string(),
    occurrence_id: z.string(),
    logical_path: z.string(),
    inventory_evidence_id: z.string(),
  }).nullable().describe(
    "For a member of an artifact opened by occurrence_id: the artifact and the member, read in memory without extraction; null for a file.",
  ),
});

/** The active artifact target (a directory or archive). */
export const artifactTargetSchema = z.object({
  path: z.string().describe("The path as requested."),
  real_path: z.string(),
  name: z.string(),
  kind: z.enum(["directory", "file"]),
  format: z.string().describe(
    "directory, tar, deb, ar, zip (or jar, apk, whl, ipa, nupkg), gzip, xz or zstd.",
  ),
  size: z.number().int().describe("File size; for a directory, the bytes of its regular files."),
  sha256: z.string().describe(
    "The root's content digest; for a directory, the digest of its listing.",
  ),
  retained_scans: z.number().int(),
});

/** What `binary_session` reports. */
export const sessionSchema = z.object({
  server: z.object({ name: z.string(), version: z.string() }),
  target: targetSchema.nullable(),
  artifact_target: artifactTargetSchema.nullable().describe(
    "The active artifact target (directory or archive), when the target is not a binary.",
  ),
  current_document: z.string().nullable(),
  analysis_provider_binding: bindingSchema.nullable(),
  analysis_provider_candidates: z.array(z.object({
    provider: providerSchema,
    availability: z.object({ status: z.string(), code: z.string().nullable(), reason: z.string() }),
    target_support: z.object({
      status: z.string(),
      code: z.string().nullable(),
      reason: z.string(),
    }),
    selected: z.boolean(),
    capabilities: z.array(z.string()),
  })),
  capabilities: z.array(z.object({
    name: z.string(),
    available: z.boolean(),
    reason: z.string(),
    enable_with: z.string().nullable(),
    missing: z.array(z.object({
      what: z.string(),
      flag: z.string(),
      required: z.boolean().describe("false: a backend or feature is lost, the rest works."),
    })).optional().describe(
      "process_capture only: each Deno grant capture still lacks and the exact flag that gives it.",
    ),
  })),
  permissions: z.array(z.object({
    name: z.string(),
    target: z.string().nullable(),
    state: z.string(),
    flag: z.string(),
    purpose: z.string(),
  })),
  policy: z.object({
    read_only: z.boolean(),
    process_launch: z.boolean(),
    file_writes: z.boolean(),
  }),
  roots: z.array(z.object({ path: z.string(), real_path: z.string().nullable() })),
  ledger: z.object({
    records: z.number().int(),
    max_records: z.number().int(),
    bytes: z.number().int(),
    max_bytes: z.number().int(),
  }),
  capabilities_page: z.object({
    family: z.string().nullable(),
    cursor: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    next_cursor: z.number().int().nullable(),
  }).optional().describe(
    "How capabilities was filtered (capability_family) and paged (cursor, limit), when asked.",
  ),
  alignment: z.array(z.object({
    check: z.enum(["package_version", "server_path", "catalog_digest"]),
    expected: z.string(),
    actual: z.string().nullable(),
    matches: z.boolean().nullable().describe("Null when this server cannot say."),
  })).optional().describe("The expected_* checks the call asked for, each with what was found."),
});

/** The REA family each `binary_session` capability belongs to. */
export const CAPABILITY_FAMILIES: Readonly<Record<string, string>> = {
  open_targets: "session",
  list_procedures: "official-proxy",
  process_capture: "runtime-provider",
};

/** A page of `list_procedures`. */
export const procedurePageSchema = z.object({
  document: z.string(),
  items: z.array(z.object({ address: z.string(), value: z.string() })),
  offset: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  has_more: z.boolean(),
  next_offset: z.number().int().nullable(),
});
