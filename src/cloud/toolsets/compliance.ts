/**
 * The `compliance` toolset of the cloud workbench: Compliance: frameworks, rollups, controls, gaps.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context.ts";

/** What the toolset is for. */
export const COMPLIANCE_TOOLSET = {
  name: "compliance",
  description: "Compliance: frameworks, rollups, controls, gaps.",
};

/** The toolset's tools, in the order they are listed. */
export function complianceTools(ctx: CloudContext): ToolDefinition[] {
  void ctx;
  return [];
}
