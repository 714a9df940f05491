/**
 * `relation_groups`: the relation groups of a dataset's ontology with their
 * triple counts, or the triples of one group, paginated.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, pageArguments } from "../context/cloud_context.ts";
import { cursorFingerprint, decodeCursor, encodeCursor } from "../model/cursors.ts";
import { RELATION_GROUPS, type RelationGroup } from "../model/enums.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { ontologyOf, progressTo, withOntologyDataset } from "../context/ontology_support.ts";
import { countsSchema } from "../schemas/results.ts";

/** The tool's name. */
export const RELATION_GROUPS_TOOL = "relation_groups";

const GROUP_NAMES = Object.keys(RELATION_GROUPS) as RelationGroup[];

/** Builds the tool for one connection. */
export function relationGroupsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: RELATION_GROUPS_TOOL,
    toolset: "ontology",
    sensitivity: "confidential",
    description: `The ontology's relations by group (${
      GROUP_NAMES.join(", ")
    }). Without a group: every group with its triple count and the count of each relation type in it. With a group: its triples (subject, relation, object, with names), ordered by relation then subject then object, paginated with next_cursor.`,
    input: z.strictObject({
      group: z.string().max(64).default("").describe(
        "A relation group (case-insensitive); empty for the overview of all groups.",
      ),
      limit: z.number().int().min(1).max(500).default(100).describe(
        "Triples per page of a group listing, 1 to 500.",
      ),
      cursor: pageArguments.cursor,
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      kind: z.enum(["overview", "group"]),
      total: z.number().int().describe("Relation triples in all groups, or in the group."),
      groups: z.array(z.object({
        group: z.string(),
        triples: z.number().int(),
        relation_types: countsSchema,
      })).optional().describe("Overview: the groups in vocabulary order."),
      group: z.string().optional().describe("Listing: the group."),
      offset: z.number().int().optional(),
      returned: z.number().int().optional(),
      next_cursor: z.string().nullable().optional().describe(
        "Listing: pass as cursor for the next page; null on the last.",
      ),
      truncated: z.boolean().optional(),
      items: z.array(z.object({
        subject: z.string(),
        subject_name: z.string().nullable(),
        relation: z.string(),
        object: z.string(),
        object_name: z.string().nullable(),
      })).optional().describe("Listing: the triples of this page."),
    }),
    ...READS_ONLY,
    run: (args, context) =>
      withOntologyDataset(ctx, args.dataset, async (dataset) => {
        const group = args.group.trim() === ""
          ? ""
          : parseEnum(args.group, GROUP_NAMES, { label: "relation group" });
        const fingerprint = cursorFingerprint(dataset, { group });
        const offset = decodeCursor(args.cursor, fingerprint);
        const { engine } = await ontologyOf(ctx, dataset, progressTo(context));
        const found = await engine.relationGroups({ group, offset, limit: args.limit });
        if (found.kind === "overview") {
          return { kind: "result", result: { dataset: dataset.name, ...found } };
        }
        const end = found.offset + found.returned;
        return {
          kind: "result",
          result: {
            dataset: dataset.name,
            ...found,
            next_cursor: end < found.total ? encodeCursor(end, fingerprint) : null,
            truncated: end < found.total,
          },
        };
      }),
  });
}
