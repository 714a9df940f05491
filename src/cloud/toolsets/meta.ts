/**
 * The `meta` toolset of the cloud workbench: What the cloud workbench offers and what its vocabularies mean.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context.ts";
import { describeSchemaTool } from "../tools/describe_schema.ts";
import { explainAssetTypeTool } from "../tools/explain_asset_type.ts";
import { explainEdgeTypeTool } from "../tools/explain_edge_type.ts";
import { listCapabilitiesTool } from "../tools/list_capabilities.ts";
import { COMPLIANCE_TOOLSET, complianceTools } from "./compliance.ts";
import { FINDINGS_TOOLSET, findingsTools } from "./findings.ts";
import { GRAPH_TOOLSET, graphTools } from "./graph.ts";
import { INVENTORY_TOOLSET, inventoryTools } from "./inventory.ts";
import { WORKSPACE_TOOLSET, workspaceTools } from "./workspace.ts";

/** What the toolset is for. */
export const META_TOOLSET = {
  name: "meta",
  description: "What the cloud workbench offers and what its vocabularies mean.",
};

/** The toolset's tools, in the order they are listed. */
export function metaTools(ctx: CloudContext): ToolDefinition[] {
  let catalog: readonly ToolDefinition[] | null = null;
  return [
    listCapabilitiesTool(ctx, {
      // Read lazily from the registries, once: the catalog includes this toolset.
      tools: () =>
        catalog ??= [
          ...workspaceTools(ctx),
          ...inventoryTools(ctx),
          ...graphTools(ctx),
          ...findingsTools(ctx),
          ...complianceTools(ctx),
          ...metaTools(ctx),
        ],
      categories: [
        WORKSPACE_TOOLSET,
        INVENTORY_TOOLSET,
        GRAPH_TOOLSET,
        FINDINGS_TOOLSET,
        COMPLIANCE_TOOLSET,
        META_TOOLSET,
      ],
    }),
    describeSchemaTool(ctx),
    explainAssetTypeTool(ctx),
    explainEdgeTypeTool(ctx),
  ];
}
