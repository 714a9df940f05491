/**
 * `search_strings`: the document's strings matching a literal or a pattern.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { describeString, stringValue } from "../analysis/strings.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { progressOf } from "../context/observation.ts";
import { searchDocument } from "../context/search.ts";
import { searchStringsResultSchema } from "../schemas/analysis_results.ts";
import { documentFields, limitField, offsetField, searchFields } from "../schemas/inputs.ts";
import { SEARCH_STRINGS } from "../tool_names.ts";

/** Searches ASCII and UTF-16LE strings anywhere in the file, paged. */
export function searchStringsTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: SEARCH_STRINGS,
    toolset: "static",
    description:
      "Search the document's strings (printable ASCII and UTF-16LE runs of 4 or more, anywhere in the file, as `strings -a` finds them) by literal substring (default) or regular expression; case-insensitive unless case_sensitive. Paged, at most 100 per page; total counts every match.",
    input: z.strictObject({
      ...searchFields,
      encoding: z.enum(["any", "ascii", "utf-16le"]).default("any").describe(
        "Restrict to one encoding.",
      ),
      offset: offsetField,
      limit: limitField(100, 20),
      ...documentFields,
    }),
    result: searchStringsResultSchema,
    ...RECORDS_EVIDENCE,
    run: (args, call) =>
      searchDocument<number>(context.session, call, {
        operation: SEARCH_STRINGS,
        args,
        find: async ({ image, program }, matches) => {
          // One encoding asked for: only its strings are scanned (and counted).
          const table = await program.strings(progressOf(call), args.encoding);
          const hits: number[] = [];
          for (let i = 0; i < table.count; i++) {
            if (matches(stringValue(image.bytes, table, i, 4096))) hits.push(i);
            if ((i & 0xffff) === 0 && call.signal.aborted) {
              throw new ToolFailure("cancelled", "search_strings was cancelled.");
            }
          }
          return {
            hits,
            describe: (i) => describeString(image, table, i),
            extra: { scanned_strings: table.count },
            limitations: [
              "Strings longer than 4,096 characters are matched on their first 4,096 only.",
            ],
          };
        },
      }),
  });
}
