/**
 * How cloud tools write files: only under the operator's `--output-dir`,
 * through the export domain's checked, atomic writer. Path escapes, a
 * missing output directory and a missing Deno write grant become tool
 * failures that say which flag or argument to change. Also what the export
 * tools share: their effects and where a subdirectory export goes.
 *
 * @module
 */

import type { ToolEffects } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { permissionFailure } from "../../core/permissions.ts";
import { asToolFailure, type CloudContext } from "./cloud_context.ts";
import type { Dataset } from "../workspace/dataset.ts";
import {
  type ExportFile,
  ExportPathError,
  OutputDirectoryError,
  subdirComponents,
  writeExportFiles,
  type WrittenFile,
} from "../export/output_dir.ts";

/** The output directory, or a failure telling the operator how to configure one. */
export function requireOutputDir(ctx: CloudContext): string {
  if (ctx.outputDir === null) {
    throw new ToolFailure(
      "permission_required",
      "No output directory is configured, so nothing can be written.",
      {
        action:
          "Ask the operator to restart the server with --output-dir DIR, --allow-write=DIR and --allow-file-writes.",
        restartRequired: true,
      },
    );
  }
  return ctx.outputDir;
}

/**
 * The output directory, after checking that `subdir` stays inside it (a
 * relative path without `..`), so a bad subdir fails before any work is done.
 */
export function requireOutputSubdir(ctx: CloudContext, subdir: string): string {
  const outputDir = requireOutputDir(ctx);
  try {
    subdirComponents(subdir);
  } catch (error) {
    throw writeFailure(error, outputDir);
  }
  return outputDir;
}

/** Writes `files` into `subdir` of the output directory; failures as tool failures. */
export async function writeOutputFiles(
  ctx: CloudContext,
  subdir: string,
  files: readonly ExportFile[],
): Promise<WrittenFile[]> {
  const outputDir = requireOutputDir(ctx);
  try {
    return await writeExportFiles(outputDir, subdir, files);
  } catch (error) {
    throw writeFailure(error, outputDir);
  }
}

/** A write error as a tool failure (anything unrecognised is passed on). */
export function writeFailure(error: unknown, outputDir: string): unknown {
  if (error instanceof ExportPathError && error.data["leaves_output_dir"] === true) {
    return new ToolFailure("outside_approved_root", error.message, {
      action: "Pass a relative subdir without '..' that names no symbolic link.",
      details: error.data,
    });
  }
  if (error instanceof OutputDirectoryError) {
    return new ToolFailure(
      error.flag === null ? "configuration_invalid" : "permission_required",
      error.message,
      {
        action: error.flag === null
          ? "Ask the operator to point --output-dir at a directory."
          : `Ask the operator to restart the server with ${error.flag} (and --allow-file-writes).`,
        restartRequired: true,
        details: error.flag === null ? { output_dir: outputDir } : { flag: error.flag },
      },
    );
  }
  return permissionFailure(error, `--allow-write=${outputDir}`) ?? asToolFailure(error);
}

/** The effects of an export tool: it writes files, and writing them again changes nothing more. */
export const WRITES_OUTPUT_FILES: { effects: ToolEffects; producesEvidence: false } = Object
  .freeze({
    effects: Object.freeze({ writesFilesystem: true, idempotent: true }),
    producesEvidence: false,
  });

/** Where a subdirectory export writes. */
export interface ExportTarget {
  /** The output directory (absolute). */
  outputDir: string;
  /** The dataset exported. */
  dataset: Dataset;
}

/**
 * Waits for the datasets loaded at start-up, checks that `subdir` stays under
 * the configured output directory, and picks the dataset named (empty: the
 * active one). Throws a ToolFailure when there is no output directory, the
 * subdirectory leaves it, or the dataset is unknown.
 */
export async function exportTarget(
  ctx: CloudContext,
  args: { subdir: string; dataset: string },
): Promise<ExportTarget> {
  await ctx.preloaded;
  const outputDir = requireOutputSubdir(ctx, args.subdir);
  return { outputDir, dataset: ctx.dataset(args.dataset) };
}
