/**
 * What the export tools share: their effects (files written under the output
 * directory, the same files again on a repeated call) and where a
 * subdirectory export goes (the checked subdirectory and the dataset).
 *
 * @module
 */

import type { ToolEffects } from "../../core/catalog.ts";
import type { CloudContext } from "./cloud_context.ts";
import type { Dataset } from "../workspace/dataset.ts";
import { requireOutputSubdir } from "./writes.ts";

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
