/**
 * What the residual-unknowns tools share: registry errors as tool failures,
 * the refusal of free text the output policy would change, and the resource link of a head.
 *
 * @module
 */

import type { ResourceLinkSpec, ToolOutcome } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { firstInvisible } from "../../core/policy/sanitize.ts";
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

/**
 * Refuses free text the output policy would show changed: a string anywhere under `fields`
 * of `args` holding a character the sanitizer strips (an invisible or control character).
 * The unknown's id and revision digest cover the text as given, so a shown record without
 * the character could not be checked against them. Throws a ToolFailure naming the field
 * and the character's code point; nothing is written.
 */
export function refuseInvisibleText(
  args: Readonly<Record<string, unknown>>,
  fields: readonly string[],
): void {
  const check = (value: unknown, field: string): void => {
    if (typeof value === "string") {
      const found = firstInvisible(value);
      if (found === null) return;
      const codePoint = `U+${found.codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
      throw new ToolFailure(
        "invalid_request",
        `${field} holds ${codePoint} at offset ${found.index}, an invisible or control character: the output policy strips those from what it shows, while the unknown's id and digests cover the text as given. Text may hold tabs and line breaks but no other control or invisible characters.`,
        {
          action: `Remove ${codePoint} from ${field} and call again.`,
          details: { field, code_point: codePoint, offset: found.index },
        },
      );
    }
    if (Array.isArray(value)) value.forEach((item, i) => check(item, `${field}[${i}]`));
    else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) check(item, `${field}.${key}`);
    }
  };
  for (const field of fields) check(args[field], field);
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
