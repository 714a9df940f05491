/**
 * `describe_schema`: the cloud data model's vocabularies.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, translated } from "../context/cloud_context.ts";
import { describeSchema, SCHEMA_SECTIONS } from "../meta/vocabulary.ts";
import { parseEnum } from "../model/parse_enum.ts";

/** The tool's name. */
export const DESCRIBE_SCHEMA = "describe_schema";

/** Builds the tool for one connection. */
export function describeSchemaTool(ctx: CloudContext): ToolDefinition {
  void ctx;
  return defineTool({
    name: DESCRIBE_SCHEMA,
    toolset: "meta",
    sensitivity: "public",
    description:
      "Describe the data model's vocabularies: asset types by family, edge types (reading, typical endpoints, dependency direction), severities (rank, base risk), relation types, relation groups, compliance statuses and providers. section narrows to one; all returns every section. Needs no dataset. Use explain_asset_type or explain_edge_type for one value in depth.",
    input: z.strictObject({
      section: z.string().max(32).default("all").describe(
        `${SCHEMA_SECTIONS.join(", ")}. Default all.`,
      ),
    }),
    result: z.object({
      section: z.string(),
      asset_types: z.object({
        count: z.number().int(),
        families: z.array(z.object({ family: z.string(), types: z.array(z.string()) })),
      }).optional(),
      edge_types: z.array(z.object({
        edge_type: z.string(),
        reads_as: z.string(),
        typical: z.string(),
        dependency_direction: z.string(),
      })).optional(),
      severities: z.array(z.object({
        severity: z.string(),
        rank: z.number().int(),
        base_risk: z.number(),
      })).optional(),
      relation_types: z.object({ count: z.number().int(), types: z.array(z.string()) })
        .optional(),
      relation_groups: z.array(z.object({
        group: z.string(),
        count: z.number().int(),
        relation_types: z.array(z.string()),
      })).optional(),
      compliance_statuses: z.array(z.string()).optional(),
      providers: z.array(z.string()).optional(),
    }),
    ...READS_ONLY,
    run: (args) =>
      translated(() => {
        const section = parseEnum(args.section, SCHEMA_SECTIONS, { label: "section" });
        return { kind: "result", result: describeSchema(section) };
      }),
  });
}
