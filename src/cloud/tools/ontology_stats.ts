/**
 * `ontology_stats`: builds a dataset's ontology when needed and counts it.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument } from "../context/cloud_context.ts";
import {
  ontologyOf,
  progressTo,
  turtleLink,
  withOntologyDataset,
} from "../context/ontology_support.ts";
import { countsSchema } from "../schemas/results.ts";

/** The tool's name. */
export const ONTOLOGY_STATS = "ontology_stats";

/** Builds the tool for one connection. */
export function ontologyStatsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: ONTOLOGY_STATS,
    toolset: "ontology",
    sensitivity: "internal",
    description:
      "Count a dataset's RDF/OWL ontology: triples, classes declared and used, individuals, relation properties, and relation triples per type and per relation group. The first call for a dataset version builds the ontology (progress notifications are sent while it builds; built_now says so); later calls reuse it. Use it before sparql_query to see what the ontology holds; the Turtle is linked.",
    input: z.strictObject({ dataset: datasetArgument }),
    result: z.object({
      dataset: z.string(),
      triples: z.number().int().describe("Triples in the store."),
      classes: z.number().int().describe("Classes declared (owl:Class)."),
      classes_used: z.number().int().describe("Classes with at least one typed node."),
      individuals: z.number().int().describe("Named nodes typed with an ontology class."),
      object_properties: z.number().int().describe("Relation properties declared."),
      relation_triples: z.number().int().describe("Triples whose predicate is a relation."),
      relation_types: countsSchema.describe(
        "Triples per relation type that occurs.",
      ),
      relation_groups: countsSchema.describe(
        "Triples per relation group, every group listed.",
      ),
      built_now: z.boolean().describe("Whether this call built the ontology."),
      build_ms: z.number().int().describe("How long the build of this version took."),
      isolated: z.boolean().describe(
        "Whether the store runs in a worker, so query time limits really stop queries.",
      ),
    }),
    ...READS_ONLY,
    run: (args, context) =>
      withOntologyDataset(ctx, args.dataset, async (dataset) => {
        const { engine, build } = await ontologyOf(ctx, dataset, progressTo(context));
        const stats = await engine.stats();
        return {
          kind: "result",
          result: {
            dataset: dataset.name,
            ...stats,
            built_now: build.built_now,
            build_ms: build.build_ms,
            isolated: engine.isolated,
          },
          links: [turtleLink()],
        };
      }),
  });
}
