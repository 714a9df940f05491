/**
 * How graph queries read the caller's references (`ref`, `source`,
 * `target`, `start`, `seeds`): the internet spellings, placeholder node ids,
 * then the six asset reference tiers.
 *
 * @module
 */

import { resolveAsset } from "../model/references.ts";
import type { DatasetView } from "../model/view.ts";
import { graphNodeFor } from "./nodes.ts";

/** Options of {@link resolveGraphRef}. */
export interface GraphRefOptions {
  /**
   * Read the internet references as the virtual internet node that path
   * searches start from, rather than the first internet entry point.
   * @default false
   */
  virtualInternet?: boolean;
}

/**
 * The graph node a reference names: for `internet`, `public`, `0.0.0.0/0`
 * or `::/0` the internet (see {@link graphNodeFor}); a placeholder node id
 * itself; otherwise the id of the asset it resolves to. Throws the asset
 * resolution errors (unknown with suggestions, ambiguous with candidates),
 * or a GraphQueryError when the internet is named and the dataset has no
 * internet node.
 */
export function resolveGraphRef(
  view: DatasetView,
  ref: string,
  options: GraphRefOptions = {},
): string {
  const node = graphNodeFor(view, ref, { virtualInternet: options.virtualInternet ?? false });
  return node ?? resolveAsset(view, ref).id;
}
