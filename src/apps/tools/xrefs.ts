/**
 * `xrefs`: references to an address from decoded code.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { hex, referenceScanFacts } from "../analysis/dossier.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observedRun, progressOf } from "../context/observation.ts";
import { pageOf } from "../context/procedure_query.ts";
import { notDisassembled } from "../providers/provider.ts";
import { xrefsResultSchema } from "../schemas/analysis_results.ts";
import { addressField, documentFields, limitField, offsetField } from "../schemas/inputs.ts";
import { XREFS } from "../tool_names.ts";

/** References to an address from decoded code, paged, with the scan's completeness. */
export function xrefsTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: XREFS,
    toolset: "static",
    description:
      "References to an address (a procedure, string or data item) from decoded code across the whole document: direct calls, jumps and computed data addresses, each with the procedure it is in. The scan is bounded; completeness is reported.",
    input: z.strictObject({
      address: addressField,
      offset: offsetField,
      limit: limitField(500, 100),
      ...documentFields,
    }),
    result: xrefsResultSchema,
    ...RECORDS_EVIDENCE,
    run: observedRun(context.session, XREFS, async ({ image, program }, args, call) => {
      if (!program.decodable) throw notDisassembled(image, XREFS);
      const index = await program.references({}, progressOf(call));
      const refs = index.to(BigInt(args.address)).map((r) => ({
        from: hex(r.from),
        procedure: hex(r.procedure),
        procedure_name: program.functionStartingAt(r.procedure)?.name ?? "",
        kind: r.kind,
      }));
      return {
        result: {
          address: args.address,
          ...pageOf(refs, args.offset, args.limit),
          reference_scan: referenceScanFacts(index),
        },
        limitations: [
          ...index.limitations,
          "References through registers or jump tables are not seen; a load of a GOT slot the loader fills with one of the document's functions counts as a reference to that function, and a call through an import's slot or thunk as a call to the import's stub.",
        ],
      };
    }),
  });
}
