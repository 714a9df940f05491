/**
 * Test helper: fetches every page of an inventory of the active artifact
 * target through a real client, 500 of each collection per page.
 */

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
  let offset = 0;
  let first: Loose = null;
  for (;;) {
    const page = await ok(client, "inventory_artifact", {
      ...extra,
      occurrence_offset: offset,
      occurrence_limit: 500,
      node_offset: offset,
      node_limit: 500,
      edge_offset: offset,
      edge_limit: 500,
    });
    first ??= page.result;
    ids.push(page.evidence_id);
    occurrences.push(...page.result.occurrences.items);
    nodes.push(...page.result.nodes.items);
    const next = [page.result.occurrences, page.result.nodes, page.result.edges]
      .map((p: Loose) => p.next_offset).filter((n: number | null) => n !== null);
    if (next.length === 0) break;
    offset += 500;
  }
  return { ids, occurrences, nodes, manifest: first.manifest, first };
}
