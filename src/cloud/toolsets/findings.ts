/**
 * The `findings` toolset of the cloud workbench: Findings: lists, detail, summaries, top risks, suppression.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context.ts";

/** What the toolset is for. */
export const FINDINGS_TOOLSET = {
  name: "findings",
  description: "Findings: lists, detail, summaries, top risks, suppression.",
};

/** The toolset's tools, in the order they are listed. */
export function findingsTools(ctx: CloudContext): ToolDefinition[] {
  void ctx;
  return [];
}
