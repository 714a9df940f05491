/**
 * The residual-unknowns tools of the apps workbench (`record_unknown`,
 * `update_unknown`, `list_unknowns`, `verify_unknown_resolution`), the
 * `unknown` completion family and the `rea://unknown/{unknownId}` resource.
 * Handlers translate; the registry lives in `unknowns/registry.ts`.
 *
 * @module
 */

import { z } from "zod";
import type { ResourceLinkSpec, ToolDefinition, ToolOutcome } from "../core/catalog.ts";
import { ToolFailure } from "../core/errors.ts";
import type { BinarySubject as EvidenceSubject } from "./evidence.ts";
import type { CompletionFamily, ResourceTemplateDefinition } from "../core/workbench.ts";
import {
  authoritySchema,
  confidenceSchema,
  evidenceIdSchema,
  MAX_DOMAIN_LENGTH,
  MAX_EVIDENCE_IDS,
  MAX_PROBES,
  MAX_QUESTION_LENGTH,
  MAX_RELATIONSHIPS,
  probeSchema,
  type RecordUnknownInput,
  relationshipSchema,
  requiredEnvironmentSchema,
  resolutionInputSchema,
  UNKNOWN_ID_PATTERN,
  unknownIdSchema,
  type UnknownRecord,
  unknownRecordSchema,
  type UnknownRegistry,
  UnknownRegistryError,
  unknownSeveritySchema,
  unknownStatusSchema,
  unknownUri,
  type UpdateUnknownInput,
} from "./unknowns/registry.ts";
import {
  LIST_UNKNOWNS,
  RECORD_UNKNOWN,
  UPDATE_UNKNOWN,
  VERIFY_UNKNOWN_RESOLUTION,
} from "./tool_names.ts";

/** Largest `list_unknowns` page. */
export const MAX_UNKNOWN_PAGE = 500;
/** Most ids the `unknown` completion family offers. */
export const MAX_UNKNOWN_CANDIDATES = 10_000;

/** What the unknown tools need from the workbench. */
export interface UnknownToolDeps {
  registry: UnknownRegistry;
  /** The active target's subject (its digest scopes new unknowns), or null when none is open. */
  subject(): EvidenceSubject | null;
  /** Tells resource subscribers that `rea://unknown/<id>` changed. */
  notifyResourceUpdated(uri: string): void;
}

const approved = z.literal(true).describe(
  "Must be true: writes to the residual-unknowns registry need explicit approval on every call.",
);
const evidenceList = (what: string) =>
  z.array(evidenceIdSchema).max(MAX_EVIDENCE_IDS).describe(
    `${what} (at most ${MAX_EVIDENCE_IDS} retained ev_ ids; sorted and deduplicated on write).`,
  );
const stateFields = {
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

const headResult = unknownRecordSchema;

/** Translates registry errors into tool failures; passes everything else through. */
function translate(error: unknown): unknown {
  if (!(error instanceof UnknownRegistryError)) return error;
  const details: Record<string, unknown> = { registry_error: error.kind };
  if (error.unknownId !== null) details.unknown_id = error.unknownId;
  if (error.currentRevision !== null) details.current_revision = error.currentRevision;
  const message = `UnknownRegistryError: ${error.kind}: ${error.message}`;
  switch (error.kind) {
    case "revision-conflict":
      return new ToolFailure("revision_conflict", message, {
        retryable: true,
        action: error.currentRevision === null
          ? "Read the unknown again and retry with its current revision."
          : `Read rea://unknown/${error.unknownId}, then retry with expected_revision ${error.currentRevision}.`,
        details,
      });
    case "already-exists":
      return new ToolFailure("invalid_request", message, {
        action:
          `Use update_unknown on ${error.unknownId} with expected_revision ${error.currentRevision}.`,
        details,
      });
    case "not-found":
      return new ToolFailure("invalid_request", message, {
        action: "Call list_unknowns for the current unknown ids.",
        details,
      });
    case "integrity":
      return new ToolFailure("invalid_request", message, {
        action:
          "Cite only Evidence retained in this session and relationships to current heads, without depends-on cycles.",
        details,
      });
    default:
      return new ToolFailure("invalid_request", message, { details });
  }
}

async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw translate(error);
  }
}

function unknownLink(head: UnknownRecord): ResourceLinkSpec {
  return {
    uri: unknownUri(head.unknown_id),
    name: head.unknown_id,
    description: `Residual unknown (${head.status}, revision ${head.revision}): ${
      head.question.slice(0, 120)
    }`,
    mimeType: "application/json",
  };
}

/** The four registry tools; also forwards registry changes to resource subscribers. */
export function unknownTools(deps: UnknownToolDeps): ToolDefinition[] {
  const { registry } = deps;
  registry.onChange((ids) => {
    for (const id of ids) deps.notifyResourceUpdated(unknownUri(id));
  });
  return [
    {
      name: RECORD_UNKNOWN,
      description:
        "Record a question the investigation has not settled as a residual unknown at revision 1, scoped to the open target (the same question under another target is another unknown). Needs approved: true. Written atomically with one mutation Evidence record (intent, not proof); status starts contradicted when contradicting Evidence is given, otherwise open. Fails if the same question already exists: change it with update_unknown.",
      input: z.strictObject({
        approved,
        question: z.string().min(1).max(4 * MAX_QUESTION_LENGTH).describe(
          `The question, 1 to ${MAX_QUESTION_LENGTH} characters once trimmed with whitespace runs collapsed; it is part of the id.`,
        ),
        domain: z.string().min(1).max(4 * MAX_DOMAIN_LENGTH).describe(
          `A short area such as parsing or process-file (1 to ${MAX_DOMAIN_LENGTH} characters trimmed); part of the id.`,
        ),
        supporting_evidence_ids: evidenceList("Evidence supporting the question").default([]),
        contradicting_evidence_ids: evidenceList("Evidence contradicting it").default([]),
        ...stateFields,
      }),
      result: headResult,
      effects: { mutatesSession: true, idempotent: false },
      producesEvidence: true,
      run: (args) =>
        translated(async (): Promise<ToolOutcome> => {
          const { head, evidence } = await registry.record(
            args as unknown as RecordUnknownInput,
            { subject: deps.subject() },
          );
          return { kind: "recorded", evidence, result: head, links: [unknownLink(head)] };
        }),
    },
    {
      name: UPDATE_UNKNOWN,
      description:
        "Replace a residual unknown's full state by compare-and-swap: expected_revision must be the head's revision (a stale write fails with revision_conflict and changes nothing). Needs approved: true. Status resolved requires a resolution; a verified resolution needs a resolution Evidence id that is also supporting, retained, not registry mutation Evidence, and meets the required authority, confidence and environment, with no contradicting Evidence. Resolved unknowns may be reopened. Written atomically with one mutation Evidence record.",
      input: z.strictObject({
        approved,
        unknown_id: unknownIdSchema.describe("The unknown to change (unk_ + 64 hex)."),
        expected_revision: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe(
          "The head revision this change is based on; read rea://unknown/<id> for it.",
        ),
        status: unknownStatusSchema.describe(
          "open, investigating, blocked, contradicted (needs contradicting Evidence) or resolved (needs a resolution).",
        ),
        supporting_evidence_ids: evidenceList("Evidence supporting the question"),
        contradicting_evidence_ids: evidenceList("Evidence contradicting it"),
        ...stateFields,
        resolution: resolutionInputSchema.nullable().describe(
          "null unless status is resolved; {disposition: verified (1+ qualifying evidence_ids, a truth claim) | withdrawn | out-of-scope (not truth claims), rationale, evidence_ids}.",
        ),
      }),
      result: headResult,
      effects: { mutatesSession: true, idempotent: false },
      producesEvidence: true,
      run: (args) =>
        translated(async (): Promise<ToolOutcome> => {
          const { head, evidence } = await registry.update(
            args as unknown as UpdateUnknownInput,
            { subject: deps.subject() },
          );
          return { kind: "recorded", evidence, result: head, links: [unknownLink(head)] };
        }),
    },
    {
      name: LIST_UNKNOWNS,
      description:
        `List the current heads of the residual-unknowns registry (highest revision per id) sorted by unknown_id, with exact-match filters, one page at a time: follow next_offset until has_more is false (at most ${MAX_UNKNOWN_PAGE} per page). Read-only; close_binary clears the registry.`,
      input: z.strictObject({
        status: unknownStatusSchema.optional().describe("Only heads with this status."),
        severity: unknownSeveritySchema.optional().describe("Only heads with this severity."),
        domain: z.string().max(MAX_DOMAIN_LENGTH).optional().describe(
          "Only heads with exactly this domain.",
        ),
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).describe(
          "Index of the first matching head to return.",
        ),
        limit: z.number().int().min(1).max(MAX_UNKNOWN_PAGE).default(100).describe(
          `Heads per page (1 to ${MAX_UNKNOWN_PAGE}).`,
        ),
      }),
      result: z.object({
        items: z.array(z.object({ unknown: headResult, uri: z.string() })),
        offset: z.number().int(),
        limit: z.number().int(),
        total: z.number().int(),
        next_offset: z.number().int().nullable(),
        has_more: z.boolean(),
      }),
      effects: {},
      producesEvidence: false,
      run: (args) => {
        const matching = registry.heads().filter((head) =>
          (args.status === undefined || head.status === args.status) &&
          (args.severity === undefined || head.severity === args.severity) &&
          (args.domain === undefined || head.domain === args.domain)
        );
        const offset = args.offset as number;
        const limit = args.limit as number;
        const page = matching.slice(offset, offset + limit);
        const end = offset + page.length;
        const hasMore = end < matching.length;
        return Promise.resolve({
          kind: "result",
          result: {
            items: page.map((unknown) => ({ unknown, uri: unknownUri(unknown.unknown_id) })),
            offset,
            limit,
            total: matching.length,
            next_offset: hasMore ? end : null,
            has_more: hasMore,
          },
          links: page.map(unknownLink),
        });
      },
    },
    {
      name: VERIFY_UNKNOWN_RESOLUTION,
      description:
        "Report whether a residual unknown is resolved (valid) and whether its resolution is a verified truth claim backed by qualifying Evidence (truthVerified); withdrawn and out-of-scope resolutions are valid but not truth claims. Read-only: qualification was enforced when the resolution was written.",
      input: z.strictObject({
        unknown_id: unknownIdSchema.describe("The unknown to check (unk_ + 64 hex)."),
      }),
      result: z.object({
        valid: z.boolean(),
        truthVerified: z.boolean(),
        unknown: headResult,
      }),
      effects: {},
      producesEvidence: false,
      run: (args) =>
        translated(() => {
          const head = registry.verify(args.unknown_id as string);
          return Promise.resolve<ToolOutcome>({
            kind: "result",
            result: head,
            links: [unknownLink(head.unknown)],
          });
        }),
    },
  ];
}

/** The `unknown` completion family: current heads that are not resolved, sorted by id. */
export function unknownCompletionFamily(registry: UnknownRegistry): CompletionFamily {
  return {
    source: () =>
      registry.heads().filter((head) => head.status !== "resolved").slice(
        0,
        MAX_UNKNOWN_CANDIDATES,
      ).map((head) => head.unknown_id),
  };
}

/** The `rea://unknown/{unknownId}` resource: `{current, history}` of one unknown. */
export function unknownResourceTemplate(registry: UnknownRegistry): ResourceTemplateDefinition {
  return {
    name: "unknown",
    title: "Residual unknown",
    uriTemplate: "rea://unknown/{unknownId}",
    description:
      "A residual unknown of this session: {current, history}, the head and every revision oldest first.",
    mimeType: "application/json",
    variables: {
      unknownId: {
        source: () => registry.heads().slice(0, MAX_UNKNOWN_CANDIDATES).map((h) => h.unknown_id),
      },
    },
    list: () =>
      registry.heads().slice(0, MAX_UNKNOWN_CANDIDATES).map((head) => ({
        uri: unknownUri(head.unknown_id),
        name: head.unknown_id,
        description: `${head.status} ${head.severity} unknown in ${head.domain}`,
        mimeType: "application/json",
      })),
    read: (variables, uri) => {
      const id = variables.unknownId ?? "";
      const current = UNKNOWN_ID_PATTERN.test(id) ? registry.get(id) : undefined;
      return Promise.resolve(
        current
          ? {
            uri,
            mimeType: "application/json",
            text: JSON.stringify({ current, history: registry.history(id) }),
          }
          : null,
      );
    },
  };
}
