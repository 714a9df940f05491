/**
 * `export_report`: writes a report of a dataset under the output directory.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, translated } from "../context/cloud_context.ts";
import { REPORT_FORMATS, reportFiles } from "../export/report.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { writtenFileSchema } from "../schemas/results.ts";
import { exportTarget, writeOutputFiles, WRITES_OUTPUT_FILES } from "../context/writes.ts";

/** The tool's name. */
export const EXPORT_REPORT = "export_report";

/** Builds the tool for one connection. */
export function exportReportTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: EXPORT_REPORT,
    toolset: "export",
    sensitivity: "confidential",
    description:
      "Write a report of a dataset as files under the operator's output directory (--output-dir; needs --allow-file-writes). Formats: json writes findings.json (the cloudg report shape; load_dataset reads it back to the same dataset), html writes report.html (one self-contained page: summary, findings by severity, top risks, an interactive graph, finding details), inventory writes inventory-map.json, inventory-map.graphml, inventory-graph.json, inventory-dependencies.json and inventory-organization.json, graphml writes <dataset>.graphml, asset_map writes asset-map.json and compliance-map.json. Existing files of the same name are replaced atomically; subdir may not leave the output directory.",
    input: z.strictObject({
      format: z.string().max(32).default("json").describe(
        "json, html, inventory, graphml or asset_map (any case).",
      ),
      subdir: z.string().max(200).default("").describe(
        "Directory under the output directory to write into (made when missing; A-Z a-z 0-9 _ . - /, no '..', at most 200); empty: the output directory itself.",
      ),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      format: z.enum(REPORT_FORMATS),
      output_dir: z.string().describe("The output directory."),
      files: z.array(writtenFileSchema),
    }),
    ...WRITES_OUTPUT_FILES,
    run: (args) =>
      translated(async () => {
        const format = parseEnum(args.format, REPORT_FORMATS, { label: "report format" });
        const { outputDir, dataset } = await exportTarget(ctx, args);
        const files = await writeOutputFiles(ctx, args.subdir, reportFiles(dataset, format));
        return {
          kind: "result",
          result: { dataset: dataset.name, format, output_dir: outputDir, files },
        };
      }),
  });
}
