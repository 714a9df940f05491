/**
 * The `workspace` toolset of the cloud workbench: Named datasets: load, select, snapshot, compare, summarise.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { datasetSummaryTool } from "../tools/dataset_summary.ts";
import { diffDatasetsTool } from "../tools/diff_datasets.ts";
import { listDatasetsTool } from "../tools/list_datasets.ts";
import { loadDatasetTool } from "../tools/load_dataset.ts";
import { selectDatasetTool } from "../tools/select_dataset.ts";
import { snapshotDatasetTool } from "../tools/snapshot_dataset.ts";
import { unloadDatasetTool } from "../tools/unload_dataset.ts";
import { workspaceStatusTool } from "../tools/workspace_status.ts";
import { WORKSPACE_TOOLSET } from "./info.ts";

export { WORKSPACE_TOOLSET };

/** The toolset's tools, in the order they are listed. */
export function workspaceTools(ctx: CloudContext): ToolDefinition[] {
  return [
    workspaceStatusTool(ctx),
    listDatasetsTool(ctx),
    loadDatasetTool(ctx),
    selectDatasetTool(ctx),
    unloadDatasetTool(ctx),
    snapshotDatasetTool(ctx),
    diffDatasetsTool(ctx),
    datasetSummaryTool(ctx),
  ];
}
