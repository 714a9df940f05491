/**
 * `binary_overview`: a summary of one document.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { instructionSetOf } from "../analysis/code.ts";
import { hex } from "../analysis/dossier.ts";
import { type BinaryImage, versionedExportNames } from "../formats/binary_image.ts";
import { sniff } from "../artifacts/sniff.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observedRun, progressOf } from "../context/observation.ts";
import { overviewResultSchema } from "../schemas/analysis_results.ts";
import { documentField, limitField } from "../schemas/inputs.ts";
import { BINARY_OVERVIEW } from "../tool_names.ts";

/** Summarises format, architecture, procedures, imports, exports, libraries, sections and strings. */
export function binaryOverviewTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: BINARY_OVERVIEW,
    toolset: "static",
    description:
      "Summarise a document: format, architecture, entry point, procedure counts by source, imports, exports, libraries, a sample of sections and the string count. Scans the strings once (progress is reported).",
    input: z.strictObject({
      detail: z.enum(["concise", "detailed"]).default("concise").describe(
        "concise: counts and a sample of sections; detailed: also the first `limit` imports and exports.",
      ),
      limit: limitField(50, 32).describe(
        "Sections (and, when detailed, imports and exports) listed at most (1 to 50).",
      ),
      document: documentField,
    }),
    result: overviewResultSchema,
    ...RECORDS_EVIDENCE,
    run: observedRun(context.session, BINARY_OVERVIEW, async ({ image, program }, args, call) => {
      const strings = await program.strings(progressOf(call));
      const bySource: Record<string, number> = {};
      for (const fn of image.functions) bySource[fn.source] = (bySource[fn.source] ?? 0) + 1;
      return {
        result: {
          format: image.format,
          architecture: image.architecture,
          machine: image.machine,
          bits: image.bits,
          endianness: image.endianness,
          entry: image.entry === null ? null : hex(image.entry),
          build_id: image.buildId,
          procedure_count: image.functions.length,
          procedures_by_source: bySource,
          import_count: image.imports.length,
          export_count: image.exports.length,
          libraries: image.libraries.slice(0, 100),
          string_count: strings.count,
          section_count: image.sections.length,
          sections: image.sections.slice(0, args.limit).map((s) => ({
            name: s.name,
            address: hex(s.address),
            size: Number(s.size),
            flags: `${s.readable ? "r" : "-"}${s.writable ? "w" : "-"}${s.executable ? "x" : "-"}`,
          })),
          disassembly: instructionSetOf(image) ?? "unavailable",
          overlay: overlayOf(image),
          ...(args.detail === "detailed"
            ? {
              imports: image.imports.slice(0, args.limit).map((entry) => ({
                name: entry.name,
                library: entry.library,
                version: entry.version ?? null,
                address: entry.address === null ? null : hex(entry.address),
              })),
              exports: image.exports.slice(0, args.limit).map((entry, i) => ({
                name: entry.name,
                address: entry.address === null ? null : hex(entry.address),
                versioned_names: image.exportVersions === undefined
                  ? []
                  : versionedExportNames(image, i).filter((n) => n !== entry.name),
              })),
            }
            : {}),
        },
        limitations: [
          ...(image.sections.length > args.limit
            ? [`Only the first ${args.limit} of ${image.sections.length} sections are listed.`]
            : []),
          ...(image.libraries.length > 100
            ? [`Only the first 100 of ${image.libraries.length} libraries are listed.`]
            : []),
          ...(image.overlay === undefined
            ? [
              `Data after the image (an overlay) is not looked for in ${
                image.format === "mach-o" ? "Mach-O relocatable objects" : `${image.format} files`
              }.`,
            ]
            : []),
        ],
      };
    }),
  });
}

/** The image's overlay with what its first bytes name (a zip, a gzip stream, an ELF file…). */
function overlayOf(
  image: BinaryImage,
): { offset: number; size: number; format: string | null } | null {
  const overlay = image.overlay;
  if (overlay === undefined || overlay === null) return null;
  const start = overlay.offset - image.fileBase;
  const head = overlay.head ?? image.bytes.subarray(start, start + Math.min(overlay.size, 4096));
  const sniffed = sniff(head, "");
  const format = sniffed.container ?? (sniffed.kind === "data" ? null : sniffed.kind);
  return { offset: overlay.offset, size: overlay.size, format };
}
