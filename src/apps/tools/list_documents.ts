/**
 * `list_documents`: the analysis documents of the open target.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observation } from "../context/observation.ts";
import { unknownRegistryApprovedField } from "../schemas/inputs.ts";
import { LIST_DOCUMENTS } from "../tool_names.ts";

/** Lists the documents (one per file, one per universal slice), recorded as Evidence. */
export function listDocumentsTool(context: AppsContext): ToolDefinition {
  const { session } = context;
  return defineTool({
    name: LIST_DOCUMENTS,
    toolset: "session",
    description:
      "List the analysis documents of the open target (one per ELF, PE or WebAssembly file; one per slice of a universal Mach-O). Recorded as Evidence.",
    input: z.strictObject({
      unknown_registry_approved: unknownRegistryApprovedField,
    }),
    result: z.object({ documents: z.array(z.string()), current_document: z.string().nullable() }),
    ...RECORDS_EVIDENCE,
    run: async () => {
      await session.idle();
      const scope = session.analysis(LIST_DOCUMENTS);
      const documents = scope.provider.listDocuments(scope.target);
      return observation(LIST_DOCUMENTS, scope, {}, {
        documents,
        current_document: session.currentDocument,
      });
    },
  });
}
