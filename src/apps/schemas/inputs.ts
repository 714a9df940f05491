/**
 * Input fields the apps tools share. Agents call these schemas: a change to
 * one changes every tool that uses it (the golden schemas in
 * `tests/golden/tools/` say which).
 *
 * @module
 */

import { z } from "zod";
import { DEFAULT_LIMITS, LIMIT_BOUNDS } from "../artifacts/model.ts";
import {
  authoritySchema,
  confidenceSchema,
  evidenceIdSchema,
  MAX_EVIDENCE_IDS,
  MAX_PROBES,
  MAX_RELATIONSHIPS,
  probeSchema,
  relationshipSchema,
  requiredEnvironmentSchema,
  unknownSeveritySchema,
} from "../unknowns/registry.ts";

/** A 0x-prefixed address of 1 to 16 hex digits. */
export const ADDRESS_PATTERN: RegExp = /^0x[0-9a-fA-F]{1,16}$/;

/** An Evidence id: `ev_` and 64 lowercase hex digits. */
export const EVIDENCE_ID_FIELD = z.string().regex(/^ev_[0-9a-f]{64}$/);

/** The optional document of a static-analysis call. */
export const documentField = z.string().max(4096).optional().describe(
  "A document from list_documents; the current document when left out.",
);

/** An address argument. */
export const addressField = z.string().regex(
  ADDRESS_PATTERN,
  "an address is 0x followed by 1 to 16 hex digits",
).describe("An address: 0x followed by hex digits.");

/** A procedure argument: its start address or its name. */
export const procedureField = z.string().min(1).max(4096).describe(
  "A procedure: its 0x start address, or its name (raw or demangled, or with its symbol version as nm -D writes it: memcpy@@GLIBC_2.14).",
);

/** The first item of a page. */
export const offsetField = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0)
  .describe("Index of the first item to return.");

/** Items per page, from 1 to `max`. */
export function limitField(max: number, fallback: number): z.ZodDefault<z.ZodNumber> {
  return z.number().int().min(1).max(max).default(fallback).describe(
    `Items per page (1 to ${max}).`,
  );
}

/** The query fields shared by the search tools: our `query`, or REA's `pattern` (the same argument). */
export const searchFields = {
  query: z.string().min(1).max(4096).optional().describe(
    "The text, or the pattern when mode is regex (query or pattern is required).",
  ),
  pattern: z.string().min(1).max(4096).optional().describe(
    "REA's name for query: the same text or pattern; give one of the two.",
  ),
  mode: z.enum(["literal", "regex"]).default("literal").describe("literal (substring) or regex."),
  case_sensitive: z.boolean().default(false).describe("Match case exactly."),
};

/**
 * REA's opt-in to automatic residual-unknown recording: with it, what the call
 * leaves unknown is written to the registry beside its Evidence.
 */
export const unknownRegistryApprovedField = z.literal(true).optional().describe(
  "true: also record in the residual-unknowns registry what this call left unknown (its limitations and incomplete results), citing its Evidence; nothing is written without it.",
);

/**
 * The fields every analysis of one document ends its input with: which
 * document, and the opt-in to record what the call leaves unknown.
 */
export const documentFields = {
  document: documentField,
  unknown_registry_approved: unknownRegistryApprovedField,
};

/** The traversal limits of an artifact scan. */
export const traversalLimitFields = {
  max_entries: z.number().int().min(1).max(LIMIT_BOUNDS.max_entries).default(
    DEFAULT_LIMITS.max_entries,
  )
    .describe(`Most entries (occurrences) to walk, 1–${LIMIT_BOUNDS.max_entries}.`),
  max_total_bytes: z.number().int().min(1).max(LIMIT_BOUNDS.max_total_bytes).default(
    DEFAULT_LIMITS.max_total_bytes,
  )
    .describe("Most bytes to read in total, decompressed bytes included."),
  max_entry_bytes: z.number().int().min(1).max(LIMIT_BOUNDS.max_entry_bytes).default(
    DEFAULT_LIMITS.max_entry_bytes,
  )
    .describe(
      "Largest single member to hash or decompress; larger ones are listed but not hashed.",
    ),
  max_compression_ratio: z.number().int().min(1).max(LIMIT_BOUNDS.max_compression_ratio)
    .default(DEFAULT_LIMITS.max_compression_ratio).describe(
      "Largest decompressed/compressed ratio before a stream counts as a bomb and stops.",
    ),
  max_depth: z.number().int().min(0).max(LIMIT_BOUNDS.max_depth).default(DEFAULT_LIMITS.max_depth)
    .describe(
      "Deepest archive nesting to descend into (0: do not open archives).",
    ),
  max_path_bytes: z.number().int().min(1).max(LIMIT_BOUNDS.max_path_bytes).default(
    DEFAULT_LIMITS.max_path_bytes,
  )
    .describe("Longest logical path, in UTF-8 bytes."),
};

/** The offset and limit of one paged collection of an artifact tool. */
export function pageFields(what: string): {
  offset: z.ZodDefault<z.ZodNumber>;
  limit: z.ZodDefault<z.ZodNumber>;
} {
  return {
    offset: offsetField.describe(
      `Index of the first ${what}.`,
    ),
    limit: limitField(500, 100).describe(`${what}s per page (1–500).`),
  };
}

/** The approval every registry write needs. */
export const registryApprovalField = z.literal(true).describe(
  "Must be true: writes to the residual-unknowns registry need explicit approval on every call.",
);

/** A list of retained Evidence ids an unknown cites. */
export function evidenceListField(what: string): z.ZodArray<typeof evidenceIdSchema> {
  return z.array(evidenceIdSchema).max(MAX_EVIDENCE_IDS).describe(
    `${what} (at most ${MAX_EVIDENCE_IDS} retained ev_ ids; sorted and deduplicated on write).`,
  );
}

/** The state fields `record_unknown` and `update_unknown` both write. */
export const unknownStateFields = {
  severity: unknownSeveritySchema.describe("low, medium, high or critical."),
  required_authority: authoritySchema.nullable().describe(
    "The authority Evidence must have to verify a resolution (shipped-artifact, controlled-replay, historical-reference, external-service, analyst-inference), or null for any.",
  ),
  required_confidence: confidenceSchema.describe(
    "The least confidence verifying Evidence must have: inferred < derived < observed.",
  ),
  required_environment: requiredEnvironmentSchema.nullable().describe(
    "Where verifying Evidence must have been observed: {id, platform, architecture, isolation}, each null for any; or null for no requirement.",
  ),
  recommended_probes: z.array(probeSchema).max(MAX_PROBES).describe(
    `Up to ${MAX_PROBES} {operation, rationale} probes that would help settle the question.`,
  ),
  relationships: z.array(relationshipSchema).max(MAX_RELATIONSHIPS).describe(
    `Up to ${MAX_RELATIONSHIPS} {type: depends-on|related-to|contradicts, unknown_id} links to current heads; depends-on must stay acyclic.`,
  ),
};
