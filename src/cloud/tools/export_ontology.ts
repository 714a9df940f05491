/**
 * `export_ontology`: writes a dataset's ontology as an RDF file.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, translated } from "../context/cloud_context.ts";
import { ontologyFile } from "../export/ontology_file.ts";
import { checkFilename } from "../export/output_dir.ts";
import { ONTOLOGY_FORMATS } from "../ontology/formats.ts";
import { writtenFileSchema } from "../schemas/results.ts";
import { requireOutputDir, writeOutputFiles, WRITES_OUTPUT_FILES } from "../context/writes.ts";

/** The tool's name. */
export const EXPORT_ONTOLOGY = "export_ontology";

/** Builds the tool for one connection. */
export function exportOntologyTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: EXPORT_ONTOLOGY,
    toolset: "export",
    sensitivity: "confidential",
    description:
      "Write the ontology of a dataset (classes, relations, assets, tags, findings, compliance as RDF) into one file directly under the operator's output directory (--output-dir; needs --allow-file-writes): turtle (.ttl), json-ld (.jsonld), xml (RDF/XML, .rdf) or nt (N-Triples, .nt). The file is <filename>.<extension> and replaces one of the same name atomically. Building the ontology of a large dataset takes a while; progress is reported.",
    input: z.strictObject({
      format: z.string().max(16).default("turtle").describe(
        "turtle, json-ld, xml or nt (any case).",
      ),
      filename: z.string().max(100).default("ontology").describe(
        "File name without extension (1 to 100 of A-Z a-z 0-9 _ . -); the format's extension is added.",
      ),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      format: z.enum(ONTOLOGY_FORMATS),
      mime_type: z.string(),
      triples: z.number().int().describe("Triples in the ontology."),
      output_dir: z.string(),
      files: z.array(writtenFileSchema),
    }),
    ...WRITES_OUTPUT_FILES,
    run: (args, context) =>
      translated(async () => {
        await ctx.preloaded;
        const outputDir = requireOutputDir(ctx);
        checkFilename(args.filename);
        const dataset = ctx.dataset(args.dataset);
        const file = await ontologyFile(dataset, args, {
          onProgress: (done, total) => void context.progress(done, total, "building ontology"),
          signal: context.signal,
        });
        const files = await writeOutputFiles(ctx, "", [file]);
        return {
          kind: "result",
          result: {
            dataset: dataset.name,
            format: file.format,
            mime_type: file.mimeType,
            triples: file.triples,
            output_dir: outputDir,
            files,
          },
        };
      }),
  });
}
