/**
 * What the residual-unknowns tools share: registry errors as tool failures,
 * and the resource link of a head.
 *
 * @module
 */

import type { ResourceLinkSpec, ToolOutcome } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import {
  type UnknownMutation,
  type UnknownRecord,
  UnknownRegistryError,
  unknownUri,
} from "../unknowns/registry.ts";

/** Largest `list_unknowns` page. */
export const MAX_UNKNOWN_PAGE = 500;
/** Most ids the `unknown` completion family offers. */
export const MAX_UNKNOWN_CANDIDATES = 10_000;

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

/** Runs a registry operation, translating its errors into tool failures. */
export async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw translate(error);
  }
}

/** The resource link of an unknown's head. */
export function unknownLink(head: UnknownRecord): ResourceLinkSpec {
  return {
    uri: unknownUri(head.unknown_id),
    name: head.unknown_id,
    description: `Residual unknown (${head.status}, revision ${head.revision}): ${
      head.question.slice(0, 120)
    }`,
    mimeType: "application/json",
  };
}

/**
 * Runs a registry write (a record or an update), translating its errors, and
 * answers with the new head, its Evidence and its link.
 */
export async function recordedHead(
  write: () => Promise<UnknownMutation>,
): Promise<Extract<ToolOutcome<UnknownRecord>, { kind: "recorded" }>> {
  const { head, evidence } = await translated(write);
  return { kind: "recorded", evidence, result: head, links: [unknownLink(head)] };
}
