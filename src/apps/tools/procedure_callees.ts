/**
 * `procedure_callees`: procedures and imports a procedure calls directly.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { hex } from "../analysis/dossier.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observedRun, progressOf } from "../context/observation.ts";
import { namedDossier, pageOf } from "../context/procedure_query.ts";
import { calleesResultSchema } from "../schemas/analysis_results.ts";
import { documentFields, limitField, offsetField, procedureField } from "../schemas/inputs.ts";
import { PROCEDURE_CALLEES } from "../tool_names.ts";

/** Direct callees of a procedure with their call sites, paged; indirect call sites apart. */
export function procedureCalleesTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: PROCEDURE_CALLEES,
    toolset: "static",
    description:
      "Procedures and imports a procedure calls directly (decoding up to max_instructions), with call sites; the procedures and imports it jumps to outside itself (tail calls, a split-off .cold part) are listed in tail_jumps, and indirect call sites separately because their targets are unknown statically.",
    input: z.strictObject({
      procedure: procedureField,
      offset: offsetField,
      limit: limitField(500, 100),
      max_instructions: z.number().int().min(1).max(5000).default(2000).describe(
        "Instructions decoded at most.",
      ),
      ...documentFields,
    }),
    result: calleesResultSchema,
    ...RECORDS_EVIDENCE,
    run: observedRun(context.session, PROCEDURE_CALLEES, async (scope, args, call) => {
      const { procedure: fn, dossier, tableLimitations, limitations } = await namedDossier(
        scope,
        args.procedure,
        {
          operation: PROCEDURE_CALLEES,
          control: progressOf(call),
          limit: 100_000,
          maxInstructions: args.max_instructions,
          includeAssembly: false,
          assemblyOffset: 0,
          collectionOffset: 0,
          includeCallers: false,
        },
      );
      if (dossier.callees === null) {
        throw new ToolFailure(
          "capability_unavailable",
          `Provider ${scope.provider.identity.id} cannot read calls in ${scope.image.architecture} code.`,
          { details: { limitations } },
        );
      }
      const callees = (dossier.callees as { items: unknown[] }).items;
      const indirect = (dossier.indirect_call_sites as { items: string[] }).items;
      const tailJumps = (dossier.tail_jumps as { items: unknown[] } | null)?.items ?? [];
      const scan = dossier.instruction_scan as Record<string, unknown>;
      return {
        result: {
          procedure: { address: hex(fn.address), name: fn.name },
          ...pageOf(callees, args.offset, args.limit),
          tail_jumps: tailJumps,
          indirect_call_sites: indirect,
          instruction_scan: scan,
        },
        limitations: [
          ...tableLimitations,
          ...limitations.filter((l) => !l.startsWith("Callers")),
        ],
      };
    }),
  });
}
