/**
 * `resolve_containing_procedure`: the procedure that contains an address.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { hex } from "../analysis/dossier.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observedRun } from "../context/observation.ts";
import { containingEntry, NEXT_START_ASSUMED } from "../context/procedure_query.ts";
import { procedureLookupOf } from "../providers/provider.ts";
import { containingResultSchema } from "../schemas/analysis_results.ts";
import { addressField, documentFields } from "../schemas/inputs.ts";
import { RESOLVE_CONTAINING_PROCEDURE } from "../tool_names.ts";

/** Finds the containing procedure and says how its extent was bounded. */
export function resolveContainingProcedureTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: RESOLVE_CONTAINING_PROCEDURE,
    toolset: "static",
    description:
      "Find the procedure that contains an address (such as a crash PC): the last procedure start at or below it whose extent (its size, or up to the next start) covers it. Says how the extent was bounded.",
    input: z.strictObject({
      address: addressField,
      ...documentFields,
    }),
    result: containingResultSchema,
    ...RECORDS_EVIDENCE,
    run: observedRun(context.session, RESOLVE_CONTAINING_PROCEDURE, async (scope, args) => {
      const lookup = await procedureLookupOf(scope, RESOLVE_CONTAINING_PROCEDURE);
      const at = BigInt(args.address);
      const found = lookup.table.containing(at);
      return {
        result: {
          address: hex(at),
          section: lookup.sectionAt(at),
          procedure: found ? containingEntry(found, at) : null,
        },
        limitations: [
          ...lookup.limitations,
          ...(found?.bounded === "next-start" ? [NEXT_START_ASSUMED] : found ? [] : [
            "No known procedure contains this address; the listing may be incomplete for this document.",
          ]),
        ],
      };
    }),
  });
}
