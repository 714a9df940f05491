/**
 * `procedure_address`: a procedure name or start address to its canonical
 * entry.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { hex } from "../analysis/dossier.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observedRun } from "../context/observation.ts";
import { findProcedure } from "../context/procedure_query.ts";
import { demangle } from "../disasm/demangle.ts";
import { procedureLookupOf } from "../providers/provider.ts";
import { procedureAddressResultSchema } from "../schemas/analysis_results.ts";
import { ADDRESS_PATTERN, documentFields, procedureField } from "../schemas/inputs.ts";
import { PROCEDURE_ADDRESS } from "../tool_names.ts";

/** Resolves a procedure by name or address; ambiguous names are refused with candidates. */
export function procedureAddressTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: PROCEDURE_ADDRESS,
    toolset: "static",
    description:
      "Turn a procedure name (raw or demangled; a C++ name without its parameter list names its overloads; an ELF dynamic symbol also as nm -D spells it with its version, memcpy@@GLIBC_2.14) or start address into its canonical entry: address, names, source and size. Ambiguous names are refused with the candidates.",
    input: z.strictObject({
      procedure: procedureField,
      ...documentFields,
    }),
    result: procedureAddressResultSchema,
    ...RECORDS_EVIDENCE,
    run: observedRun(context.session, PROCEDURE_ADDRESS, async (scope, args) => {
      const lookup = await procedureLookupOf(scope, PROCEDURE_ADDRESS);
      const fn = findProcedure(lookup.table, args.procedure);
      return {
        limitations: lookup.limitations,
        result: {
          address: hex(fn.address),
          name: fn.name,
          names: fn.names,
          demangled: demangle(fn.name),
          source: fn.source,
          size: fn.size > 0n ? Number(fn.size) : null,
          matched_by: ADDRESS_PATTERN.test(args.procedure) ? "address" : "name",
        },
      };
    }),
  });
}
