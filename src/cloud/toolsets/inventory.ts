/**
 * The `inventory` toolset of the cloud workbench: Assets: search, detail, metadata, counts, accounts, regions, tags, coverage, organisation.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { countAssetsTool } from "../tools/count_assets.ts";
import { coverageReportTool } from "../tools/coverage_report.ts";
import { findAssetsTool } from "../tools/find_assets.ts";
import { getAssetTool } from "../tools/get_asset.ts";
import { getAssetMetadataTool } from "../tools/get_asset_metadata.ts";
import { listAccountsTool } from "../tools/list_accounts.ts";
import { listAssetTypesTool } from "../tools/list_asset_types.ts";
import { listRegionsTool } from "../tools/list_regions.ts";
import { listTagsTool } from "../tools/list_tags.ts";
import { organizationTopologyTool } from "../tools/organization_topology.ts";
import { unresolvedReferencesTool } from "../tools/unresolved_references.ts";
import { INVENTORY_TOOLSET } from "./info.ts";

export { INVENTORY_TOOLSET };

/** The toolset's tools, in the order they are listed. */
export function inventoryTools(ctx: CloudContext): ToolDefinition[] {
  return [
    findAssetsTool(ctx),
    getAssetTool(ctx),
    getAssetMetadataTool(ctx),
    countAssetsTool(ctx),
    listAssetTypesTool(ctx),
    listAccountsTool(ctx),
    listRegionsTool(ctx),
    listTagsTool(ctx),
    coverageReportTool(ctx),
    unresolvedReferencesTool(ctx),
    organizationTopologyTool(ctx),
  ];
}
