/**
 * Reading the values of the shared cloud tool arguments (declared in
 * arguments.ts): type names checked against the enumerations, a node filter
 * resolved on the dataset's graph, path search bounds as the searches take them.
 *
 * @module
 */

import { resolveGraphRef } from "../graph/graph_refs.ts";
import { ASSET_TYPES, type AssetType, EDGE_TYPES, type EdgeType } from "../model/enums.ts";
import { parseEnum } from "../model/parse_enum.ts";
import type { DatasetView } from "../model/view.ts";

/** The asset types a `typeNamesArgument` names, checked (any case). Throws a CloudError. */
export function parseAssetTypes(names: readonly string[]): AssetType[] {
  return names.map((t) => parseEnum(t, ASSET_TYPES, { label: "asset type" }));
}

/** The edge types a `typeNamesArgument` names, checked (any case). Throws a CloudError. */
export function parseEdgeTypes(names: readonly string[]): EdgeType[] {
  return names.map((t) => parseEnum(t, EDGE_TYPES, { label: "edge type" }));
}

/** The graph node a `nodeFilterArgument` names, or undefined when it is empty. Throws a CloudError. */
export function parseNodeFilter(view: DatasetView, ref: string): string | undefined {
  return ref === "" ? undefined : resolveGraphRef(view, ref);
}

/** The `max_depth` and `max_paths` bounds of a path search as the searches take them. */
export function pathBounds(
  args: { max_depth: number; max_paths: number },
): { maxDepth: number; maxPaths: number } {
  return { maxDepth: args.max_depth, maxPaths: args.max_paths };
}
