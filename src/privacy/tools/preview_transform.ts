/**
 * `preview_transform`: what a profile's output pipeline does to a sample
 * value, with a vault of its own (never the session's, so pasted pseudonyms
 * are never reversed and real values never enter the session vault).
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { compilePolicy } from "../../core/policy/compile.ts";
import { loadPolicy, PolicyDocumentError } from "../../core/policy/document.ts";
import type { PrivacyContext } from "../context.ts";

/** Builds the tool for one connection. */
export function previewTransformTool(ctx: PrivacyContext): ToolDefinition {
  return defineTool({
    name: "preview_transform",
    toolset: "privacy",
    sensitivity: "internal",
    description:
      "Show what a profile's output pipeline (sanitize, redact, project, annotate) does to a sample value, using a separate random-key vault. Give the value as text or JSON; profile defaults to the active policy.",
    input: z.strictObject({
      value: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])
        .describe("The sample: text, or a JSON object or list."),
      profile: z.string().optional().describe(
        "A built-in profile name; the active policy when left out.",
      ),
    }),
    result: z.object({ policy: z.string(), transformed: z.unknown() }),
    ...READS_ONLY,
    run: (args) => {
      let preview;
      try {
        preview = compilePolicy(
          args.profile === undefined ? ctx.policy.document : loadPolicy(args.profile, {
            readFile: () => {
              throw new Error("files are not read by preview_transform");
            },
          }),
        );
      } catch (error) {
        if (error instanceof PolicyDocumentError) {
          throw new ToolFailure("invalid_request", error.message, {
            action:
              "Name a built-in profile: open, standard, strict, read_only, airgapped, audit, soc-analyst.",
          });
        }
        throw error;
      }
      const transformed = preview.transform({
        kind: "tool",
        name: "preview_transform",
        principal: ctx.services.principal,
        effects: {},
        sensitivity: "internal",
      }, args.value);
      return Promise.resolve({ kind: "result", result: { policy: preview.name, transformed } });
    },
  });
}
