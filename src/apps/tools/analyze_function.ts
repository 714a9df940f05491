/**
 * `analyze_function`: the bounded dossier of one procedure.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observedRun, progressOf } from "../context/observation.ts";
import { namedDossier } from "../context/procedure_query.ts";
import { analyzeFunctionResultSchema } from "../schemas/analysis_results.ts";
import { documentField, limitField, offsetField, procedureField } from "../schemas/inputs.ts";
import { ANALYZE_FUNCTION } from "../tool_names.ts";

/** The collections of a dossier that page (REA's names, plus tail jumps and indirect call sites). */
const DOSSIER_COLLECTIONS = [
  "basic_blocks",
  "callees",
  "callers",
  "comments",
  "incoming_references",
  "outgoing_references",
  "referenced_names",
  "referenced_strings",
  "tail_jumps",
  "indirect_call_sites",
] as const;

const pageStart = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** The bounded dossier of one procedure, recorded as Evidence. */
export function analyzeFunctionTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: ANALYZE_FUNCTION,
    toolset: "static",
    description:
      "The bounded dossier of one procedure: extent, instructions (up to max_instructions), callees, callers and incoming references (from a bounded whole-document scan, reported with its completeness), outgoing references, referenced strings and names, basic blocks, and every truncation. No decompiler: pseudocode is not recovered.",
    input: z.strictObject({
      procedure: procedureField,
      limit: limitField(500, 100),
      max_instructions: z.number().int().min(1).max(5000).default(500).describe(
        "Instructions decoded at most (1 to 5000).",
      ),
      include_assembly: z.boolean().default(false).describe("Include the instruction listing."),
      assembly_offset: offsetField,
      collection_offset: z.union([
        z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        z.strictObject(
          Object.fromEntries(DOSSIER_COLLECTIONS.map((name) => [name, pageStart.optional()])),
        ),
      ]).default(0).describe(
        "First item of every collection page, or REA's object of per-collection offsets ({callers, callees, basic_blocks, …}; 0 for one left out).",
      ),
      max_pseudocode_chars: z.number().int().min(1).max(100_000).default(20_000).describe(
        "REA's pseudocode page size; accepted, but no decompiler runs, so pseudocode is always null.",
      ),
      pseudocode_offset: offsetField.describe(
        "REA's pseudocode page start; accepted, but pseudocode is always null.",
      ),
      include_callers: z.boolean().default(true).describe(
        "Compute callers and incoming references (scans the whole document once; progress is reported).",
      ),
      document: documentField,
    }),
    result: analyzeFunctionResultSchema,
    ...RECORDS_EVIDENCE,
    run: observedRun(context.session, ANALYZE_FUNCTION, async (scope, args, call) => {
      const { dossier, tableLimitations, limitations } = await namedDossier(scope, args.procedure, {
        operation: ANALYZE_FUNCTION,
        control: progressOf(call),
        limit: args.limit,
        maxInstructions: args.max_instructions,
        includeAssembly: args.include_assembly,
        assemblyOffset: args.assembly_offset,
        collectionOffset: args.collection_offset,
        includeCallers: args.include_callers,
      });
      return { result: dossier, limitations: [...tableLimitations, ...limitations] };
    }),
  });
}
