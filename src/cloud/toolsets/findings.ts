/**
 * The `findings` toolset of the cloud workbench: Findings: lists, detail, summaries, top risks, suppression.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { findingsForAssetTool } from "../tools/findings_for_asset.ts";
import { findingsSummaryTool } from "../tools/findings_summary.ts";
import { getFindingTool } from "../tools/get_finding.ts";
import { listFindingsTool } from "../tools/list_findings.ts";
import { suppressFindingsTool } from "../tools/suppress_findings.ts";
import { topRisksTool } from "../tools/top_risks.ts";
import { unsuppressFindingsTool } from "../tools/unsuppress_findings.ts";
import { FINDINGS_TOOLSET } from "./info.ts";

export { FINDINGS_TOOLSET };

/** The toolset's tools, in the order they are listed. */
export function findingsTools(ctx: CloudContext): ToolDefinition[] {
  return [
    listFindingsTool(ctx),
    getFindingTool(ctx),
    findingsSummaryTool(ctx),
    findingsForAssetTool(ctx),
    topRisksTool(ctx),
    suppressFindingsTool(ctx),
    unsuppressFindingsTool(ctx),
  ];
}
