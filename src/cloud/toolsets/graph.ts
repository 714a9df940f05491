/**
 * The `graph` toolset of the cloud workbench: The asset graph: neighbours, edges, paths, exposure, dependencies, blast radius, centrality, exports.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { attackPathsTool } from "../tools/attack_paths.ts";
import { blastRadiusTool } from "../tools/blast_radius.ts";
import { centralityTopTool } from "../tools/centrality_top.ts";
import { crossAccountEdgesTool } from "../tools/cross_account_edges.ts";
import { dependencyTreeTool } from "../tools/dependency_tree.ts";
import { dependentsTool } from "../tools/dependents.ts";
import { dependsOnTool } from "../tools/depends_on.ts";
import { findPathsTool } from "../tools/find_paths.ts";
import { getEdgesTool } from "../tools/get_edges.ts";
import { graphStatsTool } from "../tools/graph_stats.ts";
import { internetExposureTool } from "../tools/internet_exposure.ts";
import { largestBlastRadiusTool } from "../tools/largest_blast_radius.ts";
import { lateralMovementPathsTool } from "../tools/lateral_movement_paths.ts";
import { neighborsTool } from "../tools/neighbors.ts";
import { securityCoverageTool } from "../tools/security_coverage.ts";
import { sharedDependenciesTool } from "../tools/shared_dependencies.ts";
import { subgraphExportTool } from "../tools/subgraph_export.ts";
import { GRAPH_TOOLSET } from "./info.ts";

export { GRAPH_TOOLSET };

/** The toolset's tools, in the order they are listed. */
export function graphTools(ctx: CloudContext): ToolDefinition[] {
  return [
    neighborsTool(ctx),
    getEdgesTool(ctx),
    findPathsTool(ctx),
    attackPathsTool(ctx),
    lateralMovementPathsTool(ctx),
    internetExposureTool(ctx),
    blastRadiusTool(ctx),
    dependsOnTool(ctx),
    dependentsTool(ctx),
    dependencyTreeTool(ctx),
    sharedDependenciesTool(ctx),
    largestBlastRadiusTool(ctx),
    crossAccountEdgesTool(ctx),
    centralityTopTool(ctx),
    subgraphExportTool(ctx),
    securityCoverageTool(ctx),
    graphStatsTool(ctx),
  ];
}
