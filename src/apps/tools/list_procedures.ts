/**
 * `list_procedures`: the procedures of a document, one page at a time.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observation, procedureCoverage, progressOf } from "../context/observation.ts";
import { documentFields, limitField, offsetField } from "../schemas/inputs.ts";
import { procedurePageSchema } from "../schemas/session_results.ts";
import { LIST_PROCEDURES } from "../tool_names.ts";

/** Largest `list_procedures` page. */
export const MAX_PROCEDURE_PAGE = 500;

/** Lists procedures sorted by address; each page is recorded as Evidence. */
export function listProceduresTool(context: AppsContext): ToolDefinition {
  const { session } = context;
  return defineTool({
    name: LIST_PROCEDURES,
    toolset: "static",
    description:
      `List procedures (function symbols, the starts the binary's function tables record: .eh_frame, PE .pdata, Mach-O function starts, a Go binary's function table (pclntab) with its names, and the entry point) sorted by address, one page at a time: follow next_offset until has_more is false. Addresses are 0x-prefixed lowercase hex. At most ${MAX_PROCEDURE_PAGE} per page; each page is recorded as Evidence. A stripped binary without such a table lists its exports, its entry point and the direct call targets found in its code, unnamed.`,
    input: z.strictObject({
      offset: offsetField.describe(
        "Index of the first procedure to return.",
      ),
      limit: limitField(MAX_PROCEDURE_PAGE, 100).describe(
        `Procedures per page (1 to ${MAX_PROCEDURE_PAGE}).`,
      ),
      ...documentFields,
    }),
    result: procedurePageSchema,
    ...RECORDS_EVIDENCE,
    run: async (args, call) => {
      const scope = await session.prepared(LIST_PROCEDURES, args.document, progressOf(call));
      const { document } = scope;
      const page = await scope.provider.listProcedures(
        scope.target,
        document,
        args.offset,
        args.limit,
      );
      const outcome = observation(LIST_PROCEDURES, scope, call.parameters, { document, ...page });
      outcome.draft.limitations.push(...procedureCoverage(scope.image));
      // The page was built for this record alone: freeze it instead of copying it.
      outcome.draft.transferred = true;
      return outcome;
    },
  });
}
