/**
 * `search_procedures`: procedure names (raw and demangled) matching a
 * literal or a pattern.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { hex } from "../analysis/dossier.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observe } from "../context/observation.ts";
import { matcherOf, pageOf } from "../context/procedure_query.ts";
import { demangle } from "../disasm/demangle.ts";
import { procedureLookupOf } from "../providers/provider.ts";
import { searchProceduresResultSchema } from "../schemas/analysis_results.ts";
import { documentField, limitField, offsetField, searchFields } from "../schemas/inputs.ts";
import { SEARCH_PROCEDURES } from "../tool_names.ts";

/** Searches procedure names, paged. */
export function searchProceduresTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: SEARCH_PROCEDURES,
    toolset: "static",
    description:
      "Search procedure names (raw and demangled C++/Rust) by literal substring (default) or regular expression; case-insensitive unless case_sensitive. Paged, at most 100 per page.",
    input: z.strictObject({
      ...searchFields,
      offset: offsetField,
      limit: limitField(100, 20),
      document: documentField,
    }),
    result: searchProceduresResultSchema,
    effects: { mutatesSession: true },
    producesEvidence: true,
    run: (args, call) => {
      const matcher = matcherOf(args);
      return observe(context.session, {
        operation: SEARCH_PROCEDURES,
        document: args.document,
        parameters: call.parameters,
      }, async (scope) => {
        const lookup = await procedureLookupOf(scope, SEARCH_PROCEDURES);
        const hits = lookup.table.functions.filter((fn) => {
          if (!fn.name) return false;
          if (matcher(fn.name)) return true;
          const plain = demangle(fn.name);
          return plain !== null && matcher(plain);
        });
        const page = pageOf(hits, args.offset, args.limit);
        return {
          result: {
            query: args.query,
            mode: args.mode,
            ...page,
            items: page.items.map((fn) => ({
              address: hex(fn.address),
              name: fn.name,
              demangled: demangle(fn.name),
              source: fn.source,
              size: fn.size > 0n ? Number(fn.size) : null,
            })),
          },
          limitations: lookup.limitations,
        };
      });
    },
  });
}
