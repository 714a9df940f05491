/**
 * `dependents`: what needs an asset, downstream, hop by hop.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { dependents } from "../graph/dependencies.ts";
import { dependencyWalkTool } from "../context/dependency_walk.ts";

/** The tool's name. */
export const DEPENDENTS = "dependents";

/** Builds the tool for one connection. */
export function dependentsTool(ctx: CloudContext): ToolDefinition {
  return dependencyWalkTool(ctx, {
    name: DEPENDENTS,
    description:
      "List everything that depends on an asset (downstream: what breaks if it breaks), breadth-first over the dependency graph up to max_depth hops: each item is an asset brief with the edge type it was reached by (via), the declared relationship, its depth and the asset it was reached from (parent_id). total counts every dependent before the limit cut. For upstream use depends_on; for the whole impact use blast_radius.",
    walk: dependents,
  });
}
