/**
 * `search_procedures`: procedure names (raw and demangled) matching a
 * literal or a pattern.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { hex } from "../analysis/dossier.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { searchDocument } from "../context/search.ts";
import { demangle } from "../disasm/demangle.ts";
import type { ImageFunction } from "../formats/binary_image.ts";
import { procedureLookupOf } from "../providers/provider.ts";
import { searchProceduresResultSchema } from "../schemas/analysis_results.ts";
import { documentFields, limitField, offsetField, searchFields } from "../schemas/inputs.ts";
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
      ...documentFields,
    }),
    result: searchProceduresResultSchema,
    ...RECORDS_EVIDENCE,
    run: (args, call) =>
      searchDocument<ImageFunction>(context.session, call, {
        operation: SEARCH_PROCEDURES,
        args,
        find: async (scope, matches) => {
          const lookup = await procedureLookupOf(scope, SEARCH_PROCEDURES);
          // Every name at a start counts (aliases too); a hit shows the first name that matched.
          const matched = new Map<ImageFunction, string>();
          const hits = lookup.table.functions.filter((fn) => {
            const names = [...new Set([fn.name, ...fn.names])].filter((n) => n !== "");
            const name = names.find((n) => {
              if (matches(n)) return true;
              const plain = demangle(n);
              return plain !== null && matches(plain);
            });
            if (name !== undefined) matched.set(fn, name);
            return name !== undefined;
          });
          return {
            hits,
            describe: (fn) => {
              const name = matched.get(fn) ?? fn.name;
              return {
                address: hex(fn.address),
                name,
                demangled: demangle(name),
                source: fn.source,
                size: fn.size > 0n ? Number(fn.size) : null,
              };
            },
            limitations: lookup.limitations,
          };
        },
      }),
  });
}
