/**
 * `explain_edge_type`: how one edge type reads and what it implies.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, translated } from "../context/cloud_context.ts";
import { explainEdgeType } from "../meta/vocabulary.ts";
import { EDGE_TYPES } from "../model/enums.ts";
import { parseEnum } from "../model/parse_enum.ts";

/** The tool's name. */
export const EXPLAIN_EDGE_TYPE = "explain_edge_type";

/** Builds the tool for one connection. */
export function explainEdgeTypeTool(ctx: CloudContext): ToolDefinition {
  void ctx;
  return defineTool({
    name: EXPLAIN_EDGE_TYPE,
    toolset: "meta",
    sensitivity: "public",
    description:
      "Explain one edge type: how it reads (source … target), its typical endpoints, a note where useful, its dependency direction (forward: the source depends on the target; reverse: the other way; none) and the ontology relations it can yield. Matched case-insensitively; a miss lists close matches. Needs no dataset.",
    input: z.strictObject({
      edge_type: z.string().min(1).max(64).describe("An edge type, e.g. ASSUMES_ROLE or contains."),
    }),
    result: z.object({
      edge_type: z.string(),
      reads_as: z.string(),
      typical: z.string(),
      note: z.string().nullable(),
      dependency_direction: z.enum(["forward", "reverse", "none"]),
      dependency_meaning: z.string(),
      ontology_relations: z.array(z.string()),
    }),
    ...READS_ONLY,
    run: (args) =>
      translated(() => {
        const type = parseEnum(args.edge_type, EDGE_TYPES, { label: "edge type" });
        return { kind: "result", result: explainEdgeType(type) };
      }),
  });
}
