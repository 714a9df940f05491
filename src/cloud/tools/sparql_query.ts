/**
 * `sparql_query`: a read-only SPARQL query over a dataset's ontology, under
 * a row limit and a time limit that really stops it.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument } from "../context/cloud_context.ts";
import { guardSparql, MAX_QUERY_LENGTH } from "../ontology/sparql_guard.ts";
import { ontologyOf, progressTo, withOntologyDataset } from "../context/ontology_support.ts";

/** The tool's name. */
export const SPARQL_QUERY = "sparql_query";

/** The time limit of a query when the call gives none, in milliseconds. */
export const SPARQL_TIMEOUT_MS = 120_000;

const value = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** Builds the tool for one connection. */
export function sparqlQueryTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: SPARQL_QUERY,
    toolset: "ontology",
    sensitivity: "restricted",
    description:
      "Run a read-only SPARQL query (SELECT, ASK, CONSTRUCT or DESCRIBE) over a dataset's ontology. Prefixes cm: (classes, https://cloudg.io/ontology#), cmp: (properties), cmr: (individuals: assets as cmr:<asset id>, findings as cmr:finding_<id>), rdf:, rdfs:, owl:, xsd: are predeclared. Updates, SERVICE and FROM / FROM NAMED are refused before anything runs; a syntax error names its line and column. At most `limit` rows come back (truncated says more matched); a query still running at the time limit is stopped. Call ontology_stats first to see what the ontology holds.",
    input: z.strictObject({
      query: z.string().min(1).max(MAX_QUERY_LENGTH).describe(
        `The SPARQL query text (at most ${MAX_QUERY_LENGTH} characters).`,
      ),
      limit: z.number().int().min(1).max(1000).default(100).describe(
        "Rows (or triples) returned at most, 1 to 1000.",
      ),
      compact_uris: z.boolean().default(true).describe(
        "Shorten IRIs with the ontology prefixes (cmr:web-1 rather than the full IRI).",
      ),
      timeout_ms: z.number().int().min(100).max(SPARQL_TIMEOUT_MS).default(SPARQL_TIMEOUT_MS)
        .describe("Time limit in milliseconds, 100 to 120000; the query is stopped past it."),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      kind: z.enum(["select", "ask", "graph"]).describe(
        "select: rows; ask: answer; graph (CONSTRUCT, DESCRIBE): triples.",
      ),
      variables: z.array(z.string()).optional().describe("SELECT: the variables, in order."),
      rows: z.array(z.record(z.string(), value)).optional().describe(
        "SELECT: one object per row; unbound variables are null.",
      ),
      variable_kinds: z.record(
        z.string(),
        z.enum(["uri", "literal", "bnode", "triple", "unbound", "mixed"]),
      ).optional().describe("SELECT: how each variable was bound."),
      answer: z.boolean().optional().describe("ASK: the answer."),
      triples: z.array(z.object({ subject: value, predicate: value, object: value })).optional()
        .describe("CONSTRUCT or DESCRIBE: the triples."),
      returned: z.number().int().optional(),
      truncated: z.boolean().optional().describe("Whether more matched than the limit."),
      elapsed_ms: z.number().int(),
      isolated: z.boolean().describe(
        "Whether the query ran in a worker; when false the time limit could not stop it.",
      ),
      note: z.string().optional(),
    }),
    ...READS_ONLY,
    run: (args, context) =>
      withOntologyDataset(ctx, args.dataset, async (dataset) => {
        // Refusals and syntax errors come before any build or execution.
        guardSparql(args.query, { limit: args.limit });
        const { engine } = await ontologyOf(ctx, dataset, progressTo(context));
        const result = await engine.query(args.query, {
          limit: args.limit,
          compactUris: args.compact_uris,
          timeoutMs: args.timeout_ms,
        });
        return {
          kind: "result",
          result: {
            dataset: dataset.name,
            ...result,
            isolated: engine.isolated,
            ...(engine.isolated ? {} : {
              note:
                "The store runs in-process (the server lacks read permission to load the ontology worker), so the time limit could not be enforced.",
            }),
          },
        };
      }),
  });
}
