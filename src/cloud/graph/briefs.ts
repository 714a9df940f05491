/**
 * The graph-specific briefs: graph nodes that are not assets (a CIDR, an
 * external id, or the virtual internet node) and path hops that may be
 * such nodes. Asset, edge and finding briefs and their URIs live in
 * `model/briefs.ts`.
 *
 * @module
 */

import type { AssetBrief, HopBrief } from "../model/briefs.ts";
import { assetBrief, hopBrief as modelHopBrief } from "../model/briefs.ts";
import type { DatasetView } from "../model/view.ts";
import { INTERNET_NODE } from "./internet.ts";

/** A graph node that is not an asset: a CIDR, an external id, or the virtual internet. */
export interface PlaceholderBrief {
  /** The node id. */
  id: string;
  /** The node id, or `internet` for the virtual internet node. */
  name: string;
  /** Always `EXTERNAL`. */
  type: "EXTERNAL";
  /** Always true. */
  external: true;
}

/** The placeholder brief of a node that is not an asset; the virtual internet node is named `internet`. */
function placeholderBrief(nodeId: string): PlaceholderBrief {
  const name = nodeId === INTERNET_NODE ? "internet" : nodeId;
  return { id: nodeId, name, type: "EXTERNAL", external: true };
}

/** The brief of a graph node: an asset brief, or a placeholder brief for anything else. */
export function nodeBrief(view: DatasetView, nodeId: string): AssetBrief | PlaceholderBrief {
  const asset = view.asset(nodeId);
  return asset ? assetBrief(view, asset) : placeholderBrief(nodeId);
}

/** The brief of a path hop: the model's hop brief, with the virtual internet node named `internet`. */
export function hopBrief(view: DatasetView, nodeId: string): HopBrief {
  return view.asset(nodeId) ? modelHopBrief(view, nodeId) : placeholderBrief(nodeId);
}
