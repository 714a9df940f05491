/**
 * `depends_on`: what an asset needs, upstream, hop by hop.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { dependsOn } from "../graph/dependencies.ts";
import { dependencyWalkTool } from "../context/dependency_walk.ts";

/** The tool's name. */
export const DEPENDS_ON = "depends_on";

/** Builds the tool for one connection. */
export function dependsOnTool(ctx: CloudContext): ToolDefinition {
  return dependencyWalkTool(ctx, {
    name: DEPENDS_ON,
    description:
      "List everything an asset depends on (upstream), breadth-first over the dependency graph up to max_depth hops: each item is an asset brief with the edge type it was reached by (via), the declared relationship, its depth and the asset it was reached from (parent_id). total counts every dependency before the limit cut. For what depends on the asset use dependents; for nested trees use dependency_tree.",
    walk: dependsOn,
  });
}
