/**
 * The `compliance` toolset of the cloud workbench: Compliance: frameworks, rollups, controls, gaps.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { complianceGapsTool } from "../tools/compliance_gaps.ts";
import { complianceSummaryTool } from "../tools/compliance_summary.ts";
import { controlStatusTool } from "../tools/control_status.ts";
import { listControlsTool } from "../tools/list_controls.ts";
import { listFrameworksTool } from "../tools/list_frameworks.ts";
import { COMPLIANCE_TOOLSET } from "./info.ts";

export { COMPLIANCE_TOOLSET };

/** The toolset's tools, in the order they are listed. */
export function complianceTools(ctx: CloudContext): ToolDefinition[] {
  return [
    listFrameworksTool(ctx),
    complianceSummaryTool(ctx),
    listControlsTool(ctx),
    controlStatusTool(ctx),
    complianceGapsTool(ctx),
  ];
}
