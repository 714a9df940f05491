/**
 * The `meta` toolset of the cloud workbench: What the cloud workbench offers and what its vocabularies mean.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { describeSchemaTool } from "../tools/describe_schema.ts";
import { explainAssetTypeTool } from "../tools/explain_asset_type.ts";
import { explainEdgeTypeTool } from "../tools/explain_edge_type.ts";
import { type CapabilitySources, listCapabilitiesTool } from "../tools/list_capabilities.ts";
import { META_TOOLSET } from "./info.ts";
export { META_TOOLSET };

/**
 * The toolset's tools, in the order they are listed. `sources` gives
 * `list_capabilities` the workbench's whole catalog (read lazily: it includes
 * this toolset) and its toolsets.
 */
export function metaTools(ctx: CloudContext, sources: CapabilitySources): ToolDefinition[] {
  return [
    listCapabilitiesTool(ctx, sources),
    describeSchemaTool(ctx),
    explainAssetTypeTool(ctx),
    explainEdgeTypeTool(ctx),
  ];
}
