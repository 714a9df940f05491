/**
 * `set_current_document`: chooses the document later calls default to.
 *
 * @module
 */

import { z } from "zod";
import { CHANGES_SESSION, defineTool, type ToolDefinition } from "../../core/catalog.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { unknownRegistryApprovedField } from "../schemas/inputs.ts";
import { SET_CURRENT_DOCUMENT } from "../tool_names.ts";

/** Makes a listed document the current one. */
export function setCurrentDocumentTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: SET_CURRENT_DOCUMENT,
    toolset: "session",
    description: "Make a document returned by list_documents the current one.",
    input: z.strictObject({
      document: z.string().min(1).max(4096).describe("A document name from list_documents."),
      unknown_registry_approved: unknownRegistryApprovedField,
    }),
    result: z.object({ current_document: z.string(), documents: z.array(z.string()) }),
    ...CHANGES_SESSION,
    run: async (args) => {
      await context.session.idle();
      const documents = context.session.setCurrentDocument(args.document);
      return { kind: "result", result: { current_document: args.document, documents } };
    },
  });
}
