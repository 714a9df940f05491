/**
 * The `ontology` toolset of the cloud workbench: the dataset as an RDF/OWL
 * ontology with read-only SPARQL, semantic neighbourhoods, relation groups
 * and retrieval chunks.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { ontologyNeighbourhoodTool } from "../tools/ontology_neighbourhood.ts";
import { ontologyStatsTool } from "../tools/ontology_stats.ts";
import { ragChunksTool } from "../tools/rag_chunks.ts";
import { relationGroupsTool } from "../tools/relation_groups.ts";
import { sparqlQueryTool } from "../tools/sparql_query.ts";
import { ONTOLOGY_TOOLSET } from "./info.ts";

export { ONTOLOGY_TOOLSET };

/** The toolset's tools, in the order they are listed. */
export function ontologyTools(ctx: CloudContext): ToolDefinition[] {
  return [
    ontologyStatsTool(ctx),
    sparqlQueryTool(ctx),
    ontologyNeighbourhoodTool(ctx),
    relationGroupsTool(ctx),
    ragChunksTool(ctx),
  ];
}
