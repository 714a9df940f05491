/**
 * `list_detectors`: the content detectors, and which of them the active
 * policy runs.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { detectorRows, type PrivacyContext } from "../context.ts";

/** Builds the tool for one connection. */
export function listDetectorsTool(ctx: PrivacyContext): ToolDefinition {
  return defineTool({
    name: "list_detectors",
    toolset: "privacy",
    sensitivity: "public",
    description:
      "List the content detectors (secret, credential, identifier, pii, network, temporal) with the entity each reports and whether the active policy's redaction runs it.",
    input: z.strictObject({
      category: z.string().optional().describe("Only detectors of this category."),
    }),
    result: z.object({ detectors: z.array(z.record(z.string(), z.unknown())) }),
    ...READS_ONLY,
    run: (args) =>
      Promise.resolve({
        kind: "result",
        result: { detectors: detectorRows(ctx.policy, args.category) },
      }),
  });
}
