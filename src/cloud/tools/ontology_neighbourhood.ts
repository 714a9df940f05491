/**
 * `ontology_neighbourhood`: the relation triples around an asset in a
 * dataset's ontology, hop by hop.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument } from "../context/cloud_context.ts";
import { UnknownAssetError } from "../model/errors.ts";
import { resolveAsset } from "../model/references.ts";
import { OntologyArgumentError } from "../ontology/errors.ts";
import { ontologyOf, progressTo, withOntologyDataset } from "../context/ontology_support.ts";

/** The tool's name. */
export const ONTOLOGY_NEIGHBOURHOOD = "ontology_neighbourhood";

/** Builds the tool for one connection. */
export function ontologyNeighbourhoodTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: ONTOLOGY_NEIGHBOURHOOD,
    toolset: "ontology",
    sensitivity: "confidential",
    description:
      "The semantic relations around an asset in a dataset's ontology: the object-property triples (relation types such as PROTECTED_BY_WAF, SUBNET_CONTAINS_INSTANCE, TAGGED_WITH, FINDING_AFFECTS) within 1 to 3 hops, with the nodes reached, their names and classes. Give an asset id, ARN or unique name (or a cmr: name or full IRI for tags, findings and placeholders). For raw graph edges use neighbors instead.",
    input: z.strictObject({
      ref: z.string().min(1).max(2048).describe(
        "The centre: an asset id, ARN, resource id or unique name; or a cmr: name or full IRI.",
      ),
      hops: z.number().int().min(1).max(3).default(1).describe("Hops out from the centre, 1 to 3."),
      limit: z.number().int().min(1).max(500).default(100).describe(
        "Triples returned at most, 1 to 500.",
      ),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      asset_id: z.string().nullable().describe("The asset the reference resolved to, if any."),
      center: z.string().describe("The centre's IRI."),
      hops: z.number().int(),
      nodes: z.array(z.object({
        iri: z.string(),
        name: z.string().nullable(),
        types: z.array(z.string()),
        hop: z.number().int(),
      })).describe("Nodes reached, the centre first."),
      triples: z.array(z.object({
        subject: z.string(),
        predicate: z.string(),
        relation: z.string(),
        object: z.string(),
        hop: z.number().int(),
      })).describe("Relation triples, by hop."),
      truncated: z.boolean().describe("Whether the limit cut the walk short."),
    }),
    ...READS_ONLY,
    run: (args, context) =>
      withOntologyDataset(ctx, args.dataset, async (dataset) => {
        const ref = args.ref.trim();
        const iriLike = /^(cmr?|cmp):|^https?:\/\//.test(ref);
        let assetId: string | null = null;
        let unresolved: UnknownAssetError | null = null;
        if (!iriLike) {
          try {
            assetId = resolveAsset(dataset, ref).id;
          } catch (error) {
            // A placeholder endpoint (say 0.0.0.0/0) is a node but not an asset.
            if (!(error instanceof UnknownAssetError)) throw error;
            unresolved = error;
          }
        }
        const { engine } = await ontologyOf(ctx, dataset, progressTo(context));
        try {
          const found = await engine.neighbourhood(assetId ?? ref, {
            hops: args.hops,
            limit: args.limit,
          });
          return { kind: "result", result: { dataset: dataset.name, asset_id: assetId, ...found } };
        } catch (error) {
          if (unresolved !== null && error instanceof OntologyArgumentError) throw unresolved;
          throw error;
        }
      }),
  });
}
