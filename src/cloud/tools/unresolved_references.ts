/**
 * `unresolved_references`: references the source named that match no
 * collected asset, as stored.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import {
  type CloudContext,
  datasetPageArguments,
  pageSchema,
  withDataset,
} from "../context/cloud_context.ts";
import { paginate } from "../model/cursors.ts";

/** The tool's name. */
export const UNRESOLVED_REFERENCES = "unresolved_references";

/** Builds the tool for one connection. */
export function unresolvedReferencesTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: UNRESOLVED_REFERENCES,
    toolset: "inventory",
    sensitivity: "confidential",
    description:
      "List the references the inventory's linker could not resolve (an ARN or id an asset points at that matches no collected asset), as stored in the dataset. They hint at resources outside the collection's scope, deleted targets, or gaps in coverage. Paginated.",
    input: z.strictObject(datasetPageArguments),
    result: pageSchema(z.unknown()).extend({ dataset: z.string() }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const page = paginate(dataset.records.unresolved_references, {
          limit: args.limit,
          cursor: args.cursor,
          scope: dataset,
          filters: {},
        });
        return { kind: "result", result: { dataset: dataset.name, ...page } };
      }),
  });
}
