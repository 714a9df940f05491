/**
 * The shape `suppress_findings` and `unsuppress_findings` share: a change to
 * findings by id on one dataset, answered with the ids sorted by outcome and
 * the dataset's version after the change.
 *
 * @module
 */

import { z } from "zod";
import type { ToolOutcome } from "../../core/catalog.ts";
import { type CloudContext, withDataset } from "./cloud_context.ts";

const ids = z.array(z.string());

/** The outcome lists: the ids `changed`, the ids left as they were (`unchanged`), and `not_found`. */
type OutcomeShape<C extends string, U extends string> = { [K in C | U]: typeof ids };

/**
 * The result of a change to findings by id: the dataset, the ids under
 * `changed` and `unchanged`, the ids not found, and the version after the call.
 */
export const findingChangeSchema = <C extends string, U extends string>(
  changed: C,
  unchanged: U,
) =>
  z.object({
    dataset: z.string(),
    ...({ [changed]: ids, [unchanged]: ids } as OutcomeShape<C, U>),
    not_found: ids,
    version: z.number().int().describe("The dataset's version after the call."),
  });

/**
 * Runs a change to findings on the dataset named (empty: the active one) and
 * answers with the dataset's name, the change's outcome and the version after it.
 */
export function changeFindings<O extends object>(
  ctx: CloudContext,
  datasetName: string,
  change: (dataset: string) => O,
): Promise<ToolOutcome<{ dataset: string } & O & { version: number }>> {
  return withDataset(ctx, datasetName, (dataset) => {
    const outcome = change(dataset.name);
    return {
      kind: "result",
      result: { dataset: dataset.name, ...outcome, version: dataset.version },
    };
  });
}
