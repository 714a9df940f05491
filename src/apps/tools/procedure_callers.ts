/**
 * `procedure_callers`: procedures that call a procedure directly.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { callersOf, hex, referenceScanFacts } from "../analysis/dossier.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observedRun, progressOf } from "../context/observation.ts";
import { findCallTarget, pageOf } from "../context/procedure_query.ts";
import { notDisassembled } from "../providers/provider.ts";
import { callersResultSchema } from "../schemas/analysis_results.ts";
import { documentFields, limitField, offsetField, procedureField } from "../schemas/inputs.ts";
import { PROCEDURE_CALLERS } from "../tool_names.ts";

/** Direct callers of a procedure with their call sites, paged. */
export function procedureCallersTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: PROCEDURE_CALLERS,
    toolset: "static",
    description:
      "Procedures that call a procedure or an import (by name, start, stub or slot address) directly, with their call sites, from a bounded scan of the whole document. A jump to it from another procedure (a tail call, or a jump to a split-off .cold part) makes a caller too, its sites listed in tail_jump_sites. Calls through the document's own PLT stubs and GOT slots count as calls to the function they reach. Completeness is reported, with the call sites left unresolved.",
    input: z.strictObject({
      procedure: procedureField,
      offset: offsetField,
      limit: limitField(500, 100),
      ...documentFields,
    }),
    result: callersResultSchema,
    ...RECORDS_EVIDENCE,
    run: observedRun(context.session, PROCEDURE_CALLERS, async ({ image, program }, args, call) => {
      if (!program.decodable) throw notDisassembled(image, PROCEDURE_CALLERS);
      const target = findCallTarget(program, args.procedure);
      const index = await program.references({}, progressOf(call));
      const callers = callersOf(program, index, target.address);
      return {
        result: {
          procedure: { address: hex(target.address), name: target.name, kind: target.kind },
          ...pageOf(callers, args.offset, args.limit),
          reference_scan: referenceScanFacts(index),
        },
        limitations: [
          ...index.limitations,
          "Calls through pointers computed at run time (vtables, callbacks) are not seen; the unresolved call sites are counted in reference_scan.",
        ],
      };
    }),
  });
}
