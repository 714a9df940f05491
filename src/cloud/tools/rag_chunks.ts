/**
 * `rag_chunks`: retrieval chunks over a dataset's ontology (per asset, per
 * community, per relation group), filtered and paginated.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, pageArguments } from "../context/cloud_context.ts";
import { cursorFingerprint, decodeCursor, encodeCursor } from "../model/cursors.ts";
import { SEVERITIES } from "../model/enums.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { resolveAsset } from "../model/references.ts";
import { RAG_CHUNK_TYPES } from "../ontology/rag_chunks.ts";
import { ontologyOf, progressTo, withOntologyDataset } from "../context/ontology_support.ts";
import { nodeFilterArgument, severityFilterArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const RAG_CHUNKS = "rag_chunks";

/** Builds the tool for one connection. */
export function ragChunksTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: RAG_CHUNKS,
    toolset: "ontology",
    sensitivity: "confidential",
    description:
      "Text chunks of a dataset for retrieval-augmented answers, each {chunk_id, chunk_type, content, metadata}: entity (one per asset: class, account, region, exposure, relations, open findings), community (one per Louvain community of the relation graph) or relation_group (one per group of relations). Filter by an asset (ref: its entity chunk, its community, the groups it takes part in), by words in the text (query) or by the worst open finding (min_severity); paginated with next_cursor.",
    input: z.strictObject({
      chunk_type: z.string().max(32).default("entity").describe(
        "entity, community or relation_group.",
      ),
      ref: nodeFilterArgument(
        "Only chunks about this asset (id, ARN, resource id or unique name); empty for all.",
      ),
      query: z.string().max(500).default("").describe(
        "Only chunks whose text holds every word of this (case-insensitive); empty for all.",
      ),
      min_severity: severityFilterArgument(
        "Only entity and community chunks with an open finding at least this severe (CRITICAL, HIGH, MEDIUM, LOW, INFO); empty for all.",
      ),
      limit: z.number().int().min(1).max(100).default(10).describe("Chunks per page, 1 to 100."),
      cursor: pageArguments.cursor,
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      chunk_type: z.enum(RAG_CHUNK_TYPES),
      total: z.number().int().describe("Chunks matching, over every page."),
      offset: z.number().int(),
      returned: z.number().int(),
      next_cursor: z.string().nullable().describe(
        "Pass as cursor for the next page; null on the last.",
      ),
      truncated: z.boolean(),
      items: z.array(z.object({
        chunk_id: z.string(),
        chunk_type: z.enum(RAG_CHUNK_TYPES),
        content: z.string(),
        metadata: z.record(z.string(), z.unknown()),
      })),
    }),
    ...READS_ONLY,
    run: (args, context) =>
      withOntologyDataset(ctx, args.dataset, async (dataset) => {
        const chunkType = parseEnum(args.chunk_type, RAG_CHUNK_TYPES, { label: "chunk type" });
        const minSeverity = args.min_severity.trim() === ""
          ? undefined
          : parseEnum(args.min_severity, SEVERITIES, { label: "severity" });
        const assetId = args.ref.trim() === "" ? undefined : resolveAsset(dataset, args.ref).id;
        const query = args.query.trim();
        const fingerprint = cursorFingerprint(dataset, {
          chunk_type: chunkType,
          asset: assetId ?? null,
          query,
          min_severity: minSeverity ?? null,
        });
        const offset = decodeCursor(args.cursor, fingerprint);
        const { engine } = await ontologyOf(ctx, dataset, progressTo(context));
        const page = await engine.ragChunks({
          chunkType,
          ...(assetId !== undefined ? { assetId } : {}),
          query,
          ...(minSeverity !== undefined ? { minSeverity } : {}),
          offset,
          limit: args.limit,
        });
        const end = page.offset + page.returned;
        return {
          kind: "result",
          result: {
            dataset: dataset.name,
            chunk_type: chunkType,
            ...page,
            next_cursor: end < page.total ? encodeCursor(end, fingerprint) : null,
            truncated: end < page.total,
          },
        };
      }),
  });
}
