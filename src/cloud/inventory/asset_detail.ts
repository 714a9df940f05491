/**
 * What the asset resources serve: an asset's detail (brief, tags, relation
 * counts over its raw edges, open findings, metadata keys, direct
 * dependencies), its neighbours, and its open findings.
 *
 * @module
 */

import {
  type AssetBrief,
  assetBrief,
  type EdgeBrief,
  edgeBrief,
  type FindingBrief,
  findingBrief,
  openFindings,
} from "../model/briefs.ts";
import { dependencyPair } from "../graph/dependency_graph.ts";
import { compareCodePoints } from "../model/order.ts";
import type { Asset, Edge } from "../model/records.ts";
import { assetIndex, lookupAsset, resolveAsset } from "../model/references.ts";
import type { DatasetView } from "../model/view.ts";
import { pushTo } from "../../core/multimap.ts";

/** Most open findings in an asset's detail. */
export const DETAIL_FINDINGS = 10;
/** Most metadata keys in an asset's detail. */
const DETAIL_METADATA_KEYS = 100;
/** Most adjacency entries in an asset's neighbours. */
export const NEIGHBOR_EDGES = 500;

/** The edges touching each node id, both directions, in dataset order (cached per version). */
export function adjacency(view: DatasetView): Map<string, Edge[]> {
  return view.derived("raw_adjacency", () => {
    const map = new Map<string, Edge[]>();
    for (const edge of view.records.edges) {
      pushTo(map, edge.source_id, edge);
      if (edge.target_id !== edge.source_id) pushTo(map, edge.target_id, edge);
    }
    return map;
  });
}

/** An asset's detail. */
export interface AssetDetail extends AssetBrief {
  tags: Record<string, string>;
  relations: { outgoing: Record<string, number>; incoming: Record<string, number> };
  findings: FindingBrief[];
  metadata_keys: string[];
  dependencies: { direct_depends_on: number; direct_dependents: number };
}

/** A graph placeholder (such as `0.0.0.0/0`) that is not an asset. */
export interface PlaceholderDetail {
  id: string;
  external: true;
  name: string;
  degree: number;
}

/**
 * The detail of the asset `ref` names (any reference tier), or of a
 * placeholder node id; throws the reference errors otherwise.
 */
export function assetDetail(view: DatasetView, ref: string): AssetDetail | PlaceholderDetail {
  const edges = adjacency(view);
  const found = lookupAsset(assetIndex(view), ref);
  if (found.kind !== "found" && edges.has(ref) && view.asset(ref) === undefined) {
    return { id: ref, external: true, name: ref, degree: edges.get(ref)!.length };
  }
  const asset = resolveAsset(view, ref);
  return detailOf(view, asset, edges.get(asset.id) ?? []);
}

/** What the edges touching one asset say about it. */
export interface EdgeTally {
  /** Edges from the asset, per edge type. */
  outgoing: Record<string, number>;
  /** Edges to the asset, per edge type. */
  incoming: Record<string, number>;
  /** How many distinct other nodes it depends on, and depend on it, over one edge. */
  dependencies: { direct_depends_on: number; direct_dependents: number };
  /** How many edges point to it, and from it. */
  degree: { in: number; out: number };
}

/** Counts the edges touching asset `id` by type and direction, and its direct dependencies. */
export function tallyEdges(id: string, touching: readonly Edge[]): EdgeTally {
  const outgoing: Record<string, number> = {};
  const incoming: Record<string, number> = {};
  const dependsOn = new Set<string>();
  const dependents = new Set<string>();
  const degree = { in: 0, out: 0 };
  for (const edge of touching) {
    if (edge.source_id === id) {
      outgoing[edge.edge_type] = (outgoing[edge.edge_type] ?? 0) + 1;
      degree.out++;
    }
    if (edge.target_id === id) {
      incoming[edge.edge_type] = (incoming[edge.edge_type] ?? 0) + 1;
      degree.in++;
    }
    const other = edge.source_id === id ? edge.target_id : edge.source_id;
    if (other === id) continue;
    const dependent = dependencyPair(edge)?.[0];
    if (dependent === id) dependsOn.add(other);
    else if (dependent === other) dependents.add(other);
  }
  return {
    outgoing,
    incoming,
    dependencies: { direct_depends_on: dependsOn.size, direct_dependents: dependents.size },
    degree,
  };
}

/** The first metadata keys of an asset, in code-point order. */
export function metadataKeys(asset: Asset): string[] {
  return Object.keys(asset.metadata).sort(compareCodePoints).slice(0, DETAIL_METADATA_KEYS);
}

function detailOf(view: DatasetView, asset: Asset, touching: readonly Edge[]): AssetDetail {
  const { outgoing, incoming, dependencies } = tallyEdges(asset.id, touching);
  return {
    ...assetBrief(view, asset),
    tags: { ...asset.tags },
    relations: { outgoing, incoming },
    findings: openFindings(view, asset.id).slice(0, DETAIL_FINDINGS).map((f) =>
      findingBrief(view, f)
    ),
    metadata_keys: metadataKeys(asset),
    dependencies,
  };
}

/** An asset's neighbours over raw edges, both directions, parallel edges kept. */
export function assetNeighbors(view: DatasetView, ref: string): {
  asset: string;
  edges: EdgeBrief[];
  neighbors: (AssetBrief | { id: string; external: true })[];
} {
  const edges = adjacency(view);
  const id = edges.has(ref) && view.asset(ref) === undefined ? ref : resolveAsset(view, ref).id;
  const touching = (edges.get(id) ?? []).slice(0, NEIGHBOR_EDGES);
  const seen = new Set<string>();
  const neighbors: (AssetBrief | { id: string; external: true })[] = [];
  for (const edge of touching) {
    const other = edge.source_id === id ? edge.target_id : edge.source_id;
    if (seen.has(other)) continue;
    seen.add(other);
    const asset = view.asset(other);
    neighbors.push(asset ? assetBrief(view, asset) : { id: other, external: true });
  }
  return { asset: id, edges: touching.map((e) => edgeBrief(view, e)), neighbors };
}

/** Every open finding of an asset, highest risk first. */
export function assetFindings(view: DatasetView, ref: string): {
  asset: AssetBrief;
  findings: FindingBrief[];
} {
  const asset = resolveAsset(view, ref);
  return {
    asset: assetBrief(view, asset),
    findings: openFindings(view, asset.id).map((f) => findingBrief(view, f)),
  };
}
