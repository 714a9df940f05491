/**
 * Test helper: fetches every page of an inventory of the active artifact
 * target through a real client, up to 500 of each collection per page, each
 * collection following its own next_offset.
 */

import { basename, join } from "node:path";
import { type Loose, ok } from "./in_memory.ts";

/** Every page of one inventory, merged. */
export interface FullInventory {
  /** The evidence id of each page, in order. */
  ids: string[];
  occurrences: Loose[];
  nodes: Loose[];
  manifest: Loose;
  /** The first page's result. */
  first: Loose;
}

/** Fetches every page of an inventory of the active target; `extra` adds limits. */
export async function inventoryAll(
  client: Loose,
  extra: Record<string, unknown> = {},
): Promise<FullInventory> {
  const ids: string[] = [];
  const occurrences: Loose[] = [];
  const nodes: Loose[] = [];
  // Each collection follows its own next_offset: a page bounded in bytes may hold fewer than 500.
  const offsets = { node: 0, occurrence: 0, edge: 0 };
  let first: Loose = null;
  for (;;) {
    const page = await ok(client, "inventory_artifact", {
      ...extra,
      occurrence_offset: offsets.occurrence,
      occurrence_limit: 500,
      node_offset: offsets.node,
      node_limit: 500,
      edge_offset: offsets.edge,
      edge_limit: 500,
    });
    first ??= page.result;
    ids.push(page.evidence_id);
    occurrences.push(...page.result.occurrences.items);
    nodes.push(...page.result.nodes.items);
    const { nodes: n, occurrences: o, edges: e } = page.result;
    if (n.next_offset === null && o.next_offset === null && e.next_offset === null) break;
    // A collection read to its end is asked for at its end: an empty page.
    offsets.node = n.next_offset ?? n.total;
    offsets.occurrence = o.next_offset ?? o.total;
    offsets.edge = e.next_offset ?? e.total;
  }
  return { ids, occurrences, nodes, manifest: first.manifest, first };
}

/** What {@link compareOpened} returns: both full inventories and the comparison call's result. */
export interface OpenedComparison {
  left: FullInventory;
  right: FullInventory;
  /** The structured content of `compare_artifacts` (up to 500 changes). */
  compared: Loose;
}

/** Opens and fully inventories `left`, then `right`, and compares the two with `compare_artifacts`. */
export async function compareOpened(
  client: Loose,
  paths: { left: string; right: string },
): Promise<OpenedComparison> {
  await ok(client, "open_binary", { path: paths.left });
  const left = await inventoryAll(client);
  await ok(client, "open_binary", { path: paths.right });
  const right = await inventoryAll(client);
  const compared = await ok(client, "compare_artifacts", {
    left_evidence_ids: left.ids,
    right_evidence_ids: right.ids,
    limit: 500,
  });
  return { left, right, compared };
}

/** What {@link inventoryTarballCopy} returns. */
export interface InventoriedTarball {
  /** The copy's path. */
  path: string;
  /** The gzip's inner tar (the copy's name, `.tgz` made `.tar`): its members' path prefix. */
  stream: string;
  inventory: FullInventory;
}

/** Copies the `.tgz` at `source` into the session's `dir`, opens the copy and fully inventories it. */
export async function inventoryTarballCopy(
  session: { client: Loose; dir: string },
  source: string,
): Promise<InventoriedTarball> {
  const { client, dir } = session;
  const path = join(dir, basename(source));
  await Deno.copyFile(source, path);
  await ok(client, "open_binary", { path });
  const inventory = await inventoryAll(client);
  return { path, stream: basename(path).replace(/\.tgz$/, ".tar"), inventory };
}
