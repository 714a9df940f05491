/**
 * The `graph` toolset of the cloud workbench: The asset graph: neighbours, edges, paths, exposure, dependencies, blast radius, centrality, exports.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context.ts";

/** What the toolset is for. */
export const GRAPH_TOOLSET = {
  name: "graph",
  description:
    "The asset graph: neighbours, edges, paths, exposure, dependencies, blast radius, centrality, exports.",
};

/** The toolset's tools, in the order they are listed. */
export function graphTools(ctx: CloudContext): ToolDefinition[] {
  void ctx;
  return [];
}
