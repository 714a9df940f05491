/**
 * `list_unknowns`: the current heads of the residual-unknowns registry.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { MAX_UNKNOWN_PAGE, unknownLink } from "../context/unknown_support.ts";
import { limitField, offsetField } from "../schemas/inputs.ts";
import { LIST_UNKNOWNS } from "../tool_names.ts";
import {
  MAX_DOMAIN_LENGTH,
  unknownRecordSchema,
  unknownSeveritySchema,
  unknownStatusSchema,
  unknownUri,
} from "../unknowns/registry.ts";

/** Lists heads sorted by id with exact-match filters, paged. */
export function listUnknownsTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: LIST_UNKNOWNS,
    toolset: "unknowns",
    description:
      `List the current heads of the residual-unknowns registry (highest revision per id) sorted by unknown_id, with exact-match filters, one page at a time: follow next_offset until has_more is false (at most ${MAX_UNKNOWN_PAGE} per page). Read-only; close_binary clears the registry.`,
    input: z.strictObject({
      status: unknownStatusSchema.optional().describe("Only heads with this status."),
      severity: unknownSeveritySchema.optional().describe("Only heads with this severity."),
      domain: z.string().max(MAX_DOMAIN_LENGTH).optional().describe(
        "Only heads with exactly this domain.",
      ),
      offset: offsetField.describe(
        "Index of the first matching head to return.",
      ),
      limit: limitField(MAX_UNKNOWN_PAGE, 100).describe(
        `Heads per page (1 to ${MAX_UNKNOWN_PAGE}).`,
      ),
    }),
    result: z.object({
      items: z.array(z.object({ unknown: unknownRecordSchema, uri: z.string() })),
      offset: z.number().int(),
      limit: z.number().int(),
      total: z.number().int(),
      next_offset: z.number().int().nullable(),
      has_more: z.boolean(),
    }),
    effects: {},
    producesEvidence: false,
    run: (args) => {
      const matching = context.unknowns.heads().filter((head) =>
        (args.status === undefined || head.status === args.status) &&
        (args.severity === undefined || head.severity === args.severity) &&
        (args.domain === undefined || head.domain === args.domain)
      );
      const { offset, limit } = args;
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
  });
}
